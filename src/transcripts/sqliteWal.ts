/**
 * The committed state of a SQLite write-ahead log, read without SQLite.
 *
 * The agent's `state.db` runs in WAL mode: its newest transactions live only in
 * `state.db-wal` until a checkpoint copies them back. We must not open the live
 * database with a real SQLite (that would create `-shm` files or checkpoint next
 * to it), so we read the WAL ourselves, following the documented file format
 * (https://www.sqlite.org/fileformat2.html §4 "The Write-Ahead Log"):
 * readWalIndex says which frame holds each page's committed image; the page
 * reader (sqlite/pager.ts) overlays them on demand.
 *
 * Pure: no I/O, inputs are never modified, malformed input never throws.
 */

const WAL_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;
/** The low bit of the magic selects the byte order of the checksum words: 1 = big-endian. */
const WAL_MAGIC_LITTLE_ENDIAN = 0x377f0682;
const WAL_MAGIC_BIG_ENDIAN = 0x377f0683;
const WAL_FORMAT_VERSION = 3007000;

type Checksum = [number, number];

/**
 * SQLite's WAL checksum: over 32-bit words taken two at a time,
 * s0 += x[i] + s1; s1 += x[i+1] + s0 (mod 2^32), seeded with the previous
 * checksum so that every frame's checksum covers the whole log before it.
 */
function walChecksum(bytes: Uint8Array, start: number, end: number, bigEndian: boolean, seed: Checksum): Checksum {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let [s0, s1] = seed;
  for (let offset = start; offset < end; offset += 8) {
    s0 = (s0 + view.getUint32(offset, !bigEndian) + s1) >>> 0;
    s1 = (s1 + view.getUint32(offset + 4, !bigEndian) + s0) >>> 0;
  }
  return [s0, s1];
}

function readUint32(bytes: Uint8Array, offset: number): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(offset, false);
}

/** Where the committed state of a WAL lives: enough to overlay pages on demand without copying the database. */
export interface WalIndex {
  pageSize: number;
  /** Page number -> byte offset in the WAL of that page's newest committed image. */
  pages: Map<number, number>;
  /** The database size in pages after the last commit; 0 when nothing is committed (the WAL is ignored). */
  dbPages: number;
  framesApplied: number;
  framesIgnored: number;
  /** Damage, or a transaction in progress: worth telling whoever reads the database. */
  warnings: string[];
  /** What a live WAL normally holds and SQLite ignores too: frames left from before the log restarted. */
  notes: string[];
  /** The log as read, to tell a later read of it grown (pagesWrittenSince); null when the WAL is ignored. */
  mark: WalMark | null;
  /** The page of each committed frame, in log order. */
  framePages: number[];
  /** The running checksum after each committed frame: two words a frame. */
  checksums: number[];
}

/**
 * Where a read of a WAL stopped: its header (a restarted log has new salts) and its last commit,
 * with the running checksum there, which covers every frame before it.
 */
export interface WalMark {
  header: Uint8Array;
  frames: number;
  checksum: Checksum;
}

/**
 * The pages the commits after `mark` wrote, when `index` reads the same log as `mark` with those
 * commits appended; null otherwise (the log restarted, or holds fewer commits or other frames).
 * Every other page reads as it did then: a checkpoint only copies committed pages back.
 */
export function pagesWrittenSince(index: WalIndex, mark: WalMark): Set<number> | null {
  const now = index.mark;
  if (!now || now.frames < mark.frames || !sameBytes(now.header, mark.header)) return null;
  if (index.checksums[2 * mark.frames - 2] !== mark.checksum[0] || index.checksums[2 * mark.frames - 1] !== mark.checksum[1]) return null;
  return new Set(index.framePages.slice(mark.frames));
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Reads the frames of a WAL; `dbPageSize` is the database header's page size, when there is a header. */
export function readWalIndex(wal: Uint8Array, dbPageSize?: number): WalIndex {
  const warnings: string[] = [];
  const notes: string[] = [];
  const walIgnored = (reason: string, framesIgnored = 0): WalIndex => {
    warnings.push(`${reason}: WAL ignored`);
    return {
      pageSize: dbPageSize ?? 0,
      pages: new Map(),
      dbPages: 0,
      framesApplied: 0,
      framesIgnored,
      warnings,
      notes,
      mark: null,
      framePages: [],
      checksums: [],
    };
  };

  if (wal.length === 0) return walIgnored('WAL is empty');
  if (wal.length < WAL_HEADER_BYTES) return walIgnored(`WAL is shorter than its ${WAL_HEADER_BYTES}-byte header (${wal.length} bytes)`);

  const magic = readUint32(wal, 0);
  if (magic !== WAL_MAGIC_LITTLE_ENDIAN && magic !== WAL_MAGIC_BIG_ENDIAN) {
    return walIgnored(`WAL magic 0x${magic.toString(16).padStart(8, '0')} is not a SQLite WAL`);
  }
  const bigEndian = magic === WAL_MAGIC_BIG_ENDIAN;
  const version = readUint32(wal, 4);
  if (version !== WAL_FORMAT_VERSION) return walIgnored(`unsupported WAL format version ${version}`);
  const pageSize = readUint32(wal, 8);
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) {
    return walIgnored(`invalid WAL page size ${pageSize}`);
  }
  let checksum = walChecksum(wal, 0, 24, bigEndian, [0, 0]);
  if (checksum[0] !== readUint32(wal, 24) || checksum[1] !== readUint32(wal, 28)) {
    return walIgnored('WAL header checksum mismatch');
  }
  if (dbPageSize !== undefined && dbPageSize !== pageSize) {
    return walIgnored(`WAL page size ${pageSize} differs from the database page size ${dbPageSize}`);
  }
  const checkpoints = readUint32(wal, 12);
  const salt1 = readUint32(wal, 16);
  const salt2 = readUint32(wal, 20);

  const frameBytes = FRAME_HEADER_BYTES + pageSize;
  const completeFrames = Math.floor((wal.length - WAL_HEADER_BYTES) / frameBytes);
  const tornBytes = (wal.length - WAL_HEADER_BYTES) % frameBytes;
  const framesInFile = completeFrames + (tornBytes > 0 ? 1 : 0);
  if (tornBytes > 0) warnings.push(`WAL ends with a partial frame (${tornBytes} of ${frameBytes} bytes): ignored`);

  // Walk the valid prefix of the log. Each checksum chains from the previous one, so
  // the first frame that fails (a torn write, or a stale frame left from an earlier
  // WAL generation with old salts) ends the log: nothing after it can be trusted.
  // After a checkpoint SQLite restarts the log from its start without truncating the
  // file: it rewrites the header with salt-1 one more than before (and a new salt-2)
  // and counts the restart in the checkpoint sequence number, so a frame k restarts old
  // carries salt-1 minus k, k at most that number. Such a tail is normal, not damage.
  const validFramePages: number[] = [];
  const checksums: number[] = [];
  let committedFrames = 0;
  let committedDbPages = 0;
  for (let index = 0; index < completeFrames; index++) {
    const frameStart = WAL_HEADER_BYTES + index * frameBytes;
    const pageNumber = readUint32(wal, frameStart);
    const dbPagesAfterCommit = readUint32(wal, frameStart + 4);
    const frameSalt1 = readUint32(wal, frameStart + 8);
    if (frameSalt1 !== salt1 || readUint32(wal, frameStart + 12) !== salt2) {
      const restartsAgo = (salt1 - frameSalt1) >>> 0;
      if (restartsAgo >= 1 && restartsAgo <= checkpoints) {
        notes.push(`WAL frames ${index + 1}-${completeFrames}: left from before the log restarted (an older salt, ${restartsAgo} restart(s) ago); ignored`);
      } else {
        warnings.push(`WAL frame ${index + 1}: salt differs from the header and is no earlier generation's; it and later frames ignored`);
      }
      break;
    }
    const frameChecksum = walChecksum(
      wal,
      frameStart + FRAME_HEADER_BYTES,
      frameStart + frameBytes,
      bigEndian,
      walChecksum(wal, frameStart, frameStart + 8, bigEndian, checksum),
    );
    if (frameChecksum[0] !== readUint32(wal, frameStart + 16) || frameChecksum[1] !== readUint32(wal, frameStart + 20)) {
      warnings.push(`WAL frame ${index + 1}: checksum mismatch; it and later frames ignored`);
      break;
    }
    if (pageNumber === 0) {
      warnings.push(`WAL frame ${index + 1}: page number 0; it and later frames ignored`);
      break;
    }
    checksum = frameChecksum;
    validFramePages.push(pageNumber);
    checksums.push(checksum[0], checksum[1]);
    if (dbPagesAfterCommit !== 0) {
      committedFrames = validFramePages.length;
      committedDbPages = dbPagesAfterCommit;
    }
  }

  const uncommitted = validFramePages.length - committedFrames;
  if (uncommitted > 0) warnings.push(`${uncommitted} WAL frame(s) after the last commit ignored (transaction in progress)`);
  if (committedFrames === 0) return walIgnored('WAL holds no committed transaction', framesInFile);

  // The last commit fixes the database size; in log order a later frame for the same page wins,
  // and a page beyond the final size was dropped by a later, shrinking commit.
  const pages = new Map<number, number>();
  for (let index = 0; index < committedFrames; index++) {
    const pageNumber = validFramePages[index];
    if (pageNumber <= committedDbPages) pages.set(pageNumber, WAL_HEADER_BYTES + index * frameBytes + FRAME_HEADER_BYTES);
  }
  return {
    pageSize,
    pages,
    dbPages: committedDbPages,
    framesApplied: committedFrames,
    framesIgnored: framesInFile - committedFrames,
    warnings,
    notes,
    mark: {
      header: wal.slice(0, WAL_HEADER_BYTES),
      frames: committedFrames,
      checksum: [checksums[2 * committedFrames - 2], checksums[2 * committedFrames - 1]],
    },
    framePages: validFramePages.slice(0, committedFrames),
    checksums: checksums.slice(0, 2 * committedFrames),
  };
}
