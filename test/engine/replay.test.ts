import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeTranscript } from '../../src/analysis/report';
import { createTokenCounter } from '../../src/analysis/tokenizer';
import { SUMMARY_END_MARKER, SUMMARY_PREFIX } from '../../src/hermes/compactionMarkers';
import type { Row } from '../../src/model/rows';
import { PROFILES, type ProfileName } from '../../src/engine/profile';
import type { Generation, Transcript, TranscriptSession } from '../../src/model/transcript';

const counter = createTokenCounter('o200k_base');
const gen = (rows: Row[], extra: Partial<Generation> = {}): Generation => ({ rows, pos: rows.map((_, i) => ({ line: i + 1 })), ...extra });
const sess = (id: string, generations: Generation[], extra: Partial<TranscriptSession> = {}): TranscriptSession =>
  ({ id, parentId: null, endReason: null, systemPrompt: 'SYS', generations, pos: { sessionId: id }, ...extra });
const transcript = (...sessions: TranscriptSession[]): Transcript => ({ path: 'mem', format: 'hermes-session-json', sessions, captured: [], findings: [] });
const analyze = (t: Transcript, profile: ProfileName = 'hermes-current', messages = false) =>
  analyzeTranscript(t, { profile: PROFILES[profile], counter, messages });
const carrier = (): Row => ({ role: 'user', content: `${SUMMARY_PREFIX} Earlier turns were compacted.\n## Historical Task Snapshot\n- did things\n\n${SUMMARY_END_MARKER}`, _compressed_summary: true });

describe('replay', () => {
  it('a compaction handoff driving a call: reanchor-none under current rules, fallback under v1 (#80622)', () => {
    const t = transcript(sess('s', [gen([carrier(), { role: 'assistant', content: 'resuming finished work' }])]));
    const cur = analyze(t);
    assert.equal(cur.turns[0].userMessageIndex, -1);
    assert.ok(cur.diagnostics.some((d) => d.code === 'reanchor-none' && d.severity === 'error'));
    const v1 = analyze(t, 'hermes-v1');
    assert.equal(v1.turns[0].userMessageIndex, 0);
    assert.ok(v1.diagnostics.some((d) => d.code === 'reanchor-fallback'));
  });

  it('carried-over rows are not counted again; a compaction that keeps every row and 95 % of tokens made no progress', () => {
    const old: Row[] = [
      { role: 'user', content: 'q1', timestamp: 1 }, { role: 'assistant', content: 'a1', timestamp: 2 },
    ];
    const q2: Row = { role: 'user', content: 'q2', timestamp: 3 };
    // The "compacted" list is the old list plus a carrier: more rows, not fewer.
    const after: Row[] = [...old, carrier(), q2, { role: 'assistant', content: 'a2', timestamp: 4 }];
    const t = transcript(sess('s', [gen(old), gen(after, { compaction: { mode: 'in-place', before: old, beforePos: [] } })]));
    const r = analyze(t);
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
    const r = analyze(transcript(sess('s', [gen(before), gen(after, { compaction: { mode: 'in-place', before, beforePos: [] } })])));
    assert.equal(r.turns.length, 1);
    assert.deepEqual(r.turns[0].requests, [0, 1]);
    assert.equal(r.turns[0].laterCompressions.length, 1);
    assert.equal(r.turns[0].laterCompressions[0].reanchor.after, 1);
    assert.equal(r.turns[0].userMessageIndex, 1);
  });

  it('tools changing between sessions of a lineage break the prefix at message 0', () => {
    const rows: Row[] = [{ role: 'user', content: 'q', timestamp: 1 }, { role: 'assistant', content: 'a', timestamp: 2 }];
    const child: Row[] = [carrier(), { role: 'user', content: 'q2' }, { role: 'assistant', content: 'b' }];
    const r = analyze(transcript(
      sess('p', [gen(rows)], { endReason: 'compression', tools: ['read_file'] }),
      sess('c', [gen(child, { compaction: { mode: 'rotation', before: rows, beforePos: [] } })], { parentId: 'p', tools: ['read_file', 'terminal'] }),
    ));
    assert.deepEqual(r.requests[1].prefix.breakAt, { messageIndex: 0, byteOffset: null, cause: 'tools-changed' });
  });

  it('an empty non-final assistant row is sent as the placeholder and marked substituted', () => {
    const rows: Row[] = [{ role: 'user', content: 'q' }, { role: 'assistant', content: '' }, { role: 'user', content: 'again' }, { role: 'assistant', content: 'ok' }];
    const r = analyze(transcript(sess('s', [gen(rows)])), 'hermes-current', true);
    const msgs = r.requests[1].messages ?? [];
    assert.equal(msgs[2].substitution, 'placeholder');
    assert.equal(msgs[2].substituted, true);
    assert.ok(msgs[2].tokens > 0);
    assert.equal(r.requests[1].prefix.stable, true, 'the empty answer was never part of an earlier input');
  });

  it('a sidecar dropped by a rewrite between generations is named as such', () => {
    const a: Row[] = [{ role: 'user', content: 'look', api_content: 'look\n\nPLUGIN', timestamp: 1 }, { role: 'assistant', content: 'seen', timestamp: 2 }];
    const b: Row[] = [{ role: 'user', content: 'look', timestamp: 1 }, { role: 'assistant', content: 'seen', timestamp: 2 }, { role: 'user', content: 'next', timestamp: 3 }, { role: 'assistant', content: 'x', timestamp: 4 }];
    const r = analyze(transcript(sess('s', [gen(a), gen(b, { carried: 2 })])));
    assert.deepEqual(r.requests[1].prefix.breakAt, { messageIndex: 1, byteOffset: 4, cause: 'sidecar-dropped' });
  });

  it('reusedTokens is the previous request up to the break, inputTokens the sum of its messages', () => {
    const rows: Row[] = [{ role: 'user', content: 'hello there', api_content: 'hello there\n\nPLUGIN', timestamp: 1 }, { role: 'assistant', content: 'hi', timestamp: 2 }, { role: 'user', content: 'more', timestamp: 3 }, { role: 'assistant', content: 'sure', timestamp: 4 }];
    const r = analyze(transcript(sess('s', [gen(rows)])), 'hermes-v0', true);
    const [first, second] = r.requests;
    const sum = (q: typeof first) => (q.messages ?? []).reduce((s, m) => s + m.tokens, 0);
    assert.equal(first.inputTokens, sum(first));
    assert.equal(second.inputTokens, sum(second));
    assert.equal(second.prefix.breakAt?.cause, 'sidecar-not-replayed');
    assert.equal(second.prefix.reusedTokens, first.messages?.[0].tokens);
  });
});
