// What a billed call cost (docs/billing.md "Cost"), from a maintained price catalogue taken as a
// dependency: @pydantic/genai-prices, whose data ships inside the package (no network at run
// time), with cache read and write rates (5 minutes and 1 hour), OpenRouter and direct routes,
// tiered prices and dated price changes. Hermes' own route rule is applied first: a subscription
// route costs nothing per call.

import { calcPrice, type ModelPrice } from '@pydantic/genai-prices';
import type { BilledUsage, CacheMiss, RequestCost } from './reportTypes';

/** The catalogue and its version, named in every cost so a figure can be traced to its rates. */
export const PRICE_CATALOGUE = '@pydantic/genai-prices 0.1.8';

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
 * was written, which a note says.
 */
export function costOf(b: BilledUsage, at?: Date): RequestCost | null {
  if (b.input === null || b.output === null) return null;
  const read = b.cacheRead ?? 0;
  const written = b.cacheWrite ?? 0;
  const notes: string[] = [];
  if (b.cacheWrite === null) notes.push('cache writes not logged (before upstream #104568): priced as uncached input');
  if (INCLUDED.has(b.provider)) {
    notes.push('included in the subscription (Hermes bills this route at 0)');
    return { usd: 0, rates: { input: 0, cacheRead: 0, cacheWrite: 0, output: 0 }, model: b.model, provider: b.provider, catalogue: PRICE_CATALOGUE, notes };
  }
  const providerId = PROVIDERS[b.provider];
  let priced: ReturnType<typeof calcPrice>;
  try {
    priced = calcPrice(
      { input_tokens: b.input, cache_read_tokens: read, cache_write_tokens: Math.min(written, Math.max(0, b.input - read)), output_tokens: b.output },
      b.model,
      { ...(providerId ? { providerId } : {}), ...(at ? { timestamp: at } : {}) },
    );
  } catch {
    priced = null;
  }
  if (!priced) return null;
  const p = priced.model_price;
  return {
    usd: priced.total_price,
    rates: { input: rate(p, 'input_mtok'), cacheRead: rate(p, 'cache_read_mtok'), cacheWrite: rate(p, 'cache_write_mtok'), output: rate(p, 'output_mtok') },
    model: priced.model.id,
    provider: priced.provider.id,
    catalogue: PRICE_CATALOGUE,
    notes,
  };
}

/**
 * What a miss cost beyond a hit: its re-billed tokens at the rate they were billed at (the write
 * rate where the line gives writes and the model has one, else uncached input, as `costOf` priced
 * them) less the cache-read rate.
 */
export function missCost(miss: CacheMiss, b: BilledUsage, cost: RequestCost | null): number | null {
  if (!cost) return null;
  const billedAt = (b.cacheWrite !== null ? cost.rates.cacheWrite : null) ?? cost.rates.input;
  if (billedAt === null) return null;
  return (miss.rebilledTokens * (billedAt - (cost.rates.cacheRead ?? billedAt))) / 1e6;
}
