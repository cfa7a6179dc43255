// Generated columns: STORED ones are in the record and read like any column; VIRTUAL ones are not
// in the record, are left out of columns() and read as null (their expressions are not evaluated).
// Files written by real SQLite (python3): every other column must read what SQLite reads.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bytesSource } from '../../src/transcripts/byteSource';
import { SqliteFile } from '../../src/transcripts/sqliteFile';
import { assertMatchesPython, assertMatchesSqlJs, writeSqlite } from './sqliteOracle';

describe('generated columns', () => {
  it('a Hermes messages table with a VIRTUAL display_kind and a STORED column reads every row; display_kind is absent', async () => {
    const { db, dump } = writeSqlite([
      [
        'script',
        `
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT,
  display_metadata TEXT,
  display_kind TEXT GENERATED ALWAYS AS (json_extract(display_metadata, '$.kind')) VIRTUAL,
  content_length INTEGER GENERATED ALWAYS AS (length(content)) STORED,
  timestamp REAL NOT NULL, active INTEGER DEFAULT 1);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1500)
INSERT INTO messages (session_id, role, content, display_metadata, timestamp)
  SELECT 's' || (i % 3), CASE i % 2 WHEN 0 THEN 'user' ELSE 'assistant' END,
    CASE WHEN i % 100 = 0 THEN hex(randomblob(6000)) ELSE 'turn ' || i END, json_object('kind', 'k' || (i % 4)), i FROM n;
`,
      ],
      ['commit'],
      ['expect', 'SELECT display_kind FROM messages WHERE id = 1', [['k1']]],
      ['dump'],
    ]);
    const file = new SqliteFile(bytesSource(db));
    assert.deepEqual(file.columns('messages'), ['id', 'session_id', 'role', 'content', 'display_metadata', 'content_length', 'timestamp', 'active']);
    assert.deepEqual(dump.messages.columns, file.columns('messages'), 'SQLite lists the same stored columns (table_xinfo, hidden != 2)');
    assert.equal(file.table('messages')?.columns.find((c) => c.name === 'display_kind')?.generated, 'virtual');
    assert.equal(file.table('messages')?.columns.find((c) => c.name === 'content_length')?.generated, 'stored');
    let rows = 0;
    for (const row of file.rows('messages')) {
      assert.equal(row.get('display_kind'), null);
      assert.equal(row.get('content_length'), (row.get('content') as string).length);
      rows++;
    }
    assert.equal(rows, 1500);
    assertMatchesPython(file, dump);
    await assertMatchesSqlJs(db, file);
  });

  it('every way to write one: AS (...) alone, GENERATED ALWAYS, VIRTUAL, STORED, neither, constraints around it, added by ALTER TABLE', async () => {
    const { db, dump } = writeSqlite([
      [
        'script',
        `
CREATE TABLE g(
  a INTEGER,
  v1 AS (a + 1),
  s1 INTEGER AS (a * 2) STORED,
  v2 TEXT GENERATED ALWAYS AS (CAST(a AS TEXT) || ', (') VIRTUAL,
  b TEXT CHECK (CAST(b AS TEXT) <> 'stored') DEFAULT 'bee',
  s2 TEXT NOT NULL GENERATED ALWAYS AS (b || '!') STORED UNIQUE,
  v3 INTEGER CONSTRAINT named GENERATED ALWAYS AS (a - 1) COLLATE BINARY,
  "stored" TEXT,
  s3 REAL AS (coalesce(a, 0) / 2.0) STORED NOT NULL,
  [virtual] INTEGER
);
INSERT INTO g (a, b, "stored", [virtual]) VALUES (1, 'one', 'x', 10), (2, 'two', 'y', 20), (NULL, 'nul', NULL, NULL);
ALTER TABLE g ADD COLUMN v4 TEXT AS (upper(b)) VIRTUAL;
ALTER TABLE g ADD COLUMN after INTEGER DEFAULT 99;
INSERT INTO g (a, b, "stored", [virtual], after) VALUES (3, 'three', 'z', 30, 7);
`,
      ],
      ['commit'],
      ['dump'],
    ]);
    const file = new SqliteFile(bytesSource(db));
    assert.deepEqual(
      file.table('g')?.columns.map((c) => [c.name, c.generated]),
      [
        ['a', false],
        ['v1', 'virtual'],
        ['s1', 'stored'],
        ['v2', 'virtual'],
        ['b', false],
        ['s2', 'stored'],
        ['v3', 'virtual'],
        ['stored', false],
        ['s3', 'stored'],
        ['virtual', false],
        ['v4', 'virtual'],
        ['after', false],
      ],
    );
    assert.deepEqual(file.columns('g'), dump.g.columns);
    assert.deepEqual(file.columns('g'), ['a', 's1', 'b', 's2', 'stored', 's3', 'virtual', 'after']);
    assert.equal(dump.g.rows.length, 4);
    assertMatchesPython(file, dump);
    await assertMatchesSqlJs(db, file);
  });
});
