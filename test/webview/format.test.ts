// The webview's pure formatting helpers (webview/format.ts) that carry a rule: a gap outlives the
// cache by the lifetime the home asked for.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { outlivedCache } from '../../webview/format';

describe('outlivedCache', () => {
  it('marks a gap as long as the lifetime asked for, and none where caching was off', () => {
    assert.equal(outlivedCache(299, 300), false);
    assert.equal(outlivedCache(300, 300), true);
    assert.equal(outlivedCache(1200, 3600), false);
    assert.equal(outlivedCache(86_400, null), false);
  });
});
