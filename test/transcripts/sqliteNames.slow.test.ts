// Table and column names as SQLite compares them: ASCII letters fold, nothing else does, and a
// quoted name ("x", [x], `x`, 'x') is the bare name. Files written by real SQLite (python3); every
// lookup in another case must read what SQLite reads.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bytesSource } from '../../src/transcripts/byteSource';
import { foldName, SqliteFile } from '../../src/transcripts/sqliteFile';
import { assertMatchesPython, assertMatchesSqlJs, sameAsPython, writeSqlite, type Dump } from './sqliteOracle';

const swapCase = (s: string): string => s.replace(/[A-Za-z]/g, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));

/** The dump read again with every table and column name in other cases. */
function assertMatchesInAnyCase(file: SqliteFile, dump: Dump): void {
  for (const [table, { columns, rows }] of Object.entries(dump)) {
    for (const name of [swapCase(table), table.toUpperCase(), table.toLowerCase()]) {
      assert.deepEqual(
        file.columns(name).filter((c) => columns.includes(c)),
        columns,
        `${name}: columns as stored`,
      );
      let i = 0;
      for (const row of file.rows(name)) {
        columns.forEach((c, k) => {
          for (const col of [swapCase(c), c.toUpperCase(), c.toLowerCase()]) sameAsPython(row.get(col), rows[i][k], `${name} row ${i} column ${col}`);
        });
        i++;
      }
      assert.equal(i, rows.length, `${name}: row count`);
    }
  }
}

describe('names compared as SQLite compares them', () => {
  it('a Hermes store with upper- and mixed-case table and column names reads as the lower-case one', async () => {
    const { db, dump } = writeSqlite([
      [
        'script',
        `
CREATE TABLE SESSIONS (Id TEXT PRIMARY KEY, Started_At REAL NOT NULL, PARENT_SESSION_ID TEXT, End_Reason TEXT);
CREATE TABLE Messages (ID INTEGER, Session_Id TEXT NOT NULL, ROLE TEXT NOT NULL, Content TEXT, Active INTEGER DEFAULT 1, PRIMARY KEY ("id"));
INSERT INTO SESSIONS VALUES ('s1', 1.5, NULL, 'compression'), ('s2', 2.5, 's1', NULL);
INSERT INTO Messages (id, session_id, role, content) VALUES (7, 's1', 'user', 'hi'), (9, 's1', 'assistant', 'hello'), (12, 's2', 'user', 'again');
ALTER TABLE MESSAGES ADD COLUMN Display_Kind TEXT DEFAULT 'plain';
`,
      ],
      ['commit'],
      ['dump'],
    ]);
    const file = new SqliteFile(bytesSource(db));
    assert.deepEqual(file.tables(), ['SESSIONS', 'Messages'], 'tables() keeps the stored names');
    assert.deepEqual(file.columns('messages'), ['ID', 'Session_Id', 'ROLE', 'Content', 'Active', 'Display_Kind']);
    assert.equal(file.table('MESSAGES')?.columns[0].rowidAlias, true, 'PRIMARY KEY("id") names column ID: the rowid alias');
    assert.equal([...file.rows('messages')].length, 3);
    assert.deepEqual(
      dump.Messages.rows.map((r) => r[0]),
      [
        ['i', '7'],
        ['i', '9'],
        ['i', '12'],
      ],
    );
    assertMatchesPython(file, dump);
    assertMatchesInAnyCase(file, dump);
    await assertMatchesSqlJs(db, file);
  });

  it('quoted names ("x", [x], `x`, \'x\', doubled quotes) are the bare names; keywords as quoted names are columns', async () => {
    const { db, dump } = writeSqlite([
      [
        'script',
        `
CREATE TABLE "Quoted" ("role" TEXT, [Session_Id] TEXT, \`content\` TEXT, 'Timestamp' REAL, "say ""hi""" TEXT,
  "primary" INTEGER, [check] TEXT, "constraint", [a b], "UNIQUE" DEFAULT 'u');
INSERT INTO "Quoted" VALUES ('user', 's1', 'x', 1.25, 'q', 1, 'c', NULL, 'ab', 'set');
CREATE TABLE [Bracketed]([Id] INTEGER PRIMARY KEY, "V");
INSERT INTO Bracketed VALUES (3, 'three');
`,
      ],
      ['commit'],
      ['dump'],
    ]);
    const file = new SqliteFile(bytesSource(db));
    assert.deepEqual(file.columns('quoted'), ['role', 'Session_Id', 'content', 'Timestamp', 'say "hi"', 'primary', 'check', 'constraint', 'a b', 'UNIQUE']);
    assert.equal(file.table('BRACKETED')?.columns[0].rowidAlias, true);
    assertMatchesPython(file, dump);
    assertMatchesInAnyCase(file, dump);
    await assertMatchesSqlJs(db, file);
  });

  it('only ASCII letters fold: Ü and ü are two tables, É and é two columns, the Kelvin sign is no k', () => {
    const { db, dump } = writeSqlite([
      [
        'script',
        `
CREATE TABLE "Ü"(x); INSERT INTO "Ü" VALUES ('upper');
CREATE TABLE "ü"(x); INSERT INTO "ü" VALUES ('lower');
CREATE TABLE accents("É", "é", "\u212a");
INSERT INTO accents VALUES ('upper', 'lower', 'kelvin');
`,
      ],
      ['commit'],
      // SQLite does not match k to the Kelvin sign either.
      ['expect-error', 'SELECT k FROM accents', 'no such column'],
      ['dump'],
    ]);
    const file = new SqliteFile(bytesSource(db));
    assert.equal(file.rows('Ü').next().value?.get('X'), 'upper');
    assert.equal(file.rows('ü').next().value?.get('X'), 'lower');
    const row = file.rows('ACCENTS').next().value;
    assert.equal(row?.get('É'), 'upper');
    assert.equal(row?.get('é'), 'lower');
    assert.equal(row?.get('\u212a'), 'kelvin');
    assert.throws(() => row?.get('k'), /no such column: k/);
    assert.throws(() => row?.get('K'), /no such column: K/);
    assert.equal(foldName('Session_Id\u212aÉ'), 'session_id\u212aÉ');
    assertMatchesPython(file, dump);
  });
});
