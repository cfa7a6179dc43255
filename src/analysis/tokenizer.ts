// Token counting for the inspector, backed by gpt-tokenizer: same counts as
// OpenAI's tiktoken, several times faster than js-tiktoken to build and to run,
// and far better on long runs (see bench/tokenizers.ts). Pure: no fs, no vscode.

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

// Character classes for the run scan. A regex such as `\p{L}{4096,}` costs as
// much as tokenizing, so the scan is a loop over a per-code-unit table filled
// on first sight of each character.
const OTHER = 1; // digits, which never form long pieces
const LETTER = 2; // \p{L} and \p{M}, the widest letter piece in either pattern
const SPACE = 3;
const SYMBOL = 4; // everything else: punctuation, symbols, emoji
const classOf = (char: string): number =>
  /[\p{L}\p{M}]/u.test(char) ? LETTER : /\s/.test(char) ? SPACE : /\p{N}/u.test(char) ? OTHER : SYMBOL;
const bmpClass = new Uint8Array(0x10000); // 0 = not classified yet
const astralClass = new Map<number, number>();

/** [start, end) of the single-class runs of at least RUN_GUARD_THRESHOLD code units. */
function longRuns(text: string): [number, number][] {
  const runs: [number, number][] = [];
  if (text.length < RUN_GUARD_THRESHOLD) return runs;
  let runStart = 0;
  let runClass = 0;
  for (let i = 0; i < text.length; ) {
    const code = text.charCodeAt(i);
    let cls: number;
    let width = 1;
    const next = code >= 0xd800 && code <= 0xdbff ? text.charCodeAt(i + 1) : 0;
    if (next >= 0xdc00 && next <= 0xdfff) {
      // A surrogate pair is one character: classify the code point, never split it.
      const point = (code - 0xd800) * 0x400 + (next - 0xdc00) + 0x10000;
      cls = astralClass.get(point) ?? 0;
      if (cls === 0) astralClass.set(point, (cls = classOf(String.fromCodePoint(point))));
      width = 2;
    } else {
      cls = bmpClass[code];
      if (cls === 0) bmpClass[code] = cls = classOf(String.fromCharCode(code));
    }
    if (cls !== runClass) {
      if (runClass !== OTHER && i - runStart >= RUN_GUARD_THRESHOLD) runs.push([runStart, i]);
      runStart = i;
      runClass = cls;
    }
    i += width;
  }
  if (runClass !== OTHER && text.length - runStart >= RUN_GUARD_THRESHOLD) runs.push([runStart, text.length]);
  return runs;
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

  const guarded = (text: string, runs: [number, number][]): number => {
    let total = 0;
    let last = 0;
    for (const [start, end] of runs) {
      if (start > last) total += exact(text.slice(last, start));
      total += countRun(text.slice(start, end));
      last = end;
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
      const runs = longRuns(text);
      n = runs.length > 0 ? guarded(text, runs) : exact(text);
      if (cache.size >= MAX_CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
      cache.set(text, n);
      return n;
    },
    isApproximate: (text) => longRuns(text).length > 0,
  };
}
