// A JSON document read member by member and its list element by element, the way Hermes' own
// json reads each (pythonJson.ts): one bad message costs that message, and a cut file keeps every
// complete one.

import type { InputFinding, SourcePos } from '../shared/model/transcript';
import {
  LineCursor,
  nonFiniteNote,
  nonFiniteOf,
  parseJson,
  parsePython,
  readString,
  setMember,
  trailing,
  unexpected,
  type NonFinite,
  type TextPos,
} from './pythonJson';
import { CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE, skipSpace, stringEnd, TextUnits, valueEnd } from './jsonScan';

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
  const units = new TextUnits(text);
  const out: DocumentRead = { value: undefined, errors: [], nonFinite: [] };
  const start = skipSpace(units, 0);
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
    let i = skipSpace(units, at + 1);
    if (text.charCodeAt(i) === CLOSE_BRACKET) return i + 1;
    for (let index = 0; ; index++) {
      const end = valueEnd(units, i);
      if (end < 0) return cut(i, index);
      if (end === i) return stop(unexpected(text, i, 'a list element'));
      const line = lines.at(i).line;
      const got = take(i, end, index);
      if (got) entries.push({ value: got.value, line, index });
      i = skipSpace(units, end);
      const c = text.charCodeAt(i);
      if (c === CLOSE_BRACKET) return i + 1;
      if (c !== COMMA) return stop(unexpected(text, i, "',' or ']' after a list element"));
      i = skipSpace(units, i + 1);
    }
  };

  const readObject = (at: number, rest: readonly string[], prefix: string, obj: Record<string, unknown>): number => {
    let i = skipSpace(units, at + 1);
    if (text.charCodeAt(i) === CLOSE_BRACE) return i + 1;
    for (;;) {
      if (text.charCodeAt(i) !== QUOTE) return stop(unexpected(text, i, 'a double-quoted key'));
      const keyEnd = stringEnd(units, i);
      if (keyEnd < 0) return cut(i);
      const key = readString(text.slice(0, keyEnd), i);
      if (!key.ok) return stop(key);
      let j = skipSpace(units, keyEnd);
      if (text.charCodeAt(j) !== COLON) return stop(unexpected(text, j, "':' after a key"));
      j = skipSpace(units, j + 1);
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
        end = valueEnd(units, j);
        if (end < 0) return cut(j, where);
        if (end === j) return stop(unexpected(text, j, 'a value'));
        const got = take(j, end, where);
        if (got) setMember(obj, key.value, got.value);
      }
      if (end < 0) return -1;
      i = skipSpace(units, end);
      const c = text.charCodeAt(i);
      if (c === CLOSE_BRACE) return i + 1;
      if (c !== COMMA) return stop(unexpected(text, i, "',' or '}' after a member"));
      i = skipSpace(units, i + 1);
    }
  };

  const doc: Record<string, unknown> = {};
  out.value = doc;
  const end = readObject(start, path, '', doc);
  if (end >= 0) {
    const after = skipSpace(units, end);
    if (after < text.length) stop(trailing(text, after));
  }
  return out;
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
