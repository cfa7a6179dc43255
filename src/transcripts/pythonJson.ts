// One JSON text with positions, read the way Hermes reads it (Python's json): errors at the offending
// character as line/column, NaN/Infinity/-Infinity read as the numbers Python's json.dump writes
// them for, the last of repeated keys kept. A document read member by member is jsonDocument.ts; one
// parsed as it is read, jsonSplitDocument.ts.

import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE, skipSpace, TextUnits } from './jsonScan';

export interface TextPos {
  line: number;
  column: number;
  offset: number;
}

/** Positions of ascending offsets in one pass over the text (it starts over for an earlier one). */
export class LineCursor {
  private offset = 0;
  private line = 1;
  private lineStart = 0;

  constructor(private readonly text: string) {}

  at(offset: number): TextPos {
    if (offset < this.offset) {
      this.offset = 0;
      this.line = 1;
      this.lineStart = 0;
    }
    for (let nl = this.text.indexOf('\n', this.offset); nl >= 0 && nl < offset; nl = this.text.indexOf('\n', nl + 1)) {
      this.line++;
      this.lineStart = nl + 1;
    }
    this.offset = offset;
    return { line: this.line, column: offset - this.lineStart + 1, offset };
  }
}

/** A JSON object member named `key`, own even when it is "__proto__" (as JSON.parse makes it). */
export function setMember(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

/** The bare tokens Python's json.dump writes for float('nan'), float('inf') and float('-inf') (allow_nan=True, its default). */
export type NonFiniteToken = 'NaN' | 'Infinity' | '-Infinity';
const LITERALS: [string, unknown][] = [
  ['true', true],
  ['false', false],
  ['null', null],
  ['NaN', NaN],
  ['Infinity', Infinity],
];
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const NUMBERISH = /[-+.eE\d]*/y;

type Parsed = { ok: true; value: unknown; nonFinite: { token: NonFiniteToken; offset: number }[] } | { ok: false; message: string; offset: number };
type Step<T> = { ok: true; value: T; end: number } | { ok: false; message: string; offset: number };

function describeAt(s: string, i: number): string {
  const c = s.codePointAt(i) as number;
  return c < 0x20 || c === 0x7f || (c >= 0x80 && c <= 0x9f) ? `U+${c.toString(16).toUpperCase().padStart(4, '0')}` : `'${String.fromCodePoint(c)}'`;
}

export function unexpected(s: string, i: number, expected: string): { ok: false; message: string; offset: number } {
  return i >= s.length
    ? { ok: false, message: `unexpected end of input (expected ${expected})`, offset: s.length }
    : { ok: false, message: `unexpected ${describeAt(s, i)} (expected ${expected})`, offset: i };
}

export function trailing(s: string, i: number): { ok: false; message: string; offset: number } {
  return { ok: false, message: `unexpected ${describeAt(s, i)} after the end of the JSON value`, offset: i };
}

export function readString(s: string, i: number): Step<string> {
  const n = s.length;
  let j = i + 1;
  for (; j < n; j++) {
    const c = s.charCodeAt(j);
    if (c === QUOTE) return { ok: true, value: JSON.parse(s.slice(i, j + 1)) as string, end: j + 1 };
    if (c === BACKSLASH) {
      const e = s.charCodeAt(j + 1);
      if (e === 117 /* u */) {
        let k = 0;
        while (k < 4 && isHex(s.charCodeAt(j + 2 + k))) k++;
        if (k < 4) return j + 2 + k >= n ? endInString(n) : { ok: false, message: `invalid escape \\${s.slice(j + 1, j + 3 + k)} in a string`, offset: j };
        j += 5;
      } else if (ESCAPES.has(e)) j++;
      else return j + 1 >= n ? endInString(n) : { ok: false, message: `invalid escape \\${s[j + 1]} in a string`, offset: j };
    } else if (c < 0x20) {
      // JSON and Python's json (strict, its default) refuse raw control characters inside strings.
      return { ok: false, message: `raw control character ${describeAt(s, j)} inside a string (JSON requires it escaped)`, offset: j };
    }
  }
  return endInString(n);
}

const ESCAPES = new Set([...'"\\/bfnrt'].map((c) => c.charCodeAt(0)));
const isHex = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
const endInString = (n: number): { ok: false; message: string; offset: number } => ({
  ok: false,
  message: 'unexpected end of input inside a string',
  offset: n,
});

function readKey(s: string, i: number): Step<string> {
  if (s.charCodeAt(i) !== QUOTE) return unexpected(s, i, 'a double-quoted key');
  const key = readString(s, i);
  if (!key.ok) return key;
  const colon = skipSpace(new TextUnits(s), key.end);
  if (s.charCodeAt(colon) !== COLON) return unexpected(s, colon, "':' after a key");
  return { ok: true, value: key.value, end: colon + 1 };
}

function readScalar(s: string, i: number, nonFinite: { token: NonFiniteToken; offset: number }[]): Step<unknown> {
  const c = s.charCodeAt(i);
  if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
    if (s.startsWith('-Infinity', i)) {
      nonFinite.push({ token: '-Infinity', offset: i });
      return { ok: true, value: -Infinity, end: i + 9 };
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(s);
    NUMBERISH.lastIndex = i;
    const run = (NUMBERISH.exec(s) as RegExpExecArray)[0].length;
    // A number the input ends inside is a cut, not a wrong character.
    if (i + run >= s.length && (!m || m[0].length < run)) return { ok: false, message: 'unexpected end of input inside a number', offset: s.length };
    if (m) return { ok: true, value: Number(m[0]), end: i + m[0].length };
    return s[i + 1] === 'I' ? mismatch(s, i, '-Infinity') : unexpected(s, i + 1, 'a digit');
  }
  let best = '';
  for (const [token, value] of LITERALS) {
    if (s.startsWith(token, i)) {
      if (typeof value === 'number') nonFinite.push({ token: token as NonFiniteToken, offset: i });
      return { ok: true, value, end: i + token.length };
    }
    if (s[i] === token[0]) best = token;
  }
  return best ? mismatch(s, i, best) : unexpected(s, i, 'a value');
}

/** The literal `token` expected at `i`: the error is at its first character that differs. */
function mismatch(s: string, i: number, token: string): { ok: false; message: string; offset: number } {
  let n = 0;
  while (n < token.length && s.charCodeAt(i + n) === token.charCodeAt(n)) n++;
  return unexpected(s, i + n, `'${token}'`);
}

/**
 * Parses JSON as Python's json.loads does by default: standard JSON plus NaN, Infinity and
 * -Infinity. Iterative (any nesting depth); the first error is the offset of the offending
 * character, or the length of `s` when the input ends too soon.
 */
export function parsePython(s: string): Parsed {
  const nonFinite: { token: NonFiniteToken; offset: number }[] = [];
  const stack: (unknown[] | { obj: Record<string, unknown>; key: string })[] = [];
  let i = 0;
  for (;;) {
    i = skipSpace(new TextUnits(s), i);
    let value: unknown;
    const c = s.charCodeAt(i);
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      const close = c === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET;
      i = skipSpace(new TextUnits(s), i + 1);
      if (s.charCodeAt(i) === close) {
        value = c === OPEN_BRACE ? {} : [];
        i++;
      } else if (c === OPEN_BRACKET) {
        stack.push([]);
        continue;
      } else {
        const key = readKey(s, i);
        if (!key.ok) return key;
        stack.push({ obj: {}, key: key.value });
        i = key.end;
        continue;
      }
    } else if (c === QUOTE) {
      const str = readString(s, i);
      if (!str.ok) return str;
      value = str.value;
      i = str.end;
    } else {
      if (i >= s.length) return unexpected(s, i, 'a value');
      const scalar = readScalar(s, i, nonFinite);
      if (!scalar.ok) return scalar;
      value = scalar.value;
      i = scalar.end;
    }
    // The value is complete: add it to its container, and close every container it completes.
    for (;;) {
      i = skipSpace(new TextUnits(s), i);
      const top = stack[stack.length - 1];
      if (top === undefined) return i < s.length ? trailing(s, i) : { ok: true, value, nonFinite };
      const d = s.charCodeAt(i);
      if (Array.isArray(top)) {
        top.push(value);
        if (d === COMMA) {
          i++;
          break;
        }
        if (d !== CLOSE_BRACKET) return unexpected(s, i, "',' or ']' after a list element");
        value = top;
      } else {
        setMember(top.obj, top.key, value);
        if (d === COMMA) {
          const key = readKey(s, skipSpace(new TextUnits(s), i + 1));
          if (!key.ok) return key;
          top.key = key.value;
          i = key.end;
          break;
        }
        if (d !== CLOSE_BRACE) return unexpected(s, i, "',' or '}' after a member");
        value = top.obj;
      }
      stack.pop();
      i++;
    }
  }
}

/** Where Python's non-standard number tokens were read. */
export interface NonFinite {
  tokens: NonFiniteToken[];
  pos: TextPos;
}

export type JsonParse = { ok: true; value: unknown; nonFinite?: NonFinite } | { ok: false; message: string; pos: TextPos; atEnd: boolean };

export function nonFiniteOf(found: { token: NonFiniteToken; offset: number }[], lines: LineCursor, base: number): NonFinite | undefined {
  if (!found.length) return undefined;
  return { tokens: [...new Set(found.map((f) => f.token))], pos: lines.at(base + found[0].offset) };
}

/** One JSON text, as Python's json.loads reads it; atEnd when the input ends inside the error. */
export function parseJson(text: string): JsonParse {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    // The native parser gives no position for most errors: ours does, and reads NaN and Infinity.
  }
  const p = parsePython(text);
  const lines = new LineCursor(text);
  if (!p.ok) return { ok: false, message: p.message, pos: lines.at(p.offset), atEnd: p.offset >= text.length };
  const nonFinite = nonFiniteOf(p.nonFinite, lines, 0);
  return nonFinite ? { ok: true, value: p.value, nonFinite } : { ok: true, value: p.value };
}

/** What NaN or Infinity read from a transcript means for the replay, for the readers' warnings. */
export function nonFiniteNote(tokens: readonly NonFiniteToken[]): string {
  return `holds ${tokens.join(', ')} (not JSON, but what Python's json.dump writes for a float that is not finite): read as ${tokens.length > 1 ? 'those numbers' : 'that number'}, as Python reads it; written as JSON (a wire copy, --json) it becomes null, so those bytes and their token counts may not be what Hermes sent`;
}
