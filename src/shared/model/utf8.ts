// UTF-8 measurements without Buffer, so the engine also runs in a browser bundle.

export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3; // lone surrogates are written as U+FFFD, also 3 bytes
  }
  return n;
}

/** Byte offset, in the UTF-8 of both strings, of their first difference; null when equal. */
export function firstDifferingByte(a: string, b: string): number | null {
  if (a === b) return null;
  let i = 0;
  const max = Math.min(a.length, b.length);
  while (i < max && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  // Step back to the start of a surrogate pair split by the difference.
  if (i > 0 && i < max && (a.charCodeAt(i - 1) & 0xfc00) === 0xd800) i--;
  return utf8Length(a.slice(0, i));
}
