// 64-bit integers come out exact on every path: rowids (varints of 1 to 9 bytes), INTEGER PRIMARY
// KEY aliases, record integers of every width (1, 2, 3, 4, 6 and 8 bytes), pages read from the
// WAL, WITHOUT ROWID keys. An integer is a number when it is a safe integer and a bigint beyond.
// A REAL column reads a stored integer as a real, as SQLite does.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bytesSource } from '../../src/transcripts/byteSource';
import { SqliteFile, type SqlValue } from '../../src/transcripts/sqliteFile';
import { assertMatchesPython, assertMatchesSqlJs, writeSqlite } from './sqliteOracle';

/** Integers at every boundary: varint lengths (7 bits a byte, 9 bytes from 2^56 and for negatives), serial type widths, 2^53. */
const BOUNDARIES: bigint[] = [
  0n,
  1n,
  127n,
  128n,
  32767n,
  32768n,
  8388607n,
  8388608n,
  2147483647n,
  2147483648n,
  2n ** 32n,
  2n ** 47n - 1n,
  2n ** 47n,
  2n ** 48n,
  2n ** 49n,
  2n ** 53n - 1n,
  2n ** 53n,
  2n ** 53n + 1n,
  2n ** 56n - 1n,
  2n ** 56n,
  2n ** 62n,
  2n ** 63n - 1n,
]
  .flatMap((v) => (v === 0n ? [v] : [v, -v]))
  .concat([-(2n ** 63n)]);

const exact = (v: bigint): number | bigint => (v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v);

/** Values as the reader must give them: safe integers as numbers, the others as bigints (strictly: not a rounded number). */
function assertExact(actual: SqlValue | undefined, expected: bigint, where: string): void {
  const want = exact(expected);
  assert.equal(typeof actual, typeof want, `${where}: ${String(actual)} is a ${typeof actual}`);
  assert.equal(actual, want, where);
}

const VALUES_SQL = BOUNDARIES.map((v) => `(${v})`).join(', ');

describe('64-bit integers, exact on every path', () => {
  it('rowids, INTEGER PRIMARY KEY aliases and record integers of every width, in a file and through the WAL', async () => {
    const { db, wal, dump } = writeSqlite(
      [
        ['execute', 'PRAGMA journal_mode=WAL'],
        ['execute', 'PRAGMA wal_autocheckpoint=0'],
        [
          'script',
          `
CREATE TABLE alias(id INTEGER PRIMARY KEY, v INTEGER, w);
CREATE TABLE plain(v INTEGER);
CREATE TABLE keyed(k INTEGER PRIMARY KEY, v) WITHOUT ROWID;
WITH b(v) AS (VALUES ${VALUES_SQL}) INSERT INTO alias SELECT v, v, CAST(v AS TEXT) FROM b;
WITH b(v) AS (VALUES ${VALUES_SQL}) INSERT INTO plain(rowid, v) SELECT v, v FROM b;
WITH b(v) AS (VALUES ${VALUES_SQL}) INSERT INTO keyed SELECT v, v FROM b;
PRAGMA wal_checkpoint(TRUNCATE);
CREATE TABLE late(id INTEGER PRIMARY KEY, v INTEGER);
WITH b(v) AS (VALUES ${VALUES_SQL}) INSERT INTO late SELECT v, v FROM b;
UPDATE alias SET w = v;
`,
        ],
        ['copy'],
        ['dump'],
      ],
      { autocommit: true },
    );
    assert.ok(wal && wal.length > 0, 'late and the update live in the WAL only');
    const file = new SqliteFile(bytesSource(db), { wal });
    assert.deepEqual(file.walWarnings, []);
    const sorted = [...BOUNDARIES].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const table of ['alias', 'late']) {
      let i = 0;
      for (const row of file.rows(table)) {
        assertExact(row.rowid ?? undefined, sorted[i], `${table} rowid ${i}`);
        assertExact(row.get('id'), sorted[i], `${table} id ${i}`);
        assertExact(row.get('v'), sorted[i], `${table} v ${i}`);
        if (table === 'alias') assertExact(row.get('w'), sorted[i], `alias w ${i} (rewritten in the WAL)`);
        i++;
      }
      assert.equal(i, BOUNDARIES.length);
    }
    let i = 0;
    for (const row of file.rows('plain')) {
      assertExact(row.rowid ?? undefined, sorted[i], `plain rowid ${i}`);
      assertExact(row.get('v'), sorted[i], `plain v ${i}`);
      i++;
    }
    assert.equal(i, BOUNDARIES.length);
    i = 0;
    for (const row of file.rows('keyed')) {
      assert.equal(row.rowid, null, 'WITHOUT ROWID: no rowid');
      assertExact(row.get('k'), sorted[i], `keyed k ${i}`);
      i++;
    }
    assert.equal(i, BOUNDARIES.length);
    assertMatchesPython(file, dump);
  });

  it('a REAL column holding stored integers (its type changed in the schema) reads reals, as SQLite does', async () => {
    const { db, dump } = writeSqlite([
      [
        'script',
        `
CREATE TABLE t(id INTEGER PRIMARY KEY, x INTEGER, y INTEGER, z INTEGER);
INSERT INTO t VALUES (1, 9223372036854775807, 9007199254740993, 5), (2, -9223372036854775808, -9007199254740993, -5);
PRAGMA writable_schema = ON;
UPDATE sqlite_master SET sql = 'CREATE TABLE t(id INTEGER PRIMARY KEY, x REAL, y DOUBLE, z FLOAT)' WHERE name = 't';
`,
      ],
      ['commit'],
      ['reopen'],
      [
        'expect',
        'SELECT typeof(x), typeof(y), typeof(z) FROM t',
        [
          ['real', 'real', 'real'],
          ['real', 'real', 'real'],
        ],
      ],
      ['dump'],
    ]);
    const file = new SqliteFile(bytesSource(db));
    const row = file.rows('t').next().value;
    assert.equal(row?.get('x'), 2 ** 63);
    assert.equal(row?.get('y'), 9007199254740992);
    assertMatchesPython(file, dump);
    await assertMatchesSqlJs(db, file);
  });
});
