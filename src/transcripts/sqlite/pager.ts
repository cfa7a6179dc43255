// Pages of a database file (https://www.sqlite.org/fileformat2.html §1): the header, pages read on
// demand through the injected ByteSource and a small block cache, and the WAL's committed frames
// laid over them (sqliteWal.ts).

import type { ByteSource } from '../../model/byteSource';
import { readWalIndex, type WalIndex } from '../sqliteWal';
import { SqliteFormatError } from './errors';
import { u32 } from './record';

export type TextEncoding = 'utf-8' | 'utf-16le' | 'utf-16be';

export interface PagerOptions {
  /** The committed frames of this WAL (the bytes of `<db>-wal`) overlay the file's pages. */
  wal?: Uint8Array;
  /** Bytes read at a time (rounded to pages); default 1 MiB. */
  blockSize?: number;
  /** Blocks kept; default 8. */
  cacheBlocks?: number;
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

  private readonly wal: WalIndex | null;
  private readonly walBytes: Uint8Array | undefined;
  private readonly blockSize: number;
  private readonly cacheBlocks: number;
  private readonly cache = new Map<number, Uint8Array>();

  constructor(
    private readonly source: ByteSource,
    options: PagerOptions = {},
  ) {
    const head = source.read(0, 100);
    if (head.length < 100 || [...MAGIC].some((c, i) => head[i] !== c.charCodeAt(0))) {
      throw new SqliteFormatError('file is not a database (no "SQLite format 3" header)');
    }
    const raw = (head[16] << 8) | head[17];
    this.pageSize = raw === 1 ? 65536 : raw;
    if (this.pageSize < 512 || (this.pageSize & (this.pageSize - 1)) !== 0) throw new SqliteFormatError(`file is not a database (page size ${raw})`);
    if (head[21] !== 64 || head[22] !== 32 || head[23] !== 32) throw new SqliteFormatError('file is not a database (payload fractions are not 64/32/32)');
    this.usableSize = this.pageSize - head[20];
    if (this.usableSize < 480) throw new SqliteFormatError(`file is not a database (${head[20]} reserved bytes per page leave fewer than 480)`);

    this.walBytes = options.wal?.length ? options.wal : undefined;
    this.wal = this.walBytes ? readWalIndex(this.walBytes, this.pageSize) : null;
    this.walWarnings = this.wal?.warnings ?? [];
    if (this.wal?.dbPages === 0) this.wal = null;
    this.blockSize = Math.max(this.pageSize, Math.floor((options.blockSize ?? 1 << 20) / this.pageSize) * this.pageSize);
    this.cacheBlocks = Math.max(2, options.cacheBlocks ?? 8);

    const filePages = Math.ceil(source.size / this.pageSize);
    if (this.wal) {
      this.pageCount = this.wal.dbPages;
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
    const inWal = this.wal?.pages.get(n);
    if (inWal !== undefined && this.walBytes) return this.walBytes.subarray(inWal, inWal + this.pageSize);
    const offset = (n - 1) * this.pageSize;
    const blockIndex = Math.floor(offset / this.blockSize);
    const block = this.block(blockIndex);
    const start = offset - blockIndex * this.blockSize;
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

  /** LRU of blocks read from the source: a sequential scan makes one read per block, not per page. */
  private block(index: number): Uint8Array {
    const hit = this.cache.get(index);
    if (hit) {
      this.cache.delete(index);
      this.cache.set(index, hit);
      return hit;
    }
    const offset = index * this.blockSize;
    const block = offset < this.source.size ? this.source.read(offset, Math.min(this.blockSize, this.source.size - offset)) : new Uint8Array(0);
    this.cache.set(index, block);
    if (this.cache.size > this.cacheBlocks) this.cache.delete(this.cache.keys().next().value as number);
    return block;
  }
}
