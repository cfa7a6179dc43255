// JSON with positions, read the way Hermes reads it (Python's json): errors at the offending
// character as line/column, NaN/Infinity/-Infinity read as the numbers Python's json.dump writes
// them for, the last of repeated keys kept, and an object document read member by member and its
// list element by element, so one bad message costs that message and a cut file keeps every
// complete one; and a well-formed file parsed element by element as it is read, without its whole text.

import type { ByteSource } from '../model/byteSource';
import type { InputFinding, SourcePos } from '../model/transcript';

export interface TextPos {
  line: number;
  column: number;
  offset: number;
}

/** Positions of ascending offsets in one pass over the text (it starts over for an earlier one). */
class LineCursor {
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

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const NEWLINE = 10;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

const isSpace = (c: number): boolean => c === 32 || c === NEWLINE || c === 13 || c === 9;

function skipSpaceText(s: string, i: number): number {
  while (i < s.length && isSpace(s.charCodeAt(i))) i++;
  return i;
}

/** A JSON object member named `key`, own even when it is "__proto__" (as JSON.parse makes it). */
function setMember(obj: Record<string, unknown>, key: string, value: unknown): void {
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

function unexpected(s: string, i: number, expected: string): { ok: false; message: string; offset: number } {
  return i >= s.length
    ? { ok: false, message: `unexpected end of input (expected ${expected})`, offset: s.length }
    : { ok: false, message: `unexpected ${describeAt(s, i)} (expected ${expected})`, offset: i };
}

function trailing(s: string, i: number): { ok: false; message: string; offset: number } {
  return { ok: false, message: `unexpected ${describeAt(s, i)} after the end of the JSON value`, offset: i };
}

function readString(s: string, i: number): Step<string> {
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
  const colon = skipSpaceText(s, key.end);
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
function parsePython(s: string): Parsed {
  const nonFinite: { token: NonFiniteToken; offset: number }[] = [];
  const stack: (unknown[] | { obj: Record<string, unknown>; key: string })[] = [];
  let i = 0;
  for (;;) {
    i = skipSpaceText(s, i);
    let value: unknown;
    const c = s.charCodeAt(i);
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      const close = c === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET;
      i = skipSpaceText(s, i + 1);
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
      i = skipSpaceText(s, i);
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
          const key = readKey(s, skipSpaceText(s, i + 1));
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

function nonFiniteOf(found: { token: NonFiniteToken; offset: number }[], lines: LineCursor, base: number): NonFinite | undefined {
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

/** Index just past the string whose opening quote is at `i`; -1 when it runs past the end. */
function stringEndText(s: string, i: number): number {
  for (;;) {
    i = s.indexOf('"', i + 1);
    if (i < 0) return -1;
    let b = i - 1;
    while (s.charCodeAt(b) === BACKSLASH) b--;
    if ((i - 1 - b) % 2 === 0) return i + 1;
  }
}

/**
 * Index just past the value starting at `i`, found by quotes and bracket depth only (its parse
 * checks the rest): -1 when it runs past the end of `s`, `i` when no value starts there.
 */
function valueEndText(s: string, i: number): number {
  if (i >= s.length) return -1;
  const c = s.charCodeAt(i);
  if (c === QUOTE) return stringEndText(s, i);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    let depth = 0;
    for (; i < s.length; i++) {
      const d = s.charCodeAt(i);
      if (d === QUOTE) {
        i = stringEndText(s, i) - 1;
        if (i < 0) return -1;
      } else if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
      else if ((d === CLOSE_BRACE || d === CLOSE_BRACKET) && --depth === 0) return i + 1;
    }
    return -1;
  }
  let j = i;
  for (let d = c; j < s.length && !isSpace(d) && d !== COMMA && d !== CLOSE_BRACKET && d !== CLOSE_BRACE && d !== COLON; d = s.charCodeAt(++j));
  return j < s.length ? j : -1;
}

/** Something in the input that could not be read, at the offending character. */
export interface DocumentError {
  message: string;
  pos: TextPos;
  /** The input ends inside the problem (a writer may still be writing). */
  atEnd: boolean;
  /** The structure is broken here: nothing after it was read. Otherwise only `where` was left out. */
  stopped: boolean;
  /** The index of the element of the list, or the member's key (dotted below the top level). */
  where?: number | string;
}

export interface ListEntry {
  value: unknown;
  line: number;
  index: number;
}

export interface DocumentRead {
  /**
   * The document's value. For an object: every member that read, the last of repeated keys
   * winning (as in Python's json and JSON.parse), and at `path` the elements that read.
   */
  value: unknown;
  /** The elements of the list at `path` that read, with their lines and indices; undefined when there is none. */
  list?: ListEntry[];
  errors: DocumentError[];
  /** Members and elements holding NaN or Infinity. */
  nonFinite: (NonFinite & { where?: number | string })[];
}

/**
 * Reads a JSON document whose top level should be an object holding a list at `path` (keys
 * from the top): each member and each element of that list is parsed on its own, so an error in
 * one (a raw control character, a bad escape) leaves only it out, and a break in the structure
 * (a cut, a missing comma) keeps everything complete before it. For a well-formed document the
 * value is what JSON.parse gives, and the list is the one it keeps when keys repeat: the last.
 */
export function readJsonDocument(text: string, path: readonly string[]): DocumentRead {
  const lines = new LineCursor(text);
  const out: DocumentRead = { value: undefined, errors: [], nonFinite: [] };
  const start = skipSpaceText(text, 0);
  if (text.charCodeAt(start) !== OPEN_BRACE) {
    const p = parseJson(text);
    if (p.ok) {
      out.value = p.value;
      if (p.nonFinite) out.nonFinite.push(p.nonFinite);
    } else out.errors.push({ message: p.message, pos: p.pos, atEnd: p.atEnd, stopped: true });
    return out;
  }
  const stop = (e: { message: string; offset: number }, where?: number | string): -1 => {
    out.errors.push({ message: e.message, pos: lines.at(e.offset), atEnd: e.offset >= text.length, stopped: true, ...(where === undefined ? {} : { where }) });
    return -1;
  };
  /** The value in [from, to), or undefined after recording why it does not parse. */
  const take = (from: number, to: number, where: number | string): { value: unknown } | undefined => {
    const slice = text.slice(from, to);
    try {
      return { value: JSON.parse(slice) };
    } catch {
      // positioned below
    }
    const p = parsePython(slice);
    if (!p.ok) {
      out.errors.push({ message: p.message, pos: lines.at(from + p.offset), atEnd: false, stopped: false, where });
      return undefined;
    }
    const nonFinite = nonFiniteOf(p.nonFinite, lines, from);
    if (nonFinite) out.nonFinite.push({ ...nonFinite, where });
    return { value: p.value };
  };
  /** A value that runs past the end of the input: the first error in it is where its parse fails. */
  const cut = (from: number, where?: number | string): -1 => {
    const p = parsePython(text.slice(from));
    return stop(p.ok ? { message: 'unexpected end of input', offset: text.length } : { message: p.message, offset: from + p.offset }, where);
  };

  const readList = (at: number, entries: ListEntry[]): number => {
    let i = skipSpaceText(text, at + 1);
    if (text.charCodeAt(i) === CLOSE_BRACKET) return i + 1;
    for (let index = 0; ; index++) {
      const end = valueEndText(text, i);
      if (end < 0) return cut(i, index);
      if (end === i) return stop(unexpected(text, i, 'a list element'));
      const line = lines.at(i).line;
      const got = take(i, end, index);
      if (got) entries.push({ value: got.value, line, index });
      i = skipSpaceText(text, end);
      const c = text.charCodeAt(i);
      if (c === CLOSE_BRACKET) return i + 1;
      if (c !== COMMA) return stop(unexpected(text, i, "',' or ']' after a list element"));
      i = skipSpaceText(text, i + 1);
    }
  };

  const readObject = (at: number, rest: readonly string[], prefix: string, obj: Record<string, unknown>): number => {
    let i = skipSpaceText(text, at + 1);
    if (text.charCodeAt(i) === CLOSE_BRACE) return i + 1;
    for (;;) {
      if (text.charCodeAt(i) !== QUOTE) return stop(unexpected(text, i, 'a double-quoted key'));
      const keyEnd = stringEndText(text, i);
      if (keyEnd < 0) return cut(i);
      const key = readString(text.slice(0, keyEnd), i);
      if (!key.ok) return stop(key);
      let j = skipSpaceText(text, keyEnd);
      if (text.charCodeAt(j) !== COLON) return stop(unexpected(text, j, "':' after a key"));
      j = skipSpaceText(text, j + 1);
      const where = prefix + key.value;
      const onPath = rest.length > 0 && key.value === rest[0];
      // A repeated key replaces the earlier member, and with it any list read below it.
      if (onPath) out.list = undefined;
      let end: number;
      if (onPath && rest.length === 1 && text.charCodeAt(j) === OPEN_BRACKET) {
        const entries: ListEntry[] = [];
        end = readList(j, entries);
        out.list = entries;
        setMember(
          obj,
          key.value,
          entries.map((e) => e.value),
        );
      } else if (onPath && rest.length > 1 && text.charCodeAt(j) === OPEN_BRACE) {
        const inner: Record<string, unknown> = {};
        end = readObject(j, rest.slice(1), `${where}.`, inner);
        setMember(obj, key.value, inner);
      } else {
        end = valueEndText(text, j);
        if (end < 0) return cut(j, where);
        if (end === j) return stop(unexpected(text, j, 'a value'));
        const got = take(j, end, where);
        if (got) setMember(obj, key.value, got.value);
      }
      if (end < 0) return -1;
      i = skipSpaceText(text, end);
      const c = text.charCodeAt(i);
      if (c === CLOSE_BRACE) return i + 1;
      if (c !== COMMA) return stop(unexpected(text, i, "',' or '}' after a member"));
      i = skipSpaceText(text, i + 1);
    }
  };

  const doc: Record<string, unknown> = {};
  out.value = doc;
  const end = readObject(start, path, '', doc);
  if (end >= 0) {
    const after = skipSpaceText(text, end);
    if (after < text.length) stop(trailing(text, after));
  }
  return out;
}

function skipSpace(bytes: Uint8Array, i: number): number {
  while (i < bytes.length && isSpace(bytes[i])) i++;
  return i;
}

/** Index just past the string whose opening quote is at `i`; -1 when it runs past the end of `bytes`. */
function stringEnd(bytes: Uint8Array, i: number): number {
  for (;;) {
    i = bytes.indexOf(QUOTE, i + 1);
    if (i < 0) return -1;
    let b = i - 1;
    while (bytes[b] === BACKSLASH) b--;
    if ((i - 1 - b) % 2 === 0) return i + 1;
  }
}

/**
 * Index just past the value starting at `i`, brackets matched by depth only (JSON.parse checks
 * the rest); -1 when it runs past the end of `bytes`, `i` when no value starts there.
 */
function valueEnd(bytes: Uint8Array, i: number): number {
  const c = bytes[i];
  if (c === QUOTE) return stringEnd(bytes, i);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    let depth = 0;
    for (; i < bytes.length; i++) {
      const b = bytes[i];
      if (b === QUOTE) {
        i = stringEnd(bytes, i) - 1;
        if (i < 0) return -1;
      } else if (b === OPEN_BRACE || b === OPEN_BRACKET) depth++;
      else if ((b === CLOSE_BRACE || b === CLOSE_BRACKET) && --depth === 0) return i + 1;
    }
    return -1;
  }
  let j = i;
  while (j < bytes.length && !isSpace(bytes[j]) && bytes[j] !== COMMA && bytes[j] !== CLOSE_BRACKET && bytes[j] !== CLOSE_BRACE) j++;
  return j < bytes.length ? j : -1;
}

/**
 * The next list that is the value of `key` in the top-level object, scanning `bytes` from `from`
 * at bracket depth `depth`: `open` is the index of its `[`, or -1 when the bytes end first (or may
 * end inside the member). `shadowed`: a member of `key` that is not a list was passed, which a
 * later list of `key` replaces in turn (the last of repeated keys wins).
 */
function nextList(bytes: Uint8Array, from: number, depth: number, needle: Uint8Array, key: string): { open: number; shadowed: boolean } {
  let shadowed = false;
  for (let i = from; i < bytes.length;) {
    const c = bytes[i];
    if (c === QUOTE) {
      const end = stringEnd(bytes, i);
      if (end < 0) break;
      if (depth === 1) {
        const colon = skipSpace(bytes, end);
        if (colon === bytes.length) break;
        if (bytes[colon] === COLON && isKey(bytes, i, end, needle, key)) {
          const value = skipSpace(bytes, colon + 1);
          if (value === bytes.length) break;
          if (bytes[value] === OPEN_BRACKET) return { open: value, shadowed };
          shadowed = true;
        }
      }
      i = end;
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
    i++;
  }
  return { open: -1, shadowed };
}

/** Whether the string in [start, end) is `key`: its bytes, or once decoded when it holds an escape. */
function isKey(bytes: Uint8Array, start: number, end: number, needle: Uint8Array, key: string): boolean {
  const s = bytes.subarray(start, end);
  if (s.length === needle.length && needle.every((b, k) => s[k] === b)) return true;
  return s.includes(BACKSLASH) && JSON.parse(pieceDecoder.decode(s)) === key;
}

function newlines(bytes: Uint8Array, from: number, to: number): number {
  const span = bytes.subarray(from, to);
  let n = 0;
  for (let i = span.indexOf(NEWLINE); i >= 0; i = span.indexOf(NEWLINE, i + 1)) n++;
  return n;
}

const CHUNK = 1 << 20;

/** The part of a source not yet parsed, read a chunk at a time. */
class Window {
  bytes: Uint8Array = new Uint8Array(0);
  private next = 0;

  constructor(
    private readonly source: ByteSource,
    private readonly chunk: number,
  ) {}

  /** Where `bytes` starts in the source. */
  get start(): number {
    return this.next - this.bytes.length;
  }

  /** Goes on reading at `offset` of the source, nothing kept. */
  seek(offset: number): void {
    this.bytes = new Uint8Array(0);
    this.next = offset;
  }

  /** Drops the bytes before `keep` and reads on, at least as much as is kept so that a value of
   * any size is read in linear time; false at the end of the source. */
  more(keep: number): boolean {
    const rest = this.bytes.subarray(keep);
    const chunk = this.source.read(this.next, Math.max(this.chunk, rest.length));
    if (chunk.length === 0) return false;
    this.next += chunk.length;
    if (rest.length === 0) {
      this.bytes = chunk;
    } else {
      this.bytes = new Uint8Array(rest.length + chunk.length);
      this.bytes.set(rest);
      this.bytes.set(chunk, rest.length);
    }
    return true;
  }
}

export interface SplitDocument {
  /** The top-level object, as JSON.parse of the whole text gives it. */
  value: Record<string, unknown>;
  /** The line each element of the array starts on: of the last array of the key, the one JSON.parse keeps. */
  lines: number[];
  /** The list's text as read, for the next parse of the document rewritten (absent when there is none to keep). */
  elements?: ElementsText;
}

/**
 * The text of a document's one list of the key, from after its `[` to the end of its last element,
 * with what it parsed to: a later parse of the document rewritten with elements appended (its writer
 * rewrites the whole file) compares those bytes and parses only what follows them.
 */
export interface ElementsText {
  /** The line of the list's `[`. */
  openLine: number;
  /** The text, in pieces as it was read. */
  pieces: Uint8Array[];
  length: number;
  /** The line the last element ends on. */
  endLine: number;
  values: unknown[];
  lines: number[];
}

/** The largest list text kept for the next parse: that many bytes stay in memory beside what they parsed to. */
const KEPT_ELEMENTS_LIMIT = 256 * 1024 * 1024;

const headDecoder = new TextDecoder('utf-8', { fatal: true });
// Every other piece starts mid-document, where a byte-order mark is a character, not a mark to drop.
const pieceDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Parses UTF-8 JSON holding a top-level object whose `key` is an array one element at a time, as
 * the source is read: neither the file's bytes nor its text are ever in memory whole (a 38 MB
 * file is a 76 MB string as soon as one character is outside Latin-1), and each element's text is
 * garbage as soon as it is parsed. Every piece is cut at an ASCII byte, so decoding piecewise
 * gives the text that decoding whole would. Returns null unless the document is well-formed JSON
 * (strict: no NaN) of that shape, its last member of `key` a list, and valid UTF-8; the caller then
 * reads the whole text, which also positions the error.
 * `chunk` is how much is read at a time (tests cut documents everywhere with tiny ones). With
 * `keep`, the list's text is kept (SplitDocument.elements); given `earlier`, a list whose text
 * starts with earlier's, on the same line, reuses what that parsed to and parses only the rest.
 */
export function parseSplitDocument(
  source: ByteSource,
  key: string,
  { chunk = CHUNK, keep = false, earlier }: { chunk?: number; keep?: boolean; earlier?: ElementsText } = {},
): SplitDocument | null {
  // A document cut short (its writer may still be writing it) can only fail, after reading all of
  // it: its last bytes tell.
  const last = source.read(Math.max(0, source.size - 4096), 4096);
  let k = last.length - 1;
  while (k >= 0 && isSpace(last[k])) k--;
  if (last[k] !== CLOSE_BRACE) return null;
  const needle = new TextEncoder().encode(JSON.stringify(key));
  const w = new Window(source, chunk);
  let b = w.bytes;
  // The text around the lists of `key`, each written as [] (so JSON.parse of it gives every other
  // member, the last of repeated keys winning), and the elements and lines of the last list.
  const kept: string[] = [];
  let elements: unknown[] | null = null;
  let lines: number[] = [];
  let line = 1;
  let counted = 0;
  let lists = 0;
  // The last list's text as read (with `keep`): its pieces, `captured` where those end in `b`, how
  // much of it lies up to its last element's end, and where that element starts.
  let capturing = false;
  let pieces: Uint8Array[] = [];
  let captured = 0;
  let piecesLength = 0;
  let textLength = 0;
  let lastStart = -1;
  let openLine = 0;
  let endLine = 0;
  const capture = (to: number): void => {
    pieces.push(b.subarray(captured, to));
    piecesLength += to - captured;
    captured = to;
  };
  const more = (keep: number): boolean => {
    line += newlines(b, counted, keep);
    counted = 0;
    if (capturing) capture(keep);
    captured = 0;
    if (!w.more(keep)) return false;
    b = w.bytes;
    return true;
  };
  try {
    // Only the first piece can start with a byte-order mark.
    const decode = (bytes: Uint8Array): string => (kept.length ? pieceDecoder : headDecoder).decode(bytes);
    let from = 0;
    let depth = 0;
    for (;;) {
      // The text before each list is kept whole, and scanned again from its start after each read.
      let next = nextList(b, from, depth, needle, key);
      while (next.open < 0 && more(from)) {
        from = 0;
        next = nextList(b, from, depth, needle, key);
      }
      if (next.open < 0) {
        // The end, unless no list was found or a later member of `key` that is not a list replaces it.
        if (elements === null || next.shadowed) return null;
        kept.push(decode(b.subarray(from)));
        break;
      }
      kept.push(decode(b.subarray(from, next.open + 1)));
      lists++;
      depth = 1;
      elements = [];
      lines = [];
      let p = next.open + 1;
      let afterValue = false;
      line += newlines(b, counted, p);
      counted = p;
      openLine = line;
      pieces = [];
      captured = p;
      piecesLength = textLength = 0;
      lastStart = -1;
      capturing = keep;
      if (lists === 1 && earlier && openLine === earlier.openLine && startsWith(source, w.start + p, earlier.pieces)) {
        // The same elements first: what they parsed to, and their lines, are the earlier parse's.
        elements = earlier.values.slice();
        lines = earlier.lines.slice();
        afterValue = true;
        if (keep) pieces = earlier.pieces.slice();
        piecesLength = textLength = earlier.length;
        w.seek(w.start + p + earlier.length);
        b = w.bytes;
        p = counted = captured = 0;
        line = endLine = earlier.endLine;
      }
      for (;;) {
        p = skipSpace(b, p);
        if (p === b.length) {
          if (!more(p)) return null;
          p = 0;
          continue;
        }
        if (b[p] === CLOSE_BRACKET && (afterValue || elements.length === 0)) break;
        if (afterValue) {
          if (b[p] !== COMMA) return null;
          afterValue = false;
          p++;
          continue;
        }
        const end = valueEnd(b, p);
        if (end === p) return null;
        if (end < 0) {
          if (!more(p)) return null;
          p = 0;
          continue;
        }
        line += newlines(b, counted, p);
        counted = p;
        lines.push(line);
        elements.push(JSON.parse(pieceDecoder.decode(b.subarray(p, end))));
        lastStart = piecesLength + p - captured;
        textLength = piecesLength + end - captured;
        p = end;
        afterValue = true;
      }
      if (capturing) capture(p);
      capturing = false;
      kept.push(']');
      from = p + 1;
    }
    const value: unknown = JSON.parse(kept.join(''));
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
    (value as Record<string, unknown>)[key] = elements;
    const doc: SplitDocument = { value: value as Record<string, unknown>, lines };
    if (keep && lists === 1 && elements.length && textLength <= KEPT_ELEMENTS_LIMIT) {
      const text = truncated(pieces, textLength);
      if (lastStart >= 0)
        endLine = lines[lines.length - 1] + truncated(text, textLength - lastStart, true).reduce((n, piece) => n + newlines(piece, 0, piece.length), 0);
      doc.elements = { openLine, pieces: text, length: textLength, endLine, values: elements, lines };
    }
    return doc;
  } catch {
    return null; // not JSON, or not UTF-8
  }
}

/** Whether the source's bytes at `offset` are those of `pieces`. */
function startsWith(source: ByteSource, offset: number, pieces: Uint8Array[]): boolean {
  for (const piece of pieces) {
    if (!source.holds(offset, piece)) return false;
    offset += piece.length;
  }
  return true;
}

/** The first `length` bytes of `pieces` (the last `length` with `fromEnd`), as pieces. */
function truncated(pieces: Uint8Array[], length: number, fromEnd = false): Uint8Array[] {
  const out: Uint8Array[] = [];
  const order = fromEnd ? [...pieces].reverse() : pieces;
  for (const piece of order) {
    if (length <= 0) break;
    const take = Math.min(length, piece.length);
    out.push(fromEnd ? piece.subarray(piece.length - take) : piece.subarray(0, take));
    length -= take;
  }
  return fromEnd ? out.reverse() : out;
}

/** What NaN or Infinity read from a transcript means for the replay, for the readers' warnings. */
export function nonFiniteNote(tokens: readonly NonFiniteToken[]): string {
  return `holds ${tokens.join(', ')} (not JSON, but what Python's json.dump writes for a float that is not finite): read as ${tokens.length > 1 ? 'those numbers' : 'that number'}, as Python reads it; written as JSON (a wire copy, --json) it becomes null, so those bytes and their token counts may not be what Hermes sent`;
}

/**
 * The findings of a document read, in input order, each at its line and column: an error per
 * element or member left out and for the break that ended the reading (`kept` says what was
 * read before it), a warning per element or member holding NaN or Infinity. `element` names the
 * list's elements ("message").
 */
export function documentFindings(path: string, read: DocumentRead, element: string, kept: string): InputFinding[] {
  const what = (where: number | string | undefined, fallback: string): string =>
    typeof where === 'number' ? `${element} ${where}` : where === undefined ? fallback : JSON.stringify(where);
  const at = (pos: TextPos): SourcePos => ({ line: pos.line, column: pos.column });
  return [
    ...read.errors.map((e) => ({
      offset: e.pos.offset,
      finding: {
        severity: 'error',
        code: 'parse-error',
        pos: at(e.pos),
        ...(e.atEnd ? { atEnd: true } : {}),
        message: `${path}:${e.pos.line}:${e.pos.column}: ${e.where === undefined ? '' : `${what(e.where, '')}: `}${e.message}${e.stopped ? kept && `; ${kept}` : '; left out'}`,
      } satisfies InputFinding,
    })),
    ...read.nonFinite.map((n) => ({
      offset: n.pos.offset,
      finding: {
        severity: 'warning',
        code: 'parse-error',
        pos: at(n.pos),
        message: `${path}:${n.pos.line}:${n.pos.column}: ${what(n.where, 'the document')} ${nonFiniteNote(n.tokens)}`,
      } satisfies InputFinding,
    })),
  ]
    .sort((x, y) => x.offset - y.offset)
    .map((x) => x.finding);
}
