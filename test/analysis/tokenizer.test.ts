import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTokenCounter, MAX_PIECE, PIECE_CHUNK } from '../../src/analysis/tokenizer';
import { prng, referenceCount } from '../support/tiktokenReference';
import { TOKENIZER_NAMES, type TokenizerName } from '../../src/shared/settingNames';

const gptTokenizerLoaded = (): boolean => Object.keys(require.cache).some((path) => path.includes('gpt-tokenizer'));

// Checked before anything counts: creating counters must not load the encoder.
describe('TokenCounter vs tiktoken', () => {
  it('importing and creating counters does not load gpt-tokenizer', () => {
    createTokenCounter('o200k_base');
    assert.equal(gptTokenizerLoaded(), false);
  });

  const KNOWN: { label: string; text: string; o200k_base: number; cl100k_base: number }[] = [
    {
      label: 'English prose',
      text: 'The quick brown fox jumps over the lazy dog. Prompt caching only pays off when the prefix is byte-identical, turn after turn.',
      o200k_base: 27,
      cl100k_base: 28,
    },
    {
      label: 'code',
      text: 'function add(a: number, b: number): number {\n  return a + b; // sum\n}\n\nexport const total = [1, 2, 3].reduce(add, 0);\n',
      o200k_base: 41,
      cl100k_base: 41,
    },
    {
      label: 'JSON',
      text: '{"role":"assistant","content":[{"type":"text","text":"Hello, world!"}],"usage":{"input_tokens":1234,"cache_read":987}}',
      o200k_base: 33,
      cl100k_base: 32,
    },
    {
      label: 'CJK',
      text: '提示缓存只有在前缀完全相同时才会生效。日本語のテキストも数えます。한국어 문장도 있습니다.',
      o200k_base: 33,
      cl100k_base: 43,
    },
    {
      label: 'emoji',
      text: 'Deploy done 🚀🎉 👩‍💻 ship it 👍🏽 ✅',
      o200k_base: 17,
      cl100k_base: 23,
    },
    {
      label: 'special-token strings',
      text: 'Stop at <|endoftext|> then <|im_start|>user\nhi<|im_end|> and <|fim_prefix|>.',
      o200k_base: 32,
      cl100k_base: 30,
    },
  ];

  for (const name of TOKENIZER_NAMES) {
    it(`${name}: known counts equal the literal and tiktoken's count`, () => {
      const counter = createTokenCounter(name);
      assert.equal(counter.name, name);
      for (const known of KNOWN) {
        assert.equal(referenceCount(name, known.text), known[name], `tiktoken, ${known.label}`);
        assert.equal(counter.count(known.text), known[name], known.label);
        assert.equal(counter.isApproximate(known.text), false, known.label);
      }
    });
  }

  it('empty string counts 0', () => {
    for (const name of TOKENIZER_NAMES) assert.equal(createTokenCounter(name).count(''), 0);
  });

  const PARTS = [
    'the',
    'token',
    'cache',
    'Prompt',
    'HERMES',
    "don't",
    "it's",
    'we’ll',
    'naïve',
    'café',
    'x',
    'getUserById',
    'snake_case',
    '0',
    '42',
    '3.14159',
    '2026-09-18',
    '1e-9',
    '0xFF',
    '.',
    ',',
    ';',
    '...',
    '!?',
    '()',
    '{}',
    '[]',
    '"',
    "'",
    '`',
    '->',
    '=>',
    '::',
    '//',
    '#',
    '$',
    '%',
    '&&',
    '|',
    ' ',
    ' ',
    ' ',
    '  ',
    '\t',
    '\n',
    '\n\n',
    '\r\n',
    '    ',
    '\u00a0',
    'über',
    'Ωmega',
    'Привет',
    'مرحبا',
    'שלום',
    'नमस्ते',
    '日本語',
    '中文字符',
    '한국어',
    'ñ',
    'e\u0301',
    '😀',
    '🚀',
    '👩‍💻',
    '👍🏽',
    '🇫🇷',
    '∑',
    '→',
    '©',
    '<|endoftext|>',
    '<|im_start|>',
    '<|im_end|>',
    '<|fim_middle|>',
  ];

  function randomText(rand: () => number): string {
    const parts: string[] = [];
    const length = 1 + Math.floor(rand() * 80);
    for (let i = 0; i < length; i++) parts.push(PARTS[Math.floor(rand() * PARTS.length)]);
    return parts.join(rand() < 0.5 ? '' : ' ');
  }

  for (const name of TOKENIZER_NAMES) {
    it(`${name}: 300 random texts count exactly as tiktoken`, () => {
      const rand = prng(name === 'o200k_base' ? 20260918 : 17);
      const counter = createTokenCounter(name);
      for (let i = 0; i < 300; i++) {
        const text = randomText(rand);
        assert.equal(counter.count(text), referenceCount(name, text), JSON.stringify(text));
      }
    });
  }

  it('long mixed runs without whitespace stay exact (not guarded)', () => {
    const rand = prng(7);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    let base64 = '';
    while (base64.length < 20_000) base64 += alphabet[Math.floor(rand() * alphabet.length)];
    const minified = 'var a=1,b=[2,3];function f(x){return x*a+b[0]}'.repeat(400);
    for (const name of TOKENIZER_NAMES) {
      const counter = createTokenCounter(name);
      for (const text of [base64, minified, `data:image/png;base64,${base64}`]) {
        assert.equal(counter.isApproximate(text), false);
        assert.equal(counter.count(text), referenceCount(name, text));
      }
    }
  });

  it('counts are cached per distinct text and stable', () => {
    const counter = createTokenCounter('o200k_base');
    const text = KNOWN[0].text.repeat(50);
    const first = counter.count(text);
    assert.equal(counter.count(text), first);
    // An equal string built separately hits the same entry (keyed by value).
    assert.equal(counter.count([KNOWN[0].text.repeat(25), KNOWN[0].text.repeat(25)].join('')), first);
    assert.equal(first, referenceCount('o200k_base', text));
  });

  // Beyond PARTS: the characters the two pre-tokenizers classify differently or oddly (combining
  // marks are letters to o200k_base and symbols to cl100k_base; Lt and Lm letters; Unicode spaces;
  // format characters; lone surrogates, encoded as U+FFFD).
  const HOSTILE_PARTS = [
    'a',
    'Z',
    'é',
    'e\u0301',
    '\u0301',
    '\u0301\u0302',
    '!',
    '!\u0301',
    '\n',
    '\r',
    '\r\n',
    '\n/',
    ' ',
    '\t',
    '/',
    "'",
    "'s",
    "'LL",
    "'Re",
    "x's",
    '1',
    '234',
    '٣',
    'Ⅻ',
    '中',
    '한',
    'ｶ',
    'Ａ',
    'ǅ',
    'ʰ',
    'ß',
    'ﬁ',
    'Ω',
    '😀',
    '👍🏽',
    '\ud800',
    '\udc00',
    '\u00a0',
    '\u2003',
    '\u3000',
    '\u2028',
    '\u200d',
    '\ufeff',
    '\u0000',
    '\u007f',
    '<|endoftext|>',
  ];

  it('hostile alphabets count exactly as tiktoken (marks, Lt/Lm letters, Unicode spaces, BOM, lone surrogates)', () => {
    for (const name of TOKENIZER_NAMES) {
      const rand = prng(name === 'o200k_base' ? 12 : 13);
      const counter = createTokenCounter(name);
      for (let i = 0; i < 300; i++) {
        const length = 1 + Math.floor(rand() * 120);
        const text = Array.from({ length }, () => HOSTILE_PARTS[Math.floor(rand() * HOSTILE_PARTS.length)]).join('');
        assert.equal(counter.count(text), referenceCount(name, text), JSON.stringify(text));
        assert.equal(counter.isApproximate(text), false);
      }
      // gpt-tokenizer's own countTokens gives one more here: its TextDecoder drops a leading BOM
      // from the candidate pair it looks up.
      const bom = `\ufeff${'a'.repeat(61)}`;
      assert.equal(counter.count(bom), referenceCount(name, bom));
    }
  });

  it(`pieces of up to MAX_PIECE (${MAX_PIECE}) code units are exact; a longer piece is cut and marked approximate`, () => {
    const raw = (name: TokenizerName): { countTokens(text: string, options: { disallowedSpecial: Set<string> }): number } =>
      name === 'o200k_base' ? require('gpt-tokenizer/encoding/o200k_base') : require('gpt-tokenizer/encoding/cl100k_base');
    const rand = prng(5);
    const letters = Array.from({ length: MAX_PIECE + 1 }, () => String.fromCharCode(97 + Math.floor(rand() * 26))).join('');
    for (const name of TOKENIZER_NAMES) {
      // The reference is gpt-tokenizer unguarded (equal to tiktoken on these, and fast enough at this length).
      const reference = (text: string): number => raw(name).countTokens(text, { disallowedSpecial: new Set() });
      for (const piece of [letters.slice(0, MAX_PIECE), 'x'.repeat(MAX_PIECE), ' '.repeat(MAX_PIECE), '-'.repeat(MAX_PIECE)]) {
        const counter = createTokenCounter(name);
        assert.equal(counter.count(piece), reference(piece), `${name}: ${piece.slice(0, 8)}…`);
        assert.equal(counter.isApproximate(piece), false);
        assert.ok(counter.work.longest <= MAX_PIECE, `${name}: ${counter.work.longest} bytes merged at once`);
        const longer = `${piece}${piece[0]}`;
        const cut = createTokenCounter(name);
        assert.equal(cut.isApproximate(longer), true);
        assert.ok(Math.abs(cut.count(longer) - reference(longer)) <= 0.01 * reference(longer) + 1);
        assert.ok(cut.work.longest <= PIECE_CHUNK, `${name}: ${cut.work.longest} bytes merged at once`);
      }
    }
  });
});
