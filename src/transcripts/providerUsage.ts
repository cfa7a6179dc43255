// Billed usage as each provider reports it, normalised in one place (docs/recorded.md) to the whole
// prompt with its cached parts: Anthropic counts cache reads and writes on top of `input_tokens`;
// OpenAI (Chat Completions and Responses) and Codex (`cached_input_tokens`) count cached tokens, and
// from GPT-5.6 the tokens written to the cache, inside their input figure; Gemini inside `promptTokenCount`.

import type { RecordedUsage } from '../shared/model/recorded';
import { isObject } from './jsonLines';

/** A count, or null for anything else: a file's usage may hold a string or a negative number. */
const count = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : null);

export type UsageShape = 'anthropic' | 'openai-chat' | 'openai-responses' | 'codex' | 'gemini';

/** Which provider's usage object this is, by its keys; null for none we know. */
export function usageShapeOf(usage: unknown): UsageShape | null {
  if (!isObject(usage)) return null;
  // Chat Completions first: a route that passes Anthropic's cache figures through keeps `prompt_tokens`.
  if ('prompt_tokens' in usage) return 'openai-chat';
  if ('cache_read_input_tokens' in usage || 'cache_creation_input_tokens' in usage) return 'anthropic';
  if ('input_tokens_details' in usage) return 'openai-responses';
  if ('cached_input_tokens' in usage) return 'codex';
  if ('promptTokenCount' in usage) return 'gemini';
  if ('input_tokens' in usage) return 'anthropic';
  return null;
}

/** The usage object normalised; null when it is none of the shapes known. */
export function recordedUsageOf(usage: unknown, shape: UsageShape | null = usageShapeOf(usage)): RecordedUsage | null {
  if (!isObject(usage) || shape === null) return null;
  switch (shape) {
    case 'anthropic': {
      const creation = isObject(usage.cache_creation) ? usage.cache_creation : null;
      const uncached = count(usage.input_tokens);
      const cacheRead = count(usage.cache_read_input_tokens);
      const cacheWrite = count(usage.cache_creation_input_tokens);
      return {
        input: uncached === null ? null : uncached + (cacheRead ?? 0) + (cacheWrite ?? 0),
        cacheRead,
        cacheWrite,
        cacheWrite5m: creation ? count(creation.ephemeral_5m_input_tokens) : null,
        cacheWrite1h: creation ? count(creation.ephemeral_1h_input_tokens) : null,
        output: count(usage.output_tokens),
      };
    }
    case 'openai-chat': {
      const details = isObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
      const written = firstCount(details.cache_write_tokens, details.cache_creation_input_tokens, usage.cache_creation_input_tokens, usage.cache_write_tokens);
      const read = firstCount(details.cached_tokens, usage.cache_read_input_tokens, usage.prompt_cache_hit_tokens, usage.cached_tokens);
      return inside(count(usage.prompt_tokens), read, written, count(usage.completion_tokens));
    }
    case 'openai-responses': {
      const details = isObject(usage.input_tokens_details) ? usage.input_tokens_details : {};
      return inside(
        count(usage.input_tokens),
        count(details.cached_tokens),
        firstCount(details.cache_write_tokens, details.cache_creation_tokens),
        count(usage.output_tokens),
      );
    }
    case 'codex':
      return inside(count(usage.input_tokens), count(usage.cached_input_tokens), count(usage.cache_write_input_tokens), count(usage.output_tokens));
    case 'gemini':
      return inside(count(usage.promptTokenCount), count(usage.cachedContentTokenCount), null, count(usage.candidatesTokenCount));
  }
}

/**
 * One figure under a provider's several names, as Hermes' own normaliser takes it: the names in its
 * order, the first non-zero wins; 0 where only zeros are given, null where none is.
 */
function firstCount(...values: unknown[]): number | null {
  const counts = values.map(count).filter((n): n is number => n !== null);
  return counts.find((n) => n > 0) ?? counts[0] ?? null;
}

/**
 * A provider that counts cached tokens inside its prompt figure. Writes were free, and unreported,
 * before GPT-5.6 (a write figure absent is 0); from it OpenAI and Codex report them inside the prompt too.
 */
function inside(prompt: number | null, cached: number | null, written: number | null, output: number | null): RecordedUsage {
  return { input: prompt, cacheRead: cached ?? (prompt === null ? null : 0), cacheWrite: written ?? 0, cacheWrite5m: null, cacheWrite1h: null, output };
}
