// Where a recorded request's tokens go (issue 24, item 5: the category view where the format
// allows): the parts of a captured body by who wrote them, each distinct part counted once for the
// whole capture, on Anthropic Messages, Chat Completions and Responses bodies and on the real cassette.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RecordedCategories } from '../../src/analysis/recordedCategories';
import { recordedReport } from '../../src/analysis/recordedReport';
import { createTokenCounter, type TokenCounter } from '../../src/analysis/tokenizer';
import type { RecordedWire } from '../../src/shared/model/recorded';
import { loadRecorded } from '../../src/transcripts/recordedFiles';
import { FOREIGN_FILES } from '../support/foreignFixtures';

const o200k = createTokenCounter('o200k_base');
const json = (v: unknown): string => JSON.stringify(v);

/** The real tokenizer, with the texts it was asked to count. */
function countingCounter(): { counter: TokenCounter; asked: string[] } {
  const asked: string[] = [];
  return { asked, counter: { name: o200k.name, count: (t) => (asked.push(t), o200k.count(t)), isApproximate: (t) => o200k.isApproximate(t) } };
}

describe("a recorded request's tokens by category", () => {
  it('Anthropic Messages: the system prompt, the tools, the history by role, tool results apart, the last user words', () => {
    const system = json([{ type: 'text', text: 'You are a careful coding agent.' }]);
    const tools = json([{ name: 'read_file', description: 'Read a file', input_schema: { type: 'object' } }]);
    const entries = [
      json({ role: 'user', content: 'look at main.ts' }),
      json({ role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'main.ts' } }] }),
      json({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'export {}' }] }),
      json({ role: 'assistant', content: [{ type: 'text', text: 'It is empty.' }] }),
      json({ role: 'user', content: [{ type: 'text', text: 'then write it' }] }),
    ];
    const wire: RecordedWire = { apiMode: 'anthropic-messages', system, tools, entries };
    const got = new RecordedCategories(o200k).of(wire);
    const c = (t: string): number => o200k.count(t);
    assert.deepEqual(got, {
      'system/prompt': c(system),
      'tools/schemas': c(tools),
      'history/user': c(entries[0]),
      'history/assistant': c(entries[1]) + c(entries[3]),
      'history/tool': c(entries[2]),
      'current-user': c(entries[4]),
    });
    assert.deepEqual(Object.keys(got), ['system/prompt', 'tools/schemas', 'history/assistant', 'history/tool', 'history/user', 'current-user']);
    // A request that ends on a tool's result has no last words of the user's.
    assert.equal(new RecordedCategories(o200k).of({ ...wire, entries: entries.slice(0, 3) })['current-user'], undefined);
  });

  it("Chat Completions' system and tool roles, Responses' calls and outputs; what is no JSON object is other", () => {
    const chat = [
      json({ role: 'system', content: 'be brief' }),
      json({ role: 'tool', tool_call_id: 'c', content: '42' }),
      json({ role: 'user', content: 'and?' }),
    ];
    assert.deepEqual(Object.keys(new RecordedCategories(o200k).of({ apiMode: 'chat-completions', system: null, tools: null, entries: chat })), [
      'system/prompt',
      'history/tool',
      'current-user',
    ]);
    const responses = [
      json({ type: 'message', role: 'developer', content: 'rules' }),
      json({ type: 'function_call', name: 'ls', arguments: '{}', call_id: 'x' }),
      json({ type: 'function_call_output', call_id: 'x', output: 'a b' }),
      'not json',
    ];
    assert.deepEqual(Object.keys(new RecordedCategories(o200k).of({ apiMode: 'responses', system: null, tools: null, entries: responses })), [
      'system/prompt',
      'history/assistant',
      'history/other',
      'history/tool',
    ]);
  });

  it('counts each distinct part once over all the requests that re-send it', () => {
    const { counter, asked } = countingCounter();
    const categories = new RecordedCategories(counter);
    const entries = ['a', 'b', 'c', 'd'].map((t, i) => json({ role: i % 2 ? 'assistant' : 'user', content: t }));
    for (let n = 1; n <= entries.length; n++) categories.of({ apiMode: 'anthropic-messages', system: 'S', tools: 'T', entries: entries.slice(0, n) });
    assert.equal(asked.length, 2 + entries.length);
    assert.equal(new Set(asked).size, asked.length);
  });
});

describe('the recorded report with categories', { skip: !FOREIGN_FILES.present && 'the foreign fixtures are not there' }, () => {
  it("a capture's calls and sessions have them; a log without request bytes has none", () => {
    const cassette = recordedReport(loadRecorded(FOREIGN_FILES.cassetteCaching)!, undefined, o200k);
    assert.equal(cassette.calls.length, 2);
    for (const c of cassette.calls) assert.deepEqual(Object.keys(c.categories ?? {}), ['system/prompt', 'current-user']);
    // The same body sent twice: the session's sum is twice either call's.
    const [first] = cassette.calls;
    assert.deepEqual(cassette.sessions[0].categories, Object.fromEntries(Object.entries(first.categories!).map(([k, v]) => [k, 2 * v])));
    const claude = recordedReport(loadRecorded(FOREIGN_FILES.spotter)!, undefined, o200k);
    assert.ok(claude.calls.every((c) => c.categories === null));
    assert.ok(claude.sessions.every((s) => s.categories === null));
    // Without a counter (the folder overview), none is counted.
    assert.ok(recordedReport(loadRecorded(FOREIGN_FILES.cassetteCaching)!).calls.every((c) => c.categories === null));
  });
});
