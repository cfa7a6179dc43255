// A vocabulary's rank list in the form the tokenizer builds its tables from: every token's bytes
// back to back, and each rank's byte length. gpt-tokenizer ships the list as a JavaScript array of
// 200,000 strings; evaluating that literal and encoding each string took ~0.45 s of every process
// that counts a token (the CLI, the engine worker, each test file). The bundles read this packed
// form instead, as a binary file beside them (scripts/packedVocabularies.cjs writes it with
// packedRanksFile): as base64 text inside the bundle it cost each process ~90 ms more to read,
// compile and decode. Run from source, the list is packed on first use.
// Pure: no fs, no vscode.

/** gpt-tokenizer's rank module: token text (or bytes, for tokens that are not UTF-8) by rank; holes where a rank is unused. */
export interface RankListModule {
  default: (string | number[])[];
}

/** The module a bundle carries in place of gpt-tokenizer's: a packedRanksFile's bytes, read from beside the bundle. */
export interface PackedRankModule {
  packed: Uint8Array;
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

/** The file a bundle reads in place of gpt-tokenizer's rank module: the rank count (4 bytes, little-endian), the lengths, the bytes. */
export function packedRanksFile(list: RankListModule['default']): Uint8Array {
  const { bytes, lengths } = packRanks(list);
  const file = new Uint8Array(4 + lengths.length + bytes.length);
  new DataView(file.buffer).setUint32(0, lengths.length, true);
  file.set(lengths, 4);
  file.set(bytes, 4 + lengths.length);
  return file;
}

/** The packed ranks of either module: views into a bundle's file, packed from gpt-tokenizer's own list. */
export function ranksOf(module: RankListModule | PackedRankModule): PackedRanks {
  if (!('packed' in module)) return packRanks(module.default);
  // Plain views (fs hands a Buffer, at some offset in its own memory): what packRanks returns.
  const { buffer, byteOffset, byteLength } = module.packed;
  const count = new DataView(buffer, byteOffset, byteLength).getUint32(0, true);
  if (byteLength < 4 + count) throw new Error(`a packed vocabulary of ${byteLength} bytes cannot hold ${count} ranks`);
  return { lengths: new Uint8Array(buffer, byteOffset + 4, count), bytes: new Uint8Array(buffer, byteOffset + 4 + count, byteLength - 4 - count) };
}
