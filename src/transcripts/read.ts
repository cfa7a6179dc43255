// Picks the reader by content (file names only break ties for input too damaged to tell).

import { readCapturedRequest, readHermesRequestDump } from './hermesRequestDump';
import { readHermesSessionJson, readSplitSessionJson } from './hermesSessionJson';
import { isSqliteFile, readHermesStateDb } from './hermesStateDb';
import type { CapturedRequest, InputFinding, Transcript } from '../shared/model/transcript';
import { parseError } from './acceptRow';
import { bytesSource } from './byteSource';
import { isTurnTraceLine, readTurnTrace, type TurnTraceReader } from './turnTrace';
import { isCassette, foreignText } from './foreign';
import { parseJson } from './pythonJson';

export interface ReadInput {
  path: string;
  bytes: Uint8Array;
  /** The state.db-wal beside a database, if there is one. */
  wal?: Uint8Array;
  /** The state.db-journal beside a database, if there is one (a hot one is rolled back in memory). */
  journal?: Uint8Array;
  /** Only this session's lineage (state.db; load.ts narrows the other formats). */
  session?: string;
  /** Set by the read of a turn trace: its reader, which reads lines appended later (load.ts's ReadMemory). */
  kept?: { reader?: TurnTraceReader };
}

export type SniffedFormat = Transcript['format'] | 'unknown';

/** sniffFormat looks at no more than the first this many bytes. */
export const SNIFF_BYTES = 65536;

export function sniffFormat(path: string, bytes: Uint8Array): SniffedFormat {
  if (isSqliteFile(bytes)) return 'hermes-state-db';
  const head = new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(0, SNIFF_BYTES));
  // A NUL byte costs its line or message, not the file: input with NULs is binary only when no line
  // of it is a turn-trace line and it does not start as a JSON object.
  const nul = head.includes('\u0000');
  const json = !nul || /^\s*\{/.test(head);
  const firstLines = head.split('\n', 20);
  if (isAgentLog(path, head, firstLines[0])) return 'hermes-agent-log';
  if (firstLines.some((l) => l.includes('"turn-trace"') && (isTurnTraceLine(l) || /\.jsonl$/i.test(path)))) return 'turn-trace';
  // Other JSON lines (another agent's log) are read as a trace, whose reader says what they are
  // instead. A cassette is told before the checks below: its request bodies name "messages" too.
  if (isJsonLines(firstLines)) return 'turn-trace';
  if (!nul && isCassette(head)) return 'unknown';
  const dumpName = /request_dump_[^/\\]*\.json$/i.test(path);
  if (json && /"request"\s*:\s*\{/.test(head) && (/"body"\s*:/.test(head) || dumpName)) return 'hermes-request-dump';
  if (json && (/"messages"\s*:/.test(head) || /"session_id"\s*:/.test(head))) return 'hermes-session-json';
  if (nul) return 'unknown';
  if (/request_dump_[^/\\]*\.json$/i.test(path)) return 'hermes-request-dump';
  if (/session_[^/\\]*\.json$/i.test(path)) return 'hermes-session-json';
  if (/\.jsonl$/i.test(path)) return 'turn-trace';
  return 'unknown';
}

/** A Python logging record's start: asctime without a datefmt, then the level name. */
const LOG_RECORD = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (?:[A-Z]+|Level \d+)[ []/;

/** Hermes' agent.log (docs/agent-log.md): records in its format, by its name or its call lines. */
function isAgentLog(path: string, head: string, first: string): boolean {
  return LOG_RECORD.test(first) && (/(^|[/\\])agent\.log(\.\d+)?$/.test(path) || head.includes(': API call #') || head.includes(' agent.'));
}

/**
 * The first line is a whole JSON object and the next starts another: JSON lines. Our snapshots and
 * dumps are indented, their first line a lone brace.
 */
function isJsonLines(firstLines: string[]): boolean {
  const [first, next] = firstLines.filter((l) => l.trim() !== '');
  if (next === undefined || !/^\s*\{/.test(next)) return false;
  const p = parseJson(first);
  return p.ok && typeof p.value === 'object' && p.value !== null && !Array.isArray(p.value);
}

/** The byte offset of the first byte that is not well-formed UTF-8, or -1. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    const n = b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
    if (n < 0 || i + n >= bytes.length) return i;
    // The second byte's range excludes overlong forms, surrogates (ED A0..BF) and code points above U+10FFFF.
    const lo = b === 0xe0 ? 0xa0 : b === 0xf0 ? 0x90 : 0x80;
    const hi = b === 0xed ? 0x9f : b === 0xf4 ? 0x8f : 0xbf;
    if (bytes[i + 1] < lo || bytes[i + 1] > hi) return i;
    for (let k = 2; k <= n; k++) if (bytes[i + k] < 0x80 || bytes[i + k] > 0xbf) return i;
    i += n + 1;
  }
  return -1;
}

/** Decodes text input; bytes that are not UTF-8 become U+FFFD and the first one is a finding. */
function decodeText(path: string, bytes: Uint8Array): { text: string; finding: InputFinding | null } {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  const bad = firstInvalidUtf8(bytes);
  if (bad < 0) return { text, finding: null };
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < bad; i++)
    if (bytes[i] === 10) {
      line++;
      lineStart = i + 1;
    }
  return {
    text,
    finding: {
      severity: 'warning',
      code: 'parse-error',
      pos: { line, column: bad - lineStart + 1, offset: bad },
      message: `${path}:${line}: byte ${bad} is not valid UTF-8 (read as U+FFFD, so that text and its token counts differ from what was sent)`,
    },
  };
}

export function readTranscript(input: ReadInput): Transcript {
  const { path, bytes } = input;
  const format = sniffFormat(path, bytes);
  if (bytes.length === 0) {
    return {
      path,
      format: format === 'unknown' ? 'hermes-session-json' : format,
      sessions: [],
      captured: [],
      findings: [parseError(`${path}: empty file`, { line: 1, column: 1, offset: 0 }, true)],
    };
  }
  if (format === 'hermes-state-db') return readHermesStateDb(path, bytesSource(bytes), { wal: input.wal, journal: input.journal, session: input.session });
  // A log opened alone holds no conversation: its calls are the bill, read by the billing (agentLogsBeside).
  if (format === 'hermes-agent-log') return { path, format, sessions: [], captured: [], findings: [] };
  if (format === 'unknown') {
    // Binary input may be a damaged database; text is a file of another kind.
    const binary = bytes.subarray(0, 65536).includes(0);
    return {
      path,
      format: 'hermes-session-json',
      sessions: [],
      captured: [],
      findings: [
        binary
          ? parseError(`${path}: a binary file that is not an SQLite database`, { line: 1, column: 1, offset: 0 })
          : foreignText(path, decodeText(path, bytes).text),
      ],
    };
  }
  const split = format === 'hermes-session-json' ? readSplitSessionJson(path, bytesSource(bytes)) : null;
  if (split) return split.transcript;
  const { text, finding } = decodeText(path, bytes);
  const transcript =
    format === 'turn-trace'
      ? readTurnTrace(path, text, input.kept)
      : format === 'hermes-request-dump'
        ? readHermesRequestDump(path, text)
        : readHermesSessionJson(path, text);
  // Of a file that is not a transcript, that alone is said.
  if (finding && transcript.findings[0]?.code !== 'not-a-transcript') transcript.findings.unshift(finding);
  return transcript;
}

/** Request dumps that belong with a transcript, read for the replay to check itself against. */
export function readCapturedRequests(files: { path: string; bytes: Uint8Array }[], findings: InputFinding[]): CapturedRequest[] {
  const out: CapturedRequest[] = [];
  for (const f of files) {
    const { text, finding } = decodeText(f.path, f.bytes);
    if (finding) findings.push(finding);
    const c = readCapturedRequest(f.path, text, findings);
    if (c) out.push(c);
  }
  return out;
}
