// The session overview (issue 10): one row per lineage of a transcript, so a file of hundreds of
// sessions says which is which before any of them is opened. A compaction chain is one row listing
// its sessions; a branch, delegate or reset child hangs under the row of the session it came from.
// Pure and plain data (no I/O, no vscode), so the CLI, the extension and the report can share it.
//
// Every value comes from the store or from the replay. What the store does not record, or what was
// not read (a file listed, not loaded; a session outside `--session`'s lineage), is null, never a
// guess: the CLI prints "not recorded" / "not read".

import { continuesParent, Lineages, type LineageNode } from '../hermes/lineage';
import type { ForkKind, RecordedCounters, Transcript, TranscriptSession } from '../model/transcript';
import type { Report } from './reportTypes';

/** The replay's figures for one session or one lineage; null when its rows were not read. */
export interface OverviewFigures {
  turns: number | null;
  requests: number | null;
  /** Compactions before a turn or inside one (rotation and in place). */
  compactions: number | null;
  /** Requests that do not extend the previous one for a reason other than a compaction (the status bar's "cache breaks"). */
  cacheBreaks: number | null;
  /** Tokens sent: the sum of the requests' inputTokens. */
  inputTokens: number | null;
  /** Of those, tokens a prefix cache could have served: the sum of prefix.reusedTokens. */
  reusedTokens: number | null;
  /** Findings of severity error and warning placed in it (by session, request or turn). */
  errors: number | null;
  warnings: number | null;
}

/** The agent's own counters (sessions columns, docs/hermes-behaviour.md §5.7); each null where not recorded. */
export interface OverviewRecorded {
  apiCalls: number | null;
  messages: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cacheReadTokens: number | null;
  cacheWriteTokens: number | null;
}

export interface OverviewSession extends OverviewFigures {
  id: string;
  parentId: string | null;
  title: string | null;
  /** sessions.started_at, epoch seconds as stored. */
  startedAt: number | null;
  /** The latest timestamp of a stored row of the session, epoch seconds. */
  lastRowAt: number | null;
  /** sessions.ended_at, epoch seconds; null: not recorded (still open, or not in the schema). */
  endedAt: number | null;
  /**
   * From its start to its ended_at when recorded, else to its latest stored row; 0 when neither is
   * later than the start (a fork's copies keep their parent's times).
   */
  durationSeconds: number | null;
  /** sessions.source (a snapshot's platform); null: not recorded. */
  source: string | null;
  /** sessions.model (a snapshot's model); null: not recorded. */
  model: string | null;
  /** The distinct models of its main-loop usage rows (session_model_usage, task ''), in storage order; [] when none recorded. */
  mainLoopModels: string[];
  endReason: string | null;
  /** Its rows were read and replayed. */
  read: boolean;
  recorded: OverviewRecorded;
  /**
   * Summary calls of compactions: the api_call_count of session_model_usage rows with task
   * 'compression' (an auxiliary call, in no counter above). A lineage's is the sum over its chain,
   * since upstream bills an auxiliary call to the session its turn started in (#112848). Shown
   * beside the replay's compactions, not compared: one compaction can make zero or several calls.
   * In `recorded`'s sense (the agent's own figure), kept beside it so `recorded` stays the sessions
   * columns. null where the store has no session_model_usage table or the session was not read.
   */
  recordedCompactionCalls: number | null;
}

/** How a lineage hangs off its parent: its own conversation, a fork the store marks, or an unmarked child. */
export type LineageKind = 'conversation' | ForkKind | 'child';

export interface OverviewLineage extends OverviewFigures {
  /** The lineage's id: its first session's. */
  id: string;
  kind: LineageKind;
  /** The session it was forked from (its first session's parent), or null. */
  forkedFrom: string | null;
  title: string | null;
  /**
   * sessions.source of its sessions (a snapshot's `platform`), distinct, joined with ", "; null
   * when none records one.
   */
  source: string | null;
  /**
   * The model that ran: sessions.model (a snapshot's `model`); when that is null, or when the
   * main-loop usage rows (session_model_usage, task '') name several models, those models, in
   * storage order, joined with ", ". null when neither records one.
   */
  model: string | null;
  startedAt: number | null;
  /** The last session's ended_at, when recorded; null otherwise. */
  endedAt: number | null;
  /**
   * From the first session's start to the last one's ended_at when recorded, else to the latest
   * stored row; 0 when that is not later than the start.
   */
  durationSeconds: number | null;
  /** The last session's end reason (`compression` on every session but the last of a chain). */
  endReason: string | null;
  /** The compaction chain, in order. */
  sessions: OverviewSession[];
  /** The chain's counters: the sessions' own summed, or the last one's where they are cumulative (a gateway's). */
  recorded: OverviewRecorded;
  /** Its sessions' compaction summary calls (session_model_usage task 'compression'), summed; null if any is. */
  recordedCompactionCalls: number | null;
  /** Lineages forked from one of its sessions, in start order. */
  children: OverviewLineage[];
}

export interface SessionOverview {
  source: { path: string; format: string };
  profile: string;
  tokenizer: string;
  /** False when the file was only listed (too large to read whole): no session's rows were read. */
  read: boolean;
  /** Top-level lineages in start order, forks nested in `children`. */
  lineages: OverviewLineage[];
  /** Findings placed in no session (a whole-file problem). */
  unplaced: { errors: number; warnings: number };
}

const RECORDED_KEYS: readonly Exclude<keyof RecordedCounters, 'usage'>[] = [
  'apiCalls',
  'messages',
  'inputTokens',
  'outputTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
];
const FIGURE_KEYS: readonly (keyof OverviewFigures)[] = [
  'turns',
  'requests',
  'compactions',
  'cacheBreaks',
  'inputTokens',
  'reusedTokens',
  'errors',
  'warnings',
];

interface Node extends LineageNode {
  title: string | null;
  startedAt: number | null;
  messageCount: number | null;
  source: string | null;
  model: string | null;
  endedAt: number | null;
  loaded: TranscriptSession | undefined;
}

/** Every session the file names: the state.db catalogue (loaded or not) in start order, then any session only the readers know. */
function nodesOf(transcript: Transcript): Node[] {
  const loaded = new Map(transcript.sessions.map((s) => [s.id, s]));
  const out: Node[] = [];
  const seen = new Set<string>();
  for (const c of transcript.catalog ?? []) {
    if (seen.has(c.id)) continue;
    seen.add(c.id);
    const s = loaded.get(c.id);
    out.push({
      id: c.id,
      parentId: s ? s.parentId : c.parentId,
      endReason: s ? s.endReason : c.endReason,
      forkKind: s ? s.forkKind : c.forkKind,
      title: c.title,
      startedAt: c.startedAt,
      messageCount: c.messageCount,
      source: c.source,
      model: c.model,
      endedAt: c.endedAt,
      loaded: s,
    });
  }
  for (const s of transcript.sessions) {
    if (seen.has(s.id)) continue;
    seen.add(s.id);
    out.push({
      id: s.id,
      parentId: s.parentId,
      endReason: s.endReason,
      forkKind: s.forkKind,
      title: null,
      startedAt: s.startedAt ?? null,
      messageCount: null,
      source: s.source ?? null,
      model: s.model ?? null,
      endedAt: s.endedAt ?? null,
      loaded: s,
    });
  }
  return out;
}

const zeroFigures = (): OverviewFigures => ({ turns: 0, requests: 0, compactions: 0, cacheBreaks: 0, inputTokens: 0, reusedTokens: 0, errors: 0, warnings: 0 });
const nullFigures = (): OverviewFigures => ({
  turns: null,
  requests: null,
  compactions: null,
  cacheBreaks: null,
  inputTokens: null,
  reusedTokens: null,
  errors: null,
  warnings: null,
});

/** What the report found in each session it replayed. */
function figuresBySession(report: Report): { bySession: Map<string, OverviewFigures>; unplaced: SessionOverview['unplaced'] } {
  const bySession = new Map<string, OverviewFigures>();
  for (const s of report.sessions) {
    bySession.set(s.id, { ...zeroFigures(), requests: s.replayed.requests, inputTokens: s.replayed.inputTokens, reusedTokens: s.replayed.reusedTokens });
  }
  for (const t of report.turns) {
    const f = bySession.get(t.sessionId);
    if (!f) continue;
    (f.turns as number)++;
    (f.compactions as number) += (t.compression ? 1 : 0) + t.laterCompressions.length;
  }
  for (const q of report.requests) {
    const f = bySession.get(q.sessionId);
    if (f && !q.prefix.stable && q.prefix.breakAt?.cause !== 'compression') (f.cacheBreaks as number)++;
  }
  const unplaced = { errors: 0, warnings: 0 };
  for (const d of report.diagnostics) {
    if (d.severity === 'info') continue;
    // A finding placed by request or turn belongs to that request's or turn's session.
    const id =
      d.sessionId
      ?? (d.request !== null ? report.requests[d.request]?.sessionId : undefined)
      ?? (d.turn !== null ? report.turns[d.turn]?.sessionId : undefined);
    const f = id === undefined ? undefined : bySession.get(id);
    const into = f ?? unplaced;
    if (d.severity === 'error') (into.errors as number)++;
    else (into.warnings as number)++;
  }
  return { bySession, unplaced };
}

function recordedOf(node: Node): OverviewRecorded {
  const r = node.loaded?.recorded;
  const out = Object.fromEntries(RECORDED_KEYS.map((k) => [k, r?.[k] ?? null])) as unknown as OverviewRecorded;
  // A session that was listed but not loaded still has its message_count in the catalogue.
  if (out.messages === null) out.messages = node.messageCount;
  return out;
}

function compactionCallsOf(node: Node): number | null {
  const usage = node.loaded?.recorded?.usage;
  return usage ? usage.filter((u) => u.task === 'compression').reduce((a, u) => a + u.apiCalls, 0) : null;
}

/** Distinct values in first-seen order, without nulls. */
function distinct(values: readonly (string | null)[]): string[] {
  return [...new Set(values.filter((v): v is string => v !== null))];
}

function mainLoopModels(s: TranscriptSession | undefined): string[] {
  // 'unknown' is upstream's placeholder for a call that named no model: not a model that ran.
  return distinct((s?.recorded?.usage ?? []).filter((u) => u.task === '' && u.model !== 'unknown').map((u) => u.model));
}

/** The lineage's MODEL: sessions.model, unless it is null or the main loop ran several models. */
function lineageModel(sessions: readonly OverviewSession[]): string | null {
  const ran = distinct(sessions.flatMap((s) => s.mainLoopModels));
  const stored = distinct(sessions.map((s) => s.model));
  const models = ran.length > 1 || !stored.length ? ran : stored;
  return models.length ? models.join(', ') : null;
}

function durationOf(startedAt: number | null, end: number | null): number | null {
  // To the millisecond the stores keep, without the float noise of a difference of epochs.
  return startedAt === null || end === null ? null : Math.round((Math.max(end, startedAt) - startedAt) * 1000) / 1000;
}

function lastRowAt(s: TranscriptSession | undefined): number | null {
  let last: number | null = null;
  for (const g of s?.generations ?? []) {
    for (const row of g.rows) {
      const t = row.timestamp;
      if (typeof t === 'number' && Number.isFinite(t) && (last === null || t > last)) last = t;
    }
  }
  return last;
}

/**
 * A chain's counters. Upstream counts per session (a rotation child starts at 0), so they add up;
 * a gateway writes its agent's running totals instead, seen as each session's api_call_count
 * equal to the requests replayed up to and including it, and then the last session holds the total.
 */
function chainRecorded(sessions: OverviewSession[]): OverviewRecorded {
  let replayedSoFar = 0;
  const cumulative =
    sessions.length > 1
    && sessions.every((s) => {
      replayedSoFar += s.requests ?? NaN;
      return s.recorded.apiCalls === replayedSoFar;
    })
    && sessions.some((s) => s.recorded.apiCalls !== s.requests);
  const out = {} as OverviewRecorded;
  for (const k of RECORDED_KEYS) {
    const values = sessions.map((s) => s.recorded[k]);
    // A chain where any session lacks the counter has no total for it.
    out[k] = values.some((v) => v === null) ? null : cumulative ? values[values.length - 1] : (values as number[]).reduce((a, b) => a + b, 0);
  }
  return out;
}

function sumFigures(sessions: OverviewSession[]): OverviewFigures {
  const out = zeroFigures();
  for (const k of FIGURE_KEYS) {
    const values = sessions.map((s) => s[k]);
    out[k] = values.some((v) => v === null) ? null : (values as number[]).reduce((a, b) => a + b, 0);
  }
  return out;
}

/** The overview of an analysed transcript: its report and what the readers listed. */
export function sessionOverview(transcript: Transcript, report: Report): SessionOverview {
  const nodes = nodesOf(transcript);
  const lineages = new Lineages(nodes);
  const { bySession, unplaced } = figuresBySession(report);
  const read = !transcript.listedOnly;

  const sessionOf = (n: Node): OverviewSession => {
    const f = read && n.loaded ? bySession.get(n.id) : undefined;
    const last = lastRowAt(n.loaded);
    return {
      id: n.id,
      parentId: n.parentId,
      title: n.title,
      startedAt: n.startedAt,
      lastRowAt: last,
      endedAt: n.endedAt,
      durationSeconds: durationOf(n.startedAt, n.endedAt ?? last),
      source: n.source,
      model: n.model,
      mainLoopModels: mainLoopModels(n.loaded),
      endReason: n.endReason,
      read: f !== undefined,
      recorded: recordedOf(n),
      recordedCompactionCalls: compactionCallsOf(n),
      ...(f ? { ...f } : nullFigures()),
    };
  };

  const chains = lineages.chains();
  const rows = new Map<string, OverviewLineage>();
  for (const [rootId, chain] of chains) {
    const root = chain[0];
    const sessions = chain.map(sessionOf);
    const parent = lineages.parentOf(root);
    const kind: LineageKind = root.parentId === null || !parent ? 'conversation' : (root.forkKind ?? 'child');
    const lastRow = sessions.reduce<number | null>((m, s) => (s.lastRowAt !== null && (m === null || s.lastRowAt > m) ? s.lastRowAt : m), null);
    // The chain ends when its last session does; a rotated session's ended_at is only a handover.
    const endedAt = sessions[sessions.length - 1].endedAt;
    const sources = distinct(sessions.map((s) => s.source));
    // Auxiliary rows are per-call deltas on every path (a gateway's too): a chain's are summed.
    const calls = sessions.map((s) => s.recordedCompactionCalls);
    rows.set(rootId, {
      id: rootId,
      kind,
      forkedFrom: root.parentId,
      // The conversation's own title; a chain whose first session has none takes the first title along it.
      title: sessions.find((s) => s.title !== null)?.title ?? null,
      source: sources.length ? sources.join(', ') : null,
      model: lineageModel(sessions),
      startedAt: root.startedAt,
      endedAt,
      durationSeconds: durationOf(root.startedAt, endedAt ?? lastRow),
      endReason: chain[chain.length - 1].endReason,
      sessions,
      ...sumFigures(sessions),
      recorded: chainRecorded(sessions),
      recordedCompactionCalls: calls.some((v) => v === null) ? null : (calls as number[]).reduce((a, b) => a + b, 0),
      children: [],
    });
  }
  // A fork hangs under the lineage of the session it came from; one whose parent is unknown stands alone.
  const top: OverviewLineage[] = [];
  for (const [rootId, row] of rows) {
    const root = lineages.get(rootId) as Node;
    const parent = lineages.parentOf(root);
    const under = parent && !continuesParent(root, parent) ? rows.get(lineages.root(parent).id) : undefined;
    if (under && under !== row) under.children.push(row);
    else top.push(row);
  }
  return { source: { ...report.source }, profile: report.profile, tokenizer: report.tokenizer, read, lineages: top, unplaced };
}

// ---- Columns, sorting and filtering: shared by every view of the overview.

/** A column of the overview: its key (for `--sort`), its heading, and its value in a lineage row. */
export interface OverviewColumn {
  key: string;
  heading: string;
  /** A text column (sorted as text, printed left-aligned); the others are numbers. */
  text: boolean;
  value(row: OverviewLineage | OverviewSession): string | number | null;
}

const lineageOnly =
  (get: (row: OverviewLineage) => string | number | null) =>
  (row: OverviewLineage | OverviewSession): string | number | null =>
    'sessions' in row ? get(row) : null;

export const OVERVIEW_COLUMNS: readonly OverviewColumn[] = [
  { key: 'id', heading: 'LINEAGE', text: true, value: (r) => r.id },
  { key: 'title', heading: 'TITLE', text: true, value: (r) => r.title },
  { key: 'source', heading: 'SOURCE', text: true, value: (r) => r.source },
  // A chain's session row by the same rule as its lineage's, from its own rows.
  { key: 'model', heading: 'MODEL', text: true, value: (r) => ('sessions' in r ? r.model : lineageModel([r])) },
  { key: 'start', heading: 'START (UTC)', text: false, value: (r) => r.startedAt },
  { key: 'duration', heading: 'DURATION', text: false, value: (r) => r.durationSeconds },
  { key: 'end', heading: 'END', text: true, value: (r) => r.endReason },
  { key: 'sessions', heading: 'SESSIONS', text: false, value: lineageOnly((r) => r.sessions.length) },
  { key: 'turns', heading: 'TURNS', text: false, value: (r) => r.turns },
  { key: 'requests', heading: 'REQUESTS', text: false, value: (r) => r.requests },
  { key: 'api-calls', heading: 'API CALLS*', text: false, value: (r) => r.recorded.apiCalls },
  { key: 'compactions', heading: 'COMPACTIONS', text: false, value: (r) => r.compactions },
  { key: 'compaction-calls', heading: 'COMPACTION CALLS*', text: false, value: (r) => r.recordedCompactionCalls },
  { key: 'breaks', heading: 'BREAKS', text: false, value: (r) => r.cacheBreaks },
  { key: 'input', heading: 'INPUT', text: false, value: (r) => r.inputTokens },
  { key: 'reused', heading: 'REUSED', text: false, value: (r) => r.reusedTokens },
  { key: 'rec-input', heading: 'INPUT*', text: false, value: (r) => r.recorded.inputTokens },
  { key: 'rec-cache-read', heading: 'CACHE READ*', text: false, value: (r) => r.recorded.cacheReadTokens },
  { key: 'rec-cache-write', heading: 'CACHE WRITE*', text: false, value: (r) => r.recorded.cacheWriteTokens },
  { key: 'rec-output', heading: 'OUTPUT*', text: false, value: (r) => r.recorded.outputTokens },
  { key: 'rec-messages', heading: 'MESSAGES*', text: false, value: (r) => r.recorded.messages },
  { key: 'errors', heading: 'ERRORS', text: false, value: (r) => r.errors },
  { key: 'warnings', heading: 'WARNINGS', text: false, value: (r) => r.warnings },
];

export function overviewColumn(key: string): OverviewColumn | undefined {
  return OVERVIEW_COLUMNS.find((c) => c.key === key);
}

/**
 * The lineages sorted by a column, at every level (children among their siblings); a value not
 * recorded sorts last either way, and equal values keep start order.
 */
export function sortLineages(lineages: readonly OverviewLineage[], column: OverviewColumn, descending: boolean): OverviewLineage[] {
  const cmp = (a: OverviewLineage, b: OverviewLineage): number => {
    const x = column.value(a);
    const y = column.value(b);
    if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
    // By code unit, not locale: the same order on every machine.
    const d = typeof x === 'number' && typeof y === 'number' ? x - y : String(x) < String(y) ? -1 : String(x) > String(y) ? 1 : 0;
    return descending ? -d : d;
  };
  return [...lineages].sort(cmp).map((l) => ({ ...l, children: sortLineages(l.children, column, descending) }));
}

export interface OverviewFilter {
  /** Case-insensitive, in the title, id or source of the lineage or of one of its sessions. */
  text?: string;
  /** Only lineages with a cache break, or with a finding of severity error. */
  has?: readonly ('breaks' | 'errors')[];
}

/**
 * The lineages that match, each with its whole subtree; a lineage that does not match stays as the
 * path to a child that does.
 */
export function filterLineages(lineages: readonly OverviewLineage[], filter: OverviewFilter): OverviewLineage[] {
  const needle = filter.text?.toLowerCase();
  const matches = (l: OverviewLineage): boolean => {
    if (needle !== undefined) {
      const hay = [l.title, l.source, ...l.sessions.flatMap((s) => [s.id, s.title])];
      if (!hay.some((h) => h !== null && h.toLowerCase().includes(needle))) return false;
    }
    for (const h of filter.has ?? []) {
      if (h === 'breaks' && !((l.cacheBreaks ?? 0) > 0)) return false;
      if (h === 'errors' && !((l.errors ?? 0) > 0)) return false;
    }
    return true;
  };
  const out: OverviewLineage[] = [];
  for (const l of lineages) {
    if (matches(l)) {
      out.push(l);
      continue;
    }
    const children = filterLineages(l.children, filter);
    if (children.length) out.push({ ...l, children });
  }
  return out;
}

// ---- One lineage of a transcript: what `--lineage ID` (CLI) keeps.

/**
 * The sessions of the lineage that holds session `id` (the overview row it is listed in: its
 * compaction chain), in lineage order, from what the file names (the state.db catalogue included,
 * so a chain member that was not loaded is named too); [] when the file names no such session.
 */
export function lineageMembers(transcript: Transcript, id: string): string[] {
  const lineages = new Lineages(nodesOf(transcript));
  const start = lineages.get(id);
  if (!start) return [];
  const root = lineages.root(start).id;
  return lineages
    .ordered()
    .filter((n) => lineages.root(n).id === root)
    .map((n) => n.id);
}
