// Hermes state.db (docs/hermes-behaviour.md §3.2, §3.5). The logic below reads rows from a RowSource;
// at run time that source is the page reader (sqliteFile.ts) for every size of file, not sql.js:
// it reads the same rows as sql.js in the differential tests (test/transcripts/sqliteFile.slow.test.ts:
// real SQLite and sql.js files, every page size and text encoding, overflow chains, WAL overlays,
// random tables), it needs no copy of the file (sql.js needs the whole image, and the WAL folded
// into a second one), and it can stream one session's rows out of a file too large to hold. sql.js
// stays as the tests' oracle. The user's file and its WAL are only ever read.

import { isSummaryCarrier, userOriginatedTurnView } from '../hermes/compactionMarkers';
import { carriedPrefix, copiesRow, HeadCopies, matchCopies, uncarriedRows, type CopySide } from '../hermes/copies';
import { withoutFailedTurnNotices } from '../hermes/failedTurn';
import { projectedBlockStart } from '../hermes/projectedNotes';
import { forkKindOf, Lineages } from '../hermes/lineage';
import { sanitizeMemoryContext } from '../hermes/memoryContext';
import type { RowEvidence } from '../hermes/rowIdentity';
import type { Row } from '../model/rows';
import type {
  ForkKind,
  Generation,
  InputFinding,
  RecordedCounters,
  RecordedUsage,
  SessionSummary,
  SourcePos,
  Transcript,
  TranscriptSession,
} from '../model/transcript';
import { MAX_NESTING, nestsDeeperThan, parseError } from './acceptRow';
import type { ByteSource } from '../model/byteSource';
import { foldName, SqliteFile, SqliteFormatError, type SqlValue, type WalMark } from './sqliteFile';

const SQLITE_MAGIC = 'SQLite format 3\u0000';
const JSON_CONTENT_PREFIX = '\u0000json:';

/** What the Hermes logic needs of a database: table and column names, and each table's rows. */
export interface RowSource {
  tables(): string[];
  columns(table: string): string[];
  /**
   * Every row in storage order; a row's values can be read only until the next row is taken. With
   * `damaged`, a damaged part of the table costs only its rows, each damage told to it.
   */
  rows(table: string, kept?: (page: number) => boolean, damaged?: (message: string) => void): Iterable<StoredRow>;
  /** The rows whose `column` is one of `values`, through an index; undefined when there is none to use. */
  rowsWhere?(table: string, column: string, values: Iterable<string>): Iterable<StoredRow> | undefined;
}

export interface StoredRow {
  get(column: string): SqlValue;
}

/**
 * A source that reads a file's pages (SqliteFile): its table scans can pass over leaf pages, and it
 * tells which pages a WAL's later commits wrote, so a read of the file grown reuses the rows of
 * every leaf page nothing wrote since (StoreMemory).
 */
interface PagedRowSource extends RowSource {
  rows(table: string, kept?: (page: number) => boolean, damaged?: (message: string) => void): Iterable<StoredRow & PagedRow>;
  table(name: string): { rootPage: number } | undefined;
  readonly walMark: WalMark | null;
  pagesWrittenSince(mark: WalMark): Set<number> | null;
}

interface PagedRow {
  page: number;
  kept: boolean;
  recordOverflow(into: number[] | null): void;
}

const isPaged = (db: RowSource): db is PagedRowSource => 'pagesWrittenSince' in db;

/**
 * What a read of a store keeps for the next read of it: the messages table's rows, by the leaf page
 * they were read from, with the overflow pages read for them, and what each row decoded to. Only a
 * store in WAL mode keeps any: its WAL says which pages later commits wrote; every other page reads
 * as it did.
 */
export interface StoreMemory {
  wal: WalMark;
  /** The messages table's root page and the columns read: a read reading others reuses nothing. */
  signature: string;
  leaves: Map<number, Leaf>;
  decoded: WeakMap<SqlRow, DecodedRow>;
}

/** What a stored row decodes to (null: it cannot be replayed), where it is, and what was found in it. */
interface DecodedRow {
  sessionId: string;
  pos: SourcePos;
  message: StoredMessage | null;
  findings: InputFinding[];
}

/** The rows read from a leaf page, and the overflow pages read for them. */
interface Leaf {
  rows: SqlRow[];
  overflow: number[];
}

export interface StateDbOptions {
  /** The bytes of `<db>-wal`: its committed frames are read over the file's pages. */
  wal?: Uint8Array;
  /** The bytes of `<db>-journal`: a hot journal is rolled back in memory before anything is read. */
  journal?: Uint8Array;
  /**
   * A read that reuses what an earlier read of the file kept (`earlier`), where nothing wrote it
   * since, and keeps what it read (`kept`, set by the read). Only a whole read of a file's pages.
   */
  reuse?: { earlier?: StoreMemory; kept?: StoreMemory };
  /** Read only this session's lineage: its parent chain and its descendants (rotation children). */
  session?: string;
  /** Read the session list only: every session without rows, and the catalogue. */
  listOnly?: boolean;
}

/** Column values; integers beyond 2^53 stay bigint so ids order and print exactly. */
type Value = SqlValue | undefined;
type SqlRow = Record<string, Value>;

/** A bigint that fits a double exactly is read as a number, like every smaller integer. */
const plain = (v: SqlValue): Value => (typeof v === 'bigint' && Number.isSafeInteger(Number(v)) ? Number(v) : v);

/** An id as text, exact for any integer. */
const idText = (v: Value): string =>
  v instanceof Uint8Array
    ? `x'${[...v.subarray(0, 64)].map((b) => b.toString(16).padStart(2, '0')).join('')}'${v.length > 64 ? ` (${v.length} bytes)` : ''}`
    : String(v);

/**
 * A session id as one string, the same for `sessions.id`, `messages.session_id` and
 * `parent_session_id`. The agent writes text; a column without text affinity can hold the INTEGER
 * 42 beside the TEXT '42', two sessions to SQLite, so a number is named with its type.
 */
const sessionKey = (v: Value): string => (typeof v === 'number' || typeof v === 'bigint' ? `${String(v)} (integer)` : idText(v));

export function isSqliteFile(bytes: Uint8Array): boolean {
  if (bytes.length < 16) return false;
  for (let i = 0; i < 16; i++) if (bytes[i] !== SQLITE_MAGIC.charCodeAt(i)) return false;
  return true;
}

export function readHermesStateDb(path: string, source: ByteSource, options: StateDbOptions = {}): Transcript {
  const findings: InputFinding[] = [];
  if (!isSqliteFile(source.read(0, 16))) {
    findings.push(parseError(`${path}: not an SQLite database (byte 0: no "SQLite format 3" header)`, { offset: 0 }));
    return { path, format: 'hermes-state-db', sessions: [], captured: [], findings };
  }
  let file: SqliteFile;
  try {
    file = new SqliteFile(source, { wal: options.wal, journal: options.journal });
  } catch (e) {
    findings.push(parseError(`${path}: cannot open SQLite database: ${(e as Error).message}`, { offset: 0 }));
    return { path, format: 'hermes-state-db', sessions: [], captured: [], findings };
  }
  for (const w of file.walWarnings) findings.push({ severity: 'warning', code: 'parse-error', message: `${path}-wal: ${w}`, pos: { offset: 0 } });
  for (const p of file.problems) findings.push(parseError(`${path}: ${p}`, { offset: 0 }));
  if (file.rolledBack) {
    findings.push({
      severity: 'warning',
      code: 'parse-error',
      pos: { offset: 0 },
      message: `${path}-journal: a hot rollback journal: a write transaction was in progress when this was read; read as SQLite reads it, rolled back (${file.rolledBack} page${file.rolledBack === 1 ? '' : 's'} restored in memory, nothing written): the rows it had not committed are not shown`,
    });
  }
  return readStateDbRows(path, file, findings, options);
}

/** The sessions of a lineage: `id`, its parent chain, and every session descending from it. */
export function lineageOf(sessions: readonly TranscriptSession[], id: string): Set<string> {
  return new Lineages(sessions).around(id);
}

/**
 * Table and column names as SQLite compares them (ASCII case-insensitive): the stored spelling of
 * each name a query asks for.
 */
class Names {
  private readonly byFolded = new Map<string, string>();
  constructor(names: Iterable<string>) {
    for (const n of names) if (!this.byFolded.has(foldName(n))) this.byFolded.set(foldName(n), n);
  }
  has(name: string): boolean {
    return this.byFolded.has(foldName(name));
  }
  /** The stored spelling of `name`, or `name` itself when absent. */
  of(name: string): string {
    return this.byFolded.get(foldName(name)) ?? name;
  }
}

/** One stored row with what the store says about it beyond the dict. */
interface StoredMessage {
  row: Row;
  pos: SourcePos;
  active: boolean;
  /** Archived by a compaction in place (`compacted = 1`), as opposed to undone or carried. */
  compacted: boolean;
  evidence: RowEvidence;
  /** A compaction's summary carrier (isSummaryCarrier), told once per row read. */
  carrier: boolean;
}

export function readStateDbRows(path: string, db: RowSource, findings: InputFinding[], options: StateDbOptions = {}): Transcript {
  const transcript: Transcript = { path, format: 'hermes-state-db', sessions: [], captured: [], findings };
  const unreadable = (e: unknown): void => {
    findings.push(parseError(`${path}: unreadable database: ${(e as Error).message}`, { offset: 0 }));
  };
  let listed: Listed;
  let mCols: Names;
  let tables: Names;
  try {
    tables = new Names(db.tables());
    if (!tables.has('messages')) {
      findings.push(parseError(`${path}: an SQLite database without the Hermes schema (no sessions/messages tables)`, { offset: 0 }));
      return transcript;
    }
    if (!tables.has('sessions')) {
      // Not Hermes' schema (no sessions table: missing, or a view): the messages still show, each
      // session named by its rows' session_id.
      findings.push(
        parseError(
          `${path}: no sessions table (Hermes keeps one; a view or another schema is not read): the sessions are taken from the messages' session_id, without titles or counters`,
          { offset: 0 },
        ),
      );
      listed = { sessions: [], byId: new Map(), catalog: [], keep: null };
    } else listed = readSessions(db, tables, findings, path, options);
  } catch (e) {
    unreadable(e);
    return transcript;
  }
  transcript.catalog = listed.catalog;
  const { sessions, byId, keep } = listed;
  try {
    mCols = new Names(db.columns(tables.of('messages')));
  } catch (e) {
    // The messages table fails alone: the sessions are still listed, without rows.
    unreadable(e);
    for (const s of sessions) s.generations = [{ rows: [], pos: [] }];
    transcript.sessions = new Lineages(sessions).ordered();
    return transcript;
  }
  const unknown = options.session !== undefined && !byId.has(options.session);
  if (options.listOnly || unknown) {
    if (!unknown) for (const s of sessions) s.generations = [{ rows: [], pos: [] }];
    transcript.sessions = unknown ? [] : new Lineages(sessions).ordered();
    return transcript;
  }

  const bySession = new Map<string, StoredMessage[]>();
  // Only the columns decodeRow reads: a real store has more, some of them large.
  const wanted = [
    'role',
    'content',
    'active',
    'compacted',
    '_compressed_summary',
    'api_content',
    'tool_calls',
    'tool_call_id',
    'tool_name',
    'timestamp',
    'display_kind',
    'display_metadata',
    'display_identity',
    'message_uid',
    'finish_reason',
    'reasoning',
    'reasoning_content',
    'reasoning_details',
  ].filter((c) => mCols.has(c));
  const stored: SqlRow[] = [];
  const messages = tables.of('messages');
  const [idColumn, sessionColumn] = [mCols.of('id'), mCols.has('session_id') ? mCols.of('session_id') : null];
  const wantedColumns = wanted.map((c) => [c, mCols.of(c)]);
  const sqlRow = (m: StoredRow, sessionId: Value): SqlRow => {
    const r: SqlRow = { id: plain(m.get(idColumn)), session_id: sessionId };
    for (const [c, name] of wantedColumns) r[c] = plain(m.get(name));
    return r;
  };
  // Damage in the messages table costs the rows it touches, each told once; the rest is read.
  const told = new Set<string>();
  const damaged = (message: string): void => {
    if (told.has(message)) return;
    told.add(message);
    findings.push(parseError(`${path}: ${message}; what it held is left out, the rest of the table is read`, { offset: 0 }));
  };
  /** `read(m)`, or null (and told) when the row's own bytes are damaged (an overflow chain cut short, say). */
  const intact = <T>(read: () => T): T | null => {
    try {
      return read();
    } catch (e) {
      if (!(e instanceof SqliteFormatError)) throw e;
      damaged(e.message);
      return null;
    }
  };
  const sessionOf = (m: StoredRow): Value => (sessionColumn === null ? undefined : plain(m.get(sessionColumn)));
  const paged = options.reuse && !keep && isPaged(db) ? db : null;
  let decoded: StoreMemory['decoded'] | undefined;
  try {
    if (paged && options.reuse) {
      const signature = [paged.table(messages)?.rootPage, idColumn, sessionColumn, ...wantedColumns.map((c) => c[1])].join(' ');
      const kept = scanKeeping(paged, messages, signature, options.reuse.earlier, stored, (m) => intact(() => sqlRow(m, sessionOf(m))), damaged);
      options.reuse.kept = kept ?? undefined;
      decoded = kept?.decoded;
    } else {
      // One lineage: through the index on session_id when there is one (a few MB of a large home), else a scan.
      const some = keep && sessionColumn !== null ? db.rowsWhere?.(messages, sessionColumn, keep) : undefined;
      for (const m of some ?? db.rows(messages, undefined, damaged)) {
        // The session is tested before the rest is decoded: rows of other sessions cost their header only.
        const sessionId = intact(() => ({ value: sessionOf(m) }));
        if (!sessionId || (keep && !keep.has(sessionKey(sessionId.value)))) continue;
        const r = intact(() => sqlRow(m, sessionId.value));
        if (r) stored.push(r);
      }
    }
  } catch (e) {
    // What was read before the damage is kept.
    unreadable(e);
  }
  // The agent reads by id (ORDER BY id); a stable sort keeps storage order among equal ids. Rows
  // stored by an integer id (the rowid) are in that order already.
  if (stored.some((r, i) => i > 0 && compareSql(stored[i - 1].id, r.id) > 0)) stored.sort((a, b) => compareSql(a.id, b.id));

  const flags = { active: mCols.has('active'), compacted: mCols.has('compacted') };
  const flag = (r: SqlRow, c: keyof typeof flags, absent: boolean): boolean => (!flags[c] || r[c] === null ? absent : Number(r[c]) === 1);
  const text = (v: Value): string | null => (typeof v === 'string' && v ? v : v instanceof Uint8Array && v.length ? idText(v) : null);
  // A row read before decodes as it did then, with the same findings.
  const decode = (r: SqlRow): DecodedRow => {
    const known = decoded?.get(r);
    if (known) return known;
    const sessionId = sessionKey(r.session_id);
    const pos: SourcePos = typeof r.id === 'number' && Number.isSafeInteger(r.id) ? { sessionId, rowId: r.id } : { sessionId };
    const own: InputFinding[] = [];
    const row = decodeRow(r, mCols, own, path, pos, idText(r.id));
    const message = row && {
      row,
      pos,
      active: flag(r, 'active', true),
      compacted: flag(r, 'compacted', false),
      evidence: { uid: text(r.message_uid), identity: text(r.display_identity) },
      carrier: isSummaryCarrier(row),
    };
    const fresh = { sessionId, pos, message, findings: own };
    decoded?.set(r, fresh);
    return fresh;
  };
  let previousId: Value;
  for (const r of stored) {
    const { sessionId, pos, message, findings: own } = decode(r);
    const integral = typeof r.id === 'number' ? Number.isInteger(r.id) : typeof r.id === 'bigint';
    if (!integral) {
      findings.push({
        severity: 'warning',
        code: 'parse-error',
        pos,
        message: `${path}: session ${sessionId}: a message whose id ${idText(r.id)} is not an integer; rows are read in id order`,
      });
    } else if (previousId !== undefined && compareSql(previousId, r.id) === 0) {
      findings.push({
        severity: 'warning',
        code: 'parse-error',
        pos,
        message: `${path}: session ${sessionId}, message id ${idText(r.id)} appears more than once; the order of those rows is undefined`,
      });
    }
    previousId = r.id;
    for (const f of own) findings.push(f);
    if (!message) continue;
    let list = bySession.get(sessionId);
    if (!list) {
      list = [];
      bySession.set(sessionId, list);
    }
    list.push(message);
  }

  for (const [sessionId, list] of bySession) {
    if (byId.has(sessionId)) continue;
    // Rows of a session the sessions table does not know: shown as a session of their own.
    findings.push({
      severity: 'warning',
      code: 'parse-error',
      pos: list[0].pos,
      message: `${path}: ${list.length} message(s) of session ${sessionId}, which is not in the sessions table`,
    });
    const orphan: TranscriptSession = { id: sessionId, parentId: null, endReason: null, systemPrompt: null, generations: [], pos: { sessionId } };
    byId.set(sessionId, orphan);
    sessions.push(orphan);
  }
  const evidence = new Map<Generation, CopySide>();
  const lineages = new Lineages(sessions);
  for (const session of sessions) {
    // A rotation child's list opens with head copies of its parent and the rotation's carrier, which starts no set of its own.
    const generations = splitGenerations(bySession.get(session.id) ?? [], lineages.continued(session) !== undefined, session.rewinds, (f) =>
      findings.push({ ...f, message: `${path}: session ${session.id}: ${f.message}` }),
    );
    for (const gen of generations) evidence.set(gen, { rows: gen.rows, evidence: gen.evidence });
    session.generations = generations;
  }
  const ordered = lineages.ordered();
  for (const session of ordered) {
    const parent = lineages.parentOf(session);
    const first = session.generations[0];
    if (!parent || !first || first.compaction) continue;
    const last = parent.generations[parent.generations.length - 1];
    const old = last ? (evidence.get(last) ?? { rows: last.rows }) : { rows: [] };
    const copies = matchCopies(old, evidence.get(first) ?? { rows: first.rows });
    if (lineages.continued(session)) {
      first.compaction = { mode: 'rotation', before: last?.rows ?? [], beforePos: last?.pos ?? [], copies };
    } else {
      // A branch, delegate or reset child starts from a copy of its parent's rows: those turns
      // happened in the parent and are not counted again.
      first.carried = carriedPrefix(first.rows, copies.source);
    }
  }
  for (const gen of evidence.keys()) delete (gen as EvidencedGeneration).evidence;
  transcript.sessions = ordered;
  return transcript;
}

/**
 * A scan of the messages table into `rows` that keeps them by leaf page (StoreMemory), reusing an
 * earlier read's for each leaf page the WAL's later commits did not write, nor any overflow page
 * read for its rows. Null without a WAL to tell a later read what changed, or when the table is
 * damaged: damage costs only the rows it touches (told to `damaged`), and a later read reads the
 * table whole again, so its damage is told again.
 */
function scanKeeping(
  db: PagedRowSource,
  table: string,
  signature: string,
  earlier: StoreMemory | undefined,
  rows: SqlRow[],
  read: (m: StoredRow) => SqlRow | null,
  damaged: (message: string) => void,
): StoreMemory | null {
  const written = earlier && earlier.signature === signature ? db.pagesWrittenSince(earlier.wal) : null;
  const reusable = written && earlier ? earlier.leaves : new Map<number, Leaf>();
  const unwritten = (page: number): boolean => {
    const leaf = reusable.get(page);
    return !!leaf && !written?.has(page) && leaf.overflow.every((o) => !written?.has(o));
  };
  const leaves: StoreMemory['leaves'] = new Map();
  let leaf: Leaf | undefined;
  let page = 0;
  // A damaged table is read whole again next time, so its damage is told again.
  let hurt = false;
  const onDamage = (message: string): void => {
    hurt = true;
    damaged(message);
  };
  for (const m of db.rows(table, unwritten, onDamage)) {
    if (m.kept) {
      const old = reusable.get(m.page);
      if (!old) throw new Error(`page ${m.page} passed over, but not read before`);
      leaves.set(m.page, old);
      for (const r of old.rows) rows.push(r);
      page = 0;
      continue;
    }
    if (m.page !== page) {
      page = m.page;
      leaf = { rows: [], overflow: [] };
      leaves.set(page, leaf);
      m.recordOverflow(leaf.overflow);
    }
    const r = read(m);
    if (!r) {
      hurt = true;
      continue;
    }
    leaf?.rows.push(r);
    rows.push(r);
  }
  const wal = db.walMark;
  return wal && !hurt ? { wal, signature, leaves, decoded: (written && earlier?.decoded) || new WeakMap() } : null;
}

interface Listed {
  /** The sessions to read rows for (every one without a session filter); the first row of a duplicated id. */
  sessions: TranscriptSession[];
  byId: Map<string, TranscriptSession>;
  catalog: SessionSummary[];
  /** The session ids whose messages are kept; null for all. */
  keep: Set<string> | null;
}

const sqlRank = (v: Value): number => (v === null || v === undefined ? 0 : typeof v === 'number' || typeof v === 'bigint' ? 1 : typeof v === 'string' ? 2 : 3);

/** NULL, then numbers, then text, then blobs (SQLite's order; text by UTF-16 unit, which differs from bytes only beyond U+FFFF). */
function compareSql(a: Value, b: Value): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const d = sqlRank(a) - sqlRank(b);
  if (d !== 0) return d;
  if ((typeof a === 'number' || typeof a === 'bigint') && (typeof b === 'number' || typeof b === 'bigint')) {
    if (typeof a === 'number' && typeof b === 'number') return a - b;
    // A bigint against a number: compare exactly (a non-integral number sorts between its neighbours).
    const x = typeof a === 'bigint' ? a : BigInt(Math.floor(a));
    const y = typeof b === 'bigint' ? b : BigInt(Math.floor(b));
    return x < y ? -1 : x > y ? 1 : (typeof a === 'number' && !Number.isInteger(a) ? 1 : 0) - (typeof b === 'number' && !Number.isInteger(b) ? 1 : 0);
  }
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
    return a.length - b.length;
  }
  return 0;
}

const COUNTERS: Record<Exclude<keyof RecordedCounters, 'usage'>, string> = {
  apiCalls: 'api_call_count',
  messages: 'message_count',
  inputTokens: 'input_tokens',
  outputTokens: 'output_tokens',
  cacheReadTokens: 'cache_read_tokens',
  cacheWriteTokens: 'cache_write_tokens',
};

function readSessions(db: RowSource, tables: Names, findings: InputFinding[], path: string, options: StateDbOptions): Listed {
  const sessionsTable = tables.of('sessions');
  const sCols = new Names(db.columns(sessionsTable));
  const col = (r: StoredRow, name: string): Value => (sCols.has(name) ? plain(r.get(sCols.of(name))) : undefined);
  const str = (v: Value): string | null => (typeof v === 'string' ? v : null);
  // First pass: the small columns of every session; prompts and tools are read below for the kept ones only.
  const light: {
    ordinal: number;
    id: Value;
    startedAt: Value;
    parent: Value;
    endReason: Value;
    hash: Value;
    messageCount: Value;
    title: Value;
    source: Value;
    model: Value;
    endedAt: Value;
    fork: ForkKind | undefined;
  }[] = [];
  let ordinal = 0;
  for (const r of db.rows(sessionsTable)) {
    // The fork marker is read for every session: one listed but not loaded still groups as its lineage.
    light.push({
      ordinal: ordinal++,
      id: col(r, 'id'),
      startedAt: col(r, 'started_at'),
      parent: col(r, 'parent_session_id'),
      endReason: col(r, 'end_reason'),
      hash: col(r, 'system_prompt_hash'),
      messageCount: col(r, 'message_count'),
      title: col(r, 'title'),
      source: col(r, 'source'),
      model: col(r, 'model'),
      endedAt: col(r, 'ended_at'),
      fork: forkKindOf(parseJsonColumn(col(r, 'model_config'))),
    });
  }
  // ORDER BY started_at, id (or id), as the agent lists them; stable for equal keys.
  light.sort((a, b) => (sCols.has('started_at') ? compareSql(a.startedAt, b.startedAt) : 0) || compareSql(a.id, b.id));

  const byId = new Map<string, TranscriptSession>();
  const sessions: TranscriptSession[] = [];
  const ordinals = new Map<TranscriptSession, number>();
  const hashes = new Map<TranscriptSession, string | null>();
  const catalog: SessionSummary[] = [];
  for (const s of light) {
    const id = sessionKey(s.id);
    if (byId.has(id)) {
      findings.push({
        severity: 'warning',
        code: 'parse-error',
        pos: { sessionId: id },
        message: `${path}: session ${id} appears more than once in the sessions table; the first row is used`,
      });
      continue;
    }
    const session: TranscriptSession = {
      id,
      parentId:
        s.parent === null || s.parent === undefined || s.parent === '' || (s.parent instanceof Uint8Array && !s.parent.length) ? null : sessionKey(s.parent),
      endReason: str(s.endReason),
      systemPrompt: null,
      generations: [],
      // Older schemas lack some of these columns: absent reads as null, not recorded.
      source: str(s.source),
      model: str(s.model),
      endedAt: epoch(s.endedAt),
      pos: { sessionId: id },
    };
    if (s.fork) session.forkKind = s.fork;
    byId.set(id, session);
    sessions.push(session);
    ordinals.set(session, s.ordinal);
    hashes.set(session, str(s.hash));
  }
  // A session that is its own ancestor has no parent to carry rows over from.
  const lineages = new Lineages(sessions);
  for (const cycle of lineages.cycles()) {
    const session = cycle[0];
    findings.push({
      severity: 'warning',
      code: 'parse-error',
      pos: { sessionId: session.id },
      message: `${path}: session ${session.id}'s parent_session_id chain loops back (${cycle.map((n) => n.id).join(' -> ')}); it is read without a parent`,
    });
    session.parentId = null;
  }
  for (const s of light) {
    const session = byId.get(sessionKey(s.id));
    if (!session || ordinals.get(session) !== s.ordinal) continue;
    catalog.push({
      id: session.id,
      parentId: session.parentId,
      startedAt: typeof s.startedAt === 'number' ? s.startedAt : null,
      endReason: session.endReason,
      messageCount: typeof s.messageCount === 'number' ? s.messageCount : null,
      title: str(s.title),
      source: session.source ?? null,
      model: session.model ?? null,
      endedAt: session.endedAt ?? null,
      ...(session.forkKind ? { forkKind: session.forkKind } : {}),
    });
  }

  const keep = options.session !== undefined && byId.has(options.session) ? new Lineages(sessions).around(options.session) : null;
  const kept = keep ? sessions.filter((s) => keep.has(s.id)) : sessions;
  const prompts = new Map<string, string>();
  const needed = new Set(kept.map((s) => hashes.get(s)).filter((h): h is string => h !== null));
  if (tables.has('system_prompts') && needed.size) {
    const pCols = new Names(db.columns(tables.of('system_prompts')));
    for (const r of db.rows(tables.of('system_prompts'))) {
      const hash = String(plain(r.get(pCols.of('hash'))));
      if (needed.has(hash)) prompts.set(hash, String(plain(r.get(pCols.of('prompt'))) ?? ''));
    }
  }
  // Second pass: the prompt stored inline (when its hash finds none), the fork markers and the
  // counters, of kept sessions only. `tool_names` holds names (or a hash), not the definitions
  // sent, so it says nothing about the tools' bytes and is not read as tools.
  const byOrdinal = new Map(kept.map((s) => [ordinals.get(s) as number, s]));
  let at = 0;
  for (const r of db.rows(sessionsTable)) {
    const session = byOrdinal.get(at++);
    if (!session) continue;
    const hash = hashes.get(session) ?? null;
    session.systemPrompt = (hash !== null ? prompts.get(hash) : undefined) ?? str(col(r, 'system_prompt'));
    const recorded: RecordedCounters = {};
    for (const [key, column] of Object.entries(COUNTERS) as [Exclude<keyof RecordedCounters, 'usage'>, string][]) {
      const v = col(r, column);
      if (typeof v === 'number' && Number.isFinite(v)) recorded[key] = v;
    }
    if (Object.keys(recorded).length) session.recorded = recorded;
    const rewinds = col(r, 'rewind_count');
    if (typeof rewinds === 'number' && Number.isInteger(rewinds) && rewinds >= 0) session.rewinds = rewinds;
  }
  if (tables.has('session_model_usage')) readModelUsage(db, tables.of('session_model_usage'), new Map(kept.map((s) => [s.id, s])));
  return { sessions: kept, byId: keep ? new Map(kept.map((s) => [s.id, s])) : byId, catalog, keep };
}

/** A finite REAL or INTEGER column as epoch seconds; anything else (NULL, text, a blob) is not recorded. */
function epoch(v: Value): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

const USAGE_COUNTS = {
  apiCalls: 'api_call_count',
  inputTokens: 'input_tokens',
  outputTokens: 'output_tokens',
  cacheReadTokens: 'cache_read_tokens',
  cacheWriteTokens: 'cache_write_tokens',
} as const;

/**
 * The `session_model_usage` rows of the given sessions into their `recorded.usage`, in storage
 * order (rowid). A row without a text session id or model is no row upstream
 * writes and is skipped; a count that is not a number reads as 0, as upstream's upserts start it.
 */
function readModelUsage(db: RowSource, table: string, byId: Map<string, TranscriptSession>): void {
  const cols = new Names(db.columns(table));
  if (!cols.has('session_id') || !cols.has('model')) return;
  const get = (r: StoredRow, name: string): Value => (cols.has(name) ? plain(r.get(cols.of(name))) : undefined);
  const text = (v: Value): string => (typeof v === 'string' ? v : '');
  // The table exists: a session without rows in it recorded no such calls ([]), which is not "not recorded".
  for (const s of byId.values()) (s.recorded ??= {}).usage = [];
  for (const r of db.rows(table)) {
    const session = byId.get(String(get(r, 'session_id')));
    const model = get(r, 'model');
    if (!session || typeof model !== 'string') continue;
    const row: RecordedUsage = {
      model,
      billingProvider: text(get(r, 'billing_provider')),
      task: text(get(r, 'task')),
      apiCalls: 0,
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    };
    for (const [key, column] of Object.entries(USAGE_COUNTS) as [keyof typeof USAGE_COUNTS, string][]) {
      const v = get(r, column);
      if (typeof v === 'number' && Number.isFinite(v)) row[key] = v;
    }
    (session.recorded?.usage ?? []).push(row);
  }
}

function parseJsonColumn(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function decodeRow(r: SqlRow, cols: Names, findings: InputFinding[], path: string, pos: SourcePos, id: string): Row | null {
  const where = `${path}: session ${pos.sessionId}, message id ${id}`;
  const role = r.role;
  if (typeof role !== 'string' || !['system', 'user', 'assistant', 'tool'].includes(role)) {
    findings.push(
      parseError(
        `${where}: unknown role ${typeof role === 'string' ? JSON.stringify(role).slice(0, 40) : typeof role === 'bigint' ? String(role) : role instanceof Uint8Array ? 'BLOB' : JSON.stringify(role)}`,
        pos,
      ),
    );
    return null;
  }
  let content: unknown = r.content;
  let sentAsStored: string | undefined;
  if (typeof content === 'string' && content.startsWith(JSON_CONTENT_PREFIX)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(content.slice(JSON_CONTENT_PREFIX.length));
    } catch {
      findings.push(parseError(`${where}: content marked \\x00json: is not valid JSON`, pos));
      parsed = content;
    }
    if (parsed !== content && !Array.isArray(parsed) && (parsed === null || typeof parsed !== 'object')) {
      // The agent encodes only lists and dicts this way; anything else is not what it sent.
      findings.push({
        severity: 'warning',
        code: 'parse-error',
        pos,
        message: `${where}: content marked \\x00json: holds ${parsed === null ? 'null' : `a ${typeof parsed}`}, not a list of parts; replayed as empty`,
      });
      parsed = null;
    }
    content = parsed;
  } else if (typeof content === 'string' && (role === 'user' || role === 'assistant')) {
    // The agent reloads history through sanitize_context(...).strip(); replay what it reloads. An
    // image turn's notes stored inside its projection (no sidecar) are what its requests sent.
    if (role === 'user' && projectedBlockStart(content) >= 0) sentAsStored = content;
    content = sanitizeMemoryContext(content);
  } else if (content !== null && content !== undefined && typeof content !== 'string') {
    // A BLOB or a number where the agent writes text: nothing says what it sent.
    const what = content instanceof Uint8Array ? `a BLOB of ${content.length} bytes` : `a ${typeof content === 'bigint' ? 'number' : typeof content}`;
    // Damage like any other: `check` fails on it.
    findings.push(parseError(`${where}: content is ${what}, not text; replayed as empty`, pos));
    content = null;
  }
  if (content !== null && typeof content === 'object' && !Array.isArray(content)) {
    findings.push({
      severity: 'warning',
      code: 'parse-error',
      pos,
      message: `${where}: content marked \\x00json: is an object, not a list of parts; replayed as empty`,
    });
    content = null;
  }
  const row: Row = { role, content: content ?? null };
  const copy = (col: string, key = col, decode: (v: unknown) => unknown = (v) => v): void => {
    const v = cols.has(col) ? r[col] : undefined;
    if (v === null || v === undefined) return;
    // Text columns only: a BLOB or an oversized integer in one would be no value the agent keeps.
    if (v instanceof Uint8Array || typeof v === 'bigint') {
      findings.push({
        severity: 'warning',
        code: 'parse-error',
        pos,
        message: `${where}: column ${col} holds ${v instanceof Uint8Array ? 'a BLOB' : 'a 64-bit integer'}; ignored`,
      });
      return;
    }
    row[key] = decode(v);
  };
  copy('api_content');
  if (sentAsStored !== undefined && row.api_content === undefined && sentAsStored.trim() !== row.content) row.api_content = sentAsStored;
  copy('tool_calls', 'tool_calls', parseJsonColumn);
  copy('tool_call_id');
  copy('tool_name');
  copy('timestamp');
  copy('display_kind');
  copy('display_metadata', 'display_metadata', parseJsonColumn);
  if (role === 'assistant') {
    copy('finish_reason');
    copy('reasoning');
    copy('reasoning_content');
    copy('reasoning_details', 'reasoning_details', parseJsonColumn);
  }
  if (cols.has('_compressed_summary') && Number(r._compressed_summary) === 1) row._compressed_summary = true;
  if (pos.rowId !== undefined) row._row_id = pos.rowId;
  if (nestsDeeperThan(row)) {
    findings.push(parseError(`${where}: nested deeper than ${MAX_NESTING} levels`, pos));
    return null;
  }
  return row;
}

/**
 * Splits a session's rows (in id order) into the running lists they were (docs/hermes-behaviour.md
 * "Generations"):
 * - a compaction in place archived the live rows and inserted the compacted set after them: a new
 *   generation starts at the set's head copies, right before its summary carrier, after archived rows;
 * - a rewind (/undo, /retry) set the undone rows inactive, neither archived nor carried: the list
 *   went on from the row before them, so the rows after them start a generation that keeps the rows
 *   before (`carried`), and the undone rows stay with the requests that sent them.
 * Inactive rows that are not archived are a compaction's carried tail when they run up to the next
 * compacted set (they were live), and undone rows otherwise.
 *
 * Undone rows lie side by side whether one rewind took back several turns (`/undo 3`) or each turn
 * was taken back on its own (an /undo, a re-ask, then /retry): only `sessions.rewind_count` tells how
 * many rewinds there were. Each rewind beyond one per run of undone rows starts a list of its own at
 * a turn inside a run, the latest turns first; without the count, every undone turn was its own
 * rewind (plain /undo and /retry take back one turn). Even the count cannot tell an ask sent after
 * the turn before it was undone from two turns undone by two /undo in a row: each such ask in a run
 * (one that does not repeat the words before it, as /retry does) gets a `rewind-order-not-recorded`.
 */
function splitGenerations(
  rows: StoredMessage[],
  rotationChild: boolean,
  rewinds: number | undefined,
  report: (f: InputFinding) => void,
): EvidencedGeneration[] {
  const starts = compactionStarts(rows, rotationChild);
  const side: CopySide = { rows: rows.map((m) => m.row), evidence: rows.map((m) => m.evidence) };
  const slices = starts.map((start, g) => {
    const slice = rows.slice(start, g + 1 < starts.length ? starts[g + 1] : rows.length);
    const live = g === starts.length - 1;
    // Whether archived rows follow each row, from the end (one pass).
    const archivedAfter = new Array<boolean>(slice.length);
    for (let k = slice.length - 1, seen = false; k >= 0; seen ||= slice[k].compacted, k--) archivedAfter[k] = seen;
    const undone = slice.map((m, k) => !m.active && (live || (!m.compacted && archivedAfter[k])));
    if (!live) {
      // The inactive rows after the archived ones are the carried tail, but an /undo just before the
      // compaction left its rows among them: those the compacted list holds no copy of.
      let t = slice.length;
      while (t > 0 && !slice[t - 1].active && !slice[t - 1].compacted) t--;
      const run = Array.from({ length: slice.length - t }, (_, i) => start + t + i);
      const next = starts[g + 1];
      for (const i of uncarriedRows(side, run, next, g + 2 < starts.length ? starts[g + 2] : rows.length)) undone[i - start] = true;
    }
    return { slice, undone };
  });
  let runs = 0;
  const inner: StoredMessage[] = [];
  // Asks inside a run that do not repeat the run's ask before them: the order is a guess there.
  const unordered: { ask: StoredMessage; before: StoredMessage }[] = [];
  for (const { slice, undone } of slices) {
    let lastAsk: StoredMessage | undefined;
    slice.forEach((m, k) => {
      if (!undone[k]) return;
      const ask = userOriginatedTurnView(m.row);
      if (k === 0 || !undone[k - 1]) {
        runs++;
        lastAsk = undefined;
      } else if (ask !== null) inner.push(m);
      if (ask === null) return;
      if (lastAsk !== undefined && !sameAsk(userOriginatedTurnView(lastAsk.row), ask)) unordered.push({ ask: m, before: lastAsk });
      lastAsk = m;
    });
  }
  const separate = rewinds === undefined ? inner.length : Math.min(inner.length, Math.max(0, rewinds - runs));
  const rewindStarts = new Set(inner.slice(inner.length - separate));
  const counted = rewinds === undefined ? 'sessions.rewind_count not recorded' : `sessions.rewind_count ${rewinds}`;
  for (const { ask, before } of unordered) {
    const after = rewindStarts.has(ask);
    report({
      severity: 'info',
      code: 'rewind-order-not-recorded',
      pos: ask.pos,
      message:
        `the asks of rows ${before.pos.rowId} and ${ask.pos.rowId} were both undone; whether row ${ask.pos.rowId} was asked `
        + `before or after row ${before.pos.rowId}'s turn was undone is not recorded (${counted}). Replayed as asked `
        + `${after ? 'after: its requests do not carry' : 'before: its requests carry'} the turn of row ${before.pos.rowId}.`,
    });
  }

  const out: EvidencedGeneration[] = [];
  slices.forEach(({ slice, undone }, g) => {
    const lists: { messages: StoredMessage[]; carried?: number }[] = [];
    const kept: StoredMessage[] = [];
    let carried: number | undefined;
    for (let k = 0; k < slice.length;) {
      if (!undone[k]) {
        kept.push(slice[k++]);
        continue;
      }
      // The lists that sent the undone rows (each later rewind's went on from the same kept rows),
      // then the one that went on without them.
      let u = k + 1;
      while (u < slice.length && undone[u] && !rewindStarts.has(slice[u])) u++;
      lists.push({ messages: [...kept, ...slice.slice(k, u)], carried });
      carried = kept.length;
      k = u;
    }
    lists.push({ messages: kept, carried });
    lists.forEach((list, i) => {
      const gen = generationOf(list.messages);
      if (list.carried !== undefined) gen.carried = list.carried;
      if (i === 0 && g > 0) {
        const prev = out[out.length - 1];
        gen.compaction = { mode: 'in-place', before: prev.rows, beforePos: prev.pos };
      }
      out.push(gen);
    });
  });
  return out.length ? out : [generationOf([])];
}

/** Whether two asks are the same words (a /retry sends the undone ask again). */
function sameAsk(a: Row | null, b: Row): boolean {
  return a !== null && JSON.stringify(a.content) === JSON.stringify(b.content);
}

type EvidencedGeneration = Generation & { evidence?: RowEvidence[] };

function generationOf(messages: StoredMessage[]): EvidencedGeneration {
  const { kept, failedAt } = withoutFailedTurnNotices(messages, (m) => m.row);
  return {
    rows: kept.map((m) => m.row),
    pos: kept.map((m) => m.pos),
    evidence: kept.map((m) => m.evidence),
    ...(failedAt.length ? { failedAt } : {}),
  };
}

/**
 * Where each compacted set inserted in place begins: the run of copies of earlier rows right
 * before a summary carrier, when archived rows precede it (a rotated child's head copies are live
 * and start no set). A pass that left no carrier (one that only pruned tool output) starts its set
 * with a copy of the list's first row right after the list's last, inactive row.
 */
function compactionStarts(rows: StoredMessage[], rotationChild: boolean): number[] {
  const side: CopySide = { rows: rows.map((m) => m.row), evidence: rows.map((m) => m.evidence) };
  const starts = [0];
  let head = new HeadCopies(side, 0);
  let skip = rotationChild;
  for (let i = 0; i < rows.length; i++) {
    if (!rows[i].carrier) continue;
    if (skip) {
      skip = false;
      continue;
    }
    const genStart = starts[starts.length - 1];
    const q = head.startBefore(i);
    if (q > genStart && !rows[q - 1].active) {
      starts.push(q);
      head = new HeadCopies(side, q);
    }
  }
  // Inside each list found so far, the passes that left no carrier.
  const out: number[] = [];
  starts.forEach((s, g) => {
    out.push(s);
    const end = g + 1 < starts.length ? starts[g + 1] : rows.length;
    for (let i = s + 1; i < end; i++) {
      if (rows[i - 1].active || !copiesRow(side, s, i)) continue;
      out.push(i);
      s = i;
    }
  });
  return out;
}
