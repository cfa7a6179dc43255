// The names a user picks in settings or on the command line: the host validates them without
// loading the engine or the tokenizer, which only the worker and the CLI run.

export type ProfileName = 'hermes-v0' | 'hermes-v1' | 'hermes-current';

export const PROFILE_NAMES: readonly ProfileName[] = ['hermes-v0', 'hermes-v1', 'hermes-current'];

export function isProfileName(value: string): value is ProfileName {
  return (PROFILE_NAMES as readonly string[]).includes(value);
}

export type TokenizerName = 'o200k_base' | 'cl100k_base';

export const TOKENIZER_NAMES: readonly TokenizerName[] = ['o200k_base', 'cl100k_base'];

/**
 * A price the user sets for a model (`promptInspector.prices`, `--prices FILE`), USD per million
 * tokens: it wins over the catalogue. A cache rate left out is the input rate (no discount assumed).
 */
export interface PriceOverride {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** By the model's name as the agent logs it (`model=` of an API call line). */
export type PriceOverrides = Readonly<Record<string, PriceOverride>>;

/** The overrides a setting or file holds, and what in it was refused (so nothing is silently dropped). */
export function priceOverridesOf(value: unknown): { prices: PriceOverrides; problems: string[] } {
  const prices: Record<string, PriceOverride> = {};
  const problems: string[] = [];
  if (value === undefined || value === null) return { prices, problems };
  if (typeof value !== 'object' || Array.isArray(value))
    return { prices, problems: ['prices must be an object: model name -> { input, output, cacheRead, cacheWrite }'] };
  const rate = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
  for (const [model, p] of Object.entries(value as Record<string, unknown>)) {
    const o = p as Record<string, unknown> | null;
    const ok =
      o !== null
      && typeof o === 'object'
      && rate(o.input)
      && rate(o.output)
      && (o.cacheRead === undefined || rate(o.cacheRead))
      && (o.cacheWrite === undefined || rate(o.cacheWrite));
    if (!ok) {
      problems.push(
        `${JSON.stringify(model).slice(0, 80)}: needs input and output (and may have cacheRead, cacheWrite), each a number >= 0, USD per million tokens`,
      );
      continue;
    }
    prices[model] = {
      input: o.input as number,
      output: o.output as number,
      ...(o.cacheRead === undefined ? {} : { cacheRead: o.cacheRead as number }),
      ...(o.cacheWrite === undefined ? {} : { cacheWrite: o.cacheWrite as number }),
    };
  }
  return { prices, problems };
}
