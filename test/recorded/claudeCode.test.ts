// Claude Code session logs read into the recorded model (issue 24, item 2), on the real files other
// people's tools wrote (../shared/fixtures/foreign, PROVENANCE.md there), read where they are kept
// and never copied: a call per message.id with the last line's usage, turns from the user's own
// lines, the compaction with its preTokens and its summary, subagents and the compaction call as
// sessions of their own, and each call's cache judged.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { judgeRecordedCalls } from '../../src/analysis/recordedCache';
import { recordedReport } from '../../src/analysis/recordedReport';
import type { RecordedTranscript } from '../../src/shared/model/recorded';
import { claudeCodeHead } from '../../src/transcripts/agentFolders';
import { readClaudeCode } from '../../src/transcripts/claudeCode';
import { linesOfText } from '../../src/transcripts/jsonLines';
import { loadClaudeCode } from '../../src/transcripts/recordedFiles';
import { FOREIGN_FILES } from '../support/foreignFixtures';

const { claudeCode: CLAUDE, spotter: SPOTTER, oldLayout: OLD_LAYOUT, parallel: PARALLEL } = FOREIGN_FILES;

const calls = (t: RecordedTranscript, session: string) => t.sessions.find((s) => s.id === session)?.turns.flatMap((turn) => turn.calls) ?? [];
const sum = (xs: (number | null)[]): number => xs.reduce<number>((n, x) => n + (x ?? 0), 0);

describe('Claude Code logs of real sessions', { skip: !existsSync(CLAUDE) && `${CLAUDE} is not there` }, () => {
  it('spotter: 408 assistant lines are 217 calls, each with its last line usage', () => {
    const t = loadClaudeCode(SPOTTER);
    const main = 'ae4a77f8-aedd-4bc1-888f-c94edc91af04';
    assert.equal(t.format, 'claude-code');
    assert.equal(t.agentVersion, '2.1.39');
    assert.deepEqual(t.findings, []);
    assert.deepEqual(t.records, { systemPrompt: false, tools: false, requestBytes: false, billedUsage: true, compactions: true });
    const own = calls(t, main);
    assert.equal(own.length, 217);
    assert.equal(sum(own.map((c) => c.lines)), 408);
    // Sums of the last line of each id (PROVENANCE.md; a sum over every line would be larger).
    assert.deepEqual(
      [sum(own.map((c) => c.usage?.input ?? null)), sum(own.map((c) => c.usage?.cacheRead ?? null)), sum(own.map((c) => c.usage?.cacheWrite ?? null))],
      [242 + 16553628 + 237121, 16553628, 237121],
    );
    assert.deepEqual(new Set(own.map((c) => c.model)), new Set(['claude-opus-4-6', 'claude-haiku-4-5-20251001']));
    const first = own[0];
    assert.equal(first.id, 'msg_01AjAtmphJjr4oSLfTyzk8LA');
    assert.deepEqual(first.usage, {
      input: 3 + 17842 + 8165,
      cacheRead: 17842,
      cacheWrite: 8165,
      cacheWrite5m: 8165,
      cacheWrite1h: 0,
      output: first.usage?.output,
    });
    assert.ok(first.lines > 1 && first.pos.line !== undefined && first.pos.line > 8, 'the usage is the last line the response was written on');
  });

  it('spotter: the manual compaction, its summary, the compaction call and the Task subagent', () => {
    const t = loadClaudeCode(SPOTTER);
    const main = t.sessions[0];
    assert.equal(main.kind, 'main');
    assert.equal(main.compactions.length, 1);
    const [c] = main.compactions;
    assert.equal(c.trigger, 'manual');
    assert.equal(c.preTokens, 142431);
    assert.equal(c.pos.line, 1481);
    assert.equal(c.summaryPos?.line, 1482);
    // The first prompt, the /compact command (its echoed output is no prompt), then "continue implementation".
    assert.deepEqual(
      main.turns.map((turn) => [turn.pos?.line, turn.calls.length]),
      [
        [7, 138],
        [1484, 0],
        [1491, 79],
      ],
    );
    assert.match(main.turns[1].prompt, /^<command-name>\/compact<\/command-name>/);
    assert.equal(c.turnIndex, 1, 'the turn after the boundary is the first of the compacted history');
    const byKind = new Map(t.sessions.map((s) => [s.kind, s]));
    const compaction = byKind.get('compaction');
    assert.equal(compaction?.id, `${main.id}/acompact-946d2b`);
    assert.equal(compaction?.parentId, main.id);
    const [summarize] = calls(t, compaction?.id ?? '');
    assert.deepEqual([summarize.usage?.input, summarize.usage?.cacheRead, summarize.usage?.cacheWrite], [3 + 17842 + 121689, 17842, 121689]);
    assert.equal(calls(t, byKind.get('subagent')?.id ?? '').length, 3);
  });

  it('spotter: each call judged against the last of its model; the one miss is the first call after the compaction, 39 minutes on', () => {
    const t = loadClaudeCode(SPOTTER);
    const judged = judgeRecordedCalls(t);
    assert.equal(judged.length, 217 + 3 + 1);
    const main = judged.filter((j) => j.session === t.sessions[0].id);
    assert.equal(main.filter((j) => j.previous === null).length, 2, 'one first call per model');
    for (const j of main) if (j.previous) assert.equal(j.previous.model, j.call.model);
    const misses = judged.filter((j) => j.cacheMiss);
    assert.deepEqual(
      misses.map((j) => [j.call.pos.line, j.turn, j.cacheMiss?.class, j.cacheMiss?.rebilledTokens, j.cacheMiss?.idleSeconds]),
      // The cache held 28,726 read + 3,733 written; 21,448 (the system prompt and tools) were read.
      [[1511, 2, 'expired', 28726 + 3733 - 21448, 2358.713]],
    );
    // What each call answered, by its first line's parent: the miss answered the user's prompt after the compaction.
    assert.deepEqual(misses[0].call.after, { line: 1491, what: 'prompt' });
    const answered = new Map<string, number>();
    for (const j of judged) answered.set(j.call.after?.what ?? 'not recorded', (answered.get(j.call.after?.what ?? 'not recorded') ?? 0) + 1);
    assert.deepEqual(Object.fromEntries(answered), { 'tool result': 216, prompt: 4, other: 1 });
  });

  it("the old layout: 15 calls, the summary line is the conversation's title", () => {
    const t = loadClaudeCode(OLD_LAYOUT);
    assert.equal(t.agentVersion, '1.0.120');
    assert.equal(t.sessions.length, 1);
    assert.equal(calls(t, t.sessions[0].id).length, 15);
    assert.match(t.title ?? '', /^API Error: 401/);
    assert.deepEqual(t.findings, []);
  });

  it('four parallel subagents are four sessions of the main one', () => {
    const t = loadClaudeCode(PARALLEL);
    const subagents = t.sessions.filter((s) => s.kind === 'subagent');
    assert.equal(subagents.length, 4);
    for (const s of subagents) {
      assert.equal(s.parentId, t.sessions[0].id);
      assert.equal(calls(t, s.id).length, 2);
    }
    assert.equal(calls(t, t.sessions[0].id).length, 2);
  });
});

describe('Claude Code logs, damaged or from a later version', () => {
  const line = (v: Record<string, unknown>): string => JSON.stringify({ sessionId: 's', uuid: 'u', timestamp: '2026-01-01T00:00:00Z', ...v });
  const usage = (read: number, write: number) => ({ input_tokens: 3, cache_read_input_tokens: read, cache_creation_input_tokens: write, output_tokens: 5 });
  const assistant = (id: string, read: number, write: number, at = '2026-01-01T00:00:01Z') =>
    line({ type: 'assistant', timestamp: at, message: { id, model: 'claude-sonnet-4-5', role: 'assistant', content: [], usage: usage(read, write) } });

  it('a broken line costs that line, with its position; an unknown type one finding; the rest reads', () => {
    const text = [
      line({ type: 'user', message: { role: 'user', content: 'hi' } }),
      '{"type": "assistant", "message": {',
      line({ type: 'hologram', data: 1 }),
      line({ type: 'hologram', data: 2 }),
      '[1, 2]',
      assistant('msg_1', 0, 5000),
      line({ type: 'assistant' }),
      assistant('msg_2', 5000, 100, '2026-01-01T00:00:05Z'),
      '{"type": "user", "mess',
    ].join('\n');
    const t = readClaudeCode({ path: 'x.jsonl', lines: linesOfText(text) });
    assert.deepEqual(
      t.findings.map((f) => [f.severity, f.pos.line, f.atEnd ?? false]),
      [
        ['error', 2, false],
        ['error', 5, false],
        ['error', 7, false],
        ['error', 9, true],
        ['info', 3, false],
      ],
    );
    assert.match(t.findings[0].message, /^x\.jsonl:2:\d+: /);
    assert.match(t.findings[3].message, /still being written/);
    assert.match(t.findings[4].message, /^x\.jsonl:3: 2 lines of type "hologram" not read/);
    assert.deepEqual(
      t.sessions[0].turns[0].calls.map((c) => c.id),
      ['msg_1', 'msg_2'],
    );
    assert.equal(judgeRecordedCalls(t)[1].cacheMiss, null, 'the second call read what the first wrote');
  });

  it("Claude Code 2.1's own records: its title (the user's over its own over a summary), modes, no finding", () => {
    const lines = [
      line({ type: 'summary', summary: 'an old summary', leafUuid: 'u' }),
      line({ type: 'user', message: { role: 'user', content: 'fix the parser' } }),
      line({ type: 'mode', mode: 'default' }),
      line({ type: 'permission-mode', permissionMode: 'acceptEdits' }),
      line({ type: 'ai-title', aiTitle: 'Parser fix' }),
      assistant('msg_1', 0, 5000),
      line({ type: 'ai-title', aiTitle: 'Fix the JSON parser race' }),
    ];
    const read = (ls: string[]) => readClaudeCode({ path: 'x.jsonl', lines: linesOfText(ls.join('\n')) });
    const t = read(lines);
    assert.deepEqual(t.findings, []);
    assert.equal(t.title, 'Fix the JSON parser race', "Claude Code's latest title over the summary");
    assert.equal(claudeCodeHead(lines.map((l) => JSON.parse(l))).title, 'Fix the JSON parser race');
    const renamed = [...lines, line({ type: 'custom-title', customTitle: 'parser' })];
    assert.equal(read(renamed).title, 'parser', "the user's own name over Claude Code's");
    assert.equal(claudeCodeHead(renamed.map((l) => JSON.parse(l))).title, 'parser');
    assert.equal(read(lines.slice(0, 4)).title, 'an old summary');
  });

  it('a compaction within the lifetime explains the miss after it; without one it is unexplained', () => {
    const text = [
      line({ type: 'user', message: { role: 'user', content: 'go' } }),
      assistant('msg_1', 0, 50000, '2026-01-01T00:00:00Z'),
      assistant('msg_2', 50000, 900, '2026-01-01T00:00:30Z'),
      line({ type: 'system', subtype: 'compact_boundary', timestamp: '2026-01-01T00:01:00Z', compactMetadata: { trigger: 'auto', preTokens: 50900 } }),
      line({ type: 'user', isCompactSummary: true, message: { role: 'user', content: 'This session is being continued…' } }),
      assistant('msg_3', 20000, 4000, '2026-01-01T00:01:30Z'),
      line({ type: 'user', message: { role: 'user', content: 'more' } }),
      assistant('msg_4', 10000, 14000, '2026-01-01T00:02:00Z'),
      '',
    ].join('\n');
    const t = readClaudeCode({ path: 'x.jsonl', lines: linesOfText(text) });
    const [session] = t.sessions;
    assert.deepEqual(
      session.compactions.map((c) => [c.trigger, c.preTokens, c.pos.line, c.summaryPos?.line, c.turnIndex]),
      [['auto', 50900, 4, 5, 1]],
    );
    assert.deepEqual(
      session.turns.map((turn) => [turn.prompt, turn.calls.map((c) => c.id)]),
      [
        ['go', ['msg_1', 'msg_2']],
        ['', ['msg_3']],
        ['more', ['msg_4']],
      ],
    );
    assert.deepEqual(
      judgeRecordedCalls(t).map((j) => [j.cacheMiss?.class ?? null, j.cacheMiss?.cause ?? null, j.cacheMiss?.rebilledTokens ?? null]),
      [
        [null, null, null],
        [null, null, null],
        ['predicted', 'compression', 30900],
        ['unexplained', null, 14000],
      ],
    );
  });

  it('a miss after the prefix outlived 5 minutes is expired; within them it is unexplained', () => {
    const text = [
      assistant('msg_1', 0, 5000, '2026-01-01T00:00:00Z'),
      assistant('msg_2', 0, 5100, '2026-01-01T00:06:00Z'),
      assistant('msg_3', 0, 5200, '2026-01-01T00:07:00Z'),
      '',
    ].join('\n');
    const judged = judgeRecordedCalls(readClaudeCode({ path: 'x.jsonl', lines: linesOfText(text) }));
    assert.deepEqual(
      judged.map((j) => [j.cacheMiss?.class ?? null, j.cacheMiss?.idleSeconds ?? null, j.cacheMiss?.rebilledTokens ?? null]),
      [
        [null, null, null],
        ['expired', 360, 5000],
        ['unexplained', 60, 5100],
      ],
    );
  });

  it("a prefix written for an hour outlives 5 minutes, and its writes are priced at the hour's rate", () => {
    const hourly = (id: string, read: number, write: number, at: string) =>
      line({
        type: 'assistant',
        timestamp: at,
        message: {
          id,
          model: 'claude-sonnet-4-5',
          role: 'assistant',
          content: [],
          usage: { ...usage(read, write), cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: write } },
        },
      });
    const text = [
      hourly('msg_1', 0, 5000, '2026-01-01T00:00:00Z'),
      hourly('msg_2', 0, 5100, '2026-01-01T00:30:00Z'),
      hourly('msg_3', 0, 5200, '2026-01-01T01:31:00Z'),
      '',
    ].join('\n');
    const report = recordedReport(readClaudeCode({ path: 'x.jsonl', lines: linesOfText(text) }));
    assert.deepEqual(
      report.calls.map((c) => [c.cacheMiss?.class ?? null, c.cacheMiss?.lifetimeSeconds ?? null, c.cacheMiss?.idleSeconds ?? null]),
      [
        [null, null, null],
        ['unexplained', 3600, 1800],
        ['expired', 3600, 3660],
      ],
    );
    // Sonnet 4.5: input 3 per million, an hour's write 6 (the five minutes' 3.75), output 15.
    const first = report.calls[0].cost!;
    assert.ok(Math.abs(first.usd - (3 * 3 + 5000 * 6 + 5 * 15) / 1e6) < 1e-12, String(first.usd));
    assert.match(first.notes.join(), /5000 tokens written for 1 hour/);
    // The miss cost its re-written tokens at the hour's rate less the read rate (0.30).
    assert.ok(Math.abs(report.calls[1].cacheMiss!.extraUsd! - (5000 * (6 - 0.3)) / 1e6) < 1e-12);
  });
});
