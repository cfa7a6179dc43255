// str() of a value written out whole, as the product never needs it: the reference the rough
// estimator's measured repr (src/engine/estimator.ts) and the repr rules are checked against.

import { pythonBytesLength, writeRepr } from '../../src/engine/pythonRepr';

/** str() of value with its bytes values measured rather than written: text + bytesLength chars. */
export function pythonReprMeasured(value: unknown): { text: string; bytesLength: number } {
  const out: string[] = [];
  let bytesLength = 0;
  writeRepr(value, {
    text: (s) => {
      out.push(s);
    },
    bytes: (b) => {
      bytesLength += pythonBytesLength(b);
    },
  });
  return { text: out.join(''), bytesLength };
}
