// Property-based robustness: generated transcripts (session JSON, turn-trace lines, state.db rows,
// hostile field values, random byte mutations) through the readers and the analysis under every
// profile, and the engine's rules called directly. Invariants:
// - nothing throws; the report validates against schemas/report.schema.json;
// - every request is counted once: turn.requests partition requests, indices dense;
// - with --messages semantics inputTokens is the sum of the per-message tokens;
// - the wire build (and the sidecar rule) never changes rows other than user and assistant,
//   and never mutates the stored rows;
// - reanchorCurrentTurnUserIdx returns -1 or a user row that userOriginatedTurnView accepts under
//   hermes-current (a valid typed index of a user row is returned as is, reference §1.3, 0041c5c);
// - one-shot notes are consumed once;
// - every parse-error has a position;
// - token bombs (test/support/tokenBombs.ts): no piece longer than MAX_PIECE code units reaches
//   the byte-pair merge and no byte reaches it twice, so counting costs O(bytes × log MAX_PIECE)
//   (test/analysis/tokenizer.test.ts checks short ones against tiktoken).
// Deterministic by default (fixed seeds); FUZZ_SEED=<n> explores other inputs.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import initSqlJs from 'sql.js';
import type { SqlJsStatic } from 'sql.js';
import { analyze } from '../../src/analysis/report';
import { createTokenCounter, MAX_PIECE } from '../../src/analysis/tokenizer';
import { wireCopy } from '../../src/engine/apiMessages';
import {
  COMPRESSION_CONTINUATION_USER_CONTENT,
  LEGACY_SUMMARY_PREFIX,
  MERGED_PRIOR_CONTEXT_HEADER,
  MERGED_SUMMARY_DELIMITER,
  SUMMARY_END_MARKER,
  SUMMARY_PREFIX,
  TODO_SNAPSHOT_PREFIX,
  userOriginatedTurnView,
} from '../../src/hermes/compactionMarkers';
import { PERSISTENCE_ONLY_MESSAGE_FIELDS } from '../../src/engine/estimator';
import { buildMemoryContextBlock } from '../../src/hermes/memoryContext';
import { contentText, type Row } from '../../src/shared/model/rows';
import { consumeGatewayTurnContextNotes, consumeSurfaceSwitchNote, type PendingTurnNotes } from '../../src/engine/notes';
import { PROFILES } from '../../src/engine/profile';
import { reanchorCurrentTurnUserIdx } from '../../src/engine/reanchor';
import { effectiveSidecar } from '../../src/engine/sidecar';
import { RequestWire } from '../../src/analysis/requestWire';
import type { ReplayRequest } from '../../src/engine/replay';
import { buildTurnUserRow } from '../../src/engine/turnContext';
import type { Transcript } from '../../src/shared/model/transcript';
import { readTranscript } from '../../src/transcripts/read';
import { utf8Length } from '../../src/shared/model/utf8';
import { bombArb } from '../support/tokenBombs';
import { HERMES_SCHEMA } from '../support/badFixtures';
import { assertReportInvariants, assertSchemaValid, snapshot } from './invariants';
import { reportCounts } from './tally';
import { PROFILE_NAMES, TOKENIZER_NAMES } from '../../src/shared/settingNames';

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : 20260918;
const counter = createTokenCounter('o200k_base');
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

const counts = { bad: 0, fuzz: 0, failures: 0 };
let transcripts = 0;
after(() => reportCounts('fuzz', counts));

/**
 * Runs every one of `numRuns` generated cases with a fixed seed (a failing case does not stop the
 * others, so the counts are real), then, if any failed, replays the property until its first
 * failure so fast-check shrinks it to a small counterexample for the report.
 */
function runProperty<T>(arb: fc.Arbitrary<T>, predicate: (value: T) => void, numRuns: number, offset: number, isTranscript: boolean): void {
  const seed = SEED + offset;
  const failures = new Map<string, number>();
  let failed = 0;
  const all = fc.check(
    fc.property(arb, (value) => {
      try {
        predicate(value);
      } catch (e) {
        failed++;
        const key = String((e as Error)?.message ?? e)
          .split('\n')[0]
          .replace(/\d+/g, 'N')
          .slice(0, 160);
        failures.set(key, (failures.get(key) ?? 0) + 1);
      }
    }),
    { numRuns, seed },
  );
  counts.fuzz += all.numRuns;
  if (isTranscript) transcripts += all.numRuns;
  if (!failed) return;
  counts.failures += failed;
  // FUZZ_FOCUS=<regex> shrinks the first failure whose message matches instead of the first one.
  const focus = process.env.FUZZ_FOCUS ? new RegExp(process.env.FUZZ_FOCUS) : null;
  const focused = focus
    ? (value: T): void => {
        try {
          predicate(value);
        } catch (e) {
          if (focus.test(String((e as Error)?.message))) throw e;
        }
      }
    : predicate;
  const shrunk = fc.check(fc.property(arb, focused), { numRuns, seed });
  const error = shrunk.errorInstance instanceof Error ? (shrunk.errorInstance.stack ?? shrunk.errorInstance.message) : String(shrunk.errorInstance);
  const kinds = [...failures]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 12)
    .map(([m, n]) => `  ${n} x ${m}`)
    .join('\n');
  assert.fail(
    `${failed} of ${all.numRuns} generated cases failed (seed ${seed}); distinct failures:\n${kinds}\n\n`
      + `smallest counterexample: ${fc.stringify(shrunk.counterexample)}\n${error}`,
  );
}

// ---------------------------------------------------------------------------------------------
// Generators: small transcripts, every kind of content.

const CARRIER_TEXT = `${SUMMARY_PREFIX} Earlier turns were compacted.\n## Historical Task Snapshot\n- imported\n\n${SUMMARY_END_MARKER}`;
const TEXTS = [
  '',
  ' ',
  'hello',
  'read notes.md',
  'ship it?',
  '<|endoftext|>',
  '<|im_start|>user\nhi<|im_end|>',
  '<|fim_prefix|>x<|fim_suffix|>',
  'héllo wörld',
  '日本語のテキストです',
  '한국어 문장',
  '😀👍🏽🇵🇹',
  '\ud800',
  'x\udc00y',
  '\udc00\ud800',
  'a\u0000b',
  'line1\nline2\n\nline3',
  ' \t\r\n ',
  buildMemoryContextBlock('- prefers SQLite'),
  '[System note: the user switched from the desktop app to the TUI]',
  '[Voice channel now: dev-vc (2 members)]',
  CARRIER_TEXT,
  `${CARRIER_TEXT}\n\nand then the real ask`,
  `${MERGED_PRIOR_CONTEXT_HEADER}\nold ask\n\n${MERGED_SUMMARY_DELIMITER}\nsummary`,
  `${TODO_SNAPSHOT_PREFIX}\n- [ ] write tests`,
  COMPRESSION_CONTINUATION_USER_CONTENT,
  `${LEGACY_SUMMARY_PREFIX} old style`,
  'a'.repeat(300),
  '{"role": "user", "content": "nested json text"}',
  '</script><script>alert(1)</script>',
  '\\u0000\\"',
];
const lone = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
const textArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...TEXTS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 16 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 10 }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.oneof(lone, fc.constantFrom('a', '\n', ' ')), maxLength: 5 }) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...TEXTS), fc.constantFrom(...TEXTS)).map(([a, b]) => `${a}\n\n${b}`) },
);
/** What a person types: any text except the agent's own bookkeeping (summary carriers, todo snapshots, the continuation marker). */
const askArb = textArb.filter((text) => userOriginatedTurnView({ role: 'user', content: text })?.content === text);
const partArb = fc.oneof(
  { weight: 4, arbitrary: textArb.map((text) => ({ type: 'text', text })) },
  { weight: 1, arbitrary: fc.constant({ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }) },
  { weight: 1, arbitrary: fc.constant({ type: 'input_image', image_url: 'https://example.com/a.png' }) },
  { weight: 1, arbitrary: fc.constant({ type: 'text' }) },
);
const contentArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: textArb },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 2, arbitrary: fc.array(partArb, { maxLength: 4 }) },
);
const callArb = fc.record({
  id: fc.constantFrom('call_1', 'call_2', 'call_3'),
  type: fc.constant('function'),
  function: fc.record({
    name: fc.constantFrom('read_file', 'terminal', '<|endoftext|>'),
    arguments: fc.oneof(fc.constant('{"path": "a.md"}'), textArb, fc.constant({ path: 'b' })),
  }),
});

/** Any stored row: plain rows of every role, and the bookkeeping rows a compaction leaves. */
const plainRowArb = fc
  .record({
    role: fc.constantFrom('user', 'user', 'user', 'assistant', 'assistant', 'assistant', 'tool', 'system'),
    content: contentArb,
    sidecar: fc.option(fc.oneof(textArb, fc.constant('')), { nil: undefined }),
    composedSidecar: fc.boolean(),
    tool_calls: fc.option(fc.array(callArb, { minLength: 1, maxLength: 2 }), { nil: undefined, freq: 4 }),
    tool_call_id: fc.option(fc.constantFrom('call_1', 'call_2'), { nil: undefined }),
    display_kind: fc.option(fc.constantFrom('hidden', '/steer', 'todo_snapshot'), { nil: undefined, freq: 6 }),
    timestamp: fc.option(fc.constantFrom(1789726500.1, 1789726502.4, 0, 1e308), { nil: undefined }),
    reasoning: fc.option(textArb, { nil: undefined, freq: 6 }),
  })
  .map((g): Row => {
    const row: Row = { role: g.role };
    if (g.content !== undefined) row.content = g.content;
    if (g.sidecar !== undefined) row.api_content = g.composedSidecar && typeof g.content === 'string' ? `${g.content}\n\n${g.sidecar}` : g.sidecar;
    if (g.tool_calls && g.role === 'assistant') row.tool_calls = g.tool_calls;
    if (g.tool_call_id && g.role === 'tool') row.tool_call_id = g.tool_call_id;
    if (g.display_kind) row.display_kind = g.display_kind;
    if (g.timestamp !== undefined) row.timestamp = g.timestamp;
    if (g.reasoning !== undefined && g.role === 'assistant') row.reasoning = g.reasoning;
    return row;
  });
const carrierRowArb: fc.Arbitrary<Row> = fc.oneof(
  fc.record({ role: fc.constantFrom('user', 'assistant'), content: fc.constant(CARRIER_TEXT), _compressed_summary: fc.constant(true) }),
  fc.record({
    role: fc.constant('user'),
    content: fc.constantFrom(CARRIER_TEXT, `${CARRIER_TEXT}\n\nmerged ask`, `${MERGED_PRIOR_CONTEXT_HEADER}\nold ask\n\n${MERGED_SUMMARY_DELIMITER}\ns`),
  }),
  fc.record({ role: fc.constant('user'), content: fc.constantFrom(`${TODO_SNAPSHOT_PREFIX}\n- [ ] x`, COMPRESSION_CONTINUATION_USER_CONTENT) }),
  fc.record({ role: fc.constant('user'), content: textArb, display_kind: fc.constant('hidden') }),
);
const rowArb: fc.Arbitrary<Row> = fc.oneof({ weight: 6, arbitrary: plainRowArb }, { weight: 1, arbitrary: carrierRowArb });
const rowsArb = fc.array(rowArb, { maxLength: 10 });

const sessionDocArb = fc
  .record({
    system_prompt: fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom('You are Hermes.', '<|im_start|>system\nYou are Hermes.<|im_end|>', '') },
      { weight: 1, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: textArb },
    ),
    tools: fc.option(fc.constant([{ type: 'function', function: { name: 'read_file', parameters: {} } }]), { nil: undefined }),
    messages: rowsArb,
    indent: fc.constantFrom(0, 1, 2),
  })
  .map(({ indent, ...doc }) => JSON.stringify({ session_id: 'fz', ...doc }, null, indent));

/** One turn-trace line: its user row first (unless a compaction list holds it), then answers and tool rows. */
const traceLineArb = fc
  .record({
    sessionId: fc.constantFrom('s1', 's1', 's1', 's2', 's3'),
    systemPrompt: fc.constantFrom('You are Hermes.', 'You are Hermes.', 'You are Hermes v2.', '<|endoftext|>'),
    userMessage: fc.oneof({ weight: 4, arbitrary: askArb }, { weight: 1, arbitrary: fc.array(partArb, { maxLength: 3 }) }),
    memoryPrefetch: fc.option(textArb, { nil: undefined }),
    pluginContext: fc.option(textArb, { nil: undefined }),
    gatewayNotes: fc.option(fc.constantFrom('[Voice channel now: dev-vc (2 members)]', '[Note: first contact]', ''), { nil: undefined }),
    surfaceSwitchNote: fc.option(fc.constantFrom('[System note: the user switched from the desktop app to the TUI]'), { nil: undefined, freq: 4 }),
    historyLength: fc.option(fc.nat(8), { nil: undefined, freq: 4 }),
    currentTurnUserIdx: fc.option(fc.integer({ min: -1, max: 8 }), { nil: undefined, freq: 3 }),
    compaction: fc.option(fc.record({ mode: fc.constantFrom('rotation', 'in-place'), messages: fc.array(rowArb, { maxLength: 5 }) }), {
      nil: undefined,
      freq: 4,
    }),
    storedSidecar: fc.boolean(),
    withUserRow: fc.oneof({ weight: 12, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    tail: fc.array(fc.oneof({ weight: 3, arbitrary: plainRowArb.map((r) => ({ ...r, role: 'assistant' })) }, { weight: 1, arbitrary: rowArb }), {
      maxLength: 4,
    }),
  })
  .map((g) => {
    const user: Row = { role: 'user', content: g.userMessage };
    if (g.storedSidecar && typeof g.userMessage === 'string') {
      const built = buildTurnUserRow(g.userMessage, g, PROFILES['hermes-current']);
      if (built.row.api_content !== undefined) user.api_content = built.row.api_content;
    }
    const line: Record<string, unknown> = { kind: 'turn-trace', version: 1, sessionId: g.sessionId, systemPrompt: g.systemPrompt, userMessage: g.userMessage };
    for (const k of ['memoryPrefetch', 'pluginContext', 'gatewayNotes', 'surfaceSwitchNote', 'historyLength', 'currentTurnUserIdx'] as const)
      if (g[k] !== undefined) line[k] = g[k];
    if (g.compaction) {
      line.compaction = { mode: g.compaction.mode, messages: g.withUserRow ? [...g.compaction.messages, user] : g.compaction.messages };
      line.messages = g.tail;
    } else {
      line.messages = g.withUserRow ? [user, ...g.tail] : g.tail;
    }
    return JSON.stringify(line);
  });
const traceArb = fc
  .record({ lines: fc.array(traceLineArb, { minLength: 1, maxLength: 6 }), finalNewline: fc.boolean(), crlf: fc.boolean() })
  .map(({ lines, finalNewline, crlf }) => lines.join(crlf ? '\r\n' : '\n') + (finalNewline ? '\n' : ''));

// ---------------------------------------------------------------------------------------------
// The checks every generated transcript goes through.

function wireKeepsOtherRoles(rows: readonly Row[], what: string): void {
  for (const profile of PROFILE_NAMES) {
    rows.forEach((row, i) => {
      for (const [isCurrent, isFinal] of [
        [false, false],
        [true, false],
        [false, true],
        [true, true],
      ]) {
        const stored = snapshot(row);
        const w = wireCopy(row, i, { profile: PROFILES[profile], isCurrent, isFinal });
        assert.equal(snapshot(row), stored, `${what}: wireCopy mutated stored row ${i}`);
        assert.equal(w.message.role, row.role, `${what}: the wire copy of row ${i} changed its role`);
        assert.ok(!('api_content' in w.message), `${what}: the sidecar key reached the wire (row ${i})`);
        for (const key of PERSISTENCE_ONLY_MESSAGE_FIELDS) assert.ok(!(key in w.message), `${what}: bookkeeping key ${key} reached the wire (row ${i})`);
        if (row.role !== 'user' && row.role !== 'assistant') {
          assert.equal(w.substituted, null, `${what}: a ${row.role} row was substituted (row ${i}, ${profile})`);
          if (row.content !== undefined)
            assert.deepEqual(w.message.content, row.content, `${what}: the wire changed a ${row.role} row's content (row ${i}, ${profile})`);
        }
      }
    });
  }
}

/** Readers + analysis under every profile: nothing throws and every invariant holds. */
function checkTranscript(t: Transcript, what: string): void {
  for (const f of t.findings) {
    const p = f.pos;
    assert.ok((p.line ?? 0) >= 1 || (p.offset ?? -1) >= 0 || !!p.sessionId, `${what}: a finding without a position: ${f.message}`);
  }
  const stored = snapshot(t);
  for (const profile of PROFILE_NAMES) {
    const { report, replay, wire } = analyze(t, { profile: PROFILES[profile], counter, messages: true });
    const label = `${what} (${profile})`;
    assertSchemaValid(report, label);
    assertReportInvariants(report, label);
    for (const turn of replay.turns) {
      if (turn.userRow >= 0)
        assert.equal(turn.rows[turn.userRow]?.role, 'user', `${label}: turn ${turn.index} is anchored on a ${turn.rows[turn.userRow]?.role} row`);
      const first = replay.requests[turn.requests[0]];
      if (first && !turn.laterCompactions.length) {
        assert.ok(
          turn.userRow < first.end,
          `${label}: turn ${turn.index} is anchored on row ${turn.userRow}, after its first request's input (rows 0..${first.end - 1})`,
        );
      }
      if (profile === 'hermes-current' && turn.userRow >= 0 && turn.anchor.rule !== 'typed-index' && !turn.laterCompactions.length) {
        assert.notEqual(
          userOriginatedTurnView(turn.rows[turn.userRow]),
          null,
          `${label}: turn ${turn.index} is anchored (${turn.anchor.rule}) on a row that is no human ask`,
        );
      }
    }
    for (const req of replay.requests) {
      for (const m of wire.messages(req)) {
        if (m.source < 0) continue;
        const row = req.rows[m.source];
        if (row.role !== 'user' && row.role !== 'assistant') {
          assert.equal(m.substituted, null, `${label}: request ${req.index} substituted a ${row.role} row`);
          if (row.content !== undefined) assert.deepEqual(m.message.content, row.content, `${label}: request ${req.index} changed a ${row.role} row`);
        }
      }
    }
  }
  assert.equal(snapshot(t), stored, `${what}: the analysis mutated the transcript`);
}

const readText = (path: string, text: string | Uint8Array): Transcript => readTranscript({ path, bytes: typeof text === 'string' ? enc(text) : text });

// ---------------------------------------------------------------------------------------------

describe('fuzz: generated transcripts through the readers and analyze, all three profiles', () => {
  let SQL: SqlJsStatic;
  before(async () => {
    SQL = await initSqlJs();
  });

  it('session JSON snapshots (4,000)', () => {
    runProperty(
      sessionDocArb,
      (text) => {
        const t = readText('session_fz.json', text);
        assert.equal(t.format, 'hermes-session-json');
        checkTranscript(t, 'session JSON');
        const rows = t.sessions.flatMap((s) => s.generations.flatMap((g) => g.rows));
        wireKeepsOtherRoles(rows, 'session JSON');
      },
      4000,
      1,
      true,
    );
  });

  it('turn-trace JSONL (4,000)', () => {
    runProperty(
      traceArb,
      (text) => {
        const t = readText('fz.trace.jsonl', text);
        assert.equal(t.format, 'turn-trace');
        checkTranscript(t, 'turn trace');
      },
      4000,
      2,
      true,
    );
  });

  it('random byte mutations of both (4,000): truncation, flipped, deleted and inserted bytes', () => {
    const mutation = fc.record({
      op: fc.constantFrom('truncate', 'flip', 'delete', 'insert'),
      at: fc.double({ min: 0, max: 1, noNaN: true }),
      bytes: fc.oneof(
        fc.uint8Array({ minLength: 1, maxLength: 4 }),
        fc.constantFrom(Uint8Array.of(0xed, 0xa0, 0x80), Uint8Array.of(0xff), Uint8Array.of(0), enc('\n'), enc('"'), enc('{'), enc(']'), enc('\\')),
      ),
      length: fc.integer({ min: 1, max: 40 }),
    });
    const caseArb = fc.record({
      base: fc.oneof(
        sessionDocArb.map((text) => ({ text, path: 'session_fz.json' })),
        traceArb.map((text) => ({ text, path: 'fz.trace.jsonl' })),
      ),
      mutations: fc.array(mutation, { minLength: 1, maxLength: 4 }),
      rename: fc.constantFrom(null, 'fz.json', 'request_dump_fz_20260101_000000_000000.json', 'notes.txt'),
    });
    runProperty(
      caseArb,
      ({ base, mutations, rename }) => {
        let bytes = enc(base.text);
        for (const m of mutations) {
          const i = Math.floor(m.at * bytes.length);
          if (m.op === 'truncate') bytes = bytes.slice(0, i);
          else if (m.op === 'flip' && bytes.length) {
            bytes = bytes.slice();
            bytes[Math.min(i, bytes.length - 1)] ^= m.bytes[0] | 1;
          } else if (m.op === 'delete') bytes = Uint8Array.from([...bytes.subarray(0, i), ...bytes.subarray(i + m.length)]);
          else bytes = Uint8Array.from([...bytes.subarray(0, i), ...m.bytes, ...bytes.subarray(i)]);
        }
        checkTranscript(readText(rename ?? base.path, bytes), `mutated ${base.path}`);
      },
      4000,
      3,
      true,
    );
  });

  it('hostile field values (2,500): nulls, negative and fractional numbers, wrong types where objects and lists belong', () => {
    const hostile = fc.constantFrom<unknown>(
      null,
      -1,
      1.5,
      1e308,
      -0,
      '',
      'x',
      true,
      [],
      {},
      [null],
      [5],
      { mode: 'rotation' },
      { mode: 'in-place', messages: null },
      { mode: 'in-place', messages: [null, 5, { role: 'user' }] },
      [{ type: 'text' }],
      { role: 'user', content: 'x' },
      JSON.parse('[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]'),
    );
    const KEYS = [
      'compaction',
      'historyLength',
      'currentTurnUserIdx',
      'userMessage',
      'messages',
      'sessionId',
      'parentSessionId',
      'systemPrompt',
      'tools',
      'memoryPrefetch',
      'pluginContext',
      'gatewayNotes',
      'version',
      'kind',
    ];
    const hostileLine = fc.tuple(traceLineArb, fc.array(fc.tuple(fc.constantFrom(...KEYS), hostile), { minLength: 1, maxLength: 3 })).map(([line, edits]) => {
      const o = JSON.parse(line) as Record<string, unknown>;
      for (const [k, v] of edits) o[k] = v;
      return JSON.stringify(o);
    });
    const hostileRow = fc
      .tuple(plainRowArb, fc.constantFrom('role', 'content', 'api_content', 'tool_calls', 'tool_call_id', 'display_kind', '_compressed_summary'), hostile)
      .map(([row, k, v]) => ({ ...row, [k]: v }));
    const caseArb = fc.oneof(
      fc.array(fc.oneof(traceLineArb, hostileLine), { minLength: 1, maxLength: 5 }).map((lines) => ({ path: 'fz.trace.jsonl', text: `${lines.join('\n')}\n` })),
      fc
        .record({ system_prompt: hostile, tools: hostile, messages: fc.array(fc.oneof(rowArb, hostileRow, hostile), { maxLength: 6 }) })
        .map((doc) => ({ path: 'session_fz.json', text: JSON.stringify({ session_id: 'fz', ...doc }, null, 1) })),
      fc.array(fc.oneof(rowArb, hostileRow), { maxLength: 6 }).map((messages) => ({
        path: 'request_dump_fz_20260101_000000_000000.json',
        text: JSON.stringify({ session_id: 'fz', request: { body: { messages: [{ role: 'system', content: 'S' }, ...messages] } } }, null, 1),
      })),
    );
    runProperty(caseArb, ({ path, text }) => checkTranscript(readText(path, text), `hostile ${path}`), 2500, 4, true);
  });

  it('state.db rows (800): lineage, in-place generations, flags and \\x00json: content', () => {
    const dbRow = fc.record({
      session: fc.constantFrom('p', 'p', 'c', 'x'),
      row: rowArb,
      active: fc.constantFrom(1, 1, 1, 0, null),
      compacted: fc.constantFrom(0, 0, 1),
      summary: fc.constantFrom(0, 0, 0, 1),
      badJson: fc.oneof({ weight: 12, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    });
    const caseArb = fc.record({
      rows: fc.array(dbRow, { maxLength: 12 }),
      childEnd: fc.constantFrom('compression', 'compression', 'branched', null),
      childParent: fc.constantFrom('p', 'p', 'c', null, 'missing'),
      prompt: fc.constantFrom('You are Hermes.', null),
    });
    runProperty(
      caseArb,
      (g) => {
        const db = new SQL.Database();
        try {
          db.run(HERMES_SCHEMA);
          db.run(`INSERT INTO sessions (id, source, system_prompt, started_at, end_reason) VALUES ('p', 'cli', ?, 1, ?)`, [g.prompt, g.childEnd]);
          db.run(`INSERT INTO sessions (id, source, system_prompt, started_at, parent_session_id) VALUES ('c', 'cli', 'You are Hermes.', 2, ?)`, [
            g.childParent,
          ]);
          db.run(`INSERT INTO sessions (id, source, system_prompt, started_at) VALUES ('x', 'cli', 'You are Hermes.', 3)`);
          const insert =
            db.prepare(`INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, timestamp, _compressed_summary, active, compacted, api_content, display_kind)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
          g.rows.forEach(({ session, row, active, compacted, summary, badJson }, i) => {
            const c = row.content;
            const content = badJson
              ? '\u0000json:[{"type"'
              : typeof c === 'string'
                ? c
                : c === undefined || c === null
                  ? null
                  : `\u0000json:${JSON.stringify(c)}`;
            insert.run([
              session,
              row.role,
              content,
              row.tool_call_id ?? null,
              row.tool_calls ? JSON.stringify(row.tool_calls) : null,
              i,
              summary || row._compressed_summary ? 1 : 0,
              active,
              compacted,
              typeof row.api_content === 'string' ? row.api_content : null,
              row.display_kind ?? null,
            ]);
          });
          insert.free();
          const t = readTranscript({ path: 'state.db', bytes: db.export() });
          checkTranscript(t, 'state.db');
        } finally {
          db.close();
        }
      },
      800,
      5,
      true,
    );
  });

  it('generated at least 10,000 transcripts', () => {
    assert.ok(transcripts >= 10_000, `${transcripts} transcripts`);
  });
});

describe('fuzz: the engine rules called directly', () => {
  it('reanchorCurrentTurnUserIdx lands on -1 or a user-originated user row (2,000)', () => {
    const caseArb = fc.record({
      rows: fc.array(rowArb, { maxLength: 10 }),
      pick: fc.nat(20),
      userMessage: fc.oneof(textArb, fc.constant(undefined), fc.array(partArb, { maxLength: 2 })),
      usePick: fc.boolean(),
      typed: fc.option(fc.integer({ min: -2, max: 12 }), { nil: undefined }),
    });
    runProperty(
      caseArb,
      ({ rows, pick, userMessage, usePick, typed }) => {
        const message = usePick && rows.length ? rows[pick % rows.length].content : userMessage;
        for (const name of PROFILE_NAMES) {
          const profile = PROFILES[name];
          for (const typedIndex of [undefined, typed]) {
            const r = reanchorCurrentTurnUserIdx(rows, message, profile, typedIndex);
            assert.equal(r.index === -1, r.rule === 'none', `${name}: index ${r.index} with rule ${r.rule}`);
            if (r.index === -1) continue;
            assert.ok(r.index >= 0 && r.index < rows.length && rows[r.index].role === 'user', `${name}: index ${r.index} is not a user row`);
            if (r.rule === 'typed-index') {
              assert.equal(name, 'hermes-current', 'only the current profile honours a typed index');
              assert.equal(r.index, typedIndex, 'a typed index is returned as is');
              continue;
            }
            if (name === 'hermes-current') {
              assert.notEqual(
                userOriginatedTurnView(rows[r.index]),
                null,
                `hermes-current anchored on a handoff/bookkeeping row ${r.index}: ${JSON.stringify(rows[r.index]).slice(0, 120)}`,
              );
            }
          }
          if (name === 'hermes-current' && rows.some((row) => userOriginatedTurnView(row) !== null)) {
            assert.notEqual(reanchorCurrentTurnUserIdx(rows, message, profile).index, -1, 'a user-originated row exists, so the fallback finds one');
          }
        }
      },
      2000,
      6,
      false,
    );
  });

  it('one-shot notes are consumed once (1,000)', () => {
    const value = fc.oneof(textArb, fc.constant(undefined), fc.constant(null), fc.integer(), fc.constant({}));
    const caseArb = fc.record({
      gateway: fc.option(value, { nil: undefined }),
      surface: fc.option(value, { nil: undefined }),
      hasGateway: fc.boolean(),
      hasSurface: fc.boolean(),
      userMessage: fc.oneof(textArb, fc.array(partArb, { maxLength: 3 })),
      memory: fc.option(textArb, { nil: undefined }),
      plugin: fc.option(textArb, { nil: undefined }),
      n: fc.nat(1000),
    });
    runProperty(
      caseArb,
      (g) => {
        const state: PendingTurnNotes = {};
        if (g.hasGateway) state.gatewayTurnContextNotes = g.gateway;
        if (g.hasSurface) state.surfaceSwitchNote = g.surface;
        const expectG = g.hasGateway && typeof g.gateway === 'string' ? g.gateway : '';
        const expectS = g.hasSurface && typeof g.surface === 'string' ? g.surface : '';
        assert.equal(consumeGatewayTurnContextNotes(state), expectG);
        assert.equal(consumeSurfaceSwitchNote(state), expectS);
        assert.equal(consumeGatewayTurnContextNotes(state), '', 'a gateway note is consumed once');
        assert.equal(consumeSurfaceSwitchNote(state), '', 'a surface note is consumed once');
        assert.equal('gatewayTurnContextNotes' in state, g.hasGateway);
        assert.equal('surfaceSwitchNote' in state, g.hasSurface);

        // Through the turn prologue: each note lands exactly once in the turn's user row.
        const gatewayNote = `[Note: gateway-${g.n}]`;
        const surfaceNote = `[System note: surface-${g.n} switched to the TUI]`;
        const inputs = { gatewayNotes: gatewayNote, surfaceSwitchNote: surfaceNote, memoryPrefetch: g.memory, pluginContext: g.plugin };
        const frozen = snapshot(inputs);
        const message = Array.isArray(g.userMessage) ? g.userMessage.map((p) => ({ ...p })) : g.userMessage;
        const frozenMessage = snapshot(message);
        for (const name of PROFILE_NAMES) {
          const built = buildTurnUserRow(message, inputs, PROFILES[name]);
          const sent = typeof built.row.api_content === 'string' ? built.row.api_content : contentText(built.row.content);
          for (const note of [gatewayNote, surfaceNote]) {
            const times = sent.split(note).length - 1;
            const inMessage = (typeof g.userMessage === 'string' ? g.userMessage : contentText(g.userMessage)).split(note).length - 1;
            assert.equal(times - inMessage, 1, `${name}: note ${note} lands ${times - inMessage} times`);
          }
        }
        assert.equal(snapshot(inputs), frozen, 'the recorded inputs are not consumed by a replay');
        assert.equal(snapshot(message), frozenMessage, 'the inbound message is not mutated');
      },
      1000,
      7,
      false,
    );
  });

  it('the wire build and the sidecar rule change only user and assistant rows (1,000)', () => {
    const counter = { name: 'o200k_base' as const, count: (t: string) => t.length, isApproximate: () => false };
    runProperty(
      fc.record({ rows: rowsArb, current: fc.integer({ min: -1, max: 10 }) }),
      ({ rows, current }) => {
        wireKeepsOtherRoles(rows, 'wire build');
        rows.forEach((row, i) => {
          const substitutes = (row.role === 'user' || row.role === 'assistant') && typeof row.api_content === 'string' && row.api_content !== '';
          assert.equal(effectiveSidecar(row), substitutes ? row.api_content : null, `${row.role}: the sidecar rule`);
          const sent = wireCopy(row, i, { profile: PROFILES['hermes-current'], isCurrent: true, isFinal: true });
          assert.ok(!('api_content' in sent.message), 'the sidecar is never sent as a key');
          if (substitutes || row.content !== undefined)
            assert.deepEqual(sent.message.content, substitutes ? row.api_content : row.content, `${row.role}: content after substitution`);
        });
        for (const name of PROFILE_NAMES) {
          const req = { rows, end: rows.length, currentUserIdx: current, systemPrompt: 'You are Hermes.' } as ReplayRequest;
          const wire = new RequestWire(PROFILES[name], counter).messages(req);
          assert.equal(wire.length, rows.length + 1);
          assert.deepEqual(wire[0].message, { role: 'system', content: 'You are Hermes.' });
          wire.slice(1).forEach((m, i) => assert.equal(m.source, i));
        }
      },
      1000,
      8,
      false,
    );
  });
});

describe('fuzz: token bombs through the counter, both encodings', () => {
  it('no piece longer than MAX_PIECE reaches the merge, and no byte twice (300)', () => {
    const caseArb = fc.record({
      bomb: bombArb,
      length: fc.oneof(fc.integer({ min: 1, max: 600 }), fc.integer({ min: MAX_PIECE - 8, max: MAX_PIECE + 8 }), fc.integer({ min: 5_000, max: 20_000 })),
    });
    runProperty(
      caseArb,
      ({ bomb, length }) => {
        const text = bomb.make(length);
        for (const name of TOKENIZER_NAMES) {
          const counter = createTokenCounter(name);
          const n = counter.count(text);
          const label = `${name}, ${bomb.shape} × ${text.length}`;
          assert.ok(n >= 1 && n <= utf8Length(text), `${label}: ${n} tokens`);
          assert.ok(counter.work.longest <= 3 * MAX_PIECE, `${label}: ${counter.work.longest} bytes merged at once`);
          assert.ok(counter.work.bytes <= utf8Length(text), `${label}: ${counter.work.bytes} bytes merged`);
          if (text.length <= MAX_PIECE) assert.equal(counter.isApproximate(text), false, label);
        }
      },
      300,
      9,
      false,
    );
  });
});
