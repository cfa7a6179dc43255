// sessions.source, sessions.model, sessions.ended_at, the fork marker and session_model_usage as the
// readers expose them: on stores written as upstream writes them (test/support/hermes_store.py),
// compared with the store's own rows read by SQLite itself (python3's sqlite3), on schemas that lack
// the columns or the table (null / absent: not recorded), and from a session JSON snapshot.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { RecordedUsage, Transcript } from '../../src/shared/model/transcript';
import { loadTranscript } from '../../src/transcripts/load';
import { tempDirsRemovedAfter } from '../cli/support';
import { sqliteExec } from '../support/sqliteExec';
import { sqliteSelect } from '../support/sqliteSelect';
import { buildStore } from '../support/upstreamStores';

const scratchDir = tempDirsRemovedAfter();

/** The transcript of a state.db that real SQLite writes from `sql`. */
async function loadStore(sql: string): Promise<Transcript> {
  const db = join(scratchDir(), 'state.db');
  sqliteExec(db, [sql]);
  return loadTranscript(db);
}

interface StoredSession {
  id: string;
  source: string | null;
  model: string | null;
  endedAt: number | null;
  modelConfig: string | null;
  estimatedCostUsd: number | null;
}

/** The sessions and session_model_usage tables as SQLite reads them. */
function storeRows(db: string): { sessions: StoredSession[]; usage: (RecordedUsage & { sessionId: string })[] } {
  return sqliteSelect<ReturnType<typeof storeRows>>(db, {
    sessions: 'SELECT id, source, model, ended_at AS endedAt, model_config AS modelConfig, estimated_cost_usd AS estimatedCostUsd FROM sessions',
    usage:
      'SELECT session_id AS sessionId, model, billing_provider AS billingProvider, task, api_call_count AS apiCalls, input_tokens AS inputTokens, output_tokens AS outputTokens, cache_read_tokens AS cacheReadTokens, cache_write_tokens AS cacheWriteTokens FROM session_model_usage ORDER BY rowid',
  });
}

function checkAgainstStore(t: Transcript, db: string, listed: boolean): void {
  const rows = storeRows(db);
  assert.equal(t.sessions.length, rows.sessions.length);
  for (const want of rows.sessions) {
    const s = t.sessions.find((x) => x.id === want.id);
    assert.ok(s, want.id);
    assert.deepEqual([s.source, s.model, s.endedAt], [want.source, want.model, want.endedAt], want.id);
    assert.equal(s.recorded?.estimatedCostUsd ?? null, want.estimatedCostUsd, `${want.id}: estimated_cost_usd`);
    const c = t.catalog?.find((x) => x.id === want.id);
    assert.deepEqual([c?.source, c?.model, c?.endedAt], [want.source, want.model, want.endedAt], `${want.id} (catalogue)`);
    const cfg = want.modelConfig ? (JSON.parse(want.modelConfig) as Record<string, unknown>) : {};
    const fork = '_branched_from' in cfg ? 'branch' : '_delegate_from' in cfg ? 'delegate' : '_reset_from' in cfg ? 'reset' : undefined;
    assert.equal(c?.forkKind, fork, `${want.id}: the catalogue's fork marker`);
    assert.equal(s.forkKind, fork, want.id);
    const usage = rows.usage.filter((u) => u.sessionId === want.id).map(({ sessionId: _, ...u }) => u);
    assert.deepEqual(s.recorded?.usage, usage, `${want.id}: its session_model_usage rows${listed ? ' (listed only)' : ''}`);
  }
}

describe('sessions columns and session_model_usage', () => {
  for (const name of ['home', 'rotation-in-place', 'older', 'dumps']) {
    it(`${name}: source, model, ended_at, fork marker and usage rows are the store's own`, async () => {
      const store = buildStore(name);
      const t = await loadTranscript(store.stateDb);
      checkAgainstStore(t, store.stateDb, false);
      // The scenario's truth says the same (hermes_store.py reads it back from what it wrote).
      for (const want of store.truth.sessions) {
        const s = t.sessions.find((x) => x.id === want.id);
        assert.deepEqual([s?.source, s?.model, s?.endedAt, s?.recorded?.usage], [want.source, want.model, want.endedAt, want.usage], want.id);
      }
    });
  }

  it('home, listed only (too large to read whole): the catalogue and the usage rows are read with the list', async () => {
    const store = buildStore('home');
    const t = await loadTranscript(store.stateDb, { readWholeLimit: 1 });
    assert.equal(t.listedOnly, true);
    checkAgainstStore(t, store.stateDb, true);
    const rows = storeRows(store.stateDb);
    assert.ok(
      rows.usage.some((u) => u.task === 'compression'),
      'the store holds compaction summary calls',
    );
    assert.ok(rows.sessions.some((s) => s.endedAt !== null) && rows.sessions.some((s) => s.endedAt === null));
  });

  it('a schema without source, model, ended_at or session_model_usage reads; each is null or absent (not recorded)', async () => {
    const t = await loadStore(
      `CREATE TABLE sessions (id TEXT PRIMARY KEY, system_prompt TEXT, parent_session_id TEXT, started_at REAL, end_reason TEXT, api_call_count INTEGER);
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT, role TEXT, content TEXT, timestamp REAL);
INSERT INTO sessions VALUES ('s1', 'You are Hermes.', NULL, 1000.0, NULL, 1);
INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s1', 'user', 'q1', 1001), ('s1', 'assistant', 'a1', 1002);
`,
    );
    assert.deepEqual(
      t.findings.filter((f) => f.severity !== 'info'),
      [],
    );
    const [s] = t.sessions;
    assert.deepEqual([s.source, s.model, s.endedAt, s.forkKind, s.recorded], [null, null, null, undefined, { apiCalls: 1 }]);
    assert.deepEqual([t.catalog?.[0].source, t.catalog?.[0].model, t.catalog?.[0].endedAt], [null, null, null]);
  });

  it('stored values that are not what upstream writes are not read as values: NULL, a text ended_at, a usage row without a model', async () => {
    const t = await loadStore(
      `CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT, model TEXT, started_at REAL, ended_at REAL, end_reason TEXT);
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT, role TEXT, content TEXT, timestamp REAL);
CREATE TABLE session_model_usage (session_id TEXT, model TEXT, billing_provider TEXT, task TEXT, api_call_count INTEGER);
INSERT INTO sessions VALUES ('s1', NULL, 'm', 1000.0, 'yesterday', NULL), ('s2', 'cli', NULL, 2000.0, 2500, 'user_exit');
INSERT INTO session_model_usage VALUES ('s1', NULL, 'x', '', 1), ('s1', 'm', NULL, 'compression', 'two'), ('s2', 'n', 'p', '', 3);
`,
    );
    const [s1, s2] = t.sessions;
    assert.deepEqual([s1.source, s1.model, s1.endedAt], [null, 'm', null]);
    assert.deepEqual([s2.source, s2.model, s2.endedAt], ['cli', null, 2500]);
    const zero = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
    assert.deepEqual(s1.recorded?.usage, [{ model: 'm', billingProvider: '', task: 'compression', apiCalls: 0, ...zero }]);
    assert.deepEqual(s2.recorded?.usage, [{ model: 'n', billingProvider: 'p', task: '', apiCalls: 3, ...zero }]);
  });

  it("a session JSON snapshot: platform is the source, its model, session_start placed on the rows' clock, no end", async () => {
    const store = buildStore('plain');
    const snap = store.truth.snapshots[0];
    const path = store.path(snap.path);
    const doc = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    const [s] = (await loadTranscript(path)).sessions;
    assert.deepEqual([s.source, s.model, s.endedAt], [doc.platform, doc.model, null]);
    // The store's clock is UTC and session_start its local (UTC) time: the start is that instant.
    assert.equal(s.startedAt, Date.parse(`${doc.session_start as string}Z`) / 1000);
    const bare = join(scratchDir(), 'session_x.json');
    writeFileSync(bare, JSON.stringify({ session_id: 'x', messages: [{ role: 'user', content: 'hi' }] }));
    const [b] = (await loadTranscript(bare)).sessions;
    assert.deepEqual([b.source, b.model, b.startedAt, b.endedAt], [null, null, null, null]);
  });
});
