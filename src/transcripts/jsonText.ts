// JSON with positions: parse errors as line/column, and the spans of the elements of one top-level
// array, so a truncated file still yields every complete element and each row knows its line; and
// a well-formed file parsed element by element as it is read, without its whole text.

import type { ByteSource } from '../model/byteSource';

export interface TextPos { line: number; column: number; offset: number }

export function positionAt(text: string, offset: number): TextPos {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1, offset };
}

/** Maps many offsets to lines in one pass (offsets must be ascending). */
export function linesAt(text: string, offsets: readonly number[]): number[] {
  const out: number[] = [];
  let line = 1;
  let nl = text.indexOf('\n');
  for (const offset of offsets) {
    while (nl >= 0 && nl < offset) { line++; nl = text.indexOf('\n', nl + 1); }
    out.push(line);
  }
  return out;
}

export type JsonParse = { ok: true; value: unknown } | { ok: false; message: string; pos: TextPos };

export function parseJson(text: string): JsonParse {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const m = /position (\d+)/.exec(message);
    const offset = m ? Number(m[1]) : text.length;
    return { ok: false, message: message.replace(/ in JSON at position \d+.*$/, ''), pos: positionAt(text, offset) };
  }
}

export interface ElementSpan { start: number; end: number }

/**
 * The spans of the complete elements of the array under `key` in the top-level object, found
 * with a linear scan that tracks strings and depth (no second parse). Incomplete trailing
 * elements are left out.
 */
export function topLevelArrayElements(text: string, key: string): ElementSpan[] {
  const spans: ElementSpan[] = [];
  const needle = JSON.stringify(key);
  let depth = 0;
  let inArray = false;
  let arrayDepth = -1;
  let elementStart = -1;
  let lastKeyAtDepth1 = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      const start = i;
      // Jump from quote to quote (native search); a quote preceded by an odd run of backslashes is escaped.
      for (;;) {
        i = text.indexOf('"', i + 1);
        if (i < 0) { i = text.length; break; }
        let b = i - 1;
        while (text.charCodeAt(b) === 92) b--;
        if ((i - 1 - b) % 2 === 0) break;
      }
      if (depth === 1 && !inArray) lastKeyAtDepth1 = text.slice(start, i + 1);
      if (inArray && depth === arrayDepth && elementStart < 0) elementStart = start;
      continue;
    }
    if (c === 123 /* { */ || c === 91 /* [ */) {
      if (inArray && depth === arrayDepth && elementStart < 0) elementStart = i;
      depth++;
      if (c === 91 && depth === 2 && !inArray && lastKeyAtDepth1 === needle) { inArray = true; arrayDepth = 2; }
      continue;
    }
    if (c === 125 /* } */ || c === 93 /* ] */) {
      if (inArray && depth === arrayDepth && c === 93) {
        if (elementStart >= 0) spans.push({ start: elementStart, end: i });
        return spans;
      }
      depth--;
      if (inArray && depth === arrayDepth && elementStart >= 0) { spans.push({ start: elementStart, end: i + 1 }); elementStart = -1; }
      continue;
    }
    if (inArray && depth === arrayDepth) {
      if (c === 44 /* , */) {
        if (elementStart >= 0) { spans.push({ start: elementStart, end: i }); elementStart = -1; }
      } else if (elementStart < 0 && c > 32) elementStart = i;
    }
  }
  return spans;
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

/** Index of the `[` opening the value of `needle` (a quoted key) in the top-level object; -1 when not within `bytes`. */
function arrayAfterKey(bytes: Uint8Array, needle: Uint8Array): number {
  for (let i = 0, depth = 0; i < bytes.length;) {
    const c = bytes[i];
    if (c === QUOTE) {
      const end = stringEnd(bytes, i);
      if (end < 0) return -1;
      if (depth === 1 && end - i === needle.length && needle.every((b, k) => bytes[i + k] === b)) {
        const colon = skipSpace(bytes, end);
        const bracket = bytes[colon] === COLON ? skipSpace(bytes, colon + 1) : -1;
        if (bytes[bracket] === OPEN_BRACKET) return bracket;
      }
      i = end;
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
    i++;
  }
  return -1;
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

  constructor(private readonly source: ByteSource, private readonly chunk: number) {}

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
  /** The line each element of the array starts on. */
  lines: number[];
}

const headDecoder = new TextDecoder('utf-8', { fatal: true });
// Every other piece starts mid-document, where a byte-order mark is a character, not a mark to drop.
const pieceDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Parses UTF-8 JSON holding a top-level object whose `key` is an array one element at a time, as
 * the source is read: neither the file's bytes nor its text are ever in memory whole (a 38 MB
 * file is a 76 MB string as soon as one character is outside Latin-1), and each element's text is
 * garbage as soon as it is parsed. Every piece is cut at an ASCII byte, so decoding piecewise
 * gives the text that decoding whole would. Returns null unless the document is well-formed JSON
 * of that shape and valid UTF-8; the caller then reads the whole text, which also positions the error.
 * `chunk` is how much is read at a time (tests cut documents everywhere with tiny ones).
 */
export function parseSplitDocument(source: ByteSource, key: string, chunk = CHUNK): SplitDocument | null {
  // A document cut short (its writer may still be writing it) can only fail, after reading all of
  // it: its last bytes tell.
  const last = source.read(Math.max(0, source.size - 4096), 4096);
  let k = last.length - 1;
  while (k >= 0 && isSpace(last[k])) k--;
  if (last[k] !== CLOSE_BRACE) return null;
  const needle = new TextEncoder().encode(JSON.stringify(key));
  const w = new Window(source, chunk);
  let open: number;
  // The head is decoded whole, so it is kept, and scanned again from its start after each read.
  while ((open = arrayAfterKey(w.bytes, needle)) < 0) if (!w.more(0)) return null;
  let b = w.bytes;
  const elements: unknown[] = [];
  const lines: number[] = [];
  let line = 1;
  let counted = 0;
  const more = (keep: number): boolean => {
    line += newlines(b, counted, keep);
    counted = 0;
    if (!w.more(keep)) return false;
    b = w.bytes;
    return true;
  };
  try {
    const head = headDecoder.decode(b.subarray(0, open + 1));
    let p = open + 1;
    let afterValue = false;
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
      p = end;
      afterValue = true;
    }
    let keep = p;
    while (w.more(keep)) keep = 0;
    const tail = pieceDecoder.decode(w.bytes.subarray(keep));
    // JSON.parse keeps the last of duplicate keys: the members after the array must not name it
    // again, which takes its bytes or an escape.
    if (tail.includes(key) || tail.includes('\\')) return null;
    const value: unknown = JSON.parse(head + tail);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
    (value as Record<string, unknown>)[key] = elements;
    return { value: value as Record<string, unknown>, lines };
  } catch {
    return null; // not JSON, or not UTF-8
  }
}
