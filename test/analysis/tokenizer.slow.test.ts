// The token counter on inputs of a megabyte: the guard on long single-class runs and issue 12's
// token bombs, each held to tiktoken (quick cases: tokenizer.test.ts).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createTokenCounter, MAX_PIECE } from '../../src/analysis/tokenizer';
import { utf8Length } from '../../src/shared/model/utf8';
import { bombArb } from '../support/tokenBombs';
import { prng, referenceCount } from '../support/tiktokenReference';
import { TOKENIZER_NAMES, type TokenizerName } from '../../src/shared/settingNames';

const PROSE = 'The quick brown fox jumps over the lazy dog. Prompt caching only pays off when the prefix is byte-identical, turn after turn.';

describe('TokenCounter vs tiktoken on long inputs', () => {
  it('run guard: 1,000,000-char single-class runs count close to the short-run ratio', () => {
    // Below the guard, so exact; 1,024 is a multiple of every run's chars per
    // token (e.g. o200k packs 128 spaces or 64 dashes in one), so no rounding.
    const short = 1024;
    for (const name of TOKENIZER_NAMES) {
      const counter = createTokenCounter(name);
      for (const unit of ['a', ' ', '-', '中', '😀']) {
        const shortRun = unit.repeat(short / unit.length);
        assert.equal(counter.isApproximate(shortRun), false);
        assert.equal(counter.count(shortRun), referenceCount(name, shortRun), `${name} ${unit} short`);
        const ratio = counter.count(shortRun) / shortRun.length;

        const longRun = unit.repeat(Math.floor(1_000_000 / unit.length));
        const n = counter.count(longRun);
        assert.ok(n > 0);
        assert.ok(Math.abs(n - ratio * longRun.length) <= 0.01 * ratio * longRun.length, `${name} ${JSON.stringify(unit)}: ${n} vs ratio ${ratio}`);
        assert.equal(counter.isApproximate(longRun), true);
        // Embedded in prose the run is still guarded, the prose still counted.
        const embedded = `Tool output follows:\n${longRun}\nEnd of output.`;
        assert.equal(counter.isApproximate(embedded), true);
        assert.ok(counter.count(embedded) > n);
      }
      assert.equal(counter.isApproximate(PROSE.repeat(200)), false);
    }
  });

  it('run guard: varied single-class runs stay within 1% of the unguarded count', () => {
    // The reference here is gpt-tokenizer unguarded (shown equal to tiktoken above):
    // js-tiktoken needs seconds per 10,000-char run.
    const raw = require('gpt-tokenizer/encoding/o200k_base') as {
      countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
    };
    const rand = prng(11);
    const pick = (alphabet: string[], n: number): string => Array.from({ length: n }, () => alphabet[Math.floor(rand() * alphabet.length)]).join('');
    const lower = [...'abcdefghijklmnopqrstuvwxyz'];
    const han = [...'提示缓存只有在前缀完全相同时才会生效数字文本', '𠀀', '𪚥']; // astral letters must not break the run
    const symbols = ['-', '=', '*', '😀', '🚀', '→', '…'];
    const counter = createTokenCounter('o200k_base');
    for (const run of [pick(lower, 10_000), pick(han, 10_000), pick(symbols, 10_000)]) {
      const text = `before ${run} after`;
      assert.equal(counter.isApproximate(text), true);
      const exact = raw.countTokens(text, { disallowedSpecial: new Set() });
      assert.ok(Math.abs(counter.count(text) - exact) <= 0.01 * exact, `${counter.count(text)} vs ${exact}`);
    }
  });

  it('short token bombs count exactly as tiktoken (150 per encoding)', () => {
    for (const name of TOKENIZER_NAMES) {
      const counter = createTokenCounter(name);
      fc.assert(
        fc.property(bombArb, fc.integer({ min: 1, max: 300 }), (bomb, length) => {
          const text = bomb.make(length);
          assert.equal(counter.count(text), referenceCount(name, text), `${bomb.shape}: ${JSON.stringify(text)}`);
        }),
        { numRuns: 150, seed: name === 'o200k_base' ? 21 : 22 },
      );
    }
  });

  it("issue 12's bombs: no piece longer than MAX_PIECE code units reaches the merge, and no byte twice", () => {
    const rand = prng(3);
    const bombs: { text: string; long: TokenizerName[] }[] = [
      // One 600,001-char piece under o200k_base (162 s before): a symbol takes any run of \r, \n and /.
      { text: `!${'\n/'.repeat(300_000)}`, long: ['o200k_base'] },
      // Combining marks after punctuation are one symbol piece under cl100k_base.
      { text: '!\u0301'.repeat(300_000), long: ['cl100k_base'] },
      // A base64 or minified blob without digits: one letter piece under both.
      { text: Array.from({ length: 1_000_000 }, () => String.fromCharCode(97 + Math.floor(rand() * 26))).join(''), long: ['o200k_base', 'cl100k_base'] },
      { text: ' !'.repeat(300_000), long: [] },
      { text: ' \n'.repeat(300_000), long: ['o200k_base', 'cl100k_base'] },
    ];
    for (const { text, long } of bombs) {
      for (const name of TOKENIZER_NAMES) {
        const counter = createTokenCounter(name);
        const n = counter.count(text);
        const label = `${name} ${JSON.stringify(text.slice(0, 6))}…`;
        assert.ok(n > 0 && n <= utf8Length(text), label);
        assert.equal(counter.isApproximate(text), long.includes(name), label);
        assert.ok(counter.work.longest <= 3 * MAX_PIECE, `${label}: ${counter.work.longest} bytes merged at once`);
        assert.ok(counter.work.bytes <= utf8Length(text), `${label}: ${counter.work.bytes} bytes merged`);
      }
    }
    // Cut or not, the count stays at the exact short-run ratio for a repeated pair.
    const counter = createTokenCounter('o200k_base');
    const short = `!${'\n/'.repeat(512)}`;
    const ratio = referenceCount('o200k_base', short) / short.length;
    assert.ok(Math.abs(counter.count(bombs[0].text) - ratio * bombs[0].text.length) <= 0.01 * ratio * bombs[0].text.length);
  });
});
