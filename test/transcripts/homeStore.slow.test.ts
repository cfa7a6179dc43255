// A whole Hermes home (issue 10 part 4): test/support/hermes_home.py writes a state.db of many
// sessions through hermes_store.py's reconstruction of upstream's write paths, on upstream's full
// schema (FTS5 external-content tables and their shadow tables, views, triggers, every index), and
// prints the ground truth. Every expectation here comes from that truth (who is whose parent, which
// sessions one compression chain holds, how many turns and compactions each had), never from what
// the inspector printed before. Needs dist/ (npm run build) for the CLI part.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { analyze } from '../../src/analysis/report';
import { sessionOverview } from '../../src/analysis/sessionOverview';
import type { OverviewLineage, SessionOverview } from '../../src/shared/overviewTypes';
import { createTokenCounter } from '../../src/analysis/tokenizer';
import { PROFILES } from '../../src/engine/profile';
import type { Transcript } from '../../src/shared/model/transcript';
import { loadTranscript } from '../../src/transcripts/load';
import { cli, tempDir } from '../cli/support';
import { PYTHON } from '../support/python';

const HOME_PY = resolve(__dirname, '../support/hermes_home.py');
const SESSIONS = 40;

interface TruthSession {
  id: string;
  parentId: string | null;
  source: string;
  model: string | null;
  kind: 'conversation' | 'compression' | 'branch' | 'delegate' | 'reset';
  lineageRoot: string;
  endReason: string | null;
  turns: number;
  requests: number;
  cacheBreaks: string[];
  compactions: number;
  rotations: number;
  inPlaceCompactions: number;
}

interface TruthLineage {
  id: string;
  sessions: string[];
  kind: TruthSession['kind'];
  forkedFrom: string | null;
  turns: number;
  compactions: number;
}

interface HomeTruth {
  sessions: TruthSession[];
  lineages: TruthLineage[];
  schema: { tables: string[]; indexes: string[]; triggers: string[]; views: string[]; virtualTables: string[]; shadowTables: string[]; schemaVersion: number };
  bytes: number;
}

/** Builds a home with the generator; its stdout is the truth. */
function buildHome(dir: string, sessions: number, seed: number): HomeTruth {
  const r = spawnSync(PYTHON, [HOME_PY, dir, '--sessions', String(sessions), '--seed', String(seed)], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`hermes_home.py exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout) as HomeTruth;
}

const analyzeIt = (t: Transcript) => analyze(t, { profile: PROFILES['hermes-current'], counter: createTokenCounter('o200k_base'), messages: false });

/** Every lineage of an overview, forks included, with the lineage it hangs under. */
function flatten(lineages: OverviewLineage[], parent: OverviewLineage | null = null): { lineage: OverviewLineage; under: OverviewLineage | null }[] {
  return lineages.flatMap((l) => [{ lineage: l, under: parent }, ...flatten(l.children, l)]);
}

const FORK_KIND: Record<string, string> = { conversation: 'conversation', branch: 'branch', delegate: 'delegate', reset: 'reset' };

/** The overview's grouping against the truth: one lineage per compression chain, forks under the lineage holding their parent. */
function assertGrouping(overview: SessionOverview, truth: HomeTruth): void {
  const flat = flatten(overview.lineages);
  const byId = new Map(flat.map((f) => [f.lineage.id, f]));
  assert.deepEqual([...byId.keys()].sort(), truth.lineages.map((l) => l.id).sort(), 'one overview lineage per chain of the truth');
  for (const tl of truth.lineages) {
    const f = byId.get(tl.id);
    assert.ok(f);
    assert.deepEqual(
      f.lineage.sessions.map((s) => s.id),
      tl.sessions,
      `lineage ${tl.id}: its chain, in order`,
    );
    assert.equal(f.lineage.kind, FORK_KIND[tl.kind], `lineage ${tl.id}: kind`);
    assert.equal(f.lineage.forkedFrom, tl.forkedFrom, `lineage ${tl.id}: forked from`);
    if (tl.forkedFrom === null) assert.equal(f.under, null, `lineage ${tl.id} is top-level`);
    else
      assert.ok(
        f.under?.sessions.some((s) => s.id === tl.forkedFrom),
        `lineage ${tl.id} hangs under the lineage holding ${tl.forkedFrom}`,
      );
  }
}

describe(`a generated Hermes home of ${SESSIONS} sessions`, () => {
  let dir = '';
  let db = '';
  let truth: HomeTruth;
  let whole: Transcript;

  before(async () => {
    dir = tempDir();
    db = join(dir, 'state.db');
    truth = buildHome(dir, SESSIONS, 11);
    whole = await loadTranscript(db);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('the fixture holds upstream full schema and every kind of session', () => {
    const s = truth.schema;
    for (const t of [
      'schema_version',
      'system_prompts',
      'sessions',
      'messages',
      'session_model_usage',
      'state_meta',
      'gateway_routing',
      'gateway_hygiene_state',
      'conversation_generations',
      'gateway_heartbeats',
      'compression_locks',
      'session_turn_leases',
      'async_delegations',
    ])
      assert.ok(s.tables.includes(t), `table ${t}`);
    assert.deepEqual(s.virtualTables, ['messages_fts', 'messages_fts_trigram']);
    for (const v of s.virtualTables) for (const sh of ['config', 'data', 'docsize', 'idx']) assert.ok(s.shadowTables.includes(`${v}_${sh}`), `${v}_${sh}`);
    assert.deepEqual(s.views, ['messages_fts_src', 'messages_fts_trigram_src']);
    assert.ok(s.triggers.length >= 10, s.triggers.join(', '));
    assert.ok(s.indexes.includes('idx_sessions_effective_activity'));
    assert.equal(s.schemaVersion, 30);
    assert.equal(truth.sessions.length, SESSIONS);
    const kinds = new Set(truth.sessions.map((x) => x.kind));
    for (const k of ['conversation', 'compression', 'branch', 'delegate', 'reset']) assert.ok(kinds.has(k as TruthSession['kind']), `a ${k} session`);
    const sources = new Set(truth.sessions.map((x) => x.source));
    for (const src of ['cli', 'cron', 'subagent', 'telegram']) assert.ok(sources.has(src), `a ${src} session`);
    assert.ok(truth.sessions.some((x) => x.inPlaceCompactions > 0) && truth.sessions.some((x) => x.rotations > 0));
  });

  it('reads the whole file without a finding from its FTS5, shadow, view or trigger objects', () => {
    const bad = whole.findings.filter((f) => f.severity !== 'info');
    assert.deepEqual(
      bad.map((f) => `${f.code}: ${f.message}`),
      [],
    );
    assert.ok(!whole.listedOnly);
  });

  it('lists every session with its parent and fork marker', () => {
    assert.deepEqual(whole.sessions.map((s) => s.id).sort(), truth.sessions.map((s) => s.id).sort());
    assert.deepEqual(
      (whole.catalog ?? []).map((s) => s.id),
      truth.sessions.map((s) => s.id),
      'the catalogue in start order',
    );
    const byId = new Map(whole.sessions.map((s) => [s.id, s]));
    for (const t of truth.sessions) {
      const s = byId.get(t.id);
      assert.ok(s);
      assert.equal(s.parentId, t.parentId, `${t.id}: parent`);
      assert.equal(s.forkKind, t.kind === 'branch' || t.kind === 'delegate' || t.kind === 'reset' ? t.kind : undefined, `${t.id}: fork kind`);
    }
  });

  it('the overview groups chains and forks as the truth, with each session turns and compactions', () => {
    const a = analyzeIt(whole);
    const overview = sessionOverview(whole, a.report);
    assert.ok(overview.read);
    assertGrouping(overview, truth);
    const sessions = new Map(flatten(overview.lineages).flatMap((f) => f.lineage.sessions.map((s) => [s.id, s] as const)));
    for (const t of truth.sessions) {
      const s = sessions.get(t.id);
      assert.ok(s, t.id);
      assert.equal(s.turns, t.turns, `${t.id} (${t.kind}, ${t.source}): turns`);
      assert.equal(s.requests, t.requests, `${t.id}: requests`);
      assert.equal(s.compactions, t.compactions, `${t.id}: compactions`);
      assert.equal(s.source, t.source, `${t.id}: source`);
      assert.equal(s.endReason, t.endReason, `${t.id}: end reason`);
    }
    for (const tl of truth.lineages) {
      const l = flatten(overview.lineages).find((f) => f.lineage.id === tl.id)?.lineage;
      assert.equal(l?.turns, tl.turns, `lineage ${tl.id}: turns`);
      assert.equal(l?.compactions, tl.compactions, `lineage ${tl.id}: compactions`);
    }
  });

  it('flags the cache breaks that really happened, and nothing else', () => {
    const { report } = analyzeIt(whole);
    const found = new Map<string, number>();
    const other: string[] = [];
    for (const d of report.diagnostics) {
      if (d.severity === 'info') continue;
      const session = d.request !== null ? report.requests[d.request]?.sessionId : d.sessionId;
      if (d.code === 'prefix-break' && session !== undefined) found.set(session, (found.get(session) ?? 0) + 1);
      else other.push(`${d.severity} ${d.code} (${session ?? '-'}): ${d.message}`);
    }
    assert.deepEqual(other, []);
    const expected = new Map(truth.sessions.filter((s) => s.cacheBreaks.length).map((s) => [s.id, s.cacheBreaks.length]));
    assert.deepEqual([...found.entries()].sort(), [...expected.entries()].sort());
  });

  it('listed only (read-whole limit 0): the same sessions and the same grouping, no rows read', async () => {
    const listed = await loadTranscript(db, { readWholeLimit: 0 });
    assert.ok(listed.listedOnly);
    assert.deepEqual(
      (listed.catalog ?? []).map((s) => [s.id, s.parentId]),
      truth.sessions.map((s) => [s.id, s.parentId]),
    );
    assert.deepEqual(
      listed.findings.filter((f) => f.severity !== 'info').map((f) => f.message),
      [],
    );
    const overview = sessionOverview(listed, analyzeIt(listed).report);
    assert.equal(overview.read, false);
    assertGrouping(overview, truth);
    for (const f of flatten(overview.lineages)) for (const s of f.lineage.sessions) assert.equal(s.turns, null, `${s.id}: not read`);
  });

  it('opening one lineage by its session reads that chain and replays its turns', async () => {
    const longest = [...truth.lineages].sort((x, y) => y.turns - x.turns)[0];
    const last = longest.sessions[longest.sessions.length - 1];
    const t = await loadTranscript(db, { session: last, readWholeLimit: 0 });
    const { report } = analyzeIt(t);
    const own = report.turns.filter((turn) => longest.sessions.includes(turn.sessionId));
    assert.equal(own.length, longest.turns, `lineage ${longest.id}: turns`);
  });

  it('the CLI `sessions FILE --json` lists the same lineages, turns and compactions', () => {
    const r = cli('sessions', db, '--json');
    assert.equal(r.code, 0, r.stderr);
    const overview = JSON.parse(r.stdout) as SessionOverview & { schemaVersion: number };
    assert.equal(overview.schemaVersion, 1);
    assertGrouping(overview, truth);
    const sessions = new Map(flatten(overview.lineages).flatMap((f) => f.lineage.sessions.map((s) => [s.id, s] as const)));
    for (const t of truth.sessions) {
      assert.equal(sessions.get(t.id)?.turns, t.turns, `${t.id}: turns`);
      assert.equal(sessions.get(t.id)?.compactions, t.compactions, `${t.id}: compactions`);
    }
  });
});
