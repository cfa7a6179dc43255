// Pages of a database file (https://www.sqlite.org/fileformat2.html §1): the header, pages read on
// demand through the injected ByteSource and a small block cache, and the WAL's committed frames
// laid over them (sqliteWal.ts).

import type { ByteSource } from '../byteSource';
import { readWalIndex, type WalIndex } from '../sqliteWal';
import { readRollbackJournal, type Rollback } from './journal';
import { SqliteFormatError } from './errors';
import { u32 } from './record';

export type TextEncoding = 'utf-8' | 'utf-16le' | 'utf-16be';

export interface PagerOptions {
  /** The committed frames of this WAL (the bytes of `<db>-wal`) overlay the file's pages. */
  wal?: Uint8Array;
  /** A rollback journal beside the file (`<db>-journal`): when hot, read as SQLite reads it, rolled back. */
  journal?: Uint8Array;
  /** Bytes read at a time by a scan going forward through the file (rounded to pages); default 1 MiB. */
  blockSize?: number;
  /** Cache size, in blocks of blockSize; default 8. */
  cacheBlocks?: number;
}

/**
 * What a read that does not continue the previous one fetches (rounded to pages, at most a block):
 * the pages of one small table (the sessions of a Hermes home) lie scattered through a large file,
 * between the messages written at the same time, so reading a whole block for each of them read most
 * of the file (a 300 MB home read 2,000 session rows in ~2 s), and a 64 KiB chunk each still read a
 * third of it (a 600 MB home of 10,000 sessions: 194 MB in 3,027 reads to list them, 1.3 s, most of it
 * allocating and collecting those buffers; 8 KiB: 1.0 s, and a 500-turn lineage 700 -> 580 ms).
 */
const JUMP_READ = 8 * 1024;

/** Bytes a miss may lie past the end of the previous read and still count as a scan going forward. */
const FORWARD_GAP = 64 * 1024;

interface CachedRead {
  /** The chunk it starts at. */
  first: number;
  chunks: number;
  bytes: Uint8Array;
}

const MAGIC = 'SQLite format 3\u0000';
const utf8 = new TextDecoder('utf-8');
const utf16le = new TextDecoder('utf-16le');

export class Pager {
  readonly pageSize: number;
  readonly usableSize: number;
  readonly encoding: TextEncoding;
  /** Pages in the database (after the WAL's last commit, when there is one). */
  readonly pageCount: number;
  /** About the WAL: damage, a transaction in progress; not the stale tail a restarted log normally keeps. */
  readonly walWarnings: string[];
  /** Damage that SQLite itself would refuse to open; what can still be read is read. */
  readonly problems: string[] = [];

  /** The WAL's committed frames laid over the file; null without a WAL, or when it is ignored. */
  readonly wal: WalIndex | null;
  /** A hot journal's original pages laid over the file (a transaction in progress, rolled back); null without one. */
  readonly rollback: Rollback | null = null;
  private readonly walBytes: Uint8Array | undefined;
  private readonly blockSize: number;
  /** The cache's unit: what a jump reads; a forward scan reads blockSize / chunkSize of them at once. */
  private readonly chunkSize: number;
  private readonly cacheBytes: number;
  /** Each read from the source under every chunk it covers, and the reads in LRU order (most recent last). */
  private readonly cache = new Map<number, CachedRead>();
  private readonly lru = new Set<CachedRead>();
  private cachedBytes = 0;
  /** The chunks [readStart, readEnd) of the last read from the source. */
  private readStart = -1;
  private readEnd = -1;

  constructor(
    private readonly source: ByteSource,
    options: PagerOptions = {},
  ) {
    let head = source.read(0, 100);
    // A hot journal of a file with this page size: its original page 1 is the header SQLite reads.
    const sizeField = head.length >= 100 ? (head[16] << 8) | head[17] : 0;
    const journalled = options.journal?.length ? readRollbackJournal(options.journal, sizeField === 1 ? 65536 : sizeField) : null;
    const original = journalled?.pages.get(1);
    if (original) head = original.subarray(0, 100);
    if (head.length < 100 || [...MAGIC].some((c, i) => head[i] !== c.charCodeAt(0))) {
      throw new SqliteFormatError('file is not a database (no "SQLite format 3" header)');
    }
    const raw = (head[16] << 8) | head[17];
    this.pageSize = raw === 1 ? 65536 : raw;
    if (this.pageSize < 512 || (this.pageSize & (this.pageSize - 1)) !== 0) throw new SqliteFormatError(`file is not a database (page size ${raw})`);
    if (head[21] !== 64 || head[22] !== 32 || head[23] !== 32) throw new SqliteFormatError('file is not a database (payload fractions are not 64/32/32)');
    this.usableSize = this.pageSize - head[20];
    if (this.usableSize < 480) throw new SqliteFormatError(`file is not a database (${head[20]} reserved bytes per page leave fewer than 480)`);

    // A database in rollback-journal mode has no WAL to apply; a hot journal is rolled back instead.
    this.walBytes = options.wal?.length && !journalled ? options.wal : undefined;
    this.rollback = journalled;
    this.wal = this.walBytes ? readWalIndex(this.walBytes, this.pageSize) : null;
    this.walWarnings = this.wal?.warnings ?? [];
    if (this.wal?.dbPages === 0) this.wal = null;
    this.blockSize = Math.max(this.pageSize, Math.floor((options.blockSize ?? 1 << 20) / this.pageSize) * this.pageSize);
    this.chunkSize = Math.min(this.blockSize, Math.max(this.pageSize, Math.floor(JUMP_READ / this.pageSize) * this.pageSize));
    this.cacheBytes = Math.max(2, options.cacheBlocks ?? 8) * this.blockSize;

    const filePages = Math.ceil(source.size / this.pageSize);
    if (this.wal) {
      this.pageCount = this.wal.dbPages;
    } else if (journalled && journalled.dbPages > 0) {
      this.pageCount = journalled.dbPages;
    } else {
      // The header's size counts only when the change counter matches version-valid-for (3.7.0+).
      const declared = u32(head, 28);
      this.pageCount = declared > 0 && u32(head, 24) === u32(head, 92) ? declared : filePages;
      if (source.size < this.pageCount * this.pageSize) {
        this.problems.push(
          `database disk image is malformed: the file is ${source.size} bytes, shorter than the ${this.pageCount} pages of ${this.pageSize} bytes its header declares (truncated?)`,
        );
      }
    }
    // The header as of the newest commit (page 1 may live in the WAL).
    const page1 = this.page(1);
    const enc = u32(page1, 56);
    if (enc > 3) throw new SqliteFormatError(`file is not a database (text encoding ${enc})`);
    this.encoding = enc === 2 ? 'utf-16le' : enc === 3 ? 'utf-16be' : 'utf-8';
  }

  /** Page `n` (1-based) as of the newest commit. */
  page(n: number): Uint8Array {
    if (!Number.isInteger(n) || n < 1 || n > this.pageCount) {
      throw new SqliteFormatError(`database disk image is malformed: page ${n} does not exist (the database has ${this.pageCount} pages)`);
    }
    const restored = this.rollback?.pages.get(n);
    if (restored) return restored;
    const inWal = this.wal?.pages.get(n);
    if (inWal !== undefined && this.walBytes) return this.walBytes.subarray(inWal, inWal + this.pageSize);
    const offset = (n - 1) * this.pageSize;
    const read = this.read(Math.floor(offset / this.chunkSize));
    const block = read.bytes;
    const start = offset - read.first * this.chunkSize;
    if (block.length < start + this.pageSize) {
      throw new SqliteFormatError(`database disk image is malformed: page ${n} lies beyond the end of the file (${this.source.size} bytes; truncated?)`);
    }
    return block.subarray(start, start + this.pageSize);
  }

  decodeText(bytes: Uint8Array): string {
    if (this.encoding === 'utf-8') return utf8.decode(bytes);
    if (this.encoding === 'utf-16le') return utf16le.decode(bytes);
    const swapped = new Uint8Array(bytes.length & ~1);
    for (let i = 0; i + 1 < bytes.length; i += 2) {
      swapped[i] = bytes[i + 1];
      swapped[i + 1] = bytes[i];
    }
    return utf16le.decode(swapped);
  }

  /**
   * The cached read holding chunk `index`, else a new one. A miss at or just past the end of the
   * previous read (a scan going forward, over the few overflow pages it may skip) reads on from that
   * end, the skipped pages too (a table's next leaf page often lies among them), further each time up
   * to a whole block, so a sequential scan makes one read per block, not per page; any other miss (a
   * jump) reads one chunk. Reads are kept whole (no copies) up to cacheBlocks blocks in all.
   */
  private read(index: number): CachedRead {
    const hit = this.cache.get(index);
    if (hit) {
      this.lru.delete(hit);
      this.lru.add(hit);
      return hit;
    }
    const perBlock = this.blockSize / this.chunkSize;
    const forward = this.readStart < 0 || (index >= this.readStart && (index - this.readEnd) * this.chunkSize <= FORWARD_GAP);
    let first = index;
    if (forward && this.readStart >= 0 && this.readEnd < index) {
      first = this.readEnd;
      for (let i = first; i < index; i++) if (this.cache.has(i)) first = i + 1;
    }
    // Ahead four times as far as the last read, up to a block: a scan soon reads whole blocks, while
    // two jumps that happen to land near each other (the scattered pages of a small table) read 32 KiB,
    // not a megabyte (listing a 600 MB home of 10,000 sessions read 71 MB in such blocks).
    let chunks = !forward ? 1 : this.readStart < 0 ? perBlock : Math.min(perBlock, 4 * (this.readEnd - this.readStart));
    // Never over chunks already cached: each chunk has one read.
    for (let i = 1; i < chunks; i++) {
      if (this.cache.has(first + i)) {
        chunks = i;
        break;
      }
    }
    if (first + chunks <= index) {
      first = index;
      chunks = 1;
    }
    const offset = first * this.chunkSize;
    const bytes = offset < this.source.size ? this.source.read(offset, Math.min(chunks * this.chunkSize, this.source.size - offset)) : new Uint8Array(0);
    const read: CachedRead = { first, chunks, bytes };
    this.readStart = first;
    this.readEnd = first + chunks;
    for (let i = 0; i < chunks; i++) this.cache.set(first + i, read);
    this.lru.add(read);
    this.cachedBytes += bytes.length;
    for (const old of this.lru) {
      if (this.cachedBytes <= this.cacheBytes || old === read) break;
      this.lru.delete(old);
      this.cachedBytes -= old.bytes.length;
      for (let i = 0; i < old.chunks; i++) this.cache.delete(old.first + i);
    }
    return read;
  }
}
