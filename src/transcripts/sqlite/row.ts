// The row a scan is on: a table's columns mapped onto the record of the cell, decoded on request.

import { Payload, type CellRef } from './btree';
import { SqliteFormatError } from './errors';
import type { Pager } from './pager';
import { decodeValue, readRecordHeader, type SqlValue } from './record';
import { defaultValue, foldName, type SqliteTable } from './schema';

/** Values are decoded on request; overflow pages are read only when a requested value lies on them. */
export class TableRow {
  /** The row's rowid; null in a WITHOUT ROWID table. */
  rowid: number | bigint | null = 0;
  /** The page of the cell. */
  page = 0;
  /** The walk passed over the leaf `page` (SqliteFile.rows' `kept`): no row, nothing to read. */
  kept = false;
  private readonly index = new Map<string, number>();
  private readonly payload: Payload;
  private readonly columns: SqliteTable['columns'];
  private readonly recordIndex: number[];
  private readonly withoutRowid: boolean;
  private types: number[] = [];
  private offsets: number[] = [];
  private headerRead = false;

  constructor(
    private readonly pager: Pager,
    private readonly table: SqliteTable,
  ) {
    this.payload = new Payload(pager, `table ${table.name}`);
    ({ columns: this.columns, recordIndex: this.recordIndex, withoutRowid: this.withoutRowid } = table);
    table.columns.forEach((c, i) => {
      // Names match as SQLite matches them (foldName); the name as declared is the common lookup, found directly.
      for (const key of [c.name, foldName(c.name)]) if (!this.index.has(key)) this.index.set(key, i);
    });
  }

  /** Points the row at the cell holding it: a table leaf cell, or any cell of a WITHOUT ROWID table's index b-tree. */
  load(cell: CellRef): void {
    this.page = cell.pageNumber;
    this.kept = cell.kept;
    if (cell.kept) return;
    if (this.withoutRowid) {
      this.payload.loadIndexCell(cell);
      this.rowid = null;
    } else {
      this.payload.loadTableLeaf(cell);
      this.rowid = this.payload.rowid;
    }
    this.headerRead = false;
  }

  /**
   * A column's value; a record shorter than the table (written before ADD COLUMN) yields the
   * column's default. A VIRTUAL generated column (which columns() leaves out) reads as null.
   */
  get(column: string): SqlValue {
    if (this.kept) throw new Error(`page ${this.page} was passed over: it has no row to read`);
    const i = this.index.get(column) ?? this.index.get(foldName(column));
    if (i === undefined) throw new SqliteFormatError(`no such column: ${column} (table ${this.table.name})`);
    return this.value(i);
  }

  /** Adds each overflow page the next values read lie on to `into` (null: no longer). */
  recordOverflow(into: number[] | null): void {
    this.payload.overflowRead = into;
  }

  private value(i: number): SqlValue {
    const col = this.columns[i];
    if (col.rowidAlias) return this.rowid;
    // Computed from an expression this reader does not evaluate: no value to read.
    if (col.generated === 'virtual') return null;
    if (!this.headerRead) {
      // Fresh arrays: emptying the old ones costs more.
      this.types = [];
      this.offsets = [];
      readRecordHeader(this.payload, this.types, this.offsets);
      this.headerRead = true;
    }
    const r = this.recordIndex[i];
    const v = r >= this.types.length ? defaultValue(col) : decodeValue(this.payload, this.types[r], this.offsets[r], this.pager);
    // A REAL column reads an integer as a real (OP_RealAffinity); as numbers, only those beyond 2^53 differ.
    return typeof v === 'bigint' && col.affinity === 'real' ? Number(v) : v;
  }
}
