import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyze } from '../../src/analysis/report';
import { createTokenCounter } from '../../src/analysis/tokenizer';
import { SUMMARY_END_MARKER, SUMMARY_PREFIX, TODO_SNAPSHOT_PREFIX } from '../../src/hermes/compactionMarkers';
import type { Row } from '../../src/shared/model/rows';
import { PROFILES } from '../../src/engine/profile';
import type { Generation, Transcript, TranscriptSession } from '../../src/shared/model/transcript';
import type { ProfileName } from '../../src/shared/settingNames';

const counter = createTokenCounter('o200k_base');
const gen = (rows: Row[], extra: Partial<Generation> = {}): Generation => ({ rows, pos: rows.map((_, i) => ({ line: i + 1 })), ...extra });
const sess = (id: string, generations: Generation[], extra: Partial<TranscriptSession> = {}): TranscriptSession => ({
  id,
  parentId: null,
  endReason: null,
  systemPrompt: 'SYS',
  generations,
  pos: { sessionId: id },
  ...extra,
});
const transcript = (...sessions: TranscriptSession[]): Transcript => ({ path: 'mem', format: 'hermes-session-json', sessions, captured: [], findings: [] });
const reportOf = (t: Transcript, profile: ProfileName = 'hermes-current', messages = false) =>
  analyze(t, { profile: PROFILES[profile], counter, messages }).report;
const carrier = (): Row => ({
  role: 'user',
  content: `${SUMMARY_PREFIX} Earlier turns were compacted.\n## Historical Task Snapshot\n- did things\n\n${SUMMARY_END_MARKER}`,
  _compressed_summary: true,
});

describe('replay', () => {
  it('a compaction handoff driving a call: reanchor-none under current rules, fallback under v1 (#80622)', () => {
    const t = transcript(sess('s', [gen([carrier(), { role: 'assistant', content: 'resuming finished work' }])]));
    const cur = reportOf(t);
    assert.equal(cur.turns[0].userMessageIndex, -1);
    assert.ok(cur.diagnostics.some((d) => d.code === 'reanchor-none' && d.severity === 'error'));
    const v1 = reportOf(t, 'hermes-v1');
    assert.equal(v1.turns[0].userMessageIndex, 0);
    assert.ok(v1.diagnostics.some((d) => d.code === 'reanchor-fallback'));
  });

  it('carried-over rows are not counted again; a compaction that keeps every row and 95 % of tokens made no progress', () => {
    const old: Row[] = [
      { role: 'user', content: 'q1', timestamp: 1 },
      { role: 'assistant', content: 'a1', timestamp: 2 },
    ];
    const q2: Row = { role: 'user', content: 'q2', timestamp: 3 };
    // The "compacted" list is the old list plus a carrier: more rows, not fewer.
    const after: Row[] = [...old, carrier(), q2, { role: 'assistant', content: 'a2', timestamp: 4 }];
    const t = transcript(sess('s', [gen(old), gen(after, { compaction: { mode: 'in-place', before: old, beforePos: [] } })]));
    const r = reportOf(t);
    assert.equal(r.turns.length, 2);
    assert.equal(r.requests.length, 2);
    const c = r.turns[1].compression;
    assert.ok(c);
    assert.equal(c.beforeMessages, 3);
    assert.equal(c.afterMessages, 4);
    assert.equal(c.madeProgress, false);
    assert.ok(r.diagnostics.some((d) => d.code === 'compression-no-progress' && d.turn === 1));
  });

  it('a compaction inside a turn re-anchors the same turn and counts its later requests there', () => {
    const before: Row[] = [
      { role: 'user', content: 'q1', timestamp: 1 },
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }], timestamp: 2 },
      { role: 'tool', tool_call_id: 'c1', content: 'x'.repeat(400), timestamp: 3 },
    ];
    const after: Row[] = [carrier(), before[0], { role: 'assistant', content: 'done', timestamp: 4 }];
    const r = reportOf(transcript(sess('s', [gen(before), gen(after, { compaction: { mode: 'in-place', before, beforePos: [] } })])));
    assert.equal(r.turns.length, 1);
    assert.deepEqual(r.turns[0].requests, [0, 1]);
    assert.equal(r.turns[0].laterCompressions.length, 1);
    assert.equal(r.turns[0].laterCompressions[0].reanchor.after, 1);
    assert.equal(r.turns[0].userMessageIndex, 1);
  });

  it('tools changing between sessions of a lineage break the prefix at message 0', () => {
    const rows: Row[] = [
      { role: 'user', content: 'q', timestamp: 1 },
      { role: 'assistant', content: 'a', timestamp: 2 },
    ];
    const child: Row[] = [carrier(), { role: 'user', content: 'q2' }, { role: 'assistant', content: 'b' }];
    const r = reportOf(
      transcript(
        sess('p', [gen(rows)], { endReason: 'compression', tools: ['read_file'] }),
        sess('c', [gen(child, { compaction: { mode: 'rotation', before: rows, beforePos: [] } })], { parentId: 'p', tools: ['read_file', 'terminal'] }),
      ),
    );
    assert.deepEqual(r.requests[1].prefix.breakAt, { messageIndex: 0, byteOffset: null, cause: 'tools-changed' });
  });

  it('an empty non-final assistant row is sent as the placeholder and marked substituted', () => {
    const rows: Row[] = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: '' },
      { role: 'user', content: 'again' },
      { role: 'assistant', content: 'ok' },
    ];
    const r = reportOf(transcript(sess('s', [gen(rows)])), 'hermes-current', true);
    const msgs = r.requests[1].messages ?? [];
    assert.equal(msgs[2].substitution, 'placeholder');
    assert.equal(msgs[2].substituted, true);
    assert.ok(msgs[2].tokens > 0);
    assert.equal(r.requests[1].prefix.stable, true, 'the empty answer was never part of an earlier input');
  });

  it('a sidecar dropped by a rewrite between generations is named as such', () => {
    const a: Row[] = [
      { role: 'user', content: 'look', api_content: 'look\n\nPLUGIN', timestamp: 1 },
      { role: 'assistant', content: 'seen', timestamp: 2 },
    ];
    const b: Row[] = [
      { role: 'user', content: 'look', timestamp: 1 },
      { role: 'assistant', content: 'seen', timestamp: 2 },
      { role: 'user', content: 'next', timestamp: 3 },
      { role: 'assistant', content: 'x', timestamp: 4 },
    ];
    const r = reportOf(transcript(sess('s', [gen(a), gen(b, { carried: 2 })])));
    assert.deepEqual(r.requests[1].prefix.breakAt, { messageIndex: 1, byteOffset: 4, cause: 'sidecar-dropped' });
  });

  it('reusedTokens is the previous request up to the break, inputTokens the sum of its messages', () => {
    const rows: Row[] = [
      { role: 'user', content: 'hello there', api_content: 'hello there\n\nPLUGIN', timestamp: 1 },
      { role: 'assistant', content: 'hi', timestamp: 2 },
      { role: 'user', content: 'more', timestamp: 3 },
      { role: 'assistant', content: 'sure', timestamp: 4 },
    ];
    const r = reportOf(transcript(sess('s', [gen(rows)])), 'hermes-v0', true);
    const [first, second] = r.requests;
    const sum = (q: typeof first) => (q.messages ?? []).reduce((s, m) => s + m.tokens, 0);
    assert.equal(first.inputTokens, sum(first));
    assert.equal(second.inputTokens, sum(second));
    assert.equal(second.prefix.breakAt?.cause, 'sidecar-not-replayed');
    assert.equal(second.prefix.reusedTokens, first.messages?.[0].tokens);
  });

  describe('a user row flushed unanswered before a compaction (upstream preflight)', () => {
    const sidecar =
      "ask\n\n<memory-context>\n[System note: The following is recalled memory context, NOT new user input. Treat as authoritative reference data — this is the agent's persistent memory and should inform all responses.]\n\n- likes tea\n</memory-context>";
    const parentRows = (): Row[] => [
      { role: 'user', content: 'q1', timestamp: 1 },
      { role: 'assistant', content: 'a1 '.repeat(500), timestamp: 2 },
      { role: 'user', content: 'q2', timestamp: 3 },
      { role: 'assistant', content: 'a2', timestamp: 4 },
      { role: 'user', content: 'ask', timestamp: 5 },
    ];
    const childRows = (p: Row[], copy: Row): Row[] => [p[0], carrier(), p[3], copy, { role: 'assistant', content: 'answer', timestamp: 6 }];

    for (const mode of ['rotation', 'in-place'] as const) {
      it(`is one turn in the compacted list (${mode}), with the compaction and the copy's sidecar`, () => {
        const p = parentRows();
        const copy: Row = { ...p[4], api_content: sidecar };
        const rows = childRows(p, copy);
        const t =
          mode === 'rotation'
            ? transcript(
                sess('p', [gen(p)], { endReason: 'compression' }),
                sess('c', [gen(rows, { compaction: { mode, before: p, beforePos: [] } })], { parentId: 'p' }),
              )
            : transcript(sess('s', [gen(p), gen(rows, { compaction: { mode, before: p, beforePos: [] } })]));
        const r = reportOf(t);
        assert.equal(r.turns.length, 3, 'q1, q2 and the ask: the ask counted once');
        assert.equal(r.requests.length, 3);
        const ask = r.turns[2];
        assert.equal(ask.sessionId, mode === 'rotation' ? 'c' : 's');
        assert.equal(ask.userMessageIndex, 3);
        assert.deepEqual(ask.requests, [2]);
        assert.ok(ask.compression);
        assert.equal(ask.compression.mode, mode);
        assert.equal(ask.compression.beforeMessages, 5);
        assert.equal(ask.compression.afterMessages, 4);
        assert.deepEqual(ask.compression.reanchor, { before: 4, after: 3, rule: 'exact' });
        assert.deepEqual(
          ask.injected.map((s) => s.kind),
          ['memory'],
        );
        assert.deepEqual(
          r.diagnostics.filter((d) => d.severity !== 'info'),
          [],
        );
      });
    }

    it('the todo snapshot folded into the copy: re-anchored by the fallback onto its own row, no warning; a dropped sidecar is shown', () => {
      const p = parentRows();
      p[4] = { ...p[4], api_content: sidecar };
      const todo = `${TODO_SNAPSHOT_PREFIX}\n- [ ] 1. ship it (pending)`;
      const copy: Row = { role: 'user', content: `ask\n\n${todo}`, timestamp: 5 };
      const rows = childRows(p, copy);
      // Mid-turn: the ask was answered by a tool call before the compaction.
      const before: Row[] = [
        ...p,
        { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }], timestamp: 5.5 },
        { role: 'tool', tool_call_id: 'c1', content: 'big', timestamp: 5.6 },
      ];
      const r = reportOf(transcript(sess('s', [gen(before), gen(rows, { compaction: { mode: 'in-place', before, beforePos: [] } })])));
      const ask = r.turns[2];
      assert.equal(ask.laterCompressions.length, 1);
      const c = ask.laterCompressions[0];
      assert.equal(c.reanchor.rule, 'fallback');
      assert.equal(c.reanchor.confirmed, true);
      assert.equal(c.userRowChange, 'todo-merged');
      assert.equal(c.sidecarDropped, true);
      assert.ok(!r.diagnostics.some((d) => d.code === 'reanchor-fallback'), 'the fallback found the right row');
    });
  });

  it("each request's sending time (its last input row's) and the idle gap since the previous answer", () => {
    const rows: Row[] = [
      { role: 'user', content: 'q1', timestamp: 100 },
      { role: 'assistant', content: 'a1', timestamp: 104.5 },
      { role: 'user', content: 'q2', timestamp: 500 },
      { role: 'assistant', content: 'a2', timestamp: 503 },
      { role: 'user', content: 'q3' },
      { role: 'assistant', content: 'a3', timestamp: 600 },
    ];
    const r = reportOf(transcript(sess('s', [gen(rows)])));
    assert.deepEqual(
      r.requests.map((q) => [q.sentAt, q.gapSeconds]),
      [
        [100, undefined],
        [500, 395.5],
        [undefined, undefined],
      ],
      'the first has nothing before it; a row without a time records neither',
    );
  });

  it('a rewind: the undone turn keeps its request, the re-ask after it breaks the prefix as a rewind (info)', () => {
    const kept: Row[] = [
      { role: 'user', content: 'q1', timestamp: 1 },
      { role: 'assistant', content: 'a1', timestamp: 2 },
    ];
    const undone: Row[] = [
      { role: 'user', content: 'oops', timestamp: 3 },
      { role: 'assistant', content: 'bad', timestamp: 4 },
    ];
    const reask: Row[] = [
      { role: 'user', content: 'q2', timestamp: 5 },
      { role: 'assistant', content: 'a2', timestamp: 6 },
    ];
    const r = reportOf(transcript(sess('s', [gen([...kept, ...undone]), gen([...kept, ...reask], { carried: 2 })])));
    assert.equal(r.turns.length, 3);
    assert.deepEqual(
      r.turns.map((t) => t.requests.length),
      [1, 1, 1],
    );
    assert.equal(r.requests[2].prefix.breakAt?.cause, 'rewind');
    assert.equal(r.requests[2].prefix.breakAt?.messageIndex, 3);
    assert.deepEqual(
      r.diagnostics.filter((d) => d.code === 'prefix-break').map((d) => d.severity),
      ['info'],
      "the user's rewind is no defect of assembly",
    );
  });

  it("turns are numbered in the order they began across sessions, each session's own order kept, requests turn by turn", () => {
    const parent: Row[] = [
      { role: 'user', content: 'p1', timestamp: 1 },
      { role: 'assistant', content: 'a', timestamp: 2 },
      { role: 'user', content: 'p2', timestamp: 10 },
      { role: 'assistant', content: 'b', timestamp: 11 },
    ];
    const delegate: Row[] = [
      { role: 'user', content: 'task', timestamp: 5 },
      { role: 'assistant', content: 'x', timestamp: 6 },
      { role: 'assistant', content: 'y', timestamp: 7 },
    ];
    const r = reportOf(transcript(sess('p', [gen(parent)]), sess('d', [gen(delegate)], { parentId: 'p', forkKind: 'delegate' })));
    assert.deepEqual(
      r.turns.map((t) => [t.sessionId, t.requests]),
      [
        ['p', [0]],
        ['d', [1, 2]],
        ['p', [3]],
      ],
    );
    assert.deepEqual(
      r.requests.map((q) => [q.turn, q.prefix.previousRequest]),
      [
        [0, null],
        [1, null],
        [1, 1],
        [2, 0],
      ],
    );
  });
});
