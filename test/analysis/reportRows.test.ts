// The report's rows built one at a time (src/analysis/reportRows.ts): each turn and request with
// the findings about it, as the whole report lists them.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyze } from '../../src/analysis/report';
import { placeOf, reportCompaction, reportRequest, reportTurn, timing, type RowContext } from '../../src/analysis/reportRows';
import { RequestWire } from '../../src/analysis/requestWire';
import { createTokenCounter } from '../../src/analysis/tokenizer';
import { PROFILES } from '../../src/engine/profile';
import { replayTranscript, type ReplayRequest } from '../../src/engine/replay';
import type { Row } from '../../src/shared/model/rows';
import type { Generation, Transcript, TranscriptSession } from '../../src/shared/model/transcript';
import type { Diagnostic } from '../../src/shared/reportTypes';
import { SUMMARY_END_MARKER, SUMMARY_PREFIX } from '../../src/hermes/compactionMarkers';

const counter = createTokenCounter('o200k_base');
const profile = PROFILES['hermes-current'];
const ctx = (messages = false): RowContext => ({ profile, wire: new RequestWire(profile, counter), messages });
const gen = (rows: Row[]): Generation => ({ rows, pos: rows.map((_, i) => ({ line: i + 1 })) });
const sess = (id: string, rows: Row[], extra: Partial<TranscriptSession> = {}): TranscriptSession => ({
  id,
  parentId: null,
  endReason: null,
  systemPrompt: 'SYS',
  generations: [gen(rows)],
  pos: { sessionId: id },
  ...extra,
});
const transcript = (...sessions: TranscriptSession[]): Transcript => ({ path: 'mem', format: 'hermes-session-json', sessions, captured: [], findings: [] });
const exchange = (k: number, at: number): Row[] => [
  { role: 'user', content: `ask ${k}`, timestamp: at },
  { role: 'assistant', content: `answer ${k}`, timestamp: at + 2 },
];

describe('report rows', () => {
  it('placeOf keeps the parts a position has, and nothing for no position', () => {
    assert.deepEqual(placeOf(undefined), {});
    assert.deepEqual(placeOf({ line: 3 }), { line: 3 });
    assert.deepEqual(placeOf({ line: 3, column: 1, offset: 40, sessionId: 's', rowId: 7 }), { line: 3, column: 1, offset: 40, sessionId: 's', rowId: 7 });
  });

  it('timing: the gap since the previous answer, or its sending; none across a clock that runs backwards', () => {
    const req = (sentAt: number | null, answeredAt: number | null = null): ReplayRequest => ({ sentAt, answeredAt }) as ReplayRequest;
    assert.deepEqual(timing(req(null), req(5)), {});
    assert.deepEqual(timing(req(100), null), { sentAt: 100 });
    assert.deepEqual(timing(req(100), req(10, 40.0004)), { sentAt: 100, gapSeconds: 60 });
    assert.deepEqual(timing(req(100), req(90)), { sentAt: 100, gapSeconds: 10 });
    assert.deepEqual(timing(req(100), req(120)), { sentAt: 100 });
  });

  it('each turn and request, built alone, is the one the whole report lists, findings in the same order', () => {
    // A compaction handoff that drives a call (no user row: reanchor-none), then ordinary turns.
    const carrier: Row = {
      role: 'user',
      content: `${SUMMARY_PREFIX} Earlier turns were compacted.\n\n${SUMMARY_END_MARKER}`,
      _compressed_summary: true,
    };
    const t = transcript(sess('a', [carrier, { role: 'assistant', content: 'resuming', timestamp: 990 }, ...exchange(0, 1000), ...exchange(1, 1100)]));
    const whole = analyze(t, { profile, counter, messages: true }).report;
    const { replay } = replayTranscript(t, profile);
    const c = ctx(true);
    const found: Diagnostic[] = [];
    for (const turn of replay.turns) {
      const built = reportTurn(turn, c);
      assert.deepEqual(built.turn, whole.turns[turn.index]);
      found.push(...built.findings);
    }
    for (const r of replay.requests) {
      const built = reportRequest(r, r.previous === null ? null : replay.requests[r.previous], c);
      assert.deepEqual(built.request, whole.requests[r.index]);
      found.push(...built.findings);
    }
    assert.deepEqual(
      found,
      whole.diagnostics.filter((d) => d.turn !== null),
    );
    assert.deepEqual(
      found.map((d) => [d.code, d.turn]),
      [['reanchor-none', 0]],
    );
  });

  it('a changed system prompt: its own error first, then the break it causes, both about the request', () => {
    const { replay } = replayTranscript(transcript(sess('a', [...exchange(0, 1000), ...exchange(1, 1100)])), profile);
    const changed = { ...replay.requests[1], systemPrompt: 'SYZ' };
    const { request, findings } = reportRequest(changed, replay.requests[0], ctx());
    assert.deepEqual(request.prefix.breakAt, { messageIndex: 0, byteOffset: 2, cause: 'system-changed' });
    assert.deepEqual(
      findings.map((d) => [d.code, d.severity, d.turn, d.request]),
      [
        ['system-prompt-changed', 'error', 1, 1],
        ['prefix-break', 'error', 1, 1],
      ],
    );
    assert.equal(request.gapSeconds, 98);
  });

  it('a request without messages asked lists none; the first of a lineage extends nothing and is billed nothing yet', () => {
    const t = transcript(sess('a', exchange(0, 1000)));
    const { replay } = replayTranscript(t, profile);
    const { request, findings } = reportRequest(replay.requests[0], null, ctx());
    assert.deepEqual(findings, []);
    assert.equal(request.messages, undefined);
    assert.equal(request.prefix.breakAt, null);
    assert.deepEqual([request.billed, request.cacheMiss, request.cost], [null, null, null]);
    assert.equal(request.line, replay.requests[0].pos.line);
  });

  it('a compaction that kept everything is reported with a no-progress warning at its turn', () => {
    const rows = exchange(0, 1000);
    const made = reportCompaction(
      { mode: 'in-place', before: rows, after: rows, reanchorBefore: 0, reanchor: { index: 0, rule: 'exact' } },
      4,
      { line: 9 },
      ctx(),
    );
    assert.equal(made.compaction.madeProgress, false);
    assert.equal(made.compaction.beforeTokens, made.compaction.afterTokens);
    assert.equal(made.compaction.gateBranch, null);
    assert.deepEqual(
      made.findings.map((d) => [d.code, d.severity, d.turn, d.line]),
      [['compression-no-progress', 'warning', 4, 9]],
    );
  });
});
