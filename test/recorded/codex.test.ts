// Codex rollouts read into the recorded model (issue 24, item 3), on the real rollout in
// ../shared/fixtures/foreign (PROVENANCE.md there), read where it is kept: a call per token count
// (a running total written twice is one), cached tokens inside input, the system prompt from
// session_meta hashed per turn, turn settings compared, compactions; and damaged rollouts.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { judgeRecordedCalls } from '../../src/analysis/recordedCache';
import { recordedReport } from '../../src/analysis/recordedReport';
import { readCodex } from '../../src/transcripts/codex';
import { recordedKindOf } from '../../src/transcripts/foreign';
import { codexHead } from '../../src/transcripts/agentFolders';
import { linesOfText } from '../../src/transcripts/jsonLines';
import { loadRecorded } from '../../src/transcripts/recordedFiles';
import { FOREIGN_FILES } from '../support/foreignFixtures';

const ROLLOUT = FOREIGN_FILES.codexRollout;

describe('a Codex rollout of a real session', { skip: !existsSync(ROLLOUT) && `${ROLLOUT} is not there` }, () => {
  it('66 token counts are 66 calls in 2 turns, cached tokens inside input', () => {
    const t = loadRecorded(ROLLOUT);
    assert.equal(t?.format, 'codex');
    assert.equal(t.agentVersion, 'codex-tui 0.125.0');
    assert.deepEqual(t.findings, []);
    assert.deepEqual(t.records, { systemPrompt: true, tools: false, requestBytes: false, billedUsage: true, compactions: true });
    const [session] = t.sessions;
    assert.equal(session.id, '019e1625-789d-76c0-80ab-3724b5ddb799');
    // A turn begins at its task_started, the first record naming its id.
    assert.deepEqual(
      session.turns.map((turn) => [turn.prompt, turn.pos?.line, turn.calls.length, turn.settingsChanged]),
      [
        ['show tools', 2, 3, []],
        ["let's update the defailt context compart to 90 in env var", 20, 63, []],
      ],
    );
    const [first] = session.turns[0].calls;
    assert.deepEqual(
      [first.model, first.pos.line, first.usage],
      ['gpt-5.5', 10, { input: 18703, cacheRead: 0, cacheWrite: 0, cacheWrite5m: null, cacheWrite1h: null, output: 167 }],
    );
    assert.equal(first.id, '019e1625-d031-75e3-a85f-f143e43c0d84#1');
    // PROVENANCE.md: 18 calls of more than 10 k input have under half of it cached.
    const calls = session.turns.flatMap((turn) => turn.calls);
    assert.equal(calls.filter((c) => c.usage!.input! > 10000 && c.usage!.cacheRead! < c.usage!.input! / 2).length, 18);
  });

  it("the system prompt is session_meta's base_instructions, hashed per turn and byte-stable", () => {
    const meta = JSON.parse(readFileSync(ROLLOUT, 'utf8').split('\n')[0]) as { payload: { base_instructions: { text: string } } };
    const text = meta.payload.base_instructions.text;
    assert.equal(text.length, 21335);
    const report = recordedReport(loadRecorded(ROLLOUT)!);
    const sha = createHash('sha256').update(text, 'utf8').digest('hex');
    assert.deepEqual(
      report.sessions[0].turns.map((turn) => turn.systemPromptSha256),
      [sha, sha],
    );
  });

  it('misses: one expired after 330 s idle, the rest unexplained (OpenAI gives no cause)', () => {
    const judged = judgeRecordedCalls(loadRecorded(ROLLOUT)!);
    const misses = judged.filter((j) => j.cacheMiss);
    assert.equal(misses.length, 18);
    assert.deepEqual(
      [misses[0].call.pos.line, misses[0].cacheMiss?.class, misses[0].cacheMiss?.idleSeconds, misses[0].cacheMiss?.rebilledTokens],
      [28, 'expired', 329.599, 20292],
    );
    assert.ok(misses.slice(1).every((j) => j.cacheMiss?.class === 'unexplained'));
  });
});

describe('Codex rollouts, changed and damaged', () => {
  const rec = (type: string, payload: unknown, at = '2026-01-01T00:00:00Z'): string => JSON.stringify({ timestamp: at, type, payload });
  const meta = (text: string) => rec('session_meta', { id: 'sess', originator: 'codex_exec', cli_version: '0.1.0', base_instructions: { text } });
  const context = (turn: string, more: Record<string, unknown> = {}) =>
    rec('turn_context', { turn_id: turn, model: 'gpt-5', approval_policy: 'never', ...more });
  const user = (message: string) => rec('event_msg', { type: 'user_message', message });
  let total = 0;
  const count = (input: number, cached: number, at: string) => {
    total += input;
    const last = { input_tokens: input, cached_input_tokens: cached, output_tokens: 1, total_tokens: input + 1 };
    return rec('event_msg', { type: 'token_count', info: { total_token_usage: { total_tokens: total }, last_token_usage: last } }, at);
  };

  it('a total written twice is one call; changed settings and a changed system prompt are causes', () => {
    total = 0;
    const lines = [meta('SYSTEM A'), context('t1'), user('one'), count(5000, 0, '2026-01-01T00:00:01Z'), ''];
    const twice = lines[3];
    lines.splice(4, 0, twice, context('t2', { approval_policy: 'on-request' }), user('two'), count(5200, 0, '2026-01-01T00:00:10Z'));
    lines.push(meta('SYSTEM B'), context('t3', { approval_policy: 'on-request' }), user('three'), count(5400, 0, '2026-01-01T00:00:20Z'), '');
    const t = readCodex('r.jsonl', linesOfText(lines.filter((l, i) => l !== '' || i === lines.length - 1).join('\n')));
    assert.deepEqual(t.findings, []);
    const turns = t.sessions[0].turns;
    assert.deepEqual(
      turns.map((turn) => [turn.prompt, turn.calls.length, turn.settingsChanged, turn.systemPrompt]),
      [
        ['one', 1, [], 'SYSTEM A'],
        ['two', 1, ['approval_policy'], 'SYSTEM A'],
        ['three', 1, [], 'SYSTEM B'],
      ],
    );
    assert.deepEqual(
      judgeRecordedCalls(t).map((j) => [j.cacheMiss?.class ?? null, j.cacheMiss?.cause ?? null]),
      [
        [null, null],
        ['predicted', 'settings-changed'],
        ['predicted', 'system-changed'],
      ],
    );
  });

  it('Codex 0.147 on: the prompt an item_completed UserMessage, written before its turn_context', () => {
    total = 0;
    const started = (turn: string) => rec('event_msg', { type: 'task_started', turn_id: turn, model_context_window: null });
    const typed = (turn: string, ...content: unknown[]) =>
      rec('event_msg', { type: 'item_completed', thread_id: 'sess', turn_id: turn, item: { type: 'UserMessage', id: `u-${turn}`, content } });
    const text = [
      meta('S'),
      started('t1'),
      typed('t1', { type: 'text', text: 'Fix the parser', text_elements: [] }, { type: 'local_image', path: '/shot.png' }),
      context('t1'),
      count(5000, 0, '2026-01-01T00:00:01Z'),
      count(5100, 4096, '2026-01-01T00:00:02Z'),
      rec('event_msg', { type: 'task_complete', turn_id: 't1' }),
      started('t2'),
      typed('t2', { type: 'text', text: 'and the tests' }),
      context('t2', { approval_policy: 'on-request' }),
      count(5300, 5000, '2026-01-01T00:00:09Z'),
      '',
    ].join('\n');
    const t = readCodex('r.jsonl', linesOfText(text));
    assert.deepEqual(t.findings, []);
    assert.deepEqual(
      t.sessions[0].turns.map((turn) => [turn.prompt, turn.pos?.line, turn.calls.map((c) => c.id), turn.settingsChanged]),
      [
        ['Fix the parser\n[local_image]', 2, ['t1#1', 't1#2'], []],
        ['and the tests', 8, ['t2#1'], ['approval_policy']],
      ],
    );
    // Its listing is titled by the same prompt.
    assert.equal(
      codexHead(
        text
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l)),
      ).title,
      'Fix the parser [local_image]',
    );
  });

  it("later Codex: a call's token_usage_record and token_count are one call, named by its response; another thread's, a subagent's", () => {
    total = 0;
    const usage = (input: number, cached: number) => ({
      input_tokens: input,
      cached_input_tokens: cached,
      cache_write_input_tokens: 0,
      output_tokens: 1,
      reasoning_output_tokens: 0,
      total_tokens: input + 1,
    });
    const record = (thread: string, turn: string, response: string, input: number, cached: number, at: string) =>
      rec(
        'token_usage_record',
        { thread_id: thread, turn_id: turn, session_id: 'sess', root_turn_id: turn, response_id: response, usage: usage(input, cached) },
        at,
      );
    const text = [
      meta('S'),
      rec('event_msg', { type: 'task_started', turn_id: 't1' }),
      context('t1'),
      user('go'),
      // Count first, then its record; then record first, then its count.
      count(5000, 0, '2026-01-01T00:00:01Z'),
      record('sess', 't1', 'resp_1', 5000, 0, '2026-01-01T00:00:01Z'),
      record('sess', 't1', 'resp_2', 5200, 4096, '2026-01-01T00:00:03Z'),
      count(5200, 4096, '2026-01-01T00:00:03Z'),
      // Only a record: a call all the same.
      record('sess', 't1', 'resp_3', 5400, 5120, '2026-01-01T00:00:05Z'),
      record('child-thread', 'c1', 'resp_c', 3000, 0, '2026-01-01T00:00:04Z'),
      rec('world_state', { full: true, state: {} }),
      rec('security_risk_score', { score: 0 }),
      '',
    ].join('\n');
    const t = readCodex('r.jsonl', linesOfText(text));
    assert.deepEqual(t.findings, []);
    assert.deepEqual(
      t.sessions.map((session) => [
        session.id,
        session.kind,
        session.parentId,
        session.turns.map((turn) => turn.calls.map((c) => [c.id, c.usage?.input, c.usage?.cacheRead])),
      ]),
      [
        [
          'sess',
          'main',
          null,
          [
            [
              ['resp_1', 5000, 0],
              ['resp_2', 5200, 4096],
              ['resp_3', 5400, 5120],
            ],
          ],
        ],
        ['child-thread', 'subagent', 'sess', [[['resp_c', 3000, 0]]]],
      ],
    );
  });

  it("an early rollout (Codex to mid 2025): a bare header, bare items, turns by the user's own messages, no usage", () => {
    const item = (role: string, text: string) =>
      JSON.stringify({ type: 'message', id: null, role, content: [{ type: role === 'user' ? 'input_text' : 'output_text', text }] });
    const text = [
      JSON.stringify({
        id: '0196a1b2',
        timestamp: '2025-05-01T10:00:00.000Z',
        instructions: 'AGENTS.md text',
        model: 'codex-mini-latest',
        git: { branch: 'main' },
      }),
      '{"record_type":"state"}',
      item('user', '<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>'),
      item('user', 'list the files'),
      JSON.stringify({ type: 'function_call', id: 'fc_1', name: 'shell', arguments: '{"command":["ls"]}', call_id: 'call_1' }),
      JSON.stringify({ type: 'function_call_output', call_id: 'call_1', output: 'README.md' }),
      item('assistant', 'one file'),
      '{"record_type":"state"}',
      item('user', 'now read it'),
      '',
    ].join('\n');
    assert.equal(recordedKindOf(text), 'codex');
    const t = readCodex('rollout-2025-05-01T10-00-00-0196a1b2.jsonl', linesOfText(text));
    assert.deepEqual(t.findings, []);
    assert.deepEqual(t.records, { systemPrompt: false, tools: false, requestBytes: false, billedUsage: false, compactions: false });
    assert.equal(t.sessions[0].id, '0196a1b2');
    assert.deepEqual(
      t.sessions[0].turns.map((turn) => [turn.prompt, turn.pos?.line, turn.calls.length]),
      [
        ['list the files', 4, 0],
        ['now read it', 9, 0],
      ],
    );
    const head = codexHead(
      text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    );
    assert.deepEqual([head.id, head.title, head.startedAt], ['0196a1b2', 'list the files', '2025-05-01T10:00:00.000Z']);
    // A header alone, or bare items without one, is not taken for a rollout.
    assert.equal(recordedKindOf(text.split('\n')[0]), null);
    assert.equal(recordedKindOf(text.split('\n').slice(3).join('\n')), null);
  });

  it('a compacted record is a compaction; broken lines and unknown types cost their lines only', () => {
    total = 0;
    const text = [
      meta('S'),
      context('t1'),
      user('go'),
      count(9000, 0, '2026-01-01T00:00:01Z'),
      rec('compacted', { message: 'summary', replacement_history: [] }, '2026-01-01T00:00:02Z'),
      '{"type": "event_msg", "payload": {"type": "token_co',
      rec('hologram', { x: 1 }),
      JSON.stringify({ type: 'event_msg' }),
      count(3000, 0, '2026-01-01T00:00:03Z'),
      rec('event_msg', { type: 'token_count', info: null }),
    ].join('\n');
    const t = readCodex('r.jsonl', linesOfText(text));
    assert.deepEqual(
      t.findings.map((f) => [f.severity, f.pos.line, f.atEnd ?? false]),
      [
        ['error', 6, false],
        ['error', 8, false],
        ['info', 7, false],
      ],
    );
    const [session] = t.sessions;
    assert.deepEqual(
      session.compactions.map((c) => [c.pos.line, c.turnIndex]),
      [[5, 1]],
    );
    assert.deepEqual(
      session.turns.map((turn) => turn.calls.length),
      [1, 1],
    );
    assert.deepEqual(
      judgeRecordedCalls(t).map((j) => j.cacheMiss?.cause ?? null),
      [null, 'compression'],
    );
  });
});
