// Token counting for the inspector, backed by gpt-tokenizer (same counts as
// OpenAI's tiktoken, 2-4x faster than js-tiktoken and far better on long runs;
// see bench/tokenizers.ts). Pure: no fs, no vscode.

export type TokenizerName = 'o200k_base' | 'cl100k_base';

export const TOKENIZER_NAMES: readonly TokenizerName[] = ['o200k_base', 'cl100k_base'];

export interface TokenCounter {
  readonly name: TokenizerName;
  /** Exact tokenizer count of text, special-token strings counted as plain text. */
  count(text: string): number;
  /** True when count(text) was computed with the run guard (so it is an estimate, within a few tokens). */
  isApproximate(text: string): boolean;
}

/** The slice of the gpt-tokenizer encoding module we use (typed locally: its
 * subpath exports are not visible to TypeScript's `node` module resolution). */
interface Encoding {
  countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
}

/**
 * Runs of one character class at least this long are counted by the guard.
 * Both tokenizers' pre-tokenizers cut text into pieces that are at most one
 * single-class run (letters, whitespace, or punctuation/symbols; digits come
 * in groups of 3) plus a character or two, and BPE is super-linear in the
 * piece length (100,000 × 'a' takes seconds). Mixed runs without whitespace
 * (minified code, base64, URLs, CJK with punctuation) stay exact and cheap.
 */
export const RUN_GUARD_THRESHOLD = 4096;

/** Guarded runs are counted in chunks of this many characters: small enough
 * to keep BPE near-linear, a multiple of 8 so 'aaaa…' stays exact. */
const RUN_CHUNK = 512;

// Lookbehinds make each alternative start only at the first character of a
// run, so the scan is linear (a plain `X{4096,}` would re-scan every shorter
// run from each of its positions).
const LONG_RUN = new RegExp(
  ['[\\p{L}\\p{M}]', '[^\\s\\p{L}\\p{M}\\p{N}]', '\\s']
    .map((cls) => `(?<!${cls})${cls}{${RUN_GUARD_THRESHOLD},}`)
    .join('|'),
  'gu',
);

/** Bounds memory for long-lived hosts; a session rarely has this many distinct texts. */
const MAX_CACHE_ENTRIES = 50_000;

// Transcripts about LLMs contain strings like `<|endoftext|>`; the library
// throws on them by default, and they must count as the plain text they are.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

function loadEncoding(name: TokenizerName): Encoding {
  // Literal require paths so bundlers can see them; loaded on first count so
  // importing this module costs nothing.
  switch (name) {
    case 'o200k_base':
      return require('gpt-tokenizer/encoding/o200k_base') as Encoding;
    case 'cl100k_base':
      return require('gpt-tokenizer/encoding/cl100k_base') as Encoding;
  }
}

function hasLongRun(text: string): boolean {
  if (text.length < RUN_GUARD_THRESHOLD) return false;
  LONG_RUN.lastIndex = 0;
  return LONG_RUN.test(text);
}

export function createTokenCounter(name: TokenizerName): TokenCounter {
  let encoding: Encoding | undefined;
  const exact = (text: string): number => {
    encoding ??= loadEncoding(name);
    return encoding.countTokens(text, PLAIN_TEXT);
  };

  // A long run is usually one repeated character, so its chunks repeat too.
  const countRun = (run: string): number => {
    const seen = new Map<string, number>();
    let total = 0;
    for (let start = 0; start < run.length; ) {
      let end = Math.min(start + RUN_CHUNK, run.length);
      const code = run.charCodeAt(end - 1);
      if (end < run.length && code >= 0xd800 && code <= 0xdbff) end++; // never split a surrogate pair
      const chunk = run.slice(start, end);
      let n = seen.get(chunk);
      if (n === undefined) seen.set(chunk, (n = exact(chunk)));
      total += n;
      start = end;
    }
    return total;
  };

  const guarded = (text: string): number => {
    let total = 0;
    let last = 0;
    for (const match of text.matchAll(LONG_RUN)) {
      const at = match.index ?? 0;
      if (at > last) total += exact(text.slice(last, at));
      total += countRun(match[0]);
      last = at + match[0].length;
    }
    if (last < text.length) total += exact(text.slice(last));
    return total;
  };

  const cache = new Map<string, number>();
  return {
    name,
    count(text: string): number {
      if (text.length === 0) return 0;
      let n = cache.get(text);
      if (n !== undefined) return n;
      n = hasLongRun(text) ? guarded(text) : exact(text);
      if (cache.size >= MAX_CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
      cache.set(text, n);
      return n;
    },
    isApproximate: hasLongRun,
  };
}
