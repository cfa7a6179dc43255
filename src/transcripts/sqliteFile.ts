// A read-only reader of the SQLite file format (https://www.sqlite.org/fileformat2.html), without
// SQLite: pages are read on demand through an injected read(offset, length) and a small block cache,
// so scanning a table of a 500 MB file holds a few MB, never the file. The WAL's committed frames
// overlay pages as they are read (sqliteWal.ts). Table rows stream in rowid order and their columns
// are decoded only when asked for, so a scan can test one column before it reads a large one.
//
// Pure: no I/O of its own. Damaged input throws SqliteFormatError (never hangs): page numbers are
// range-checked, a b-tree page reached twice is a cycle, overflow chains are bounded by the payload.

import type { ByteSource } from '../model/byteSource';
import { readWalIndex, type WalIndex } from './sqliteWal';

export type SqlValue = null | number | bigint | string | Uint8Array;


/** The file is not a database, or its structure is damaged. */
export class SqliteFormatError extends Error {}

export type TextEncoding = 'utf-8' | 'utf-16le' | 'utf-16be';
type Affinity = 'integer' | 'text' | 'blob' | 'real' | 'numeric';

export interface SqliteColumn {
  name: string;
  affinity: Affinity;
  /** INTEGER PRIMARY KEY: the record holds NULL, the value is the rowid. */
  rowidAlias: boolean;
  /** A VIRTUAL generated column: not stored in the record. */
  generated: boolean;
  /** The DEFAULT clause, for records written before an ALTER TABLE ADD COLUMN. */
  dflt?: DefaultClause;
}

type DefaultClause =
  | { kind: 'value'; value: SqlValue; text?: string }   // text: a numeric literal's token, the value SQLite starts from
  | { kind: 'negative'; text: string }
  | { kind: 'unsupported'; sql: string };

export interface SqliteTable {
  name: string;
  rootPage: number;
  sql: string;
  virtual: boolean;
  withoutRowid: boolean;
  columns: SqliteColumn[];
}

export interface SqliteFileOptions {
  /** The committed frames of this WAL (the bytes of `<db>-wal`) overlay the file's pages. */
  wal?: Uint8Array;
  /** Bytes read at a time (rounded to pages); default 1 MiB. */
  blockSize?: number;
  /** Blocks kept; default 8. */
  cacheBlocks?: number;
}

const MAGIC = 'SQLite format 3\u0000';
const MAX_DEPTH = 40;
const utf8 = new TextDecoder('utf-8');
const utf16le = new TextDecoder('utf-16le');

export class SqliteFile {
  readonly pageSize: number;
  readonly usableSize: number;
  readonly encoding: TextEncoding;
  /** Pages in the database (after the WAL's last commit, when there is one). */
  readonly pageCount: number;
  /** Notes about the WAL (ignored frames, a transaction in progress). */
  readonly walWarnings: string[];
  /** Damage that SQLite itself would refuse to open; what can still be read is read. */
  readonly problems: string[] = [];

  private readonly wal: WalIndex | null;
  private readonly walBytes: Uint8Array | undefined;
  private readonly blockSize: number;
  private readonly cacheBlocks: number;
  private readonly cache = new Map<number, Uint8Array>();
  private readonly schema: { type: string; name: string; rootPage: number; sql: string }[] = [];
  private readonly parsed = new Map<string, SqliteTable>();

  constructor(private readonly source: ByteSource, options: SqliteFileOptions = {}) {
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
        this.problems.push(`database disk image is malformed: the file is ${source.size} bytes, shorter than the ${this.pageCount} pages of ${this.pageSize} bytes its header declares (truncated?)`);
      }
    }
    // The header as of the newest commit (page 1 may live in the WAL).
    const page1 = this.page(1);
    const enc = u32(page1, 56);
    if (enc > 3) throw new SqliteFormatError(`file is not a database (text encoding ${enc})`);
    this.encoding = enc === 2 ? 'utf-16le' : enc === 3 ? 'utf-16be' : 'utf-8';

    const names = ['type', 'name', 'tbl_name', 'rootpage', 'sql'];
    const master: SqliteTable = { name: 'sqlite_schema', rootPage: 1, sql: '', virtual: false, withoutRowid: false,
      columns: names.map((name) => ({ name, affinity: 'blob', rowidAlias: false, generated: false })) };
    for (const row of this.scan(master)) {
      const [type, name, rootPage, sql] = [row.get('type'), row.get('name'), row.get('rootpage'), row.get('sql')];
      this.schema.push({ type: String(type), name: String(name), rootPage: typeof rootPage === 'number' ? rootPage : 0, sql: typeof sql === 'string' ? sql : '' });
    }
  }

  /** Names of the tables (virtual ones included), in schema order. */
  tables(): string[] {
    return this.schema.filter((e) => e.type === 'table').map((e) => e.name);
  }

  /** A table's definition, parsed from its CREATE TABLE statement; undefined when there is no such table. */
  table(name: string): SqliteTable | undefined {
    const key = name.toLowerCase();
    let t = this.parsed.get(key);
    if (t) return t;
    const entry = this.schema.find((e) => e.type === 'table' && e.name.toLowerCase() === key);
    if (!entry) return undefined;
    t = { name: entry.name, rootPage: entry.rootPage, sql: entry.sql, ...parseCreateTable(entry.sql, entry.name) };
    this.parsed.set(key, t);
    return t;
  }

  columns(name: string): string[] {
    return this.requireTable(name).columns.map((c) => c.name);
  }

  /**
   * Every row of a table in rowid order. The same TableRow object is reused for every row: read
   * what you need from it before taking the next one.
   */
  rows(name: string): Generator<TableRow> {
    return this.scan(this.requireTable(name));
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
    for (let i = 0; i + 1 < bytes.length; i += 2) { swapped[i] = bytes[i + 1]; swapped[i + 1] = bytes[i]; }
    return utf16le.decode(swapped);
  }

  private requireTable(name: string): SqliteTable {
    const t = this.table(name);
    if (!t) throw new SqliteFormatError(`no such table: ${name}`);
    if (t.virtual) throw new SqliteFormatError(`${t.name} is a virtual table: its rows are not stored in its own b-tree`);
    // Hermes never creates one; its rows live in an index b-tree keyed by the primary key.
    if (t.withoutRowid) throw new SqliteFormatError(`${t.name} is a WITHOUT ROWID table, which this reader does not read`);
    return t;
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

  private *scan(table: SqliteTable): Generator<TableRow> {
    const row = new TableRow(this, table);
    const what = `table ${table.name}`;
    const visited = new Set<number>();
    interface Frame { n: number; page: Uint8Array; hdr: number; cells: number; next: number; right: number; leaf: boolean }
    const stack: Frame[] = [];
    const push = (n: number, parent: number | null): void => {
      if (visited.has(n)) throw new SqliteFormatError(`database disk image is malformed: ${what}: page ${n} is reached twice (a cycle in the b-tree)`);
      if (stack.length >= MAX_DEPTH) throw new SqliteFormatError(`database disk image is malformed: ${what}: the b-tree is deeper than ${MAX_DEPTH} levels`);
      visited.add(n);
      const page = this.page(n);
      const hdr = n === 1 ? 100 : 0;
      const type = page[hdr];
      if (type !== 0x05 && type !== 0x0d) {
        throw new SqliteFormatError(`database disk image is malformed: ${what}: page ${n}${parent === null ? '' : ` (a child of page ${parent})`} has type 0x${type.toString(16).padStart(2, '0')}, not a table b-tree page`);
      }
      const leaf = type === 0x0d;
      const cells = (page[hdr + 3] << 8) | page[hdr + 4];
      const pointers = hdr + (leaf ? 8 : 12);
      if (pointers + 2 * cells > this.usableSize) throw new SqliteFormatError(`database disk image is malformed: ${what}: page ${n} claims ${cells} cells, more than fit`);
      stack.push({ n, page, hdr: pointers, cells, next: 0, right: leaf ? 0 : u32(page, hdr + 8), leaf });
    };
    const cellAt = (f: Frame, i: number): number => {
      const p = (f.page[f.hdr + 2 * i] << 8) | f.page[f.hdr + 2 * i + 1];
      if (p < f.hdr + 2 * f.cells || p >= this.usableSize) throw new SqliteFormatError(`database disk image is malformed: ${what}: a cell pointer of page ${f.n} points outside the page`);
      return p;
    };
    push(table.rootPage, null);
    while (stack.length) {
      const f = stack[stack.length - 1];
      if (f.leaf) {
        if (f.next < f.cells) {
          row.load(f.page, cellAt(f, f.next++), f.n);
          yield row;
        } else {
          stack.pop();
        }
        continue;
      }
      // Interior: each cell's left child, then the right-most child.
      if (f.next < f.cells) push(u32(f.page, cellAt(f, f.next++)), f.n);
      else if (f.next++ === f.cells) push(f.right, f.n);
      else stack.pop();
    }
  }
}

/** The row a scan is on. Values are decoded on request; overflow pages are read only when a requested value lies on them. */
export class TableRow {
  rowid: number | bigint = 0;
  private readonly index = new Map<string, number>();
  private readonly recordIndex: number[] = [];
  private page: Uint8Array = new Uint8Array(0);
  private local = 0;          // offset of the local payload in `page`
  private localSize = 0;
  private payloadSize = 0;
  private firstOverflow = 0;
  private pageNumber = 0;
  private chunks: Uint8Array[] = [];
  private loaded = 0;
  private nextOverflow = 0;
  private types: number[] = [];
  private offsets: number[] = [];
  private headerRead = false;

  constructor(private readonly file: SqliteFile, private readonly table: SqliteTable) {
    let stored = 0;
    table.columns.forEach((c, i) => {
      // Names match case-insensitively; the name as declared is the common lookup, found directly.
      for (const key of [c.name, c.name.toLowerCase()]) if (!this.index.has(key)) this.index.set(key, i);
      this.recordIndex.push(c.generated ? -1 : stored++);
    });
  }

  /** Points the row at a table leaf cell. */
  load(page: Uint8Array, cell: number, pageNumber: number): void {
    const usable = this.file.usableSize;
    let p = cell;
    const size = varint(page, p, usable);
    p += varintLength;
    const rowid = varint(page, p, usable);
    p += varintLength;
    if (typeof size !== 'number' || size < 0) throw this.corrupt(`a payload size of ${size}`, pageNumber);
    // How much of the payload stays on the page (fileformat2 §1.6, table b-tree leaf cells).
    const maxLocal = usable - 35;
    const minLocal = Math.floor(((usable - 12) * 32) / 255) - 23;
    let local = size;
    if (size > maxLocal) {
      const k = minLocal + ((size - minLocal) % (usable - 4));
      local = k <= maxLocal ? k : minLocal;
    }
    const end = p + local + (local < size ? 4 : 0);
    if (end > usable) throw this.corrupt('a cell that runs past the end of the page', pageNumber);
    if (local < size && Math.ceil((size - local) / (usable - 4)) > this.file.pageCount) throw this.corrupt(`a payload of ${size} bytes, larger than the database`, pageNumber);
    this.rowid = rowid;
    this.page = page;
    this.local = p;
    this.localSize = local;
    this.payloadSize = size;
    this.firstOverflow = local < size ? u32(page, p + local) : 0;
    this.pageNumber = pageNumber;
    this.chunks = [];
    this.headerRead = false;
  }

  /** A column's value; a record shorter than the table (written before ADD COLUMN) yields the column's default. */
  get(column: string): SqlValue {
    const i = this.index.get(column) ?? this.index.get(column.toLowerCase());
    if (i === undefined) throw new SqliteFormatError(`no such column: ${column} (table ${this.table.name})`);
    return this.value(i);
  }

  private value(i: number): SqlValue {
    const col = this.table.columns[i];
    if (col.rowidAlias) return this.rowid;
    if (col.generated) throw new SqliteFormatError(`${this.table.name}.${col.name} is a virtual generated column: it is computed, not stored`);
    if (!this.headerRead) this.readHeader();
    const r = this.recordIndex[i];
    if (r >= this.types.length) return defaultValue(col);
    return this.decode(this.types[r], this.offsets[r]);
  }

  private readHeader(): void {
    if (this.payloadSize === 0) throw this.corrupt('an empty record');
    const first = this.bytes(0, Math.min(9, this.payloadSize));
    const headerSize = varint(first, 0, first.length);
    if (typeof headerSize !== 'number' || headerSize < varintLength || headerSize > this.payloadSize) throw this.corrupt(`a record header of ${headerSize} bytes`);
    const header = this.bytes(0, headerSize);
    this.types = [];
    this.offsets = [];
    let offset = headerSize;
    for (let p = varintLength; p < headerSize;) {
      const type = varint(header, p, headerSize);
      p += varintLength;
      if (typeof type !== 'number' || type === 10 || type === 11) throw this.corrupt(`serial type ${type}`);
      this.types.push(type);
      this.offsets.push(offset);
      offset += serialSize(type);
    }
    if (offset > this.payloadSize) throw this.corrupt(`a record whose values need ${offset} bytes of a ${this.payloadSize}-byte payload`);
    this.headerRead = true;
  }

  private decode(type: number, at: number): SqlValue {
    switch (type) {
      case 0: return null;
      case 8: return 0;
      case 9: return 1;
      case 7: {
        const b = this.bytes(at, at + 8);
        return new DataView(b.buffer, b.byteOffset, 8).getFloat64(0, false);
      }
    }
    if (type <= 6) return readInt(this.bytes(at, at + serialSize(type)));
    const b = this.bytes(at, at + serialSize(type));
    // A copy, and a plain Uint8Array (Buffer.slice would be a view that pins the block).
    return type % 2 === 0 ? new Uint8Array(b) : this.file.decodeText(b);
  }

  /** Payload bytes [start, end): a view when they lie in one piece, else a copy. */
  private bytes(start: number, end: number): Uint8Array {
    if (end <= this.localSize) return this.page.subarray(this.local + start, this.local + end);
    if (!this.chunks.length) {
      this.chunks = [this.page.subarray(this.local, this.local + this.localSize)];
      this.loaded = this.localSize;
      this.nextOverflow = this.firstOverflow;
    }
    const room = this.file.usableSize - 4;
    while (this.loaded < end) {
      if (this.nextOverflow === 0) throw this.corrupt(`an overflow chain that ends after ${this.loaded} of ${this.payloadSize} bytes`);
      const page = this.file.page(this.nextOverflow);
      const take = Math.min(room, this.payloadSize - this.loaded);
      this.chunks.push(page.subarray(4, 4 + take));
      this.loaded += take;
      this.nextOverflow = u32(page, 0);
    }
    const chunkOf = (offset: number): number => (offset < this.localSize ? 0 : 1 + Math.floor((offset - this.localSize) / room));
    const chunkStart = (c: number): number => (c === 0 ? 0 : this.localSize + (c - 1) * room);
    const first = chunkOf(start);
    if (chunkOf(end - 1) === first) return this.chunks[first].subarray(start - chunkStart(first), end - chunkStart(first));
    const out = new Uint8Array(end - start);
    for (let c = first, at = start; at < end; c++) {
      const piece = this.chunks[c].subarray(at - chunkStart(c), Math.min(this.chunks[c].length, end - chunkStart(c)));
      out.set(piece, at - start);
      at += piece.length;
    }
    return out;
  }

  private corrupt(what: string, page = this.pageNumber): SqliteFormatError {
    return new SqliteFormatError(`database disk image is malformed: table ${this.table.name}, row ${this.rowid} on page ${page}: ${what}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Records

/** Bytes read by the last varint() call (a module variable: no tuple per call on the hot path). */
let varintLength = 0;

/** A big-endian base-128 varint of at most 9 bytes (the 9th contributes 8 bits), as a signed 64-bit value. */
function varint(b: Uint8Array, p: number, end: number): number | bigint {
  let v = 0;
  // Seven bytes hold 49 bits: exact as a number. Longer ones are rare and go through BigInt.
  for (let i = 0; i < 7; i++) {
    if (p + i >= end) throw new SqliteFormatError('database disk image is malformed: a varint runs past its page');
    const byte = b[p + i];
    v = v * 128 + (byte & 0x7f);
    if (byte < 0x80) { varintLength = i + 1; return v; }
  }
  let big = BigInt(v);
  for (let i = 7; i < 9; i++) {
    if (p + i >= end) throw new SqliteFormatError('database disk image is malformed: a varint runs past its page');
    const byte = b[p + i];
    if (i === 8) { big = (big << 8n) | BigInt(byte); varintLength = 9; break; }
    big = (big << 7n) | BigInt(byte & 0x7f);
    if (byte < 0x80) { varintLength = 8; break; }
  }
  return safe(BigInt.asIntN(64, big));
}

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function safe(v: bigint): number | bigint {
  return v >= MIN_SAFE && v <= MAX_SAFE ? Number(v) : v;
}

function serialSize(type: number): number {
  if (type >= 12) return Math.floor((type - 12) / 2);
  return [0, 1, 2, 3, 4, 6, 8, 8, 0, 0][type] ?? 0;
}

function readInt(b: Uint8Array): number | bigint {
  if (b.length === 8) {
    const view = new DataView(b.buffer, b.byteOffset, 8);
    return safe(view.getBigInt64(0, false));
  }
  let v = 0;
  for (const byte of b) v = v * 256 + byte;
  return b[0] >= 0x80 ? v - 256 ** b.length : v;
}

function u32(b: Uint8Array, p: number): number {
  return ((b[p] << 24) >>> 0) + (b[p + 1] << 16) + (b[p + 2] << 8) + b[p + 3];
}

// ---------------------------------------------------------------------------------------------
// Default values (a record written before ALTER TABLE ADD COLUMN lacks the new columns)

/**
 * SQLite starts from the literal as written (a numeric token as text) and applies the column's
 * affinity (sqlite3ValueFromExpr); ADD COLUMN accepts only constant defaults.
 */
function defaultValue(col: SqliteColumn): SqlValue {
  const d = col.dflt;
  if (!d) return null;
  if (d.kind === 'unsupported') throw new SqliteFormatError(`the default of column ${col.name} (${d.sql}) is not a constant this reader evaluates`);
  if (d.kind === 'negative') {
    const n = numeric(d.text);
    const v = typeof n === 'bigint' ? safe(-n) : typeof n === 'number' ? -n : null;
    if (col.affinity !== 'text' || v === null) return v;
    return /^\d+$/.test(d.text) ? String(v) : `-${d.text}`;
  }
  if (d.text !== undefined) {
    // A numeric literal: with no affinity it is numeric all the same.
    if (col.affinity === 'text') return d.text;
    return numeric(d.text) ?? d.text;
  }
  return applyAffinity(d.value, col.affinity);
}

function applyAffinity(v: SqlValue, affinity: Affinity): SqlValue {
  if (affinity === 'text') return typeof v === 'number' || typeof v === 'bigint' ? String(v) : v;
  if (affinity === 'blob' || typeof v !== 'string') return v;
  return numeric(v) ?? v;
}

/** A well-formed integer or real literal (surrounding spaces allowed, no hex) as a number, else null. */
function numeric(text: string): number | bigint | null {
  const t = text.trim();
  if (/^[+-]?\d+$/.test(t)) {
    const big = BigInt(t);
    if (big >= -(2n ** 63n) && big < 2n ** 63n) return safe(big);
    return Number(t);
  }
  if (/^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?$/.test(t)) return Number(t);
  return null;
}

// ---------------------------------------------------------------------------------------------
// CREATE TABLE

interface Token { kind: 'word' | 'quoted' | 'string' | 'number' | 'blob' | 'op'; text: string }

function tokenize(sql: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const fail = (what: string): never => { throw new SqliteFormatError(`cannot read the schema: ${what} in ${JSON.stringify(sql.slice(0, 200))}`); };
  while (i < sql.length) {
    const c = sql[i];
    if (/\s/.test(c)) { i++; continue; }
    if (c === '-' && sql[i + 1] === '-') { const e = sql.indexOf('\n', i); i = e < 0 ? sql.length : e + 1; continue; }
    if (c === '/' && sql[i + 1] === '*') { const e = sql.indexOf('*/', i + 2); i = e < 0 ? sql.length : e + 2; continue; }
    if (c === '"' || c === '`' || c === "'") {
      let text = '';
      let j = i + 1;
      for (;;) {
        if (j >= sql.length) fail('an unterminated quote');
        if (sql[j] === c) {
          if (sql[j + 1] === c) { text += c; j += 2; continue; }
          break;
        }
        text += sql[j++];
      }
      out.push({ kind: c === "'" ? 'string' : 'quoted', text });
      i = j + 1;
      continue;
    }
    if (c === '[') {
      const e = sql.indexOf(']', i);
      if (e < 0) fail('an unterminated [');
      out.push({ kind: 'quoted', text: sql.slice(i + 1, e) });
      i = e + 1;
      continue;
    }
    if ((c === 'x' || c === 'X') && sql[i + 1] === "'") {
      const e = sql.indexOf("'", i + 2);
      if (e < 0) fail('an unterminated blob literal');
      out.push({ kind: 'blob', text: sql.slice(i + 2, e) });
      i = e + 1;
      continue;
    }
    const num = /^(0[xX][0-9a-fA-F]+|(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?)/.exec(sql.slice(i, i + 400));
    if (num && /[\d.]/.test(c)) { out.push({ kind: 'number', text: num[0] }); i += num[0].length; continue; }
    const word = /^[A-Za-z_\u0080-\uffff][\w$\u0080-\uffff]*/.exec(sql.slice(i, i + 400));
    if (word) { out.push({ kind: 'word', text: word[0] }); i += word[0].length; continue; }
    out.push({ kind: 'op', text: c });
    i++;
  }
  return out;
}

const isWord = (t: Token | undefined, ...words: string[]): boolean => t?.kind === 'word' && words.includes(t.text.toUpperCase());
const TABLE_CONSTRAINTS = ['CONSTRAINT', 'PRIMARY', 'UNIQUE', 'CHECK', 'FOREIGN'];
const COLUMN_CONSTRAINTS = ['CONSTRAINT', 'PRIMARY', 'NOT', 'NULL', 'UNIQUE', 'CHECK', 'DEFAULT', 'COLLATE', 'REFERENCES', 'GENERATED', 'AS'];

/** The index after the parenthesised group that starts at `i`. */
function skipGroup(toks: Token[], i: number): number {
  let depth = 0;
  for (let j = i; j < toks.length; j++) {
    if (toks[j].kind !== 'op') continue;
    if (toks[j].text === '(') depth++;
    else if (toks[j].text === ')' && --depth === 0) return j + 1;
  }
  throw new SqliteFormatError('cannot read the schema: unbalanced parentheses');
}

/** Column affinity from the declared type (https://www.sqlite.org/datatype3.html §3.1). */
function affinityOf(type: string): Affinity {
  const t = type.toUpperCase();
  if (t.includes('INT')) return 'integer';
  if (t.includes('CHAR') || t.includes('CLOB') || t.includes('TEXT')) return 'text';
  if (t.includes('BLOB') || t === '') return 'blob';
  if (t.includes('REAL') || t.includes('FLOA') || t.includes('DOUB')) return 'real';
  return 'numeric';
}

function hexValue(text: string, negative: boolean): number | bigint {
  const v = BigInt.asIntN(64, BigInt(text));
  return safe(negative ? BigInt.asIntN(64, -v) : v);
}

function parseDefault(toks: Token[], i: number): { clause: DefaultClause; next: number } {
  const t = toks[i];
  if (t?.kind === 'op' && t.text === '(') {
    const next = skipGroup(toks, i);
    const inner = toks.slice(i + 1, next - 1);
    const parsed = inner.length ? parseDefault(inner, 0) : null;
    return { clause: parsed && parsed.next === inner.length ? parsed.clause : { kind: 'unsupported', sql: inner.map((x) => x.text).join(' ') }, next };
  }
  if (t?.kind === 'op' && (t.text === '-' || t.text === '+') && toks[i + 1]?.kind === 'number') {
    const text = toks[i + 1].text;
    if (/^0x/i.test(text)) return { clause: { kind: 'value', value: hexValue(text, t.text === '-') }, next: i + 2 };
    return { clause: t.text === '-' ? { kind: 'negative', text } : { kind: 'value', value: null, text }, next: i + 2 };
  }
  if (t?.kind === 'number') {
    // Hex literals are integers already (two's complement); decimal ones start as their text.
    if (/^0x/i.test(t.text)) return { clause: { kind: 'value', value: hexValue(t.text, false) }, next: i + 1 };
    return { clause: { kind: 'value', value: null, text: t.text }, next: i + 1 };
  }
  if (t?.kind === 'string') return { clause: { kind: 'value', value: t.text }, next: i + 1 };
  if (t?.kind === 'blob') {
    const bytes = new Uint8Array(t.text.length / 2);
    for (let k = 0; k < bytes.length; k++) bytes[k] = parseInt(t.text.slice(2 * k, 2 * k + 2), 16);
    return { clause: { kind: 'value', value: bytes }, next: i + 1 };
  }
  if (t?.kind === 'word' || t?.kind === 'quoted') {
    const up = t.text.toUpperCase();
    if (t.kind === 'word' && up === 'NULL') return { clause: { kind: 'value', value: null }, next: i + 1 };
    if (t.kind === 'word' && (up === 'TRUE' || up === 'FALSE')) return { clause: { kind: 'value', value: up === 'TRUE' ? 1 : 0 }, next: i + 1 };
    if (t.kind === 'word' && up.startsWith('CURRENT_')) return { clause: { kind: 'unsupported', sql: t.text }, next: i + 1 };
    // DEFAULT some_identifier is the string 'some_identifier'.
    return { clause: { kind: 'value', value: t.text }, next: i + 1 };
  }
  return { clause: { kind: 'unsupported', sql: t?.text ?? '' }, next: i + 1 };
}

/** Column names, affinities, the rowid alias and defaults from a CREATE TABLE statement. */
function parseCreateTable(sql: string, name: string): Pick<SqliteTable, 'virtual' | 'withoutRowid' | 'columns'> {
  const toks = tokenize(sql);
  if (isWord(toks[1], 'VIRTUAL')) return { virtual: true, withoutRowid: false, columns: [] };
  const open = toks.findIndex((t) => t.kind === 'op' && t.text === '(');
  if (!isWord(toks[0], 'CREATE') || open < 0) throw new SqliteFormatError(`cannot read the schema of table ${name}: ${JSON.stringify(sql.slice(0, 200))}`);
  const close = skipGroup(toks, open) - 1;
  const withoutRowid = toks.slice(close + 1).some((t, k, rest) => isWord(t, 'WITHOUT') && isWord(rest[k + 1], 'ROWID'));

  const segments: Token[][] = [[]];
  for (let j = open + 1; j < close;) {
    const t = toks[j];
    if (t.kind === 'op' && t.text === ',') { segments.push([]); j++; continue; }
    const end = t.kind === 'op' && t.text === '(' ? skipGroup(toks, j) : j + 1;
    segments[segments.length - 1].push(...toks.slice(j, end));
    j = end;
  }

  const columns: (SqliteColumn & { type: string; pkDesc: boolean; pk: boolean })[] = [];
  let tablePk: string[] | null = null;
  for (const seg of segments) {
    if (!seg.length) throw new SqliteFormatError(`cannot read the schema of table ${name}: an empty column definition`);
    if (TABLE_CONSTRAINTS.some((w) => isWord(seg[0], w))) {
      const at = seg.findIndex((t, k) => isWord(t, 'PRIMARY') && isWord(seg[k + 1], 'KEY'));
      const group = seg.findIndex((t, k) => at >= 0 && k > at && t.kind === 'op' && t.text === '(');
      if (group >= 0) {
        const inner = seg.slice(group + 1, skipGroup(seg, group) - 1);
        const names: Token[][] = [[]];
        for (const t of inner) { if (t.kind === 'op' && t.text === ',') names.push([]); else names[names.length - 1].push(t); }
        tablePk = names.map((n) => n[0]?.text ?? '');
      }
      continue;
    }
    const colName = seg[0].text;
    let k = 1;
    const typeParts: string[] = [];
    while (k < seg.length && !COLUMN_CONSTRAINTS.some((w) => isWord(seg[k], w))) {
      if (seg[k].kind === 'op' && seg[k].text === '(') {
        const end = skipGroup(seg, k);
        typeParts.push(`(${seg.slice(k + 1, end - 1).map((t) => t.text).join('')})`);
        k = end;
      } else {
        typeParts.push(seg[k].text);
        k++;
      }
    }
    const type = typeParts.join(' ').replace(/ \(/g, '(');
    const col = { name: colName, type, affinity: affinityOf(type), rowidAlias: false, generated: false, pk: false, pkDesc: false } as (typeof columns)[number];
    while (k < seg.length) {
      const t = seg[k];
      if (t.kind === 'op' && t.text === '(') { k = skipGroup(seg, k); continue; }
      if (isWord(t, 'CONSTRAINT', 'COLLATE')) { k += 2; continue; }
      if (isWord(t, 'PRIMARY') && isWord(seg[k + 1], 'KEY')) { col.pk = true; col.pkDesc = isWord(seg[k + 2], 'DESC'); k += 2; continue; }
      // ON DELETE SET DEFAULT is a foreign-key action, not a default value.
      if (isWord(t, 'DEFAULT') && !isWord(seg[k - 1], 'SET')) {
        const d = parseDefault(seg, k + 1);
        col.dflt = d.clause;
        k = d.next;
        continue;
      }
      if (isWord(t, 'AS')) {
        const after = skipGroup(seg, k + 1);
        col.generated = !isWord(seg[after], 'STORED');
        k = after;
        continue;
      }
      k++;
    }
    columns.push(col);
  }
  if (!columns.length) throw new SqliteFormatError(`cannot read the schema of table ${name}: no columns`);
  if (!withoutRowid) {
    // INTEGER PRIMARY KEY (the type exactly INTEGER; the column form not DESC) is the rowid.
    const single = tablePk ? (tablePk.length === 1 ? columns.find((c) => c.name.toLowerCase() === tablePk?.[0].toLowerCase()) : undefined)
      : columns.filter((c) => c.pk).length === 1 ? columns.find((c) => c.pk && !c.pkDesc) : undefined;
    if (single && single.type.toUpperCase() === 'INTEGER') single.rowidAlias = true;
  }
  return { virtual: false, withoutRowid, columns: columns.map(({ name: n, affinity, rowidAlias, generated, dflt }) => ({ name: n, affinity, rowidAlias, generated, ...(dflt ? { dflt } : {}) })) };
}
