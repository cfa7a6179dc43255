// Finding and reading Hermes' agent.log files beside a state.db (docs/agent-log.md): read-only, in
// bounded chunks through the pure parser (agentLog.ts), and read on from where an earlier read
// stopped, the way a state.db's WAL is read again.

import { closeSync, constants, fstatSync, openSync, readdirSync, readSync, realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { InputFinding } from '../shared/model/transcript';
import { skippedFile } from './acceptRow';
import { endAgentLog, feedAgentLog, startAgentLog, type AgentLogStart, type AgentLogState } from './agentLog';
import type { AgentLogRecord } from './agentLogRecords';

/** How much of a log is read at a time: the parser holds only one unfinished line beyond it. */
const CHUNK_BYTES = 1 << 20;
/** Bytes compared just before where an earlier read stopped, to tell a grown file from another one. */
const TAIL_BYTES = 64;

/** `agent.log` and its rotations `agent.log.1` … (RotatingFileHandler's names). */
const LOG_NAME = /^agent\.log(?:\.(\d+))?$/;

/**
 * The agent's logs for a store: `<home>/logs/agent.log*` beside `<home>/state.db`, oldest first
 * (`agent.log.3`, `.2`, `.1`, then `agent.log`), the order their lines were written in. A store
 * reached through a symbolic link is looked up beside its real file too, where the agent wrote.
 */
export function findAgentLogs(stateDbPath: string): string[] {
  const homes = [dirname(stateDbPath)];
  try {
    homes.push(dirname(realpathSync(stateDbPath)));
  } catch {
    /* no such file: only the home as given */
  }
  const seen = new Set<string>();
  return homes.flatMap((home) => logsIn(join(home, 'logs'), seen));
}

/** `agent.log*` in `dir`, oldest first, each real file once (`seen` across folders). */
function logsIn(dir: string, seen: Set<string>): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: string[] = [];
  const logs = names
    .map((name) => ({ name, m: LOG_NAME.exec(name) }))
    .filter((e): e is { name: string; m: RegExpExecArray } => e.m !== null)
    .sort((a, b) => rotation(b.m) - rotation(a.m));
  for (const { name } of logs) {
    const path = join(dir, name);
    const real = realOrSelf(path);
    if (seen.has(real)) continue;
    seen.add(real);
    out.push(path);
  }
  return out;
}

/**
 * The logs of the home a transcript was read from: beside a `state.db`, and for a session snapshot
 * (`<home>/sessions/session_*.json`) beside its home's; a log opened alone is read with its
 * rotations when it is the current `agent.log`; none for other formats.
 */
export function agentLogsBeside(path: string, format: string): string[] {
  if (format === 'hermes-agent-log') return basename(path) === 'agent.log' ? logsIn(dirname(path), new Set()) : [path];
  if (format === 'hermes-state-db') return findAgentLogs(path);
  if (format === 'hermes-session-json' || format === 'hermes-request-dump') return findAgentLogs(join(dirname(dirname(path)), 'state.db'));
  return [];
}

const rotation = (m: RegExpExecArray): number => (m[1] === undefined ? 0 : Number(m[1]));

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** One log file read: what it held (or what this read added), and where to go on from. */
export interface AgentLogRead {
  path: string;
  /** The file's identity: a rotation renames it, so a later read finds the same file as `agent.log.1`. */
  dev: number;
  ino: number;
  /** The parser's state at the end of the read: hand the read back (`earlier`) to go on. */
  state: AgentLogState;
  /** The bytes just before `state.offset`, compared by the next read before it goes on. */
  tail: Uint8Array;
  /** The whole file was read and ended (a rotation, which no writer appends to). */
  ended: boolean;
  /** The records of the bytes this read parsed: the whole file's, or those after the earlier read. */
  records: AgentLogRecord[];
  findings: InputFinding[];
  /** True when this read went on from an earlier read of the same file. */
  continued: boolean;
}

export interface AgentLogReadOptions extends AgentLogStart {
  /** Reads of this set before: a file one of them read (the same file, grown) is read on from where it stopped. */
  earlier?: readonly AgentLogRead[];
  /** Still being written (the current `agent.log`): its unfinished last line waits for its newline. Default: the name is `agent.log`. */
  live?: boolean;
  chunkBytes?: number;
}

/** Reads the logs, oldest first (findAgentLogs' order), each on from its earlier read where there is one. */
export function readAgentLogs(paths: readonly string[], options: AgentLogReadOptions = {}): AgentLogRead[] {
  return paths.map((path) => readAgentLog(path, options));
}

/** Reads one log read-only, in bounded chunks; a file that cannot be read gives a finding and no records. */
export function readAgentLog(path: string, options: AgentLogReadOptions = {}): AgentLogRead {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    return unread(path, options, `cannot open (${errorCode(e)})`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return unread(path, options, 'not a regular file');
    const live = options.live ?? LOG_NAME.exec(basename(path))?.[1] === undefined;
    const earlier = options.earlier?.find((r) => r.dev === st.dev && r.ino === st.ino);
    const from = earlier && goesOn(fd, st.size, earlier) ? earlier : null;
    let state = from?.state ?? startAgentLog(path, options);
    // The state names the file it was started on; a rotation renamed it since.
    if (state.file !== path) state = { ...state, file: path };
    const records: AgentLogRecord[] = [];
    const findings: InputFinding[] = [];
    const buf = Buffer.allocUnsafe(options.chunkBytes ?? CHUNK_BYTES);
    for (let at = state.offset; at < st.size;) {
      const got = readSync(fd, buf, 0, Math.min(buf.length, st.size - at), at);
      if (got === 0) break;
      const step = feedAgentLog(state, buf.subarray(0, got));
      state = step.state;
      records.push(...step.records);
      findings.push(...step.findings);
      at += got;
    }
    let ended = from?.ended ?? false;
    if (!live && !ended) {
      const step = endAgentLog(state);
      state = step.state;
      records.push(...step.records);
      findings.push(...step.findings);
      ended = true;
    }
    const n = Math.min(TAIL_BYTES, state.offset);
    const tail = Buffer.alloc(n);
    if (n) readSync(fd, tail, 0, n, state.offset - n);
    return { path, dev: st.dev, ino: st.ino, state, tail, ended, records, findings, continued: from !== null };
  } catch (e) {
    return unread(path, options, `cannot read (${errorCode(e)})`);
  } finally {
    closeSync(fd);
  }
}

/** The file is the one `earlier` read, grown or as it was: not shorter, the same bytes where that read stopped. */
function goesOn(fd: number, size: number, earlier: AgentLogRead): boolean {
  const end = earlier.state.offset;
  if (size < end) return false;
  const at = end - earlier.tail.length;
  const now = Buffer.alloc(earlier.tail.length);
  if (now.length && readSync(fd, now, 0, now.length, at) !== now.length) return false;
  return Buffer.compare(now, earlier.tail) === 0;
}

function unread(path: string, options: AgentLogStart, why: string): AgentLogRead {
  return {
    path,
    dev: -1,
    ino: -1,
    state: startAgentLog(path, options),
    tail: new Uint8Array(0),
    ended: false,
    records: [],
    findings: [skippedFile(path, why)],
    continued: false,
  };
}

const errorCode = (e: unknown): string => (e as NodeJS.ErrnoException).code ?? (e as Error).message;
