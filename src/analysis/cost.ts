// What a billed call cost (docs/billing.md "Cost"), from a maintained price catalogue taken as a
// dependency: @pydantic/genai-prices, whose data ships inside the package (no network at run
// time), with cache read and write rates (5 minutes and 1 hour), OpenRouter and direct routes,
// tiered prices and dated price changes. Hermes' own route rule is applied first: a subscription
// route costs nothing per call.

import { calcPrice, type ModelPrice } from '@pydantic/genai-prices';
import type { BilledUsage, CacheMiss, Report, RequestCost } from '../shared/reportTypes';
import type { PriceOverride, PriceOverrides } from '../shared/settingNames';

/** The catalogue and its version, named in every cost so a figure can be traced to its rates. */
export const PRICE_CATALOGUE = '@pydantic/genai-prices 0.1.8';

/** What a cost priced by the user's own rates names as its catalogue. */
export const PRICE_OVERRIDE = 'prices set by the user';

/** What pricing a call needs of its usage: Hermes' logged calls and other agents' recorded ones alike. */
export type PricedUsage = Pick<BilledUsage, 'input' | 'output' | 'cacheRead' | 'cacheWrite' | 'model' | 'provider'> & {
  /** Of `cacheWrite`, the tokens written for an hour, where the record says (Anthropic's `ephemeral_1h_input_tokens`). */
  cacheWrite1h?: number | null;
};

/**
 * Anthropic bills a write kept for an hour at twice the base input rate, one kept five minutes at
 * 1.25 times (docs.anthropic.com, prompt caching pricing); the catalogue's write rate is the
 * five-minute one.
 */
const HOUR_WRITE_TIMES_INPUT = 2;

/** Hermes' provider names → the catalogue's provider ids, where they differ or are known; others are matched by model. */
const PROVIDERS: Readonly<Record<string, string>> = {
  anthropic: 'anthropic',
  openrouter: 'openrouter',
  openai: 'openai',
  gemini: 'google',
  google: 'google',
  'google-ai-studio': 'google',
  deepseek: 'deepseek',
  mistral: 'mistral',
  groq: 'groq',
  'x-ai': 'x-ai',
  xai: 'x-ai',
  fireworks: 'fireworks',
  bedrock: 'aws',
  'aws-bedrock': 'aws',
  azure: 'azure',
};

/** Routes Hermes bills as included in a subscription (resolve_billing_route: `subscription_included`). */
const INCLUDED = new Set(['openai-codex']);

/** A price of the catalogue, per million tokens: a flat rate, or the base of a tiered one. */
function rate(p: ModelPrice, key: string): number | null {
  const v = p[key];
  if (typeof v === 'number') return v;
  if (v && typeof v === 'object' && typeof (v as { base?: unknown }).base === 'number') return (v as { base: number }).base;
  return null;
}

/**
 * The call's cost, or null where the line has no usage or the catalogue has no price for the model.
 * `input` is the whole prompt (Hermes normalises every provider so), of which the read and the
 * written are parts; a line with no write figure (before upstream #104568) is priced as if nothing
 * was written, which a note says. A price the user set for the model (`prices`) wins over the
 * catalogue and over Hermes' subscription rule.
 */
export function costOf(b: PricedUsage, at?: Date, prices?: PriceOverrides): RequestCost | null {
  if (b.input === null || b.output === null) return null;
  const read = b.cacheRead ?? 0;
  const written = b.cacheWrite ?? 0;
  const notes: string[] = [];
  if (b.cacheWrite === null) notes.push('cache writes not logged (before upstream #104568): priced as uncached input');
  const own = prices && Object.prototype.hasOwnProperty.call(prices, b.model) ? prices[b.model] : undefined;
  if (own) return withHourWrites(overridden(b, b.input, b.output, own, read, Math.min(written, Math.max(0, b.input - read)), notes), b);
  if (INCLUDED.has(b.provider)) {
    notes.push('included in the subscription (Hermes bills this route at 0)');
    return { usd: 0, rates: { input: 0, cacheRead: 0, cacheWrite: 0, output: 0 }, model: b.model, provider: b.provider, catalogue: PRICE_CATALOGUE, notes };
  }
  const providerId = PROVIDERS[b.provider];
  const usage: Usage = {
    input_tokens: b.input,
    cache_read_tokens: read,
    cache_write_tokens: Math.min(written, Math.max(0, b.input - read)),
    output_tokens: b.output,
  };
  const key = `${b.model}\u0000${providerId ?? ''}`;
  const linear = LINEAR.get(key);
  if (linear) return withHourWrites(costFrom(linear.of(usage), linear.priced, notes), b);
  const priced = catalogue(usage, b.model, providerId, at);
  if (!priced) return null;
  if (linear === undefined) LINEAR.set(key, linearOf(priced, b.model, providerId, usage));
  return withHourWrites(costFrom(priced.total_price, priced, notes), b);
}

/** The cost with the hour's writes at their own rate instead of the five-minute one they were priced at. */
function withHourWrites(cost: RequestCost, b: PricedUsage): RequestCost {
  const hour = Math.min(b.cacheWrite1h ?? 0, b.cacheWrite ?? 0);
  const { input, cacheWrite } = cost.rates;
  if (hour <= 0 || input === null) return cost;
  const hourRate = HOUR_WRITE_TIMES_INPUT * input;
  return {
    ...cost,
    usd: cost.usd + (hour * (hourRate - (cacheWrite ?? input))) / 1e6,
    notes: [...cost.notes, `${hour} tokens written for 1 hour, at ${HOUR_WRITE_TIMES_INPUT}× the input rate (${hourRate} per million)`],
  };
}

/** The call priced by the user's rates: uncached input, cache read, cache write and output, each at its own. */
function overridden(b: PricedUsage, input: number, output: number, p: PriceOverride, read: number, written: number, notes: string[]): RequestCost {
  const cacheRead = p.cacheRead ?? p.input;
  const cacheWrite = p.cacheWrite ?? p.input;
  if (p.cacheRead === undefined || p.cacheWrite === undefined) notes.push('a cache rate not set: priced at the input rate');
  const usd = ((input - read - written) * p.input + read * cacheRead + written * cacheWrite + output * p.output) / 1e6;
  return { usd, rates: { input: p.input, cacheRead, cacheWrite, output: p.output }, model: b.model, provider: b.provider, catalogue: PRICE_OVERRIDE, notes };
}

type Usage = Parameters<typeof calcPrice>[0];
type Priced = NonNullable<ReturnType<typeof calcPrice>>;

function catalogue(usage: Usage, model: string, providerId: string | undefined, at?: Date): Priced | null {
  try {
    return calcPrice(usage, model, { ...(providerId ? { providerId } : {}), ...(at ? { timestamp: at } : {}) });
  } catch {
    return null;
  }
}

function costFrom(usd: number, priced: Priced, notes: string[]): RequestCost {
  const p = priced.model_price;
  return {
    usd,
    rates: { input: rate(p, 'input_mtok'), cacheRead: rate(p, 'cache_read_mtok'), cacheWrite: rate(p, 'cache_write_mtok'), output: rate(p, 'output_mtok') },
    model: priced.model.id,
    provider: priced.provider.id,
    catalogue: PRICE_CATALOGUE,
    notes,
  };
}

/**
 * A model whose price neither changes with time nor has tiers costs a linear function of the
 * token counts: its coefficients, taken from the catalogue once, price every later call in a
 * fraction of calcPrice's ~11 µs (a home's logs hold tens of thousands of calls). Checked against
 * the catalogue's own figure for the first call; any other model is priced by the catalogue each time.
 */
interface LinearPrice {
  priced: Priced;
  of(u: Usage): number;
}
const LINEAR = new Map<string, LinearPrice | null>();

function linearOf(priced: Priced, model: string, providerId: string | undefined, first: Usage): LinearPrice | null {
  if (Array.isArray(priced.model.prices) || Object.values(priced.model_price).some((v) => typeof v === 'object')) return null;
  const at = (u: Usage): number | null => catalogue(u, model, providerId)?.total_price ?? null;
  const M = 1e6;
  const zero = at({ input_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, output_tokens: 0 });
  const input = at({ input_tokens: M, cache_read_tokens: 0, cache_write_tokens: 0, output_tokens: 0 });
  const read = at({ input_tokens: M, cache_read_tokens: M, cache_write_tokens: 0, output_tokens: 0 });
  const write = at({ input_tokens: M, cache_read_tokens: 0, cache_write_tokens: M, output_tokens: 0 });
  const output = at({ input_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, output_tokens: M });
  if (zero === null || input === null || read === null || write === null || output === null) return null;
  const k = { input: (input - zero) / M, read: (read - input) / M, write: (write - input) / M, output: (output - zero) / M };
  const of = (u: Usage): number =>
    zero + k.input * (u.input_tokens ?? 0) + k.read * (u.cache_read_tokens ?? 0) + k.write * (u.cache_write_tokens ?? 0) + k.output * (u.output_tokens ?? 0);
  return Math.abs(of(first) - priced.total_price) <= 1e-9 * Math.max(1, priced.total_price) ? { priced, of } : null;
}

/** What a turn's billed requests cost, USD: its priced requests' costs summed; null where none was priced. */
export function turnCost(report: Pick<Report, 'requests'>, turn: Pick<Report['turns'][number], 'requests'>): number | null {
  const priced = turn.requests.flatMap((q) => (report.requests[q].cost ? [report.requests[q].cost.usd] : []));
  return priced.length ? priced.reduce((a, b) => a + b, 0) : null;
}

/**
 * What a miss cost beyond a hit: its re-billed tokens at the rate they were billed at (the write
 * rate where the line gives writes and the model has one, else uncached input, as `costOf` priced
 * them) less the cache-read rate.
 */
export function missCost(
  miss: Pick<CacheMiss, 'rebilledTokens'>,
  b: Pick<PricedUsage, 'cacheWrite' | 'cacheWrite1h'>,
  cost: RequestCost | null,
): number | null {
  if (!cost) return null;
  const written = b.cacheWrite !== null ? cost.rates.cacheWrite : null;
  // Writes partly for an hour: the tokens billed again are billed at the writes' mean rate.
  const hour = Math.min(b.cacheWrite1h ?? 0, b.cacheWrite ?? 0);
  const billedAt =
    hour > 0 && written !== null && cost.rates.input !== null
      ? (hour * HOUR_WRITE_TIMES_INPUT * cost.rates.input + (b.cacheWrite! - hour) * written) / b.cacheWrite!
      : (written ?? cost.rates.input);
  if (billedAt === null) return null;
  return (miss.rebilledTokens * (billedAt - (cost.rates.cacheRead ?? billedAt))) / 1e6;
}
