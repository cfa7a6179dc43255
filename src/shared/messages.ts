// Messages between the extension host (or the standalone report page) and the inspector webview.
// Shared by both bundles: no imports from either side. The webview knows nothing about transcript
// formats; it receives a small index first, then pulls details and message bodies page by page.

import type { RecordedReport } from './recordedReportTypes';
import type { AgentName, AgentSessionRow } from './agentFolderTypes';
import type { OverviewChanges, OverviewLineage, SessionOverview } from './overviewTypes';
import type { BilledUsage, BreakCause, CacheMiss, ReportCompaction, RequestCost } from './reportTypes';
import type { InjectionKind } from './model/injection';
import type { RpcRequest, RpcResponse } from './rpc';
import { bytesToBase64 } from './base64';

export const PROTOCOL_VERSION = 4;

export interface SpanView {
  kind: InjectionKind;
  /** UTF-16 offsets into MessageView.text. */
  start: number;
  end: number;
}

export interface CompactionView extends ReportCompaction {
  /** The summary carrier's text, when the compacted list has one. */
  carrier: string | null;
  /** Rows of the list before that are not in the list after: role and a one-line preview each. */
  dropped: { role: string; preview: string }[];
}

export interface TurnView {
  index: number;
  sessionId: string;
  userMessageIndex: number;
  /** First line of the user's own text (no injection), for the stepper. */
  title: string;
  requests: number[];
  injectedKinds: InjectionKind[];
  compression: CompactionView | null;
  /** What its billed requests cost, USD (docs/billing.md "Cost"); null where none of them was priced. */
  costUsd: number | null;
}

/** One turn as the host's tree lists it under its session. */
export interface SessionTurn {
  index: number;
  title: string;
  requests: number;
  userMessageIndex: number;
  injectedKinds: TurnView['injectedKinds'];
  compacted: boolean;
  breaks: number;
  /** Its first request whose prefix broke for a cause to fix (as `breaks` counts them); null when none. */
  firstBreak: number | null;
}

export interface BreakView {
  messageIndex: number;
  byteOffset: number | null;
  cause: BreakCause;
}

export interface RequestView {
  index: number;
  turn: number;
  sessionId: string;
  systemPromptSha256: string;
  messageCount: number;
  inputTokens: number;
  /** Where its tokens go (docs/report.md "Token categories"): category → tokens. */
  categories: Record<string, number>;
  reusedTokens: number;
  previousRequest: number | null;
  stable: boolean;
  breakAt: BreakView | null;
  /** Sent and not answered (a provider error, an interrupt). */
  failed: boolean;
  /** When it was sent, epoch seconds, and the idle seconds since the previous request of its lineage; null: not recorded. */
  sentAt: number | null;
  gapSeconds: number | null;
  /** Wire index of the turn's user message in this request (re-anchored); null when there is none. */
  userWireIndex: number | null;
  /** A request dump that captured this request: its API mode and the wire messages carrying a cache breakpoint. */
  captured: { path: string; apiMode: string | null; breakpoints: number[] } | null;
  /** What the provider billed for it (agent.log, docs/billing.md), and why its cache read fell short; null: no line matched, no miss. */
  billed: BilledUsage | null;
  cacheMiss: CacheMiss | null;
  cost: RequestCost | null;
}

export interface DiagnosticView {
  severity: 'error' | 'warning' | 'info';
  code: string;
  message: string;
  turn: number | null;
  request: number | null;
}

/** Per-turn flag bits in `InspectorIndex.turns.flags`: one per injection kind, then compaction. */
export const INJECTION_KINDS: readonly InjectionKind[] = ['memory', 'plugin', 'gateway-note', 'surface-note', 'multimodal-note'];
export const TURN_COMPACTED = 1 << INJECTION_KINDS.length;

/** Per-request flag bits in `InspectorIndex.requests.flags`. */
export const REQUEST_STABLE = 1;
/** The system prompt differs from the previous request's in its lineage. */
export const REQUEST_SYSTEM_CHANGED = 2;
/**
 * The prefix broke because a compaction replaced the history: re-billed by design, not a break to
 * fix (a `prefix-break` of cause `compression` is info in docs/report.md).
 */
export const REQUEST_COMPACTION = 4;
/** The prefix broke because the user took turns back (/undo, /retry): their act, not a break to fix. */
export const REQUEST_REWIND = 8;
/** Sent and not answered: a provider error or an interrupt (docs/hermes-behaviour.md §5.11). */
export const REQUEST_FAILED = 16;
/** The order of CacheMiss['class'], for the index's packed column. */
export const CACHE_MISS_CLASSES: readonly CacheMiss['class'][] = ['cause-logged', 'expired', 'too-short', 'predicted', 'unexplained'];

/**
 * What the webview gets first, sized to stay small at any length (~15 bytes a request): the header,
 * the counts, and one packed integer column (see packInts) per number the view needs for every turn
 * or request at once (the chart, the strip, stepping). Titles, hashes, break causes, compactions and
 * findings come in pages (RequestMap). Turns own consecutive requests, `requestCount` of them each.
 */
export interface InspectorIndex {
  title: string;
  source: { path: string; format: string };
  profile: string;
  tokenizer: string;
  /** `recordedApiCalls`: the agent's own sessions.api_call_count, null where the store keeps none. */
  sessions: { id: string; parentId: string | null; systemPromptSha256: string | null; replayedRequests: number; recordedApiCalls: number | null }[];
  turnCount: number;
  requestCount: number;
  turns: { requestCount: PackedInts; flags: PackedInts };
  /** -1 stands for none (no previous request, no break, no user message on the wire). */
  requests: {
    inputTokens: PackedInts;
    reusedTokens: PackedInts;
    messageCount: PackedInts;
    userWireIndex: PackedInts;
    previousRequest: PackedInts;
    breakMessage: PackedInts;
    /** Whole seconds since the previous request of its lineage; -1 where not recorded. */
    gapSeconds: PackedInts;
    flags: PackedInts;
    /**
     * The billed cache read in our tokens (scaled by the request's billed prompt against ours, so it
     * sits beside the replay's reusable prefix); -1 where no call with usage matched.
     */
    billedRead: PackedInts;
    /** The cache miss's class, as its index in CACHE_MISS_CLASSES plus one; 0 for none or not judged. */
    missClass: PackedInts;
  };
  summary: {
    /** Requests whose prefix broke, by cause. */
    breaks: Partial<Record<BreakCause, number>>;
    /**
     * The agent.log files read beside the transcript (docs/billing.md): their call lines, the
     * requests a line matched, and the cache misses by class; null where no log was read.
     */
    billing: { logs: number; calls: number; matched: number; misses: Partial<Record<CacheMiss['class'], number>>; usd: number; missUsd: number } | null;
    compactions: number;
    findings: Record<DiagnosticView['severity'], number>;
    /** Every request's token categories summed: what the whole file or lineage sent, by where it went. */
    categories: Record<string, number>;
    /**
     * How long an idle cached prefix lives for these requests, seconds: Anthropic's 5 minutes, or 1
     * hour where the home's config.yaml asks for it; null where it turns caching off. What marks a
     * long gap.
     */
    cacheLifetimeSeconds: number | null;
  };
}

/** Integers as zigzag varints of their successive differences, base64-encoded. */
export type PackedInts = string;

export function packInts(values: ArrayLike<number>): PackedInts {
  // Seven bits a byte: ten bytes hold any safe integer's zigzag.
  const bytes = new Uint8Array(values.length * 10);
  let n = 0;
  let previous = 0;
  for (let i = 0; i < values.length; i++) {
    const d = values[i] - previous;
    previous = values[i];
    // Arithmetic, not bit operations: token totals can pass 2^31.
    let z = d >= 0 ? d * 2 : -d * 2 - 1;
    while (z >= 128) {
      bytes[n++] = (z % 128) + 128;
      z = Math.floor(z / 128);
    }
    bytes[n++] = z;
  }
  return bytesToBase64(bytes.subarray(0, n));
}

export function unpackInts(packed: PackedInts, count: number): Float64Array {
  const binary = atob(packed);
  const out = new Float64Array(count);
  let previous = 0;
  let at = 0;
  for (let i = 0; i < count && at < binary.length; i++) {
    let z = 0;
    let scale = 1;
    let b: number;
    do {
      b = binary.charCodeAt(at++);
      z += (b % 128) * scale;
      scale *= 128;
    } while (b >= 128 && at < binary.length);
    previous += z % 2 === 0 ? z / 2 : -(z + 1) / 2;
    out[i] = previous;
  }
  return out;
}

export interface MessageView {
  /** Wire index in its request (0 is the system message). */
  index: number;
  role: string;
  /** The text this message sends (string content or text parts; images as "[image]"). */
  text: string;
  tokens: number;
  roughTokens: number;
  substitution: 'sidecar' | 'placeholder' | null;
  /** What the row stored, when the wire text differs from it (a sidecar or a placeholder). */
  storedText: string | null;
  injected: SpanView[];
  toolCalls: { name: string; arguments: string }[];
  toolCallId: string | null;
}

/** The bytes around a prefix break, on both sides. */
export interface BreakContext {
  request: number;
  previousRequest: number;
  messageIndex: number;
  byteOffset: number | null;
  cause: BreakCause;
  /** Text before the first differing character (shared by both sides), and what follows on each. */
  before: string;
  previousAfter: string;
  currentAfter: string;
  /** Whether text was cut off before `before`, and after each side's text. */
  cut: { before: boolean; previousAfter: boolean; currentAfter: boolean };
}

export interface UiState {
  turn: number;
  /** -1 for a turn that made no provider call. */
  request: number;
  /** Scroll position of the message list, in messages. */
  firstVisibleMessage: number;
}

/** Where the session overview was left: kept while a lineage is open and across restarts. */
export interface OverviewState {
  /** A column key of OVERVIEW_COLUMNS (src/shared/overviewColumns.ts); null: start order. */
  sort: { column: string; descending: boolean } | null;
  /** Case-insensitive text in a title, id or source (filterLineages). */
  filter: string;
  /** Only lineages of this source (sessions.source); null: every source. */
  source: string | null;
  has: ('breaks' | 'errors')[];
  /** Lineage rows opened to list their sessions. */
  expanded: string[];
  /** Scroll position of the table, in rows. */
  firstVisibleRow: number;
  /** The row holding the keyboard focus: a lineage id, or null. */
  focused: string | null;
  /**
   * The column keys the table shows (the title always is); null: the default set. Missing from a
   * state stored before columns could be chosen, which reads as null.
   */
  columns?: string[] | null;
}

/**
 * What the page shows and remembers. A file of several lineages opens on its overview
 * (`lineage` null) and a row opens that lineage's inspector; a file of one lineage has no
 * overview and shows the whole file's inspector with `lineage` null.
 */
export interface ViewState {
  lineage: string | null;
  /** The inspector's selection in the lineage (or file) shown. */
  ui: UiState | null;
  overview: OverviewState | null;
}

export type Navigation = 'nextTurn' | 'previousTurn' | 'nextRequest' | 'previousRequest' | 'nextBreak';

// ---- requests the webview makes (answered by a response with the same id) ----

export interface RequestMap {
  messages: { params: { request: number; start: number; count: number }; result: MessageView[] };
  turns: { params: { start: number; count: number }; result: TurnView[] };
  requests: { params: { start: number; count: number }; result: RequestView[] };
  findings: { params: { start: number; count: number }; result: DiagnosticView[] };
  breakContext: { params: { request: number }; result: BreakContext | null };
  /**
   * Scopes every later request to one lineage of the overview (its id: its first session's), or
   * back to the whole file (null); answers the scope's index. Unknown lineages reject.
   */
  openLineage: { params: { lineage: string | null }; result: InspectorIndex };
}

/** The lists the view pages through besides message bodies. */
export type PagedList = 'turns' | 'requests' | 'findings';

/** Items [start, start + count) of a list, as every host answers a page (empty past the end). */
export function pageOf<T>(list: readonly T[], start: number, count: number): T[] {
  const from = Math.max(0, start);
  return list.slice(from, from + Math.max(0, count));
}

// ---- webview → host ----

export type FromWebview =
  | { type: 'ready'; version: number }
  | RpcRequest<RequestMap>
  | { type: 'selected'; state: ViewState }
  | { type: 'copyRequest'; request: number }
  /** A session of an agent's project chosen: the host opens its file in an inspector. */
  | { type: 'openTranscript'; path: string };

/** An agent's project as its overview shows it: its sessions newest first, figures filled in as each file is read. */
export interface AgentProjectView {
  agent: AgentName;
  project: string;
  folder: string | null;
  /** A row whose `figures` and `problem` are both null is not read yet. */
  rows: AgentSessionRow[];
}

// ---- host → webview ----

export type ToWebview =
  /** Another agent's transcript, read as recorded (docs/recorded.md): the view shows its report alone. */
  | { type: 'recorded'; version: number; report: RecordedReport }
  /** Another agent's project (docs/recorded.md "Finding them"): the view shows its sessions alone, posted again as each is read. */
  | { type: 'agentProject'; version: number; project: AgentProjectView }
  /**
   * `index` is the scope of `state.lineage` (the whole file when null, or when that lineage is gone);
   * null when the view shows the overview, which no index is drawn from (that of a large home's
   * whole file is megabytes). `overview` is null for a file of one lineage.
   */
  | { type: 'init'; version: number; index: InspectorIndex | null; overview: SessionOverview | null; state: ViewState | null }
  /**
   * The file changed: the current scope's index again (null, as init's, on the overview), and the
   * overview: whole, or as what changed of the one the view holds (init's or the last update's,
   * with the rows filled in since).
   */
  | { type: 'update'; index: InspectorIndex | null; overview: { whole: SessionOverview | null } | { changes: OverviewChanges } }
  /**
   * Rows of a listed overview filled in (withFilled: each in place of the top-level row of its id),
   * and whether it is still being read; nothing else changed. Only the rows: the whole overview of a
   * large home again after each batch was megabytes a post, and kept a core of the editor busy.
   */
  | { type: 'overviewFilled'; rows: OverviewLineage[]; reading: boolean }
  | RpcResponse
  | { type: 'navigate'; to: Navigation }
  /**
   * Go to a place chosen outside the view (a tree click): open `lineage` (null: the whole file),
   * then select `turn` and `request` there, both indexes of that scope (null: its first).
   */
  | { type: 'reveal'; lineage: string | null; turn: number | null; request: number | null };

/** A transport: the VS Code webview API, or the standalone report's in-page host. */
export interface Transport {
  post(message: FromWebview): void;
  onMessage(handler: (message: ToWebview) => void): void;
}

/**
 * A whole inspection embedded in a standalone report. Message bodies are stored once; each request
 * lists its messages as the leading `keep` messages of its `base` request plus its own `add` ids,
 * so the data stays linear in the transcript although every request re-sends its history.
 */
export interface EmbeddedInspection {
  version: number;
  index: InspectorIndex;
  turns: TurnView[];
  requests: RequestView[];
  findings: DiagnosticView[];
  bodies: MessageView[];
  layouts: { base: number | null; keep: number; add: number[] }[];
  breaks: (BreakContext | null)[];
}

/**
 * An EmbeddedInspection's JSON text, gzip-compressed, in base64: a home's report holds thousands of
 * lineages and the page decodes only the one opened (issue 23).
 */
export type CompressedInspection = string;

/**
 * What a standalone report embeds. A file of one lineage: its whole inspection, as the editor
 * shows it. A file of several: the overview it opens on, the whole file's index (init's, and what
 * `openLineage(null)` answers), and each lineage's inspection by lineage id, compressed, which
 * `openLineage` decompresses and switches to; the whole file's lists and bodies are not embedded a
 * second time.
 */
export type EmbeddedReport =
  | { version: number; overview: null; inspection: EmbeddedInspection }
  | { version: number; overview: SessionOverview; index: InspectorIndex; lineages: Record<string, CompressedInspection> };

/** What a standalone page embeds: a Hermes report, or another agent's transcript's (docs/recorded.md), shown whole. */
export type EmbeddedPage = EmbeddedReport | { version: number; recorded: RecordedReport };
