// The sessions table of a state.db (and session_model_usage): each session's recorded fields and
// counters, the catalogue, and which sessions' rows a read keeps.

import { forkKindOf, Lineages } from '../hermes/lineage';
import type { ForkKind, InputFinding, RecordedCounters, RecordedUsage, SessionSummary, TranscriptSession } from '../shared/model/transcript';
import { Names, plain, sessionKey, type RowSource, type StoredRow, type Value } from './stateDbValues';
import { parseJsonColumn } from './stateDbRow';
import { isPaged, scanKeeping, type KeptPages } from './pagedRows';

/** Which sessions a read is about: one lineage (`session`), some families (`families`), or all. */
export interface SessionChoice {
  /** Read only this session's lineage: its parent chain and its descendants (rotation children). */
  session?: string;
  /** Read only these sessions' families: each with its parent chain and every session descending from it (an overview row's whole tree, for a top-level one). */
  families?: readonly string[];
  /** Read the session list only: every session without rows or system prompt, and the catalogue. */
  listOnly?: boolean;
}

/**
 * What one read of the sessions table (and of session_model_usage) found for every session, kept by
 * a caller that reads families of the same file again and again (a listing being filled in): a
 * read given it as `earlier` takes it instead of reading both tables, which on a home of 10,000
 * sessions cost more than the families' own rows.
 */
export interface SessionTable {
  /** Every row, in the agent's order, with its counters. */
  rows: SessionRow[];
  /** Each session's session_model_usage rows, by session_id as text; null without the table. */
  usage: Map<string, RecordedUsage[]> | null;
  /** The sessions, catalogue and lineages built from `rows`; absent: built from them. */
  built?: BuiltSessions;
}

/** What `rows` make: each session as the table has it (a read takes copies), the catalogue, the findings about the table, the lineages for choosing families. */
interface BuiltSessions {
  sessions: TranscriptSession[];
  rowOf: Map<TranscriptSession, SessionRow>;
  byId: Map<string, TranscriptSession>;
  catalog: SessionSummary[];
  findings: InputFinding[];
  lineages: Lineages<TranscriptSession>;
}

/** Where a read may take the session table from, and keeps what it read. */
export interface SessionTableMemory {
  earlier?: SessionTable;
  kept?: SessionTable;
}

/**
 * What a read that remembers keeps of the sessions table and of session_model_usage, by leaf page
 * (pagedRows.ts), and takes from the read before it: upstream's agent adds each call's tokens to its
 * session's row and usage rows as it goes (a writer thread that merges adjacent calls'
 * and flushes at a turn's end), one page of each table a write.
 */
export interface SessionPagesMemory {
  earlier?: SessionPages;
  kept?: SessionPages;
}

interface SessionPages {
  sessions: KeptPages<SessionRow>;
  usage?: KeptPages<UsageRow>;
}

/** A session_model_usage row: its session, and what it recorded (null: no row upstream writes, skipped). */
interface UsageRow {
  session: string;
  usage: RecordedUsage | null;
}

/** One sessions row's small columns (the prompt, the one large column, is read apart, but by a read that keeps the table by page). */
interface SessionRow {
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
  /** Read with the rest for a read that keeps the table, else in a second pass for the kept sessions only. */
  counters?: Counters;
  /** The prompt stored in the row (null: none), read with the rest by a read that keeps the table by page. */
  prompt?: string | null;
}

interface Counters {
  recorded: RecordedCounters;
  rewinds: number | undefined;
}

export interface Listed {
  /** The sessions to read rows for (every one without a session filter); the first row of a duplicated id. */
  sessions: TranscriptSession[];
  byId: Map<string, TranscriptSession>;
  catalog: SessionSummary[];
  /** The session ids whose messages are kept; null for all. */
  keep: Set<string> | null;
}

const sqlRank = (v: Value): number => (v === null || v === undefined ? 0 : typeof v === 'number' || typeof v === 'bigint' ? 1 : typeof v === 'string' ? 2 : 3);

/** NULL, then numbers, then text, then blobs (SQLite's order; text by UTF-16 unit, which differs from bytes only beyond U+FFFF). */
export function compareSql(a: Value, b: Value): number {
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
  estimatedCostUsd: 'estimated_cost_usd',
};

export function readSessions(
  db: RowSource,
  tables: Names,
  findings: InputFinding[],
  path: string,
  options: SessionChoice & { table?: SessionTableMemory; pages?: SessionPagesMemory },
): Listed {
  const sessionsTable = tables.of('sessions');
  const sCols = new Names(db.columns(sessionsTable));
  const col = (r: StoredRow, name: string): Value => (sCols.has(name) ? plain(r.get(sCols.of(name))) : undefined);
  const countersOf = (r: StoredRow): Counters => {
    const recorded: RecordedCounters = {};
    for (const [key, column] of Object.entries(COUNTERS) as [Exclude<keyof RecordedCounters, 'usage'>, string][]) {
      const v = col(r, column);
      if (typeof v === 'number' && Number.isFinite(v)) recorded[key] = v;
    }
    const rewinds = col(r, 'rewind_count');
    return { recorded, rewinds: typeof rewinds === 'number' && Number.isInteger(rewinds) && rewinds >= 0 ? rewinds : undefined };
  };
  const memory = options.table;
  // Every session read whole, again and again as the file grows: the table is kept by page, each row read once.
  const pages = !memory && options.pages && options.session === undefined && !options.families && !options.listOnly && isPaged(db) ? db : null;
  const lightOf = (r: StoredRow, ordinal: number, whole: boolean): SessionRow => ({
    ordinal,
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
    // The fork marker is read for every session: one listed but not loaded still groups as its lineage.
    fork: forkKindOf(parseJsonColumn(col(r, 'model_config'))),
    ...(memory || whole ? { counters: countersOf(r) } : {}),
    ...(whole ? { prompt: str(col(r, 'system_prompt')) } : {}),
  });
  let light = memory?.earlier?.rows;
  if (!light) {
    light = [];
    if (pages && options.pages) {
      const signature = [pages.table(sessionsTable)?.rootPage, ...db.columns(sessionsTable)].join(' ');
      // Each row whole, in one pass: no second pass reads them by ordinal, so a row kept keeps the one it was read with.
      const scanned = scanKeeping(pages, sessionsTable, signature, options.pages.earlier?.sessions, light, (r) => lightOf(r, 0, true));
      options.pages.kept = scanned ? { sessions: scanned.kept } : undefined;
    } else {
      // First pass: the small columns of every session; prompts are read below for the kept ones only.
      let ordinal = 0;
      for (const r of db.rows(sessionsTable)) light.push(lightOf(r, ordinal++, false));
    }
    // ORDER BY started_at, id (or id), as the agent lists them; stable for equal keys.
    light.sort((a, b) => (sCols.has('started_at') ? compareSql(a.startedAt, b.startedAt) : 0) || compareSql(a.id, b.id));
  }

  const base = memory?.earlier?.built ?? buildSessions(light, path);
  findings.push(...base.findings.map((f) => ({ ...f })));
  const keep =
    options.session !== undefined && base.byId.has(options.session)
      ? base.lineages.around(options.session)
      : options.families
        ? familiesAround(base.lineages, options.families)
        : null;
  // Each read gets sessions of its own, to fill with rows and prompts: the built ones serve the next read.
  const rowOf = new Map<TranscriptSession, SessionRow>();
  const kept = (keep ? base.sessions.filter((s) => keep.has(s.id)) : base.sessions).map((built) => {
    const session = { ...built, generations: [], pos: { ...built.pos } };
    rowOf.set(session, base.rowOf.get(built) as SessionRow);
    return session;
  });
  const prompts = new Map<string, string>();
  // A listing replays nothing: its sessions' prompts (a table, or a large column of each row) stay unread.
  const hashOf = (session: TranscriptSession): string | null => str(rowOf.get(session)?.hash);
  const needed = new Set(options.listOnly ? [] : kept.map(hashOf).filter((h): h is string => h !== null));
  if (tables.has('system_prompts') && needed.size) {
    const pCols = new Names(db.columns(tables.of('system_prompts')));
    for (const r of db.rows(tables.of('system_prompts'))) {
      const hash = String(plain(r.get(pCols.of('hash'))));
      if (needed.has(hash)) prompts.set(hash, String(plain(r.get(pCols.of('prompt'))) ?? ''));
    }
  }
  const apply = (session: TranscriptSession, c: Counters): void => {
    // A copy: the usage rows are added to it below, and a kept table serves later reads.
    if (Object.keys(c.recorded).length) session.recorded = { ...c.recorded };
    if (c.rewinds !== undefined) session.rewinds = c.rewinds;
  };
  const unread: TranscriptSession[] = [];
  for (const session of kept) {
    const { counters, prompt } = rowOf.get(session) as SessionRow;
    if (counters) apply(session, counters);
    if (!options.listOnly) {
      const hash = hashOf(session);
      session.systemPrompt = (hash !== null ? prompts.get(hash) : undefined) ?? prompt ?? null;
    }
    if (!counters || (session.systemPrompt === null && prompt === undefined && !options.listOnly && sCols.has('system_prompt'))) unread.push(session);
  }
  // Second pass, of kept sessions only, for what the first did not read: the prompt stored inline
  // (when its hash finds none) and the counters. `tool_names` holds names (or a hash), not the
  // definitions sent, so it says nothing about the tools' bytes and is not read as tools.
  if (unread.length) {
    const byOrdinal = new Map(unread.map((session) => [(rowOf.get(session) as SessionRow).ordinal, session]));
    let at = 0;
    for (const r of db.rows(sessionsTable)) {
      const session = byOrdinal.get(at++);
      if (!session) continue;
      if (!options.listOnly && session.systemPrompt === null) session.systemPrompt = str(col(r, 'system_prompt'));
      if (!rowOf.get(session)?.counters) apply(session, countersOf(r));
    }
  }
  if (tables.has('session_model_usage')) {
    const usagePages = pages && options.pages?.kept ? { earlier: options.pages.earlier?.usage, kept: options.pages.kept } : undefined;
    const usage = memory?.earlier
      ? memory.earlier.usage
      : readModelUsage(db, tables.of('session_model_usage'), memory || usagePages ? null : new Set(kept.map((k) => k.id)), usagePages);
    // The table exists: a session without rows in it recorded no such calls ([]), which is not "not recorded".
    if (usage) for (const session of kept) (session.recorded ??= {}).usage = [...(usage.get(session.id) ?? [])];
    if (memory) memory.kept = { rows: light, usage, built: base };
  } else if (memory) memory.kept = { rows: light, usage: null, built: base };
  return { sessions: kept, byId: new Map(kept.map((s) => [s.id, s])), catalog: [...base.catalog], keep };
}

/** The sessions of the table's rows (the first of a duplicated id), parents that loop cut, the catalogue. */
function buildSessions(light: readonly SessionRow[], path: string): BuiltSessions {
  const findings: InputFinding[] = [];
  const byId = new Map<string, TranscriptSession>();
  const sessions: TranscriptSession[] = [];
  const rowOf = new Map<TranscriptSession, SessionRow>();
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
    rowOf.set(session, s);
  }
  // A session that is its own ancestor has no parent to carry rows over from.
  const cycles = new Lineages(sessions).cycles();
  for (const cycle of cycles) {
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
    if (!session || rowOf.get(session) !== s) continue;
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
  return { sessions, rowOf, byId, catalog, findings, lineages: new Lineages(sessions) };
}

/** The sessions of every family named (one not in the store names none). */
function familiesAround(lineages: Lineages<TranscriptSession>, ids: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const id of ids) if (lineages.get(id)) for (const s of lineages.around(id)) out.add(s);
  return out;
}

/** A TEXT column's value; anything else (NULL, a number, a blob) is not recorded. */
function str(v: Value): string | null {
  return typeof v === 'string' ? v : null;
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
 * The `session_model_usage` rows, by session_id as text (of the sessions `only` names, or all), in
 * storage order (rowid); null when the table lacks those columns. A row without a text session id
 * or model is no row upstream writes and is skipped; a count that is not a number reads as 0, as
 * upstream's upserts start it.
 */
function readModelUsage(
  db: RowSource,
  table: string,
  only: ReadonlySet<string> | null,
  pages?: { earlier?: KeptPages<UsageRow>; kept: SessionPages },
): Map<string, RecordedUsage[]> | null {
  const cols = new Names(db.columns(table));
  if (!cols.has('session_id') || !cols.has('model')) return null;
  const get = (r: StoredRow, name: string): Value => (cols.has(name) ? plain(r.get(cols.of(name))) : undefined);
  const text = (v: Value): string => (typeof v === 'string' ? v : '');
  const usageOf = (r: StoredRow): UsageRow => {
    const session = String(get(r, 'session_id'));
    const model = get(r, 'model');
    if ((only && !only.has(session)) || typeof model !== 'string') return { session, usage: null };
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
    return { session, usage: row };
  };
  const read: UsageRow[] = [];
  if (pages && isPaged(db)) {
    const signature = [db.table(table)?.rootPage, ...db.columns(table)].join(' ');
    pages.kept.usage = scanKeeping(db, table, signature, pages.earlier, read, usageOf)?.kept;
  } else for (const r of db.rows(table)) read.push(usageOf(r));
  const bySession = new Map<string, RecordedUsage[]>();
  for (const { session, usage } of read) {
    if (!usage) continue;
    const rows = bySession.get(session);
    if (rows) rows.push(usage);
    else bySession.set(session, [usage]);
  }
  return bySession;
}
