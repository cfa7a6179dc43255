// The common model every reader produces: sessions of stored rows (exactly as the agent kept them),
// the real request bodies found in dumps, and findings about the input itself. Turns and requests
// are not read from disk: the replay derives them from the rows (src/engine/replay.ts).

import type { TurnInjectionInputs } from './injection';
import type { Row } from './rows';

export type TranscriptFormat = 'hermes-state-db' | 'hermes-session-json' | 'hermes-request-dump' | 'turn-trace' | 'hermes-agent-log';

/** Where something is in the input: a line/column for text formats, a session/row for SQLite. */
export interface SourcePos {
  line?: number; // 1-based
  column?: number; // 1-based
  offset?: number; // byte offset, when lines mean nothing (binary input)
  entry?: number; // 0-based place in a document's list, where its lines mean little (a HAR's log.entries[i])
  sessionId?: string;
  rowId?: number; // state.db messages.id
}

export type Severity = 'error' | 'warning' | 'info';

/**
 * A finding about the input itself (as opposed to one about the prompts): `parse-error` for what
 * cannot be read, `session-list-only` for a file too large to read whole without a session chosen,
 * `snapshot-incomplete` for what a session snapshot cannot hold or tell (copies, a frozen file),
 * `rewind-order-not-recorded` for undone turns whose order against the rewinds a store cannot tell,
 * `not-a-transcript` for a file of another kind (another agent's log, recorded HTTP traffic).
 */
export interface InputFinding {
  severity: Severity;
  code: 'parse-error' | 'file-skipped' | 'journal-rolled-back' | 'session-list-only' | 'snapshot-incomplete' | 'rewind-order-not-recorded' | 'not-a-transcript';
  message: string;
  pos: SourcePos;
  /** The input ends inside the problem: a writer may still be writing it (live views wait). */
  atEnd?: boolean;
}

/** A compaction the reader saw in the stored data (rotation into a child, or in place). */
export interface StoredCompaction {
  mode: 'rotation' | 'in-place';
  /** The message list before the compaction (the parent's rows, or the archived generation). */
  before: Row[];
  /** Positions of `before` rows, same indices. */
  beforePos: SourcePos[];
  /** Which rows of the compacted list copy which of `before`: set by a reader whose store records copy identity. */
  copies?: CopyMatch;
}

/** How a copy's content relates to its original's (src/hermes/rowIdentity.ts). */
/** `pruned`: a tool result the compaction rewrote (old output cleared), kept by its call id and time. */
export type ContentRelation = 'equal' | 'projected' | 'todo-merged' | 'pruned';

/** Rows of a new list matched to the rows of an older one they copy. */
export interface CopyMatch {
  /** For each row of the new list, the index of the old row it copies, or -1 for a new row. */
  source: Int32Array;
  /** How each copy's content relates to its original (null for new rows). */
  relation: (ContentRelation | null)[];
}

/**
 * One stretch of one session's rows that was a single running message list: a session that was
 * never compacted is one generation; each in-place compaction starts a new one.
 */
export interface Generation {
  rows: Row[];
  pos: SourcePos[];
  /** How this generation's list came to be, when it was made by a compaction. */
  compaction?: StoredCompaction;
  /**
   * Trace-provided facts the replay must use instead of re-deriving them: for a turn-trace the
   * agent recorded its typed current-turn index and injected context per turn.
   */
  turnInputs?: Map<number, RecordedTurnInputs>;
  /** Leading rows known to be carried over from the previous generation (a rewind in a trace). */
  carried?: number;
  /** The list ends with a request that was sent but has no stored answer (a request dump). */
  trailingRequest?: boolean;
  /**
   * Requests sent that got no answer (a provider error, retries exhausted): each is the number of
   * leading rows it sent. The failed-turn notice that recorded it is display-only (never sent), so
   * it is not among the rows.
   */
  failedAt?: number[];
  /**
   * A snapshot's last row, a user's ask the file holds no answer to: no turn here (a rotation's
   * pre-publish flush hands it to the child, or the agent is still answering it).
   */
  unansweredAsk?: number;
}

/** Assembly inputs recorded for the turn whose user row sits at the map key (turn-trace only). */
export interface RecordedTurnInputs extends TurnInjectionInputs {
  /** The inbound message before any injection. */
  userMessage: unknown;
  currentTurnUserIdx?: number;
  systemPrompt?: string;
  tools?: unknown[];
}

export interface TranscriptSession {
  id: string;
  parentId: string | null;
  /** As stored (upstream writes `compression` for a compaction by rotation, `branched` for /branch). */
  endReason: string | null;
  /** A child that starts its own conversation from its parent's rows instead of continuing it. */
  forkKind?: ForkKind;
  /** The prompt as stored; null when the store had none (a real upstream failure, #45499). */
  systemPrompt: string | null;
  tools?: unknown[];
  generations: Generation[];
  /** The agent's own counters for this session, where the store keeps them. */
  recorded?: RecordedCounters;
  /** sessions.rewind_count: how often the user took turns back (/undo, /retry); undefined: not recorded. */
  rewinds?: number;
  /** sessions.source (a snapshot's `platform`): cli, telegram, subagent, cron…; null: not recorded. */
  source?: string | null;
  /** sessions.model (a snapshot's `model`): the session's recorded route; null: not recorded. */
  model?: string | null;
  /** Epoch seconds: a snapshot's `session_start` (local time, placed by its rows' clock); state.db's is in the catalogue. */
  startedAt?: number | null;
  /** sessions.ended_at, epoch seconds; null: not recorded (still open, or a store without the column). */
  endedAt?: number | null;
  pos: SourcePos;
}

/** model_config `_branched_from`, `_delegate_from`, `_reset_from` (src/hermes/lineage.ts). */
export type ForkKind = 'branch' | 'delegate' | 'reset';

/**
 * The `sessions` counters, as upstream keeps them (docs/hermes-behaviour.md "Counters"): each is
 * the session's own (a rotation child starts at 0), written per successful provider response.
 */
export interface RecordedCounters {
  /** Main-loop provider responses that reported usage (auxiliary calls are not counted). */
  apiCalls?: number;
  /** Rows of the session's active list (reset by a compaction in place and by a rewind). */
  messages?: number;
  /** Prompt tokens not read from or written to the cache (upstream subtracts both). */
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /**
   * Hermes' own estimate of what the session's main-loop calls cost, USD (`estimated_cost_usd`: its
   * price tables at the time, or 0 for a subscription route); not the bill.
   */
  estimatedCostUsd?: number;
  /**
   * The session's `session_model_usage` rows, where the table exists (docs/hermes-behaviour.md §5.7):
   * one per model, billing route and task. Task '' is the main loop's per-call deltas (the CLI path;
   * a gateway's absolute writes add none); an auxiliary task (`compression`, `title_generation`,
   * `vision`…) is not in the counters above, and is billed to the session its turn started in.
   */
  usage?: RecordedUsage[];
}

/** One `session_model_usage` row, as stored. */
export interface RecordedUsage {
  model: string;
  billingProvider: string;
  /** '' for the main loop. */
  task: string;
  apiCalls: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** A provider request body captured by the agent (request_dump_*.json): the bytes really sent. */
export interface CapturedRequest {
  sessionId: string;
  path: string;
  timestamp?: string;
  reason?: string;
  messages: Row[];
  tools?: unknown[];
  /** The API mode the body was built for (chat-completions, anthropic-messages, responses). */
  apiMode?: string;
  /** Wire messages that carried a cache_control breakpoint. */
  breakpoints?: number[];
  /** Entries of the body's own list in its API mode (requestBody.ts WireBody.bodyEntries). */
  bodyEntries?: number;
  pos: SourcePos;
}

/** One row of a state.db's sessions table: enough to offer the list before loading a session. */
export interface SessionSummary {
  id: string;
  parentId: string | null;
  startedAt: number | null;
  endReason: string | null;
  /** The table's message_count column, when it has one. */
  messageCount: number | null;
  title: string | null;
  /** sessions.source, sessions.model, sessions.ended_at; null where not recorded. */
  source: string | null;
  model: string | null;
  endedAt: number | null;
  /** The fork marker of its model_config, so a session listed but not loaded still groups as its lineage. */
  forkKind?: ForkKind;
}

export interface Transcript {
  path: string;
  format: TranscriptFormat;
  /** In lineage order: a parent before its children. */
  sessions: TranscriptSession[];
  captured: CapturedRequest[];
  findings: InputFinding[];
  /**
   * Every session of a state.db in start order, loaded or not (`sessions` may hold one lineage, or
   * only the list without rows when the file is too large to read whole).
   */
  catalog?: SessionSummary[];
  /** The file was too large to read whole and no session was asked for: `sessions` have no rows. */
  listedOnly?: boolean;
}

/** What a home's requests asked of an Anthropic cache: 5 minutes (upstream's default), 1 hour, or no caching at all. */
export type CacheTtl = '5m' | '1h' | 'off';

/** Hermes' `prompt_caching.cache_ttl` as found in a home's config.yaml: its value and where it is written. */
export interface CacheTtlSetting {
  ttl: CacheTtl;
  file: string;
  /** 1-based line of the `cache_ttl` key (of `prompt_caching` in the flow shape). */
  line: number;
}
