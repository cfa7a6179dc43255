// The page reader (src/transcripts/sqliteFile.ts) against two oracles: real SQLite (python3's
// sqlite3 writes the files and dumps every value exactly) and sql.js (SQLite compiled to wasm, which
// reads the same bytes). Then damaged files: each must end in a SqliteFormatError, never a hang.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { bytesSource, type ByteSource } from '../../src/transcripts/byteSource';
import { SqliteFile, SqliteFormatError } from '../../src/transcripts/sqliteFile';
import { applyWal } from '../support/walImage';
import { assertMatchesPython, assertMatchesSqlJs, matchesSqlJsForAll, sqlJsBind, writeSqlite, type WriteStep } from './sqliteOracle';

// Values of every serial type: NULL, 0 and 1 (types 8, 9), 1- to 8-byte integers, reals, text, blobs.
const MIXED_TABLE = `
CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b BLOB, c REAL, d, e INTEGER);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
INSERT INTO t(a, b, c, d, e) SELECT
  CASE WHEN i % 97 = 0 THEN hex(randomblob(40000 + i)) WHEN i % 5 = 0 THEN replace(hex(zeroblob(i % 50)), '00', char(0x4e2d, 0x1F600)) ELSE 'row ' || i END,
  CASE WHEN i % 89 = 0 THEN randomblob(70000) ELSE randomblob(i % 7) END,
  i / 7.0,
  CASE i % 10 WHEN 0 THEN NULL WHEN 1 THEN 0 WHEN 2 THEN 1 WHEN 3 THEN -i * 1000 WHEN 4 THEN i * 100000000 WHEN 5 THEN 9223372036854775807 - i
    WHEN 6 THEN -9223372036854775808 + i WHEN 7 THEN x'00ff' WHEN 8 THEN '' ELSE 1e300 * i END,
  CASE i % 6 WHEN 0 THEN 127 WHEN 1 THEN -128 WHEN 2 THEN 32767 WHEN 3 THEN 8388607 WHEN 4 THEN 2147483647 ELSE 140737488355327 END
FROM n;
`;

describe('page reader vs real SQLite (python3 sqlite3)', () => {
  for (const pageSize of [512, 4096, 65536]) {
    for (const encoding of ['UTF-8', 'UTF-16le', 'UTF-16be']) {
      it(`page size ${pageSize}, ${encoding}: 3,000 rows over interior pages, overflow chains, every serial type`, async () => {
        const { db, dump } = writeSqlite([
          ['execute', `PRAGMA page_size=${pageSize}`],
          ['execute', `PRAGMA encoding='${encoding}'`],
          ['script', MIXED_TABLE],
          ['commit'],
          ['dump'],
        ]);
        const file = new SqliteFile(bytesSource(db));
        assert.equal(file.pageSize, pageSize);
        assert.equal(file.encoding, encoding.toLowerCase());
        assert.equal(file.problems.length, 0);
        assert.equal(dump.t.rows.length, 3000);
        assert.ok(assertMatchesPython(file, dump) >= 18000);
        await assertMatchesSqlJs(db, file);
      });
    }
  }

  it('ALTER TABLE ADD COLUMN: older rows are shorter and read the default (or NULL), with the column affinity applied', async () => {
    const { db, dump } = writeSqlite([
      [
        'script',
        `
CREATE TABLE m(id INTEGER PRIMARY KEY, x);
INSERT INTO m(x) VALUES (1), ('two'), (NULL);
ALTER TABLE m ADD COLUMN plain;
ALTER TABLE m ADD COLUMN n INTEGER DEFAULT 7;
ALTER TABLE m ADD COLUMN s TEXT DEFAULT 'it''s';
ALTER TABLE m ADD COLUMN neg REAL DEFAULT -1.5;
ALTER TABLE m ADD COLUMN numtext TEXT DEFAULT 5;
ALTER TABLE m ADD COLUMN realtext TEXT DEFAULT 2.50;
ALTER TABLE m ADD COLUMN textint INTEGER DEFAULT '12';
ALTER TABLE m ADD COLUMN textnum NUMERIC DEFAULT ' 3.0 ';
ALTER TABLE m ADD COLUMN nul DEFAULT NULL;
ALTER TABLE m ADD COLUMN bl BLOB DEFAULT x'0102ff';
ALTER TABLE m ADD COLUMN yes DEFAULT TRUE;
ALTER TABLE m ADD COLUMN word DEFAULT hello;
ALTER TABLE m ADD COLUMN paren INTEGER DEFAULT (42);
ALTER TABLE m ADD COLUMN hexa DEFAULT 0x10;
ALTER TABLE m ADD COLUMN big DEFAULT 9223372036854775807;
ALTER TABLE m ADD COLUMN negint TEXT DEFAULT -3;
ALTER TABLE m ADD COLUMN "quoted col" DEFAULT 'q' NOT NULL;
INSERT INTO m(x, n, s) VALUES ('after', 8, 'set');
`,
      ],
      ['commit'],
      ['dump'],
    ]);
    const file = new SqliteFile(bytesSource(db));
    assertMatchesPython(file, dump);
    await assertMatchesSqlJs(db, file);
    const first = file.rows('m').next().value;
    assert.equal(first?.get('textint'), 12);
    assert.equal(first?.get('numtext'), '5');
  });

  it('ALTER TABLE ADD COLUMN: constant defaults of every kind read as SQLite reads them (64-bit and wider literals, signs, reals, spaces)', async () => {
    // Defaults are evaluated by the SQLite that reads them: these read alike in python's SQLite and in sql.js's.
    const agreed = [
      'DEFAULT 0x7fffffff',
      'DEFAULT 0x00000000ffff',
      'TEXT DEFAULT 0x10',
      'TEXT DEFAULT -0x10',
      'REAL DEFAULT -0x10',
      'INTEGER DEFAULT FALSE',
      'REAL DEFAULT TRUE',
      'DEFAULT +5',
      'TEXT DEFAULT +5',
      'TEXT DEFAULT -007',
      'TEXT DEFAULT 007',
      'TEXT DEFAULT 0002147483647',
      'TEXT DEFAULT 2147483648',
      'TEXT DEFAULT -2147483648',
      'TEXT DEFAULT 12345678901',
      'TEXT DEFAULT -12345678901',
      'DEFAULT -0',
      'REAL DEFAULT -0',
      'TEXT DEFAULT -0',
      'INTEGER DEFAULT -0.0',
      "INTEGER DEFAULT '  12  '",
      "INTEGER DEFAULT '\u00a012'",
      "INTEGER DEFAULT '1e400'",
      "NUMERIC DEFAULT '0x10'",
      "INTEGER DEFAULT ' 1.0e3'",
      'DEFAULT (-5)',
      'TEXT DEFAULT 1e3',
      'TEXT DEFAULT 1.50',
      'TEXT DEFAULT -1.50',
      'TEXT DEFAULT -2.50e1',
      'INTEGER DEFAULT 1.5e0',
      "DEFAULT '12'",
      "INTEGER DEFAULT x'3132'",
      "TEXT DEFAULT x'41'",
      'BLOB DEFAULT 5',
      "BLOB DEFAULT '5'",
      'TEXT DEFAULT NULL',
      'DEFAULT 18446744073709551616',
      'DEFAULT 1e400',
      'TEXT DEFAULT 1e400',
      'INTEGER DEFAULT 1e18',
      'NUMERIC DEFAULT 1e18',
      "INTEGER DEFAULT '1e18'",
      'REAL DEFAULT 9223372036854775807',
      'INTEGER DEFAULT -9223372036854775808',
      'DEFAULT -9223372036854775808',
      'TEXT DEFAULT -9223372036854775808',
      'INTEGER DEFAULT 9223372036854775808',
      'TEXT DEFAULT 9223372036854775808',
      "INTEGER DEFAULT '9007199254740993'",
      'INTEGER DEFAULT 9007199254740993.0',
      'REAL DEFAULT -9007199254740993',
      "NUMERIC DEFAULT '9223372036854775807'",
      "NUMERIC DEFAULT '-9223372036854775809'",
      'DEFAULT -9223372036854775809',
      "INTEGER DEFAULT '5.'",
      "INTEGER DEFAULT '.5'",
    ];
    // SQLite 3.40 (python here) reads these otherwise; the reader follows sql.js's newer SQLite.
    const newer = [
      'DEFAULT 0x7fffffffffffffff',
      'DEFAULT 0xffffffff',
      'DEFAULT 0x80000000',
      'INTEGER DEFAULT 0xffffffffff',
      'DEFAULT -0xffffffff',
      'DEFAULT -0x8000000000000000',
      'TEXT DEFAULT 0xffffffff',
      'TEXT DEFAULT -0x7fffffffffffffff',
      'TEXT DEFAULT TRUE',
      'TEXT DEFAULT FALSE',
      'DEFAULT 1e18',
      'DEFAULT -0.0',
    ];
    const { db, dump } = writeSqlite([
      [
        'script',
        'CREATE TABLE agreed(id INTEGER PRIMARY KEY, x); INSERT INTO agreed(x) VALUES (1), (2); CREATE TABLE newer(id INTEGER PRIMARY KEY, x); INSERT INTO newer(x) VALUES (1);',
      ],
      ...Object.entries({ agreed, newer }).flatMap(([table, defaults]) =>
        defaults.map((d, i): WriteStep => ['execute', `ALTER TABLE ${table} ADD COLUMN c${i} ${d}`]),
      ),
      ['commit'],
      ['dump'],
    ]);
    const file = new SqliteFile(bytesSource(db));
    assert.equal(dump.agreed.columns.length, agreed.length + 2);
    assertMatchesPython(file, { agreed: dump.agreed });
    await assertMatchesSqlJs(db, file);
    const row = file.rows('agreed').next().value;
    assert.equal(row?.get(`c${agreed.indexOf('INTEGER DEFAULT 1e18')}`), 10n ** 18n, 'an integer beyond 2^53 is a bigint');
    assert.equal(row?.get(`c${agreed.indexOf('DEFAULT -9223372036854775808')}`), -(2n ** 63n));
    assert.equal(row?.get(`c${agreed.indexOf('REAL DEFAULT 9223372036854775807')}`), 2 ** 63, 'a REAL column reads a real');
    assert.ok(Object.is(row?.get(`c${agreed.indexOf('INTEGER DEFAULT -0.0')}`), 0), 'an integer zero, not -0');
  });

  it('deleted rows, a freelist, auto_vacuum FULL and INCREMENTAL (pointer-map pages)', async () => {
    for (const vacuum of ['NONE', 'FULL', 'INCREMENTAL']) {
      const { db, dump } = writeSqlite([
        ['execute', 'PRAGMA page_size=1024'],
        ['execute', `PRAGMA auto_vacuum=${vacuum}`],
        ['script', MIXED_TABLE],
        [
          'script',
          `
DELETE FROM t WHERE id % 3 = 0 OR id BETWEEN 1000 AND 1500;
CREATE TABLE u(k TEXT PRIMARY KEY, v);
INSERT INTO u SELECT 'k' || id, a FROM t WHERE id % 2 = 0;
DELETE FROM t WHERE id % 97 = 0;
`,
        ],
        ...(vacuum === 'INCREMENTAL' ? [['execute', 'PRAGMA incremental_vacuum(20)'] satisfies WriteStep] : []),
        ['commit'],
        ['dump'],
      ]);
      const file = new SqliteFile(bytesSource(db));
      assert.ok(new DataView(db.buffer, db.byteOffset).getUint32(36) > 0 || vacuum === 'FULL', `${vacuum}: the file has free pages`);
      assertMatchesPython(file, dump);
      await assertMatchesSqlJs(db, file);
    }
  });

  it('schema syntax: quoted names, comments, constraints, rowid aliases and non-aliases, generated columns, CREATE TABLE AS', async () => {
    const { db, dump } = writeSqlite([
      [
        'script',
        `
CREATE TABLE "odd ""name"" table" ( -- a comment, with a comma
  "my col" TEXT COLLATE NOCASE, [br col] INT CHECK ([br col] > 0 OR CAST([br col] AS TEXT) = 'x'), \`bt\` VARCHAR(10) DEFAULT 'v,(' NOT NULL,
  /* block, comment */ plain
);
INSERT INTO "odd ""name"" table" VALUES ('a', 5, 'b', 1), ('c', 6, 'd', NULL);
CREATE TABLE alias(id integer primary key autoincrement, v);
INSERT INTO alias(id, v) VALUES (10, 'ten'), (-5, 'minus five'), (9007199254740993, 'big');
CREATE TABLE desc_pk(id INTEGER PRIMARY KEY DESC, v);
INSERT INTO desc_pk VALUES (3, 'three'), (1, 'one');
CREATE TABLE table_pk(id INTEGER, v, PRIMARY KEY(id DESC));
INSERT INTO table_pk VALUES (7, 'seven'), (2, 'two');
CREATE TABLE int_pk(id INT PRIMARY KEY, v);
INSERT INTO int_pk VALUES (4, 'four');
CREATE TABLE two_pk(a INTEGER, b INTEGER, v, PRIMARY KEY(a, b));
INSERT INTO two_pk VALUES (1, 2, 'x');
CREATE TABLE parent(id INTEGER PRIMARY KEY);
CREATE TABLE fk(p INTEGER REFERENCES parent(id) ON DELETE SET DEFAULT, q DEFAULT 'qq', CONSTRAINT c UNIQUE (p, q));
INSERT INTO fk(p) VALUES (1);
CREATE TABLE gen(a INTEGER, b INTEGER GENERATED ALWAYS AS (a * 2) STORED, c AS (a + 1) VIRTUAL, d TEXT);
INSERT INTO gen(a, d) VALUES (1, 'one'), (5, 'five');
CREATE TABLE copy AS SELECT id AS "renamed id", a || '!' AS bang FROM (SELECT 1 AS id, 'x' AS a);
CREATE INDEX i1 ON alias(v);
CREATE VIEW vw AS SELECT * FROM alias;
`,
      ],
      ['commit'],
      ['dump'],
    ]);
    const file = new SqliteFile(bytesSource(db));
    assertMatchesPython(file, dump);
    await assertMatchesSqlJs(db, file);
    assert.deepEqual(file.columns('odd "name" table'), ['my col', 'br col', 'bt', 'plain']);
    assert.equal(file.table('alias')?.columns[0].rowidAlias, true);
    assert.equal(file.table('table_pk')?.columns[0].rowidAlias, true, 'PRIMARY KEY(id DESC) as a table constraint is an alias');
    assert.equal(file.table('desc_pk')?.columns[0].rowidAlias, false, 'INTEGER PRIMARY KEY DESC is not');
    assert.equal(file.table('int_pk')?.columns[0].rowidAlias, false, 'INT PRIMARY KEY is not');
    const gen = file.rows('gen').next().value;
    assert.equal(gen?.get('b'), 2);
    assert.equal(gen?.get('d'), 'one', 'a virtual generated column takes no place in the record');
    assert.equal(gen?.get('c'), null, 'a virtual generated column reads as null');
    assert.deepEqual(file.columns('gen'), ['a', 'b', 'd'], 'and is left out of columns()');
    assert.deepEqual(
      file.table('gen')?.columns.map((c) => c.generated),
      [false, 'stored', 'virtual', false],
    );
    assert.deepEqual(file.tables().sort(), [
      'alias',
      'copy',
      'desc_pk',
      'fk',
      'gen',
      'int_pk',
      'odd "name" table',
      'parent',
      'sqlite_sequence',
      'table_pk',
      'two_pk',
    ]);
  });

  it('virtual tables are named and refused with a clear message; a WITHOUT ROWID table reads', () => {
    const { db } = writeSqlite([
      [
        'script',
        "CREATE TABLE w(k TEXT PRIMARY KEY, v) WITHOUT ROWID; INSERT INTO w VALUES ('a', 1); CREATE VIRTUAL TABLE f USING fts5(body); INSERT INTO f VALUES ('hello');",
      ],
      ['commit'],
    ]);
    const file = new SqliteFile(bytesSource(db));
    assert.ok(file.tables().includes('w') && file.tables().includes('f'));
    const w = [];
    for (const r of file.rows('w')) w.push([r.get('k'), r.get('v')]);
    assert.deepEqual(w, [['a', 1]]);
    assert.throws(
      () => [...file.rows('f')],
      (e: Error) => e instanceof SqliteFormatError && /virtual table/.test(e.message),
    );
    assert.equal([...file.rows('f_data')].length > 0, true, "an FTS5 table's shadow tables are ordinary tables");
    assert.throws(() => file.rows('nope'), /no such table: nope/);
  });

  it('WAL mode: committed frames overlay the file (updates, deletes, a new table, a grown file); the uncommitted tail is ignored', async () => {
    const { db, wal, dump } = writeSqlite(
      [
        ['execute', 'PRAGMA page_size=1024'],
        ['execute', 'PRAGMA journal_mode=WAL'],
        ['execute', 'PRAGMA wal_autocheckpoint=0'],
        ['script', MIXED_TABLE],
        ['execute', 'PRAGMA wal_checkpoint(TRUNCATE)'],
        [
          'script',
          `
BEGIN; UPDATE t SET a = 'updated ' || id WHERE id % 11 = 0; DELETE FROM t WHERE id % 13 = 0; COMMIT;
BEGIN; CREATE TABLE later(x TEXT); INSERT INTO later SELECT hex(randomblob(3000)) FROM t WHERE id < 200; COMMIT;
`,
        ],
        ['execute', 'PRAGMA cache_size=4'],
        ['execute', 'BEGIN'],
        ['execute', "INSERT INTO t(a) SELECT 'uncommitted ' || hex(randomblob(2000)) FROM t WHERE id < 400"],
        ['execute', "UPDATE t SET a = 'uncommitted' WHERE id < 100"],
        ['copy'],
        ['dump-fresh'],
        ['execute', 'ROLLBACK'],
      ],
      { autocommit: true },
    );
    assert.ok(wal && wal.length > 100_000, 'the open transaction spilled frames');
    const file = new SqliteFile(bytesSource(db), { wal });
    assert.ok(
      file.walWarnings.some((w) => /after the last commit/.test(w)),
      file.walWarnings.join('; '),
    );
    assert.ok(file.pageCount * file.pageSize > db.length, 'the committed database is larger than the file');
    assert.ok(assertMatchesPython(file, dump) > 10_000);
    const folded = applyWal(db, wal);
    await assertMatchesSqlJs(folded.bytes, file);
    assert.throws(() => [...new SqliteFile(bytesSource(db)).rows('later')], /no such table: later/, 'without the WAL the new table does not exist');
  });
});

describe('page reader vs sql.js', () => {
  const columnType = fc.constantFrom('', 'INTEGER', 'INT', 'TEXT', 'REAL', 'BLOB', 'NUMERIC', 'VARCHAR(10)', 'DOUBLE PRECISION');
  const value = fc.oneof(
    { weight: 2, arbitrary: fc.constant(null) },
    { weight: 3, arbitrary: fc.integer({ min: -300, max: 300 }) },
    { weight: 2, arbitrary: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }) },
    { weight: 2, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
    { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 30_000 })).map(([s, n]) => s.repeat(n)),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 30 }) },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 70_000 }).map((n) => new Uint8Array(n).map((_, i) => (i * 31) & 255)) },
  );
  const literal = fc.oneof(fc.constant('NULL'), fc.integer({ min: -50, max: 50 }).map(String), fc.constantFrom("'txt'", '1.25', "'7'", "x'beef'", 'FALSE'));
  const caseArb = fc.record({
    pageSize: fc.constantFrom(512, 1024, 4096, 65536),
    encoding: fc.constantFrom('UTF-8', 'UTF-16le', 'UTF-16be'),
    types: fc.array(columnType, { minLength: 1, maxLength: 6 }),
    rowidAlias: fc.boolean(),
    rows: fc.array(fc.array(value, { minLength: 6, maxLength: 6 }), { maxLength: 60 }),
    deletes: fc.array(fc.nat(80), { maxLength: 10 }),
    added: fc.array(fc.tuple(columnType, fc.option(literal, { nil: undefined })), { maxLength: 3 }),
    moreRows: fc.array(fc.array(value, { minLength: 9, maxLength: 9 }), { maxLength: 10 }),
  });

  it('random tables, rows, deletes and added columns read the same (300 databases)', async () => {
    const values = await matchesSqlJsForAll(
      caseArb,
      (db, g) => {
        const cols = g.types.map((t, i) => `c${i} ${i === 0 && g.rowidAlias ? 'INTEGER PRIMARY KEY' : t}`);
        db.run(`CREATE TABLE r(${cols.join(', ')})`);
        const insert = (row: unknown[], n: number): void => {
          const params: unknown[] = [];
          const vals = row.slice(0, n).map((v, i) => (i === 0 && g.rowidAlias ? 'NULL' : sqlJsBind(v, params)));
          db.run(`INSERT INTO r VALUES (${vals.join(', ')})`, params as never);
        };
        for (const row of g.rows) insert(row, g.types.length);
        for (const d of g.deletes) db.run(`DELETE FROM r WHERE rowid = ${d}`);
        g.added.forEach(([type, dflt], i) => db.run(`ALTER TABLE r ADD COLUMN a${i} ${type}${dflt === undefined ? '' : ` DEFAULT ${dflt}`}`));
        for (const row of g.moreRows) insert(row, g.types.length + g.added.length);
      },
      { numRuns: 300, seed: 20260918 },
    );
    assert.ok(values > 10_000, `${values} values compared`);
  });
});

describe('reading large tables without holding them', () => {
  const { db } = writeSqlite([
    ['execute', 'PRAGMA page_size=4096'],
    [
      'script',
      "CREATE TABLE big(id INTEGER PRIMARY KEY, sid TEXT, content TEXT); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400) INSERT INTO big(sid, content) SELECT 's' || (i % 20), hex(randomblob(25000)) FROM n;",
    ],
    ['commit'],
  ]);
  const counting = (inner: ByteSource): ByteSource & { reads: number[] } => {
    const reads: number[] = [];
    return {
      size: inner.size,
      reads,
      read: (offset, length) => {
        reads.push(offset);
        return inner.read(offset, length);
      },
      holds: (offset, bytes) => {
        reads.push(offset);
        return inner.holds(offset, bytes);
      },
    };
  };

  it('a full scan reads block by block, not page by page', () => {
    const source = counting(bytesSource(db));
    let rows = 0;
    for (const r of new SqliteFile(source).rows('big')) {
      if ((r.get('content') as string).length === 50_000) rows++;
    }
    assert.equal(rows, 400);
    assert.ok(db.length > 16 << 20, `${db.length} bytes`);
    assert.ok(source.reads.length <= Math.ceil(db.length / (1 << 20)) + 3, `${source.reads.length} reads for ${db.length} bytes`);
  });

  it('testing one column does not read the overflow pages of another', () => {
    const source = counting(bytesSource(db));
    const file = new SqliteFile(source, { blockSize: 4096, cacheBlocks: 2 });
    const sids = new Set<string>();
    let kept = 0;
    for (const r of file.rows('big')) {
      sids.add(r.get('sid') as string);
      if (r.get('sid') === 's7') kept += (r.get('content') as string).length;
    }
    assert.equal(sids.size, 20);
    assert.equal(kept, 20 * 50_000);
    const pages = new Set(source.reads).size;
    // 400 rows of ~50 KB are ~5,000 overflow pages; only the 20 rows of s7 are followed.
    assert.ok(pages < 400, `${pages} distinct pages read`);
  });
});

describe('damaged files end in a SqliteFormatError, never a hang or another error', () => {
  const { db } = writeSqlite([['execute', 'PRAGMA page_size=512'], ['script', MIXED_TABLE.replace('i < 3000', 'i < 600')], ['commit']]);

  const readEverything = (bytes: Uint8Array): number => {
    const file = new SqliteFile(bytesSource(bytes));
    let values = 0;
    for (const table of file.tables()) {
      const cols = file.columns(table);
      for (const r of file.rows(table))
        for (const c of cols) {
          r.get(c);
          values++;
        }
    }
    return values;
  };
  const failsCleanly = (bytes: Uint8Array, what: string): string | null => {
    try {
      readEverything(bytes);
      return null;
    } catch (e) {
      if (!(e instanceof SqliteFormatError)) assert.fail(`${what}: ${(e as Error).stack}`);
      return e.message;
    }
  };

  it('the intact file reads', () => {
    assert.ok(readEverything(db) > 3000);
  });

  it('truncated at 64 points: the header or a missing page is named', () => {
    for (let k = 0; k < 64; k++) {
      const cut = Math.floor((db.length * k) / 64);
      const message = failsCleanly(db.subarray(0, cut), `cut at ${cut}`);
      assert.ok(message, `cut at ${cut} of ${db.length} must fail`);
      assert.match(message, /not a database|beyond the end of the file|does not exist/, `cut at ${cut}`);
    }
  });

  it('a b-tree cycle, a page number out of range, a page of the wrong type', () => {
    const file = new SqliteFile(bytesSource(db));
    const root = file.table('t')?.rootPage as number;
    const rootAt = (root - 1) * 512;
    assert.equal(db[rootAt], 0x05, 'the root is an interior page');
    const cases: [string, (b: Uint8Array) => void, RegExp][] = [
      ['right child -> root', (b) => new DataView(b.buffer, b.byteOffset).setUint32(rootAt + 8, root), /reached twice/],
      ['right child -> 0', (b) => new DataView(b.buffer, b.byteOffset).setUint32(rootAt + 8, 0), /page 0 does not exist/],
      ['right child -> beyond the file', (b) => new DataView(b.buffer, b.byteOffset).setUint32(rootAt + 8, 99999), /page 99999 does not exist/],
      [
        'root is an index page',
        (b) => {
          b[rootAt] = 0x0a;
        },
        /type 0x0a, not a table b-tree page/,
      ],
      ['too many cells', (b) => new DataView(b.buffer, b.byteOffset).setUint16(rootAt + 3, 60000), /more than fit/],
      ['page size 3', (b) => new DataView(b.buffer, b.byteOffset).setUint16(16, 3), /not a database/],
      [
        'magic',
        (b) => {
          b[0] = 0x73;
        },
        /not a database/,
      ],
      ['text encoding 9', (b) => new DataView(b.buffer, b.byteOffset).setUint32(56, 9), /text encoding/],
    ];
    for (const [what, damage, expected] of cases) {
      const bytes = db.slice();
      damage(bytes);
      assert.match(failsCleanly(bytes, what) ?? 'read without error', expected, what);
    }
  });

  it('an overflow chain pointing at itself or at page 0 ends', () => {
    const file = new SqliteFile(bytesSource(db));
    const bytes = db.slice();
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    let damaged = 0;
    // Every page that is not a b-tree page and whose next pointer is a valid page: point it at itself, or end it.
    for (let n = 2; n <= file.pageCount; n++) {
      const at = (n - 1) * 512;
      if ([0x02, 0x05, 0x0a, 0x0d].includes(bytes[at])) continue;
      const next = view.getUint32(at);
      if (next > 1 && next <= file.pageCount) {
        view.setUint32(at, damaged % 2 ? 0 : n);
        damaged++;
      }
    }
    assert.ok(damaged > 10);
    const message = failsCleanly(bytes, 'overflow self-links');
    assert.ok(message === null || /overflow chain|malformed/.test(message), message ?? '');
  });

  it('random byte damage anywhere, and in page headers and cell pointers (1,000 files)', () => {
    const pages = db.length / 512;
    const anywhere = fc.tuple(fc.nat(db.length - 1), fc.nat(255));
    const structure = fc.tuple(fc.nat(pages - 1), fc.nat(40), fc.nat(255)).map(([p, o, v]): [number, number] => [p * 512 + (p === 0 ? 100 : 0) + o, v]);
    fc.assert(
      fc.property(fc.array(fc.oneof(anywhere, structure), { minLength: 1, maxLength: 12 }), (edits) => {
        const bytes = db.slice();
        for (const [at, v] of edits) bytes[at] = v;
        failsCleanly(bytes, JSON.stringify(edits));
      }),
      { numRuns: 1000, seed: 7 },
    );
  });
});
