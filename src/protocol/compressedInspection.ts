// A lineage of a home's report, compressed (CompressedInspection): its inspection's JSON, gzip-compressed,
// in base64. The page of a 2,000-session home was 144 MB of JSON parsed before anything showed;
// compressed, its lineages are a fraction of that and the page decompresses only the one opened, with the
// browser's own DecompressionStream (src/shared/embedded.ts).

import { gzipSync } from 'node:zlib';
import { writeJson } from '../shared/jsonPieces';
import type { EmbeddedInspection, CompressedInspection } from '../shared/messages';

export function compressInspection(inspection: EmbeddedInspection): CompressedInspection {
  // In pieces: one lineage's JSON may be longer than a string can be.
  const pieces: Buffer[] = [];
  writeJson(inspection, (s) => pieces.push(Buffer.from(s)));
  return gzipSync(Buffer.concat(pieces)).toString('base64');
}
