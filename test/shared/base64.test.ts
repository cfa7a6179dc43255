// Bytes as base64 (src/shared/base64.ts), written digit by digit for the webview and the engine
// alike: the same text as Node's own encoder, and back to the same bytes, at every length's padding.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { base64ToBytes, bytesToBase64 } from '../../src/shared/base64';

describe('base64', () => {
  it("writes what Node's encoder writes, and reads back the same bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const text = bytesToBase64(bytes);
        assert.equal(text, Buffer.from(bytes).toString('base64'));
        assert.deepEqual(base64ToBytes(text), bytes);
      }),
    );
  });

  it('pads one and two bytes left over, and writes nothing of none', () => {
    assert.deepEqual(
      ['', 'f', 'fo', 'foo', 'foob'].map((s) => bytesToBase64(new TextEncoder().encode(s))),
      ['', 'Zg==', 'Zm8=', 'Zm9v', 'Zm9vYg=='],
    );
    assert.equal(bytesToBase64(new Uint8Array([0xff, 0xfe, 0xfd])), '//79');
  });
});
