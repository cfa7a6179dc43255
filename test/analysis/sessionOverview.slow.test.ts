// The overview's SOURCE, MODEL, end and compaction calls against stores written as upstream writes
// them, read back by SQLite itself (quick cases: sessionOverview.test.ts).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OverviewLineage } from '../../src/shared/overviewTypes';
import { sessionOverview } from '../../src/analysis/sessionOverview';
import { analyze } from '../../src/analysis/report';
import { createTokenCounter } from '../../src/analysis/tokenizer';
import { PROFILES } from '../../src/engine/profile';
import { loadTranscript } from '../../src/transcripts/load';
import { sqliteSelect } from '../support/sqliteSelect';
import { buildStore } from '../support/upstreamStores';

describe("session overview: the store's own columns (stores written as upstream writes them)", () => {
  /** sessions and session_model_usage, read by SQLite itself. */
  function storeRows(db: string): {
    sessions: { id: string; source: string | null; model: string | null; started: number; ended: number | null }[];
    usage: { sessionId: string; model: string; task: string; calls: number }[];
  } {
    return sqliteSelect<ReturnType<typeof storeRows>>(db, {
      sessions: 'SELECT id, source, model, started_at AS started, ended_at AS ended FROM sessions',
      usage: 'SELECT session_id AS sessionId, model, task, api_call_count AS calls FROM session_model_usage ORDER BY rowid',
    });
  }
  const all = (rows: OverviewLineage[]): OverviewLineage[] => rows.flatMap((r) => [r, ...all(r.children)]);

  for (const name of ['home', 'rotation-in-place', 'in-place', 'dumps']) {
    it(`${name}: SOURCE, MODEL, the end and the compaction calls come from its sessions and session_model_usage rows`, async () => {
      const store = buildStore(name);
      const transcript = await loadTranscript(store.stateDb);
      const o = sessionOverview(
        transcript,
        analyze(transcript, { profile: PROFILES['hermes-current'], counter: createTokenCounter('o200k_base'), messages: false }).report,
      );
      const rows = storeRows(store.stateDb);
      const lineages = all(o.lineages);
      assert.equal(lineages.flatMap((l) => l.sessions).length, rows.sessions.length);
      const uniq = (v: (string | null)[]): string[] => [...new Set(v.filter((x): x is string => x !== null))];
      for (const l of lineages) {
        const mine = l.sessions.map((s) => rows.sessions.find((r) => r.id === s.id)!);
        const last = mine[mine.length - 1];
        assert.equal(l.source, uniq(mine.map((m) => m.source)).join(', ') || null, l.id);
        const ran = uniq(rows.usage.filter((u) => u.task === '' && mine.some((m) => m.id === u.sessionId)).map((u) => u.model));
        const stored = uniq(mine.map((m) => m.model));
        assert.equal(l.model, (ran.length > 1 || !stored.length ? ran : stored).join(', ') || null, l.id);
        assert.equal(l.endedAt, last.ended, l.id);
        if (last.ended !== null) assert.equal(l.durationSeconds, Math.round((last.ended - mine[0].started) * 1000) / 1000, l.id);
        const calls = rows.usage.filter((u) => u.task === 'compression' && mine.some((m) => m.id === u.sessionId)).reduce((a, u) => a + u.calls, 0);
        assert.equal(l.recordedCompactionCalls, calls, l.id);
        // Each compaction of these scenarios made one summary call, billed to the session its turn started in.
        const compactions = new Set(
          store.truth.turns
            .filter((t) => l.sessions.some((s) => s.id === t.sessionId))
            .flatMap((t) => [t.compression, t.midTurn])
            .filter((c) => c !== null)
            .map((c) => JSON.stringify(c)),
        );
        assert.equal(calls, compactions.size, `${l.id}: the truth's compactions`);
        for (const s of l.sessions) {
          const r = rows.sessions.find((x) => x.id === s.id)!;
          assert.deepEqual([s.source, s.model, s.endedAt], [r.source, r.model, r.ended], s.id);
        }
      }
      if (name === 'home') assert.ok(lineages.some((l) => (l.recordedCompactionCalls ?? 0) > 0) && lineages.some((l) => l.endedAt !== null));
    });
  }
});
