// Hermes state.db (hermes-reference.md §3.2, §3.5). The logic below reads rows from a RowSource;
// at run time that source is the page reader (sqliteFile.ts) for every size of file, not sql.js:
// it reads the same rows as sql.js in the differential tests (test/transcripts/sqliteFile.test.ts:
// real SQLite and sql.js files, every page size and text encoding, overflow chains, WAL overlays,
// random tables), it needs no copy of the file (sql.js needs the whole image, and the WAL folded
// into a second one), and it can stream one session's rows out of a file too large to hold. sql.js
// stays as the tests' oracle. The user's file and its WAL are only ever read.

import { isSummaryCarrier } from '../hermes/compactionMarkers';
import { countCarriedRows } from '../hermes/copies';
import { sanitizeMemoryContext } from '../hermes/memoryContext';
import type { Row } from '../model/rows';
import type { Generation, InputFinding, SessionSummary, SourcePos, Transcript, TranscriptSession } from '../model/transcript';
import { MAX_NESTING, nestsDeeperThan, parseError } from './acceptRow';
import type { ByteSource } from '../model/byteSource';
import { SqliteFile, type SqlValue } from './sqliteFile';

const SQLITE_MAGIC = 'SQLite format 3\u0000';
const JSON_CONTENT_PREFIX = '\u0000json:';

/** What the Hermes logic needs of a database: table and column names, and each table's rows. */
export interface RowSource {
  tables(): string[];
  columns(table: string): string[];
  /** Every row in storage order; a row's values can be read only until the next row is taken. */
  rows(table: string): Iterable<StoredRow>;
}

export interface StoredRow {
  get(column: string): SqlValue;
}

export interface StateDbOptions {
  /** The bytes of `<db>-wal`: its committed frames are read over the file's pages. */
  wal?: Uint8Array;
  /** Read only this session's lineage: its parent chain and its descendants (rotation children). */
  session?: string;
  /** Read the session list only: every session without rows, and the catalogue. */
  listOnly?: boolean;
}

/** Values as sql.js returns them: 64-bit integers beyond 2^53 become (inexact) numbers. */
type Value = null | number | string | Uint8Array | undefined;
type SqlRow = Record<string, Value>;

const plain = (v: SqlValue): Value => (typeof v === 'bigint' ? Number(v) : v);

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
    file = new SqliteFile(source, { wal: options.wal });
  } catch (e) {
    findings.push(parseError(`${path}: cannot open SQLite database: ${(e as Error).message}`, { offset: 0 }));
    return { path, format: 'hermes-state-db', sessions: [], captured: [], findings };
  }
  for (const w of file.walWarnings) findings.push({ severity: 'warning', code: 'parse-error', message: `${path}-wal: ${w}`, pos: { offset: 0 } });
  for (const p of file.problems) findings.push(parseError(`${path}: ${p}`, { offset: 0 }));
  return readStateDbRows(path, file, findings, options);
}

/** The sessions of a lineage: `id`, its parent chain, and every session descending from it. */
export function lineageOf(sessions: readonly { id: string; parentId: string | null }[], id: string): Set<string> {
  const parents = new Map<string, string | null>();
  const children = new Map<string, string[]>();
  for (const s of sessions) {
    if (!parents.has(s.id)) parents.set(s.id, s.parentId);
    if (s.parentId === null) continue;
    const list = children.get(s.parentId);
    if (list) list.push(s.id); else children.set(s.parentId, [s.id]);
  }
  const out = new Set([id]);
  for (let p = parents.get(id) ?? null; p !== null && !out.has(p); p = parents.get(p) ?? null) out.add(p);
  const queue = [id];
  while (queue.length) {
    for (const child of children.get(queue.pop() as string) ?? []) {
      if (!out.has(child)) { out.add(child); queue.push(child); }
    }
  }
  return out;
}

export function readStateDbRows(path: string, db: RowSource, findings: InputFinding[], options: StateDbOptions = {}): Transcript {
  const transcript: Transcript = { path, format: 'hermes-state-db', sessions: [], captured: [], findings };
  const unreadable = (e: unknown): void => { findings.push(parseError(`${path}: unreadable database: ${(e as Error).message}`, { offset: 0 })); };
  let listed: Listed;
  let mCols: Set<string>;
  try {
    const tables = new Set(db.tables());
    if (!tables.has('sessions') || !tables.has('messages')) {
      findings.push(parseError(`${path}: an SQLite database without the Hermes schema (no sessions/messages tables)`, { offset: 0 }));
      return transcript;
    }
    listed = readSessions(db, tables, findings, path, options);
    mCols = new Set(db.columns('messages'));
  } catch (e) {
    unreadable(e);
    return transcript;
  }
  transcript.catalog = listed.catalog;
  const { sessions, byId, keep } = listed;
  const unknown = options.session !== undefined && !byId.has(options.session);
  if (options.listOnly || unknown) {
    if (!unknown) for (const s of sessions) s.generations = splitGenerations([]);
    transcript.sessions = unknown ? [] : lineageOrder(sessions, byId);
    return transcript;
  }

  const rowsBySession = new Map<string, { row: Row; pos: SourcePos; active: boolean }[]>();
  // Only the columns decodeRow reads: a real store has more, some of them large.
  const wanted = ['role', 'content', 'active', '_compressed_summary', 'api_content', 'tool_calls', 'tool_call_id', 'tool_name',
    'timestamp', 'display_kind', 'display_metadata', 'finish_reason', 'reasoning', 'reasoning_content', 'reasoning_details'].filter((c) => mCols.has(c));
  const stored: SqlRow[] = [];
  try {
    for (const m of db.rows('messages')) {
      // The session is tested before the rest is decoded: rows of other sessions cost their header only.
      const sessionId = mCols.has('session_id') ? plain(m.get('session_id')) : undefined;
      if (keep && !keep.has(String(sessionId))) continue;
      const r: SqlRow = { id: plain(m.get('id')), session_id: sessionId };
      for (const c of wanted) r[c] = plain(m.get(c));
      stored.push(r);
    }
  } catch (e) {
    // What was read before the damage is kept.
    unreadable(e);
  }
  // The agent reads by id (ORDER BY id); a stable sort keeps storage order among equal ids.
  stored.sort((a, b) => compareSql(a.id, b.id));

  let previousId: number | undefined;
  for (const r of stored) {
    const sessionId = String(r.session_id);
    const rowId = Number(r.id);
    const pos: SourcePos = Number.isSafeInteger(rowId) && r.id !== null ? { sessionId, rowId } : { sessionId };
    if (pos.rowId === undefined) {
      findings.push({ severity: 'warning', code: 'parse-error', pos, message: `${path}: session ${sessionId}: a message whose id ${JSON.stringify(r.id)} is not an integer; rows are read in id order` });
    } else if (pos.rowId === previousId) {
      findings.push({ severity: 'warning', code: 'parse-error', pos, message: `${path}: session ${sessionId}, message id ${rowId} appears more than once; the order of those rows is undefined` });
    }
    previousId = pos.rowId;
    const row = decodeRow(r, mCols, findings, path, pos);
    if (!row) continue;
    const active = !mCols.has('active') || r.active === null || Number(r.active) === 1;
    let list = rowsBySession.get(sessionId);
    if (!list) { list = []; rowsBySession.set(sessionId, list); }
    list.push({ row, pos, active });
  }

  for (const [sessionId, list] of rowsBySession) {
    if (byId.has(sessionId)) continue;
    // Rows of a session the sessions table does not know: shown as a session of their own.
    findings.push({ severity: 'warning', code: 'parse-error', pos: list[0].pos,
      message: `${path}: ${list.length} message(s) of session ${sessionId}, which is not in the sessions table` });
    const orphan: TranscriptSession = { id: sessionId, parentId: null, endReason: null, systemPrompt: null, generations: [], pos: { sessionId } };
    byId.set(sessionId, orphan);
    sessions.push(orphan);
  }
  for (const session of sessions) session.generations = splitGenerations(rowsBySession.get(session.id) ?? []);
  const ordered = lineageOrder(sessions, byId);
  for (const session of ordered) {
    const parent = session.parentId ? byId.get(session.parentId) : undefined;
    const first = session.generations[0];
    if (!parent || !first || first.compaction) continue;
    const last = parent.generations[parent.generations.length - 1];
    if (parent.endReason === 'compression') {
      first.compaction = { mode: 'rotation', before: last?.rows ?? [], beforePos: last?.pos ?? [] };
    } else {
      // A branch, delegate or reset child starts from a copy of its parent's rows: those turns
      // happened in the parent and are not counted again.
      first.carried = countCarriedRows(first.rows, last?.rows ?? []);
    }
  }
  transcript.sessions = ordered;
  return transcript;
}

interface Listed {
  /** The sessions to read rows for (every one without a session filter); the first row of a duplicated id. */
  sessions: TranscriptSession[];
  byId: Map<string, TranscriptSession>;
  catalog: SessionSummary[];
  /** The session ids whose messages are kept; null for all. */
  keep: Set<string> | null;
}

/** NULL, then numbers, then text, then blobs (SQLite's order; text by UTF-16 unit, which differs from bytes only beyond U+FFFF). */
function compareSql(a: Value, b: Value): number {
  const rank = (v: Value): number => (v === null || v === undefined ? 0 : typeof v === 'number' ? 1 : typeof v === 'string' ? 2 : 3);
  const d = rank(a) - rank(b);
  if (d !== 0) return d;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
    return a.length - b.length;
  }
  return 0;
}

function readSessions(db: RowSource, tables: Set<string>, findings: InputFinding[], path: string, options: StateDbOptions): Listed {
  const sCols = new Set(db.columns('sessions'));
  const col = (r: StoredRow, name: string): Value => (sCols.has(name) ? plain(r.get(name)) : undefined);
  const str = (v: Value): string | null => (typeof v === 'string' ? v : null);
  // First pass: the small columns of every session; prompts and tools are read below for the kept ones only.
  const light: { ordinal: number; id: Value; startedAt: Value; parent: Value; endReason: Value; hash: Value; messageCount: Value; title: Value }[] = [];
  let ordinal = 0;
  for (const r of db.rows('sessions')) {
    light.push({ ordinal: ordinal++, id: plain(r.get('id')), startedAt: col(r, 'started_at'), parent: col(r, 'parent_session_id'), endReason: col(r, 'end_reason'),
      hash: col(r, 'system_prompt_hash'), messageCount: col(r, 'message_count'), title: col(r, 'title') });
  }
  // ORDER BY started_at, id (or id), as the agent lists them; stable for equal keys.
  light.sort((a, b) => (sCols.has('started_at') ? compareSql(a.startedAt, b.startedAt) : 0) || compareSql(a.id, b.id));

  const byId = new Map<string, TranscriptSession>();
  const sessions: TranscriptSession[] = [];
  const ordinals = new Map<TranscriptSession, number>();
  const hashes = new Map<TranscriptSession, string | null>();
  const catalog: SessionSummary[] = [];
  for (const s of light) {
    const id = String(s.id);
    if (byId.has(id)) {
      findings.push({ severity: 'warning', code: 'parse-error', pos: { sessionId: id },
        message: `${path}: session ${id} appears more than once in the sessions table; the first row is used` });
      continue;
    }
    const session: TranscriptSession = {
      id,
      parentId: typeof s.parent === 'string' && s.parent ? s.parent : null,
      endReason: str(s.endReason),
      systemPrompt: null,
      generations: [],
      pos: { sessionId: id },
    };
    byId.set(id, session);
    sessions.push(session);
    ordinals.set(session, s.ordinal);
    hashes.set(session, str(s.hash));
  }
  // A session that is its own ancestor has no parent to carry rows over from.
  for (const session of sessions) {
    const seen = new Set<string>([session.id]);
    for (let p = session.parentId; p !== null; p = byId.get(p)?.parentId ?? null) {
      if (seen.has(p)) {
        findings.push({ severity: 'warning', code: 'parse-error', pos: { sessionId: session.id },
          message: `${path}: session ${session.id}'s parent_session_id chain loops back (${[...seen, p].join(' -> ')}); it is read without a parent` });
        session.parentId = null;
        break;
      }
      seen.add(p);
    }
  }
  for (const s of light) {
    const session = byId.get(String(s.id));
    if (!session || ordinals.get(session) !== s.ordinal) continue;
    catalog.push({ id: session.id, parentId: session.parentId, startedAt: typeof s.startedAt === 'number' ? s.startedAt : null, endReason: session.endReason,
      messageCount: typeof s.messageCount === 'number' ? s.messageCount : null, title: str(s.title) });
  }

  const keep = options.session !== undefined && byId.has(options.session) ? lineageOf(sessions, options.session) : null;
  const kept = keep ? sessions.filter((s) => keep.has(s.id)) : sessions;
  const prompts = new Map<string, string>();
  const needed = new Set(kept.map((s) => hashes.get(s)).filter((h): h is string => h !== null));
  if (tables.has('system_prompts') && needed.size) {
    for (const r of db.rows('system_prompts')) {
      const hash = String(plain(r.get('hash')));
      if (needed.has(hash)) prompts.set(hash, String(plain(r.get('prompt') ?? '')));
    }
  }
  // Second pass: the prompt stored inline (when its hash finds none) and the tools, of kept sessions only.
  const byOrdinal = new Map(kept.map((s) => [ordinals.get(s) as number, s]));
  let at = 0;
  for (const r of db.rows('sessions')) {
    const session = byOrdinal.get(at++);
    if (!session) continue;
    const hash = hashes.get(session) ?? null;
    session.systemPrompt = (hash !== null ? prompts.get(hash) : undefined) ?? str(col(r, 'system_prompt'));
    const tools = toolsFrom(col(r, 'tool_names'));
    if (tools) session.tools = tools;
  }
  return { sessions: kept, byId: keep ? new Map(kept.map((s) => [s.id, s])) : byId, catalog, keep };
}

function toolsFrom(value: unknown): unknown[] | undefined {
  if (typeof value !== 'string' || !value) return undefined;
  try {
    const parsed = JSON.parse(value);
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function parseJsonColumn(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try { return JSON.parse(value); } catch { return value; }
}

function decodeRow(r: SqlRow, cols: Set<string>, findings: InputFinding[], path: string, pos: SourcePos): Row | null {
  const role = r.role;
  if (typeof role !== 'string' || !['system', 'user', 'assistant', 'tool'].includes(role)) {
    findings.push(parseError(`${path}: session ${pos.sessionId}, message id ${pos.rowId}: unknown role ${JSON.stringify(role)}`, pos));
    return null;
  }
  let content: unknown = r.content;
  if (typeof content === 'string' && content.startsWith(JSON_CONTENT_PREFIX)) {
    try {
      content = JSON.parse(content.slice(JSON_CONTENT_PREFIX.length));
    } catch {
      findings.push(parseError(`${path}: session ${pos.sessionId}, message id ${pos.rowId}: content marked \\x00json: is not valid JSON`, pos));
    }
  } else if (typeof content === 'string' && (role === 'user' || role === 'assistant')) {
    // The agent reloads history through sanitize_context(...).strip(); replay what it reloads.
    content = sanitizeMemoryContext(content);
  }
  const row: Row = { role, content: content ?? null };
  const copy = (col: string, key = col, decode: (v: unknown) => unknown = (v) => v): void => {
    if (cols.has(col) && r[col] !== null && r[col] !== undefined) row[key] = decode(r[col]);
  };
  copy('api_content');
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
  row._row_id = pos.rowId;
  if (nestsDeeperThan(row)) {
    findings.push(parseError(`${path}: session ${pos.sessionId}, message id ${pos.rowId}: nested deeper than ${MAX_NESTING} levels`, pos));
    return null;
  }
  return row;
}

function copyKey(row: Row): string {
  return JSON.stringify([row.role, row.content ?? null, row.timestamp ?? null, row.tool_call_id ?? null]);
}

/**
 * Splits a session's rows (in id order) where an in-place compaction inserted its compacted set:
 * the run of copies of earlier rows just before a summary carrier, following archived rows.
 * Earlier generations keep every row; the live generation keeps active rows only (inactive ones
 * there were rewound).
 */
function splitGenerations(rows: { row: Row; pos: SourcePos; active: boolean }[]): Generation[] {
  const boundaries: number[] = [];
  const firstIndex = new Map<string, number>();
  // Keys are built only when a summary carrier needs them: most sessions have none.
  let indexed = 0;
  const indexUpTo = (n: number): void => {
    for (; indexed < n; indexed++) {
      const key = copyKey(rows[indexed].row);
      if (!firstIndex.has(key)) firstIndex.set(key, indexed);
    }
  };
  let genStart = 0;
  for (let i = 0; i < rows.length; i++) {
    if (isSummaryCarrier(rows[i].row)) {
      indexUpTo(i);
      let q = i;
      while (q > genStart && (firstIndex.get(copyKey(rows[q - 1].row)) ?? q - 1) < q - 1) q--;
      // Only archived rows can precede an in-place compacted set; a rotated child's head is live.
      if (q > genStart && !rows[q - 1].active) { boundaries.push(q); genStart = q; }
    }
  }
  const generations: Generation[] = [];
  const starts = [0, ...boundaries];
  starts.forEach((start, g) => {
    const end = g + 1 < starts.length ? starts[g + 1] : rows.length;
    const last = g === starts.length - 1;
    const slice = rows.slice(start, end).filter((r) => !last || r.active);
    const gen: Generation = { rows: slice.map((r) => r.row), pos: slice.map((r) => r.pos) };
    if (g > 0) {
      const prev = generations[g - 1];
      gen.compaction = { mode: 'in-place', before: prev.rows, beforePos: prev.pos };
    }
    generations.push(gen);
  });
  return generations.length ? generations : [{ rows: [], pos: [] }];
}

/** Parents before children, otherwise in start order. */
function lineageOrder(sessions: TranscriptSession[], byId: Map<string, TranscriptSession>): TranscriptSession[] {
  const out: TranscriptSession[] = [];
  const placed = new Set<string>();
  const place = (s: TranscriptSession, depth: number): void => {
    if (placed.has(s.id)) return;
    const parent = s.parentId ? byId.get(s.parentId) : undefined;
    if (parent && depth < 1000) place(parent, depth + 1);
    if (!placed.has(s.id)) { placed.add(s.id); out.push(s); }
  };
  for (const s of sessions) place(s, 0);
  return out;
}
