// The analysis report (docs/report.md): the CLI's public JSON contract, and the model the views read.

import type { Profile } from '../engine/profile';
import { replayAgain, replayTranscript, resumeReplay, type Replay, type ReplayCursor, type ReplayRequest, type ReplayTurn } from '../engine/replay';
import { firstDifferingByte } from '../shared/model/utf8';
import type { CapturedRequest, Transcript, TranscriptSession } from '../shared/model/transcript';
import { billingDiagnostics, matchBilling, type BillingLog } from './billing';
import { PRICE_CATALOGUE } from './cost';
import { preflightEstimates } from './preflightEstimate';
import { compareCallCounts, sessionCounts } from './counters';
import { sessionsWithoutTurns } from './noTurns';
import type { Diagnostic, Report, ReportCapture, SessionCounts } from '../shared/reportTypes';
import { RequestWire } from './requestWire';
import { placeOf, reportRequest, reportTurn, type RowContext } from './reportRows';
import type { TokenCounter } from './tokenizer';
import type { PriceOverrides } from '../shared/settingNames';
import { sentKey } from '../transcripts/requestBody';
import type { ProgressStep } from '../shared/shownText';

export interface AnalyzeOptions {
  profile: Profile;
  counter: TokenCounter;
  messages: boolean;
  /** Prices the user set, by model: they win over the catalogue when the bill is priced (withBilling). */
  prices?: PriceOverrides;
  /** Told how far a long analysis is: the replay starting, then every few hundred requests measured. */
  progress?: AnalysisProgress;
}

/** `done` of `total` steps of `what`; the replay is one step. Reading is the caller's, before the analysis. */
export type AnalysisProgress = (what: Exclude<ProgressStep, 'read'>, done: number, total: number) => void;

/** Requests measured between two progress calls: often enough for a line on a terminal, rare enough to cost nothing. */
const PROGRESS_EVERY = 256;

/** The report plus what produced it, for views that page through wire messages afterwards. */
export interface Analysis {
  transcript: Transcript;
  report: Report;
  replay: Replay;
  wire: RequestWire;
  /** For an analysis extended from another (extendAnalysis): its leading turns and requests, unchanged. */
  kept?: { turns: number; requests: number };
}

/** What a report is built from, kept so a resumed replay's new turns and requests extend it. */
interface ReportParts {
  opts: AnalyzeOptions;
  turns: Report['turns'];
  requests: Report['requests'];
  /** Each turn's and request's findings, in the order they are reported. */
  turnDiagnostics: Diagnostic[][];
  requestDiagnostics: Diagnostic[][];
}

/**
 * What extends an analysis, handed back beside it: where its replay stopped and the report built
 * so far. Extending changes both, and the analysis's replay with them: they have one owner
 * (src/live/liveAnalysis.ts), which drops them when an extension fails.
 */
export interface AnalysisMemory {
  cursor: ReplayCursor;
  parts: ReportParts;
}

export interface ResumableAnalysis {
  analysis: Analysis;
  memory: AnalysisMemory;
}

/** Parts of a report assembled from its first turn. */
function noParts(opts: AnalyzeOptions): ReportParts {
  return { opts, turns: [], requests: [], turnDiagnostics: [], requestDiagnostics: [] };
}

export function analyze(transcript: Transcript, opts: AnalyzeOptions): Analysis {
  return analyzeResumable(transcript, opts).analysis;
}

/** analyze(), with what extendAnalysis and reanalyzeChanged go on from. */
export function analyzeResumable(transcript: Transcript, opts: AnalyzeOptions): ResumableAnalysis {
  opts.progress?.('replay', 0, 1);
  const { replay, cursor } = replayTranscript(transcript, opts.profile);
  const parts = noParts(opts);
  return { analysis: assemble(transcript, replay, new RequestWire(opts.profile, opts.counter), parts), memory: { cursor, parts } };
}

/**
 * The analysis of `transcript`: the lists `previous` analysed, with rows appended to them since
 * (graftGrowth), in the same or another transcript object. The replay resumes where it stopped and
 * only new or renumbered turns and requests are reported again, equal to analysing it whole. Null
 * where the replay cannot resume; `previous` (its memory and its replay) is then spent.
 */
export function extendAnalysis({ analysis: previous, memory }: ResumableAnalysis, transcript: Transcript): ResumableAnalysis | null {
  const built = memory.parts;
  const resumed = resumeReplay({ replay: previous.replay, cursor: memory.cursor }, transcript);
  if (!resumed) return null;
  // A kept turn that went on to new requests is reported again.
  let turns = resumed.firstTurn;
  while (turns > 0 && built.turns[turns - 1].requests.join() !== previous.replay.turns[turns - 1].requests.join()) turns--;
  built.turns.length = turns;
  built.turnDiagnostics.length = turns;
  built.requests.length = resumed.firstRequest;
  built.requestDiagnostics.length = resumed.firstRequest;
  const analysis = assemble(transcript, previous.replay, previous.wire, built);
  analysis.kept = { turns, requests: resumed.firstRequest };
  return { analysis, memory };
}

/**
 * The analysis of `transcript`, whose sessions in `kept` (whole families) are those `previous`
 * analysed, unchanged: only the other sessions are replayed (replayAgain), their rows' token counts
 * kept where the lists are the same; the report is assembled anew. Equal to analysing it whole.
 * The turns and requests taken over are renumbered in place: `previous` is spent.
 */
export function reanalyzeChanged(
  { analysis: previous, memory }: ResumableAnalysis,
  transcript: Transcript,
  kept: ReadonlySet<TranscriptSession>,
): ResumableAnalysis {
  const { replay, cursor } = replayAgain({ replay: previous.replay, cursor: memory.cursor }, transcript, kept);
  const parts = noParts(memory.parts.opts);
  return { analysis: assemble(transcript, replay, previous.wire, parts), memory: { cursor, parts } };
}

/**
 * analyze(narrowed) for lineages of `whole`'s transcript (`opts`: what `whole` was analysed with)
 * that replay the same alone (TranscriptLineages' narrow and replaysAlone): its turns and requests are the whole
 * replay's, renumbered from 0, and their wire copies and token counts are `whole`'s, so nothing is
 * replayed or counted again; the report is assembled anew (its findings name the new numbers).
 * Null where the slice is not one lineage's turns and requests in the order a replay of it alone
 * makes them (each request in its turn, turn by turn); analyze it then.
 */
export function lineageSlicer(whole: Analysis, opts: AnalyzeOptions): (narrowed: Transcript) => Analysis | null {
  const { replay } = whole;
  // Each session's turns and requests in the whole replay, by index: worked out on the first slice.
  let bySession: Map<TranscriptSession, { turns: number[]; requests: number[] }> | undefined;
  const placed = (): Map<TranscriptSession, { turns: number[]; requests: number[] }> => {
    const map = new Map<TranscriptSession, { turns: number[]; requests: number[] }>();
    const of = (s: TranscriptSession): { turns: number[]; requests: number[] } => {
      let p = map.get(s);
      if (!p) {
        p = { turns: [], requests: [] };
        map.set(s, p);
      }
      return p;
    };
    replay.turns.forEach((t, i) => of(t.session).turns.push(i));
    replay.requests.forEach((r, i) => of(r.session).requests.push(i));
    return map;
  };
  return (narrowed) => {
    bySession ??= placed();
    const at = bySession;
    const ids = (list: 'turns' | 'requests'): number[] => narrowed.sessions.flatMap((s) => at.get(s)?.[list] ?? []).sort((x, y) => x - y);
    const [turnIds, requestIds] = [ids('turns'), ids('requests')];
    const lineage = replay.turns[turnIds[0]]?.lineage;
    const turns: ReplayTurn[] = [];
    const requests: ReplayRequest[] = [];
    for (const old of turnIds) {
      const t = replay.turns[old];
      if (t.lineage !== lineage) return null;
      const own: number[] = [];
      for (const r of t.requests) {
        const k = requests.length;
        const q = replay.requests[r];
        // Alone, the lineage's requests are numbered turn by turn, each compared with the one before.
        if (r !== requestIds[k] || q.turn !== old || q.previous !== (k ? requestIds[k - 1] : null)) return null;
        own.push(k);
        requests.push({ ...q, index: k, turn: turns.length, previous: k ? k - 1 : null });
      }
      turns.push({ ...t, index: turns.length, requests: own });
    }
    if (requests.length !== requestIds.length) return null;
    return assemble(narrowed, { profile: replay.profile, turns, requests }, whole.wire, noParts(opts));
  };
}

/** The report of the replay's turns and requests that `built` does not hold yet, and of the rest. */
function assemble(transcript: Transcript, replay: Replay, wire: RequestWire, built: ReportParts): Analysis {
  const { opts } = built;
  const ctx: RowContext = { profile: opts.profile, wire, messages: opts.messages };
  for (const t of replay.turns.slice(built.turns.length)) {
    const { turn, findings } = reportTurn(t, ctx);
    built.turnDiagnostics.push(findings);
    built.turns.push(turn);
  }
  for (const r of replay.requests.slice(built.requests.length)) {
    if (r.index % PROGRESS_EVERY === 0) opts.progress?.('requests', r.index, replay.requests.length);
    const { request, findings } = reportRequest(r, r.previous === null ? null : replay.requests[r.previous], ctx);
    built.requestDiagnostics.push(findings);
    built.requests.push(request);
  }
  const diagnostics: Diagnostic[] = [
    ...transcript.findings.map((f) => ({
      severity: f.severity,
      code: f.code,
      message: f.message,
      turn: null,
      request: null,
      ...placeOf(f.pos),
      ...(f.atEnd ? { atEnd: true } : {}),
    })),
    ...built.turnDiagnostics.flat(),
    ...built.requestDiagnostics.flat(),
  ];
  const turns = built.turns.slice();
  const requests = built.requests.slice();
  const sha = (text: string): string => wire.sha256(text);

  const captures = transcript.captured.map((captured) => compareCaptured(captured, replay.requests, wire, diagnostics));

  const counts = sessionCounts(transcript, replay, { input: requests.map((r) => r.inputTokens), reused: requests.map((r) => r.prefix.reusedTokens) });
  const report: Report = {
    schemaVersion: 2,
    source: { path: transcript.path, format: transcript.format },
    profile: opts.profile.name,
    tokenizer: opts.counter.name,
    sessions: transcript.sessions.map((s) => ({
      id: s.id,
      parentId: s.parentId,
      systemPromptSha256: s.systemPrompt === null ? null : sha(s.systemPrompt),
      endReason: s.endReason,
      replayed: counts.get(s) as SessionCounts,
      ...(s.recorded ? { recorded: { ...s.recorded, ...(s.recorded.usage ? { usage: s.recorded.usage.map((u) => ({ ...u })) } : {}) } } : {}),
    })),
    turns,
    requests,
    diagnostics,
    billing: NO_BILLING,
    ...(captures.length ? { captures } : {}),
  };
  diagnostics.push(...compareCallCounts(transcript, report.sessions), ...sessionsWithoutTurns(transcript, replay));
  return { transcript, report, replay, wire };
}

/** protect_first_n + protect_last_n at upstream's defaults (3 and 20). */
const DEFAULT_PROTECTED_ROWS = 23;

const NO_BILLING: Report['billing'] = Object.freeze({
  sources: [],
  cacheTtl: null,
  logClockOffsetSeconds: null,
  sessions: [],
  models: [],
  cost: { usd: 0, priced: 0, unpriced: 0, catalogue: PRICE_CATALOGUE, unmatchedUsd: 0 },
  unmatchedCalls: [],
});

/**
 * The analysis with the logs' billed usage set beside each request (docs/billing.md): a new report,
 * the analysis it came from unchanged, so a log read again is matched again without a replay.
 */
export function withBilling(analysis: Analysis, log: BillingLog | null, prices?: PriceOverrides): Analysis {
  if (!log) return analysis;
  const { report } = analysis;
  // No log, only what the home's config asks of the cache: said, and nothing to match.
  if (!log.sources.length && !log.calls.length) return { ...analysis, report: { ...report, billing: { ...report.billing, cacheTtl: log.cacheTtl } } };
  const branches = new Set(analysis.transcript.sessions.filter((s) => s.forkKind === 'branch').map((s) => s.id));
  const matched = matchBilling(report, log, branches, prices);
  const requests = report.requests.map((r, i) => ({
    ...r,
    billed: matched.requests[i].billed,
    cacheMiss: matched.requests[i].cacheMiss,
    cost: matched.requests[i].cost,
  }));
  const found: Diagnostic[] = log.findings.map((f) => ({ severity: f.severity, code: f.code, message: f.message, turn: null, request: null }));
  const diagnostics = [...report.diagnostics, ...found, ...billingDiagnostics(report, matched)];
  const billed: Report = { ...report, requests, diagnostics, billing: matched.billing };
  const estimates = preflightEstimates(billed, analysis.replay, analysis.replay.profile, log.preflights);
  const turns = report.turns.map((t) => {
    const estimate = estimates.get(t.index);
    if (!estimate || !t.compression) return t;
    // A logged preflight says the cheap gate opened: `count or chars`, the count tried first. With
    // upstream's defaults (protect_first_n 3, protect_last_n 20; no store records them) the count
    // holds above 24 rows; else the rough messages estimate reached the logged threshold.
    const gateBranch = estimate.logged ? (t.compression.beforeMessages > DEFAULT_PROTECTED_ROWS + 1 ? 'count' : 'chars') : t.compression.gateBranch;
    return { ...t, compression: { ...t.compression, gateBranch, estimate } };
  });
  return { ...analysis, report: { ...billed, turns } };
}

/**
 * Checks the replay against the bytes a request dump captured. The dump is matched to the replayed
 * request of its session with as many wire messages (a failed request has no stored answer, so the
 * replay is rebuilt for that prefix when no answered request matches).
 */
function compareCaptured(captured: CapturedRequest, requests: ReplayRequest[], wire: RequestWire, diagnostics: Diagnostic[]): ReportCapture {
  const out: ReportCapture = {
    path: captured.path,
    sessionId: captured.sessionId,
    apiMode: captured.apiMode ?? null,
    request: null,
    breakpoints: captured.breakpoints ?? [],
    bodyEntries: captured.bodyEntries ?? null,
  };
  const rowsNeeded = captured.messages.length - 1;
  const candidates = requests.filter((r) => r.session.id === captured.sessionId);
  if (!candidates.length) return out;
  const match =
    candidates.find((r) => r.end === rowsNeeded)
    ?? (() => {
      const last = candidates[candidates.length - 1];
      return last.rows.length >= rowsNeeded ? { ...last, end: rowsNeeded } : undefined;
    })();
  const fileAt = { line: captured.pos.line ?? 1, sessionId: captured.sessionId };
  if (!match) {
    diagnostics.push({
      severity: 'warning',
      code: 'replay-mismatch',
      turn: null,
      request: null,
      ...fileAt,
      message: `${captured.path}: the dump holds ${captured.messages.length} wire messages; the replay of session ${captured.sessionId} has no request that long`,
    });
    return out;
  }
  if (requests.includes(match)) out.request = match.index;
  const replayed = wire.messages(match);
  // Both sides as the dump's API mode carries them: its adapter's conversion loses what it cannot send.
  const mode = captured.apiMode ?? 'chat-completions';
  for (let i = 0; i < Math.max(replayed.length, captured.messages.length); i++) {
    const real = captured.messages[i];
    const ours = replayed[i]?.message;
    if (!real || !ours || sentKey(real, mode) !== sentKey(ours, mode)) {
      const byte = typeof real?.content === 'string' && typeof ours?.content === 'string' ? firstDifferingByte(ours.content, real.content) : null;
      diagnostics.push({
        severity: 'warning',
        code: 'replay-mismatch',
        turn: match.turn,
        request: requests.includes(match) ? match.index : null,
        ...fileAt,
        message: `${captured.path}: the replay differs from the captured request at wire message ${i}${byte === null ? '' : `, byte ${byte}`}`,
      });
      return out;
    }
  }
  return out;
}
