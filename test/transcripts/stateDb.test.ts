// The state.db reader's logic on two row sources (sql.js and the page reader), the session list
// and one-lineage loads of a file above the read-whole limit.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import initSqlJs, { type Database, type SqlJsStatic } from 'sql.js';
import { readHermesStateDb, readStateDbRows } from '../../src/transcripts/hermesStateDb';
import type { RowSource } from '../../src/transcripts/stateDbValues';
import { loadTranscript, READ_WHOLE_LIMIT, UnknownSession } from '../../src/transcripts/load';
import type { Transcript } from '../../src/shared/model/transcript';
import { bytesSource } from '../../src/transcripts/byteSource';
import type { SqlValue } from '../../src/transcripts/sqliteFile';
import { applyWal } from '../support/walImage';
import { example, ROOT, tempDirsRemovedAfter } from '../cli/support';
import { sqliteExec } from '../support/sqliteExec';
import { LINEAGE_SESSIONS, writeLineageDb } from '../support/hermesDb';

const sqlJs: Promise<SqlJsStatic> = initSqlJs();

const scratch = tempDirsRemovedAfter();

/** The same rows through sql.js: the oracle for the page reader under the Hermes logic. */
function sqlJsSource(db: Database): RowSource {
  const values = (sql: string): unknown[][] => db.exec(sql)[0]?.values ?? [];
  return {
    tables: () => values("SELECT name FROM sqlite_master WHERE type = 'table'").map((r) => String(r[0])),
    columns: (table) => values(`PRAGMA table_info("${table}")`).map((r) => String(r[1])),
    *rows(table) {
      const stmt = db.prepare(`SELECT * FROM "${table}" ORDER BY rowid`);
      try {
        const names = stmt.getColumnNames();
        while (stmt.step()) {
          const row = stmt.get();
          yield {
            get(column: string): SqlValue {
              const i = names.indexOf(column);
              if (i < 0) throw new Error(`no such column: ${column}`);
              return row[i];
            },
          };
        }
      } finally {
        stmt.free();
      }
    },
  };
}

async function sameThroughBothSources(path: string, bytes: Uint8Array, wal?: Uint8Array): Promise<Transcript> {
  const mine = readHermesStateDb(path, bytesSource(bytes), { wal });
  const db = new (await sqlJs).Database(wal ? applyWal(bytes, wal).bytes : bytes);
  try {
    const theirs = readStateDbRows(
      path,
      sqlJsSource(db),
      mine.findings.filter((f) => f.message.startsWith(`${path}-wal`)),
      {},
    );
    assert.deepEqual(mine, theirs, path);
  } finally {
    db.close();
  }
  return mine;
}

describe('the state.db logic reads the same transcript from sql.js rows and from the page reader', () => {
  it('every bundled and bad-corpus state.db', async () => {
    const files = [
      ...['rotation', 'rotation-prompt-changed', 'in-place'].map((e) => example(`${e}/state.db`)),
      ...readdirSync(join(ROOT, 'test/fixtures/bad'))
        .filter((n) => n.endsWith('.db') && n !== 'state_truncated.db')
        .map((n) => join(ROOT, 'test/fixtures/bad', n)),
    ];
    let rows = 0;
    for (const f of files) {
      const t = await sameThroughBothSources(f, readFileSync(f));
      rows += t.sessions.reduce((n, s) => n + s.generations.reduce((m, g) => m + g.rows.length, 0), 0);
    }
    assert.ok(rows > 100, `${rows} rows`);
  });

  it('random Hermes databases (200): sessions, lineages, rows of every kind', async () => {
    const SQL = await sqlJs;
    const text = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 30 }),
      fc.constantFrom('\u0000json:[{"type":"text","text":"hi"}]', '\u0000json:{bad', 'x'.repeat(5000)),
    );
    const caseArb = fc.record({
      sessions: fc.array(
        fc.record({
          parent: fc.option(fc.nat(5), { nil: undefined }),
          end: fc.constantFrom('compression', 'branched', null),
          started: fc.integer({ min: 0, max: 3 }),
        }),
        { minLength: 1, maxLength: 6 },
      ),
      rows: fc.array(
        fc.record({
          session: fc.nat(7),
          role: fc.constantFrom('user', 'assistant', 'tool', 'wizard'),
          content: fc.option(text, { nil: null }),
          active: fc.constantFrom(1, 1, 0),
          summary: fc.boolean(),
          meta: fc.option(fc.constantFrom('{"a":1}', '{bad'), { nil: null }),
        }),
        { maxLength: 25 },
      ),
      pageSize: fc.constantFrom(512, 4096),
    });
    await fc.assert(
      fc.asyncProperty(caseArb, async (g) => {
        const db = new SQL.Database();
        try {
          db.run(`PRAGMA page_size = ${g.pageSize}`);
          db.run(`CREATE TABLE sessions (id TEXT PRIMARY KEY, system_prompt TEXT, parent_session_id TEXT, started_at REAL, end_reason TEXT, title TEXT, message_count INTEGER);
          CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT, role TEXT, content TEXT, timestamp REAL, active INTEGER DEFAULT 1,
            _compressed_summary INTEGER DEFAULT 0, display_metadata TEXT, tool_call_id TEXT)`);
          g.sessions.forEach((s, i) =>
            db.run('INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?)', [
              `s${i}`,
              'SYS',
              s.parent === undefined ? null : `s${s.parent}`,
              s.started,
              s.end,
              `title ${i}`,
              i,
            ]),
          );
          g.rows.forEach((r, i) =>
            db.run('INSERT INTO messages (session_id, role, content, timestamp, active, _compressed_summary, display_metadata) VALUES (?, ?, ?, ?, ?, ?, ?)', [
              `s${r.session}`,
              r.role,
              r.content,
              i,
              r.active,
              r.summary ? 1 : 0,
              r.meta,
            ]),
          );
          await sameThroughBothSources('state.db', db.export());
        } finally {
          db.close();
        }
      }),
      { numRuns: 200, seed: 5 },
    );
  });

  it('a WAL with committed rows', async () => {
    const dir = scratch();
    const live = join(dir, 'live.db');
    writeFileSync(live, readFileSync(example('rotation/state.db')));
    sqliteExec(
      live,
      [`INSERT INTO messages(session_id, role, content, timestamp, active, compacted) SELECT id, 'user', 'from the WAL', 1, 1, 0 FROM sessions;`],
      { wal: true, copy: join(dir, 'copy') },
    );
    const t = await sameThroughBothSources(join(dir, 'copy.db'), readFileSync(join(dir, 'copy.db')), readFileSync(join(dir, 'copy.db-wal')));
    assert.ok(t.sessions.every((s) => s.generations.at(-1)?.rows.at(-1)?.content === 'from the WAL'));
  });
});

function lineageDb(): { dir: string; db: string } {
  const dir = scratch();
  const db = join(dir, 'state.db');
  writeLineageDb(db);
  return { dir, db };
}

function snapshot(dir: string): string {
  return JSON.stringify(
    readdirSync(dir)
      .sort()
      .map((n) => [n, statSync(join(dir, n)).mtimeMs, readFileSync(join(dir, n)).toString('base64').length]),
  );
}

describe('a state.db above the read-whole limit', () => {
  it('has a 256 MB default limit', () => {
    assert.equal(READ_WHOLE_LIMIT, 256 * 1024 * 1024);
  });

  it('lists every session without rows, with the catalogue and one clear info finding', async () => {
    const { dir, db } = lineageDb();
    const before = snapshot(dir);
    const t = await loadTranscript(db, { readWholeLimit: 1024 });
    assert.deepEqual(
      t.sessions.map((s) => s.id),
      ['a', 'b', 'c', 'd', 'e', 'f'],
    );
    assert.ok(t.sessions.every((s) => s.generations.every((g) => g.rows.length === 0)));
    // Nothing is replayed from a listing: its prompts (by hash and inline) are left for the lineage read.
    assert.deepEqual(
      t.sessions.map((s) => s.systemPrompt),
      [null, null, null, null, null, null],
    );
    for (const [id, prompt] of [
      ['a', 'You are Hermes, by hash.'],
      ['d', 'You are Hermes (d).'],
    ]) {
      const lineage = await loadTranscript(db, { readWholeLimit: 1024, session: id });
      assert.equal(lineage.sessions.find((s) => s.id === id)?.systemPrompt, prompt);
    }
    // (source, model, ended_at and the fork marker: test/transcripts/sessionColumns.slow.test.ts)
    assert.deepEqual(
      t.catalog?.map(({ id, parentId, startedAt, endReason, messageCount, title }) => ({ id, parentId, startedAt, endReason, messageCount, title })),
      LINEAGE_SESSIONS.map((s) => ({
        id: s.id,
        parentId: s.parent ?? null,
        startedAt: s.startedAt,
        endReason: s.endReason ?? null,
        messageCount: 12,
        title: s.title ?? null,
      })),
    );
    const info = t.findings[0];
    assert.equal(info.severity, 'info');
    assert.match(info.message, /^state\.db is \d+ KB \(above the 1 KB read-whole limit\): 6 sessions listed; choose one to load \(CLI: --session ID\)$/);
    assert.equal(t.findings.length, 1);
    assert.equal(snapshot(dir), before, 'nothing written, no -wal, -shm or journal');
  });

  it('loads one lineage: its parent chain and its descendants, exactly as a whole read has them', async () => {
    const { dir, db } = lineageDb();
    const before = snapshot(dir);
    const whole = await loadTranscript(db);
    assert.equal(whole.sessions.length, 6);
    assert.equal(whole.catalog?.length, 6);
    for (const [session, lineage] of [
      ['b', ['a', 'b', 'c']],
      ['a', ['a', 'b', 'c']],
      ['c', ['a', 'b', 'c']],
      ['e', ['d', 'e']],
      ['d', ['d', 'e']],
      ['f', ['f']],
    ] as const) {
      for (const readWholeLimit of [1024, undefined]) {
        const t = await loadTranscript(db, { session, readWholeLimit });
        assert.deepEqual(
          t.sessions.map((s) => s.id),
          lineage,
          `${session} (${readWholeLimit ?? 'whole'})`,
        );
        assert.deepEqual(
          t.sessions,
          whole.sessions.filter((s) => (lineage as readonly string[]).includes(s.id)),
          `${session}: same rows, compactions and carried rows`,
        );
        assert.deepEqual(t.catalog, whole.catalog);
        assert.deepEqual(t.findings, []);
      }
    }
    assert.equal(snapshot(dir), before);
  });

  it('an unknown session is an UnknownSession error naming it', async () => {
    const { db } = lineageDb();
    for (const readWholeLimit of [1024, undefined]) {
      await assert.rejects(
        loadTranscript(db, { session: 'zzz', readWholeLimit }),
        (e: Error) => e instanceof UnknownSession && /no session "zzz" \(6 session\(s\): a, b, c, d, e, …\)/.test(e.message),
      );
    }
    await assert.rejects(loadTranscript(example('sidecars/session_20260918_101500_a1b2c3.json'), { session: 'zzz' }), UnknownSession);
  });

  it('reads committed WAL frames through the descriptor too', async () => {
    const { dir, db } = lineageDb();
    sqliteExec(
      db,
      [
        `INSERT INTO sessions (id, source, started_at) VALUES ('g', 'cli', 7);
INSERT INTO messages (session_id, role, content, timestamp) VALUES ('c', 'user', 'late question', 9999);`,
      ],
      { wal: true, copy: join(dir, 'copy') },
    );
    const listed = await loadTranscript(join(dir, 'copy.db'), { readWholeLimit: 1024 });
    assert.deepEqual(
      listed.catalog?.map((s) => s.id),
      ['a', 'b', 'c', 'd', 'e', 'f', 'g'],
    );
    const c = await loadTranscript(join(dir, 'copy.db'), { readWholeLimit: 1024, session: 'c' });
    assert.equal(c.sessions.at(-1)?.generations.at(-1)?.rows.at(-1)?.content, 'late question');
  });
});
