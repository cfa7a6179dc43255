// Reading a few rows of a large table through an index (https://www.sqlite.org/fileformat2.html
// §1.6, §2.4), as SQLite would for `WHERE column = ?`: the index b-tree is descended only where the
// value can be, and each row is then found by its rowid. A lineage of a 300 MB Hermes home is a few
// MB of its messages; scanning the table to find them read the whole file.

import { Payload, type CellRef } from './btree';
import { SqliteFormatError } from './errors';
import type { Pager } from './pager';
import { decodeValue, readRecordHeader, u32, varint, varintLength, type SqlValue } from './record';

const MAX_DEPTH = 40;
const utf8 = new TextEncoder();

/** A CREATE INDEX this lookup can use: on the table, ascending, BINARY, no WHERE; its first column. */
export function usableIndexColumn(sql: string, table: string): string | null {
  if (/\bWHERE\b/i.test(sql)) return null; // a partial index holds only some rows
  const m = /^\s*CREATE\s+(?:UNIQUE\s+)?INDEX\s+(?:IF\s+NOT\s+EXISTS\s+)?\S+\s+ON\s+["`[]?(\w+)["`\]]?\s*\(\s*["`[]?(\w+)["`\]]?\s*([^,)]*)[,)]/i.exec(sql);
  if (!m || m[1].toLowerCase() !== table.toLowerCase()) return null;
  if (m[3].trim() !== '' && !/^(COLLATE\s+BINARY\s*)?(ASC)?$/i.test(m[3].trim())) return null;
  return m[2];
}

/** SQLite's order of a key against a text value under BINARY: NULL < numbers < text < blobs; text by its UTF-8 bytes. */
function compareToText(key: SqlValue, value: Uint8Array): number {
  if (key === null || typeof key === 'number' || typeof key === 'bigint') return -1;
  if (key instanceof Uint8Array) return 1;
  const k = utf8.encode(key);
  for (let i = 0; i < Math.min(k.length, value.length); i++) if (k[i] !== value[i]) return k[i] - value[i];
  return k.length - value.length;
}

/**
 * The rowids of the entries of the index b-tree rooted at `root` whose first column is `value`
 * (the rowid is the record's last column), in index order. Throws SqliteFormatError on damage.
 */
export function indexRowids(pager: Pager, root: number, value: string, what: string): (number | bigint)[] {
  const target = utf8.encode(value);
  const payload = new Payload(pager, what);
  const out: (number | bigint)[] = [];
  const visited = new Set<number>();
  const cell: CellRef = { page: new Uint8Array(0), offset: 0, pageNumber: 0, interior: false, kept: false };
  const entry = (): { cmp: number; rowid: SqlValue } => {
    payload.loadIndexCell(cell);
    const types: number[] = [];
    const offsets: number[] = [];
    readRecordHeader(payload, types, offsets);
    if (types.length < 2) throw new SqliteFormatError(`database disk image is malformed: ${what}: an index entry of ${types.length} column(s)`);
    const key = decodeValue(payload, types[0], offsets[0], pager);
    const cmp = compareToText(key, target);
    return { cmp, rowid: cmp === 0 ? decodeValue(payload, types[types.length - 1], offsets[offsets.length - 1], pager) : null };
  };
  // Returns false once an entry past `value` was met: nothing to its right can match.
  const visit = (n: number, depth: number): boolean => {
    if (visited.has(n)) throw new SqliteFormatError(`database disk image is malformed: ${what}: page ${n} is reached twice (a cycle in the b-tree)`);
    if (depth > MAX_DEPTH) throw new SqliteFormatError(`database disk image is malformed: ${what}: the b-tree is deeper than ${MAX_DEPTH} levels`);
    visited.add(n);
    const page = pager.page(n);
    const hdr = n === 1 ? 100 : 0;
    const type = page[hdr];
    if (type !== 0x02 && type !== 0x0a) throw new SqliteFormatError(`database disk image is malformed: ${what}: page ${n} is not an index b-tree page`);
    const interior = type === 0x02;
    const cells = (page[hdr + 3] << 8) | page[hdr + 4];
    const pointers = hdr + (interior ? 12 : 8);
    if (pointers + 2 * cells > pager.usableSize)
      throw new SqliteFormatError(`database disk image is malformed: ${what}: page ${n} claims ${cells} cells, more than fit`);
    for (let i = 0; i < cells; i++) {
      const p = (page[pointers + 2 * i] << 8) | page[pointers + 2 * i + 1];
      if (p < pointers + 2 * cells || p >= pager.usableSize)
        throw new SqliteFormatError(`database disk image is malformed: ${what}: a cell pointer of page ${n} points outside the page`);
      Object.assign(cell, { page, offset: p, pageNumber: n, interior });
      const { cmp, rowid } = entry();
      // The left child holds keys up to this entry's: it can hold `value` unless this entry is below it.
      if (interior && cmp >= 0 && !visit(u32(page, p), depth + 1)) return false;
      if (cmp === 0) {
        if (typeof rowid !== 'number' && typeof rowid !== 'bigint')
          throw new SqliteFormatError(`database disk image is malformed: ${what}: an index entry without a rowid`);
        out.push(rowid);
      }
      if (cmp > 0) return false;
    }
    return interior ? visit(u32(page, hdr + 8), depth + 1) : true;
  };
  visit(root, 0);
  return out;
}

/** The leaf cell of the table b-tree rooted at `root` holding `rowid`, or null when there is none. */
export function tableCell(pager: Pager, root: number, rowid: number | bigint, what: string): CellRef | null {
  const usable = pager.usableSize;
  let n = root;
  for (let depth = 0; depth <= MAX_DEPTH; depth++) {
    const page = pager.page(n);
    const hdr = n === 1 ? 100 : 0;
    const type = page[hdr];
    if (type !== 0x05 && type !== 0x0d) throw new SqliteFormatError(`database disk image is malformed: ${what}: page ${n} is not a table b-tree page`);
    const leaf = type === 0x0d;
    const cells = (page[hdr + 3] << 8) | page[hdr + 4];
    const pointers = hdr + (leaf ? 8 : 12);
    if (pointers + 2 * cells > usable) throw new SqliteFormatError(`database disk image is malformed: ${what}: page ${n} claims ${cells} cells, more than fit`);
    const at = (i: number): number => {
      const p = (page[pointers + 2 * i] << 8) | page[pointers + 2 * i + 1];
      if (p < pointers + 2 * cells || p >= usable)
        throw new SqliteFormatError(`database disk image is malformed: ${what}: a cell pointer of page ${n} points outside the page`);
      return p;
    };
    if (leaf) {
      for (let i = 0; i < cells; i++) {
        const p = at(i);
        varint(page, p, usable); // payload size
        const key = varint(page, p + varintLength, usable);
        if (BigInt(key) === BigInt(rowid)) return { page, offset: p, pageNumber: n, interior: false, kept: false };
      }
      return null;
    }
    // The first interior cell whose key is at least rowid leads to it; past them all, the right-most child.
    let next = u32(page, hdr + 8);
    for (let i = 0; i < cells; i++) {
      const p = at(i);
      if (varint(page, p + 4, usable) >= rowid) {
        next = u32(page, p);
        break;
      }
    }
    n = next;
  }
  throw new SqliteFormatError(`database disk image is malformed: ${what}: the b-tree is deeper than ${MAX_DEPTH} levels`);
}
