// Bytes (state.db BLOB columns) as Python sees them: repr() written out and measured, checked
// against python3 itself (test/support/bytes_repr.py), and the rough estimator on a 16 MB BLOB
// without writing its repr out.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { estimateMessagesTokensRough } from '../../src/engine/estimator';
import { PROFILES } from '../../src/engine/profile';
import { pythonBytesLength, writeRepr } from '../../src/engine/pythonRepr';
import { pythonReprMeasured } from '../support/pythonReprText';
import type { Row } from '../../src/shared/model/rows';
import { createRng } from '../support/synthesize';
import { PYTHON } from '../support/python';

/**
 * repr() of bytes written out, which the product never does (it measures them: pythonBytesLength):
 * b'…', or b"…" with a ' and no "; backslash, the quote, tab, newline and carriage return after a
 * backslash, other bytes outside 0x20-0x7e as \xNN. Checked against python3 below.
 */
function pythonBytes(b: Uint8Array): string {
  const quote = b.includes(0x27) && !b.includes(0x22) ? '"' : "'";
  const named: Record<number, string> = { 0x09: '\\t', 0x0a: '\\n', 0x0d: '\\r', 0x5c: '\\\\' };
  const body = Array.from(b, (c) => {
    const ch = String.fromCharCode(c);
    if (ch === quote) return `\\${ch}`;
    if (named[c]) return named[c];
    return c < 0x20 || c >= 0x7f ? `\\x${c.toString(16).padStart(2, '0')}` : ch;
  });
  return `b${quote}${body.join('')}${quote}`;
}

/** str() of value written out whole, bytes values too (the product only measures those). */
function pythonRepr(value: unknown): string {
  const out: string[] = [];
  writeRepr(value, { text: (s) => out.push(s), bytes: (b) => out.push(pythonBytes(b)) });
  return out.join('');
}

const hasPython = spawnSync(PYTHON, ['--version']).status === 0;
const BYTES_REPR_PY = join(__dirname, '..', 'support', 'bytes_repr.py');

/** The synthesizer's seeded PRNG (mulberry32), so failures reproduce. */
const prng = (seed: number): (() => number) => {
  const rng = createRng(seed);
  return () => rng.next();
};

/** A sample of byte strings: random bytes, and random picks from the bytes repr treats apart. */
function sample(): Uint8Array[] {
  const rand = prng(2026);
  const special = [0x00, 0x09, 0x0a, 0x0d, 0x1f, 0x20, 0x22, 0x27, 0x5c, 0x7e, 0x7f, 0x80, 0xff, 0x61];
  const out: Uint8Array[] = [
    new Uint8Array(0),
    Uint8Array.of(0x27),
    Uint8Array.of(0x22),
    Uint8Array.of(0x27, 0x22),
    Uint8Array.from({ length: 256 }, (_, i) => i),
  ];
  for (let i = 0; i < 60; i++) {
    const length = Math.floor(rand() * 200);
    out.push(Uint8Array.from({ length }, () => (i % 2 ? Math.floor(rand() * 256) : special[Math.floor(rand() * special.length)])));
  }
  return out;
}

describe('Python repr of bytes', () => {
  it('verified literals', () => {
    // Each checked with python3: repr(b'') and so on.
    assert.equal(pythonBytes(new Uint8Array(0)), "b''");
    assert.equal(pythonBytes(Uint8Array.of(0x27)), `b"'"`);
    assert.equal(pythonBytes(Uint8Array.of(0x27, 0x22)), `b'\\'"'`);
    assert.equal(pythonBytes(Uint8Array.of(0x00, 0x5c, 0x09, 0x0a, 0x0d, 0x7f, 0x80, 0xff, 0x20, 0x61, 0x7e)), "b'\\x00\\\\\\t\\n\\r\\x7f\\x80\\xff a~'");
    assert.equal(pythonBytesLength(Uint8Array.from({ length: 256 }, (_, i) => i)), 738);
    const row = { role: 'tool', content: Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a), id: 2n ** 63n - 1n };
    assert.equal(pythonRepr(row), "{'role': 'tool', 'content': b'\\x89PNG\\r\\n\\x1a\\n', 'id': 9223372036854775807}");
  });

  it('equals python3 repr() and len(repr()) on a random sample', { skip: !hasPython && 'python3 not found' }, () => {
    const bytes = sample();
    const input = JSON.stringify(bytes.map((b) => Buffer.from(b).toString('hex')));
    const run = spawnSync(PYTHON, [BYTES_REPR_PY], { input, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const expected = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as [string, number]);
    assert.equal(expected.length, bytes.length);
    bytes.forEach((b, i) => {
      assert.equal(pythonBytes(b), expected[i][0], `bytes ${i}`);
      assert.equal(pythonBytesLength(b), expected[i][1], `bytes ${i}`);
    });
  });

  it('the rough estimator measures a 16 MB BLOB without writing its repr out', () => {
    const rand = prng(16);
    const blob = Uint8Array.from({ length: 16 * 1024 * 1024 }, () => Math.floor(rand() * 256));
    const row: Row = { role: 'user', content: blob };
    const measured = pythonReprMeasured(row);
    assert.equal(measured.text, "{'role': 'user', 'content': }");
    assert.equal(measured.bytesLength, pythonBytesLength(blob));
    const chars = measured.text.length + measured.bytesLength;
    // The repr is ASCII (no CJK), so both estimators give (len(str(row)) + 3) // 4.
    for (const profile of [PROFILES['hermes-v0'], PROFILES['hermes-current']]) {
      assert.equal(estimateMessagesTokensRough([row], profile), Math.floor((chars + 3) / 4), profile.name);
    }
    // And the same as the repr written out, on a small one.
    const small: Row = { role: 'user', content: blob.subarray(0, 4096) };
    assert.equal(estimateMessagesTokensRough([small], PROFILES['hermes-v0']), Math.floor((pythonRepr(small).length + 3) / 4));
  });
});
