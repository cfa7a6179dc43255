// A database and its WAL folded into one image, for the tests' sql.js oracle: sql.js reads a single
// file, while the product overlays the WAL's committed frames page by page (src/transcripts/sqlite/pager.ts)
// from the same index (readWalIndex), so the oracle and the product agree on which frames count.
import { readWalIndex } from '../../src/transcripts/sqliteWal';

export interface WalApplyResult {
  /** A database image with every committed WAL frame applied (a new buffer; inputs untouched). */
  bytes: Uint8Array;
  /** Frames of committed transactions that were applied (superseded ones included). */
  framesApplied: number;
  /** Frames after the last valid commit, or from the first bad checksum/salt on (an in-progress writer, a stale tail). */
  framesIgnored: number;
  /** Human-readable notes, e.g. "WAL header checksum mismatch: WAL ignored" (WalIndex's warnings, then its notes). */
  warnings: string[];
}

/** Database header bytes 18/19: file format write/read versions; 1 = rollback journal, 2 = WAL. */
const DB_WRITE_VERSION_OFFSET = 18;
const DB_READ_VERSION_OFFSET = 19;
const DB_HEADER_BYTES = 100;

/** Page size from the database header (bytes 16-17, big-endian; 1 means 65536), or undefined without a header. */
function databasePageSize(db: Uint8Array): number | undefined {
  if (db.length < DB_HEADER_BYTES) return undefined;
  const raw = (db[16] << 8) | db[17];
  return raw === 1 ? 65536 : raw;
}

/** sql.js keeps the image in an in-memory file system with no shared memory: mark it as a rollback-journal database. */
function clearWalModeMarker(image: Uint8Array): Uint8Array {
  if (image.length >= DB_HEADER_BYTES && (image[DB_WRITE_VERSION_OFFSET] === 2 || image[DB_READ_VERSION_OFFSET] === 2)) {
    image[DB_WRITE_VERSION_OFFSET] = 1;
    image[DB_READ_VERSION_OFFSET] = 1;
  }
  return image;
}

/** The committed state as one database image. */
export function applyWal(db: Uint8Array, wal: Uint8Array): WalApplyResult {
  const index = readWalIndex(wal, databasePageSize(db));
  const { framesApplied, framesIgnored } = index;
  const warnings = [...index.warnings, ...index.notes];
  if (index.dbPages === 0) return { bytes: clearWalModeMarker(db.slice()), framesApplied, framesIgnored, warnings };
  // Truncate or zero-extend to the committed size, then lay the newest committed frames over it.
  const image = new Uint8Array(index.dbPages * index.pageSize);
  image.set(db.subarray(0, Math.min(db.length, image.length)));
  for (const [pageNumber, offset] of index.pages) image.set(wal.subarray(offset, offset + index.pageSize), (pageNumber - 1) * index.pageSize);
  return { bytes: clearWalModeMarker(image), framesApplied, framesIgnored, warnings };
}
