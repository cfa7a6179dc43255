// A well-formed JSON document parsed element by element as it is read, without its whole text: the
// list at one key of its top-level object, in pieces, with what a later read of the grown file may
// reuse (ElementsText). Anything else its caller reads whole (jsonDocument.ts).

import type { ByteSource } from './byteSource';
import {
  BACKSLASH,
  ByteUnits,
  isSpace,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  NEWLINE,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  skipSpace,
  stringEnd,
  valueEnd,
} from './jsonScan';

/**
 * The next list that is the value of `key` in the top-level object, scanning `bytes` from `from`
 * at bracket depth `depth`: `open` is the index of its `[`, or -1 when the bytes end first (or may
 * end inside the member). `shadowed`: a member of `key` that is not a list was passed, which a
 * later list of `key` replaces in turn (the last of repeated keys wins).
 */
function nextList(bytes: Uint8Array, from: number, depth: number, needle: Uint8Array, key: string): { open: number; shadowed: boolean } {
  const units = new ByteUnits(bytes);
  let shadowed = false;
  for (let i = from; i < bytes.length;) {
    const c = bytes[i];
    if (c === QUOTE) {
      const end = stringEnd(units, i);
      if (end < 0) break;
      if (depth === 1) {
        const colon = skipSpace(units, end);
        if (colon === bytes.length) break;
        if (bytes[colon] === COLON && isKey(bytes, i, end, needle, key)) {
          const value = skipSpace(units, colon + 1);
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
        p = skipSpace(new ByteUnits(b), p);
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
        const end = valueEnd(new ByteUnits(b), p);
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
