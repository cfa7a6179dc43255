import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analyze } from '../../src/analysis/report';
import { createTokenCounter } from '../../src/analysis/tokenizer';
import { loadTranscript } from '../../src/transcripts/load';
import { PROFILES } from '../../src/engine/profile';
import { readTranscript, sniffFormat } from '../../src/transcripts/read';
import { example, tempDir } from '../cli/support';
import { sqliteExec } from '../support/sqliteExec';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const read = (path: string, text: string) => readTranscript({ path, bytes: enc(text) });
const reportOf = (t: ReturnType<typeof read>, profile: keyof typeof PROFILES = 'hermes-current') =>
  analyze(t, { profile: PROFILES[profile], counter: createTokenCounter('o200k_base'), messages: false }).report;

const session = (messages: unknown[], extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ session_id: 's1', system_prompt: 'SYS', messages, ...extra }, null, 1);
const U = (content: unknown, more: Record<string, unknown> = {}) => ({ role: 'user', content, ...more });
const A = (content: unknown, more: Record<string, unknown> = {}) => ({ role: 'assistant', content, ...more });

describe('format detection by content', () => {
  it('ignores misleading names', () => {
    assert.equal(sniffFormat('notes.txt', enc(session([U('q')]))), 'hermes-session-json');
    assert.equal(sniffFormat('x.db', enc(readFileSync(example('trace/agent.trace.jsonl'), 'utf8'))), 'turn-trace');
    assert.equal(sniffFormat('session_x.json', readFileSync(example('rotation/state.db'))), 'hermes-state-db');
    assert.equal(sniffFormat('a.json', enc('{"request":{"body":{"messages":[]}}}')), 'hermes-request-dump');
    assert.equal(sniffFormat('a.bin', new Uint8Array([0, 1, 2, 3])), 'unknown');
  });
  it('a NUL byte does not make a trace, a snapshot or a dump binary; random and compressed bytes still are', () => {
    const trace = readFileSync(example('trace/agent.trace.jsonl'), 'utf8');
    assert.equal(sniffFormat('t.txt', enc(trace.replace('"userMessage":"', '"userMessage":"\u0000'))), 'turn-trace');
    assert.equal(sniffFormat('notes.txt', enc(session([U('q\u0000')]).replace('\\u0000', '\u0000'))), 'hermes-session-json');
    assert.equal(sniffFormat('a.json', enc('{"request": {"body": {"messages": [{"role": "user", "content": "\u0000"}]}}}')), 'hermes-request-dump');
    assert.equal(
      sniffFormat(
        't.jsonl',
        Uint8Array.from({ length: 512 }, (_, i) => (i * 131 + 7) & 0xff),
      ),
      'unknown',
    );
    assert.equal(sniffFormat('session_x.json', Uint8Array.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0x22, 0x6d])), 'unknown', 'gzip under a session name');
    assert.equal(sniffFormat('session_x.json', enc('\u0000\u0000{"messages": []}')), 'unknown', 'NULs before the JSON starts');
  });
});

describe('session JSON', () => {
  it('reports bad rows with their line and replays the rest', () => {
    const text = session([U('q1'), { role: 'wizard', content: 'x' }, A('a1'), U(42), { nope: 1 }, A('a2')]);
    const r = reportOf(read('s.json', text));
    const errors = r.diagnostics.filter((d) => d.code === 'parse-error');
    assert.equal(errors.length, 3);
    const lines = text.split('\n');
    for (const e of errors) assert.ok(e.line && lines[e.line - 1].trim().startsWith('{'), `line ${e.line} points at a message`);
    assert.match(errors[0].message, /unknown role "wizard"/);
    assert.match(errors[1].message, /content must be a string/);
    assert.equal(r.requests.length, 2);
  });
  it('messages missing or not a list is a parse-error, not a crash', () => {
    for (const doc of ['{"session_id":"s"}', '{"session_id":"s","messages":{}}']) {
      const r = reportOf(read('s.json', doc));
      assert.equal(r.diagnostics[0].code, 'parse-error', doc);
      assert.equal(r.requests.length, 0);
    }
    // Named as a snapshot, a list is a damaged one; otherwise JSON of another kind (foreign.test.ts).
    assert.equal(reportOf(read('session_s.json', '[1,2]')).diagnostics[0].code, 'parse-error');
    for (const doc of ['[1,2]', '"str"']) assert.equal(reportOf(read('s.json', doc)).diagnostics[0].code, 'not-a-transcript', doc);
  });
  it('a truncated file keeps every complete message and names the line of the cut', () => {
    const text = session([U('q1', { api_content: 'q1\n\nPLUGIN' }), A('a1'), U('q2'), A('a2 is long enough to be cut')]);
    const cut = text.slice(0, text.indexOf('cut'));
    const r = reportOf(read('s.json', cut));
    const d = r.diagnostics.find((x) => x.code === 'parse-error');
    assert.ok(d);
    assert.equal(d.line, cut.split('\n').length);
    assert.equal(d.atEnd, true);
    assert.equal(r.turns.length, 2, 'the file was cut inside the answer to its last complete ask: that turn happened');
    assert.equal(r.requests.length, 1, 'the cut answer is not invented');
    assert.equal(r.sessions[0].systemPromptSha256?.length, 64, 'the header before the cut is kept');
  });
  it('special-token strings and lone surrogates are just text', () => {
    const text = session([U('say <|endoftext|> and <|im_start|>'), A('\ud800 lone </script>')]);
    const r = reportOf(read('s.json', text));
    assert.equal(r.requests.length, 1);
    assert.ok(r.requests[0].inputTokens > 10);
  });
});

describe('turn-trace', () => {
  const trace = readFileSync(example('trace/agent.trace.jsonl'), 'utf8');
  it('a half-written last line is reported; the lines before it replay', () => {
    const lines = trace.split('\n').filter(Boolean);
    const partial = `${lines.slice(0, 3).join('\n')}\n${lines[3].slice(0, 200)}`;
    const r = reportOf(read('t.jsonl', partial));
    const d = r.diagnostics.find((x) => x.code === 'parse-error');
    assert.ok(d);
    assert.equal(d.line, 4);
    assert.match(d.message, /incomplete/);
    assert.equal(d.atEnd, true, 'a live view may wait for the writer');
    assert.equal(r.turns.length, 3);
  });
  it('an invalid line in the middle is skipped with its line number', () => {
    const lines = trace.split('\n').filter(Boolean);
    const broken = [lines[0], '{"kind":"turn-trace","version":1}', ...lines.slice(1)].join('\n') + '\n';
    const r = reportOf(read('t.jsonl', broken));
    assert.equal(r.diagnostics.find((x) => x.code === 'parse-error')?.line, 2);
    assert.equal(r.diagnostics.find((x) => x.code === 'parse-error')?.atEnd, undefined, 'a broken line followed by others is no writer mid-line');
    assert.equal(r.turns.length, 7);
  });
  it('a NUL byte inside a string costs its line only, named at the NUL', () => {
    const lines = trace.split('\n').filter(Boolean);
    const column = lines[1].indexOf('"userMessage":"') + 16;
    lines[1] = `${lines[1].slice(0, column - 1)}\u0000${lines[1].slice(column - 1)}`;
    const r = reportOf(read('t.jsonl', `${lines.join('\n')}\n`));
    assert.equal(r.source.format, 'turn-trace');
    assert.deepEqual(
      r.diagnostics.filter((d) => d.code === 'parse-error').map((d) => [d.line, d.column, d.atEnd]),
      [[2, column, undefined]],
    );
    assert.deepEqual(
      r.turns.map((t) => t.line),
      [1, 3, 4, 5, 6, 7],
      'the other lines replay',
    );
  });
  it('the recorded sidecars match the composition rule: no replay-mismatch under hermes-current', () => {
    const r = reportOf(read('t.jsonl', trace));
    assert.deepEqual(
      r.diagnostics.filter((d) => d.code === 'replay-mismatch'),
      [],
    );
    assert.equal(r.turns.find((t) => t.compression)?.compression?.reanchor.rule, 'typed-index');
  });
  it('hermes-v1 drops memory and plugin context on the image turn (#71998)', () => {
    const r = reportOf(read('t.jsonl', trace), 'hermes-v1');
    const lost = r.diagnostics.filter((d) => d.code === 'notes-lost');
    assert.equal(lost.length, 1);
    assert.equal(lost[0].line, 3);
  });
  it('a rewind (historyLength below the running list) breaks the prefix as a rewind', () => {
    const line = (n: number, msgs: unknown[], extra: Record<string, unknown> = {}) =>
      JSON.stringify({ kind: 'turn-trace', version: 1, sessionId: 's', systemPrompt: 'SYS', userMessage: `q${n}`, messages: msgs, ...extra });
    const text = [line(1, [U('q1'), A('a1')]), line(2, [U('q2'), A('a2')]), line(3, [U('q3'), A('a3')], { historyLength: 2 })].join('\n') + '\n';
    const r = reportOf(read('t.jsonl', text));
    assert.equal(r.requests.length, 3);
    assert.deepEqual(r.requests[2].prefix.breakAt, { messageIndex: 3, byteOffset: 1, cause: 'rewind' });
  });
  it('a rotation starts a child session of the previous one', () => {
    const line = (sid: string, n: number, msgs: unknown[], extra: Record<string, unknown> = {}) =>
      JSON.stringify({ kind: 'turn-trace', version: 1, sessionId: sid, systemPrompt: 'SYS', userMessage: `q${n}`, messages: msgs, ...extra });
    const carrier = {
      role: 'user',
      content: '[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns…\n\n--- END OF CONTEXT SUMMARY — respond to the message below, not the summary above ---',
      _compressed_summary: true,
    };
    const text = [
      line('p', 1, [U('q1', { timestamp: 1 }), A('a1', { timestamp: 2 })]),
      line('c', 2, [A('a2')], { compaction: { mode: 'rotation', messages: [carrier, U('q2')] } }),
    ].join('\n');
    const r = reportOf(read('t.jsonl', text));
    assert.deepEqual(
      r.sessions.map((s) => [s.id, s.parentId]),
      [
        ['p', null],
        ['c', 'p'],
      ],
    );
    assert.equal(r.turns[1].compression?.mode, 'rotation');
    assert.equal(r.turns[1].compression?.beforeMessages, 3);
    assert.equal(r.turns[1].compression?.afterMessages, 2);
    assert.equal(r.requests[1].prefix.breakAt?.cause, 'compression');
  });
});

describe('state.db', () => {
  it('reads committed rows that exist only in the WAL, leaving the files untouched', async () => {
    const dir = tempDir();
    const live = join(dir, 'live.db');
    copyFileSync(example('rotation/state.db'), live);
    const snap = join(dir, 'snap');
    // A writer in WAL mode adds an answer and keeps the database open while we copy it away.
    sqliteExec(
      live,
      [
        `BEGIN;
INSERT INTO messages(session_id, role, content, timestamp, active, compacted)
  VALUES ((SELECT id FROM sessions WHERE parent_session_id IS NOT NULL LIMIT 1), 'user', 'one more question', 1790000000.0, 1, 0);
INSERT INTO messages(session_id, role, content, timestamp, active, compacted)
  VALUES ((SELECT id FROM sessions WHERE parent_session_id IS NOT NULL LIMIT 1), 'assistant', 'one more answer', 1790000001.0, 1, 0);
COMMIT;`,
      ],
      { wal: true, copy: snap },
    );
    const before = readdirSync(dir).sort();
    const stamp = statSync(snap + '.db').mtimeMs;
    const bytes = readFileSync(snap + '.db');
    const withWal = reportOf(await loadTranscript(snap + '.db'));
    copyFileSync(snap + '.db', join(dir, 'alone.db'));
    const plain = reportOf(await loadTranscript(join(dir, 'alone.db')));
    assert.equal(withWal.requests.length, plain.requests.length + 1, 'the WAL-only turn is replayed');
    assert.equal(withWal.turns.length, plain.turns.length + 1);
    assert.ok(readFileSync(snap + '.db').equals(bytes), 'database bytes unchanged');
    assert.equal(statSync(snap + '.db').mtimeMs, stamp);
    assert.deepEqual(readdirSync(dir).sort(), [...before, 'alone.db'].sort(), 'no -shm or journal created');
    assert.equal(existsSync(snap + '.db-shm'), false);
  });

  it('an SQLite file with another schema is a parse-error', async () => {
    const dir = tempDir();
    const other = join(dir, 'state.db');
    sqliteExec(other, ['CREATE TABLE t(x);']);
    const r = reportOf(await loadTranscript(other));
    assert.equal(r.diagnostics[0].code, 'parse-error');
    assert.match(r.diagnostics[0].message, /without the Hermes schema/);
  });

  it('in-place compaction: archived rows form the list before, the re-inserted set the list after', async () => {
    const r = reportOf(await loadTranscript(example('in-place/state.db')));
    const turn = r.turns.find((t) => t.compression);
    assert.ok(turn?.compression);
    assert.equal(turn.compression.mode, 'in-place');
    assert.equal(turn.compression.beforeMessages, 23);
    assert.ok(turn.compression.afterMessages < turn.compression.beforeMessages);
    // The todo snapshot after the user row is part of the list but never a turn.
    assert.equal(r.turns.length, 8);
    assert.equal(new Set(r.requests.map((q) => q.index)).size, r.requests.length);
  });

  it('a branch child (end_reason not compression) is its own lineage', async () => {
    const dir = tempDir();
    const db = join(dir, 'state.db');
    copyFileSync(example('rotation/state.db'), db);
    sqliteExec(db, ["UPDATE sessions SET end_reason='branched' WHERE parent_session_id IS NULL;"]);
    const r = reportOf(await loadTranscript(db));
    const childFirst = r.requests.find((q) => q.sessionId !== r.sessions[0].id);
    assert.equal(childFirst?.prefix.previousRequest, null);
    assert.ok(r.turns.every((t) => t.compression === null));
    // The child's copies of its parent's rows (and the carrier between them) are not counted again.
    const childTurns = r.turns.filter((t) => t.sessionId !== r.sessions[0].id);
    assert.equal(childTurns[0].userMessageIndex, 9, 'the first turn of the branch is its own new user row');
    assert.equal(r.turns.length, 8);
  });
});
