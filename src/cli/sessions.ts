// `prompt-inspector sessions FILE`: the session overview (src/analysis/sessionOverview.ts) as an
// aligned table, one row per lineage, its forks indented under it and a chain's sessions listed
// below it. Titles and ids come from the transcript, so every cell goes through `visible` first
// and is measured as printed.

import { OVERVIEW_COLUMNS, overviewCell, type OverviewColumn } from '../shared/overviewColumns';
import type { OverviewLineage, OverviewSession, SessionOverview } from '../shared/overviewTypes';
import { clip, visible, width } from './terminalText';

const TITLE_CELLS = 40;

function cell(column: OverviewColumn, row: OverviewLineage | OverviewSession): string {
  const { value, missing } = overviewCell(column, row);
  if (value === null) return missing ?? '';
  if (column.key === 'title') return clip(visible(String(value)), TITLE_CELLS);
  return visible(String(value));
}

/**
 * Forks are indented two cells a level down to this depth; deeper ones stay at its indent with
 * their level written out (`└ [12] branch ID`), so a chain of 10,000 forks makes a table as wide as
 * one of ten, not 20,000 cells.
 */
const MAX_INDENT = 10;

function idCell(row: OverviewLineage | OverviewSession, depth: number, inChain: boolean): string {
  const indent = '  '.repeat(Math.min(depth, MAX_INDENT));
  const level = depth >= MAX_INDENT ? `[${depth}] ` : '';
  if (inChain) return `${indent}  · ${level}${visible(row.id)}`;
  const kind = 'kind' in row && row.kind !== 'conversation' ? `${row.kind} ` : '';
  return `${indent}${depth ? '└ ' : ''}${level}${kind}${visible(row.id)}`;
}

/**
 * Which columns a terminal too narrow for all of them keeps, most wanted first: what the lineage is,
 * then where the cache broke and what it cost, then the replay's figures, then the store's own.
 * Kept columns print in their usual order.
 */
const FIT_ORDER = [
  'id',
  'title',
  'turns',
  'breaks',
  'errors',
  'start',
  'input',
  'reused-pct',
  'cost',
  'hit-pct',
  'unexplained',
  'model',
  'source',
  'requests',
  'warnings',
  'sessions',
  'duration',
  'compactions',
  'end',
  'billed-input',
  'reused',
  'rec-cost',
  'api-calls',
  'compaction-calls',
  'rec-input',
  'rec-cache-read',
  'rec-cache-write',
  'rec-output',
  'rec-messages',
];
/** The narrowest a title is clipped to before columns go instead. */
const MIN_TITLE_CELLS = 16;
const GAP = 2;

/**
 * The overview as lines: a heading, the rows, and what the starred columns and missing values mean.
 * Given a terminal's width (`fit`), only the columns that fit it, most wanted first (FIT_ORDER), the
 * title clipped first, and a line naming the columns left out; without it, every column.
 */
export function sessionsTable(overview: SessionOverview, lineages: readonly OverviewLineage[], fit?: number): string[] {
  const grid: string[][] = [OVERVIEW_COLUMNS.map((c) => c.heading)];
  let lineageCount = 0;
  let sessionCount = 0;
  // Depth first, without recursion: forks nest as deep as the file makes them.
  const stack = [...lineages].reverse().map((l) => ({ l, depth: 0 }));
  for (let top = stack.pop(); top; top = stack.pop()) {
    const { l, depth } = top;
    lineageCount++;
    sessionCount += l.sessions.length;
    grid.push(OVERVIEW_COLUMNS.map((c) => (c.key === 'id' ? idCell(l, depth, false) : cell(c, l))));
    // A compaction chain's sessions, each with its own figures, under the lineage's total.
    if (l.sessions.length > 1) for (const s of l.sessions) grid.push(OVERVIEW_COLUMNS.map((c) => (c.key === 'id' ? idCell(s, depth, true) : cell(c, s))));
    for (let i = l.children.length - 1; i >= 0; i--) stack.push({ l: l.children[i], depth: depth + 1 });
  }
  const widths = OVERVIEW_COLUMNS.map((_, i) => grid.reduce((w, r) => Math.max(w, width(r[i])), 0));
  const { shown, titleCells } = fitted(widths, fit);
  const titleAt = OVERVIEW_COLUMNS.findIndex((c) => c.key === 'title');
  if (titleCells < widths[titleAt]) {
    for (const r of grid) r[titleAt] = clip(r[titleAt], titleCells);
    widths[titleAt] = titleCells;
  }
  const pad = (s: string, i: number): string => {
    const gap = ' '.repeat(widths[i] - width(s));
    return OVERVIEW_COLUMNS[i].text ? s + gap : gap + s;
  };
  const out = [
    visible(
      `${overview.source.path} (${overview.source.format}), profile ${overview.profile}, tokenizer ${overview.tokenizer}: `
        + `${lineageCount} lineage(s), ${sessionCount} session(s)`,
    ),
  ];
  if (lineages.length === 0) {
    out.push('no lineage matches');
  } else {
    for (const r of grid)
      out.push(
        shown
          .map((i) => pad(r[i], i))
          .join(' '.repeat(GAP))
          .trimEnd(),
      );
  }
  const left = OVERVIEW_COLUMNS.filter((_, i) => !shown.includes(i)).map((c) => c.heading);
  if (left.length) out.push(`${left.length} column(s) left out to fit ${fit} cells: ${left.join(', ')} (--wide, or a pipe, shows every column)`);
  out.push(
    "* the agent's own counters (state.db sessions columns, COMPACTION CALLS* from session_model_usage; INPUT* excludes cache reads and writes, as upstream counts it; "
      + "COST $* is Hermes' estimate, not the bill); the other figures are the replay's, and BILLED ones the log's. "
      + '"not recorded": the store does not hold the value; '
      + '"not read": those rows were not loaded.',
  );
  if (overview.unplaced.errors || overview.unplaced.warnings) {
    out.push(`findings in no session: ${overview.unplaced.errors} error(s), ${overview.unplaced.warnings} warning(s) (\`check\` lists them)`);
  }
  if (!overview.read)
    out.push('the file is too large to read whole: only its sessions were listed; `--session ID` reads one session with its parents and descendants');
  // Every cell is escaped already; the whole line once more, so nothing printed can skip it.
  return out.map(visible);
}

/** The columns that fit `fit` cells (their indexes, in table order) and the title's width then. */
function fitted(widths: number[], fit: number | undefined): { shown: number[]; titleCells: number } {
  const titleAt = OVERVIEW_COLUMNS.findIndex((c) => c.key === 'title');
  const all = OVERVIEW_COLUMNS.map((_, i) => i);
  if (fit === undefined) return { shown: all, titleCells: widths[titleAt] };
  const total = (kept: number[], title: number): number => kept.reduce((n, i) => n + (i === titleAt ? title : widths[i]), 0) + GAP * (kept.length - 1);
  const minTitle = Math.min(widths[titleAt], MIN_TITLE_CELLS);
  // A column FIT_ORDER does not name yet comes last.
  const rank = (i: number): number => {
    const at = FIT_ORDER.indexOf(OVERVIEW_COLUMNS[i].key);
    return at < 0 ? FIT_ORDER.length : at;
  };
  const order = [...all].sort((a, b) => rank(a) - rank(b));
  // The most wanted columns that fit with the title at its narrowest, then the title as wide as the rest allows.
  let kept = order.slice(0, 2);
  for (const i of order.slice(2))
    if (total([...kept, i], minTitle) <= fit) kept = [...kept, i];
    else break;
  const titleCells = Math.max(minTitle, Math.min(widths[titleAt], fit - total(kept, 0)));
  return { shown: all.filter((i) => kept.includes(i)), titleCells };
}
