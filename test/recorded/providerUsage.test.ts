// Usage normalised across providers (issue 24, item 5): whatever the provider's own convention, the
// normalised `input` is the whole prompt with the cache's read and write as parts of it (as Hermes
// normalises its own), and a figure the provider did not give is null, not 0.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { recordedUsageOf, usageShapeOf } from '../../src/transcripts/providerUsage';

describe('billed usage normalised', () => {
  it('Anthropic: cache read and write, reported on top of input, are added up to the whole prompt', () => {
    const u = {
      input_tokens: 3,
      cache_read_input_tokens: 17842,
      cache_creation_input_tokens: 8165,
      cache_creation: { ephemeral_5m_input_tokens: 8165, ephemeral_1h_input_tokens: 0 },
      output_tokens: 9,
    };
    assert.equal(usageShapeOf(u), 'anthropic');
    assert.deepEqual(recordedUsageOf(u), { input: 3 + 17842 + 8165, cacheRead: 17842, cacheWrite: 8165, cacheWrite5m: 8165, cacheWrite1h: 0, output: 9 });
  });

  it('Anthropic before prompt caching: no cache figures are not zeros', () => {
    assert.deepEqual(recordedUsageOf({ input_tokens: 12, output_tokens: 4 }), {
      input: 12,
      cacheRead: null,
      cacheWrite: null,
      cacheWrite5m: null,
      cacheWrite1h: null,
      output: 4,
    });
  });

  it('OpenAI Chat Completions and Responses: cached tokens are inside the prompt figure', () => {
    const chat = { prompt_tokens: 20419, completion_tokens: 50, prompt_tokens_details: { cached_tokens: 19200 } };
    assert.equal(usageShapeOf(chat), 'openai-chat');
    assert.deepEqual(recordedUsageOf(chat), { input: 20419, cacheRead: 19200, cacheWrite: 0, cacheWrite5m: null, cacheWrite1h: null, output: 50 });
    const responses = { input_tokens: 20419, input_tokens_details: { cached_tokens: 0 }, output_tokens: 7 };
    assert.equal(usageShapeOf(responses), 'openai-responses');
    assert.deepEqual(recordedUsageOf(responses), { input: 20419, cacheRead: 0, cacheWrite: 0, cacheWrite5m: null, cacheWrite1h: null, output: 7 });
  });

  it('GPT-5.6 on: the tokens written to the cache, inside the prompt figure as the cached ones are', () => {
    const chat = { prompt_tokens: 30000, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 20000, cache_write_tokens: 9000 } };
    assert.deepEqual(recordedUsageOf(chat), { input: 30000, cacheRead: 20000, cacheWrite: 9000, cacheWrite5m: null, cacheWrite1h: null, output: 5 });
    // Other names Hermes' normaliser tries, the first non-zero winning: at the top level, DeepSeek's, Kimi's.
    const passedThrough = { prompt_tokens: 30000, completion_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 700 };
    assert.equal(usageShapeOf(passedThrough), 'openai-chat');
    assert.deepEqual(recordedUsageOf(passedThrough), { input: 30000, cacheRead: 100, cacheWrite: 700, cacheWrite5m: null, cacheWrite1h: null, output: 5 });
    const deepseek = { prompt_tokens: 3000, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 0 }, prompt_cache_hit_tokens: 2048 };
    assert.equal(recordedUsageOf(deepseek)?.cacheRead, 2048);
    assert.equal(recordedUsageOf({ prompt_tokens: 3000, completion_tokens: 5, cached_tokens: 1024 })?.cacheRead, 1024);
    assert.equal(recordedUsageOf({ prompt_tokens: 3000, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 0 } })?.cacheRead, 0);
    const responses = { input_tokens: 30000, input_tokens_details: { cached_tokens: 0, cache_creation_tokens: 12000 }, output_tokens: 7 };
    assert.equal(recordedUsageOf(responses)?.cacheWrite, 12000);
    // Codex 0.145 on: `cache_write_input_tokens` beside `cached_input_tokens`.
    const codex = { input_tokens: 317792, cached_input_tokens: 280060, cache_write_input_tokens: 37687, output_tokens: 2093, reasoning_output_tokens: 494 };
    assert.deepEqual(recordedUsageOf(codex), { input: 317792, cacheRead: 280060, cacheWrite: 37687, cacheWrite5m: null, cacheWrite1h: null, output: 2093 });
  });

  it('Gemini: cachedContentTokenCount is inside promptTokenCount', () => {
    const g = { promptTokenCount: 5000, cachedContentTokenCount: 4096, candidatesTokenCount: 10 };
    assert.equal(usageShapeOf(g), 'gemini');
    assert.deepEqual(recordedUsageOf(g), { input: 5000, cacheRead: 4096, cacheWrite: 0, cacheWrite5m: null, cacheWrite1h: null, output: 10 });
  });

  it('what is not a count is not recorded; what is no usage is null', () => {
    assert.deepEqual(recordedUsageOf({ input_tokens: '3', cache_read_input_tokens: -1, cache_creation_input_tokens: 1.5, output_tokens: null }), {
      input: null,
      cacheRead: null,
      cacheWrite: null,
      cacheWrite5m: null,
      cacheWrite1h: null,
      output: null,
    });
    for (const v of [null, 3, 'usage', [], {}, { total: 1 }]) assert.equal(recordedUsageOf(v), null, JSON.stringify(v));
  });
});
