// Hermes state.db (hermes-reference.md §3.2, §3.5), read through sql.js from an in-memory copy:
// the user's file and its WAL are never opened for writing.

import type { Database, SqlJsStatic, Statement } from 'sql.js';
import { isSummaryCarrier } from '../engine/compactionMarkers';
import { countCarriedRows } from '../engine/replay';
import { sanitizeMemoryContext } from '../engine/memoryContext';
import type { Row } from '../engine/messages';
import type { Generation, InputFinding, SourcePos, Transcript, TranscriptSession } from './model';
import { MAX_NESTING, nestsDeeperThan, parseError } from './rows';
import { applyWal } from './sqliteWal';

const SQLITE_MAGIC = 'SQLite format 3\u0000';
const JSON_CONTENT_PREFIX = '\u0000json:';

type SqlRow = Record<string, unknown>;

export function isSqliteFile(bytes: Uint8Array): boolean {
  if (bytes.length < 16) return false;
  for (let i = 0; i < 16; i++) if (bytes[i] !== SQLITE_MAGIC.charCodeAt(i)) return false;
  return true;
}

function query(db: Database, sql: string): SqlRow[] {
  const out: SqlRow[] = [];
  const stmt = db.prepare(sql);
  try {
    const next = rowReader(stmt);
    while (stmt.step()) out.push(next());
  } finally {
    stmt.free();
  }
  return out;
}

/** The current row as an object. getAsObject() re-reads and re-decodes every column name per row
 * and builds the object with Object.fromEntries; names are read once here. */
function rowReader(stmt: Statement): () => SqlRow {
  const names = stmt.getColumnNames();
  return () => {
    const values = stmt.get();
    const row: SqlRow = {};
    for (let i = 0; i < names.length; i++) row[names[i]] = values[i];
    return row;
  };
}

function columns(db: Database, table: string): Set<string> {
  return new Set(query(db, `PRAGMA table_info(${table})`).map((r) => String(r.name)));
}

export function readHermesStateDb(path: string, bytes: Uint8Array, SQL: SqlJsStatic, wal?: Uint8Array): Transcript {
  const findings: InputFinding[] = [];
  const empty = (): Transcript => ({ path, format: 'hermes-state-db', sessions: [], captured: [], findings });
  if (!isSqliteFile(bytes)) {
    findings.push(parseError(`${path}: not an SQLite database (byte 0: no "SQLite format 3" header)`, { offset: 0 }));
    return empty();
  }
  let image = bytes;
  if (wal && wal.length) {
    const applied = applyWal(bytes, wal);
    image = applied.bytes;
    for (const w of applied.warnings) findings.push({ severity: 'warning', code: 'parse-error', message: `${path}-wal: ${w}`, pos: { offset: 0 } });
  }
  let db: Database;
  try {
    db = new SQL.Database(image);
  } catch (e) {
    findings.push(parseError(`${path}: cannot open SQLite database: ${(e as Error).message}`, { offset: 0 }));
    return empty();
  }
  try {
    const tables = new Set(query(db, "SELECT name FROM sqlite_master WHERE type='table'").map((r) => String(r.name)));
    if (!tables.has('sessions') || !tables.has('messages')) {
      findings.push(parseError(`${path}: an SQLite database without the Hermes schema (no sessions/messages tables)`, { offset: 0 }));
      return empty();
    }
    const sessions = readSessions(db, tables, findings, path);
    return { path, format: 'hermes-state-db', sessions, captured: [], findings };
  } catch (e) {
    findings.push(parseError(`${path}: unreadable database: ${(e as Error).message}`, { offset: 0 }));
    return empty();
  } finally {
    db.close();
  }
}

function readSessions(db: Database, tables: Set<string>, findings: InputFinding[], path: string): TranscriptSession[] {
  const sCols = columns(db, 'sessions');
  const mCols = columns(db, 'messages');
  const prompts = new Map<string, string>();
  if (tables.has('system_prompts')) {
    for (const r of query(db, 'SELECT hash, prompt FROM system_prompts')) prompts.set(String(r.hash), String(r.prompt ?? ''));
  }
  const order = sCols.has('started_at') ? 'ORDER BY started_at, id' : 'ORDER BY id';
  const sessionRows = query(db, `SELECT * FROM sessions ${order}`);
  const byId = new Map<string, TranscriptSession>();
  const sessions: TranscriptSession[] = [];
  for (const s of sessionRows) {
    const id = String(s.id);
    if (byId.has(id)) {
      findings.push({ severity: 'warning', code: 'parse-error', pos: { sessionId: id },
        message: `${path}: session ${id} appears more than once in the sessions table; the first row is used` });
      continue;
    }
    const hash = typeof s.system_prompt_hash === 'string' ? s.system_prompt_hash : null;
    const systemPrompt = (hash !== null ? prompts.get(hash) : undefined) ?? (typeof s.system_prompt === 'string' ? s.system_prompt : null);
    const session: TranscriptSession = {
      id,
      parentId: typeof s.parent_session_id === 'string' && s.parent_session_id ? s.parent_session_id : null,
      endReason: typeof s.end_reason === 'string' ? s.end_reason : null,
      systemPrompt,
      tools: toolsFrom(s.tool_names),
      generations: [],
      pos: { sessionId: id },
    };
    byId.set(id, session);
    sessions.push(session);
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

  const rowsBySession = new Map<string, { row: Row; pos: SourcePos; active: boolean }[]>();
  // Only the columns decodeRow reads: a real store has more, some of them large.
  const wanted = ['id', 'session_id', 'role', 'content', 'active', '_compressed_summary', 'api_content', 'tool_calls', 'tool_call_id', 'tool_name',
    'timestamp', 'display_kind', 'display_metadata', 'finish_reason', 'reasoning', 'reasoning_content', 'reasoning_details'].filter((c) => mCols.has(c));
  const stmt = db.prepare(`SELECT ${wanted.map((c) => `"${c}"`).join(', ')} FROM messages ORDER BY id`);
  let previousId: number | undefined;
  try {
    const next = rowReader(stmt);
    while (stmt.step()) {
      const r = next();
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
  } finally {
    stmt.free();
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
  return ordered;
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
