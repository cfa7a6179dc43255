// What the state.db reader needs of a database and its values: the row source, column values read
// exactly (ids beyond 2^53 stay bigint), and names compared as SQLite compares them.

import { foldName, type SqlValue } from './sqliteFile';

/** What the Hermes logic needs of a database: table and column names, and each table's rows. */
export interface RowSource {
  tables(): string[];
  columns(table: string): string[];
  /**
   * Every row in storage order; a row's values can be read only until the next row is taken. With
   * `damaged`, a damaged part of the table costs only its rows, each damage told to it.
   */
  rows(table: string, kept?: (page: number) => boolean, damaged?: (message: string) => void): Iterable<StoredRow>;
  /** The rows whose `column` is one of `values`, through an index; undefined when there is none to use. */
  rowsWhere?(table: string, column: string, values: Iterable<string>): Iterable<StoredRow> | undefined;
}

export interface StoredRow {
  get(column: string): SqlValue;
}

/** Column values; integers beyond 2^53 stay bigint so ids order and print exactly. */
export type Value = SqlValue | undefined;
export type SqlRow = Record<string, Value>;

/** A bigint that fits a double exactly is read as a number, like every smaller integer. */
export const plain = (v: SqlValue): Value => (typeof v === 'bigint' && Number.isSafeInteger(Number(v)) ? Number(v) : v);

/** An id as text, exact for any integer. */
export const idText = (v: Value): string =>
  v instanceof Uint8Array
    ? `x'${[...v.subarray(0, 64)].map((b) => b.toString(16).padStart(2, '0')).join('')}'${v.length > 64 ? ` (${v.length} bytes)` : ''}`
    : String(v);

/**
 * A session id as one string, the same for `sessions.id`, `messages.session_id` and
 * `parent_session_id`. The agent writes text; a column without text affinity can hold the INTEGER
 * 42 beside the TEXT '42', two sessions to SQLite, so a number is named with its type.
 */
export const sessionKey = (v: Value): string => (typeof v === 'number' || typeof v === 'bigint' ? `${String(v)} (integer)` : idText(v));

/**
 * Table and column names as SQLite compares them (ASCII case-insensitive): the stored spelling of
 * each name a query asks for.
 */
export class Names {
  private readonly byFolded = new Map<string, string>();
  constructor(names: Iterable<string>) {
    for (const n of names) if (!this.byFolded.has(foldName(n))) this.byFolded.set(foldName(n), n);
  }
  has(name: string): boolean {
    return this.byFolded.has(foldName(name));
  }
  /** The stored spelling of `name`, or `name` itself when absent. */
  of(name: string): string {
    return this.byFolded.get(foldName(name)) ?? name;
  }
}
