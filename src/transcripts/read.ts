// Picks the reader by content (file names only break ties for input too damaged to tell).

import type { SqlJsStatic } from 'sql.js';
import { readCapturedRequest, readHermesRequestDump } from './hermesRequestDump';
import { readHermesSessionJson } from './hermesSessionJson';
import { isSqliteFile, readHermesStateDb } from './hermesStateDb';
import type { CapturedRequest, InputFinding, Transcript } from './model';
import { parseError } from './rows';
import { isTurnTraceLine, readTurnTrace } from './turnTrace';

export interface ReadInput {
  path: string;
  bytes: Uint8Array;
  /** The state.db-wal beside a database, if there is one. */
  wal?: Uint8Array;
  /** sql.js, loaded by the caller (where its wasm lives is the host's business). */
  sql: () => SqlJsStatic;
}

export type SniffedFormat = Transcript['format'] | 'unknown';

export function sniffFormat(path: string, bytes: Uint8Array): SniffedFormat {
  if (isSqliteFile(bytes)) return 'hermes-state-db';
  const head = new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(0, 65536));
  if (head.includes('\u0000')) return 'unknown';
  const firstLine = head.split('\n', 1)[0];
  if (firstLine.includes('"turn-trace"') && (isTurnTraceLine(firstLine) || /\.jsonl$/i.test(path))) return 'turn-trace';
  if (/"request"\s*:\s*\{/.test(head) && /"body"\s*:/.test(head)) return 'hermes-request-dump';
  if (/"messages"\s*:/.test(head) || /"session_id"\s*:/.test(head)) return 'hermes-session-json';
  if (/request_dump_[^/\\]*\.json$/i.test(path)) return 'hermes-request-dump';
  if (/session_[^/\\]*\.json$/i.test(path)) return 'hermes-session-json';
  if (/\.jsonl$/i.test(path)) return 'turn-trace';
  return 'unknown';
}

export function readTranscript(input: ReadInput): Transcript {
  const { path, bytes } = input;
  const format = sniffFormat(path, bytes);
  if (format === 'hermes-state-db') return readHermesStateDb(path, bytes, input.sql(), input.wal);
  if (format === 'unknown') {
    const binary = bytes.subarray(0, 65536).includes(0);
    return {
      path, format: 'hermes-session-json', sessions: [], captured: [],
      findings: [parseError(`${path}: ${binary ? 'a binary file that is not an SQLite database' : 'not a Hermes transcript (no state.db header, session JSON, request dump or turn-trace line found)'}`, { line: 1, column: 1, offset: 0 })],
    };
  }
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  if (format === 'turn-trace') return readTurnTrace(path, text);
  if (format === 'hermes-request-dump') return readHermesRequestDump(path, text);
  return readHermesSessionJson(path, text);
}

/** Request dumps that belong with a transcript, read for the replay to check itself against. */
export function readCapturedRequests(files: { path: string; bytes: Uint8Array }[], findings: InputFinding[]): CapturedRequest[] {
  const out: CapturedRequest[] = [];
  for (const f of files) {
    const c = readCapturedRequest(f.path, new TextDecoder().decode(f.bytes), findings);
    if (c) out.push(c);
  }
  return out;
}
