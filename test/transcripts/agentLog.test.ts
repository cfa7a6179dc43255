// The agent.log parser (src/transcripts/agentLog.ts) on what Python's logging writes, fed in any
// chunks: split anywhere it reads the same as whole, resumes from a saved state, and costs a bad or
// over-long line only that line.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { endAgentLog, feedAgentLog, parseAgentLog, startAgentLog, type AgentLogState, type AgentLogStep } from '../../src/transcripts/agentLog';
import { asLogged, writeAgentLog } from '../support/agentLogWriter';

const dir = mkdtempSync(join(tmpdir(), 'pi-agentlog-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const cat = (...parts: Uint8Array[]): Uint8Array => Uint8Array.from(parts.flatMap((p) => [...p]));

const truth = writeAgentLog(join(dir, 'small'), 'small');
const small = new Uint8Array(readFileSync(join(dir, 'small', 'logs', 'agent.log')));
const text = new TextDecoder().decode(small);
const lines = text.split('\n');
/** The record header of the log's last call line, for lines made up here in the same shape. */
const head = lines.find((l) => l.includes('API call #'))!.split('API call #')[0];

/** Feeds the chunks in order, then ends: one result, as parseAgentLog gives it. */
function feedAll(chunks: Uint8Array[], maxLineBytes?: number): AgentLogStep {
  let state = startAgentLog('agent.log', { maxLineBytes });
  const out: AgentLogStep = { state, records: [], findings: [] };
  for (const c of chunks) {
    const step = feedAgentLog(state, c);
    state = step.state;
    out.records.push(...step.records);
    out.findings.push(...step.findings);
  }
  const end = endAgentLog(state);
  return { state: end.state, records: [...out.records, ...end.records], findings: [...out.findings, ...end.findings] };
}

describe('agent.log as Python writes it', () => {
  const r = parseAgentLog('agent.log', small);

  it('reads every record the writer logged, with the fields it logged', () => {
    assert.deepEqual(
      r.records.map((rec, i) => asLogged(rec, truth[i])),
      truth,
    );
    assert.deepEqual(r.findings, []);
  });

  it('keeps the local time as written, with its fields', () => {
    for (const rec of r.records) {
      const t = rec.time;
      const again = `${t.year}-${String(t.month).padStart(2, '0')}-${String(t.day).padStart(2, '0')} ${String(t.hour).padStart(2, '0')}:${String(t.minute).padStart(2, '0')}:${String(t.second).padStart(2, '0')},${String(t.millisecond).padStart(3, '0')}`;
      assert.equal(again, t.text);
    }
  });

  it('places each record at its line and byte offset', () => {
    for (const rec of r.records) {
      const at = rec.pos.offset ?? -1;
      assert.equal(small.subarray(0, at).filter((b) => b === 10).length + 1, rec.pos.line);
      assert.ok(at === 0 || small[at - 1] === 10, 'a record starts a line');
    }
  });

  it('takes nothing from a traceback or a message continued over lines, though they quote call lines', () => {
    assert.ok(text.includes('Traceback') && text.includes('\n  API call #9'), 'the log has both');
    assert.equal(r.records.filter((x) => x.kind === 'call').length, truth.filter((x) => x.kind === 'call').length);
  });
});

/** The small log with every kind of trouble added: CRLF lines, an over-long line, bad UTF-8, a damaged call line, an unfinished last line. */
function troubled(): Uint8Array {
  const call = (n: number, model: string) => `${head}API call #${n}: model=${model} provider=openrouter in=100 out=2 total=102 latency=0.5s`;
  return cat(
    small,
    enc(`${call(20, 'crlf/model')}\r\n`),
    enc(`${head}x ${'y'.repeat(600)}\n`),
    enc(`${head}API call #21: model=m provider=p in=15x out=2 total=17 latency=0.1s\n`),
    enc(`${head}API call #22: model=caf\u00e9`),
    new Uint8Array([0xff]),
    enc(`${call(22, '').split('model=')[1]}\n${call(23, 'last')}`),
  );
}

describe('chunks', () => {
  const bytes = troubled();
  const whole = feedAll([bytes], 400);

  it('the troubled log reads its good lines and says what is wrong with the rest', () => {
    const calls = whole.records.filter((x) => x.kind === 'call');
    assert.deepEqual(
      calls.slice(-2).map((c) => c.kind === 'call' && [c.n, c.model]),
      [
        [20, 'crlf/model'],
        [22, 'caf\u00e9\uFFFD'],
      ],
    );
    assert.deepEqual(
      whole.findings.map((f) => [f.severity, f.pos.line, /longer than 400/.test(f.message), f.atEnd ?? false]),
      [
        ['warning', lines.length + 1, true, false],
        ['error', lines.length + 2, false, false],
        ['warning', lines.length + 3, false, false],
        ['warning', lines.length + 4, false, true],
      ],
    );
  });

  it('split at every byte offset, reads as the whole does', () => {
    for (let k = 0; k <= bytes.length; k++) {
      assert.deepEqual(feedAll([bytes.subarray(0, k), bytes.subarray(k)], 400), whole, `split at ${k}`);
    }
  });

  it('fed one byte at a time, reads as the whole does', () => {
    assert.deepEqual(
      feedAll(
        Array.from(bytes, (_, i) => bytes.subarray(i, i + 1)),
        400,
      ),
      whole,
    );
  });

  it('resumes from a saved state, which feeding again leaves as it was', () => {
    for (const k of [1, 100, Math.floor(bytes.length / 2), bytes.length - 5]) {
      const first = feedAgentLog(startAgentLog('agent.log', { maxLineBytes: 400 }), bytes.subarray(0, k));
      const saved: AgentLogState = structuredClone(first.state);
      const onward = (s: AgentLogState) => {
        const next = feedAgentLog(s, bytes.subarray(k));
        const end = endAgentLog(next.state);
        return {
          state: end.state,
          records: [...first.records, ...next.records, ...end.records],
          findings: [...first.findings, ...next.findings, ...end.findings],
        };
      };
      assert.deepEqual(onward(saved), whole, `resumed at ${k}`);
      assert.deepEqual(onward(first.state), whole, `the same state fed a second time, at ${k}`);
      assert.equal(saved.offset, k);
    }
  });
});

describe('line endings and the last line', () => {
  it('reads CRLF lines (Python on Windows) as LF ones', () => {
    const lf = parseAgentLog('agent.log', small);
    const crlf = parseAgentLog('agent.log', enc(text.replace(/\n/g, '\r\n')));
    const strip = (s: AgentLogStep) => s.records.map(({ pos, ...rest }) => ({ ...rest, line: pos.line }));
    assert.deepEqual(strip(crlf), strip(lf));
    assert.deepEqual(crlf.findings, []);
  });

  it('holds an unfinished last line until its newline arrives; at the end it is a finding, not a record', () => {
    const cut = small.subarray(0, small.length - 1);
    const fed = feedAgentLog(startAgentLog('agent.log'), cut);
    const full = parseAgentLog('agent.log', small).records;
    assert.equal(fed.records.length, full.length - 1);
    assert.ok(fed.state.pending.length > 0);
    const ended = endAgentLog(fed.state);
    assert.deepEqual(ended.records, []);
    assert.equal(ended.findings.length, 1);
    assert.equal(ended.findings[0].atEnd, true);
    assert.equal(ended.findings[0].pos.line, fed.state.line);
    const completed = feedAgentLog(fed.state, enc('\n'));
    assert.deepEqual(completed.records, full.slice(-1));
  });

  it('says nothing of an unfinished line of no kind of ours', () => {
    const ended = endAgentLog(feedAgentLog(startAgentLog('agent.log'), enc(`${head.replace('agent.conversation_loop', 'httpx')}HTTP Request: POST`)).state);
    assert.deepEqual(ended.findings, []);
  });
});

describe('bad bytes and long lines', () => {
  it('reads a call line holding bytes that are not UTF-8, with one finding at the first of them', () => {
    const bad = cat(enc(`${head}API call #1: model=a`), new Uint8Array([0xff, 0xfe]), enc(` provider=p in=1 out=1 total=2 latency=0.1s\n`));
    const r = parseAgentLog('agent.log', cat(bad, bad));
    assert.equal(r.records.length, 2);
    assert.ok(r.records[0].kind === 'call' && r.records[0].model === 'a\uFFFD\uFFFD');
    assert.equal(r.findings.length, 1);
    assert.equal(r.findings[0].pos.offset, enc(`${head}API call #1: model=a`).length);
  });

  it('skips a 200 MB line with one finding, never holding more than the limit of it', () => {
    const max = 1 << 20;
    let state = startAgentLog('agent.log', { maxLineBytes: max });
    const piece = new Uint8Array(1 << 20).fill(0x78);
    const findings = [];
    for (let i = 0; i < 200; i++) {
      const step = feedAgentLog(state, piece);
      state = step.state;
      findings.push(...step.findings);
      assert.ok(state.pending.length <= max);
    }
    const rest = feedAgentLog(state, enc(`\n${lines.find((l) => l.includes('API call #1'))}\n`));
    assert.equal(findings.length + rest.findings.length, 1);
    assert.equal((findings[0] ?? rest.findings[0]).pos.line, 1);
    assert.ok(
      rest.records.length === 1 && rest.records[0].kind === 'call' && rest.records[0].pos.line === 2 && rest.records[0].pos.offset === 200 * piece.length + 1,
    );
  });

  it('reports a damaged call line at the field that breaks, and reads on', () => {
    const line = `${head}API call #3: model=m provider=p in=12 out=x total=3 latency=0.1s`;
    const r = parseAgentLog('agent.log', enc(`${line}\n${lines[1]}\n`));
    assert.equal(r.records.length, 1);
    assert.equal(r.findings.length, 1);
    assert.equal(r.findings[0].severity, 'error');
    assert.equal(r.findings[0].pos.column, line.indexOf(' in=') + 1);
    assert.equal(r.findings[0].pos.line, 1);
  });

  it('costs a hostile line its length: repeated separators do not make the patterns backtrack', () => {
    const hostile = [
      `${head}API call #1: model=${' provider='.repeat(200_000)}`,
      `${head}API call failed (attempt 1/3) error_type=E thread=${' provider=a'.repeat(6000)}`,
      `${head}context compression started: session=s messages=1 tokens=~1 model=${' focus='.repeat(9000)}x`,
    ];
    const started = process.hrtime.bigint();
    const r = parseAgentLog('agent.log', enc(hostile.join('\n') + '\n'), { maxLineBytes: 4 << 20 });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    assert.equal(r.findings.length, 1, 'the damaged call line');
    assert.ok(ms < 2000, `${ms} ms`);
  });
});
