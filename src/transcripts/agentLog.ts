// Hermes' agent.log (docs/agent-log.md): the one place upstream writes each provider call's billed
// usage (the `API call #N` line), beside the warnings that name a cache miss's cause and the
// preflight, compaction and retry lines. Pure and incremental: bytes in, typed records out, so a
// log of any size streams and a live one is read on from where the last read stopped.

import type { InputFinding, SourcePos } from '../shared/model/transcript';
import { firstInvalidUtf8 } from './read';
import { interesting, localTimeOf, parseHeader, parseMessage, type AgentLogRecord, type RecordBase } from './agentLogRecords';

/** A line longer than this is skipped with one finding, never held whole (a call line is ~300 bytes). */
export const AGENT_LOG_MAX_LINE_BYTES = 4 * 1024 * 1024;

/**
 * Where a read of one log stopped: a plain value (structured-cloneable), handed back to go on with
 * the bytes after `offset`. Only the unfinished last line is kept, and never more than
 * `maxLineBytes` of it.
 */
export interface AgentLogState {
  readonly file: string;
  /** Bytes fed so far: the next chunk starts at this offset of the file. */
  readonly offset: number;
  /** 1-based number of the line the unfinished bytes belong to. */
  readonly line: number;
  /** Byte offset of that line's start. */
  readonly lineOffset: number;
  /** The unfinished line's bytes so far (empty while skipping an over-long line). */
  readonly pending: Uint8Array;
  /** The unfinished line passed `maxLineBytes`: the rest of it is skipped up to its newline. */
  readonly skipping: boolean;
  readonly maxLineBytes: number;
  /** The file's first byte that is not UTF-8 was reported (one finding per file, as for other text input). */
  readonly utf8Reported: boolean;
}

export interface AgentLogStep {
  state: AgentLogState;
  records: AgentLogRecord[];
  findings: InputFinding[];
}

export interface AgentLogStart {
  maxLineBytes?: number;
}

export function startAgentLog(file: string, options: AgentLogStart = {}): AgentLogState {
  const maxLineBytes = options.maxLineBytes ?? AGENT_LOG_MAX_LINE_BYTES;
  return { file, offset: 0, line: 1, lineOffset: 0, pending: new Uint8Array(0), skipping: false, maxLineBytes, utf8Reported: false };
}

/** Parses the complete lines `chunk` finishes; the state given is left as it was, so it can be fed again. */
export function feedAgentLog(state: AgentLogState, chunk: Uint8Array): AgentLogStep {
  const run = new Run(state);
  run.feed(chunk);
  return run.step();
}

/**
 * The input is over (a rotated file, which no writer appends to): its unfinished last line is not
 * read as a record, since its fields may be cut anywhere; one of ours gets a finding at the end.
 */
export function endAgentLog(state: AgentLogState): AgentLogStep {
  const run = new Run(state);
  run.end();
  return run.step();
}

/** A whole log at once: what feeding it in any chunks and ending gives. */
export function parseAgentLog(file: string, bytes: Uint8Array, options: AgentLogStart = {}): AgentLogStep {
  const fed = feedAgentLog(startAgentLog(file, options), bytes);
  const ended = endAgentLog(fed.state);
  return { state: ended.state, records: [...fed.records, ...ended.records], findings: [...fed.findings, ...ended.findings] };
}

const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
const encoder = new TextEncoder();

/** One feed or end: the state's fields unpacked, updated, packed again. */
class Run {
  private offset: number;
  private line: number;
  private lineOffset: number;
  /** Pieces of the unfinished line, joined once when its newline arrives (no quadratic concatenation). */
  private pieces: Uint8Array[];
  private pendingLength: number;
  private skipping: boolean;
  private utf8Reported: boolean;
  readonly records: AgentLogRecord[] = [];
  readonly findings: InputFinding[] = [];

  constructor(private readonly from: AgentLogState) {
    this.offset = from.offset;
    this.line = from.line;
    this.lineOffset = from.lineOffset;
    this.pieces = from.pending.length ? [from.pending] : [];
    this.pendingLength = from.pending.length;
    this.skipping = from.skipping;
    this.utf8Reported = from.utf8Reported;
  }

  feed(chunk: Uint8Array): void {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
      this.finishLine(chunk.subarray(start, nl), this.offset + nl + 1);
      start = nl + 1;
    }
    this.hold(chunk.subarray(start));
    this.offset += chunk.length;
  }

  end(): void {
    if (this.skipping || this.pendingLength === 0) return;
    const bytes = this.joined();
    const text = decoder.decode(stripCr(bytes));
    const head = parseHeader(text);
    if (head && interesting(text, head.messageAt)) {
      this.findings.push({
        severity: 'warning',
        code: 'parse-error',
        pos: { line: this.line, column: bytes.length + 1, offset: this.lineOffset + bytes.length },
        message: `${this.from.file}:${this.line}: the last line ends without a newline (cut off, or still being written); not read`,
        atEnd: true,
      });
    }
  }

  step(): AgentLogStep {
    const pending = this.skipping ? new Uint8Array(0) : this.joined();
    return {
      state: {
        ...this.from,
        offset: this.offset,
        line: this.line,
        lineOffset: this.lineOffset,
        pending,
        skipping: this.skipping,
        utf8Reported: this.utf8Reported,
      },
      records: this.records,
      findings: this.findings,
    };
  }

  /** Keeps the unfinished line's bytes (a copy: the caller may reuse its buffer), or starts skipping it. */
  private hold(rest: Uint8Array): void {
    if (rest.length === 0 || this.skipping) return;
    if (this.pendingLength + rest.length > this.from.maxLineBytes) {
      this.tooLong();
      return;
    }
    // A copy: Buffer's slice() is a view, and the reader reuses its buffer for the next chunk.
    this.pieces.push(new Uint8Array(rest));
    this.pendingLength += rest.length;
  }

  /** `next`: where the line after this one starts (a skipped line's bytes were never counted). */
  private finishLine(tail: Uint8Array, next: number): void {
    const line = this.line;
    const lineOffset = this.lineOffset;
    const length = this.pendingLength + tail.length;
    this.line++;
    this.lineOffset = next;
    if (this.skipping) {
      this.skipping = false;
      return;
    }
    if (length > this.from.maxLineBytes) {
      this.tooLongAt(line, lineOffset);
      this.pieces = [];
      this.pendingLength = 0;
      return;
    }
    const bytes = this.pendingLength ? concat([...this.pieces, tail], length) : tail;
    this.pieces = [];
    this.pendingLength = 0;
    this.readLine(stripCr(bytes), line, lineOffset);
  }

  private tooLong(): void {
    this.tooLongAt(this.line, this.lineOffset);
    this.pieces = [];
    this.pendingLength = 0;
    this.skipping = true;
  }

  private tooLongAt(line: number, offset: number): void {
    this.findings.push({
      severity: 'warning',
      code: 'parse-error',
      pos: { line, column: 1, offset },
      message: `${this.from.file}:${line}: a line longer than ${this.from.maxLineBytes} bytes, skipped (not held whole)`,
    });
  }

  private joined(): Uint8Array {
    return this.pieces.length === 1 ? this.pieces[0] : concat(this.pieces, this.pendingLength);
  }

  private readLine(bytes: Uint8Array, line: number, lineOffset: number): void {
    // A record starts with its time; anything else continues the record before it (a traceback,
    // a message with newlines) and is no record of ours.
    if (bytes.length < 24 || bytes[0] < 0x30 || bytes[0] > 0x39) return;
    const text = decoder.decode(bytes);
    const head = parseHeader(text);
    if (!head) {
      if (/^\d{4}-\d\d-\d\d/.test(text) && text.includes('API call #')) this.malformedCall(text, line, lineOffset, 0, 'its record header does not read');
      return;
    }
    if (!interesting(text, head.messageAt)) return;
    const message = text.slice(head.messageAt);
    const pos: SourcePos = { line, column: 1, offset: lineOffset };
    const base: RecordBase = { file: this.from.file, pos, time: localTimeOf(text), level: head.level, logger: head.logger, sessionTag: head.sessionTag };
    const parsed = parseMessage(message, base);
    if ('at' in parsed) {
      this.malformedCall(text, line, lineOffset, head.messageAt + parsed.at, parsed.why);
      return;
    }
    if (!parsed.record) return;
    if (!this.utf8Reported && text.includes('\uFFFD')) this.checkUtf8(bytes, line, lineOffset);
    this.records.push(parsed.record);
  }

  private malformedCall(text: string, line: number, lineOffset: number, at: number, why: string): void {
    const offset = lineOffset + encoder.encode(text.slice(0, at)).length;
    this.findings.push({
      severity: 'error',
      code: 'parse-error',
      pos: { line, column: at + 1, offset },
      message: `${this.from.file}:${line}:${at + 1}: an API call line that does not read (${why}); its billed usage is lost`,
    });
  }

  private checkUtf8(bytes: Uint8Array, line: number, lineOffset: number): void {
    const bad = firstInvalidUtf8(bytes);
    if (bad < 0) return;
    this.utf8Reported = true;
    this.findings.push({
      severity: 'warning',
      code: 'parse-error',
      pos: { line, column: bad + 1, offset: lineOffset + bad },
      message: `${this.from.file}:${line}: byte ${lineOffset + bad} is not valid UTF-8 (read as U+FFFD)`,
    });
  }
}

function concat(pieces: Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of pieces) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Python writes `\r\n` on Windows (text mode): the `\r` is no part of the line. */
function stripCr(bytes: Uint8Array): Uint8Array {
  return bytes.length && bytes[bytes.length - 1] === 13 ? bytes.subarray(0, bytes.length - 1) : bytes;
}
