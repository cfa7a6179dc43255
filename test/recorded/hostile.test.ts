// Other agents' files, damaged (issue 24, item 7): the real Claude Code log, Codex rollout and
// cassette (../shared/fixtures/foreign), and hostile values in their records, mutated by fast-check
// (fixed seed; FUZZ_SEED=<n> explores others). Invariants: nothing throws; every finding has a
// line (or a HAR entry's place); the report's calls are each a call read once; what a mutated line
// cost is its line, never the file: the lines left untouched still give their calls.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { recordedReport } from '../../src/analysis/recordedReport';
import type { RecordedTranscript } from '../../src/shared/model/recorded';
import { readApiCapture } from '../../src/transcripts/apiCapture';
import { linesOfText } from '../../src/transcripts/jsonLines';
import { readClaudeCode } from '../../src/transcripts/claudeCode';
import { readCodex } from '../../src/transcripts/codex';
import { FOREIGN_FILES } from '../support/foreignFixtures';

const seed = Number(process.env.FUZZ_SEED ?? 24);
const RUNS = 40;

/** The checks every read must pass, whatever it was given. */
function holds(t: RecordedTranscript): void {
  for (const f of t.findings) assert.ok(f.pos.line !== undefined || f.pos.offset !== undefined || f.pos.entry !== undefined, f.message);
  const report = recordedReport(t);
  assert.equal(report.calls.length, t.sessions.flatMap((s) => s.turns.flatMap((turn) => turn.calls)).length);
  JSON.stringify(report);
}

/** A line damaged one of several ways: cut short, a byte flipped, a value swapped for a hostile one. */
const damage = fc.oneof(
  fc.nat().map((n) => (line: string) => line.slice(0, n % Math.max(1, line.length))),
  fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })).map(([n, b]) => (line: string) => {
    const i = n % Math.max(1, line.length);
    return line.slice(0, i) + String.fromCharCode(b) + line.slice(i + 1);
  }),
  fc
    .constantFrom('null', '[]', '"x"', '-1', '1e999', '{"type": 7}', '{"__proto__": {"polluted": 1}}', '"\u202e\u0000"', '{}')
    .map((v) => (line: string) => line.replace(/:\s*("[^"]*"|\d+|true|false|null|\{\}|\[\])/, `: ${v}`)),
);

function fuzzLines(text: string, read: (text: string) => RecordedTranscript): void {
  const lines = text.split('\n');
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.nat(), damage), { minLength: 1, maxLength: 8 }), (edits) => {
      const copy = [...lines];
      for (const [at, hurt] of edits) copy[at % copy.length] = hurt(copy[at % copy.length]);
      const t = read(copy.join('\n'));
      holds(t);
    }),
    { seed, numRuns: RUNS },
  );
}

describe('other agents files, damaged', { skip: !FOREIGN_FILES.present && 'the foreign fixtures are not there' }, () => {
  it('a Claude Code log: damaged lines cost their lines', () => {
    fuzzLines(readFileSync(FOREIGN_FILES.parallel, 'utf8'), (text) => readClaudeCode({ path: 'c.jsonl', lines: linesOfText(text) }));
  });

  it('a Codex rollout: damaged lines cost their lines', () => {
    const text = readFileSync(FOREIGN_FILES.codexRollout, 'utf8').split('\n').slice(0, 60).join('\n');
    fuzzLines(text, (t) => readCodex('r.jsonl', linesOfText(t)));
  });

  it('a cassette: damaged YAML is a finding, never a throw', () => {
    fuzzLines(readFileSync(FOREIGN_FILES.cassetteTools, 'utf8'), (t) => readApiCapture('c.yaml', t, 'cassette'));
  });

  it('hostile values where a reader expects its own', () => {
    const hostile = fc.oneof(fc.constant(null), fc.constant([]), fc.string(), fc.integer(), fc.double(), fc.object());
    fc.assert(
      fc.property(hostile, hostile, hostile, (a, b, c) => {
        const lines = [
          JSON.stringify({ type: 'assistant', sessionId: 's', uuid: 'u', timestamp: a, message: { id: b, model: c, usage: a } }),
          JSON.stringify({ type: 'system', subtype: 'compact_boundary', sessionId: 's', uuid: 'v', compactMetadata: b }),
          JSON.stringify({ type: 'user', sessionId: 's', uuid: 'w', message: { content: c } }),
        ].join('\n');
        holds(readClaudeCode({ path: 'c.jsonl', lines: linesOfText(lines) }));
        const rollout = [
          JSON.stringify({ type: 'session_meta', payload: { id: a, base_instructions: b } }),
          JSON.stringify({ type: 'turn_context', payload: a }),
          JSON.stringify({ type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: b, last_token_usage: c } } }),
        ].join('\n');
        holds(readCodex('r.jsonl', linesOfText(rollout)));
        const har = JSON.stringify({
          log: {
            entries: [
              {
                request: { method: 'POST', url: 'https://api.openai.com/v1/responses', postData: { text: JSON.stringify({ input: a, tools: b }) } },
                response: { content: { text: c } },
              },
            ],
          },
        });
        holds(readApiCapture('x.har', har, 'har'));
      }),
      { seed, numRuns: 200 },
    );
  });
});
