// Billed against replayed (docs/billing.md): each `API call #N` line of agent.log matched to the
// replayed request it answered, and each request whose billed cache read falls well short of what
// an unbroken, still-live prefix would have reused given one class of miss, in a fixed order.

import type { CacheTtlSetting, InputFinding, RecordedCounters } from '../shared/model/transcript';
import type { AgentLogRead } from '../transcripts/agentLogFiles';
import type { LocalTime, LoggedCall, LoggedCause, LoggedPreflight } from '../transcripts/agentLogRecords';
import { cacheRule, missSlack, ruleExplains } from './cacheRules';
import { costOf, missCost, PRICE_CATALOGUE } from './cost';
import type { BilledSession, BilledUsage, CacheMiss, Diagnostic, Report, ReportBilling, RequestCost } from '../shared/reportTypes';
import type { PriceOverrides } from '../shared/settingNames';

/** What the logs beside a transcript said, as read (agentLogFiles.ts): the input to matchBilling. */
export interface BillingLog {
  /** Every log read, oldest first, with how many call lines it held. */
  sources: { path: string; calls: number }[];
  calls: LoggedCall[];
  causes: LoggedCause[];
  /** The preflight's decisions (`Preflight compression: …`), for the estimate that decided a compaction. */
  preflights: LoggedPreflight[];
  findings: InputFinding[];
  /** What the home's config.yaml asks of the cache (prompt_caching.cache_ttl); null: not set, upstream's 5 minutes. */
  cacheTtl: CacheTtlSetting | null;
  /**
   * A lineage's part of the bill (billingLogFor): the calls of the sessions its branches came from,
   * matched to nothing here, only what a branch's first request is judged against.
   */
  parentCalls?: LoggedCall[];
}

/**
 * The calls and causes of the logs as read, in the order written (the reads oldest first), with
 * the cache lifetime the home's config asks for.
 */
export function billingLogOf(reads: readonly AgentLogRead[], cacheTtl: CacheTtlSetting | null = null): BillingLog {
  const calls: LoggedCall[] = [];
  const causes: LoggedCause[] = [];
  const preflights: LoggedPreflight[] = [];
  const sources: BillingLog['sources'] = [];
  for (const read of reads) {
    let n = 0;
    for (const r of read.records) {
      if (r.kind === 'call') {
        calls.push(r);
        n++;
      } else if (r.kind === 'cause') causes.push(r);
      else if (r.kind === 'preflight') preflights.push(r);
    }
    sources.push({ path: read.path, calls: n });
  }
  return { sources, calls, causes, preflights, findings: reads.flatMap((r) => r.findings), cacheTtl };
}

/**
 * The part of the bill that concerns these sessions (a lineage's): their calls and causes, and the
 * calls of `parents` (the sessions its branches came from) to judge a branch's first request; the
 * sources as read.
 */
export function billingLogFor(log: BillingLog, sessions: readonly string[], parents: readonly string[] = []): BillingLog {
  const own = new Set(sessions);
  const above = new Set(parents.filter((p) => !own.has(p)));
  return {
    sources: log.sources,
    parentCalls: above.size ? log.calls.filter((c) => c.sessionTag !== null && above.has(c.sessionTag)) : undefined,
    calls: log.calls.filter((c) => c.sessionTag !== null && own.has(c.sessionTag)),
    causes: log.causes.filter((c) => own.has(c.sessionId)),
    preflights: log.preflights.filter((p) => p.sessionTag !== null && own.has(p.sessionTag)),
    findings: [],
    cacheTtl: log.cacheTtl,
  };
}

type ReplayedRequest = Pick<Report['requests'][number], 'index' | 'sessionId' | 'sentAt' | 'failed' | 'prefix' | 'inputTokens'>;

export interface RequestBilling {
  billed: BilledUsage | null;
  cost: RequestCost | null;
  cacheMiss: CacheMiss | null;
  /** The replay located a break here, yet the bill shows the whole previous prompt read from the cache. */
  unpredictedHit: boolean;
}

export interface BillingMatch {
  /** By request index. */
  requests: RequestBilling[];
  billing: ReportBilling;
}

/** How far a call's sending may lie from its request's last row on the rows' clock, in seconds. */
const MATCH_WINDOW = 180;
/** How far a request's last row may lie after its call's sending: the log prints the latency to a tenth of a second. */
const SEND_SLACK = 1;
/** Time zones are whole quarter hours. */
const ZONE_STEP = 900;

/** The local time read as if it were UTC: a clock that differs from the rows' by the zone's offset. */
export function localSeconds(t: LocalTime): number {
  return Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second, t.millisecond) / 1000;
}

/** The line is written when the response has arrived: it was sent `latency` seconds before. */
const sentOnLogClock = (c: LoggedCall): number => localSeconds(c.time) - c.latencySeconds;

function groupBy<T>(items: Iterable<T>, key: (t: T) => string | null): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    if (k === null) continue;
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

/**
 * The zone offset that best puts the log's clock on the rows': the quarter hour, from −14:00 to
 * +12:00, under which most calls (a sample spread over each session) have a request of their
 * session sent in the window before them. A log keeps only its last files, so a session's first
 * call may answer any of its requests: voting needs neither end. Ties (a session that asks on a
 * regular beat matches at several) go to the offset nearest the median of each session's last call
 * against its last request, the end rotation keeps; null without a call and a timed request of one
 * session.
 */
function estimateOffset(calls: Map<string, LoggedCall[]>, requests: Map<string, ReplayedRequest[]>): number | null {
  const lasts: number[] = [];
  const votes = new Map<number, number>();
  for (const [session, list] of calls) {
    const times = (requests.get(session) ?? []).flatMap((r) => (r.sentAt === undefined ? [] : [r.sentAt])).sort((a, b) => a - b);
    if (!times.length) continue;
    lasts.push(times[times.length - 1] - sentOnLogClock(list[list.length - 1]));
    const step = Math.max(1, Math.floor(list.length / OFFSET_SAMPLE));
    for (let i = 0; i < list.length; i += step) {
      const sent = sentOnLogClock(list[i]);
      for (let o = -14 * 3600; o <= 12 * 3600; o += ZONE_STEP) {
        // The last request sent by then, within the window: the pairing's own rule.
        const k = lastAtMost(times, sent + o + SEND_SLACK);
        if (k >= 0 && times[k] >= sent + o - MATCH_WINDOW) votes.set(o, (votes.get(o) ?? 0) + 1);
      }
    }
  }
  if (!lasts.length) return null;
  lasts.sort((a, b) => a - b);
  const median = Math.round(lasts[lasts.length >> 1] / ZONE_STEP) * ZONE_STEP;
  let best: number | null = null;
  for (const [o, n] of votes) {
    const b = best === null ? 0 : (votes.get(best) ?? 0);
    if (best === null || n > b || (n === b && Math.abs(o - median) < Math.abs(best - median))) best = o;
  }
  return best ?? median;
}

/** Calls per session whose votes decide the offset. */
const OFFSET_SAMPLE = 64;

/** Index of the last of the ascending `times` at most `t`; -1 when none is. */
function lastAtMost(times: readonly number[], t: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

function billedOf(c: LoggedCall): BilledUsage {
  const known = !c.usageUnavailable && c.input !== null;
  return {
    input: c.input,
    output: c.output,
    cacheRead: known ? c.cacheRead : null,
    // Lines before #104568 have neither `write=` nor `id=`: no write figure was logged, not zero.
    cacheWrite: known && (c.writeReported || c.responseId !== null) ? c.cacheWrite : null,
    model: c.model,
    provider: c.provider,
    responseId: c.responseId,
    latencySeconds: c.latencySeconds,
    loggedAt: c.time.text,
    source: { file: c.file, line: c.pos.line ?? 0 },
  };
}

/**
 * Pairs calls with requests in order: a request whose sending lies well before a call's got no
 * call line (not logged, rotated away); a call well before the next request answers none of them.
 * Without a clock on both sides, order alone pairs them.
 */
function pairInOrder(
  calls: readonly LoggedCall[],
  requests: readonly ReplayedRequest[],
  offset: number | null,
): { pairs: [LoggedCall, ReplayedRequest][]; left: LoggedCall[] } {
  const pairs: [LoggedCall, ReplayedRequest][] = [];
  const left: LoggedCall[] = [];
  let r = 0;
  for (const call of calls) {
    if (offset === null) {
      if (r < requests.length) pairs.push([call, requests[r++]]);
      else left.push(call);
      continue;
    }
    const sent = sentOnLogClock(call) + offset;
    while (r < requests.length && requests[r].sentAt !== undefined && (requests[r].sentAt as number) < sent - MATCH_WINDOW) r++;
    // A request's time is its last input row's, stamped when the row was appended, before the call
    // went out: of the requests within the window, the last one sent by then is the call's. Those it
    // passes over got no call line. (Nearest in time is not enough: a retried call goes out seconds
    // after its request, when the turn's next request may be nearer.)
    let best = -1;
    for (let k = r; k < requests.length; k++) {
      const at = requests[k].sentAt;
      if (at === undefined) {
        if (best < 0) best = k;
        break;
      }
      if (at > sent + SEND_SLACK) break;
      best = k;
    }
    if (best >= 0) {
      pairs.push([call, requests[best]]);
      r = best + 1;
    } else left.push(call);
  }
  return { pairs, left };
}

/** Each session's first session in its compaction chain: a mid-turn rotation switches the tag, not the chain. */
function chainRoots(sessions: Report['sessions']): Map<string, string> {
  const parent = new Map(sessions.map((s) => [s.id, s.parentId]));
  const root = new Map<string, string>();
  for (const s of sessions) {
    let id = s.id;
    const seen = new Set<string>();
    for (let p = parent.get(id); p && parent.has(p) && !seen.has(p); p = parent.get(p)) {
      seen.add(id);
      id = p;
    }
    root.set(s.id, id);
  }
  return root;
}

/**
 * A branch's first request starts a lineage of its own, yet it sends its parent's history again:
 * what the provider could read from its cache is what the parent's last call before it left. Its
 * predecessor for the bill is that call (a delegate or a reset starts from nothing): its request's,
 * or, where the parent's requests are not in this report (the branch's lineage opened alone), the
 * parent's last logged call before the branch's own (`log.parentCalls`).
 */
function branchPredecessors(
  report: Pick<Report, 'requests' | 'sessions'>,
  bySession: ReadonlyMap<string, readonly ReplayedRequest[]>,
  callOf: ReadonlyMap<number, LoggedCall>,
  branches: ReadonlySet<string>,
  log: BillingLog,
): Map<number, LoggedCall> {
  const out = new Map<number, LoggedCall>();
  if (!branches.size) return out;
  const parentOf = new Map(report.sessions.map((s) => [s.id, s.parentId]));
  for (const id of branches) {
    // The branch's first answered request, and its parent's requests only (not every request of the file per branch).
    const r = bySession.get(id)?.find((q) => q.prefix.previousRequest === null);
    const parent = parentOf.get(id);
    if (!r || parent == null) continue;
    const parentRequests = bySession.get(parent);
    if (parentRequests?.length) {
      let best: ReplayedRequest | undefined;
      for (const q of parentRequests) {
        if (!callOf.has(q.index)) continue;
        if (q.sentAt !== undefined && r.sentAt !== undefined ? q.sentAt <= r.sentAt : q.index < r.index) best = q;
      }
      const call = best && callOf.get(best.index);
      if (call) out.set(r.index, call);
      continue;
    }
    const own = callOf.get(r.index);
    if (!own) continue;
    const sent = sentOnLogClock(own);
    let last: LoggedCall | undefined;
    for (const c of [...log.calls, ...(log.parentCalls ?? [])])
      if (c.sessionTag === parent && localSeconds(c.time) <= sent && (!last || localSeconds(c.time) >= localSeconds(last.time))) last = c;
    if (last) out.set(r.index, last);
  }
  return out;
}

/**
 * Is the call's cache read well short of what the previous call's prompt left to read, and if so,
 * which class explains it first: a logged cause, expiry, a prompt too short to cache, the replay's
 * own break, or nothing.
 */
function judge(
  call: LoggedCall,
  previous: LoggedCall,
  request: ReplayedRequest,
  causes: readonly LoggedCause[],
  asked: CacheTtlSetting['ttl'],
): Omit<RequestBilling, 'billed' | 'cost'> {
  if (call.usageUnavailable || previous.usageUnavailable || call.input === null || previous.input === null) return { cacheMiss: null, unpredictedHit: false };
  const rule = cacheRule(call.model, asked === '1h' ? '1h' : '5m');
  // Caching turned off, Hermes sends no markers, and Anthropic caches only what a marker asks for: nothing to miss.
  if (asked === 'off' && rule.family === 'anthropic') return { cacheMiss: null, unpredictedHit: false };
  const expected = previous.input;
  const shortfall = Math.max(0, expected - call.cacheRead);
  const slack = missSlack(expected);
  const predicted = request.prefix.breakAt !== null;
  // What the replay says a cache could serve, in the provider's tokens (ours scaled by the bill's count).
  const reusable = request.inputTokens > 0 ? (request.prefix.reusedTokens * call.input) / request.inputTokens : 0;
  if (shortfall <= slack) return { cacheMiss: null, unpredictedHit: predicted && call.cacheRead > reusable + slack };
  const from = localSeconds(previous.time);
  const sent = sentOnLogClock(call);
  const idle = Math.max(0, Math.round((sent - from) * 1000) / 1000);
  const logged = causes.find((c) => {
    const at = localSeconds(c.time);
    return at > from && at <= localSeconds(call.time);
  });
  const missed = { rebilledTokens: shortfall, idleSeconds: idle, lifetimeSeconds: rule.lifetimeSeconds, extraUsd: null };
  const miss = (cacheMiss: CacheMiss): Omit<RequestBilling, 'billed' | 'cost'> => ({ cacheMiss, unpredictedHit: false });
  const breakAt = request.prefix.breakAt;
  if (logged) return miss({ ...missed, class: 'cause-logged', cause: logged.cause });
  const explained = ruleExplains(rule, idle, previous.input);
  if (explained) return miss({ ...missed, class: explained, cause: null });
  if (breakAt) return miss({ ...missed, class: 'predicted', cause: breakAt.cause });
  return miss({ ...missed, class: 'unexplained', cause: null });
}

/**
 * Matches the log's calls to the report's answered requests, by session tag and order within the
 * session, on the log's clock put on the rows' (a second pass pairs what is left within each
 * compaction chain: a rotation switches the tag mid-turn); then judges each matched request's cache
 * read against the previous matched call of its lineage.
 */
export function matchBilling(
  report: Pick<Report, 'requests' | 'sessions'>,
  log: BillingLog,
  branches: ReadonlySet<string> = new Set(),
  prices?: PriceOverrides,
): BillingMatch {
  const answered = report.requests.filter((r) => !r.failed);
  const bySession = groupBy(answered, (r) => r.sessionId);
  const callsBySession = groupBy(log.calls, (c) => c.sessionTag);
  const offset = estimateOffset(callsBySession, bySession);
  const callOf = new Map<number, LoggedCall>();
  const left = new Set<LoggedCall>();
  for (const [session, calls] of callsBySession) {
    const paired = pairInOrder(calls, bySession.get(session) ?? [], offset);
    for (const [call, request] of paired.pairs) callOf.set(request.index, call);
    for (const call of paired.left) left.add(call);
  }
  if (offset !== null && left.size) {
    const root = chainRoots(report.sessions);
    const rootOf = (id: string | null): string | null => (id === null ? null : (root.get(id) ?? null));
    const waiting = groupBy(
      answered.filter((r) => !callOf.has(r.index)),
      (r) => rootOf(r.sessionId),
    );
    for (const [chain, calls] of groupBy(left, (c) => rootOf(c.sessionTag))) {
      for (const [call, request] of pairInOrder(calls, waiting.get(chain) ?? [], offset).pairs) {
        callOf.set(request.index, call);
        left.delete(call);
      }
    }
  }

  const requests: RequestBilling[] = report.requests.map((r) => {
    const call = callOf.get(r.index);
    const billed = call ? billedOf(call) : null;
    // Prices change over time: the catalogue's rates on the day the request was sent.
    const cost = billed && costOf(billed, r.sentAt === undefined ? undefined : new Date(r.sentAt * 1000), prices);
    return { billed, cost, cacheMiss: null, unpredictedHit: false };
  });
  const causesOf = groupBy(log.causes, (c) => c.sessionId);
  const branchedFrom = branchPredecessors(report, bySession, callOf, branches, log);
  for (const request of answered) {
    const call = callOf.get(request.index);
    const before = request.prefix.previousRequest;
    const previous = before === null ? branchedFrom.get(request.index) : callOf.get(before);
    if (!call || !previous) continue;
    const causes = [...new Set([request.sessionId, previous.sessionTag, call.sessionTag])].flatMap((id) => (id === null ? [] : (causesOf.get(id) ?? [])));
    const judged = judge(call, previous, request, causes, log.cacheTtl?.ttl ?? '5m');
    const mine = requests[request.index];
    mine.cacheMiss = judged.cacheMiss && { ...judged.cacheMiss, extraUsd: mine.billed && missCost(judged.cacheMiss, mine.billed, mine.cost) };
    mine.unpredictedHit = judged.unpredictedHit;
  }
  const priced = requests.filter((r) => r.cost);

  // Our tokenizer is not the provider's: per model, the bill's prompt tokens over ours, on the requests both counted.
  const byModel = new Map<string, { requests: number; billedInput: number; replayedInput: number }>();
  for (const r of answered) {
    const call = callOf.get(r.index);
    if (!call || call.usageUnavailable || call.input === null || r.inputTokens <= 0) continue;
    const m = byModel.get(call.model) ?? { requests: 0, billedInput: 0, replayedInput: 0 };
    m.requests++;
    m.billedInput += call.input;
    m.replayedInput += r.inputTokens;
    byModel.set(call.model, m);
  }
  const matchedIn = new Map<string, number>();
  for (const r of answered) if (callOf.has(r.index)) matchedIn.set(r.sessionId, (matchedIn.get(r.sessionId) ?? 0) + 1);
  const sessionIds = [...new Set([...bySession.keys(), ...callsBySession.keys()])];
  const recordedOf = new Map(report.sessions.map((s) => [s.id, s.recorded]));
  // Priced at the time they were sent where the log's clock is placed, else at the catalogue's latest.
  const unmatched = log.calls
    .filter((c) => left.has(c) || c.sessionTag === null)
    .map((c) => ({
      file: c.file,
      line: c.pos.line ?? 0,
      sessionTag: c.sessionTag,
      n: c.n,
      model: c.model,
      input: c.input,
      usd: costOf(billedOf(c), offset === null ? undefined : new Date((sentOnLogClock(c) + offset) * 1000), prices)?.usd ?? null,
    }));
  return {
    requests,
    billing: {
      sources: log.sources,
      cacheTtl: log.cacheTtl,
      logClockOffsetSeconds: offset,
      sessions: sessionIds.map((sessionId) => {
        const usage = (callsBySession.get(sessionId) ?? []).filter((c) => !c.usageUnavailable && c.input !== null);
        return {
          sessionId,
          calls: callsBySession.get(sessionId)?.length ?? 0,
          usageCalls: usage.length,
          requests: bySession.get(sessionId)?.length ?? 0,
          matched: matchedIn.get(sessionId) ?? 0,
          loggedPromptTokens: usage.reduce((n, c) => n + (c.input ?? 0), 0),
          loggedOutputTokens: usage.reduce((n, c) => n + (c.output ?? 0), 0),
          recorded: storeCounters(recordedOf.get(sessionId)),
        };
      }),
      cost: {
        usd: priced.reduce((n, r) => n + (r.cost?.usd ?? 0), 0),
        priced: priced.length,
        unpriced: requests.filter((r) => r.billed && !r.cost).length,
        catalogue: PRICE_CATALOGUE,
        unmatchedUsd: unmatched.reduce((n, c) => n + (c.usd ?? 0), 0),
      },
      models: [...byModel].map(([model, m]) => ({ model, ...m, ratio: Math.round((m.billedInput / m.replayedInput) * 1000) / 1000 })),
      unmatchedCalls: unmatched,
    },
  };
}

/** A session's counters as the bill counts a call: its whole prompt (upstream stores input without the cache). */
function storeCounters(r: RecordedCounters | undefined): BilledSession['recorded'] {
  if (!r || r.apiCalls === undefined || r.inputTokens === undefined) return null;
  return { apiCalls: r.apiCalls, promptTokens: r.inputTokens + (r.cacheReadTokens ?? 0) + (r.cacheWriteTokens ?? 0), outputTokens: r.outputTokens ?? 0 };
}

/** The findings the bill gives: misses nothing explains, and breaks the bill says did not happen. */
export function billingDiagnostics(report: Pick<Report, 'requests'>, matched: BillingMatch): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const r of report.requests) {
    const b = matched.requests[r.index];
    // The line is the log's, not the transcript's: named in the message, not as the finding's place.
    const where = b.billed ? `${b.billed.source.file}:${b.billed.source.line}` : '';
    if (b.cacheMiss?.class === 'unexplained')
      out.push({
        severity: 'warning',
        code: 'cache-miss-unexplained',
        message: `the provider read ${b.billed?.cacheRead ?? 0} of the previous call's ${b.cacheMiss.rebilledTokens + (b.billed?.cacheRead ?? 0)} prompt tokens from its cache (${b.cacheMiss.rebilledTokens} billed again) after ${b.cacheMiss.idleSeconds === null ? 'an unknown time' : `${Math.round(b.cacheMiss.idleSeconds)} s`} idle, with no break in the replayed prefix, no logged cause and the prompt long enough to cache (${where})`,
        turn: r.turn,
        request: r.index,
        sessionId: r.sessionId,
      });
    if (b.unpredictedHit)
      out.push({
        severity: 'warning',
        code: 'cache-hit-unpredicted',
        message: `the replay locates a break here (${r.prefix.breakAt?.cause ?? 'unknown cause'}), yet the provider read ${b.billed?.cacheRead} tokens from its cache, more than the replay's reusable prefix leaves: the replay differs from what was sent (${where})`,
        turn: r.turn,
        request: r.index,
        sessionId: r.sessionId,
      });
  }
  // Against the store's totals: where its call count is the session's own (it equals the requests
  // replayed; a gateway writes running totals instead), calls it counted that no log read holds.
  for (const s of matched.billing.sessions) {
    const r = s.recorded;
    if (!r || r.apiCalls !== s.requests || r.apiCalls <= s.usageCalls) continue;
    const missing = r.apiCalls - s.usageCalls;
    out.push({
      severity: 'info',
      code: 'bill-incomplete',
      message: `session ${s.sessionId}: the store counted ${r.apiCalls} API calls (${r.promptTokens} prompt tokens), the logs read hold ${s.usageCalls} with usage (${s.loggedPromptTokens}): ${missing} ${missing === 1 ? 'is' : 'are'} in no log read (a file rotated away, or logs kept elsewhere), so ${s.requests - s.matched} of its ${s.requests} requests have no bill`,
      turn: null,
      request: null,
      sessionId: s.sessionId,
    });
  }
  return out;
}
