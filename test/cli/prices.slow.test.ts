// `--prices FILE` on the built CLI: a model the file prices is billed at its rates, every other
// model at the catalogue's, and a file of the wrong shape is a usage error.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { analyzeJson, assertNoStack, cli, example, tempDir } from './support';

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));
const BILLED = example('billed/state.db');

describe('--prices', () => {
  it('bills the model it names at its rates, the others at the catalogue’s', () => {
    const file = join(dir, 'prices.json');
    const rates = { input: 6, output: 30, cacheRead: 0.6, cacheWrite: 7.5 };
    writeFileSync(file, JSON.stringify({ 'claude-sonnet-4-6': rates }));
    const plain = analyzeJson(BILLED);
    const priced = analyzeJson(BILLED, '--prices', file);
    let own = 0;
    let other = 0;
    priced.requests.forEach((r: any, i: number) => {
      if (!r.billed || r.billed.input === null) return;
      if (r.billed.model === 'claude-sonnet-4-6') {
        own++;
        const b = r.billed;
        const written = b.cacheWrite ?? 0;
        const want =
          ((b.input - b.cacheRead - written) * rates.input + b.cacheRead * rates.cacheRead + written * rates.cacheWrite + b.output * rates.output) / 1e6;
        assert.equal(r.cost.catalogue, 'prices set by the user');
        assert.deepEqual(r.cost.rates, { input: 6, cacheRead: 0.6, cacheWrite: 7.5, output: 30 });
        assert.ok(Math.abs(r.cost.usd - want) < 1e-12, `request ${r.index}: ${r.cost.usd} vs ${want}`);
      } else {
        other++;
        assert.deepEqual(r.cost, plain.requests[i].cost, `request ${r.index} (${r.billed.model}) keeps the catalogue's price`);
      }
    });
    assert.ok(own > 10 && other > 0, `${own} priced by the file, ${other} by the catalogue`);
    assert.ok(priced.billing.cost.usd > plain.billing.cost.usd, 'the total follows');
  });

  it('refuses a file of the wrong shape, or none, with exit 2 and no stack', () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ 'claude-sonnet-4-6': { input: 'three' } }));
    const run = cli('analyze', BILLED, '--prices', bad);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--prices .*bad\.json: "claude-sonnet-4-6": needs input and output/);
    assertNoStack(run.stdout + run.stderr);
    const missing = cli('check', BILLED, '--prices', join(dir, 'none.json'));
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--prices .*none\.json: ENOENT/);
  });
});
