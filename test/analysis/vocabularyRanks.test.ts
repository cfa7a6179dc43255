import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { packedRanksFile, packRanks, ranksOf, type PackedRankModule, type RankListModule } from '../../src/analysis/vocabularyRanks';
import { TOKENIZER_NAMES } from '../../src/shared/settingNames';

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

  it('the file a bundle reads decodes to the same ranks, read as a Buffer at any offset', () => {
    const file = packedRanksFile(list);
    assert.deepEqual([...file.subarray(0, 4)], [6, 0, 0, 0]);
    assert.deepEqual(ranksOf({ packed: file }), packRanks(list));
    // readFileSync's Buffer may sit at an offset in a larger ArrayBuffer.
    assert.deepEqual(ranksOf({ packed: Buffer.concat([Buffer.from('xyz'), file]).subarray(3) }), packRanks(list));
    assert.deepEqual(ranksOf({ default: list }), packRanks(list));
  });

  it('a file too short for the rank count it states is refused', () => {
    assert.throws(() => ranksOf({ packed: packedRanksFile(list).subarray(0, 8) }), /a packed vocabulary of 8 bytes cannot hold 6 ranks/);
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
