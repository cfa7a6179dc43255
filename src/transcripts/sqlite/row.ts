// The row a scan is on: a table's columns mapped onto the record of the cell, decoded on request.

import { Payload, type CellRef } from './btree';
import { SqliteFormatError } from './errors';
import type { Pager } from './pager';
import { decodeValue, readRecordHeader, type SqlValue } from './record';
import { defaultValue, foldName, type SqliteTable } from './schema';

/** Values are decoded on request; overflow pages are read only when a requested value lies on them. */
export class TableRow {
  rowid: number | bigint = 0;
  private readonly index = new Map<string, number>();
  private readonly recordIndex: number[] = [];
  private readonly payload: Payload;
  private readonly decodeText: (bytes: Uint8Array) => string;
  private readonly types: number[] = [];
  private readonly offsets: number[] = [];
  private headerRead = false;

  constructor(pager: Pager, private readonly table: SqliteTable) {
    this.payload = new Payload(pager, `table ${table.name}`);
    this.decodeText = (b) => pager.decodeText(b);
    let stored = 0;
    table.columns.forEach((c, i) => {
      // Names match as SQLite matches them (foldName); the name as declared is the common lookup, found directly.
      for (const key of [c.name, foldName(c.name)]) if (!this.index.has(key)) this.index.set(key, i);
      this.recordIndex.push(c.generated ? -1 : stored++);
    });
  }

  /** Points the row at a table leaf cell. */
  load(cell: CellRef): void {
    this.payload.loadTableLeaf(cell);
    this.rowid = this.payload.rowid;
    this.headerRead = false;
  }

  /** A column's value; a record shorter than the table (written before ADD COLUMN) yields the column's default. */
  get(column: string): SqlValue {
    const i = this.index.get(column) ?? this.index.get(foldName(column));
    if (i === undefined) throw new SqliteFormatError(`no such column: ${column} (table ${this.table.name})`);
    return this.value(i);
  }

  private value(i: number): SqlValue {
    const col = this.table.columns[i];
    if (col.rowidAlias) return this.rowid;
    if (col.generated) throw new SqliteFormatError(`${this.table.name}.${col.name} is a virtual generated column: it is computed, not stored`);
    if (!this.headerRead) {
      readRecordHeader(this.payload, this.types, this.offsets);
      this.headerRead = true;
    }
    const r = this.recordIndex[i];
    if (r >= this.types.length) return defaultValue(col);
    return decodeValue(this.payload, this.types[r], this.offsets[r], this.decodeText);
  }
}
