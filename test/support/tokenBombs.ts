// Token bombs: text shapes that make the pre-tokenizers' pieces long or the merge slow (runs of one
// class, repeated units such as "\n/" or "!\u0301", random mixes of two or three classes, combining
// marks, contractions, CJK, astral characters). Shared by the fuzzer (test/robustness/fuzz.slow.test.ts)
// and the worst-case search of bench/tokenizers.ts. A bomb is a recipe, so the same shape can be
// made at any length.

import fc from 'fast-check';

type Rand = () => number;

const pick = (chars: string): ((rand: Rand) => string) => {
  const list = [...chars];
  return (rand) => list[Math.floor(rand() * list.length)];
};
const range =
  (from: number, to: number): ((rand: Rand) => string) =>
  (rand) =>
    String.fromCodePoint(from + Math.floor(rand() * (to - from + 1)));

/** Character classes as the two pre-tokenizers tell them apart (and where they disagree). */
export const CLASSES: Record<string, (rand: Rand) => string> = {
  lower: pick('abcdefghijklmnopqrstuvwxyz'),
  upper: pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ'),
  digit: pick('0123456789'),
  space: () => ' ',
  newline: pick('\n\r'),
  tab: () => '\t',
  slash: () => '/',
  punct: pick('!"#$%&()*+,-.:;<=>?@[\\]^_`{|}~'),
  apostrophe: (rand) => ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'LL", "'"][Math.floor(rand() * 10)],
  mark: range(0x300, 0x36f), // combining marks: letters to o200k_base, symbols to cl100k_base
  cjk: range(0x4e00, 0x9fff),
  hangul: range(0xac00, 0xd7a3),
  kana: range(0x3041, 0x30ff),
  cyrillic: range(0x430, 0x44f),
  greek: range(0x3b1, 0x3c9),
  devanagari: range(0x900, 0x97f), // letters and vowel signs (marks)
  arabic: range(0x621, 0x64a),
  titlecase: pick('ǅǈǋǲ'), // Lt: an upper-case start to o200k_base, never a lower-case tail
  modifier: pick('ʰʲˠˤ'), // Lm: both cases to o200k_base
  unicodeSpace: pick('\u00a0\u2003\u3000\u2028'),
  format: pick('\u200d\ufeff\u200b'),
  emoji: range(0x1f300, 0x1f64f),
  astralLetter: range(0x20000, 0x2a6df),
  surrogate: range(0xd800, 0xdfff), // lone halves
  fullwidth: range(0xff01, 0xff5e),
};
const CLASS_NAMES = Object.keys(CLASSES);

export interface Bomb {
  /** What it looks like, for a report: `repeat "\n/"`, `random lower+mark`, `cycle punct,mark`. */
  readonly shape: string;
  /** The text at (about) `length` UTF-16 code units. */
  make(length: number): string;
}

/** mulberry32: small seeded PRNG, so a bomb is the same text every time. */
function prng(seed: number): Rand {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function build(length: number, next: () => string): string {
  const parts: string[] = [];
  for (let n = 0; n < length;) {
    const s = next();
    parts.push(s);
    n += s.length;
  }
  return parts.join('');
}

/**
 * - repeat: one unit of 1-4 characters (each from one of the classes) over and over;
 * - random: every character from a random one of the classes;
 * - cycle: the classes in turn, a random member each time.
 * An optional lead character comes first (o200k_base's "!" + "\n/" × n needs one).
 */
export const bombArb: fc.Arbitrary<Bomb> = fc
  .record({
    kind: fc.constantFrom('repeat', 'random', 'cycle'),
    classes: fc.uniqueArray(fc.constantFrom(...CLASS_NAMES), { minLength: 1, maxLength: 3 }),
    unitLength: fc.integer({ min: 1, max: 4 }),
    lead: fc.option(fc.constantFrom('!', ' ', 'a', 'A', '1', '\n', '\u0301'), { nil: undefined }),
    seed: fc.integer(),
  })
  .map(({ kind, classes, unitLength, lead, seed }): Bomb => {
    const draw = (rand: Rand): string => CLASSES[classes[Math.floor(rand() * classes.length)]](rand);
    const unitRand = prng(~seed);
    const unit = build(unitLength, () => draw(unitRand));
    const shape = kind === 'repeat' ? `repeat ${JSON.stringify(unit)}` : `${kind} ${classes.join(kind === 'random' ? '+' : ',')}`;
    return {
      shape: lead === undefined ? shape : `${JSON.stringify(lead)} then ${shape}`,
      make(length: number): string {
        const rand = prng(seed);
        let turn = 0;
        const next = kind === 'repeat' ? () => unit : kind === 'random' ? () => draw(rand) : () => CLASSES[classes[turn++ % classes.length]](rand);
        return (lead ?? '') + build(length - (lead?.length ?? 0), next);
      },
    };
  });
