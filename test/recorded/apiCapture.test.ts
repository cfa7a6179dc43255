// Recorded API traffic read into the recorded model (issue 24, item 4): the real vcrpy cassettes in
// ../shared/fixtures/foreign (PROVENANCE.md there), read where they are kept, and HAR archives and
// claude-trace logs built here with gzip bodies and event streams. The exact request bytes are known,
// so a request that stops extending the previous one is located by message and byte, cache markers
// taken off first.

import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { judgeRecordedCalls } from '../../src/analysis/recordedCache';
import { readApiCapture } from '../../src/transcripts/apiCapture';
import { linesOfText } from '../../src/transcripts/jsonLines';
import { readClaudeCode } from '../../src/transcripts/claudeCode';
import { recordedKindOf } from '../../src/transcripts/foreign';
import { loadRecorded } from '../../src/transcripts/recordedFiles';
import { FOREIGN_FILES } from '../support/foreignFixtures';

const { cassetteCaching, cassetteTools } = FOREIGN_FILES;

describe('vcrpy cassettes recorded against the real API', { skip: !FOREIGN_FILES.present && 'the foreign fixtures are not there' }, () => {
  it('prompt caching: the same 5,970-byte body twice, a cache write then a read of it', () => {
    const t = loadRecorded(cassetteCaching)!;
    assert.equal(t.format, 'api-capture');
    assert.equal(t.agentVersion, 'cassette');
    assert.deepEqual(t.findings, []);
    assert.deepEqual(t.records, { systemPrompt: true, tools: true, requestBytes: true, billedUsage: true, compactions: false });
    const calls = t.sessions.flatMap((s) => s.turns.flatMap((turn) => turn.calls));
    assert.deepEqual(
      calls.map((c) => [c.model, c.provider, c.pos.line, c.usage?.cacheWrite, c.usage?.cacheRead]),
      [
        ['claude-3-5-sonnet-20240620', 'anthropic', 2, 1163, 0],
        ['claude-3-5-sonnet-20240620', 'anthropic', 182, 0, 1163],
      ],
    );
    assert.deepEqual(calls[0].wire, calls[1].wire, 'the same body');
    const judged = judgeRecordedCalls(t);
    assert.deepEqual(
      judged.map((j) => [j.prefixBreak, j.cacheMiss]),
      [
        [null, null],
        [null, null],
      ],
      'the second read what the first wrote',
    );
  });

  it('tools and history: one call with its tools, a tool_use and its tool_result', () => {
    const t = loadRecorded(cassetteTools)!;
    const [call] = t.sessions[0].turns[0].calls;
    assert.ok(call.wire?.tools?.includes('"input_schema"'));
    assert.ok(call.wire?.entries.some((e) => e.includes('"tool_use"')) && call.wire.entries.some((e) => e.includes('"tool_result"')));
    assert.ok(call.usage?.input && call.usage.output);
  });
});

describe('HAR archives and claude-trace logs', () => {
  const system = [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }];
  const user = (text: string, marked = false) => ({
    role: 'user',
    content: [{ type: 'text', text, ...(marked ? { cache_control: { type: 'ephemeral' } } : {}) }],
  });
  const body = (messages: unknown[]) => ({ model: 'claude-sonnet-4-5', max_tokens: 100, system, messages });
  const sse = (id: string, read: number, write: number) =>
    [
      `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id, model: 'claude-sonnet-4-5', usage: { input_tokens: 5, cache_read_input_tokens: read, cache_creation_input_tokens: write, output_tokens: 1 } } })}`,
      `event: message_delta\ndata: ${JSON.stringify({ type: 'message_delta', usage: { output_tokens: 42 } })}`,
      'event: message_stop\ndata: {"type":"message_stop"}',
      '',
    ].join('\n\n');
  const entry = (requestBody: unknown, response: string, at: string, url = 'https://api.anthropic.com/v1/messages') => ({
    startedDateTime: at,
    request: {
      method: 'POST',
      url,
      headers: [{ name: 'content-type', value: 'application/json' }],
      postData: { mimeType: 'application/json', text: JSON.stringify(requestBody) },
    },
    response: {
      status: 200,
      headers: [{ name: 'Content-Encoding', value: 'gzip' }],
      content: { mimeType: 'text/event-stream', text: Buffer.from(response).toString('base64'), encoding: 'base64' },
    },
  });
  const A1 = body([user('first question', true)]);
  const A2 = body([user('first question'), { role: 'assistant', content: [{ type: 'text', text: 'answer' }] }, user('second', true)]);
  // The history rewritten: the first question edited, byte 35 of message 0's JSON.
  const A3 = body([
    user('first Question'),
    { role: 'assistant', content: [{ type: 'text', text: 'answer' }] },
    user('second'),
    { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
    user('third', true),
  ]);

  it('a HAR: event streams put together, a moved cache marker no break, an edited message located by byte', () => {
    const har = {
      log: {
        version: '1.2',
        entries: [
          entry(A1, sse('msg_1', 0, 3000), '2026-01-01T10:00:00.000Z'),
          {
            startedDateTime: '2026-01-01T10:00:01.000Z',
            request: { method: 'GET', url: 'https://example.com/favicon.ico', headers: [] },
            response: { status: 200, headers: [], content: { text: '' } },
          },
          entry(A2, sse('msg_2', 3000, 40), '2026-01-01T10:00:20.000Z'),
          entry(A3, sse('msg_3', 1200, 1900), '2026-01-01T10:00:40.000Z'),
        ],
      },
    };
    const text = JSON.stringify(har, null, 2);
    assert.equal(recordedKindOf(text.slice(0, 65536)), 'har');
    const t = readApiCapture('capture.har', text, 'har');
    assert.deepEqual(
      t.findings.map((f) => f.message),
      ['capture.har:1: 1 recorded exchange is no model call: skipped'],
    );
    const judged = judgeRecordedCalls(t);
    assert.deepEqual(
      judged.map((j) => [j.call.id, j.call.usage?.output, j.prefixBreak, j.cacheMiss?.class ?? null, j.cacheMiss?.cause ?? null]),
      [
        ['msg_1', 42, null, null, null],
        ['msg_2', 42, null, null, null],
        [
          'msg_3',
          42,
          { part: 'messages', entry: 0, byte: JSON.stringify(user('first question')).indexOf('question'), cause: 'history-rewritten' },
          'predicted',
          'history-rewritten',
        ],
      ],
    );
    assert.equal(judged[2].cacheMiss?.rebilledTokens, 3040 - 1200);
  });

  it('a claude-trace log with a gzip body; a changed system prompt; a line that is no exchange', () => {
    const changed = { ...A2, system: [{ type: 'text', text: 'You are verbose.' }] };
    const line = (requestBody: unknown, response: Record<string, unknown>, at: number) =>
      JSON.stringify({
        request: { timestamp: at, method: 'POST', url: 'https://api.anthropic.com/v1/messages', headers: {}, body: requestBody },
        response: { timestamp: at + 1, status_code: 200, headers: {}, ...response },
        logged_at: new Date(at * 1000).toISOString(),
      });
    const text = [
      line(A1, { body_raw: sse('msg_1', 0, 3000) }, 1767261600),
      '{"not": "an exchange"}',
      line(
        changed,
        {
          body: {
            id: 'msg_2',
            model: 'claude-sonnet-4-5',
            usage: { input_tokens: 3040, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 3 },
          },
        },
        1767261620,
      ),
      '',
    ].join('\n');
    assert.equal(recordedKindOf(text), 'claude-trace');
    const t = readApiCapture('log-1.jsonl', text, 'claude-trace');
    assert.deepEqual(
      t.findings.map((f) => [f.severity, f.pos.line]),
      [['error', 2]],
    );
    const judged = judgeRecordedCalls(t);
    assert.deepEqual(judged[1].prefixBreak, { part: 'system', entry: null, byte: '[{"type":"text","text":"You are '.length, cause: 'system-changed' });
    assert.deepEqual([judged[1].cacheMiss?.class, judged[1].cacheMiss?.cause, judged[1].cacheMiss?.idleSeconds], ['predicted', 'system-changed', 20]);
    // A gzip body in a cassette or HAR is decoded by its magic bytes too.
    assert.ok(gzipSync(Buffer.from('x'))[0] === 0x1f);
  });

  it('bodies that cannot be read cost their exchange a finding, not the file', () => {
    const har = {
      log: {
        entries: [
          {
            request: { method: 'POST', url: 'https://api.openai.com/v1/chat/completions', postData: { text: '{"model": "gpt-5", "messages": [' } },
            response: { content: { text: '{}' } },
          },
          {
            request: {
              method: 'POST',
              url: 'https://api.openai.com/v1/chat/completions',
              postData: { text: JSON.stringify({ model: 'gpt-5', messages: [{ role: 'user', content: 'hi' }] }) },
            },
            response: {
              content: { text: Buffer.from('not gzip').toString('base64'), encoding: 'base64' },
              headers: [{ name: 'content-encoding', value: 'gzip' }],
            },
          },
          {
            request: {
              method: 'POST',
              url: 'https://api.openai.com/v1/chat/completions',
              postData: { text: JSON.stringify({ model: 'gpt-5', messages: [{ role: 'user', content: 'hi' }] }) },
            },
            response: {
              content: {
                text: [
                  'data: {"object":"chat.completion.chunk","id":"c1","model":"gpt-5","choices":[]}',
                  'data: {"object":"chat.completion.chunk","id":"c1","model":"gpt-5","choices":[],"usage":{"prompt_tokens":2000,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":1920}}}',
                  'data: [DONE]',
                ].join('\n\n'),
              },
            },
          },
        ],
      },
    };
    const t = readApiCapture('x.har', JSON.stringify(har), 'har');
    assert.deepEqual(
      t.findings.map((f) => [f.severity, f.pos.entry]),
      [
        ['error', 0],
        ['warning', 1],
      ],
    );
    assert.deepEqual(
      t.findings.map((f) => f.message.split(':').slice(0, 2).join(':')),
      ['x.har: log.entries[0]', 'x.har: log.entries[1]'],
    );
    const calls = t.sessions.flatMap((s) => s.turns.flatMap((turn) => turn.calls));
    assert.deepEqual(
      calls.map((c) => [c.id, c.usage]),
      [
        ['log.entries[1]', null],
        ['c1', { input: 2000, cacheRead: 1920, cacheWrite: 0, cacheWrite5m: null, cacheWrite1h: null, output: 3 }],
      ],
    );
  });
});

describe('what a reader sets aside is counted', () => {
  it('a HAR entry that is no request with its response is a finding at its place', () => {
    const t = readApiCapture('x.har', JSON.stringify({ log: { entries: [null, { request: {} }] } }), 'har');
    assert.deepEqual(
      t.findings.map((f) => [f.severity, f.pos.entry, f.message]),
      [
        ['error', 0, 'x.har: log.entries[0] is no request with its response: skipped'],
        ['error', 1, 'x.har: log.entries[1] is no request with its response: skipped'],
      ],
    );
  });

  it("a Claude Code assistant line without its id, and Claude Code's own synthetic notes, are named", () => {
    const line = (message: Record<string, unknown>) => JSON.stringify({ type: 'assistant', sessionId: 's', uuid: 'u', message });
    const t = readClaudeCode({
      path: 'c.jsonl',
      lines: linesOfText(
        [line({ model: 'claude-sonnet-4-5' }), line({ id: 'x', model: '<synthetic>' }), line({ id: 'y', model: '<synthetic>' }), ''].join('\n'),
      ),
    });
    assert.deepEqual(
      t.findings.map((f) => [f.severity, f.pos.line, f.message]),
      [
        ['warning', 1, 'c.jsonl:1: an assistant line without its message id: not counted as a call'],
        ['info', 1, 'c.jsonl:1: 2 assistant lines of model "<synthetic>" (Claude Code\'s own notes): no call'],
      ],
    );
    assert.equal(t.sessions[0].turns.length, 0);
  });
});
