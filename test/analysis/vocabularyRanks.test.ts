import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { runInThisContext } from 'node:vm';
import { packedRanksSource, packRanks, ranksOf, type PackedRankModule, type RankListModule } from '../../src/analysis/vocabularyRanks';
import { TOKENIZER_NAMES } from '../../src/shared/settingNames';

/** A module's text evaluated as CommonJS, as a bundle would. */
function evaluated(source: string): PackedRankModule {
  const module = { exports: {} as PackedRankModule };
  (runInThisContext(`(function (module, exports) {${source}\n})`) as (m: typeof module, e: PackedRankModule) => void)(module, module.exports);
  return module.exports;
}

describe('packed vocabulary ranks', () => {
  // A hole at rank 3 (cl100k_base has unused ranks), a token that is not UTF-8 (bytes), multi-byte characters.
  const list: RankListModule['default'] = ['a', ' the', 'é'];
  list[4] = [0xe2, 0x80];
  list[5] = '\u{1f600}';

  it('packs every token’s UTF-8 bytes in rank order, with each rank’s length and 0 for a hole', () => {
    const { bytes, lengths } = packRanks(list);
    assert.deepEqual([...lengths], [1, 4, 2, 0, 2, 4]);
    assert.deepEqual([...bytes], [...Buffer.from('a the'), 0xc3, 0xa9, 0xe2, 0x80, 0xf0, 0x9f, 0x98, 0x80]);
  });

  it('the module text a bundle carries decodes to the same ranks', () => {
    assert.deepEqual(ranksOf(evaluated(packedRanksSource(list))), packRanks(list));
    assert.deepEqual(ranksOf({ default: list }), packRanks(list));
  });

  it('a token that is empty or longer than a length byte holds is refused', () => {
    assert.throws(() => packRanks(['a', '']), /rank 1: a token of 0 bytes/);
    assert.throws(() => packRanks(['x'.repeat(256)]), /rank 0: a token of 256 bytes/);
  });

  // Run bundled (the test scripts), `gpt-tokenizer/bpeRanks/…` is the build plugin's packed module:
  // it must hold exactly gpt-tokenizer's own list, read here from the package's file.
  for (const name of TOKENIZER_NAMES) {
    it(`${name}: the ranks the tokenizer loads are gpt-tokenizer's, token for token`, () => {
      const loaded = (name === 'o200k_base' ? require('gpt-tokenizer/bpeRanks/o200k_base') : require('gpt-tokenizer/bpeRanks/cl100k_base')) as
        RankListModule | PackedRankModule;
      const packageFile = join(dirname(require.resolve('gpt-tokenizer/package.json')), 'cjs', 'bpeRanks', `${name}.js`);
      const own = (require as (path: string) => RankListModule)(packageFile);
      assert.deepEqual(ranksOf(loaded), packRanks(own.default));
    });
  }
});
