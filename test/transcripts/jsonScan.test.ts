// The value scanner reads a text and its UTF-8 bytes alike: the same ends for the same input, the
// bare values ending where the parse must take over (a `:` included, where the two copies it
// replaced once differed).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ByteUnits, skipSpace, stringEnd, TextUnits, valueEnd } from '../../src/transcripts/jsonScan';

const CASES: [string, number][] = [
  ['"a\\"b" ,', 6],
  ['"a\\\\" ,', 5],
  ['{"k": [1, {"x": "]"}]} ,', 22],
  ['[1, 2', -1],
  ['"open', -1],
  ['12.5e3,', 6],
  ['true}', 4],
  ['null:1', 4],
  ['-Infinity ]', 9],
  ['', -1],
];

describe('jsonScan', () => {
  it('finds where each value ends, the same over a text and over its bytes', () => {
    for (const [text, end] of CASES) {
      assert.equal(valueEnd(new TextUnits(text), 0), end, `text ${JSON.stringify(text)}`);
      // ASCII cases: byte offsets are unit offsets.
      assert.equal(valueEnd(new ByteUnits(new TextEncoder().encode(text)), 0), end, `bytes ${JSON.stringify(text)}`);
    }
  });

  it('skips JSON space only, and ends strings at the first unescaped quote', () => {
    const text = ' \t\r\n\u00a0x';
    assert.equal(skipSpace(new TextUnits(text), 0), 4);
    assert.equal(stringEnd(new TextUnits('"\\\\\\"" x'), 0), 6);
    assert.equal(stringEnd(new ByteUnits(new TextEncoder().encode('"é" x')), 0), 4);
  });
});
