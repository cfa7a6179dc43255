// A read-only reader of the SQLite file format (https://www.sqlite.org/fileformat2.html), without
// SQLite: pages are read on demand through an injected read(offset, length) and a small block cache,
// so scanning a table of a 500 MB file holds a few MB, never the file. The WAL's committed frames
// overlay pages as they are read (sqliteWal.ts). Table rows stream in key order and their columns
// are decoded only when asked for, so a scan can test one column before it reads a large one.
//
// Pure: no I/O of its own. Damaged input throws SqliteFormatError (never hangs): page numbers are
// range-checked, a b-tree page reached twice is a cycle, overflow chains are bounded by the payload.
// A scan given a `damaged` callback goes on past what is damaged instead, telling it of each.
//
// The parts, in sqlite/: pager.ts (header, page cache, WAL overlay), btree.ts (b-tree walks, cells,
// overflow chains), record.ts (varints, serial types), schema.ts (CREATE TABLE, defaults), row.ts.

import type { ByteSource } from './byteSource';
import { TreeWalk } from './sqlite/btree';
import { indexRowids, tableCell, usableIndexColumn } from './sqlite/lookup';
import { SqliteFormatError } from './sqlite/errors';
import { Pager, type PagerOptions, type TextEncoding } from './sqlite/pager';
import type { SqlValue } from './sqlite/record';
import { pagesWrittenSince, type WalMark } from './sqliteWal';
import { TableRow } from './sqlite/row';
import { foldName, parseCreateTable, type SqliteTable } from './sqlite/schema';

export { foldName, SqliteFormatError, TableRow };
export type { SqlValue, SqliteTable, TextEncoding, WalMark };
export type SqliteFileOptions = PagerOptions;

export class SqliteFile {
  readonly pageSize: number;
  readonly usableSize: number;
  readonly encoding: TextEncoding;
  /** Pages in the database (after the WAL's last commit, when there is one). */
  readonly pageCount: number;
  /** About the WAL: damage, a transaction in progress; not the stale tail a restarted log normally keeps. */
  readonly walWarnings: string[];
  /** Damage that SQLite itself would refuse to open; what can still be read is read. */
  readonly problems: string[];
  /** Pages a hot rollback journal restored (a transaction in progress, rolled back in memory); 0 without one. */
  readonly rolledBack: number;

  private readonly pager: Pager;
  private readonly schema: { type: string; name: string; table: string; rootPage: number; sql: string }[] = [];
  private readonly parsed = new Map<string, SqliteTable>();

  constructor(source: ByteSource, options: SqliteFileOptions = {}) {
    const pager = new Pager(source, options);
    this.pager = pager;
    ({
      pageSize: this.pageSize,
      usableSize: this.usableSize,
      encoding: this.encoding,
      pageCount: this.pageCount,
      walWarnings: this.walWarnings,
      problems: this.problems,
    } = pager);
    this.rolledBack = pager.rollback?.pages.size ?? 0;

    const names = ['type', 'name', 'tbl_name', 'rootpage', 'sql'];
    // tbl_name is kept for indexes: rowsWhere looks for one on the table it is asked about.
    const master: SqliteTable = {
      name: 'sqlite_schema',
      rootPage: 1,
      sql: '',
      virtual: false,
      withoutRowid: false,
      recordIndex: [0, 1, 2, 3, 4],
      columns: names.map((name) => ({ name, affinity: 'blob', rowidAlias: false, generated: false })),
    };
    for (const row of this.scan(master)) {
      const [type, name, table, rootPage, sql] = [row.get('type'), row.get('name'), row.get('tbl_name'), row.get('rootpage'), row.get('sql')];
      this.schema.push({
        type: String(type),
        name: String(name),
        table: String(table),
        rootPage: typeof rootPage === 'number' ? rootPage : 0,
        sql: typeof sql === 'string' ? sql : '',
      });
    }
  }

  /**
   * Names of the tables (virtual ones included), in schema order, as stored. Every lookup by name
   * (table, columns, rows, a row's get) matches names as SQLite does: compare through foldName.
   */
  tables(): string[] {
    return this.schema.filter((e) => e.type === 'table').map((e) => e.name);
  }

  /** A table's definition, parsed from its CREATE TABLE statement; undefined when there is no such table. */
  table(name: string): SqliteTable | undefined {
    const key = foldName(name);
    let t = this.parsed.get(key);
    if (t) return t;
    const entry = this.schema.find((e) => e.type === 'table' && foldName(e.name) === key);
    if (!entry) return undefined;
    t = { name: entry.name, rootPage: entry.rootPage, sql: entry.sql, ...parseCreateTable(entry.sql, entry.name) };
    this.parsed.set(key, t);
    return t;
  }

  /**
   * The names of a table's columns, in declaration order, as stored. VIRTUAL generated columns are
   * left out: their values are computed by expressions this reader does not evaluate, so to a
   * caller they are absent (table(name).columns lists them, with generated: 'virtual').
   */
  columns(name: string): string[] {
    return this.requireTable(name)
      .columns.filter((c) => c.generated !== 'virtual')
      .map((c) => c.name);
  }

  /**
   * Every row of a table in rowid order (a WITHOUT ROWID table: primary-key order). The same
   * TableRow object is reused for every row: read what you need from it before taking the next one.
   * A rowid table's leaf page for which `kept` holds (one whose rows the caller read before and
   * still has) is not read: it comes as one TableRow with `kept` set and no values.
   */
  rows(name: string, kept?: (page: number) => boolean, damaged?: (message: string) => void): Generator<TableRow> {
    return this.scan(this.requireTable(name), kept, damaged);
  }

  /** The WAL as read, for telling a later read of it grown; null without a WAL read. */
  get walMark(): WalMark | null {
    return this.pager.wal?.mark ?? null;
  }

  /**
   * The pages written since an earlier read of this file saw its WAL at `mark`, when this read's WAL
   * is that log with commits appended; null when it is not (then any page may differ).
   */
  pagesWrittenSince(mark: WalMark): Set<number> | null {
    return this.pager.wal ? pagesWrittenSince(this.pager.wal, mark) : null;
  }

  /**
   * The rows of a rowid table whose `column` holds one of `values` (text, compared as SQLite's
   * BINARY collation does), in rowid order, found through an index whose first column it is
   * (ascending, BINARY, not partial) instead of by a scan: on a large file, only the pages of those
   * rows and of the index entries leading to them are read. undefined when no such index exists or
   * it cannot be read (the caller scans instead); rows of a damaged table page still throw.
   */
  rowsWhere(name: string, column: string, values: Iterable<string>): Iterable<TableRow> | undefined {
    const table = this.requireTable(name);
    if (table.withoutRowid || this.encoding !== 'utf-8' || /\bCOLLATE\b/i.test(table.sql)) return undefined;
    const index = this.schema.find(
      (e) =>
        e.type === 'index'
        && foldName(e.table) === foldName(table.name)
        && e.rootPage > 0
        && foldName(usableIndexColumn(e.sql, table.name) ?? '') === foldName(column),
    );
    if (!index) return undefined;
    let rowids: (number | bigint)[];
    try {
      rowids = [...new Set(values)].flatMap((v) => indexRowids(this.pager, index.rootPage, v, `index ${index.name}`));
    } catch (e) {
      if (e instanceof SqliteFormatError) return undefined;
      throw e;
    }
    rowids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return this.fetch(table, rowids);
  }

  /** Page `n` (1-based) as of the newest commit. */
  page(n: number): Uint8Array {
    return this.pager.page(n);
  }

  private *fetch(table: SqliteTable, rowids: (number | bigint)[]): Generator<TableRow> {
    const row = new TableRow(this.pager, table);
    for (const rowid of rowids) {
      const cell = tableCell(this.pager, table.rootPage, rowid, `table ${table.name}`);
      if (!cell) continue; // an index entry whose row is gone: SQLite would find no row either
      row.load(cell);
      yield row;
    }
  }

  decodeText(bytes: Uint8Array): string {
    return this.pager.decodeText(bytes);
  }

  private requireTable(name: string): SqliteTable {
    const t = this.table(name);
    if (!t) throw new SqliteFormatError(`no such table: ${name}`);
    if (t.virtual) throw new SqliteFormatError(`${t.name} is a virtual table: its rows are not stored in its own b-tree`);
    return t;
  }

  /** With `damaged`, damage costs only what it touches (see TreeWalk): a cell that cannot be loaded, its row. */
  private *scan(table: SqliteTable, kept?: (page: number) => boolean, damaged?: (message: string) => void): Generator<TableRow> {
    const row = new TableRow(this.pager, table);
    const walk = new TreeWalk(this.pager, table.rootPage, `table ${table.name}`, table.withoutRowid, kept, damaged);
    for (let cell = walk.next(); cell; cell = walk.next()) {
      if (!damaged) row.load(cell);
      else {
        try {
          row.load(cell);
        } catch (e) {
          if (!(e instanceof SqliteFormatError)) throw e;
          damaged(e.message);
          continue;
        }
      }
      yield row;
    }
  }
}
