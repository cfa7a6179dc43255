import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { wireCopy } from '../../src/engine/apiMessages';
import {
  isSummaryCarrier,
  SUMMARY_END_MARKER,
  SUMMARY_PREFIX,
  TODO_SNAPSHOT_PREFIX,
  userOriginatedTurnView,
  MERGED_PRIOR_CONTEXT_HEADER,
  MERGED_SUMMARY_DELIMITER,
} from '../../src/hermes/compactionMarkers';
import { estimateMessagesTokensRough } from '../../src/engine/estimator';
import { buildMemoryContextBlock, MEMORY_SYSTEM_NOTE } from '../../src/hermes/memoryContext';
import type { Row } from '../../src/shared/model/rows';
import { appendNotesToMultimodalContent, consumeGatewayTurnContextNotes, consumeSurfaceSwitchNote, mergeGatewayNotes } from '../../src/engine/notes';
import { PROFILES } from '../../src/engine/profile';
import { compactionMadeProgress } from '../../src/engine/progress';
import { pythonReprMeasured } from '../support/pythonReprText';
import { reanchorCurrentTurnUserIdx } from '../../src/engine/reanchor';
import { composeMultimodalContextPart, composeUserApiContent, effectiveSidecar } from '../../src/engine/sidecar';
import { buildTurnUserRow } from '../../src/engine/turnContext';
import { firstDifferingByte, utf8Length } from '../../src/shared/model/utf8';
import { RequestWire } from '../../src/analysis/requestWire';
import type { ReplayRequest } from '../../src/engine/replay';
import type { Profile } from '../../src/engine/profile';

const V0 = PROFILES['hermes-v0'];
const V1 = PROFILES['hermes-v1'];
const CUR = PROFILES['hermes-current'];
const FENCE = `<memory-context>\n${MEMORY_SYSTEM_NOTE}\n\n- prefers SQLite\n</memory-context>`;

describe('memory fence', () => {
  it('wraps raw prefetch exactly as the reference shapes it', () => {
    assert.equal(buildMemoryContextBlock('- prefers SQLite'), FENCE);
  });
  it('gives nothing for empty or whitespace-only input', () => {
    assert.equal(buildMemoryContextBlock(''), '');
    assert.equal(buildMemoryContextBlock('  \n\t'), '');
  });
  it('strips pre-wrapped blocks, system-note lines and stray tags before fencing', () => {
    assert.equal(buildMemoryContextBlock(FENCE), '');
    assert.equal(buildMemoryContextBlock(`${FENCE}\n- prefers SQLite`), FENCE);
    assert.equal(buildMemoryContextBlock('<memory-context>- prefers SQLite'), FENCE);
  });
});

describe('composeUserApiContent', () => {
  it('appends fence then plugin context, each after a blank line', () => {
    assert.equal(composeUserApiContent('hi', '- prefers SQLite', 'PLUGIN'), `hi\n\n${FENCE}\n\nPLUGIN`);
  });
  it('returns null for list content and when nothing is injected', () => {
    assert.equal(composeUserApiContent([{ type: 'text', text: 'x' }], 'm', 'p'), null);
    assert.equal(composeUserApiContent('hi', '', ''), null);
    assert.equal(composeUserApiContent('hi', '   ', ''), null);
  });
  it('plugin only, memory only', () => {
    assert.equal(composeUserApiContent('hi', '', 'P'), 'hi\n\nP');
    assert.equal(composeUserApiContent('hi', '- prefers SQLite', ''), `hi\n\n${FENCE}`);
    assert.equal(composeMultimodalContextPart('', ''), null);
  });
});

describe('the sidecar rule', () => {
  const sent = (row: Row) => wireCopy(row, 0, { profile: CUR, isCurrent: true, isFinal: true });
  it('a non-empty string sidecar is sent on user and assistant rows, and the key never reaches the wire', () => {
    const u: Row = { role: 'user', content: 'a', api_content: 'a\n\nX' };
    assert.equal(effectiveSidecar(u), 'a\n\nX');
    assert.deepEqual(sent(u).message, { role: 'user', content: 'a\n\nX' });
    assert.equal(sent(u).substituted, 'sidecar');
    const t: Row = { role: 'tool', content: 'r', api_content: 'other' };
    assert.equal(effectiveSidecar(t), null);
    assert.deepEqual(sent(t).message, { role: 'tool', content: 'r' });
    const e: Row = { role: 'user', content: 'a', api_content: '' };
    assert.equal(effectiveSidecar(e), null);
    assert.deepEqual(sent(e).message, { role: 'user', content: 'a' });
    const n: Row = { role: 'assistant', content: 'a', api_content: 7 };
    assert.equal(effectiveSidecar(n), null);
    assert.deepEqual(sent(n).message, { role: 'assistant', content: 'a' });
  });
  it('the rough estimator counts the sidecar the wire would send, not the stored content', () => {
    const long = 'x'.repeat(400);
    assert.equal(
      estimateMessagesTokensRough([{ role: 'user', content: 'a', api_content: long }], CUR),
      estimateMessagesTokensRough([{ role: 'user', content: long }], CUR),
    );
    assert.equal(
      estimateMessagesTokensRough([{ role: 'tool', content: 'a', api_content: long }], CUR),
      estimateMessagesTokensRough([{ role: 'tool', content: 'a' }], CUR),
    );
  });
});

describe('one-shot notes', () => {
  it('are consumed once', () => {
    const s = { gatewayTurnContextNotes: 'G', surfaceSwitchNote: 'S' };
    assert.equal(consumeGatewayTurnContextNotes(s), 'G');
    assert.equal(consumeGatewayTurnContextNotes(s), '');
    assert.equal(consumeSurfaceSwitchNote(s), 'S');
    assert.equal(consumeSurfaceSwitchNote(s), '');
    assert.equal(consumeGatewayTurnContextNotes({ gatewayTurnContextNotes: 5 }), '');
    assert.equal(consumeSurfaceSwitchNote({}), '');
  });
  it('go into a multimodal row as a durable text part, else after plugin context', () => {
    const parts = [{ type: 'text', text: 'look' }];
    assert.equal(mergeGatewayNotes(parts, ['N1', '', 'N2'], 'P'), 'P');
    assert.deepEqual(parts[1], { type: 'text', text: 'N1\n\nN2' });
    assert.equal(mergeGatewayNotes('s', ['N'], 'P'), 'P\n\nN');
    assert.equal(mergeGatewayNotes('s', ['N'], ''), 'N');
    assert.equal(mergeGatewayNotes('s', ['', ''], 'P'), 'P');
    assert.equal(appendNotesToMultimodalContent('str', 'N'), false);
    assert.equal(appendNotesToMultimodalContent([], ''), false);
  });
});

describe('compaction progress at its threshold', () => {
  it('fewer rows always counts', () => assert.equal(compactionMadeProgress(220, 219, 100, 100), true));
  it('same rows: 95 % exactly is not progress, just below is', () => {
    assert.equal(compactionMadeProgress(220, 220, 100000, 95000), false);
    assert.equal(compactionMadeProgress(220, 220, 100000, 94999), true);
    assert.equal(compactionMadeProgress(220, 220, 288028, 183180), true);
  });
  it('zero original tokens: only the row test applies', () => {
    assert.equal(compactionMadeProgress(5, 5, 0, 0), false);
    assert.equal(compactionMadeProgress(5, 6, 0, 0), false);
  });
});

describe('re-anchoring', () => {
  const carrier: Row = { role: 'user', content: `${SUMMARY_PREFIX} Earlier turns…\n\n${SUMMARY_END_MARKER}`, _compressed_summary: true };
  const todo: Row = { role: 'user', content: `${TODO_SNAPSHOT_PREFIX}\n- [ ] x`, display_kind: 'todo_snapshot' };
  it('finds the last exact match', () => {
    const rows: Row[] = [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a' }, { role: 'user', content: 'q' }, todo];
    assert.deepEqual(reanchorCurrentTurnUserIdx(rows, 'q', V1), { index: 2, rule: 'exact' });
    assert.deepEqual(reanchorCurrentTurnUserIdx(rows, 'q', CUR), { index: 2, rule: 'exact' });
  });
  it('V1 falls back to the last user row, even a todo snapshot; current never to a bookkeeping row', () => {
    const rows: Row[] = [{ role: 'user', content: 'old' }, todo];
    assert.deepEqual(reanchorCurrentTurnUserIdx(rows, 'gone', V1), { index: 1, rule: 'fallback' });
    assert.deepEqual(reanchorCurrentTurnUserIdx(rows, 'gone', CUR), { index: 0, rule: 'fallback' });
  });
  it('a compaction handoff is never the anchor under the current rule (#80622)', () => {
    assert.deepEqual(reanchorCurrentTurnUserIdx([carrier], 'x', V1), { index: 0, rule: 'fallback' });
    assert.deepEqual(reanchorCurrentTurnUserIdx([carrier], 'x', CUR), { index: -1, rule: 'none' });
    assert.deepEqual(reanchorCurrentTurnUserIdx([{ role: 'assistant', content: 'a' }], 'x', V1), { index: -1, rule: 'none' });
  });
  it('matches the live view of a summary merged into the user row', () => {
    const merged: Row = {
      role: 'user',
      content: `${MERGED_PRIOR_CONTEXT_HEADER}\nfix the bug\n\n${MERGED_SUMMARY_DELIMITER}\n\nsummary\n\n${SUMMARY_END_MARKER}`,
    };
    assert.deepEqual(reanchorCurrentTurnUserIdx([merged], 'fix the bug', CUR), { index: 0, rule: 'live-view' });
    const leading: Row = { role: 'user', content: `summary\n\n${SUMMARY_END_MARKER}\n\nnext ask` };
    assert.equal(userOriginatedTurnView(leading)?.content, 'next ask');
  });
  it('a valid typed index wins under the current rule only', () => {
    const rows: Row[] = [
      { role: 'user', content: 'a' },
      { role: 'user', content: 'b' },
    ];
    assert.deepEqual(reanchorCurrentTurnUserIdx(rows, 'b', CUR, 0), { index: 0, rule: 'typed-index' });
    assert.deepEqual(reanchorCurrentTurnUserIdx(rows, 'b', CUR, 5), { index: 1, rule: 'exact' });
    assert.deepEqual(reanchorCurrentTurnUserIdx(rows, 'b', V1, 0), { index: 1, rule: 'exact' });
  });
  it('recognises carriers', () => {
    assert.equal(isSummaryCarrier(carrier), true);
    assert.equal(isSummaryCarrier({ role: 'user', content: '[CONTEXT SUMMARY]: old style' }), true);
    assert.equal(isSummaryCarrier({ role: 'user', content: 'hello' }), false);
    assert.equal(userOriginatedTurnView(todo), null);
    assert.equal(userOriginatedTurnView({ role: 'user', content: 'x', display_kind: 'hidden' }), null);
    assert.notEqual(userOriginatedTurnView({ role: 'user', content: 'x', display_kind: '/steer' }), null);
  });
});

describe('rough estimator', () => {
  it('measures the Python repr of the stored dict (V1)', () => {
    const row: Row = { role: 'user', content: "it's", timestamp: 1.5, ok: true, none: null };
    const pythonRepr = (v: unknown): string => pythonReprMeasured(v).text; // no bytes values here
    assert.equal(pythonRepr(row), `{'role': 'user', 'content': "it's", 'timestamp': 1.5, 'ok': True, 'none': None}`);
    assert.equal(estimateMessagesTokensRough([row], V1), Math.floor((pythonRepr(row).length + 3) / 4));
  });
  it('counts api_content in addition to content under V1, instead of it under V3', () => {
    const row: Row = { role: 'user', content: 'a'.repeat(40), api_content: 'b'.repeat(80) };
    const v1 = estimateMessagesTokensRough([row], V1);
    const v3 = estimateMessagesTokensRough([row], CUR);
    assert.ok(v1 > v3, `${v1} > ${v3}`);
    assert.equal(v3, Math.floor((`{'role': 'user', 'content': '${'b'.repeat(80)}'}`.length + 3) / 4));
  });
  it('1,500 per image, stripped from the repr', () => {
    const row: Row = {
      role: 'user',
      content: [
        { type: 'text', text: 'x' },
        { type: 'image_url', image_url: { url: 'data:' + 'A'.repeat(10000) } },
      ],
    };
    const est = estimateMessagesTokensRough([row], V1);
    assert.ok(est >= 1500 && est < 1600, String(est));
  });
  it('V3 counts each CJK code point as a token', () => {
    const wrapper = `{'role': 'user', 'content': ''}`.length; // 31: ASCII, 8 tokens under both
    assert.equal(estimateMessagesTokensRough([{ role: 'user', content: 'abcd' }], CUR), Math.floor((wrapper + 4 + 3) / 4));
    assert.equal(estimateMessagesTokensRough([{ role: 'user', content: '漢字かな' }], CUR), 4 + Math.floor((wrapper + 3) / 4));
    assert.equal(estimateMessagesTokensRough([{ role: 'user', content: '漢字かな' }], V1), Math.floor((wrapper + 4 + 3) / 4));
  });
  it('escapes like Python', () => {
    const pythonRepr = (v: unknown): string => pythonReprMeasured(v).text;
    assert.equal(pythonRepr('a\nb\\'), "'a\\nb\\\\'");
    assert.equal(pythonRepr(`both ' and "`), `'both \\' and "'`);
    assert.equal(pythonRepr([1, 'x', false]), "[1, 'x', False]");
  });
});

/** A request's wire as the product builds it (RequestWire): the system prompt, then every row up to `end`. */
function requestWire(profile: Profile, rows: Row[], currentUserIdx: number, systemPrompt: string) {
  const counter = { name: 'o200k_base' as const, count: (t: string) => t.length, isApproximate: () => false };
  const req = { rows, end: rows.length, currentUserIdx, systemPrompt } as ReplayRequest;
  return new RequestWire(profile, counter).messages(req);
}

describe('wire build', () => {
  const rows: Row[] = [
    { role: 'user', content: 'q1', api_content: 'q1\n\nPLUGIN', timestamp: 1 },
    { role: 'assistant', content: '', reasoning: 'think', finish_reason: 'stop', timestamp: 2 },
    { role: 'user', content: 'q2', api_content: 'q2\n\nPLUGIN2', display_kind: undefined, timestamp: 3 },
  ];
  it('puts the system prompt first and removes bookkeeping keys', () => {
    const wire = requestWire(CUR, rows, 2, 'SYS');
    assert.deepEqual(wire[0].message, { role: 'system', content: 'SYS' });
    assert.deepEqual(wire[3].message, { role: 'user', content: 'q2\n\nPLUGIN2' });
    assert.equal('timestamp' in wire[1].message, false);
  });
  it('substitutes every historical sidecar from V1 on, only the current one under V0', () => {
    const v1 = requestWire(V1, rows, 2, 'S');
    const v0 = requestWire(V0, rows, 2, 'S');
    assert.equal(v1[1].message.content, 'q1\n\nPLUGIN');
    assert.equal(v1[1].substituted, 'sidecar');
    assert.equal(v0[1].message.content, 'q1');
    assert.equal(v0[1].substituted, null);
    assert.equal(v0[3].message.content, 'q2\n\nPLUGIN2');
  });
  it('fills an empty non-final assistant with the profile placeholder, never the final row', () => {
    assert.equal(requestWire(CUR, rows, 2, '')[2].message.content, '[interrupt: no assistant output for this turn]');
    assert.equal(requestWire(V1, rows, 2, '')[2].message.content, '[response interrupted]');
    const final = wireCopy(rows[1], 1, { profile: CUR, isCurrent: false, isFinal: true });
    assert.equal(final.message.content, '');
    assert.equal(final.substituted, null);
  });
  it('copies reasoning into reasoning_content and keeps tool calls', () => {
    const w = wireCopy(
      { role: 'assistant', content: '', reasoning: 'r', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      0,
      { profile: CUR, isCurrent: false, isFinal: false },
    );
    assert.equal(w.message.reasoning_content, 'r');
    assert.equal(w.substituted, null);
    assert.equal(w.message.content, '');
  });
  it('labels injected spans of a substituted sidecar', () => {
    const w = wireCopy({ role: 'user', content: 'q', api_content: `q\n\n${FENCE}\n\nPLUGIN\n\n[Voice channel now: dev-vc (2 members)]` }, 0, {
      profile: CUR,
      isCurrent: true,
      isFinal: false,
    });
    assert.deepEqual(
      w.injected.map((s) => s.kind),
      ['memory', 'plugin', 'gateway-note'],
    );
    for (const s of w.injected) assert.equal((w.message.content as string).slice(s.start, s.end), s.text);
  });
});

describe('turn prologue', () => {
  it('stamps the composed sidecar with spans by kind', () => {
    const t = buildTurnUserRow('q', { memoryPrefetch: '- prefers SQLite', pluginContext: 'P', gatewayNotes: 'G', surfaceSwitchNote: 'S' }, CUR);
    assert.equal(t.row.api_content, `q\n\n${FENCE}\n\nP\n\nG\n\nS`);
    assert.deepEqual(
      t.injected.map((s) => s.kind),
      ['memory', 'plugin', 'gateway-note', 'surface-note'],
    );
    for (const s of t.injected) assert.equal((t.row.api_content as string).slice(s.start, s.end), s.text);
  });
  it('multimodal: notes as a text part; memory and plugin appended currently, lost under V1 (#71998)', () => {
    const msg = [
      { type: 'text', text: 'look' },
      { type: 'image_url', image_url: { url: 'x' } },
    ];
    const cur = buildTurnUserRow(msg, { memoryPrefetch: 'm', pluginContext: 'P', gatewayNotes: 'G' }, CUR);
    assert.equal((cur.row.content as unknown[]).length, 4);
    assert.deepEqual(cur.lost, []);
    const v1 = buildTurnUserRow(msg, { memoryPrefetch: 'm', pluginContext: 'P', gatewayNotes: 'G' }, V1);
    assert.equal((v1.row.content as unknown[]).length, 3);
    assert.deepEqual(v1.lost, ['memory', 'plugin']);
    assert.equal(msg.length, 2, 'the inbound message is not mutated');
  });
});

describe('utf8', () => {
  it('measures and finds the first differing byte', () => {
    assert.equal(utf8Length('é😀'), 6);
    assert.equal(firstDifferingByte('abc', 'abc'), null);
    assert.equal(firstDifferingByte('héllo', 'héllx'), 5);
    assert.equal(firstDifferingByte('q1', 'q1\n\nX'), 2);
  });
});
