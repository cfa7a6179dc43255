// Files that are not a transcript we read (issue 20, item 4): another agent's log, recorded HTTP
// traffic, JSON or JSON lines of another kind get one `not-a-transcript` finding with file and
// position, no turn and no parse-error; a turn trace with damaged lines still gets a parse-error
// per line and replays the rest. The real foreign files are read where they are kept
// (../shared/fixtures/foreign, PROVENANCE.md there), never copied into the repository.

import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { analyze } from '../../src/analysis/report';
import type { Report } from '../../src/shared/reportTypes';
import { createTokenCounter } from '../../src/analysis/tokenizer';
import { PROFILES } from '../../src/engine/profile';
import type { Transcript } from '../../src/shared/model/transcript';
import { loadRemembering, loadTranscript } from '../../src/transcripts/load';
import { readTranscript } from '../../src/transcripts/read';
import { example, ROOT, tempDir } from '../cli/support';

const FOREIGN = join(ROOT, '..', 'shared', 'fixtures', 'foreign');
const counter = createTokenCounter('o200k_base');
const reportOf = (t: Transcript): Report => analyze(t, { profile: PROFILES['hermes-current'], counter, messages: false }).report;
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const read = (path: string, text: string | Uint8Array): Report => reportOf(readTranscript({ path, bytes: typeof text === 'string' ? enc(text) : text }));

/** Every file under `dir` but the notes about them. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : e.name.endsWith('.md') ? [] : [p];
  });
}

/** The one finding the file gets: not a transcript, what it looks like, where. */
function onlyNotATranscript(r: Report, kind: RegExp, line = 1): Report['diagnostics'][number] {
  assert.deepEqual(
    r.diagnostics.map((d) => d.code),
    ['not-a-transcript'],
    r.diagnostics
      .slice(0, 3)
      .map((d) => d.message)
      .join('\n'),
  );
  const d = r.diagnostics[0];
  assert.equal(d.severity, 'error', 'nothing in it was checked: check must not pass it');
  assert.match(d.message, kind);
  assert.match(d.message, /Prompt Inspector reads Hermes state\.db, session JSON .*request dumps .*turn-trace JSONL/, 'it says what we read');
  assert.equal(d.line, line);
  assert.equal(d.column, 1);
  assert.deepEqual([r.turns.length, r.requests.length, r.sessions.length], [0, 0, 0]);
  return d;
}

/** What each folder of ../shared/fixtures/foreign holds, and the kind its files must be named. */
const KINDS: Record<string, RegExp> = {
  'claude-code': /this looks like a Claude Code session log \(Claude Code [\d.]+; line 1: "type": "[a-z-]+" with /,
  codex: /this looks like a Codex rollout \(codex-tui [\d.]+; line 1: "type": "session_meta" with "payload"\)/,
  'api-capture': /this looks like recorded HTTP traffic \(a VCR cassette in YAML: \d+ requests? and (its response|their responses)\)/,
};

describe('files of other tools: one not-a-transcript finding, no turn, no parse-error', { skip: !existsSync(FOREIGN) && `${FOREIGN} is not there` }, () => {
  const files = existsSync(FOREIGN) ? filesUnder(FOREIGN) : [];
  it('are all named by a kind', () => {
    assert.ok(files.length >= 12, `${files.length} files`);
    for (const f of files) assert.ok(KINDS[relative(FOREIGN, f).split('/')[0]], `${f}: which kind?`);
  });
  for (const f of files) {
    it(relative(FOREIGN, f), async () => {
      const r = reportOf(await loadTranscript(f));
      const d = onlyNotATranscript(r, KINDS[relative(FOREIGN, f).split('/')[0]]);
      assert.ok(d.message.startsWith(`${f}:1: not a transcript: `), d.message);
      if (f.endsWith('.jsonl')) {
        const lines = readFileSync(f, 'utf8')
          .split('\n')
          .filter((l) => l.trim()).length;
        assert.ok(d.message.includes(`none of its ${lines.toLocaleString('en-US')} lines is a turn-trace line`), d.message);
      }
    });
  }
  it('the spotter log: one finding where there were 2,385 parse-errors', async () => {
    const r = reportOf(await loadTranscript(join(FOREIGN, 'claude-code/spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl')));
    assert.match(
      onlyNotATranscript(r, /Claude Code 2\.1\.39/).message,
      /a Claude Code session log \(Claude Code 2\.1\.39; line 1: "type": "file-history-snapshot" with "messageId"\); none of its 2,385 lines is a turn-trace line/,
    );
  });
  it('a Claude Code log cut inside its last line (being written) is still one finding', () => {
    const text = readFileSync(join(FOREIGN, 'claude-code/vscode-copilot-chat/b3a7bd3c-5a10-4e7b-8ff0-7fc0cd6d1093.jsonl'), 'utf8');
    onlyNotATranscript(read('live.jsonl', text.slice(0, 3000)), /Claude Code 2\.1\.33; line 1: "type": "queue-operation" with "sessionId"/);
  });
  it('a Claude Code log whose lines quote a turn-trace line is still no trace', () => {
    const [first, second] = readFileSync(join(FOREIGN, 'claude-code/vscode-copilot-chat/30530d66-37fb-4f3b-aa5f-d92b6a8afae2.jsonl'), 'utf8').split('\n');
    const quoting = JSON.stringify({ ...JSON.parse(second), input: { kind: 'turn-trace', systemPrompt: 'S', userMessage: 'q' } });
    onlyNotATranscript(read('quoting.jsonl', `${first}\n${quoting}\n`), /a Claude Code session log \(Claude Code 1\.0\.120; line 1: /);
  });
});

describe('JSON and text of another kind', () => {
  it('JSON lines: their first line shown, under any name', () => {
    const text = '{"event":"start","at":1}\n{"event":"stop","at":2}\n';
    for (const name of ['events.jsonl', 'events.json', 'session_x.json'])
      assert.match(
        onlyNotATranscript(read(name, text), /JSON lines/).message,
        /this looks like JSON lines of another kind \(none of its 2 lines is a turn-trace line; line 1 is an object with keys "event", "at"\)/,
      );
  });
  it('JSON lines that name "messages" (chat fine-tuning data) are no snapshot', () => {
    const text = '{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":"a"}]}\n{"messages":[{"role":"user","content":"q2"}]}\n';
    onlyNotATranscript(read('train.jsonl', text), /JSON lines of another kind .*keys "messages"/);
  });
  it('lines that are not JSON at all: one finding, not one per line', () => {
    onlyNotATranscript(
      read('notes.jsonl', 'first thought\nsecond thought\nthird\n'),
      /text that is not JSON lines \(none of its 3 lines is a turn-trace line\)/,
    );
  });
  it('the first line that parses is the one named', () => {
    const r = read('x.jsonl', '\n# a comment\n{"a":1}\n');
    onlyNotATranscript(r, /line 3 is an object with keys "a"/, 3);
  });
  it('an early Codex rollout (metadata, then Responses API items)', () => {
    const text = [
      '{"id":"0196","timestamp":"2025-05-01T10:00:00.000Z","instructions":null}',
      '{"record_type":"state"}',
      '{"type":"message","id":null,"role":"user","content":[{"type":"input_text","text":"hi"}]}',
    ].join('\n');
    onlyNotATranscript(read('rollout-2025-05-01T10-00-00-0196.jsonl', `${text}\n`), /a Codex rollout \(line 2: "record_type": "state"\)/, 2);
  });
  it('recorded HTTP traffic as JSON: a HAR archive, and JSON lines of exchanges', () => {
    const har = JSON.stringify({ log: { entries: [{ request: { postData: { text: '{"messages":[]}' } }, response: { status: 200 } }] } });
    onlyNotATranscript(read('capture.har', har), /recorded HTTP traffic \(a HAR archive: "log\.entries"\)/);
    const lines = '{"request":{"body":"{}"},"response":{"status":200}}\n{"request":{"body":"{}"},"response":{"status":529}}\n';
    onlyNotATranscript(read('capture.jsonl', lines), /recorded HTTP traffic \(line 1: a "request" with its "response"\); none of its 2 lines/);
  });
  it('a VCR cassette is recognised by content, not by its name', () => {
    const yaml =
      'interactions:\n- request:\n    body: \'{"messages": [{"role": "user", "content": "hi"}], "session_id": "x"}\'\n  response:\n    status: {code: 200}\nversion: 1\n';
    for (const name of ['cassette.yaml', 'cassette.json', 'session_x.json'])
      onlyNotATranscript(read(name, yaml), /recorded HTTP traffic \(a VCR cassette in YAML: 1 request and its response\)/);
  });
  it('a JSON document naming neither messages nor a session, and text that is not JSON', () => {
    onlyNotATranscript(
      read('settings.json', '{"model": "x", "hooks": {"messages": []}}'),
      /a JSON document of another kind \(an object with keys "model", "hooks"\)/,
    );
    onlyNotATranscript(read('a.json', '[1,2]'), /a JSON document of another kind \(a list\)/);
    onlyNotATranscript(read('notes.txt', 'just some words'), /this looks like text that is not JSON;/);
  });
  it('what the file holds is shown escaped: no control or bidi character reaches the message', () => {
    const text = `${JSON.stringify({ 'a\u001b[31m': 1, 'b\u202ec': 2, ['k'.repeat(60)]: 3 })}\n{"x":1}\n`;
    const d = onlyNotATranscript(read('hostile.jsonl', text), /JSON lines of another kind/);
    assert.doesNotMatch(d.message, /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
    assert.ok(d.message.includes('"a\\u001b[31m", "b\\u202ec", "kkkk'), d.message);
  });
  it('a NUL byte in a line does not make such a file binary', () => {
    const text = '{"type":"user","sessionId":"s","uuid":"u1"}\n{"type":"assistant","sessionId":"s","uuid":"u2","text":"\u0000"}\n';
    onlyNotATranscript(read('nul.jsonl', text), /a Claude Code session log \(line 1: "type": "user" with "sessionId" and "uuid"\)/);
  });
  it('a snapshot-named document with a key of a snapshot is a damaged snapshot, not another kind', () => {
    const r = read('session_s.json', '{"system_prompt": "S", "message": []}');
    assert.deepEqual(
      r.diagnostics.map((d) => d.code),
      ['parse-error'],
    );
    assert.match(r.diagnostics[0].message, /"messages" is missing/);
  });
  it('bytes that are not UTF-8 in such a file add nothing: it is not read', () => {
    const bytes = Uint8Array.from([...enc('{"a":1}\n{"a":"'), 0xff, ...enc('"}\n')]);
    onlyNotATranscript(read('bad.jsonl', bytes), /JSON lines of another kind/);
  });
});

describe('a turn trace with damaged lines is still a trace', () => {
  const trace = readFileSync(example('trace/agent.trace.jsonl'), 'utf8');
  const lines = trace.split('\n').filter(Boolean);
  const whole = read('t.jsonl', trace);
  it('one bad line: its one parse-error at its line, every other line replayed', () => {
    const damaged = [lines[0], '{"type":"user","sessionId":"s","uuid":"u"}', ...lines.slice(1)].join('\n');
    const r = read('t.jsonl', `${damaged}\n`);
    assert.deepEqual(
      r.diagnostics.filter((d) => d.severity !== 'info').map((d) => [d.code, d.line]),
      [['parse-error', 2]],
    );
    assert.match(r.diagnostics.find((d) => d.code === 'parse-error')?.message ?? '', /t\.jsonl:2: not a turn-trace line/);
    assert.equal(r.turns.length, whole.turns.length);
    assert.equal(r.requests.length, whole.requests.length);
  });
  it('a first line that is not a trace line does not decide it', () => {
    const r = read('t.jsonl', `{"hello":"world"}\n${trace}`);
    assert.deepEqual(
      r.diagnostics.filter((d) => d.code === 'parse-error' || d.code === 'not-a-transcript').map((d) => [d.code, d.line]),
      [['parse-error', 1]],
    );
    assert.equal(r.turns.length, whole.turns.length);
  });
  it('lines whose kind was damaged are trace lines still: each gets its own finding', () => {
    const kindless = lines.map((l) => l.replace('"kind":"turn-trace"', '"kind":null'));
    const r = read('t.jsonl', `${kindless.join('\n')}\n`);
    assert.deepEqual(
      r.diagnostics.map((d) => [d.code, d.line]),
      kindless.map((_, i) => ['parse-error', i + 1]),
    );
  });
  it('a trace whose only line is being written waits for it: a parse-error at the end, not a verdict', () => {
    const r = read('t.jsonl', lines[0].slice(0, 120));
    assert.deepEqual(
      r.diagnostics.map((d) => [d.code, d.line, d.atEnd]),
      [['parse-error', 1, true]],
    );
  });
  it('a file whose lines so far are all damaged is read whole again when it grows, and then told', async () => {
    const dir = tempDir();
    const path = join(dir, 'grows.jsonl');
    writeFileSync(path, '{"type":"user","sessionId":\n');
    const earlier = await loadRemembering(path);
    assert.deepEqual(
      earlier.transcript.findings.map((f) => f.code),
      ['parse-error'],
    );
    appendFileSync(path, '{"type":"user","sessionId":"s","uuid":"u1","parentUuid":null}\n{"type":"assistant","sessionId":"s","uuid":"u2"}\n');
    const grown = (await loadRemembering(path, { earlier: earlier.memory })).transcript;
    assert.notEqual(grown, earlier.transcript, 'read whole, not continued');
    onlyNotATranscript(reportOf(grown), /a Claude Code session log \(line 2: "type": "user" with "sessionId" and "uuid"\); none of its 3 lines/, 2);
  });
});
