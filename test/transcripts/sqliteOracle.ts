// Oracles for the page reader's tests: real SQLite (test/support/sqlite_write.py: python3's sqlite3
// writes the files and dumps every value exactly) and sql.js (SQLite compiled to wasm, which reads the same bytes).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import initSqlJs, { type Database, type SqlJsStatic } from 'sql.js';
import { bytesSource } from '../../src/transcripts/byteSource';
import { SqliteFile, type SqlValue } from '../../src/transcripts/sqliteFile';
import { PYTHON } from '../support/python';

export const sqlJs: Promise<SqlJsStatic> = initSqlJs();

/** Python's view of a value: kind and exact text (integers beyond 2^53, float repr). */
export type Exact = ['n'] | ['i', string] | ['f', string] | ['t', string] | ['b', string];
export interface Dump {
  [table: string]: { columns: string[]; rows: Exact[][] };
}

/** Per WITHOUT ROWID table, the column (cid) at each place of its record, as SQLite lays it out. */
export type Layout = Record<string, number[]>;

/** One step of test/support/sqlite_write.py on its connection to x.db (its docstring says what each does). */
export type WriteStep =
  | ['execute', string]
  | ['script', string]
  | ['commit']
  | ['reopen']
  | ['copy']
  | ['expect', string, (string | number | null)[][]]
  | ['expect-error', string, string]
  | ['dump']
  | ['dump-fresh']
  | ['layout'];

const SQLITE_WRITE_PY = join(__dirname, '..', 'support', 'sqlite_write.py');

/** Runs the steps on x.db in a temp dir; returns the file(s) left (copy.db and its WAL once a `copy` step made them) and the dump and layout asked for. */
export function writeSqlite(steps: WriteStep[], opts: { autocommit?: boolean } = {}): { db: Uint8Array; wal?: Uint8Array; dump: Dump; layout: Layout } {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-file-test-'));
  try {
    const out = execFileSync(PYTHON, [SQLITE_WRITE_PY, dir], {
      input: JSON.stringify({ autocommit: opts.autocommit ?? false, steps }),
      maxBuffer: 1 << 30,
      encoding: 'utf8',
    });
    let wal: Uint8Array | undefined;
    // Plain Uint8Arrays: Buffer.slice() would be a view, and the damage tests edit copies.
    try {
      wal = new Uint8Array(readFileSync(join(dir, 'copy.db-wal')));
    } catch {
      wal = undefined;
    }
    const db = new Uint8Array(readFileSync(join(dir, wal ? 'copy.db' : 'x.db')));
    const { dump, layout } = JSON.parse(out) as { dump: Dump; layout: Layout };
    return { db, wal, dump, layout };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

export function sameAsPython(v: SqlValue, e: Exact, where: string): void {
  const ok =
    e[0] === 'n'
      ? v === null
      : e[0] === 'i'
        ? (typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v))) && BigInt(v) === BigInt(e[1])
        : e[0] === 'f'
          ? typeof v === 'number' && Object.is(v, ({ inf: Infinity, '-inf': -Infinity } as Record<string, number>)[e[1]] ?? Number(e[1]))
          : e[0] === 't'
            ? v === e[1]
            : v instanceof Uint8Array && hex(v) === e[1];
  if (!ok)
    assert.fail(
      `${where}: page reader ${typeof v === 'string' && v.length > 80 ? `${v.slice(0, 80)}… (${v.length})` : String(v)} (${typeof v}), SQLite ${JSON.stringify(e).slice(0, 120)}`,
    );
}

/** Every table python dumped, value by value, through the page reader. */
export function assertMatchesPython(file: SqliteFile, dump: Dump): number {
  let values = 0;
  for (const [table, { columns, rows }] of Object.entries(dump)) {
    assert.deepEqual(
      file.columns(table).filter((c) => columns.includes(c)),
      columns,
      `${table} columns`,
    );
    let i = 0;
    for (const row of file.rows(table)) {
      assert.ok(i < rows.length, `${table}: more rows than SQLite has`);
      columns.forEach((c, k) => {
        sameAsPython(row.get(c), rows[i][k], `${table} row ${i} column ${c}`);
        values++;
      });
      i++;
    }
    assert.equal(i, rows.length, `${table}: row count`);
  }
  return values;
}

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** ORDER BY for a table's b-tree order: the rowid, or a WITHOUT ROWID table's primary key (columns, collations, directions). */
function storageOrder(db: Database, table: string): string {
  const withoutRowid = db.exec("SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?", [table])[0]?.values[0]?.[0];
  if (!withoutRowid) return 'rowid';
  const pk = String(db.exec("SELECT name FROM pragma_index_list(?) WHERE origin = 'pk'", [table])[0].values[0][0]);
  const keys = db.exec(`PRAGMA index_xinfo(${quote(pk)})`)[0].values.filter((r) => r[5]);
  return keys.map((r) => `${quote(String(r[2]))} COLLATE ${quote(String(r[4]))} ${r[3] ? 'DESC' : 'ASC'}`).join(', ');
}

/** sql.js values of every table, in storage order (its integers beyond 2^53 are doubles: compare the same way). */
export async function assertMatchesSqlJs(bytes: Uint8Array, file: SqliteFile, skip: string[] = []): Promise<number> {
  const db = new (await sqlJs).Database(bytes);
  let values = 0;
  try {
    const tables = db.exec("SELECT name FROM sqlite_master WHERE type='table' AND sql NOT LIKE 'CREATE VIRTUAL%'")[0]?.values.map((r) => String(r[0])) ?? [];
    for (const table of tables.filter((t) => !skip.includes(t))) {
      const columns = file.columns(table);
      const theirs = db.exec(`SELECT ${columns.map(quote).join(', ')} FROM ${quote(table)} ORDER BY ${storageOrder(db, table)}`)[0]?.values ?? [];
      let i = 0;
      for (const row of file.rows(table)) {
        columns.forEach((c, k) => {
          const mine = row.get(c);
          assert.deepEqual(typeof mine === 'bigint' ? Number(mine) : mine, theirs[i][k], `${table} row ${i} column ${c}`);
          values++;
        });
        i++;
      }
      assert.equal(i, theirs.length, `${table}: row count`);
    }
  } finally {
    db.close();
  }
  return values;
}

/** A value as SQL text (integers beyond 2^53 cannot be bound through sql.js) or a parameter. */
export function sqlJsBind(v: unknown, params: unknown[]): string {
  if (v === null) return 'NULL';
  if (typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v))) return String(v);
  params.push(v);
  return '?';
}

/**
 * The property the random-database tests share: each generated case's database, made by `build`
 * in sql.js at the case's page size and encoding, reads through the page reader value for value as
 * sql.js reads it. Returns the values compared, so a test can check it compared enough.
 */
export async function matchesSqlJsForAll<T extends { pageSize: number; encoding: string }>(
  cases: fc.Arbitrary<T>,
  build: (db: Database, g: T) => void,
  run: { numRuns: number; seed: number },
): Promise<number> {
  const SQL = await sqlJs;
  let values = 0;
  await fc.assert(
    fc.asyncProperty(cases, async (g) => {
      const db = new SQL.Database();
      try {
        db.run(`PRAGMA page_size = ${g.pageSize}`);
        db.run(`PRAGMA encoding = '${g.encoding}'`);
        build(db, g);
        const bytes = db.export();
        values += await assertMatchesSqlJs(bytes, new SqliteFile(bytesSource(bytes)));
      } finally {
        db.close();
      }
    }),
    run,
  );
  return values;
}
