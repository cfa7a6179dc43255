// JSON and JSONL read the way Hermes (Python's json) reads them: a NUL byte costs its line or
// message, NaN/Infinity/-Infinity are the numbers Python wrote, repeated keys keep the last, and
// every finding sits at the offending character (never at the end unless the input ends there).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readJsonDocument } from '../../src/transcripts/jsonDocument';
import { parseJson } from '../../src/transcripts/pythonJson';
import { readHermesSessionJson } from '../../src/transcripts/hermesSessionJson';
import { readTranscript, sniffFormat } from '../../src/transcripts/read';
import type { Transcript } from '../../src/shared/model/transcript';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const read = (path: string, text: string | Uint8Array): Transcript => readTranscript({ path, bytes: typeof text === 'string' ? enc(text) : text });
const rowsOf = (t: Transcript): unknown[] => t.sessions.flatMap((s) => s.generations.flatMap((g) => g.rows.map((r) => r.content)));
const errors = (t: Transcript) => t.findings.filter((f) => f.severity === 'error');
const warnings = (t: Transcript) => t.findings.filter((f) => f.severity === 'warning');

/** Line and column (1-based) of the first occurrence of `marker` in `text`. */
function at(text: string, marker: string, from = 0): { line: number; column: number } {
  const offset = text.indexOf(marker, from);
  assert.ok(offset >= 0, `marker ${JSON.stringify(marker)} not found`);
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before[before.length - 1].length + 1 };
}

const traceLine = (n: number, extra = ''): string =>
  `{"kind": "turn-trace", "version": 1, "sessionId": "s", "systemPrompt": "S", "userMessage": "q${n}", "messages": [{"role": "user", "content": "q${n}"${extra}}, {"role": "assistant", "content": "a${n}"}]}`;

/** A snapshot with one message per line, each line given as text. */
const snapshot = (messages: string[], header = '"session_id": "s1",\n  "system_prompt": "SYS",'): string =>
  `{\n  ${header}\n  "messages": [\n${messages.map((m) => `    ${m}`).join(',\n')}\n  ]\n}\n`;
const FOUR = [
  '{"role": "user", "content": "q1"}',
  '{"role": "assistant", "content": "a1"}',
  '{"role": "user", "content": "q2"}',
  '{"role": "assistant", "content": "a2"}',
];

describe('parseJson: Python-compatible, positioned', () => {
  it('reads NaN, Infinity and -Infinity as the numbers Python wrote, and says where', () => {
    const text = '{"a": 1,\n "b": [NaN, Infinity, -Infinity, 2]}';
    const p = parseJson(text);
    assert.ok(p.ok);
    assert.deepEqual(p.value, { a: 1, b: [NaN, Infinity, -Infinity, 2] });
    assert.deepEqual(p.nonFinite, { tokens: ['NaN', 'Infinity', '-Infinity'], pos: { ...at(text, 'NaN'), offset: text.indexOf('NaN') } });
  });

  const cases: [string, string, string, boolean][] = [
    // [why, text, the offending text (its first occurrence), atEnd]
    ['a raw NUL inside a string', '{"a": "x\u0000y", "b": 2}', '\u0000', false],
    ['a raw newline inside a string', '{"a": "x\ny"}', '\n', false],
    ['a bad escape', '{"a": "x\\qy"}', '\\q', false],
    ['a missing comma', '{"a": 1\n "b": 2}', '"b"', false],
    ['a trailing comma', '{"a": [1, 2,]}', ']', false],
    ['a misspelled literal', '{"a": nul}', '}', false],
    ["Python's repr spelling", '{"a": nan}', 'an}', false],
    ['text after the value', '[1, 2] x', 'x', false],
    ['a leading zero', '{"a": 01}', '1}', false],
  ];
  for (const [why, text, marker, atEnd] of cases) {
    it(`${why}: at the offending character`, () => {
      const p = parseJson(text);
      assert.ok(!p.ok, 'refused');
      assert.deepEqual({ line: p.pos.line, column: p.pos.column, atEnd: p.atEnd }, { ...at(text, marker), atEnd });
    });
  }
  for (const cut of ['{"a": [1, 2', '{"a": "unfinished', '{"a": -', '{"a": 1.5e', '{"a": tr', '{"a": "\\u00', '{"a": -Inf', '{"a"']) {
    it(`input that ends too soon (${JSON.stringify(cut)}) is atEnd, at the end`, () => {
      const p = parseJson(cut);
      assert.ok(!p.ok);
      assert.deepEqual({ column: p.pos.column, offset: p.pos.offset, atEnd: p.atEnd }, { column: cut.length + 1, offset: cut.length, atEnd: true });
    });
  }
  it('parses what JSON.parse parses, to the same value, at any depth', () => {
    const deep = `${'['.repeat(20_000)}NaN${']'.repeat(20_000)}`;
    assert.ok(parseJson(deep).ok, 'iterative: no stack overflow');
    const text = '{"__proto__": {"x": 1}, "k": "\\ud800 \\u00e9", "n": -0.5e-3, "a": [true, false, null, {}], "k": 2}';
    const p = parseJson(text.replace('-0.5e-3', 'NaN'));
    assert.ok(p.ok);
    assert.deepEqual({ ...(p.value as object), n: -0.5e-3 }, JSON.parse(text));
    assert.equal(Object.getPrototypeOf(p.value), Object.prototype, '"__proto__" is an own key, not the prototype');
  });
});

describe('readJsonDocument: each member and element on its own', () => {
  it('repeated keys: the value and the list of the last, with the lines of the last', () => {
    const text = '{\n"messages": [\n1,\n2\n],\n"x": 1,\n"messages": [\n3,\n\n4\n],\n"x": 2\n}';
    const r = readJsonDocument(text, ['messages']);
    assert.deepEqual(r.value, JSON.parse(text));
    assert.deepEqual(r.list, [
      { value: 3, line: 8, index: 0 },
      { value: 4, line: 10, index: 1 },
    ]);
    assert.deepEqual(r.errors, []);
  });
  it('a later member of the key that is not a list leaves no list', () => {
    const r = readJsonDocument('{"messages": [1], "messages": {"a": 1}}', ['messages']);
    assert.deepEqual(r.value, { messages: { a: 1 } });
    assert.equal(r.list, undefined);
  });
  it("a nested path (a dump's request.body.messages): a repeated parent replaces the list below it", () => {
    const text = '{"request": {"body": {"messages": [1, 2]}}, "request": {"body": {"model": "m"}}}';
    const r = readJsonDocument(text, ['request', 'body', 'messages']);
    assert.deepEqual(r.value, JSON.parse(text));
    assert.equal(r.list, undefined);
    const again = readJsonDocument('{"request": {"body": {"messages": [1], "messages": [2, 3]}}}', ['request', 'body', 'messages']);
    assert.deepEqual(
      again.list?.map((e) => e.value),
      [2, 3],
    );
  });
  it('an element that does not parse is left out, the others and the members after it read', () => {
    const text = '{"messages": [\n{"a": 1},\n{"a": "x\u0000"},\n{"a": 3}\n], "after": true}';
    const r = readJsonDocument(text, ['messages']);
    assert.deepEqual(
      r.list?.map((e) => [e.index, e.line]),
      [
        [0, 2],
        [2, 4],
      ],
    );
    assert.deepEqual(r.value, { messages: [{ a: 1 }, { a: 3 }], after: true });
    assert.equal(r.errors.length, 1);
    const { where, stopped, atEnd, pos } = r.errors[0];
    assert.deepEqual({ where, stopped, atEnd, line: pos.line, column: pos.column }, { where: 1, stopped: false, atEnd: false, ...at(text, '\u0000') });
  });
  it('a break in the structure keeps everything before it and stops there', () => {
    const text = '{"messages": [\n{"a": 1}\n{"a": 2}\n]}';
    const r = readJsonDocument(text, ['messages']);
    assert.deepEqual(
      r.list?.map((e) => e.value),
      [{ a: 1 }],
    );
    assert.equal(r.errors.length, 1);
    assert.equal(r.errors[0].stopped, true);
    assert.deepEqual([r.errors[0].pos.line, r.errors[0].pos.column], [3, 1]);
  });
});

describe('turn traces', () => {
  it('NUL padding after a crash: the lines before it read, the padding is one finding, not atEnd', () => {
    const text = `${traceLine(1)}\n${traceLine(2)}\n${'\u0000'.repeat(4096)}`;
    const t = read('t.jsonl', text);
    assert.equal(t.format, 'turn-trace');
    assert.deepEqual(rowsOf(t), ['q1', 'a1', 'q2', 'a2']);
    assert.deepEqual(
      t.findings.map((f) => [f.pos.line, f.pos.column, f.atEnd]),
      [[3, 1, undefined]],
    );
  });
  it('a zeroed first block costs the lines it overwrote', () => {
    const good = [1, 2, 3, 4].map((n) => traceLine(n)).join('\n') + '\n';
    const bytes = enc(good);
    bytes.fill(0, 0, good.indexOf('\n') + 40);
    const t = read('t.jsonl', bytes);
    assert.equal(t.format, 'turn-trace');
    assert.deepEqual(rowsOf(t), ['q3', 'a3', 'q4', 'a4']);
    assert.deepEqual(
      errors(t).map((f) => [f.pos.line, f.pos.column]),
      [[1, 1]],
    );
  });
  it('an error in the middle of an unterminated last line is not a writer still writing', () => {
    const t = read('t.jsonl', `${traceLine(1)}\n${traceLine(2).replace('"q2"}', '"q\u00002"}')}`);
    assert.equal(errors(t).length, 1);
    assert.equal(errors(t)[0].atEnd, undefined);
    assert.doesNotMatch(errors(t)[0].message, /incomplete/);
  });
  it('NaN in a line: the line replays with the number, a warning at the token', () => {
    const text = `${traceLine(1)}\n${traceLine(2, ', "score": NaN')}\n`;
    const t = read('t.jsonl', text);
    assert.deepEqual(errors(t), []);
    assert.deepEqual(rowsOf(t), ['q1', 'a1', 'q2', 'a2']);
    assert.ok(Number.isNaN(t.sessions[0].generations[0].rows[2].score));
    assert.deepEqual(
      warnings(t).map((f) => f.pos),
      [at(text, 'NaN')],
    );
    assert.match(warnings(t)[0].message, /^t\.jsonl:2:\d+: the line holds NaN .*becomes null/);
  });
});

describe('session JSON', () => {
  it('a NUL inside a string of message 1: the other three read, the finding is at the NUL', () => {
    const text = snapshot([FOUR[0], FOUR[1].replace('a1', 'a\u00001'), FOUR[2], FOUR[3]]);
    assert.equal(sniffFormat('s.json', enc(text)), 'hermes-session-json');
    const t = read('s.json', text);
    assert.deepEqual(rowsOf(t), ['q1', 'q2', 'a2']);
    assert.deepEqual(t.sessions[0].generations[0].pos, [{ line: 5 }, { line: 7 }, { line: 8 }]);
    assert.equal(errors(t).length, 1);
    assert.deepEqual(errors(t)[0].pos, at(text, '\u0000'));
    assert.equal(errors(t)[0].atEnd, undefined);
    assert.match(errors(t)[0].message, /^s\.json:6:\d+: message 1: raw control character U\+0000 .*; left out$/);
  });
  it("NaN, Infinity and -Infinity (Python's json.dump): every message reads, the numbers kept, a warning at each token", () => {
    const text = snapshot([
      FOUR[0].replace('}', ', "score": NaN}'),
      FOUR[1].replace('}', ', "cost": Infinity}'),
      FOUR[2],
      FOUR[3].replace('}', ', "delta": -Infinity}'),
    ]);
    const t = read('s.json', text);
    assert.deepEqual(errors(t), []);
    assert.deepEqual(rowsOf(t), ['q1', 'a1', 'q2', 'a2']);
    const rows = t.sessions[0].generations[0].rows;
    assert.ok(Number.isNaN(rows[0].score));
    assert.deepEqual([rows[1].cost, rows[3].delta], [Infinity, -Infinity]);
    assert.deepEqual(
      warnings(t).map((f) => f.pos),
      [at(text, 'NaN'), at(text, 'Infinity'), at(text, '-Infinity')],
    );
    assert.ok(warnings(t).every((f) => f.atEnd === undefined));
    assert.match(warnings(t)[0].message, /^s\.json:5:\d+: message 0 holds NaN /);
    assert.deepEqual(read('s.json', text), readHermesSessionJson('s.json', text), 'the streaming reader leaves it to the whole text');
  });
  it('NaN in the header: the header member reads as Python reads it', () => {
    const t = read('s.json', snapshot(FOUR, '"session_id": "s1",\n  "estimated_cost": NaN,\n  "system_prompt": "SYS",'));
    assert.deepEqual(errors(t), []);
    assert.equal(t.sessions[0].systemPrompt, 'SYS');
    assert.deepEqual(
      warnings(t).map((f) => [f.pos.line, f.pos.column]),
      [[3, 21]],
    );
    assert.match(warnings(t)[0].message, /"estimated_cost" holds NaN/);
  });
  it('a snapshot cut after a NaN: the cut is at the end, the NaN at its token', () => {
    const full = snapshot([FOUR[0].replace('}', ', "score": NaN}'), ...FOUR.slice(1)]);
    const text = full.slice(0, full.indexOf('a2'));
    const t = read('s.json', text);
    assert.deepEqual(rowsOf(t), ['q1', 'a1', 'q2']);
    assert.deepEqual(
      errors(t).map((f) => [f.pos.line, f.atEnd]),
      [[text.split('\n').length, true]],
    );
    assert.deepEqual(
      warnings(t).map((f) => f.pos),
      [at(text, 'NaN')],
    );
  });

  const twoLists = snapshot(
    FOUR.map((m) => m.replace(/"(q|a)(\d)"/, '"$1$2 new"')),
    '"session_id": "old",\n  "system_prompt": "OLD",\n  "tools": [],\n  "messages": [\n    {"role": "user", "content": "stale"}\n  ],\n  "session_id": "new",\n  "system_prompt": "NEW",\n  "tools": [{"type": "function", "function": {"name": "f"}}],',
  );
  it('two "messages" lists: the last one is read, with its own lines, by both readers', () => {
    const whole = readHermesSessionJson('s.json', twoLists);
    const streamed = read('s.json', twoLists);
    assert.deepEqual(streamed, whole);
    assert.deepEqual(rowsOf(whole), ['q1 new', 'a1 new', 'q2 new', 'a2 new']);
    assert.deepEqual(
      whole.sessions[0].generations[0].pos.map((p) => p.line),
      [12, 13, 14, 15],
    );
    for (const [i, p] of whole.sessions[0].generations[0].pos.entries())
      assert.ok(twoLists.split('\n')[(p.line as number) - 1].includes(`${i % 2 ? 'a' : 'q'}${Math.floor(i / 2) + 1} new`));
    assert.deepEqual(whole.findings, []);
  });
  it('repeated session_id, system_prompt and tools: the last wins, as in Python', () => {
    const s = readHermesSessionJson('s.json', twoLists).sessions[0];
    assert.deepEqual([s.id, s.systemPrompt, s.tools], ['new', 'NEW', [{ type: 'function', function: { name: 'f' } }]]);
  });
  it('a later "messages" that is not a list: no list (as Python reads it), said once', () => {
    const text = snapshot(FOUR).replace(/\n\}\n$/, ',\n  "messages": null\n}\n');
    const t = read('s.json', text);
    assert.deepEqual(rowsOf(t), []);
    assert.deepEqual(
      t.findings.map((f) => f.message),
      ['s.json: "messages" is not a list'],
    );
  });
  it('a truncated snapshot keeps the header members before the cut, the last of repeated ones', () => {
    const text = '{"session_id": "a", "system_prompt": "P1", "session_id": "b", "system_prompt": "P2 is cut';
    const t = read('s.json', text);
    assert.equal(t.sessions[0].id, 'b');
    assert.equal(t.sessions[0].systemPrompt, 'P1', 'the cut prompt is not read; the complete one is');
    assert.equal(errors(t)[0].atEnd, true);
  });
});

describe('request dumps', () => {
  const dump = (body: string, extra = ''): string =>
    `{\n  "session_id": "d1",${extra}\n  "request": {\n    "body": {\n      "model": "m",\n      "messages": [\n${body}\n      ]\n    }\n  }\n}\n`;
  const SIX = ['{"role": "system", "content": "S"}', ...FOUR, '{"role": "user", "content": "q3"}'].map((m) => `        ${m}`);
  const path = 'request_dump_d1_20260918_102255_523000.json';

  it('each body message at its own line', () => {
    const text = dump(SIX.join(',\n'));
    const t = read(path, text);
    assert.deepEqual(t.findings, []);
    assert.deepEqual(
      t.sessions[0].generations[0].pos.map((p) => p.line),
      [8, 9, 10, 11, 12],
    );
  });
  it('a NUL in body message 2: the others read, the finding at the NUL', () => {
    const text = dump(SIX.map((m, i) => (i === 2 ? m.replace('a1', 'a\u00001') : m)).join(',\n'));
    const t = read(path, text);
    assert.equal(t.format, 'hermes-request-dump');
    assert.deepEqual(rowsOf(t), ['q1', 'q2', 'a2', 'q3']);
    assert.deepEqual(
      errors(t).map((f) => f.pos),
      [at(text, '\u0000')],
    );
    assert.match(errors(t)[0].message, /body message 2: raw control character/);
  });
  it('NaN in a body message: the dump reads whole', () => {
    const text = dump(SIX.map((m, i) => (i === 1 ? m.replace('}', ', "x": NaN}') : m)).join(',\n'));
    const t = read(path, text);
    assert.deepEqual(errors(t), []);
    assert.equal(rowsOf(t).length, 5);
    assert.equal(t.sessions[0].generations[0].trailingRequest, true, 'known whole');
    assert.deepEqual(
      warnings(t).map((f) => f.pos),
      [at(text, 'NaN')],
    );
  });
  it('two body "messages" lists and two session ids: the last of each', () => {
    const text = dump(SIX.join(',\n'), '\n  "session_id": "d2",').replace(
      '"model": "m",',
      '"model": "m",\n      "messages": [{"role": "user", "content": "stale"}],',
    );
    const t = read(path, text);
    assert.deepEqual(t.findings, []);
    assert.equal(t.sessions[0].id, 'd2');
    assert.deepEqual(rowsOf(t), ['q1', 'a1', 'q2', 'a2', 'q3']);
    assert.deepEqual(
      t.sessions[0].generations[0].pos.map((p) => p.line),
      [10, 11, 12, 13, 14],
    );
  });
});
