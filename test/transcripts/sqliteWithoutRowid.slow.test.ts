// WITHOUT ROWID tables: rows in an index b-tree keyed by the primary key, every cell (interior ones
// too) a whole row, its record the key's columns first, then the others in declaration order.
// Files written by real SQLite (python3) and sql.js; the record layout is checked against SQLite's
// own account of it (PRAGMA index_xinfo of the primary key). A table that cannot be read fails
// alone, with the table and page named.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { bytesSource } from '../../src/transcripts/byteSource';
import { SqliteFile, SqliteFormatError, type SqlValue } from '../../src/transcripts/sqliteFile';
import { assertMatchesPython, assertMatchesSqlJs, matchesSqlJsForAll, sqlJsBind, writeSqlite, type Layout } from './sqliteOracle';

/** The reader's record layout is SQLite's: column i at the first place SQLite puts it, virtual columns nowhere. */
function assertLayout(file: SqliteFile, layout: Layout): void {
  assert.ok(Object.keys(layout).length > 0);
  for (const [table, cids] of Object.entries(layout)) {
    const t = file.table(table);
    assert.equal(t?.withoutRowid, true, table);
    assert.deepEqual(
      t?.recordIndex,
      t?.columns.map((_, i) => cids.indexOf(i)),
      `${table}: record layout`,
    );
  }
}

const SHAPES = `
CREATE TABLE kv(k TEXT PRIMARY KEY, v) WITHOUT ROWID;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
INSERT INTO kv SELECT printf('key %05d', (i * 7919) % 3001),
  CASE WHEN i % 97 = 0 THEN hex(randomblob(30000 + i)) WHEN i % 5 = 0 THEN char(0x4e2d, 0x1F600) || i WHEN i % 7 = 0 THEN randomblob(i % 300) ELSE i * 1.5 END FROM n;
CREATE TABLE longkey(k TEXT PRIMARY KEY, v) WITHOUT ROWID;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
INSERT INTO longkey SELECT printf('%06d', i) || hex(randomblob(400 + (i % 3) * 3000)), i FROM n;
CREATE TABLE comp(a TEXT, b INTEGER, c BLOB, d REAL, PRIMARY KEY(c, a DESC)) WITHOUT ROWID;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
INSERT INTO comp SELECT 'a' || (i % 17), i * 1000003, CAST(i % 41 AS BLOB) || x'00', i / 3.0 FROM n;
CREATE TABLE nocase(name TEXT COLLATE NOCASE PRIMARY KEY, n) WITHOUT ROWID;
INSERT INTO nocase VALUES ('b', 1), ('A', 2), ('c', 3), ('D', 4);
CREATE TABLE ipk(id INTEGER PRIMARY KEY, v) WITHOUT ROWID;
INSERT INTO ipk VALUES (9223372036854775807, 'max'), (-9223372036854775808, 'min'), (9007199254740993, 'beyond 2^53'), (0, 'zero'), (281474976710656, 'seven bytes');
CREATE TABLE dup(a, b, c, PRIMARY KEY(a, a, b COLLATE NOCASE, b)) WITHOUT ROWID;
INSERT INTO dup VALUES (1, 'x', 'one'), (1, 'X', 'two'), (0, 'y', 'three');
CREATE TABLE gen(a INTEGER, v TEXT, g AS (v || '!') VIRTUAL, s AS (a * 2) STORED, w TEXT, PRIMARY KEY(w, a)) WITHOUT ROWID;
INSERT INTO gen(a, v, w) VALUES (1, 'one', 'z'), (2, 'two', 'y'), (3, 'three', 'y');
CREATE TABLE st(a INTEGER PRIMARY KEY, b TEXT) STRICT, WITHOUT ROWID;
INSERT INTO st VALUES (2, 'two'), (1, 'one');
CREATE TABLE plain(x, y);
INSERT INTO plain VALUES (1, 'rowid table'), (2, 'beside them');
DELETE FROM kv WHERE substr(k, 5) % 11 = 0;
ALTER TABLE kv ADD COLUMN added INTEGER DEFAULT 42;
ALTER TABLE kv ADD COLUMN added_text TEXT DEFAULT 'later';
INSERT INTO kv VALUES ('key 99999', 'after ALTER', 7, 'set');
CREATE INDEX kv_v ON kv(v);
`;

describe('WITHOUT ROWID tables vs real SQLite (python3 sqlite3)', () => {
  for (const [pageSize, encoding] of [
    [512, 'UTF-8'],
    [4096, 'UTF-16le'],
    [65536, 'UTF-16be'],
  ] as const) {
    it(`page size ${pageSize}, ${encoding}: text, composite, DESC, NOCASE, 64-bit integer keys, repeated key columns, generated columns, ADD COLUMN, overflow in interior cells`, async () => {
      const { db, dump, layout } = writeSqlite([
        ['execute', `PRAGMA page_size=${pageSize}`],
        ['execute', `PRAGMA encoding='${encoding}'`],
        ['script', SHAPES],
        ['commit'],
        ['layout'],
        ['dump'],
      ]);
      const file = new SqliteFile(bytesSource(db));
      assert.equal(file.problems.length, 0);
      assertLayout(file, layout);
      assert.ok(dump.kv.rows.length > 2500 && dump.longkey.rows.length === 300);
      assert.ok(assertMatchesPython(file, dump) > 8000);
      await assertMatchesSqlJs(db, file);
      for (const row of file.rows('kv')) assert.equal(row.rowid, null, 'no rowid');
      const ids: SqlValue[] = [];
      for (const row of file.rows('ipk')) ids.push(row.get('id'));
      assert.deepEqual(
        ids,
        [-9223372036854775808n, 0, 281474976710656, 9007199254740993n, 9223372036854775807n],
        'an INTEGER PRIMARY KEY of a WITHOUT ROWID table is no rowid alias; 64-bit keys are exact',
      );
    });
  }

  it('a Hermes store whose messages table is WITHOUT ROWID reads it, and its sessions', async () => {
    const { db, dump, layout } = writeSqlite([
      [
        'script',
        `
CREATE TABLE sessions (id TEXT PRIMARY KEY, started_at REAL NOT NULL, parent_session_id TEXT);
CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT, timestamp REAL NOT NULL,
  display_kind TEXT, active INTEGER DEFAULT 1) WITHOUT ROWID;
INSERT INTO sessions VALUES ('s1', 1.0, NULL), ('s2', 2.0, 's1');
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
INSERT INTO messages (id, session_id, role, content, timestamp) SELECT i * 3, 's' || (1 + i % 2), CASE i % 2 WHEN 0 THEN 'user' ELSE 'assistant' END,
  CASE WHEN i % 50 = 0 THEN hex(randomblob(5000)) ELSE 'turn ' || i END, i FROM n;
`,
      ],
      ['commit'],
      ['layout'],
      ['dump'],
    ]);
    const file = new SqliteFile(bytesSource(db));
    assertLayout(file, layout);
    assert.deepEqual(file.columns('messages'), ['id', 'session_id', 'role', 'content', 'timestamp', 'display_kind', 'active']);
    assert.equal(dump.messages.rows.length, 2000);
    assertMatchesPython(file, dump);
    await assertMatchesSqlJs(db, file);
  });
});

describe('WITHOUT ROWID tables vs sql.js', () => {
  const columnType = fc.constantFrom('', 'INTEGER', 'INT', 'TEXT', 'REAL', 'BLOB', 'NUMERIC', 'TEXT COLLATE NOCASE', 'TEXT COLLATE RTRIM');
  const value = fc.oneof(
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 3, arbitrary: fc.integer({ min: -300, max: 300 }) },
    { weight: 2, arbitrary: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }) },
    { weight: 2, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
    { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
    { weight: 1, arbitrary: fc.tuple(fc.string({ minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 3000 })).map(([s, n]) => s.repeat(n)) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 30 }) },
  );
  const caseArb = fc.record({
    pageSize: fc.constantFrom(512, 1024, 4096),
    encoding: fc.constantFrom('UTF-8', 'UTF-16le'),
    types: fc.array(columnType, { minLength: 1, maxLength: 5 }),
    // The key: distinct column numbers (taken modulo the column count), each ASC or DESC.
    key: fc.array(fc.tuple(fc.nat(4), fc.boolean()), { minLength: 1, maxLength: 3 }),
    rows: fc.array(fc.array(value, { minLength: 7, maxLength: 7 }), { maxLength: 80, size: 'medium' }),
    deletes: fc.array(fc.nat(80), { maxLength: 10 }),
    added: fc.array(fc.constantFrom('INTEGER DEFAULT 5', "TEXT DEFAULT 'x'", '', 'REAL DEFAULT -1.5'), { maxLength: 2 }),
  });
  it('random WITHOUT ROWID tables, keys, rows, deletes and added columns read the same (200 databases)', async () => {
    const values = await matchesSqlJsForAll(
      caseArb,
      (db, g) => {
        const key = [...new Map(g.key.map(([c, desc]) => [c % g.types.length, desc])).entries()];
        const cols = g.types.map((t, i) => `c${i} ${t}`);
        db.run(`CREATE TABLE r(${cols.join(', ')}, PRIMARY KEY(${key.map(([c, desc]) => `c${c}${desc ? ' DESC' : ''}`).join(', ')})) WITHOUT ROWID`);
        for (const row of g.rows) {
          const params: unknown[] = [];
          // Primary key columns of a WITHOUT ROWID table are NOT NULL.
          const vals = row.slice(0, g.types.length).map((v, i) => sqlJsBind(v === null && key.some(([c]) => c === i) ? i : v, params));
          db.run(`INSERT OR IGNORE INTO r VALUES (${vals.join(', ')})`, params as never);
        }
        for (const d of g.deletes) db.run(`DELETE FROM r WHERE c${key[0][0]} = ${d % 300}`);
        g.added.forEach((decl, i) => db.run(`ALTER TABLE r ADD COLUMN a${i} ${decl}`));
        for (const row of g.rows.slice(0, 5)) {
          const params: unknown[] = [];
          const vals = [...row.slice(0, g.types.length), ...g.added.map(() => row[6])].map((v, i) =>
            sqlJsBind(v === null && key.some(([c]) => c === i) ? `n${i}` : v, params),
          );
          db.run(`INSERT OR IGNORE INTO r VALUES (${vals.join(', ')})`, params as never);
        }
      },
      { numRuns: 200, seed: 20261012 },
    );
    assert.ok(values > 5_000, `${values} values compared`);
  });
});

describe('a WITHOUT ROWID table that cannot be read fails alone', () => {
  const { db } = writeSqlite([
    ['execute', 'PRAGMA page_size=512'],
    [
      'script',
      `
CREATE TABLE sessions (id TEXT PRIMARY KEY, started_at REAL);
INSERT INTO sessions VALUES ('s1', 1.0), ('s2', 2.0);
CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, content TEXT) WITHOUT ROWID;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400)
INSERT INTO messages SELECT i, 's' || (1 + i % 2), CASE WHEN i % 40 = 0 THEN hex(randomblob(900)) ELSE 'turn ' || i END FROM n;
`,
    ],
    ['commit'],
  ]);
  const sessionsOf = (file: SqliteFile): SqlValue[] => {
    const ids: SqlValue[] = [];
    for (const r of file.rows('sessions')) ids.push(r.get('id'));
    return ids;
  };
  const readAll = (file: SqliteFile, table: string): void => {
    const cols = file.columns(table);
    for (const r of file.rows(table)) for (const c of cols) r.get(c);
  };

  it('a page of the wrong type, a cycle, a page out of range: the table and the page are named, the other tables read', () => {
    const file = new SqliteFile(bytesSource(db));
    readAll(file, 'messages');
    const root = file.table('messages')?.rootPage as number;
    const rootAt = (root - 1) * 512;
    assert.equal(db[rootAt], 0x02, 'the root is an index interior page');
    const cases: [string, (b: Uint8Array) => void, RegExp][] = [
      [
        'root is a table leaf',
        (b) => {
          b[rootAt] = 0x0d;
        },
        new RegExp(`table messages: page ${root} has type 0x0d, not an index b-tree page`),
      ],
      [
        'right child -> root',
        (b) => new DataView(b.buffer, b.byteOffset).setUint32(rootAt + 8, root),
        new RegExp(`table messages: page ${root} is reached twice`),
      ],
      ['right child -> beyond the file', (b) => new DataView(b.buffer, b.byteOffset).setUint32(rootAt + 8, 99999), /page 99999 does not exist/],
      ['too many cells', (b) => new DataView(b.buffer, b.byteOffset).setUint16(rootAt + 3, 60000), /table messages: page \d+ claims 60000 cells/],
    ];
    for (const [what, damage, expected] of cases) {
      const bytes = db.slice();
      damage(bytes);
      const damaged = new SqliteFile(bytesSource(bytes));
      assert.deepEqual(sessionsOf(damaged), ['s1', 's2'], `${what}: sessions still read`);
      assert.deepEqual(damaged.columns('messages'), ['id', 'session_id', 'content'], `${what}: the columns are known`);
      assert.throws(
        () => readAll(damaged, 'messages'),
        (e: Error) => e instanceof SqliteFormatError && expected.test(e.message),
        what,
      );
    }
  });

  it('a record damaged in a key-ordered row names the row by its place in key order', () => {
    const file = new SqliteFile(bytesSource(db));
    const bytes = db.slice();
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    // Down the left-most children to the first leaf; its first row (id 1, a short one) gets a record header longer than its payload.
    let leaf = file.table('messages')?.rootPage as number;
    const firstCell = (n: number): number => (n - 1) * 512 + view.getUint16((n - 1) * 512 + (bytes[(n - 1) * 512] === 0x02 ? 12 : 8));
    while (bytes[(leaf - 1) * 512] === 0x02) leaf = view.getUint32(firstCell(leaf));
    assert.equal(bytes[(leaf - 1) * 512], 0x0a);
    bytes[firstCell(leaf) + 1] = 0x7f;
    assert.throws(
      () => readAll(new SqliteFile(bytesSource(bytes)), 'messages'),
      (e: Error) =>
        e instanceof SqliteFormatError
        && e.message === `database disk image is malformed: table messages, row 1 in key order on page ${leaf}: a record header of 127 bytes`,
    );
  });

  it('a WITHOUT ROWID schema the reader cannot lay out (its PRIMARY KEY names no column) fails alone', () => {
    const { db: bad } = writeSqlite([
      [
        'script',
        `
CREATE TABLE sessions (id TEXT PRIMARY KEY); INSERT INTO sessions VALUES ('s1'), ('s2');
CREATE TABLE messages (id INTEGER, content TEXT, PRIMARY KEY (id)) WITHOUT ROWID; INSERT INTO messages VALUES (1, 'x');
PRAGMA writable_schema = ON;
UPDATE sqlite_master SET sql = replace(sql, 'PRIMARY KEY (id)', 'PRIMARY KEY (nope)') WHERE name = 'messages';
`,
      ],
      ['commit'],
    ]);
    const file = new SqliteFile(bytesSource(bad));
    assert.deepEqual(file.tables(), ['sessions', 'messages']);
    assert.deepEqual(sessionsOf(file), ['s1', 's2']);
    assert.throws(() => file.columns('messages'), /cannot read the schema of table messages: its PRIMARY KEY names "nope", which is not one of its columns/);
  });

  it('random byte damage ends in a SqliteFormatError, never a hang or another error (500 files)', () => {
    const pages = db.length / 512;
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(pages - 1), fc.nat(60), fc.nat(255)), { minLength: 1, maxLength: 8 }), (edits) => {
        const bytes = db.slice();
        for (const [p, o, v] of edits) bytes[p * 512 + (p === 0 ? 100 : 0) + o] = v;
        try {
          const file = new SqliteFile(bytesSource(bytes));
          for (const t of file.tables()) readAll(file, t);
        } catch (e) {
          if (!(e instanceof SqliteFormatError)) throw e;
        }
      }),
      { numRuns: 500, seed: 12 },
    );
  });
});
