// The session overview (issue 10): one row per lineage of a transcript, so a file of hundreds of
// sessions says which is which before any of them is opened. A compaction chain is one row listing
// its sessions; a branch, delegate or reset child hangs under the row of the session it came from.
// Pure and plain data (no I/O, no vscode), so the CLI, the extension and the report can share it.
//
// Every value comes from the store or from the replay. What the store does not record, or what was
// not read (a file listed, not loaded; a session outside `--session`'s lineage), is null, never a
// guess: the CLI prints "not recorded" / "not read".

import { continuesParent, type ListedSession, TranscriptLineages } from '../hermes/lineage';
import type { RecordedCounters, Transcript, TranscriptSession } from '../shared/model/transcript';
import { distinct, everyLineage, lineageModel } from '../shared/overviewColumns';
import type { LineageKind, OverviewFigures, OverviewLineage, OverviewRecorded, OverviewSession, SessionOverview } from '../shared/overviewTypes';
import { deliberateBreak, type Report } from '../shared/reportTypes';

const RECORDED_KEYS: readonly Exclude<keyof RecordedCounters, 'usage'>[] = [
  'apiCalls',
  'messages',
  'inputTokens',
  'outputTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
  'estimatedCostUsd',
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
  'billedInputTokens',
  'billedCacheReadTokens',
  'costUsd',
  'unexplainedMisses',
];

const zeroFigures = (): OverviewFigures => ({
  turns: 0,
  requests: 0,
  compactions: 0,
  cacheBreaks: 0,
  inputTokens: 0,
  reusedTokens: 0,
  errors: 0,
  warnings: 0,
  billedInputTokens: null,
  billedCacheReadTokens: null,
  costUsd: null,
  unexplainedMisses: null,
});
const nullFigures = (): OverviewFigures => ({
  turns: null,
  requests: null,
  compactions: null,
  cacheBreaks: null,
  inputTokens: null,
  reusedTokens: null,
  errors: null,
  warnings: null,
  billedInputTokens: null,
  billedCacheReadTokens: null,
  costUsd: null,
  unexplainedMisses: null,
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
  const billed = report.billing.sources.length > 0;
  if (billed) for (const f of bySession.values()) Object.assign(f, { billedInputTokens: 0, billedCacheReadTokens: 0, costUsd: 0, unexplainedMisses: 0 });
  for (const q of report.requests) {
    const f = bySession.get(q.sessionId);
    if (f && !q.prefix.stable && !deliberateBreak(q.prefix.breakAt?.cause)) (f.cacheBreaks as number)++;
    if (!f || !billed) continue;
    (f.billedInputTokens as number) += q.billed?.input ?? 0;
    (f.billedCacheReadTokens as number) += q.billed?.input === null ? 0 : (q.billed?.cacheRead ?? 0);
    (f.costUsd as number) += q.cost?.usd ?? 0;
    if (q.cacheMiss?.class === 'unexplained') (f.unexplainedMisses as number)++;
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

function recordedOf(node: ListedSession): OverviewRecorded {
  const r = node.loaded?.recorded;
  const out = {} as OverviewRecorded;
  for (const k of RECORDED_KEYS) out[k] = r?.[k] ?? null;
  // A session that was listed but not loaded still has its message_count in the catalogue.
  if (out.messages === null) out.messages = node.messageCount;
  return out;
}

function compactionCallsOf(node: ListedSession): number | null {
  const usage = node.loaded?.recorded?.usage;
  return usage ? usage.filter((u) => u.task === 'compression').reduce((a, u) => a + u.apiCalls, 0) : null;
}

function mainLoopModels(s: TranscriptSession | undefined): string[] {
  // 'unknown' is upstream's placeholder for a call that named no model: not a model that ran.
  return distinct((s?.recorded?.usage ?? []).filter((u) => u.task === '' && u.model !== 'unknown').map((u) => u.model));
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

/** The sum of a value over the sessions, left to right; null when any of them has none. */
function total(sessions: readonly OverviewSession[], value: (s: OverviewSession) => number | null): number | null {
  let sum = 0;
  for (const s of sessions) {
    const v = value(s);
    if (v === null) return null;
    sum += v;
  }
  return sum;
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
    // A chain where any session lacks the counter has no total for it.
    const sum = total(sessions, (s) => s.recorded[k]);
    out[k] = sum !== null && cumulative ? sessions[sessions.length - 1].recorded[k] : sum;
  }
  return out;
}

function sumFigures(sessions: OverviewSession[]): OverviewFigures {
  const out = zeroFigures();
  for (const k of FIGURE_KEYS) out[k] = total(sessions, (s) => s[k]);
  return out;
}

/**
 * The overview of an analysed transcript: its report and what the readers listed. `of`: the
 * transcript's lineages, passed by a caller that goes on to open them (their walk is then done once).
 */
export function sessionOverview(transcript: Transcript, report: Report, of = new TranscriptLineages(transcript)): SessionOverview {
  const { lineages, chains } = of.listed;
  const { bySession, unplaced } = figuresBySession(report);
  const read = !transcript.listedOnly;

  const sessionOf = (n: ListedSession): OverviewSession => {
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
      ...(f ?? nullFigures()),
    };
  };

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
      // Auxiliary rows are per-call deltas on every path (a gateway's too): a chain's are summed.
      recordedCompactionCalls: total(sessions, (s) => s.recordedCompactionCalls),
      children: [],
    });
  }
  // A fork hangs under the lineage of the session it came from; one whose parent is unknown stands alone.
  const top: OverviewLineage[] = [];
  for (const [rootId, row] of rows) {
    const root = lineages.get(rootId) as ListedSession;
    const parent = lineages.parentOf(root);
    const under = parent && !continuesParent(root, parent) ? rows.get(lineages.root(parent).id) : undefined;
    if (under && under !== row) under.children.push(row);
    else top.push(row);
  }
  return { source: { ...report.source }, profile: report.profile, tokenizer: report.tokenizer, read, lineages: top, unplaced };
}

/**
 * The overview a view of the file opens on; null for a file of one lineage (forks counted), which
 * opens on its inspector as it always did.
 */
export function overviewToOpenOn(transcript: Transcript, report: Report, of = new TranscriptLineages(transcript)): SessionOverview | null {
  const overview = sessionOverview(transcript, report, of);
  return everyLineage(overview.lineages).length > 1 ? overview : null;
}
