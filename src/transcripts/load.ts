// The one module that touches the file system, for the CLI and the extension host: the file, its
// WAL and request dumps beside it. Everything is opened read-only; nothing is ever written next to
// a transcript. A state.db above READ_WHOLE_LIMIT is not read whole: its pages are read through a
// file descriptor as the page reader asks for them, and only the session list, or one lineage.
// Only regular files are read, each checked before it is opened (a FIFO would block, a device
// never end): the file asked for is refused otherwise, a file beside it skipped with a finding.

import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { readSplitSessionJson } from './hermesSessionJson';
import type { ElementsText } from './jsonText';
import { isSqliteFile, lineageOf, readHermesStateDb, type StateDbOptions, type StoreMemory } from './hermesStateDb';
import { lineageMembers, narrowToLineage } from '../hermes/lineage';
import type { InputFinding, Transcript } from '../model/transcript';
import { firstInvalidUtf8, readCapturedRequests, readTranscript, SNIFF_BYTES, sniffFormat } from './read';
import { continueTurnTrace } from './turnTrace';
import { bytesSource, type ByteSource } from '../model/byteSource';

/** A state.db larger than this is listed, not read whole; its sessions load one lineage at a time. */
export const READ_WHOLE_LIMIT = 256 * 1024 * 1024;

/**
 * The largest file read whole: a JSON or JSONL transcript, a request dump, a state.db-wal. Their
 * rows or bytes are all held in memory, so a larger one is refused (the transcript asked for) or
 * skipped with a finding (a file beside it) rather than read until memory runs out.
 */
export const WHOLE_FILE_LIMIT = 1024 * 1024 * 1024;

export interface LoadOptions {
  /** Load only this session's lineage (its parent chain and its descendants). */
  session?: string;
  /**
   * Load only the lineage (one overview row: a compaction chain) holding this session, any session
   * of it, without its forks; instead of `session`.
   */
  lineage?: string;
  /** Overrides READ_WHOLE_LIMIT (tests use a small one). */
  readWholeLimit?: number;
  /**
   * What an earlier load of this path returned. A turn trace only grows (docs/turn-trace.md): when
   * its file still ends as it did then, with whole lines appended, only those are read, into that
   * same transcript, which is returned.
   */
  earlier?: Transcript;
  /**
   * Keep what a later load given this one's result as `earlier` reuses: a session snapshot's
   * messages as read (as many bytes as they take in the file, beside what they parsed to), so that
   * a snapshot rewritten with messages appended parses only those; a state.db's messages rows by
   * leaf page, so that a store whose WAL grew reads only the pages its new commits wrote.
   */
  remember?: boolean;
}

export class UnopenablePath extends Error {}

/** The session asked for is not in the transcript. */
export class UnknownSession extends Error {}

export async function loadTranscript(path: string, options: LoadOptions = {}): Promise<Transcript> {
  return options.lineage === undefined ? loadFile(path, options) : loadLineage(path, options.lineage, options);
}

/**
 * The lineage holding session `id`, alone. It is loaded as `session` loads (the session's parent
 * chain and descendants: what its replay reads, a fork's copied rows included), then everything
 * outside the lineage's own sessions is left out before the replay: their rows, their catalogue
 * entries, their request dumps and the findings placed in them.
 */
async function loadLineage(path: string, id: string, options: LoadOptions): Promise<Transcript> {
  const load = (session: string): Promise<Transcript> => loadFile(path, { readWholeLimit: options.readWholeLimit, session });
  let transcript = await load(id);
  let members = lineageMembers(transcript, id);
  // A chain member that continues an ancestor of ID on another path (two compaction children of one
  // parent) is no descendant of ID: its lineage is then loaded from its first session.
  const loaded = new Set(transcript.sessions.map((s) => s.id));
  if (members.length && members[0] !== id && (!transcript.catalog || members.some((m) => !loaded.has(m)))) {
    transcript = await load(members[0]);
    members = lineageMembers(transcript, id);
  }
  // A file that could not be read at all keeps its findings.
  return members.length ? narrowToLineage(transcript, members) : transcript;
}

async function loadFile(path: string, options: LoadOptions): Promise<Transcript> {
  const file = openRegular(path);
  if (!('fd' in file)) throw new UnopenablePath(`${path}: ${file.absent ? 'cannot open (ENOENT)' : file.why}`);
  const beside: InputFinding[] = [];
  let result: Transcript;
  try {
    const appended = options.earlier && options.session === undefined ? readAppended(file, options.earlier) : null;
    if (appended) return appended;
    result = readOpened(path, file, options, beside);
    if (result.format === 'turn-trace' && options.session === undefined) rememberTraceEnd(result, file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).syscall === undefined) throw e;
    throw new UnopenablePath(`${path}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  } finally {
    closeSync(file.fd);
  }
  result.findings.push(...beside);
  if (options.session !== undefined) narrowToSession(result, options.session);
  if (result.format === 'hermes-state-db' || result.format === 'hermes-session-json') {
    const ids = new Set(result.sessions.map((s) => s.id));
    const dumps = findDumps(path, result.format).filter((f) => [...ids].some((id) => basename(f).startsWith(`request_dump_${id}_`)));
    const files = dumps.flatMap((p) => {
      const bytes = readBeside(p, result.findings);
      return bytes ? [{ path: p, bytes }] : [];
    });
    result.captured = readCapturedRequests(files, result.findings);
  }
  return result;
}

/**
 * Every file a load of `path` reads or that belongs to it, existing or not: the file, the SQLite
 * companions beside it (WAL, shared memory, rollback journal) and every request dump where dumps
 * are looked for. What `report -o` must never write over.
 */
export function companionsOf(path: string): { path: string; what: string }[] {
  const out = [{ path, what: 'the transcript' }];
  for (const base of new Set([path, companionBase(path)])) {
    for (const [suffix, what] of [
      ['-wal', 'its SQLite WAL'],
      ['-shm', 'its SQLite shared-memory file'],
      ['-journal', 'its SQLite rollback journal'],
    ]) {
      out.push({ path: `${base}${suffix}`, what });
    }
  }
  for (const p of findDumps(path, 'hermes-state-db')) out.push({ path: p, what: 'a request dump read beside it' });
  return out;
}

/**
 * Where SQLite keeps a database's WAL, shared-memory file and journal: beside the file a chain of
 * symbolic links ends at, not beside the link (its unix VFS resolves the full path first). The agent
 * writes its request dumps beside its real home too.
 */
function companionBase(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

interface Opened {
  fd: number;
  size: number;
  dev: number;
  ino: number;
}

/** Where a read of a turn trace stopped, at a line's end: the file, its length, its bytes just before. */
interface TraceEnd {
  dev: number;
  ino: number;
  end: number;
  tail: Uint8Array;
}

const traceEnds = new WeakMap<Transcript, TraceEnd>();

/** Bytes compared where the last read ended, to tell a grown trace from one written anew. */
const TRACE_END_CHECK = 4096;

function rememberTraceEnd(transcript: Transcript, file: Opened): void {
  const source = fileSource(file.fd, file.size);
  // A last line still being written is read again whole next time, with its finding.
  if (file.size === 0 || source.read(file.size - 1, 1)[0] !== 0x0a) return;
  const n = Math.min(TRACE_END_CHECK, file.size);
  traceEnds.set(transcript, { dev: file.dev, ino: file.ino, end: file.size, tail: source.read(file.size - n, n) });
}

/** The lines appended to a trace since `earlier` was read, read into it; null when the file is not that trace grown. */
function readAppended(file: Opened, earlier: Transcript): Transcript | null {
  const at = traceEnds.get(earlier);
  if (!at || at.dev !== file.dev || at.ino !== file.ino || file.size < at.end) return null;
  const source = fileSource(file.fd, file.size);
  if (Buffer.compare(source.read(at.end - at.tail.length, at.tail.length), at.tail) !== 0) return null;
  const bytes = source.read(at.end, file.size - at.end);
  // Bytes that are not UTF-8 or an unfinished line get their finding from a whole read.
  if (bytes.length && (bytes[bytes.length - 1] !== 0x0a || firstInvalidUtf8(bytes) >= 0)) return null;
  // A byte-order mark after a newline is text of that line, as in the whole file's decoding.
  if (bytes.length && !continueTurnTrace(earlier, new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes))) return null;
  rememberTraceEnd(earlier, file);
  return earlier;
}

type Unopened = { absent: true } | { absent: false; why: string };

/**
 * A regular file opened for reading, or why not. stat comes first, so a FIFO or a device is never
 * opened; the descriptor is opened non-blocking and checked again, so a file swapped in between is
 * refused too.
 */
function openRegular(path: string): Opened | Unopened {
  let st: Stats;
  try {
    st = statSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return { absent: false, why: `cannot open (${errorCode(e)})` };
    try {
      if (lstatSync(path).isSymbolicLink()) return { absent: false, why: 'a dangling symbolic link' };
    } catch {
      /* nothing there */
    }
    return { absent: true };
  }
  if (!st.isFile()) return { absent: false, why: `not a regular file (${kindOf(st)})` };
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    return { absent: false, why: `cannot open (${errorCode(e)})` };
  }
  const now = fstatSync(fd);
  if (!now.isFile() || now.dev !== st.dev || now.ino !== st.ino) {
    closeSync(fd);
    return { absent: false, why: 'replaced while it was being opened' };
  }
  return { fd, size: now.size, dev: now.dev, ino: now.ino };
}

function kindOf(st: Stats): string {
  return st.isDirectory()
    ? 'a directory'
    : st.isFIFO()
      ? 'a FIFO'
      : st.isSocket()
        ? 'a socket'
        : st.isCharacterDevice()
          ? 'a character device'
          : st.isBlockDevice()
            ? 'a block device'
            : 'not a file';
}

const errorCode = (e: unknown): string => (e as NodeJS.ErrnoException).code ?? (e as Error).message;

function readOpened(path: string, file: Opened, options: LoadOptions, beside: InputFinding[]): Transcript {
  // stat says 0 bytes of files that cannot be read too (/proc/self/mem: EIO): one byte is asked
  // for, so that a read that fails is a path that cannot be read (exit 2), not an empty file.
  if (file.size === 0) readSync(file.fd, Buffer.alloc(1), 0, 1, 0);
  const source = fileSource(file.fd, file.size);
  const limit = options.readWholeLimit ?? READ_WHOLE_LIMIT;
  const sqlite = isSqliteFile(source.read(0, 16));
  if (sqlite && file.size > limit) return readLarge(path, source, limit, options.session, beside);
  if (sqlite) return readStore(path, file, source, options, beside);
  if (!sqlite && file.size > WHOLE_FILE_LIMIT) {
    throw new UnopenablePath(
      `${path}: ${megabytes(file.size)}, above the ${megabytes(WHOLE_FILE_LIMIT)} limit for a file read whole (only a state.db is read page by page)`,
    );
  }
  return readSessionJson(path, source, options) ?? readWhole(path, source, options.session, beside);
}

function readWhole(path: string, source: ByteSource, session: string | undefined, beside: InputFinding[]): Transcript {
  const bytes = source.read(0, source.size);
  const format = sniffFormat(path, bytes);
  const sqlite = format === 'hermes-state-db';
  return readTranscript({
    path,
    bytes,
    wal: sqlite ? readBeside(`${companionBase(path)}-wal`, beside) : undefined,
    journal: sqlite ? readBeside(`${companionBase(path)}-journal`, beside) : undefined,
    session,
  });
}

/**
 * A state.db read whole. With `remember`, what was read of its messages table is kept; a read given
 * that as `earlier`, of the same file with the same WAL grown, reads only the pages the WAL's later
 * commits wrote (and what it must read to find them), as asked for; otherwise the file is read at once.
 */
function readStore(path: string, file: Opened, source: ByteSource, options: LoadOptions, beside: InputFinding[]): Transcript {
  const whole = options.session === undefined;
  const wal = readBeside(`${companionBase(path)}-wal`, beside);
  const last = whole && options.earlier ? storesRead.get(options.earlier) : undefined;
  const reuse: StateDbOptions['reuse'] =
    whole && options.remember ? { earlier: last?.dev === file.dev && last.ino === file.ino ? last.memory : undefined } : undefined;
  const grown = reuse?.earlier && wal && Buffer.compare(wal.subarray(0, reuse.earlier.wal.header.length), reuse.earlier.wal.header) === 0;
  const pages = grown ? source : bytesSource(source.read(0, source.size));
  const journal = readBeside(`${companionBase(path)}-journal`, beside);
  const transcript = readHermesStateDb(path, pages, { wal, journal, session: options.session, reuse });
  if (reuse?.kept) {
    const read = { dev: file.dev, ino: file.ino, memory: reuse.kept };
    storesRead.set(transcript, read);
    // The caller keeps whichever of the two the analysis goes on with.
    if (options.earlier) storesRead.set(options.earlier, read);
  }
  return transcript;
}

/** What a load with `remember` kept of a state.db's messages table, under what it returned. */
const storesRead = new WeakMap<Transcript, { dev: number; ino: number; memory: StoreMemory }>();

/**
 * A session snapshot parsed as it is read, so that neither its bytes nor its text are ever in
 * memory whole (unless they are to be remembered); null for any other file, and for a snapshot
 * that does not parse (read whole, it gets its findings).
 */
function readSessionJson(path: string, source: ByteSource, { earlier, remember, session }: LoadOptions): Transcript | null {
  if (source.size === 0 || sniffFormat(path, source.read(0, SNIFF_BYTES)) !== 'hermes-session-json') return null;
  const whole = session === undefined;
  const read = readSplitSessionJson(path, source, { keep: whole && remember, earlier: whole && earlier ? messagesRead.get(earlier) : undefined });
  if (read?.elements) {
    messagesRead.set(read.transcript, read.elements);
    // The caller keeps whichever of the two the analysis goes on with.
    if (earlier) messagesRead.set(earlier, read.elements);
  }
  return read?.transcript ?? null;
}

/** A session snapshot's messages as a load with `remember` read them, under what it returned. */
const messagesRead = new WeakMap<Transcript, ElementsText>();

/** A large state.db, its pages read as the page reader asks for them. */
function readLarge(path: string, source: ByteSource, limit: number, session: string | undefined, beside: InputFinding[]): Transcript {
  const size = source.size;
  const transcript = readHermesStateDb(path, source, {
    wal: readBeside(`${companionBase(path)}-wal`, beside),
    journal: readBeside(`${companionBase(path)}-journal`, beside),
    session,
    listOnly: session === undefined,
  });
  if (session === undefined && transcript.catalog) {
    transcript.listedOnly = true;
    const n = transcript.catalog.length;
    transcript.findings.unshift({
      severity: 'info',
      code: 'session-list-only',
      pos: { offset: 0 },
      message: `${basename(path)} is ${megabytes(size)} (above the ${megabytes(limit)} read-whole limit): ${n} session${n === 1 ? '' : 's'} listed; choose one to load (CLI: --session ID)`,
    });
  }
  return transcript;
}

function megabytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.ceil(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MB`;
}

function fileSource(fd: number, size: number): ByteSource {
  const readInto = (buf: Uint8Array, offset: number): number => {
    let n = 0;
    while (n < buf.length) {
      const got = readSync(fd, buf, n, buf.length - n, offset + n);
      if (got === 0) break;
      n += got;
    }
    return n;
  };
  // One buffer for every comparison: a fresh one each time would be as many megabytes allocated as
  // compared, which sets off the collector in a worker holding a large transcript.
  let scratch: Buffer | undefined;
  return {
    size,
    read(offset, length) {
      const buf = Buffer.allocUnsafe(Math.max(0, Math.min(length, size - offset)));
      return buf.subarray(0, readInto(buf, offset));
    },
    holds(offset, bytes) {
      scratch ??= Buffer.allocUnsafe(COMPARE_PIECE);
      for (let at = 0; at < bytes.length; at += COMPARE_PIECE) {
        const piece = bytes.subarray(at, at + COMPARE_PIECE);
        const view = scratch.subarray(0, piece.length);
        if (readInto(view, offset + at) !== piece.length || Buffer.compare(view, piece) !== 0) return false;
      }
      return true;
    },
  };
}

/** How much of a file fileSource's `holds` reads at a time. */
const COMPARE_PIECE = 1 << 20;

/**
 * A file read beside the transcript (its WAL, a request dump): undefined when there is none, and
 * when it cannot be read, with a finding that says it was skipped and why.
 */
function readBeside(path: string, findings: InputFinding[]): Uint8Array | undefined {
  const file = openRegular(path);
  if (!('fd' in file)) {
    if (!file.absent) findings.push(skipped(path, file.why));
    return undefined;
  }
  try {
    if (file.size > WHOLE_FILE_LIMIT) {
      findings.push(skipped(path, `${megabytes(file.size)}, above the ${megabytes(WHOLE_FILE_LIMIT)} limit for a file read whole`));
      return undefined;
    }
    return fileSource(file.fd, file.size).read(0, file.size);
  } catch (e) {
    findings.push(skipped(path, `cannot read (${errorCode(e)})`));
    return undefined;
  } finally {
    closeSync(file.fd);
  }
}

function skipped(path: string, why: string): InputFinding {
  return { severity: 'warning', code: 'parse-error', pos: { line: 1, column: 1 }, message: `${path}: skipped, ${why}` };
}

/**
 * A state.db reader keeps only the lineage's rows already; other formats are read whole and
 * narrowed here. A transcript that could not be read at all keeps its findings instead.
 */
function narrowToSession(transcript: Transcript, id: string): void {
  const known = transcript.catalog ?? transcript.sessions;
  if (!known.some((s) => s.id === id)) {
    if (!transcript.catalog && !transcript.sessions.length) return;
    const sample = known
      .slice(0, 5)
      .map((s) => s.id)
      .join(', ');
    throw new UnknownSession(
      `${transcript.path}: no session ${JSON.stringify(id)} (${known.length} session(s)${sample ? `: ${sample}${known.length > 5 ? ', …' : ''}` : ''})`,
    );
  }
  if (!transcript.catalog) {
    const keep = lineageOf(transcript.sessions, id);
    transcript.sessions = transcript.sessions.filter((s) => keep.has(s.id));
  }
}

/** Dumps live in the session JSON's folder, or in sessions/ beside a state.db (HERMES_HOME layout). */
function findDumps(path: string, format: string): string[] {
  const homes = [...new Set([dirname(path), dirname(companionBase(path))])];
  const dirs = format === 'hermes-state-db' ? homes.flatMap((h) => [h, join(h, 'sessions')]) : homes;
  const out: string[] = [];
  const seen = new Set([companionBase(path)]);
  for (const dir of dirs) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const n of names.sort()) {
      const real = companionBase(join(dir, n));
      if (/^request_dump_.*\.json$/.test(n) && !seen.has(real)) {
        seen.add(real);
        out.push(join(dir, n));
      }
    }
  }
  return out;
}
