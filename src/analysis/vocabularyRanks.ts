// A vocabulary's rank list in the form the tokenizer builds its tables from: every token's bytes
// back to back, and each rank's byte length. gpt-tokenizer ships the list as a JavaScript array of
// 200,000 strings; evaluating that literal and encoding each string took ~0.45 s of every process
// that counts a token (the CLI, the engine worker, each test file). The bundles carry this packed
// form instead, as base64 text (scripts/packedVocabularies.cjs writes it with packedRanksSource):
// decoding it takes milliseconds. Run from source, the list is packed on first use.
// Pure: no fs, no vscode.

import { base64ToBytes, bytesToBase64 } from '../shared/base64';

/** gpt-tokenizer's rank module: token text (or bytes, for tokens that are not UTF-8) by rank; holes where a rank is unused. */
export interface RankListModule {
  default: (string | number[])[];
}

/** The module a bundle carries in place of gpt-tokenizer's (packedRanksSource's text). */
export interface PackedRankModule {
  packed: { bytes: string; lengths: string };
}

export interface PackedRanks {
  /** Every token's bytes, in rank order. */
  readonly bytes: Uint8Array;
  /** Byte length of each rank's token; 0 for an unused rank. */
  readonly lengths: Uint8Array;
}

export function packRanks(list: RankListModule['default']): PackedRanks {
  const encoder = new TextEncoder();
  const lengths = new Uint8Array(list.length);
  let bytes = new Uint8Array(8 * list.length);
  let used = 0;
  // forEach skips the holes of unused ranks.
  list.forEach((token, rank) => {
    if (used + 4 * token.length > bytes.length) {
      const grown = new Uint8Array(2 * bytes.length + 4 * token.length);
      grown.set(bytes);
      bytes = grown;
    }
    let n = 0;
    if (typeof token === 'string') n = encoder.encodeInto(token, bytes.subarray(used)).written;
    else for (const byte of token) bytes[used + n++] = byte;
    if (n === 0 || n > 255) throw new Error(`rank ${rank}: a token of ${n} bytes`);
    lengths[rank] = n;
    used += n;
  });
  return { bytes: bytes.slice(0, used), lengths };
}

/** The CommonJS module text a bundle holds in place of gpt-tokenizer's rank module. */
export function packedRanksSource(list: RankListModule['default']): string {
  const { bytes, lengths } = packRanks(list);
  return `module.exports = { packed: { bytes: "${bytesToBase64(bytes)}", lengths: "${bytesToBase64(lengths)}" } };\n`;
}

/** The packed ranks of either module: decoded from a bundle's, packed from gpt-tokenizer's own. */
export function ranksOf(module: RankListModule | PackedRankModule): PackedRanks {
  if ('packed' in module) return { bytes: base64ToBytes(module.packed.bytes), lengths: base64ToBytes(module.packed.lengths) };
  return packRanks(module.default);
}
