// The rough estimator measures each row's Python repr without writing it out. Checked here against
// the repr written out (pythonReprMeasured) and measured as the estimator did before, on seeded
// random rows built from what the repr treats apart: quotes, escapes, controls, non-ASCII that
// Python prints or escapes, CJK (BMP and astral), lone surrogates, bytes, numbers, nesting.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { estimateMessagesTokensRough } from '../../src/engine/estimator';
import { PROFILES, type Profile } from '../../src/engine/profile';
import { pythonLen } from '../../src/engine/pythonRepr';
import { pythonReprMeasured } from '../support/pythonReprText';
import type { Row } from '../../src/shared/model/rows';
import { utf8Length } from '../../src/shared/model/utf8';
import { createRng } from '../support/synthesize';

// The estimator's CJK set as upstream's V3 lists it, written out again here so the oracle stands alone.
const CJK =
  /[\u1100-\u11ff\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3100-\u318f\u3190-\u31ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]|[\u{20000}-\u{2fa1f}]/gu;

/** The estimate from the repr written out: V1 len() of all rows' reprs // 4, V3 each row's CJK plus (UTF-8 of the rest + 3) // 4.
 * The rows below have no field the estimator's shadow changes (images, sidecars, bookkeeping), so each row is its own shadow. */
function fromWrittenRepr(rows: Row[], profile: Profile): number {
  let chars = 0;
  let tokens = 0;
  for (const row of rows) {
    const { text, bytesLength } = pythonReprMeasured(row);
    chars += pythonLen(text) + bytesLength;
    let cjk = 0;
    const rest = text.replace(CJK, () => {
      cjk++;
      return '';
    });
    tokens += cjk + Math.floor((utf8Length(rest) + bytesLength + 3) / 4);
  }
  return profile.estimator === 'v1' ? Math.floor((chars + 3) / 4) : tokens;
}

// Characters pythonStr treats apart: quotes, backslash, named and \x escapes, DEL, C1 and NBSP,
// soft hyphen, printable Latin, CJK and Hangul, an ideographic space (escaped, so no CJK), a
// fullwidth mark, a zero-width space and a line separator (escaped), combining marks, lone
// surrogates, an emoji and an astral CJK ideograph.
const SPECIAL = [
  "'",
  '"',
  '\\',
  '\n',
  '\r',
  '\t',
  '\x00',
  '\x1f',
  '\x7f',
  '\x80',
  '\xa0',
  '\xad',
  'é',
  '漢',
  'か',
  '한',
  '\u3000',
  '\uff01',
  '\u200b',
  '\u2028',
  '\u0301',
  '\ud800',
  '\udc00',
  '😀',
  '\u{20000}',
];

function randomRows(seed: number, count: number): Row[] {
  const rng = createRng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[rng.int(0, xs.length - 1)];
  const text = (): string => {
    const n = rng.int(0, 40);
    // Half of the strings are plain ASCII (with or without quotes and escapes), half mixed.
    const plain = rng.next() < 0.5;
    let s = '';
    for (let i = 0; i < n; i++) {
      const r = rng.next();
      s += r < 0.6 ? String.fromCharCode(rng.int(0x20, 0x7e)) : plain ? pick(["'", '"', '\\', '\n', '\r', '\t']) : pick(SPECIAL);
    }
    return s;
  };
  const value = (depth: number): unknown => {
    const r = rng.next();
    if (depth > 2 || r < 0.45) return text();
    if (r < 0.5) return pick([0, -3, 1.5, 1e-7, 1e16, 2 ** 53, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]);
    if (r < 0.55) return pick([true, false, null, 2n ** 63n - 1n]);
    if (r < 0.6) return Uint8Array.from({ length: rng.int(0, 12) }, () => rng.int(0, 255));
    if (r < 0.8) return Array.from({ length: rng.int(0, 4) }, () => (rng.next() < 0.1 ? undefined : value(depth + 1)));
    const o: Record<string, unknown> = {};
    for (let i = rng.int(0, 4); i > 0; i--)
      o[rng.next() < 0.7 ? pick(['type', 'text', 'id', 'function', 'arguments']) : text()] = rng.next() < 0.1 ? undefined : value(depth + 1);
    return o;
  };
  return Array.from({ length: count }, () => {
    const row: Row = { role: pick(['user', 'assistant', 'tool', 'system']) };
    for (const key of ['content', 'tool_calls', 'tool_call_id', 'name', 'finish_reason', text()]) {
      if (rng.next() < 0.6) row[key] = key === 'content' || rng.next() < 0.5 ? value(0) : text();
    }
    return row;
  });
}

describe('rough estimator, measured without writing the repr', () => {
  const rows = randomRows(2026, 2000);
  for (const profile of Object.values(PROFILES)) {
    it(`equals the repr written out, row by row and over the whole list (${profile.name}, ${profile.estimator})`, () => {
      rows.forEach((row, i) =>
        assert.equal(estimateMessagesTokensRough([row], profile), fromWrittenRepr([row], profile), `row ${i}: ${pythonReprMeasured(row).text}`),
      );
      assert.equal(estimateMessagesTokensRough(rows, profile), fromWrittenRepr(rows, profile));
    });
  }
  it('measures long plain strings exactly, whichever quote they get', () => {
    for (const content of ["it's ".repeat(1000), `"quoted" and it's\n`.repeat(500), 'a\\b\tc\r\n'.repeat(700), 'x'.repeat(100_000)]) {
      for (const profile of Object.values(PROFILES))
        assert.equal(estimateMessagesTokensRough([{ role: 'tool', content }], profile), fromWrittenRepr([{ role: 'tool', content }], profile));
    }
  });
});
