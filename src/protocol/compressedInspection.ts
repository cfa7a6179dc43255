// A lineage of a home's report, compressed (CompressedInspection): its inspection's JSON, gzip-compressed,
// in base64. The page of a 2,000-session home was 144 MB of JSON parsed before anything showed;
// compressed, its lineages are a fraction of that and the page decompresses only the one opened, with the
// browser's own DecompressionStream (src/shared/embedded.ts).

import { gzipSync } from 'node:zlib';
import { writeJson } from '../shared/jsonPieces';
import type { EmbeddedInspection, CompressedInspection } from '../shared/messages';

export function compressInspection(inspection: EmbeddedInspection): CompressedInspection {
  const json = jsonBytes(inspection);
  return gzipSync(json, { windowBits: windowBitsFor(json.length) }).toString('base64');
}

/**
 * The inspection's JSON. A home holds tens of thousands of small lineages: JSON.stringify's own text
 * costs a quarter of writeJson's walk; a lineage longer than a string can be, or nested deeper than
 * JSON.stringify recurses (a RangeError either way), is written in pieces.
 */
function jsonBytes(inspection: EmbeddedInspection): Buffer {
  try {
    return Buffer.from(JSON.stringify(inspection));
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    const pieces: Buffer[] = [];
    writeJson(inspection, (s) => pieces.push(Buffer.from(s)));
    return Buffer.concat(pieces);
  }
}

/**
 * A window no larger than the text (zlib's 9 to 15 bits): setting up the default 32 KB window is most of
 * the time a 2 KB lineage takes to compress, and a smaller one finds the same matches in it. Any
 * gzip reader, DecompressionStream included, inflates a stream made with a smaller window.
 */
function windowBitsFor(length: number): number {
  return Math.min(15, Math.max(9, Math.ceil(Math.log2(length + 1))));
}
