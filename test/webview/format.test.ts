// The webview's pure formatting helpers (webview/format.ts) that carry a rule: a share scaled to
// the bill adds up to the bill exactly; a gap outlives the cache by the lifetime the home asked for.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { outlivedCache, scaledTo } from '../../webview/format';

describe('scaledTo: our categories set against the billed prompt', () => {
  it('keeps every name, adds up to the bill exactly, and moves each share by less than one token from its exact value', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), fc.nat({ max: 200_000 }), { minKeys: 1 }),
        fc.nat({ max: 400_000 }),
        (counts, total) => {
          const sum = Object.values(counts).reduce((n, v) => n + v, 0);
          const scaled = scaledTo(counts, total);
          assert.deepEqual(Object.keys(scaled), Object.keys(counts));
          if (sum === 0) return assert.ok(Object.values(scaled).every((v) => v === 0));
          assert.equal(
            Object.values(scaled).reduce((n, v) => n + v, 0),
            total,
          );
          for (const [k, v] of Object.entries(counts)) assert.ok(Math.abs(scaled[k] - (v * total) / sum) < 1, k);
        },
      ),
    );
  });

  it('on a request: 1,000 of ours, 1,480 billed', () => {
    assert.deepEqual(scaledTo({ 'system/stable': 600, 'history/user': 300, 'current-user': 100 }, 1480), {
      'system/stable': 888,
      'history/user': 444,
      'current-user': 148,
    });
    assert.deepEqual(scaledTo({ a: 1, b: 1, c: 1 }, 2), { a: 1, b: 1, c: 0 });
  });
});

describe('outlivedCache', () => {
  it('marks a gap as long as the lifetime asked for, and none where caching was off', () => {
    assert.equal(outlivedCache(299, 300), false);
    assert.equal(outlivedCache(300, 300), true);
    assert.equal(outlivedCache(1200, 3600), false);
    assert.equal(outlivedCache(86_400, null), false);
  });
});
