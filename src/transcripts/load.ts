// The one module that touches the file system, for the CLI and the extension host: the file, its
// WAL and request dumps beside it. Everything is opened read-only; nothing is ever written next to
// a transcript. A state.db above READ_WHOLE_LIMIT is not read whole: its pages are read through a
// file descriptor as the page reader asks for them, and only the session list, or one lineage.

import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { readSplitSessionJson } from './hermesSessionJson';
import { isSqliteFile, lineageOf, readHermesStateDb } from './hermesStateDb';
import type { Transcript } from '../model/transcript';
import { readCapturedRequests, readTranscript, SNIFF_BYTES, sniffFormat } from './read';
import type { ByteSource } from '../model/byteSource';

/** A state.db larger than this is listed, not read whole; its sessions load one lineage at a time. */
export const READ_WHOLE_LIMIT = 256 * 1024 * 1024;

export interface LoadOptions {
  /** Load only this session's lineage (its parent chain and its descendants). */
  session?: string;
  /** Overrides READ_WHOLE_LIMIT (tests use a small one). */
  readWholeLimit?: number;
}

export class UnopenablePath extends Error {}

/** The session asked for is not in the transcript. */
export class UnknownSession extends Error {}

export async function loadTranscript(path: string, options: LoadOptions = {}): Promise<Transcript> {
  let size: number;
  try {
    const stat = statSync(path);
    if (stat.isDirectory()) throw new UnopenablePath(`${path}: is a directory`);
    size = stat.size;
  } catch (e) {
    if (e instanceof UnopenablePath) throw e;
    throw new UnopenablePath(`${path}: cannot open (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  const limit = options.readWholeLimit ?? READ_WHOLE_LIMIT;
  const transcript = size > limit ? readLarge(path, size, limit, options.session) : undefined;
  const result = transcript ?? readSessionJson(path, size) ?? readWhole(path, options.session);
  if (options.session !== undefined) narrowToSession(result, options.session);
  if (result.format === 'hermes-state-db' || result.format === 'hermes-session-json') {
    const ids = new Set(result.sessions.map((s) => s.id));
    const dumps = findDumps(path, result.format).filter((f) => [...ids].some((id) => basename(f).startsWith(`request_dump_${id}_`)));
    result.captured = readCapturedRequests(dumps.map((p) => ({ path: p, bytes: readFileSync(p) })), result.findings);
  }
  return result;
}

function readWhole(path: string, session: string | undefined): Transcript {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw new UnopenablePath(`${path}: cannot open (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  const format = sniffFormat(path, bytes);
  return readTranscript({ path, bytes, wal: format === 'hermes-state-db' ? readWal(path) : undefined, session });
}

/**
 * A session snapshot parsed as it is read, so that neither its bytes nor its text are ever in
 * memory whole; null for any other file, and for a snapshot that does not parse (read whole, it
 * gets its findings).
 */
function readSessionJson(path: string, size: number): Transcript | null {
  if (size === 0) return null;
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null; // readWhole says why
  }
  try {
    const source = fileSource(fd, size);
    return sniffFormat(path, source.read(0, SNIFF_BYTES)) === 'hermes-session-json' ? readSplitSessionJson(path, source) : null;
  } finally {
    closeSync(fd);
  }
}

/** A large state.db through a read-only descriptor; undefined when the file is not an SQLite database. */
function readLarge(path: string, size: number, limit: number, session: string | undefined): Transcript | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw new UnopenablePath(`${path}: cannot open (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  try {
    const source = fileSource(fd, size);
    if (!isSqliteFile(source.read(0, 16))) return undefined;
    const transcript = readHermesStateDb(path, source, { wal: readWal(path), session, listOnly: session === undefined });
    if (session === undefined && transcript.catalog) {
      transcript.listedOnly = true;
      const n = transcript.catalog.length;
      transcript.findings.unshift({ severity: 'info', code: 'parse-error', pos: { offset: 0 },
        message: `${basename(path)} is ${megabytes(size)} (above the ${megabytes(limit)} read-whole limit): ${n} session${n === 1 ? '' : 's'} listed; choose one to load (CLI: --session ID)` });
    }
    return transcript;
  } finally {
    closeSync(fd);
  }
}

function megabytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.ceil(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MB`;
}

function fileSource(fd: number, size: number): ByteSource {
  return {
    size,
    read(offset, length) {
      const buf = Buffer.allocUnsafe(Math.max(0, Math.min(length, size - offset)));
      let n = 0;
      while (n < buf.length) {
        const got = readSync(fd, buf, n, buf.length - n, offset + n);
        if (got === 0) break;
        n += got;
      }
      return buf.subarray(0, n);
    },
  };
}

function readWal(path: string): Uint8Array | undefined {
  const walPath = `${path}-wal`;
  return existsSync(walPath) ? readFileSync(walPath) : undefined;
}

/**
 * A state.db reader keeps only the lineage's rows already; other formats are read whole and
 * narrowed here. A transcript that could not be read at all keeps its findings instead.
 */
function narrowToSession(transcript: Transcript, id: string): void {
  const known = transcript.catalog ?? transcript.sessions;
  if (!known.some((s) => s.id === id)) {
    if (!transcript.catalog && !transcript.sessions.length) return;
    const sample = known.slice(0, 5).map((s) => s.id).join(', ');
    throw new UnknownSession(`${transcript.path}: no session ${JSON.stringify(id)} (${known.length} session(s)${sample ? `: ${sample}${known.length > 5 ? ', …' : ''}` : ''})`);
  }
  if (!transcript.catalog) {
    const keep = lineageOf(transcript.sessions, id);
    transcript.sessions = transcript.sessions.filter((s) => keep.has(s.id));
  }
}

/** Dumps live in the session JSON's folder, or in sessions/ beside a state.db (HERMES_HOME layout). */
function findDumps(path: string, format: string): string[] {
  const dirs = [dirname(path)];
  if (format === 'hermes-state-db') dirs.push(join(dirname(path), 'sessions'));
  const out: string[] = [];
  for (const dir of dirs) {
    let names: string[];
    try { names = readdirSync(dir); } catch { continue; }
    for (const n of names.sort()) if (/^request_dump_.*\.json$/.test(n) && join(dir, n) !== join(path)) out.push(join(dir, n));
  }
  return out;
}
