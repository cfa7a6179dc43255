// Request dumps of every API mode beside the session they came from (issue 18, item 6): the replay
// of the session must match each dump where upstream's conversion of the replayed messages sends
// the dump's bytes, and still differ, at the right wire message, where a message really changed.
// Bodies are built by test/support/hermes_store.py's transports (reconstructions of upstream's
// adapters); the chat body gets the envelope layout's marks here (Claude over OpenRouter).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { analyze } from '../../src/analysis/report';
import type { Report } from '../../src/shared/reportTypes';
import { createTokenCounter } from '../../src/analysis/tokenizer';
import { PROFILES } from '../../src/engine/profile';
import { loadTranscript } from '../../src/transcripts/load';
import { tempDir } from '../cli/support';
import { HERMES_STORE_PY } from '../support/upstreamStores';
import { PYTHON } from '../support/python';

type Msg = Record<string, unknown>;

const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const SYSTEM = 'You are Hermes, an AI assistant made by Nous Research.\nModel: test';
const call = (id: string, name: string, args: Record<string, unknown>): Msg => ({ id, type: 'function', function: { name, arguments: JSON.stringify(args) } });

/**
 * The stored conversation, which is also its wire form (no sidecars): an image turn, a tool-only
 * assistant making two parallel calls, an empty tool result, text beside a tool call, then a
 * second turn whose first answer is again a tool call alone.
 */
function conversation(): Msg[] {
  return [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'What does this error dialog say?' },
        { type: 'image_url', image_url: { url: PNG } },
      ],
    },
    {
      role: 'assistant',
      content: '',
      tool_calls: [call('call_a1', 'read_file', { path: 'logs/app.log' }), call('call_a2', 'terminal', { command: 'df -h /' })],
    },
    { role: 'tool', tool_call_id: 'call_a1', content: '{"content": "E: disk quota exceeded"}' },
    { role: 'tool', tool_call_id: 'call_a2', content: '' },
    { role: 'assistant', content: 'Checking what dist/ holds.', tool_calls: [call('call_b1', 'terminal', { command: 'du -sh dist' })] },
    { role: 'tool', tool_call_id: 'call_b1', content: '2.1G\tdist' },
    { role: 'assistant', content: 'The disk quota is exceeded; dist/ holds 2.1 GB.' },
    { role: 'user', content: 'Free some space.' },
    { role: 'assistant', content: '', tool_calls: [call('call_c1', 'terminal', { command: 'rm -rf dist/old' })] },
    { role: 'tool', tool_call_id: 'call_c1', content: '' },
    { role: 'assistant', content: 'Removed dist/old; 2.1 GB freed.' },
  ];
}
/** The dump is the request after the last tool result: system + the first 10 rows. */
const SENT = 10;

/** hermes_store.py's transport body for `fn`, from python3 (its module imported, nothing built). */
function upstreamBody(fn: string, wire: Msg[]): Msg {
  const script = [
    'import json, sys',
    `sys.path.insert(0, ${JSON.stringify(dirname(HERMES_STORE_PY))})`,
    'import hermes_store as hs',
    'a = json.load(sys.stdin)',
    "print(json.dumps(getattr(hs, a['fn'])('test-model', a['system'], a['wire'], hs.TOOLS), ensure_ascii=False))",
  ].join('\n');
  const r = spawnSync(PYTHON, ['-c', script], { input: JSON.stringify({ fn, system: SYSTEM, wire }), encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as Msg;
}

/**
 * The envelope layout (agent/prompt_caching.py, not native): the system message and the last 3
 * messages that can carry a part marker; a string becomes one marked text part, a list marks its
 * last part, empty content (a tool call alone, an empty result) carries none.
 */
function envelopeMarked(body: Msg): Msg {
  const mark = { type: 'ephemeral' };
  const messages = (body.messages as Msg[]).map((m) => ({ ...m }));
  const carries = (m: Msg): boolean => (typeof m.content === 'string' && m.content !== '') || (Array.isArray(m.content) && m.content.length > 0);
  const put = (m: Msg): void => {
    if (typeof m.content === 'string') m.content = [{ type: 'text', text: m.content, cache_control: mark }];
    else if (Array.isArray(m.content)) m.content = [...m.content.slice(0, -1), { ...(m.content[m.content.length - 1] as Msg), cache_control: mark }];
  };
  put(messages[0]);
  const carriers = messages.filter((m, i) => i > 0 && carries(m));
  for (const m of carriers.slice(-3)) put(m);
  return { ...body, messages };
}

const MODES = [
  {
    apiMode: 'chat-completions',
    build: (wire: Msg[]) => envelopeMarked(upstreamBody('chat_body', wire)),
    url: 'https://openrouter.ai/api/v1/chat/completions',
  },
  { apiMode: 'anthropic-messages', build: (wire: Msg[]) => upstreamBody('anthropic_body', wire), url: 'https://api.anthropic.com/v1/messages' },
  { apiMode: 'responses', build: (wire: Msg[]) => upstreamBody('responses_body', wire), url: 'https://chatgpt.com/backend-api/codex/responses' },
];

const root = tempDir();
after(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;

/** A session JSON with `stored` and, beside it, a dump of `sent` built by `mode`; the report of the session. */
async function reportBeside(mode: (typeof MODES)[number], stored: Msg[], sent: Msg[]): Promise<Report> {
  const dir = join(root, String(dirs++));
  mkdirSync(dir);
  writeFileSync(join(dir, 'session_s1.json'), JSON.stringify({ session_id: 's1', model: 'test-model', system_prompt: SYSTEM, messages: stored }, null, 1));
  const dump = {
    timestamp: '2026-09-18T10:15:00',
    session_id: 's1',
    reason: 'provider_error',
    request: { method: 'POST', url: mode.url, headers: { 'Content-Type': 'application/json' }, body: mode.build(sent) },
  };
  writeFileSync(join(dir, 'request_dump_s1_20260918_101500.json'), JSON.stringify(dump, null, 2));
  const transcript = await loadTranscript(join(dir, 'session_s1.json'));
  return analyze(transcript, { profile: PROFILES['hermes-current'], counter: createTokenCounter('o200k_base'), messages: false }).report;
}

const mismatches = (r: Report): string[] => r.diagnostics.filter((d) => d.code === 'replay-mismatch').map((d) => d.message);

/** A copy of the conversation with row `row` changed by `change`. */
function changed(row: number, change: (m: Msg) => void): Msg[] {
  const rows = structuredClone(conversation());
  change(rows[row]);
  return rows;
}

describe('request dumps of every API mode beside their session', () => {
  for (const mode of MODES) {
    describe(mode.apiMode, () => {
      it('matches the replay: tool calls alone and beside text, parallel calls, empty results, an image turn, cache marks', async () => {
        const r = await reportBeside(mode, conversation(), conversation().slice(0, SENT));
        assert.deepEqual(mismatches(r), []);
        const capture = r.captures?.[0];
        assert.ok(capture, 'the dump is compared');
        assert.equal(capture.apiMode, mode.apiMode);
        assert.notEqual(capture.request, null, 'matched to the replayed request with as many wire messages');
        assert.equal(r.requests[capture.request ?? -1]?.messageCount, SENT + 1);
        // Wire messages (system 0): the envelope marks the last 3 that have text; native Anthropic
        // marks the last 3 whatever they hold (a tool call alone on its tool_use block).
        const marks: Record<string, number[]> = { 'chat-completions': [0, 6, 7, 8], 'anthropic-messages': [0, 8, 9, 10], responses: [] };
        assert.deepEqual(capture.breakpoints, marks[mode.apiMode]);
      });

      const cases: { what: string; row: number; change: (m: Msg) => void }[] = [
        {
          what: "a parallel call's arguments",
          row: 1,
          change: (m) => {
            (m.tool_calls as Msg[])[1] = call('call_a2', 'terminal', { command: 'df -h /home' });
          },
        },
        {
          what: 'the text beside a tool call',
          row: 4,
          change: (m) => {
            m.content = 'Checking what build/ holds.';
          },
        },
        {
          what: 'a tool result',
          row: 5,
          change: (m) => {
            m.content = '1.9G\tdist';
          },
        },
        {
          what: 'the tool called alone',
          row: 8,
          change: (m) => {
            m.tool_calls = [call('call_c1', 'terminal', { command: 'rm -rf dist' })];
          },
        },
      ];
      for (const c of cases) {
        it(`still reports a replay-mismatch at the wire message whose ${c.what} changed`, async () => {
          const r = await reportBeside(mode, conversation(), changed(c.row, c.change).slice(0, SENT));
          const found = mismatches(r);
          assert.equal(found.length, 1, found.join('\n'));
          assert.match(found[0], new RegExp(`at wire message ${c.row + 1}(,|$)`));
        });
      }
    });
  }
});
