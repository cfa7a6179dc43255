// A call's cost is the price catalogue's (@pydantic/genai-prices) to the last digit that matters,
// also where costOf prices a model from coefficients taken once instead of asking the catalogue
// for every call: on many calls of many shapes, for models priced flat, with tiers and by date.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { calcPrice } from '@pydantic/genai-prices';
import { costOf, missCost, PRICE_OVERRIDE } from '../../src/analysis/cost';
import { priceOverridesOf } from '../../src/shared/settingNames';
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

/** A logged call's usage with these figures; the rest as any line has it. */
function billed(figures: Pick<BilledUsage, 'input' | 'output' | 'cacheRead' | 'cacheWrite' | 'model' | 'provider'>): BilledUsage {
  return { ...figures, responseId: null, latencySeconds: 1, loggedAt: '', source: { file: 'x', line: 1 } };
}

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
        const b = billed({ input, output, cacheRead: read, cacheWrite: write, model, provider });
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

  it('prices a model the user set at their rates, over the catalogue and the subscription rule', () => {
    const call = (model: string, provider: string, cacheWrite: number | null): BilledUsage =>
      billed({ input: 100_000, output: 2_000, cacheRead: 60_000, cacheWrite, model, provider });
    const prices = { 'my-model': { input: 2, output: 10, cacheRead: 0.5, cacheWrite: 2.5 }, 'claude-sonnet-4-5': { input: 1, output: 5 } };
    // 30,000 uncached at 2, 60,000 read at 0.5, 10,000 written at 2.5, 2,000 out at 10, per million.
    const own = costOf(call('my-model', 'openai-codex', 10_000), undefined, prices);
    assert.ok(own);
    assert.ok(Math.abs(own.usd - (30_000 * 2 + 60_000 * 0.5 + 10_000 * 2.5 + 2_000 * 10) / 1e6) < 1e-12, String(own.usd));
    assert.deepEqual(own.rates, { input: 2, cacheRead: 0.5, cacheWrite: 2.5, output: 10 });
    assert.equal(own.catalogue, PRICE_OVERRIDE);
    assert.deepEqual(own.notes, []);
    // Cache rates left out: the input rate, said in a note; the catalogue's own price is not used.
    const sonnet = costOf(call('claude-sonnet-4-5', 'anthropic', 10_000), undefined, prices);
    assert.ok(sonnet);
    assert.ok(Math.abs(sonnet.usd - (100_000 * 1 + 2_000 * 5) / 1e6) < 1e-12, String(sonnet.usd));
    assert.match(sonnet.notes.join(), /priced at the input rate/);
    // Another model: the catalogue, as without overrides; a model the catalogue lacks and the user did not set: unpriced.
    assert.deepEqual(costOf(call('claude-opus-4-1', 'anthropic', 10_000), undefined, prices), costOf(call('claude-opus-4-1', 'anthropic', 10_000)));
    assert.equal(costOf(call('my-model', 'openai', 10_000)), null);
  });

  it("prices an hour's cache writes at twice the input rate, the five minutes' at the catalogue's", () => {
    // Sonnet 4.5: input 3, write (5 minutes) 3.75, read 0.30 per million; an hour's write is 6.
    const usage = { input: 100_000, output: 1_000, cacheRead: 50_000, cacheWrite: 40_000, model: 'claude-sonnet-4-5', provider: 'anthropic' };
    const fiveMinutes = costOf(usage);
    const mixed = costOf({ ...usage, cacheWrite1h: 30_000 });
    assert.ok(fiveMinutes && mixed);
    assert.deepEqual(fiveMinutes.rates, { input: 3, cacheRead: 0.3, cacheWrite: 3.75, output: 15 });
    assert.ok(Math.abs(mixed.usd - fiveMinutes.usd - (30_000 * (6 - 3.75)) / 1e6) < 1e-12, `${mixed.usd} - ${fiveMinutes.usd}`);
    assert.deepEqual(mixed.notes, ['30000 tokens written for 1 hour, at 2× the input rate (6 per million)']);
    // Not more hour's tokens than writes; none: the catalogue's price as it is.
    assert.deepEqual(costOf({ ...usage, cacheWrite1h: 0 }), fiveMinutes);
    assert.equal(costOf({ ...usage, cacheWrite1h: 90_000 })!.usd, costOf({ ...usage, cacheWrite1h: 40_000 })!.usd);
    // A miss re-billed at the writes' mean rate: 30,000 at 6 and 10,000 at 3.75, less the read rate.
    const extra = missCost({ rebilledTokens: 40_000 }, { cacheWrite: 40_000, cacheWrite1h: 30_000 }, mixed);
    assert.ok(Math.abs(extra! - (30_000 * 6 + 10_000 * 3.75 - 40_000 * 0.3) / 1e6) < 1e-12, String(extra));
    assert.ok(Math.abs(missCost({ rebilledTokens: 40_000 }, { cacheWrite: 40_000 }, fiveMinutes)! - (40_000 * (3.75 - 0.3)) / 1e6) < 1e-12);
  });

  it('takes prices of the right shape only, and says what it refused', () => {
    assert.deepEqual(priceOverridesOf(undefined), { prices: {}, problems: [] });
    const { prices, problems } = priceOverridesOf({
      ok: { input: 1, output: 2 },
      cached: { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1.25 },
      negative: { input: -1, output: 2 },
      text: { input: '1', output: 2 },
      noOutput: { input: 1 },
      nan: { input: Number.NaN, output: 1 },
      list: [1, 2],
    });
    assert.deepEqual(Object.keys(prices), ['ok', 'cached']);
    assert.deepEqual(prices.cached, { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1.25 });
    assert.equal(problems.length, 5);
    assert.match(problems[0], /^"negative": needs input and output/);
    assert.equal(priceOverridesOf([]).problems.length, 1);
    assert.equal(priceOverridesOf('x').problems.length, 1);
  });
});
