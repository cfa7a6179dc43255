// Token counting for the inspector: tiktoken's exact counts, from gpt-tokenizer's vocabularies and
// pre-tokenizer patterns with a byte-pair merge of our own. The library's merge rescans the whole
// piece after every merge and decodes each candidate pair to a string: quadratic (one 600,000-char
// piece took minutes) and a microsecond or more a byte even on short pieces. This one keeps the
// candidate pairs in a heap and finds them by a hash of their parts: O(n log n) for n bytes.
// Pure: no fs, no vscode.

import type { TokenizerName } from '../shared/settingNames';
import { ranksOf, type PackedRankModule, type RankListModule } from './vocabularyRanks';

export interface TokenCounter {
  readonly name: TokenizerName;
  /** Exact tokenizer count of text, special-token strings counted as plain text. */
  count(text: string): number;
  /** True when count(text) cut a piece longer than MAX_PIECE (so it is an estimate, within a few tokens). */
  isApproximate(text: string): boolean;
}

/** What reached the byte-pair merge, summed over a counter's life: the cost of counting is
 * O(bytes × log longest), so these two bound it whatever the input. */
export interface TokenizerWork {
  /** Pieces (or chunks of cut pieces) merged. */
  readonly merged: number;
  /** UTF-8 bytes of those; never more than the UTF-8 bytes of the texts counted. */
  readonly bytes: number;
  /** The longest of them, in UTF-8 bytes; never more than 3 × MAX_PIECE. */
  readonly longest: number;
}

export interface GuardedTokenCounter extends TokenCounter {
  readonly work: TokenizerWork;
}

/**
 * Pre-tokenizer pieces longer than this many UTF-16 code units are counted in chunks. The
 * pre-tokenizers keep most pieces to a word, a number group or a run of spaces, but nothing bounds
 * a run of one class (letters, spaces, symbols), nor some mixes: o200k_base appends any run of
 * "\r", "\n" and "/" to a symbol ("!" + "\n/" × 300,000 is one piece), cl100k_base reads combining
 * marks as symbols ("!\u0301" × n is one piece), and whitespace of every kind forms one piece.
 */
export const MAX_PIECE = 4096;

/** Longer pieces are counted in chunks of this many code units: each chunk boundary costs at most
 * a token or so, and a multiple of 8 keeps 'aaaa…' exact. */
export const PIECE_CHUNK = 512;

/** Bounds memory for long-lived hosts; a session rarely has this many distinct texts. */
const MAX_CACHE_ENTRIES = 50_000;
/** Pieces that are not one token (identifiers, rare words) recur: the last count merged into each
 * of this many slots is kept, by the hash of the piece's bytes, for pieces of up to CACHED_BYTES. A
 * slot is overwritten rather than a map grown, so pieces that never recur cost no garbage. */
const CACHE_BITS = 14;
const CACHED_BYTES = 64;

// ---------------------------------------------------------------------------------------------
// Vocabularies: every token's bytes in one buffer and an open-addressing table keyed by a
// polynomial hash of the bytes. The hash of two adjacent parts joined follows from theirs
// (H(a + b) = H(a) × BASE^|b| + H(b)), so a candidate merge is looked up without building a string;
// tokens that are not valid UTF-8 (byte fragments of a character) merge like any other.

interface Vocabulary {
  /** The encoding's pre-tokenizer, sticky. */
  readonly split: RegExp;
  /** Every token's bytes, back to back from start[rank]. */
  readonly tokenBytes: Uint8Array;
  readonly start: Int32Array;
  /** Two ints a slot, side by side so that a probe reads one cache line: the token's hash, then
   * its rank | its length << 18 (-1: empty). */
  readonly table: Int32Array;
  /** Rank of each single byte (all 256 are tokens in both encodings). */
  readonly byteRank: Int32Array;
  /** Rank of each two-byte token by its bytes (b0 << 8 | b1), -1 when not a token: a piece's
   * first candidates come from this small table instead of the large one. */
  readonly bytePair: Int32Array;
  /** Bytes of the longest token: no longer span can be one token. */
  readonly longest: number;
  /** BASE^k mod 2^32 for k <= longest. */
  readonly power: Int32Array;
}

/** gpt-tokenizer's pre-tokenizer patterns (typed locally: its subpath exports are not visible to
 * TypeScript's `node` module resolution). */
interface PatternModule {
  O200K_TOKEN_SPLIT_REGEX: RegExp;
  CL100K_TOKEN_SPLIT_REGEX: RegExp;
}

const BASE = 0x01000193; // FNV's prime: odd, so powers never vanish mod 2^32
const TABLE_BITS = 19; // 524,288 slots for 200,000 tokens
const SLOT_MASK = (1 << TABLE_BITS) - 1;
const RANK_MASK = (1 << 18) - 1;
const slotOf = (hash: number): number => Math.imul(hash, 0x9e3779b1) >>> (32 - TABLE_BITS);

const vocabularies = new Map<TokenizerName, Vocabulary>();

function loadVocabulary(name: TokenizerName): Vocabulary {
  let vocabulary = vocabularies.get(name);
  if (vocabulary) return vocabulary;
  // Literal require paths so bundlers can see them; loaded on first count so importing this
  // module costs nothing.
  const patterns = require('gpt-tokenizer/encodingParams/constants') as PatternModule;
  const [ranks, split] =
    name === 'o200k_base'
      ? [require('gpt-tokenizer/bpeRanks/o200k_base') as RankListModule | PackedRankModule, patterns.O200K_TOKEN_SPLIT_REGEX]
      : [require('gpt-tokenizer/bpeRanks/cl100k_base') as RankListModule | PackedRankModule, patterns.CL100K_TOKEN_SPLIT_REGEX];
  const { bytes: tokenBytes, lengths } = ranksOf(ranks);
  const count = lengths.length;
  const start = new Int32Array(count);
  const table = new Int32Array(2 << TABLE_BITS).fill(-1);
  const byteRank = new Int32Array(256).fill(-1);
  const bytePair = new Int32Array(1 << 16).fill(-1);
  let used = 0;
  let longest = 0;
  for (let rank = 0; rank < count; rank++) {
    const n = lengths[rank];
    if (n === 0) continue; // an unused rank
    let h = 0;
    for (let i = used; i < used + n; i++) h = (Math.imul(h, BASE) + tokenBytes[i]) | 0;
    start[rank] = used;
    let slot = slotOf(h);
    while (table[2 * slot + 1] >= 0) slot = (slot + 1) & SLOT_MASK;
    table[2 * slot] = h;
    table[2 * slot + 1] = rank | (n << 18);
    if (n === 1) byteRank[tokenBytes[used]] = rank;
    if (n === 2) bytePair[(tokenBytes[used] << 8) | tokenBytes[used + 1]] = rank;
    used += n;
    longest = Math.max(longest, n);
  }
  if (byteRank.includes(-1) || count > 2 ** 18 || used !== tokenBytes.length) throw new Error(`${name}: not a byte-level vocabulary of < 2^18 tokens`);
  const power = new Int32Array(longest + 1);
  power[0] = 1;
  for (let k = 1; k <= longest; k++) power[k] = Math.imul(power[k - 1], BASE);
  vocabulary = { split: new RegExp(split.source, 'uy'), tokenBytes, start, table, byteRank, bytePair, longest, power };
  vocabularies.set(name, vocabulary);
  return vocabulary;
}

/** Rank of the token whose bytes are bytes[from .. from + n) and whose hash is h, or -1. */
function rankOf(v: Vocabulary, bytes: Uint8Array, from: number, n: number, h: number): number {
  if (n > v.longest) return -1;
  const { table, start, tokenBytes } = v;
  const entry = n << 18;
  for (let slot = slotOf(h); ; slot = (slot + 1) & SLOT_MASK) {
    const token = table[2 * slot + 1];
    if (token < 0) return -1;
    if (table[2 * slot] !== h || (token & ~RANK_MASK) !== entry) continue;
    const rank = token & RANK_MASK;
    const at = start[rank];
    let i = 0;
    while (i < n && tokenBytes[at + i] === bytes[from + i]) i++;
    if (i === n) return rank;
  }
}

// ---------------------------------------------------------------------------------------------
// The merge: tiktoken's rule (merge the adjacent pair whose joined bytes have the lowest rank, the
// leftmost on a tie, until no pair is a token), with a binary heap of candidate pairs instead of a
// rescan. Scratch arrays are sized for the longest piece that can reach it.

const MAX_PIECE_BYTES = 3 * MAX_PIECE; // 3 UTF-8 bytes per code unit at most
const POSITION_BITS = 14; // 2^14 > MAX_PIECE_BYTES, and ranks < 2^18: a heap key is rank:position in 32 bits

class Merger {
  /** The piece's bytes, written by the caller. */
  readonly bytes = new Uint8Array(MAX_PIECE_BYTES);
  // Parts are linked by the byte position they start at; pairRank[i] is the rank of part i joined
  // with the next one (-1: not a token), hash[i] the hash of part i's bytes.
  private readonly next = new Int32Array(MAX_PIECE_BYTES);
  private readonly prev = new Int32Array(MAX_PIECE_BYTES);
  private readonly pairRank = new Int32Array(MAX_PIECE_BYTES);
  private readonly hash = new Int32Array(MAX_PIECE_BYTES);
  /** Candidate merges, rank:position: n - 1 at first, at most 2 more per merge. */
  private readonly heap = new Uint32Array(3 * MAX_PIECE_BYTES);
  private size = 0;
  private v!: Vocabulary;

  /** Number of tokens of bytes[0 .. n), which is not a token as a whole. */
  count(v: Vocabulary, n: number): number {
    const { bytes, next, prev, pairRank, hash } = this;
    this.v = v;
    this.size = 0;
    for (let i = 0; i < n; i++) {
      next[i] = i + 1;
      prev[i] = i - 1;
      hash[i] = bytes[i];
    }
    for (let i = 0; i + 1 < n; i++) {
      const rank = v.bytePair[(bytes[i] << 8) | bytes[i + 1]];
      pairRank[i] = rank;
      if (rank >= 0) this.push(((rank << POSITION_BITS) | i) >>> 0);
    }
    pairRank[n - 1] = -1;
    let parts = n;
    while (this.size > 0) {
      const key = this.pop();
      const i = key & ((1 << POSITION_BITS) - 1);
      // Stale: part i was merged into its left neighbour, or its pair changed since (a changed
      // pair always has other bytes, hence another rank).
      if (pairRank[i] !== key >>> POSITION_BITS) continue;
      const j = next[i];
      hash[i] = (Math.imul(hash[i], v.power[next[j] - j]) + hash[j]) | 0;
      next[i] = next[j];
      pairRank[j] = -1;
      parts--;
      if (next[i] < n) {
        prev[next[i]] = i;
        this.pair(i, next[i]);
      } else pairRank[i] = -1;
      if (prev[i] >= 0) this.pair(prev[i], i);
    }
    return parts;
  }

  /** Sets the rank of part i joined with the next part j, and queues it when it is a token. */
  private pair(i: number, j: number): void {
    const end = this.next[j];
    const rank = rankOf(this.v, this.bytes, i, end - i, (Math.imul(this.hash[i], this.v.power[end - j]) + this.hash[j]) | 0);
    this.pairRank[i] = rank;
    if (rank >= 0) this.push(((rank << POSITION_BITS) | i) >>> 0);
  }

  private push(key: number): void {
    const heap = this.heap;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent] <= key) break;
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = key;
  }

  private pop(): number {
    const heap = this.heap;
    const top = heap[0];
    const size = --this.size;
    const last = heap[size];
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= size) break;
      if (child + 1 < size && heap[child + 1] < heap[child]) child++;
      if (heap[child] >= last) break;
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = last;
    return top;
  }
}

/** One for all counters: counting is synchronous. */
let merger: Merger | undefined;

/** Direct-mapped: slot by hash, the piece's bytes kept to confirm a hit. */
class PieceCache {
  private readonly hash = new Int32Array(1 << CACHE_BITS);
  private readonly length = new Uint8Array(1 << CACHE_BITS); // 0: empty
  private readonly tokens = new Int32Array(1 << CACHE_BITS);
  private readonly bytes = new Uint8Array(CACHED_BYTES << CACHE_BITS);

  /** The cached count of bytes[0 .. n) whose hash is h, or -1. */
  get(bytes: Uint8Array, n: number, h: number): number {
    const slot = Math.imul(h, 0x9e3779b1) >>> (32 - CACHE_BITS);
    if (this.length[slot] !== n || this.hash[slot] !== h) return -1;
    const at = slot * CACHED_BYTES;
    for (let i = 0; i < n; i++) if (this.bytes[at + i] !== bytes[i]) return -1;
    return this.tokens[slot];
  }

  set(bytes: Uint8Array, n: number, h: number, tokens: number): void {
    const slot = Math.imul(h, 0x9e3779b1) >>> (32 - CACHE_BITS);
    this.length[slot] = n;
    this.hash[slot] = h;
    this.tokens[slot] = tokens;
    this.bytes.set(bytes.subarray(0, n), slot * CACHED_BYTES);
  }
}

// ---------------------------------------------------------------------------------------------

export function createTokenCounter(name: TokenizerName): GuardedTokenCounter {
  let vocabulary: Vocabulary | undefined;
  const work = { merged: 0, bytes: 0, longest: 0 };
  let merged: PieceCache | undefined;

  /** Tokens of text[start, end), at most MAX_PIECE code units: encoded straight from the text. */
  const countSpan = (text: string, start: number, end: number): number => {
    const v = vocabulary as Vocabulary;
    const m = (merger ??= new Merger());
    const bytes = m.bytes;
    let n = 0;
    for (let i = start; i < end; i++) {
      let c = text.charCodeAt(i);
      if (c < 0x80) bytes[n++] = c;
      else if (c < 0x800) {
        bytes[n++] = 0xc0 | (c >> 6);
        bytes[n++] = 0x80 | (c & 0x3f);
      } else {
        const d = i + 1 < end ? text.charCodeAt(i + 1) : 0;
        if (c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
          const point = (c - 0xd800) * 0x400 + (d - 0xdc00) + 0x10000;
          bytes[n++] = 0xf0 | (point >> 18);
          bytes[n++] = 0x80 | ((point >> 12) & 0x3f);
          bytes[n++] = 0x80 | ((point >> 6) & 0x3f);
          bytes[n++] = 0x80 | (point & 0x3f);
          i++;
          continue;
        }
        if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd; // a lone surrogate, as tiktoken's ports encode it
        bytes[n++] = 0xe0 | (c >> 12);
        bytes[n++] = 0x80 | ((c >> 6) & 0x3f);
        bytes[n++] = 0x80 | (c & 0x3f);
      }
    }
    if (n === 1) return 1;
    let h = 0;
    if (n <= Math.max(v.longest, CACHED_BYTES)) {
      for (let i = 0; i < n; i++) h = (Math.imul(h, BASE) + bytes[i]) | 0;
      if (rankOf(v, bytes, 0, n, h) >= 0) return 1;
    }
    const cache = n <= CACHED_BYTES ? (merged ??= new PieceCache()) : undefined;
    const known = cache ? cache.get(bytes, n, h) : -1;
    if (known >= 0) return known;
    work.merged++;
    work.bytes += n;
    work.longest = Math.max(work.longest, n);
    const tokens = m.count(v, n);
    cache?.set(bytes, n, h, tokens);
    return tokens;
  };

  // A long piece is usually one repeated character or pair, so its chunks repeat too.
  const countLongPiece = (text: string, start: number, end: number): number => {
    const seen = new Map<string, number>();
    let total = 0;
    for (let from = start; from < end;) {
      let to = Math.min(from + PIECE_CHUNK, end);
      const code = text.charCodeAt(to - 1);
      if (to < end && code >= 0xd800 && code <= 0xdbff) to++; // never split a surrogate pair
      const chunk = text.slice(from, to);
      let n = seen.get(chunk);
      if (n === undefined) seen.set(chunk, (n = countSpan(text, from, to)));
      total += n;
      from = to;
    }
    return total;
  };

  /** Count × 2, + 1 when approximate. */
  const measure = (text: string): number => {
    const v = (vocabulary ??= loadVocabulary(name));
    let total = 0;
    let approximate = 0;
    // The sticky pattern gives each piece's end without a match array. Its alternatives cover
    // every character (letters, numbers, whitespace, anything else) and take one at least.
    for (let start = 0; start < text.length;) {
      v.split.lastIndex = start;
      if (!v.split.test(text)) throw new Error(`${name}: no pre-tokenizer piece at ${start}`);
      const end = v.split.lastIndex;
      if (end - start <= MAX_PIECE) total += countSpan(text, start, end);
      else {
        total += countLongPiece(text, start, end);
        approximate = 1;
      }
      start = end;
    }
    return total * 2 + approximate;
  };

  const cache = new Map<string, number>();
  const cached = (text: string): number => {
    if (text.length === 0) return 0;
    let m = cache.get(text);
    if (m !== undefined) return m;
    m = measure(text);
    if (cache.size >= MAX_CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
    cache.set(text, m);
    return m;
  };
  return {
    name,
    count: (text) => Math.floor(cached(text) / 2),
    isApproximate: (text) => cached(text) % 2 === 1,
    work,
  };
}
