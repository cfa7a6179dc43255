// Finding where a JSON value ends without parsing it, by quotes and bracket depth only (its parse
// checks the rest): one scanner, over a text's UTF-16 units (a document read member by member) or
// a file's bytes (a document parsed as it is read). Every delimiter is ASCII, so both read alike.

export const QUOTE = 34;
export const BACKSLASH = 92;
export const COMMA = 44;
export const COLON = 58;
export const NEWLINE = 10;
export const OPEN_BRACE = 123;
export const CLOSE_BRACE = 125;
export const OPEN_BRACKET = 91;
export const CLOSE_BRACKET = 93;

export const isSpace = (c: number): boolean => c === 32 || c === NEWLINE || c === 13 || c === 9;

/** What the scanner reads: code units by index (no number past the end), and the next of one unit. */
export interface Units {
  readonly length: number;
  at(i: number): number;
  find(unit: number, from: number): number;
}

/** A text by UTF-16 unit. */
export class TextUnits implements Units {
  constructor(private readonly text: string) {}
  get length(): number {
    return this.text.length;
  }
  at(i: number): number {
    return this.text.charCodeAt(i);
  }
  find(unit: number, from: number): number {
    return this.text.indexOf(String.fromCharCode(unit), from);
  }
}

/** Bytes of UTF-8. */
export class ByteUnits implements Units {
  constructor(private readonly bytes: Uint8Array) {}
  get length(): number {
    return this.bytes.length;
  }
  at(i: number): number {
    return this.bytes[i];
  }
  find(unit: number, from: number): number {
    return this.bytes.indexOf(unit, from);
  }
}

export function skipSpace(u: Units, i: number): number {
  while (i < u.length && isSpace(u.at(i))) i++;
  return i;
}

/** Index just past the string whose opening quote is at `i`; -1 when it runs past the end. */
export function stringEnd(u: Units, i: number): number {
  for (;;) {
    i = u.find(QUOTE, i + 1);
    if (i < 0) return -1;
    let b = i - 1;
    while (u.at(b) === BACKSLASH) b--;
    if ((i - 1 - b) % 2 === 0) return i + 1;
  }
}

/**
 * Index just past the value starting at `i`: -1 when it runs past the end, `i` when no value starts
 * there. A bare value (number, literal) ends at space, `,`, `]`, `}` or `:`.
 */
export function valueEnd(u: Units, i: number): number {
  if (i >= u.length) return -1;
  const c = u.at(i);
  if (c === QUOTE) return stringEnd(u, i);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    let depth = 0;
    for (; i < u.length; i++) {
      const d = u.at(i);
      if (d === QUOTE) {
        i = stringEnd(u, i) - 1;
        if (i < 0) return -1;
      } else if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
      else if ((d === CLOSE_BRACE || d === CLOSE_BRACKET) && --depth === 0) return i + 1;
    }
    return -1;
  }
  let j = i;
  for (let d = c; j < u.length && !isSpace(d) && d !== COMMA && d !== CLOSE_BRACKET && d !== CLOSE_BRACE && d !== COLON; d = u.at(++j));
  return j < u.length ? j : -1;
}
