// Hermes state.db (docs/hermes-behaviour.md §3.2, §3.5). The logic below reads rows from a RowSource;
// at run time that source is the page reader (sqliteFile.ts) for every size of file, not sql.js:
// it reads the same rows as sql.js in the differential tests (test/transcripts/sqliteFile.slow.test.ts:
// real SQLite and sql.js files, every page size and text encoding, overflow chains, WAL overlays,
// random tables), it needs no copy of the file (sql.js needs the whole image, and the WAL folded
// into a second one), and it can stream one session's rows out of a file too large to hold. sql.js
// stays as the tests' oracle. The user's file and its WAL are only ever read.

import { isSummaryCarrier } from '../hermes/compactionMarkers';
import type { Row } from '../shared/model/rows';
import { carriedPrefix, matchCopies, type CopySide } from '../hermes/copies';
import { Lineages } from '../hermes/lineage';
import type { CopyMatch, Generation, InputFinding, SourcePos, Transcript, TranscriptSession } from '../shared/model/transcript';
import { parseError } from './acceptRow';
import type { ByteSource } from './byteSource';
import { SqliteFile, SqliteFormatError } from './sqliteFile';
import { isPaged, scanKeeping, type KeptPages } from './pagedRows';
import { idText, Names, plain, sessionKey, type RowSource, type SqlRow, type StoredRow, type Value } from './stateDbValues';
import { compareSql, readSessions, type Listed, type SessionChoice, type SessionPagesMemory, type SessionTableMemory } from './stateDbSessions';
import { decodeRow } from './stateDbRow';
import { splitGenerations, type EvidencedGeneration, type StoredMessage } from './stateDbGenerations';

const SQLITE_MAGIC = 'SQLite format 3\u0000';

/**
 * What a read of a store keeps for the next read of it: the messages table's rows, by the leaf page
 * they were read from, with the overflow pages read for them, and what each row decoded to. Only a
 * store in WAL mode keeps any: its WAL says which pages later commits wrote; every other page reads
 * as it did.
 */
export interface StoreMemory extends KeptPages<SqlRow> {
  /** `signature`: the messages table's root page and the columns read; a read reading others reuses nothing. */
  decoded: WeakMap<SqlRow, DecodedRow>;
  /** What the read made of each session's rows (set once they are split): the next read's, where its rows are the same. */
  sessions?: SessionsMemory;
  /** The sessions table's rows by leaf page, as readSessions keeps them. */
  sessionTable?: SessionPagesMemory['kept'];
}

/**
 * Each session's rows as split into lists, and each child's first list matched against its
 * parent's last: a large home read again after a turn was appended splits and matches only the
 * session that turn went to (the rest cost a 2,000-session home's refresh ~170 ms). Reused by the
 * identity of the decoded rows, which the next read shares while the WAL goes on.
 */
interface SessionsMemory {
  splits: Map<string, SessionSplit>;
  copies: Map<string, MatchedCopies>;
}

/** A session's rows, what was split of them with, the lists they split into (never handed out: each read takes copies) and what the split found. */
interface SessionSplit {
  messages: readonly StoredMessage[];
  rotationChild: boolean;
  rewinds: number | undefined;
  generations: readonly EvidencedGeneration[];
  findings: readonly InputFinding[];
}

/** The two lists matched (their rows and evidence, compared item by item) and the match. */
interface MatchedCopies {
  before: CopySide;
  after: CopySide;
  match: CopyMatch;
}

/** What a stored row decodes to (null: it cannot be replayed), where it is, and what was found in it. */
interface DecodedRow {
  sessionId: string;
  pos: SourcePos;
  message: StoredMessage | null;
  findings: InputFinding[];
}

export interface StateDbOptions extends SessionChoice {
  /** The bytes of `<db>-wal`: its committed frames are read over the file's pages. */
  wal?: Uint8Array;
  /** The bytes of `<db>-journal`: a hot journal is rolled back in memory before anything is read. */
  journal?: Uint8Array;
  /**
   * A read that reuses what an earlier read of the file kept (`earlier`), where nothing wrote it
   * since, and keeps what it read (`kept`, set by the read). Only a whole read of a file's pages.
   */
  reuse?: { earlier?: StoreMemory; kept?: StoreMemory };
  /** The session table as an earlier read of the same file found it, and where this read keeps it (SessionTable). */
  table?: SessionTableMemory;
}

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
      severity: 'info',
      code: 'journal-rolled-back',
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

export function readStateDbRows(path: string, db: RowSource, findings: InputFinding[], options: StateDbOptions = {}): Transcript {
  const transcript: Transcript = { path, format: 'hermes-state-db', sessions: [], captured: [], findings };
  const sessionPages: SessionPagesMemory | undefined = options.reuse && { earlier: options.reuse.earlier?.sessionTable };
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
    } else listed = readSessions(db, tables, findings, path, { ...options, pages: sessionPages });
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
      const earlier = options.reuse.earlier;
      const scanned = scanKeeping(paged, messages, signature, earlier, stored, (m) => intact(() => sqlRow(m, sessionOf(m))), damaged);
      // Rows read before decode as they did then (the same SqlRow objects, while pages are reused).
      decoded = scanned ? (scanned.reused && earlier?.decoded) || new WeakMap() : undefined;
      options.reuse.kept = scanned && decoded ? { ...scanned.kept, decoded, sessionTable: sessionPages?.kept } : undefined;
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
  const earlier = options.reuse?.earlier?.sessions;
  const memory: SessionsMemory | undefined = options.reuse?.kept && { splits: new Map(), copies: new Map() };
  for (const session of sessions) {
    // A rotation child's list opens with head copies of its parent and the rotation's carrier, which starts no set of its own.
    const split = splitOf(session, bySession.get(session.id) ?? [], lineages.continued(session) !== undefined, earlier, path);
    memory?.splits.set(session.id, split);
    for (const f of split.findings) findings.push(f);
    const generations = listsOf(split.generations);
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
    const copies = copiesOf(session.id, old, evidence.get(first) ?? { rows: first.rows }, earlier, memory);
    if (lineages.continued(session)) {
      first.compaction = { mode: 'rotation', before: last?.rows ?? [], beforePos: last?.pos ?? [], copies };
    } else {
      // A branch, delegate or reset child starts from a copy of its parent's rows: those turns
      // happened in the parent and are not counted again.
      first.carried = carriedPrefix(first.rows, copies.source);
    }
  }
  for (const gen of evidence.keys()) delete (gen as EvidencedGeneration).evidence;
  if (memory && options.reuse?.kept) options.reuse.kept.sessions = memory;
  transcript.sessions = ordered;
  return transcript;
}

/** The session's rows split into lists: as the earlier read split them when its rows and what the split depends on are the same. */
function splitOf(
  session: TranscriptSession,
  messages: StoredMessage[],
  rotationChild: boolean,
  earlier: SessionsMemory | undefined,
  path: string,
): SessionSplit {
  const known = earlier?.splits.get(session.id);
  if (known && known.rotationChild === rotationChild && known.rewinds === session.rewinds && sameItems(known.messages, messages)) return known;
  const found: InputFinding[] = [];
  const generations = splitGenerations(messages, rotationChild, session.rewinds, (f) =>
    found.push({ ...f, message: `${path}: session ${session.id}: ${f.message}` }),
  );
  return { messages, rotationChild, rewinds: session.rewinds, generations, findings: found };
}

/**
 * Copies of a split's lists for one transcript: the replay and a later graft change a transcript's
 * lists and rows arrays, never the memory's. An in-place compaction's `before` is the copy of the
 * list before it, as the split made it (the replay knows a list by its rows array).
 */
function listsOf(generations: readonly EvidencedGeneration[]): EvidencedGeneration[] {
  const copied = new Map<Row[], Row[]>();
  return generations.map((g) => {
    const copy: EvidencedGeneration = { ...g, rows: [...g.rows] };
    copied.set(g.rows, copy.rows);
    const before = g.compaction && copied.get(g.compaction.before);
    if (g.compaction && before) copy.compaction = { ...g.compaction, before };
    return copy;
  });
}

/** `matchCopies(before, after)`: the earlier read's match of the session's lists when both hold the same rows and evidence. */
function copiesOf(id: string, before: CopySide, after: CopySide, earlier: SessionsMemory | undefined, memory: SessionsMemory | undefined): CopyMatch {
  const known = earlier?.copies.get(id);
  const same = (a: CopySide, b: CopySide): boolean => sameItems(a.rows, b.rows) && sameItems(a.evidence ?? [], b.evidence ?? []);
  const matched =
    known && same(known.before, before) && same(known.after, after)
      ? known
      : { before: frozen(before), after: frozen(after), match: matchCopies(before, after) };
  memory?.copies.set(id, matched);
  return matched.match;
}

/** A side as it is now: its arrays copied (a transcript's rows arrays grow later). */
function frozen(side: CopySide): CopySide {
  return { rows: [...side.rows], evidence: side.evidence && [...side.evidence] };
}

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
