// The analysis report's public types (docs/report.md): the CLI's JSON contract, read by scripts and CI.
// Types only, with imports from the model alone, so the protocol and the webview can name them
// without pulling in the engine.

import type { InjectionKind } from './model/injection';
import type { CacheTtlSetting, RecordedCounters, Severity } from './model/transcript';

export type BreakCause = 'sidecar-not-replayed' | 'sidecar-dropped' | 'history-rewritten' | 'rewind' | 'compression' | 'system-changed' | 'tools-changed';

/**
 * A compaction or a user's rewind re-bills the prefix by design: a break to see, not one to fix, so
 * it is neither an error nor counted among the cache breaks.
 */
export function deliberateBreak(cause: BreakCause | undefined): boolean {
  return cause === 'compression' || cause === 'rewind';
}

export interface PrefixBreak {
  messageIndex: number;
  byteOffset: number | null;
  cause: BreakCause;
}

export interface PrefixResult {
  previousRequest: number | null;
  stable: boolean;
  breakAt: PrefixBreak | null;
  reusedTokens: number;
}

/** Which estimate decided a compaction before a turn (docs/hermes-behaviour.md §5.8). */
export interface PreflightEstimate {
  /** `anchored`: the previous call's billed prompt and completion plus the rough rows since; `rough`: the request's rough estimate. */
  method: 'anchored' | 'rough';
  /** The estimate as replayed; null where the anchor held but its call's billed usage is not recorded. */
  tokens: number | null;
  /** The call it was anchored on: its request and billed figures. */
  anchor: { request: number; input: number; output: number } | null;
  /** The agent's own figure and threshold, from its `Preflight compression: ~T tokens >= H threshold` line; null where none matched. */
  logged: { tokens: number; threshold: number; source: { file: string; line: number } } | null;
}

/** A compaction as the report states it (docs/report.md `compression`). */
export interface ReportCompaction {
  mode: 'rotation' | 'in-place';
  beforeMessages: number;
  afterMessages: number;
  beforeTokens: number;
  afterTokens: number;
  beforeRoughTokens: number;
  afterRoughTokens: number;
  madeProgress: boolean;
  /**
   * Which branch of the preflight gate let the compaction run; null when the transcript does not
   * record what the gate compares with (protect_first_n, protect_last_n, the threshold): not recorded.
   */
  gateBranch: 'count' | 'chars' | null;
  /**
   * Which estimate the agent's preflight compared with its threshold, where an agent.log was read
   * (docs/billing.md): absent without one; only on a compaction before a turn.
   */
  estimate?: PreflightEstimate;
  /** `confirmed`: the fallback rule found the copy of the turn's own row (its content was rewritten by the compaction). */
  reanchor: { before: number; after: number; rule: string; confirmed?: boolean };
  /** The turn's user row was copied with its content changed: the todo snapshot folded in, or its parts re-projected. */
  userRowChange?: 'todo-merged' | 'projected';
  /** That rewrite dropped the row's api_content sidecar: the requests after it send the row without its injected context. */
  sidecarDropped?: boolean;
}

export type DiagnosticCode =
  | 'system-prompt-changed'
  | 'prefix-break'
  | 'notes-lost'
  | 'compression-no-progress'
  | 'reanchor-fallback'
  | 'reanchor-none'
  | 'replay-mismatch'
  | 'parse-error'
  | 'file-skipped'
  | 'journal-rolled-back'
  | 'replay-count-mismatch'
  | 'counters-not-recorded'
  | 'no-turns'
  | 'session-list-only'
  | 'snapshot-incomplete'
  | 'rewind-order-not-recorded'
  | 'not-a-transcript'
  | 'cache-miss-unexplained'
  | 'cache-hit-unpredicted'
  | 'bill-incomplete';

export interface Diagnostic {
  severity: Severity;
  code: DiagnosticCode;
  message: string;
  turn: number | null;
  request: number | null;
  /** Where in the input (line for text formats, session and row for state.db). */
  line?: number;
  column?: number;
  offset?: number;
  sessionId?: string;
  rowId?: number;
  /** The input ends inside this problem: a writer may still be writing the file. */
  atEnd?: boolean;
}

export interface ReportMessage {
  role: string;
  tokens: number;
  substituted: boolean;
  substitution: 'sidecar' | 'placeholder' | null;
}

export interface ReportSession {
  id: string;
  parentId: string | null;
  systemPromptSha256: string | null;
  endReason: string | null;
  /** What the replay found in this session, beside what the agent recorded (`recorded`). */
  replayed: SessionCounts;
  /** The agent's own counters (sessions table; `usage`: its session_model_usage rows), where the store keeps them; absent: not recorded. */
  recorded?: RecordedCounters;
}

export interface SessionCounts {
  /** Requests answered in this session. */
  requests: number;
  /** Requests sent in this session that got no answer (not among `requests`). */
  failed: number;
  /** Rows read (every generation, archived ones included). */
  rows: number;
  /** Tokens sent: the sum of its requests' inputTokens. */
  inputTokens: number;
  /** Of those, tokens a prefix cache could have served: the sum of reusedTokens. */
  reusedTokens: number;
}

/** A request dump beside the transcript, matched with the request it captured. */
export interface ReportCapture {
  path: string;
  sessionId: string;
  /** chat-completions, anthropic-messages or responses; null when the dump could not be read whole. */
  apiMode: string | null;
  /** The replayed request the dump holds, or null when none matches. */
  request: number | null;
  /** Wire message indices that carried an Anthropic cache_control breakpoint. */
  breakpoints: number[];
  /**
   * Entries of the body's own list in its API mode (Anthropic: system + messages; Responses:
   * instructions + input items); null when the dump could not be read whole. The request's
   * messageCount counts chat wire messages in every mode.
   */
  bodyEntries: number | null;
}

/** What the provider counted for one call, as agent.log printed it (docs/billing.md); null where the line does not say. */
export interface BilledUsage {
  /** The whole prompt: uncached, cache read and cache write together (Hermes normalises every provider so). */
  input: number | null;
  output: number | null;
  cacheRead: number | null;
  cacheWrite: number | null;
  model: string;
  provider: string;
  responseId: string | null;
  latencySeconds: number;
  /** The line's time as written: the writing machine's local time, no zone. */
  loggedAt: string;
  source: { file: string; line: number };
}

/** In the order they are tried: the first that holds is the class. */

/** What a billed call cost by the price catalogue (docs/billing.md "Cost"). */
export interface RequestCost {
  usd: number;
  /** The rates used, USD per million tokens (a tiered price's base); null where the catalogue has none. */
  rates: { input: number | null; cacheRead: number | null; cacheWrite: number | null; output: number | null };
  /** The model and provider as the catalogue matched them. */
  model: string;
  provider: string;
  catalogue: string;
  notes: string[];
}

/** A cause the agent itself logs for rebuilding its system prompt (docs/agent-log.md). */
export type LoggedCauseKind = 'stored-prompt-null' | 'stored-prompt-empty' | 'stored-prompt-stale' | 'capability-refresh' | 'restore-failed' | 'persist-failed';

/** A miss's cause follows its class: the logged cause, the replay's break cause, or none. */
export type CacheMiss = {
  /** Of the previous call's prompt (at most this one's), the tokens not read from the cache: billed again. */
  rebilledTokens: number;
  /** Seconds from the previous call's answer to this call's sending, on the log's clock. */
  idleSeconds: number | null;
  /** How long the provider keeps an idle prefix for this call (the request's asked lifetime), seconds; null where it documents none. */
  lifetimeSeconds: number | null;
  /** What the re-billed tokens cost beyond reading them from the cache, USD; null where the call is not priced. */
  extraUsd: number | null;
} & (
  | { class: 'cause-logged'; cause: LoggedCauseKind }
  | { class: 'predicted'; cause: BreakCause }
  | { class: 'expired' | 'too-short' | 'unexplained'; cause: null }
);

/**
 * One session's calls in the logs beside its requests, and both beside the store's own counters
 * (reconciled: docs/billing.md "Against the store's totals").
 */
export interface BilledSession {
  sessionId: string;
  /** Its `API call` lines in the logs read; `usageCalls` of them reported usage. */
  calls: number;
  usageCalls: number;
  /** Its answered requests, and how many of them a call matched. */
  requests: number;
  matched: number;
  /** The usage lines' prompt (`in=`) and completion (`out=`) tokens summed. */
  loggedPromptTokens: number;
  loggedOutputTokens: number;
  /**
   * The store's counters for it (sessions columns): calls with usage, their whole prompts (upstream's
   * input plus cache read and write) and completions; null where it keeps none.
   */
  recorded: { apiCalls: number; promptTokens: number; outputTokens: number } | null;
}

/** Which billing sources were read, and how their calls matched the replayed requests. */
export interface ReportBilling {
  /** The logs read, oldest first; empty when none was found or given. */
  sources: { path: string; calls: number }[];
  /**
   * The cache lifetime the home's config.yaml asks for (`prompt_caching.cache_ttl`: `5m`, `1h`, or
   * `off` for caching turned off) and where; null where none is set (upstream's 5 minutes).
   */
  cacheTtl: CacheTtlSetting | null;
  /**
   * Seconds added to the log's local time to put it on the rows' clock, found from the calls and
   * requests themselves; null where nothing gave one (order alone matched).
   */
  logClockOffsetSeconds: number | null;
  /** Per session (tag or replayed): its calls in the logs, its answered requests, how many matched. */
  sessions: BilledSession[];
  /**
   * Per model, over the requests a call with usage matched: the provider's prompt tokens and ours
   * (the replay's tokenizer), and the first over the second, rounded to 3 places. Our counts are
   * never the bill: this is how far apart they are.
   */
  models: { model: string; requests: number; billedInput: number; replayedInput: number; ratio: number }[];
  /**
   * The requests' costs summed (`usd`), how many were priced, how many billed ones were not, and
   * what the calls that matched no request cost (`unmatchedUsd`: a log read alone has only those).
   */
  cost: { usd: number; priced: number; unpriced: number; catalogue: string; unmatchedUsd: number };
  /** Calls that answer no replayed request: auxiliary calls, aborted turns, rows never stored, other stores' sessions. */
  unmatchedCalls: { file: string; line: number; sessionTag: string | null; n: number; model: string; input: number | null; usd: number | null }[];
}

export interface Report {
  schemaVersion: 2;
  source: { path: string; format: string };
  profile: string;
  tokenizer: string;
  sessions: ReportSession[];
  turns: {
    index: number;
    sessionId: string;
    userMessageIndex: number;
    requests: number[];
    injected: { kind: InjectionKind; text: string; start: number; end: number; part?: number }[];
    compression: ReportCompaction | null;
    laterCompressions: ReportCompaction[];
    line?: number;
  }[];
  requests: {
    index: number;
    turn: number;
    sessionId: string;
    systemPromptSha256: string;
    messageCount: number;
    messages?: ReportMessage[];
    inputTokens: number;
    /**
     * Where its tokens go (docs/report.md "Token categories"): `system/<section>`, `tools/<toolset>`,
     * `history/<role>`, `notes/<kind>`, `current-user`; summing to inputTokens plus its tool schemas'.
     */
    categories: Record<string, number>;
    prefix: PrefixResult;
    /** Sent and not answered (a provider error, retries exhausted, an interrupt); absent when answered. */
    failed?: true;
    /** When it was sent (its last input row's time), epoch seconds; absent when the rows carry no time. */
    sentAt?: number;
    /**
     * Seconds between the previous request of its lineage (its answer, else its sending) and this
     * one's sending: how long a provider cache sat idle. Absent where either time is not recorded.
     */
    gapSeconds?: number;
    /** The call that answered it, as the provider billed it; null where no log line matched. */
    billed: BilledUsage | null;
    /** Its cache read fell well short of what the previous call's prompt left: why, first cause first; null otherwise or where not judged. */
    cacheMiss: CacheMiss | null;
    /** What its billed call cost; null where no call matched, it had no usage, or the catalogue has no price. */
    cost: RequestCost | null;
    line?: number;
  }[];
  diagnostics: Diagnostic[];
  billing: ReportBilling;
  /** Request dumps compared with the replay (only when there were any). */
  captures?: ReportCapture[];
}
