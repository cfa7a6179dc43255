// A call's cost is the price catalogue's (@pydantic/genai-prices) to the last digit that matters,
// also where costOf prices a model from coefficients taken once instead of asking the catalogue
// for every call: on many calls of many shapes, for models priced flat, with tiers and by date.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { calcPrice } from '@pydantic/genai-prices';
import { costOf } from '../../src/analysis/cost';
import type { BilledUsage } from '../../src/shared/reportTypes';
import { createRng } from '../support/synthesize';

const ROUTES: [string, string, string | undefined][] = [
  ['anthropic/claude-sonnet-4.6', 'openrouter', 'openrouter'],
  ['claude-sonnet-4-5', 'anthropic', 'anthropic'],
  ['claude-opus-4-1', 'anthropic', 'anthropic'],
  ['gpt-4o', 'openai', 'openai'],
  ['gemini-2.5-pro', 'gemini', 'google'],
  ['deepseek-chat', 'deepseek', 'deepseek'],
];

describe('cost', () => {
  it("equals the catalogue's price on every call, whichever way costOf priced it", () => {
    const rng = createRng(9);
    let priced = 0;
    for (const [model, provider, providerId] of ROUTES) {
      for (let k = 0; k < 60; k++) {
        const input = rng.int(0, 400_000);
        const read = rng.int(0, input);
        const write = k % 3 === 0 ? null : rng.int(0, input - read);
        const output = rng.int(0, 8_000);
        const at = new Date(Date.UTC(2026, 0, 1) + rng.int(0, 300 * 86_400) * 1000);
        const b: BilledUsage = {
          input,
          output,
          cacheRead: read,
          cacheWrite: write,
          model,
          provider,
          responseId: null,
          latencySeconds: 1,
          loggedAt: '',
          source: { file: 'x', line: 1 },
        };
        const want = calcPrice({ input_tokens: input, cache_read_tokens: read, cache_write_tokens: write ?? 0, output_tokens: output }, model, {
          ...(providerId ? { providerId } : {}),
          timestamp: at,
        });
        const got = costOf(b, at);
        assert.equal(got === null, want === null, `${model} via ${provider}: priced by one and not the other`);
        if (!want || !got) continue;
        priced++;
        assert.ok(
          Math.abs(got.usd - want.total_price) <= 1e-12 * Math.max(1, want.total_price),
          `${model} ${JSON.stringify(b)}: ${got.usd} vs ${want.total_price}`,
        );
      }
    }
    assert.ok(priced >= 4 * 60, `most routes priced (${priced})`);
  });
});
