// Request bodies of every API mode read into the one wire model the replay builds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Row } from '../../src/shared/model/rows';
import { apiModeOf, sentKey, wireOfRequestBody } from '../../src/transcripts/requestBody';

const mark = { type: 'ephemeral' };

describe('request bodies', () => {
  it('chat completions with cache_control (Claude over OpenRouter): the same bytes as text, breakpoints kept', () => {
    const body = {
      model: 'anthropic/claude-sonnet-4.6',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'SYS', cache_control: mark }] },
        { role: 'user', content: 'q1' },
        { role: 'assistant', content: [{ type: 'text', text: 'a1', cache_control: mark }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look' },
            { type: 'image_url', image_url: { url: 'https://x/i.png' }, cache_control: mark },
          ],
        },
      ],
    };
    const w = wireOfRequestBody(body);
    assert.equal(w.apiMode, 'chat-completions');
    assert.deepEqual(
      w.messages.map((m) => m.content),
      [
        'SYS',
        'q1',
        'a1',
        [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url: 'https://x/i.png' } },
        ],
      ],
    );
    assert.deepEqual(w.breakpoints, [0, 2, 3]);
  });

  it('Anthropic messages: top-level system blocks, tool_use and tool_result blocks, input_schema tools', () => {
    const body = {
      model: 'claude-sonnet-4-6',
      max_tokens: 4096,
      system: [
        { type: 'text', text: 'You are ' },
        { type: 'text', text: 'Hermes.', cache_control: mark },
      ],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'read notes.md', cache_control: mark }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hm' },
            { type: 'tool_use', id: 'call_1', name: 'read_file', input: { path: 'notes.md' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_1', content: '# notes' },
            { type: 'text', text: 'and?' },
          ],
        },
      ],
      tools: [{ name: 'read_file', description: 'Read a file', input_schema: { type: 'object' } }],
    };
    assert.equal(apiModeOf(body), 'anthropic-messages');
    const w = wireOfRequestBody(body);
    assert.deepEqual(w.messages, [
      { role: 'system', content: 'You are Hermes.' },
      { role: 'user', content: 'read notes.md' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"notes.md"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: '# notes' },
      { role: 'user', content: 'and?' },
    ]);
    assert.deepEqual(w.breakpoints, [0, 1]);
    assert.deepEqual(w.entry, [-1, 0, 1, 2, 2]);
    assert.deepEqual(w.tools, [{ type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object' } } }]);
  });

  it('responses: instructions, message items, function calls joined to their assistant turn, outputs as tool messages', () => {
    const body = {
      model: 'gpt-5.5',
      instructions: 'SYS',
      store: false,
      input: [
        { role: 'user', content: 'read notes.md' },
        { type: 'reasoning', summary: [] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Opening it.' }], status: 'completed' },
        { type: 'function_call', call_id: 'call_1', name: 'read_file', arguments: '{"path":"notes.md"}' },
        { type: 'function_call_output', call_id: 'call_1', output: '# notes' },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'look' },
            { type: 'input_image', image_url: 'https://x/i.png' },
          ],
        },
      ],
      tools: [{ type: 'function', name: 'read_file', description: 'Read', parameters: {} }],
    };
    const w = wireOfRequestBody(body);
    assert.equal(w.apiMode, 'responses');
    assert.deepEqual(w.messages, [
      { role: 'system', content: 'SYS' },
      { role: 'user', content: 'read notes.md' },
      {
        role: 'assistant',
        content: 'Opening it.',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"notes.md"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '# notes' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url: 'https://x/i.png' } },
        ],
      },
    ]);
    assert.deepEqual(w.tools, [{ type: 'function', function: { name: 'read_file', description: 'Read', parameters: {} } }]);
  });

  it('Anthropic: a tool call alone is null content; each marker counts on the message its block came from; string and list user turns read back as sent', () => {
    const body = {
      system: [
        { type: 'text', text: 'STATIC', cache_control: mark },
        { type: 'text', text: ' and the rest', cache_control: mark },
      ],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'one part, sent as a list' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'terminal', input: { command: 'ls' }, cache_control: mark }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'c1', content: 'a b', cache_control: mark },
            { type: 'text', text: 'a string joined to the results' },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Done.' },
            { type: 'text', text: ' Next?', cache_control: mark },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'PREFIX ', cache_control: mark },
            { type: 'text', text: 'tail' },
          ],
        },
      ],
    };
    const w = wireOfRequestBody(body);
    assert.deepEqual(w.messages, [
      { role: 'system', content: 'STATIC and the rest' },
      { role: 'user', content: [{ type: 'text', text: 'one part, sent as a list' }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'terminal', arguments: '{"command":"ls"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'a b' },
      { role: 'user', content: 'a string joined to the results' },
      { role: 'assistant', content: 'Done. Next?' },
      { role: 'user', content: 'PREFIX tail' },
    ]);
    assert.deepEqual(w.breakpoints, [0, 2, 3, 5, 6]);
  });

  it('responses: a user part list stays a list, image detail kept; a multimodal tool output is parts', () => {
    const w = wireOfRequestBody({
      instructions: 'SYS',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'one part' }] },
        { type: 'function_call', call_id: 'c1', name: 'shot', arguments: '{}' },
        {
          type: 'function_call_output',
          call_id: 'c1',
          output: [
            { type: 'input_text', text: 'screen' },
            { type: 'input_image', image_url: 'https://x/s.png', detail: 'low' },
          ],
        },
      ],
    });
    assert.deepEqual(w.messages.slice(1), [
      { role: 'user', content: [{ type: 'text', text: 'one part' }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'shot', arguments: '{}' } }] },
      {
        role: 'tool',
        tool_call_id: 'c1',
        content: [
          { type: 'text', text: 'screen' },
          { type: 'image_url', image_url: { url: 'https://x/s.png', detail: 'low' } },
        ],
      },
    ]);
  });
});

describe('sentKey: what a body of each mode keeps of a chat message', () => {
  const modes = ['chat-completions', 'anthropic-messages', 'responses'];
  const calls = (args: string, id = 'call_1'): unknown[] => [{ id, type: 'function', function: { name: 'terminal', arguments: args } }];
  const same = (a: Row, b: Row, mode: string): boolean => sentKey(a, mode) === sentKey(b, mode);

  it('a tool call alone: empty, null or blank content is no content, in every mode; arguments by value', () => {
    for (const mode of modes) {
      const stored: Row = { role: 'assistant', content: '', tool_calls: calls('{"command": "ls", "cwd": "/"}') };
      assert.ok(same(stored, { role: 'assistant', content: null, tool_calls: calls('{"cwd":"/","command":"ls"}') }, mode), mode);
      assert.ok(same(stored, { role: 'assistant', content: ' \n', tool_calls: calls('{"cwd":"/","command":"ls"}') }, mode), mode);
      assert.ok(!same(stored, { role: 'assistant', content: null, tool_calls: calls('{"cwd":"/tmp","command":"ls"}') }, mode), mode);
      assert.ok(!same(stored, { role: 'assistant', content: 'Listing.', tool_calls: calls('{"cwd":"/","command":"ls"}') }, mode), mode);
    }
  });

  it("each adapter's own losses, and only in its mode", () => {
    const empty: Row = { role: 'tool', tool_call_id: 'call_1', content: '' };
    const noOutput: Row = { role: 'tool', tool_call_id: 'call_1', content: '(no output)' };
    assert.ok(same(empty, noOutput, 'anthropic-messages'));
    assert.ok(!same(empty, noOutput, 'chat-completions'));
    assert.ok(!same(empty, noOutput, 'responses'));
    // Anthropic ids allow [a-zA-Z0-9_-] only; Responses sends a call's call_id, else its id before a `|`.
    const piped: Row = { role: 'assistant', content: null, tool_calls: calls('{}', 'call_1|fc_1') };
    assert.ok(same(piped, { role: 'assistant', content: null, tool_calls: calls('{}', 'call_1_fc_1') }, 'anthropic-messages'));
    assert.ok(same(piped, { role: 'assistant', content: null, tool_calls: calls('{}', 'call_1') }, 'responses'));
    assert.ok(!same(piped, { role: 'assistant', content: null, tool_calls: calls('{}', 'call_1') }, 'chat-completions'));
    assert.ok(same({ role: 'system', content: 'SYS\n' }, { role: 'system', content: 'SYS' }, 'responses'));
    assert.ok(!same({ role: 'system', content: 'SYS\n' }, { role: 'system', content: 'SYS' }, 'anthropic-messages'));
    assert.ok(
      same({ role: 'user', content: [{ type: 'text', text: 'q' }] }, { role: 'user', content: 'q' }, 'anthropic-messages'),
      'a marked part is a string',
    );
  });
});
