// Request bodies of every API mode read into the one wire model the replay builds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { apiModeOf, wireOfRequestBody } from '../../src/transcripts/requestBody';

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
});
