// The one module that touches the file system, for the CLI and the extension host: the file, its
// WAL and request dumps beside it. Everything is opened read-only; nothing is ever written next to
// a transcript. A state.db above READ_WHOLE_LIMIT is not read whole: its pages are read through a
// file descriptor as the page reader asks for them, and only the session list, or one lineage.
// Only regular files are read, each checked before it is opened (a FIFO would block, a device
// never end): the file asked for is refused otherwise, a file beside it skipped with a finding.

import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { readSplitSessionJson, type SnapshotMemory } from './hermesSessionJson';
import { isSqliteFile, lineageOf, readHermesStateDb, type StateDbOptions, type StoreMemory } from './hermesStateDb';
import type { SessionTableMemory } from './stateDbSessions';
import { TranscriptLineages } from '../hermes/lineage';
import type { InputFinding, Transcript } from '../shared/model/transcript';
import { firstInvalidUtf8, readCapturedRequests, readTranscript, SNIFF_BYTES, sniffFormat } from './read';
import type { TurnTraceReader } from './turnTrace';
import { bytesSource, type ByteSource } from './byteSource';
import { skippedFile } from './acceptRow';

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
}

/**
 * What a load keeps for reading the same file again (loadRemembering's `earlier`), by format: of a
 * turn trace, where the read stopped (at a line's end) and the reader that goes on from there into
 * the same transcript; of a session snapshot, its messages as read (as many bytes as they take in
 * the file, beside what they parsed to); of a state.db, its messages rows by leaf page.
 */
export type ReadMemory =
  | { format: 'turn-trace'; file: FileId; end: number; tail: Uint8Array; reader: TurnTraceReader }
  | { format: 'hermes-session-json'; snapshot: SnapshotMemory }
  | { format: 'hermes-state-db'; file: FileId; store: StoreMemory };

/** Which file a memory was read from (a file replaced under the same path is another). */
interface FileId {
  dev: number;
  ino: number;
}

/** A transcript as loaded, and what reading its file again reuses (null: nothing). */
export interface Remembered {
  transcript: Transcript;
  memory: ReadMemory | null;
}

export class UnopenablePath extends Error {}

/** The session asked for is not in the transcript. */
export class UnknownSession extends Error {}

export async function loadTranscript(path: string, options: LoadOptions = {}): Promise<Transcript> {
  return options.lineage === undefined ? (await loadFile(path, options)).transcript : loadLineage(path, options.lineage, options);
}

/**
 * A load that keeps what a later load of the same file reuses, given back to it as `earlier`: that
 * one reads only what may have changed since (a turn trace's lines appended, into the transcript
 * read then, which it returns; a snapshot's messages after those whose bytes are unchanged; a
 * state.db's pages its WAL's later commits wrote), and reads as a whole read does. Nothing is kept
 * of one session's load.
 */
export async function loadRemembering(
  path: string,
  { earlier, ...options }: { session?: string; readWholeLimit?: number; earlier?: ReadMemory | null } = {},
): Promise<Remembered> {
  return loadFile(path, options, options.session === undefined ? { remember: true, earlier: earlier ?? undefined } : { remember: false });
}

/**
 * The lineage holding session `id`, alone. It is loaded as `session` loads (the session's parent
 * chain and descendants: what its replay reads, a fork's copied rows included), then everything
 * outside the lineage's own sessions is left out before the replay: their rows, their catalogue
 * entries, their request dumps and the findings placed in them.
 */
async function loadLineage(path: string, id: string, options: LoadOptions): Promise<Transcript> {
  const load = async (session: string): Promise<Transcript> => (await loadFile(path, { readWholeLimit: options.readWholeLimit, session })).transcript;
  let transcript = await load(id);
  let lineages = new TranscriptLineages(transcript);
  let members = lineages.members(id);
  // A chain member that continues an ancestor of ID on another path (two compaction children of one
  // parent) is no descendant of ID: its lineage is then loaded from its first session.
  const loaded = new Set(transcript.sessions.map((s) => s.id));
  if (members.length && members[0] !== id && (!transcript.catalog || members.some((m) => !loaded.has(m)))) {
    transcript = await load(members[0]);
    lineages = new TranscriptLineages(transcript);
    members = lineages.members(id);
  }
  // A file that could not be read at all keeps its findings.
  return members.length ? lineages.narrow(members) : transcript;
}

async function loadFile(path: string, options: LoadOptions, memo: Memo = { remember: false }): Promise<Remembered> {
  const file = openRegular(path);
  if (!('fd' in file)) throw new UnopenablePath(`${path}: ${file.absent ? 'cannot open (ENOENT)' : file.why}`);
  const beside: InputFinding[] = [];
  let result: Remembered;
  try {
    const appended = memo.earlier?.format === 'turn-trace' ? readAppended(file, memo.earlier) : null;
    if (appended) return appended;
    result = readOpened(path, file, options, memo, beside);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).syscall === undefined) throw e;
    throw new UnopenablePath(`${path}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  } finally {
    closeSync(file.fd);
  }
  const { transcript } = result;
  transcript.findings.push(...beside);
  if (options.session !== undefined) narrowToSession(transcript, options.session);
  if (transcript.format === 'hermes-state-db' || transcript.format === 'hermes-session-json') readDumpsOf(transcript);
  return result;
}

/** The request dumps of the transcript's sessions found beside it, read into it. */
function readDumpsOf(transcript: Transcript): void {
  const ids = new Set(transcript.sessions.map((s) => s.id));
  const dumps = findDumps(transcript.path, transcript.format).filter((f) => [...ids].some((id) => basename(f).startsWith(`request_dump_${id}_`)));
  const files = dumps.flatMap((p) => {
    const bytes = readBeside(p, transcript.findings);
    return bytes ? [{ path: p, bytes }] : [];
  });
  transcript.captured = readCapturedRequests(files, transcript.findings);
}

/** Whether a load remembers what it read, and what the last load of the file remembered (only a whole read is either). */
interface Memo {
  remember: boolean;
  earlier?: ReadMemory;
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

/** Bytes compared where the last read ended, to tell a grown trace from one written anew. */
const TRACE_END_CHECK = 4096;

/**
 * Where a read of a turn trace stopped, at a line's end, with its reader; null while a last line
 * is still being written (read again whole next time, with its finding).
 */
function traceEnd(file: Opened, reader: TurnTraceReader): ReadMemory | null {
  const source = fileSource(file.fd, file.size);
  if (file.size === 0 || source.read(file.size - 1, 1)[0] !== 0x0a) return null;
  const n = Math.min(TRACE_END_CHECK, file.size);
  return { format: 'turn-trace', file: { dev: file.dev, ino: file.ino }, end: file.size, tail: source.read(file.size - n, n), reader };
}

/** The lines appended to a trace since `earlier` was read, read into its transcript; null when the file is not that trace grown. */
function readAppended(file: Opened, earlier: Extract<ReadMemory, { format: 'turn-trace' }>): Remembered | null {
  if (earlier.file.dev !== file.dev || earlier.file.ino !== file.ino || file.size < earlier.end) return null;
  const source = fileSource(file.fd, file.size);
  if (Buffer.compare(source.read(earlier.end - earlier.tail.length, earlier.tail.length), earlier.tail) !== 0) return null;
  const bytes = source.read(earlier.end, file.size - earlier.end);
  // Bytes that are not UTF-8 or an unfinished line get their finding from a whole read.
  if (bytes.length && (bytes[bytes.length - 1] !== 0x0a || firstInvalidUtf8(bytes) >= 0)) return null;
  // A byte-order mark after a newline is text of that line, as in the whole file's decoding.
  if (bytes.length && !earlier.reader.readAppended(new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes))) return null;
  return { transcript: earlier.reader.transcript, memory: traceEnd(file, earlier.reader) };
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

function readOpened(path: string, file: Opened, options: LoadOptions, memo: Memo, beside: InputFinding[]): Remembered {
  // stat says 0 bytes of files that cannot be read too (/proc/self/mem: EIO): one byte is asked
  // for, so that a read that fails is a path that cannot be read (exit 2), not an empty file.
  if (file.size === 0) readSync(file.fd, Buffer.alloc(1), 0, 1, 0);
  const source = fileSource(file.fd, file.size);
  const limit = options.readWholeLimit ?? READ_WHOLE_LIMIT;
  const sqlite = isSqliteFile(source.read(0, 16));
  if (sqlite && file.size > limit) return { transcript: readLarge(path, source, limit, options.session, beside), memory: null };
  if (sqlite) return readStore(path, file, source, options.session, memo, beside);
  if (!sqlite && file.size > WHOLE_FILE_LIMIT) {
    throw new UnopenablePath(
      `${path}: ${megabytes(file.size)}, above the ${megabytes(WHOLE_FILE_LIMIT)} limit for a file read whole (only a state.db is read page by page)`,
    );
  }
  return readSessionJson(path, source, memo) ?? readWhole(path, file, source, options.session, memo, beside);
}

function readWhole(path: string, file: Opened, source: ByteSource, session: string | undefined, memo: Memo, beside: InputFinding[]): Remembered {
  const bytes = source.read(0, source.size);
  const format = sniffFormat(path, bytes);
  const sqlite = format === 'hermes-state-db';
  const kept: { reader?: TurnTraceReader } = {};
  const transcript = readTranscript({
    path,
    bytes,
    wal: sqlite ? readBeside(`${companionBase(path)}-wal`, beside) : undefined,
    journal: sqlite ? readBeside(`${companionBase(path)}-journal`, beside) : undefined,
    session,
    kept,
  });
  return { transcript, memory: memo.remember && kept.reader ? traceEnd(file, kept.reader) : null };
}

/**
 * A state.db read whole. Remembering, what was read of its messages table is kept; a read given
 * that as `earlier`, of the same file with the same WAL grown, reads only the pages the WAL's later
 * commits wrote (and what it must read to find them), as asked for; otherwise the file is read at once.
 */
function readStore(path: string, file: Opened, source: ByteSource, session: string | undefined, memo: Memo, beside: InputFinding[]): Remembered {
  const wal = readBeside(`${companionBase(path)}-wal`, beside);
  const last =
    memo.earlier?.format === 'hermes-state-db' && memo.earlier.file.dev === file.dev && memo.earlier.file.ino === file.ino ? memo.earlier.store : undefined;
  const reuse: StateDbOptions['reuse'] = memo.remember ? { earlier: last } : undefined;
  const grown = last && wal && Buffer.compare(wal.subarray(0, last.wal.header.length), last.wal.header) === 0;
  const pages = grown ? source : bytesSource(source.read(0, source.size));
  const journal = readBeside(`${companionBase(path)}-journal`, beside);
  const transcript = readHermesStateDb(path, pages, { wal, journal, session, reuse });
  return { transcript, memory: reuse?.kept ? { format: 'hermes-state-db', file: { dev: file.dev, ino: file.ino }, store: reuse.kept } : null };
}

/**
 * A session snapshot parsed as it is read, so that neither its bytes nor its text are ever in
 * memory whole (unless they are to be remembered); null for any other file, and for a snapshot
 * that does not parse (read whole, it gets its findings).
 */
function readSessionJson(path: string, source: ByteSource, memo: Memo): Remembered | null {
  if (source.size === 0 || sniffFormat(path, source.read(0, SNIFF_BYTES)) !== 'hermes-session-json') return null;
  const earlier = memo.earlier?.format === 'hermes-session-json' ? memo.earlier.snapshot : undefined;
  const read = readSplitSessionJson(path, source, { keep: memo.remember, earlier });
  if (!read) return null;
  return { transcript: read.transcript, memory: read.memory ? { format: 'hermes-session-json', snapshot: read.memory } : null };
}

/**
 * A state.db's sessions listed from its session table, no message row read (as one above the
 * read-whole limit is, without that finding): what the extension shows while the whole file is
 * read. Null for a file that is no SQLite database or has no session table to list, or cannot be
 * read: the whole read then says why.
 */
export function listStateDb(path: string, table?: SessionTableMemory): Transcript | null {
  return withStateDb(path, (source, beside) => {
    const transcript = readListed(path, source, { table }, beside);
    return transcript.listedOnly ? transcript : null;
  });
}

/**
 * Families of a state.db (`roots`: each with every session descending from it, a top-level overview
 * row's whole tree), their rows read as the page reader asks for them, through the index on
 * session_id where the store has one, whatever the file's size: what a listed overview is filled
 * from, family by family (issue 23 item 1). Each family reads as it does in a whole read (a session
 * replays from its own rows and its parent's alone). `table`: the session table as a read of the
 * same file found it (listStateDb's, or the last call's), taken instead of reading it again. Null as
 * for listStateDb.
 */
export function loadFamilies(path: string, roots: readonly string[], table?: SessionTableMemory): Transcript | null {
  const transcript = withStateDb(path, (source, beside) => readListed(path, source, { families: roots, table }, beside));
  if (transcript) readDumpsOf(transcript);
  return transcript;
}

/**
 * `read` of the SQLite file at `path`, the findings of the files beside it added; null for a file
 * that cannot be opened, is no SQLite database, or cannot be read.
 */
function withStateDb(path: string, read: (source: ByteSource, beside: InputFinding[]) => Transcript | null): Transcript | null {
  const file = openRegular(path);
  if (!('fd' in file)) return null;
  try {
    const source = fileSource(file.fd, file.size);
    if (!isSqliteFile(source.read(0, 16))) return null;
    const beside: InputFinding[] = [];
    const transcript = read(source, beside);
    transcript?.findings.push(...beside);
    return transcript;
  } catch {
    return null;
  } finally {
    closeSync(file.fd);
  }
}

/** A state.db's pages read as the page reader asks for them: the sessions `choice` names, or without one only its sessions listed. */
function readListed(path: string, source: ByteSource, choice: Pick<StateDbOptions, 'session' | 'families' | 'table'>, beside: InputFinding[]): Transcript {
  const listOnly = choice.session === undefined && choice.families === undefined;
  const transcript = readHermesStateDb(path, source, {
    wal: readBeside(`${companionBase(path)}-wal`, beside),
    journal: readBeside(`${companionBase(path)}-journal`, beside),
    ...choice,
    listOnly,
  });
  if (listOnly && transcript.catalog) transcript.listedOnly = true;
  return transcript;
}

/** A large state.db, its pages read as the page reader asks for them. */
function readLarge(path: string, source: ByteSource, limit: number, session: string | undefined, beside: InputFinding[]): Transcript {
  const size = source.size;
  const transcript = readListed(path, source, { session }, beside);
  if (transcript.listedOnly) {
    const n = (transcript.catalog ?? []).length;
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
    if (!file.absent) findings.push(skippedFile(path, file.why));
    return undefined;
  }
  try {
    if (file.size > WHOLE_FILE_LIMIT) {
      findings.push(skippedFile(path, `${megabytes(file.size)}, above the ${megabytes(WHOLE_FILE_LIMIT)} limit for a file read whole`));
      return undefined;
    }
    return fileSource(file.fd, file.size).read(0, file.size);
  } catch (e) {
    findings.push(skippedFile(path, `cannot read (${errorCode(e)})`));
    return undefined;
  } finally {
    closeSync(file.fd);
  }
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
