// JSON lines as another agent's recorder writes them (docs/recorded.md): each line parsed alone, a
// line that does not parse costs that line (a parse-error at its line and column; the last line,
// unterminated, flagged as perhaps still being written), and record types not known cost their lines
// one finding per type.

import type { InputFinding } from '../shared/model/transcript';
import { parseError } from './acceptRow';
import { parseJson, type JsonParse } from './pythonJson';

type Obj = Record<string, unknown>;
export const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** How much of a user's prompt a recorded turn keeps to name it. */
export const PROMPT_CHARS = 200;

/** A record's `timestamp` (ISO 8601) as epoch milliseconds; null when it has none that parses. */
export function timeOf(v: Obj): number | null {
  const t = str(v.timestamp);
  const ms = t === null ? NaN : Date.parse(t);
  return Number.isFinite(ms) ? ms : null;
}

/** A line that is not JSON: where the parser stopped, and whether a writer may still be writing it. */
export function unparsedLine(path: string, line: number, failed: Extract<JsonParse, { ok: false }>, partial: boolean): InputFinding {
  return parseError(
    `${path}:${line}:${failed.pos.column}: ${failed.message}${partial ? ' (the last line is incomplete: still being written?)' : ''}`,
    { line, column: failed.pos.column },
    partial,
  );
}

/** One line of a file, without its newline; `terminated` is false only for a last line that has none. */
export interface TextLine {
  text: string;
  /** 1-based. */
  line: number;
  terminated: boolean;
}

/**
 * A file's lines in order, read again from the start each time it is iterated. A reader of JSON
 * lines takes this, not the file's text: from disk the lines come as they are read (recordedFiles.ts
 * `linesOfFile`), so a log of any size is read in a bounded buffer; a test hands it a string.
 */
export type LineSource = Iterable<TextLine>;

export function linesOfText(text: string): LineSource {
  return {
    *[Symbol.iterator]() {
      if (text === '') return; // no line at all, not one empty line
      const lines = text.split('\n');
      const complete = text.endsWith('\n') ? lines.length - 1 : lines.length;
      for (let n = 0; n < complete; n++) yield { text: lines[n], line: n + 1, terminated: n < lines.length - 1 };
    },
  };
}

/** Calls `record` with each line's object and its 1-based line; what is no object with a `type` is a finding. */
export function eachRecord(
  path: string,
  lines: LineSource,
  findings: InputFinding[],
  what: string,
  record: (v: Obj, type: string, line: number) => void,
  /** A format's records without a `type` (an early layout's), typed; null: not one of its records. */
  untyped?: (v: Obj) => Obj | null,
): void {
  for (const { text: raw, line, terminated } of lines) {
    if (raw.trim() === '') continue;
    const parsed = parseJson(raw);
    if (!parsed.ok) {
      // Only the last line, unterminated, can be one a writer is still writing.
      const partial = parsed.atEnd && !terminated;
      findings.push(
        parseError(
          `${path}:${line}:${parsed.pos.column}: ${parsed.message}${partial ? ' (the last line is incomplete: still being written?)' : ''}`,
          { line, column: parsed.pos.column },
          partial,
        ),
      );
      continue;
    }
    const given = parsed.value;
    const v = isObject(given) && typeof given.type !== 'string' && untyped ? (untyped(given) ?? given) : given;
    const type = isObject(v) && typeof v.type === 'string' ? v.type : null;
    if (!isObject(v) || type === null) {
      findings.push(parseError(`${path}:${line}: not a ${what} record (an object with a "type")`, { line, column: 1 }));
      continue;
    }
    record(v, type, line);
  }
}

/** Record types a reader does not know: counted as they come, one `info` finding per type at its first line. */
export class UnknownTypes {
  private readonly seen = new Map<string, { line: number; lines: number }>();

  constructor(private readonly agent: string) {}

  add(type: string, line: number): void {
    const seen = this.seen.get(type);
    if (seen) seen.lines++;
    else this.seen.set(type, { line, lines: 1 });
  }

  findings(path: string): InputFinding[] {
    return [...this.seen].map(([type, { line, lines }]) => ({
      severity: 'info',
      code: 'parse-error',
      pos: { line, column: 1 },
      message: `${path}:${line}: ${lines} line${lines === 1 ? '' : 's'} of type ${JSON.stringify(type)
        .replace(/[^\x20-\x7e]/g, '?')
        .slice(0, 42)} not read (a later ${this.agent} version?)`,
    }));
  }
}
