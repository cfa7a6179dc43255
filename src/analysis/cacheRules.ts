// What each provider's prompt cache promises, as far as a billed call can be judged by it: how long
// an idle prefix lives, and the shortest prefix it caches at all. Sources in docs/billing.md (the providers' own pages).

export type ProviderFamily = 'anthropic' | 'openai' | 'google' | 'other';

export interface CacheRule {
  family: ProviderFamily;
  /** Idle seconds after which the prefix may be gone; null where the provider documents none. */
  lifetimeSeconds: number | null;
  /** Prompts shorter than this are never cached; null where not known. */
  minimumTokens: number | null;
}

/** The family of a model as Hermes names it: `anthropic/claude-sonnet-4.6`, `claude-opus-4-6`, `gpt-5.5`, `google/gemini-3-pro`. */
export function familyOf(model: string): ProviderFamily {
  const m = model.toLowerCase();
  if (m.includes('claude')) return 'anthropic';
  if (/(^|\/)(gpt|o\d|codex|chatgpt)/.test(m)) return 'openai';
  if (m.includes('gemini')) return 'google';
  return 'other';
}

/**
 * The model's version as `major.minor` read from its name: after the tier (`opus-4-6`, `opus-4.6`,
 * `opus-5`) or, in the older names, before it (`claude-3-5-haiku`); null without one.
 */
function claudeVersion(m: string, tier: string): number | null {
  const v = new RegExp(`${tier}[-_ ]?(\\d+)(?:[.-](\\d)(?!\\d))?`).exec(m) ?? new RegExp(`claude-(\\d+)(?:[.-](\\d)(?!\\d))?-${tier}`).exec(m);
  return v ? Number(v[1]) + (v[2] ? Number(v[2]) / 10 : 0) : null;
}

function anthropicMinimum(m: string): number | null {
  const opus = claudeVersion(m, 'opus');
  if (opus !== null) return opus >= 5 ? 512 : opus >= 4.5 ? 4096 : 1024;
  const haiku = claudeVersion(m, 'haiku');
  if (haiku !== null) return haiku >= 4.5 ? 4096 : 2048;
  if (m.includes('sonnet')) return 1024;
  return null;
}

function geminiMinimum(m: string): number | null {
  if (m.includes('pro')) return 4096;
  if (m.includes('flash')) return 1024;
  return null;
}

/**
 * The rule for one call's model. Anthropic's lifetime is 5 minutes unless the request's markers ask
 * for 1 hour (`asked`: Hermes' `prompt_caching.cache_ttl`, the same for every marker it sends);
 * OpenAI keeps an idle prefix "typically 5 to 10 minutes", so past 5 minutes a miss may be expiry;
 * Gemini's implicit cache documents no lifetime.
 */
export function cacheRule(model: string, asked: '5m' | '1h' = '5m'): CacheRule {
  const family = familyOf(model);
  const m = model.toLowerCase();
  switch (family) {
    case 'anthropic':
      return { family, lifetimeSeconds: asked === '1h' ? 3600 : 300, minimumTokens: anthropicMinimum(m) };
    case 'openai':
      return { family, lifetimeSeconds: 300, minimumTokens: 1024 };
    case 'google':
      return { family, lifetimeSeconds: null, minimumTokens: geminiMinimum(m) };
    default:
      return { family, lifetimeSeconds: null, minimumTokens: null };
  }
}

/**
 * A shortfall up to this many tokens, or a twentieth of the previous prompt, is the cache's own
 * granularity (OpenAI caches in blocks of 128 tokens), not a miss.
 */
const MISS_FLOOR = 256;

/** How far a call's cache read may fall short of the previous prompt and still be a hit. */
export function missSlack(previousPrompt: number): number {
  return Math.max(MISS_FLOOR, previousPrompt / 20);
}

/**
 * What a provider's own rules say of a miss, before any cause its source records: the prefix
 * outlived its lifetime, or the previous prompt was too short to be cached at all; null where
 * neither explains it.
 */
export function ruleExplains(rule: CacheRule, idleSeconds: number | null, previousPrompt: number): 'expired' | 'too-short' | null {
  if (rule.lifetimeSeconds !== null && idleSeconds !== null && idleSeconds > rule.lifetimeSeconds) return 'expired';
  if (rule.minimumTokens !== null && previousPrompt < rule.minimumTokens) return 'too-short';
  return null;
}
