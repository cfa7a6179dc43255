// The references the token counter is held to: js-tiktoken (the reference port of OpenAI's tiktoken)
// and the synthesizer's seeded PRNG, shared by the quick and the slow tokenizer tests.

import { Tiktoken } from 'js-tiktoken/lite';
import type { TokenizerName } from '../../src/shared/settingNames';
import { createRng } from './synthesize';

// The rank modules are CommonJS objects behind subpath exports TypeScript's `node` resolution
// cannot see, hence require().
type Ranks = ConstructorParameters<typeof Tiktoken>[0];
const references = new Map<TokenizerName, Tiktoken>();
function reference(name: TokenizerName): Tiktoken {
  let enc = references.get(name);
  if (!enc) {
    const ranks = (name === 'o200k_base' ? require('js-tiktoken/ranks/o200k_base') : require('js-tiktoken/ranks/cl100k_base')) as Ranks;
    enc = new Tiktoken(ranks);
    references.set(name, enc);
  }
  return enc;
}

/** tiktoken's count; `[], []`: special-token strings are plain text, as in the counter. */
export const referenceCount = (name: TokenizerName, text: string): number => reference(name).encode(text, [], []).length;

/** The synthesizer's seeded PRNG (mulberry32), so failures reproduce. */
export const prng = (seed: number): (() => number) => {
  const rng = createRng(seed);
  return () => rng.next();
};
