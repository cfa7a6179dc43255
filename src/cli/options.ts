// The command line's options (README "The CLI"): each flag read by one entry of a table, then the checks
// that concern several options or the command. Anything refused is a UsageError: one line, exit 2.

import { readFileSync } from 'node:fs';
import { OVERVIEW_COLUMNS, overviewColumn, type OverviewFilter } from '../shared/overviewColumns';
import {
  isProfileName,
  priceOverridesOf,
  PROFILE_NAMES,
  type PriceOverrides,
  type ProfileName,
  TOKENIZER_NAMES,
  type TokenizerName,
} from '../shared/settingNames';

export class UsageError extends Error {}

export const COMMANDS = ['analyze', 'check', 'report', 'sessions'] as const;
export type Command = (typeof COMMANDS)[number];

export const isCommand = (name: string): name is Command => (COMMANDS as readonly string[]).includes(name);

export interface Options {
  files: string[];
  json: boolean;
  messages: boolean;
  profile: ProfileName;
  tokenizer: TokenizerName;
  turn: number | null;
  format: 'text' | 'github';
  output: string | null;
  theme: 'light' | 'dark';
  session: string | undefined;
  /** analyze, check, report: only the lineage holding this session. */
  lineage: string | undefined;
  help: boolean;
  /** analyze, check, report: the agent.log files to match against (`--log`), [] for none (`--no-logs`), null: those beside the transcript. */
  logs: string[] | null;
  /** analyze, check, report: prices set by model (`--prices FILE`), over the catalogue's. */
  prices: PriceOverrides | undefined;
  /** sessions: the column to sort by, descending or not, and the filter. */
  sort: string | null;
  desc: boolean;
  filter: OverviewFilter;
  /** sessions: every column, however wide the terminal. */
  wide: boolean;
}

/** A flag that stands alone, or one that takes a value (`--flag V` or `--flag=V`). */
type Flag = { takes: false; set: (o: Options) => void } | { takes: true; set: (o: Options, value: string) => void };

const on = (set: (o: Options) => void): Flag => ({ takes: false, set });
const withValue = (set: (o: Options, value: string) => void): Flag => ({ takes: true, set });

/** A value that must be one of `allowed`, else the usage error `refusal(value)`. */
function oneOf<T extends string>(allowed: readonly T[], value: string, refusal: string): T {
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(refusal);
  return value as T;
}

const FLAGS: Record<string, Flag> = {
  '--json': on((o) => (o.json = true)),
  '--messages': on((o) => (o.messages = true)),
  '-h': on((o) => (o.help = true)),
  '--help': on((o) => (o.help = true)),
  '--profile': withValue((o, v) => {
    if (!isProfileName(v)) throw new UsageError(`unknown profile "${v}" (${PROFILE_NAMES.join(', ')})`);
    o.profile = v;
  }),
  '--tokenizer': withValue((o, v) => (o.tokenizer = oneOf(TOKENIZER_NAMES, v, `unknown tokenizer "${v}" (${TOKENIZER_NAMES.join(', ')})`))),
  '--turn': withValue((o, v) => {
    if (!/^\d+$/.test(v)) throw new UsageError(`--turn takes a turn number, not "${v}"`);
    o.turn = Number(v);
  }),
  '--format': withValue((o, v) => (o.format = oneOf(['text', 'github'], v, `--format is text or github, not "${v}"`))),
  '-o': withValue((o, v) => (o.output = v)),
  '--output': withValue((o, v) => (o.output = v)),
  '--session': withValue((o, v) => (o.session = v)),
  '--lineage': withValue((o, v) => (o.lineage = v)),
  '--log': withValue((o, v) => (o.logs = [...(o.logs ?? []), v])),
  '--no-logs': on((o) => (o.logs = [])),
  '--prices': withValue((o, v) => (o.prices = pricesFile(v))),
  '--sort': withValue((o, v) => {
    const key = v.startsWith('-') ? v.slice(1) : v;
    if (!overviewColumn(key)) throw new UsageError(`--sort takes a column (${OVERVIEW_COLUMNS.map((c) => c.key).join(', ')}), not "${v}"`);
    o.sort = key;
    if (v.startsWith('-')) o.desc = true;
  }),
  '--desc': on((o) => (o.desc = true)),
  '--wide': on((o) => (o.wide = true)),
  '--filter': withValue((o, v) => (o.filter = { ...o.filter, text: v })),
  '--has': withValue((o, v) => {
    const has = oneOf(['breaks', 'errors'], v, `--has is breaks or errors, not "${v}"`);
    o.filter = { ...o.filter, has: [...(o.filter.has ?? []), has] };
  }),
  '--theme': withValue((o, v) => (o.theme = oneOf(['light', 'dark'], v, `--theme is light or dark, not "${v}"`))),
};

/** Options only `sessions` reads: given to another command they would do nothing, so they are refused. */
const SESSIONS_ONLY = ['--sort', '--desc', '--filter', '--has', '--wide'];

/** Each flag in turn; anything else not starting with `-` (or `-` itself) is a file. */
export function parseArgs(args: string[]): Options {
  const o: Options = {
    files: [],
    json: false,
    messages: false,
    profile: 'hermes-current',
    tokenizer: 'o200k_base',
    turn: null,
    format: 'text',
    output: null,
    theme: 'light',
    session: undefined,
    lineage: undefined,
    help: false,
    logs: null,
    prices: undefined,
    sort: null,
    desc: false,
    filter: {},
    wide: false,
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const [name, inline] = eq > 0 ? [a.slice(0, eq), a.slice(eq + 1)] : [a, undefined];
    const flag = Object.hasOwn(FLAGS, name) ? FLAGS[name] : undefined;
    if (!flag) {
      if (a.startsWith('-') && a !== '-') throw new UsageError(`unknown option ${a}`);
      o.files.push(a);
    } else if (!flag.takes) {
      flag.set(o);
    } else if (inline !== undefined) {
      flag.set(o, inline);
    } else {
      const v = args[++i];
      if (v === undefined || v.startsWith('--')) throw new UsageError(`${name} needs a value`);
      flag.set(o, v);
    }
  }
  return o;
}

/** What a command asks of its options together: their number of files, options of other commands, pairs that exclude each other. */
export function checkOptions(command: Command, o: Options, args: string[]): void {
  const misplaced = command === 'sessions' ? undefined : args.find((a) => SESSIONS_ONLY.includes(a.split('=')[0]));
  if (misplaced) throw new UsageError(`${misplaced.split('=')[0]} is an option of \`sessions\`, not of \`${command}\``);
  if (o.lineage !== undefined && o.session !== undefined) throw new UsageError('--lineage and --session: give one of them');
  if (command === 'sessions' && o.lineage !== undefined) {
    throw new UsageError(
      '--lineage is an option of `analyze`, `check` and `report`; `sessions` lists every lineage (--session ID reads one, --filter TEXT shows some)',
    );
  }
  if (command === 'check') {
    if (!o.files.length) throw new UsageError('check takes at least one file');
    return;
  }
  if (o.files.length !== 1) throw new UsageError(`${command} takes exactly one file`);
  if (command === 'sessions' && o.desc && o.sort === null) throw new UsageError('--desc needs --sort COLUMN');
  if (command === 'report' && !o.output) throw new UsageError('report needs -o <out.html>');
}

/** `--prices FILE`: a JSON object of prices by model (docs/billing.md "Cost"); anything it refuses is a usage error. */
function pricesFile(path: string): PriceOverrides {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new UsageError(`--prices ${path}: ${(e as Error).message}`);
  }
  const { prices, problems } = priceOverridesOf(value);
  if (problems.length) throw new UsageError(`--prices ${path}: ${problems.join('; ')}`);
  return prices;
}
