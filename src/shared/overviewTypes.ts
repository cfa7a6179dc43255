// The session overview's data (issue 10): one row per lineage of a transcript, plain JSON, so the
// CLI prints it, the worker posts it and the webview and the report render it. Built by
// sessionOverview.ts; columns, sorting and filtering in overviewColumns.ts.

import type { ForkKind } from './model/transcript';

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
  /**
   * From the agent.log calls matched to its requests (docs/billing.md): the billed prompt tokens and
   * of those read from the cache, the cost in USD, and the misses nothing explains; null where no
   * log was read.
   */
  billedInputTokens: number | null;
  billedCacheReadTokens: number | null;
  costUsd: number | null;
  unexplainedMisses: number | null;
}

/** The agent's own counters (sessions columns, docs/hermes-behaviour.md §5.7); each null where not recorded. */
export interface OverviewRecorded {
  apiCalls: number | null;
  messages: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cacheReadTokens: number | null;
  cacheWriteTokens: number | null;
  /** Hermes' own cost estimate, USD (sessions.estimated_cost_usd): its pricing at the time, not the bill. */
  estimatedCostUsd: number | null;
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
  /** Listed while the whole file is being read: its figures come with that analysis (the extension's first answer for a large home). */
  reading?: boolean;
  /** Top-level lineages in start order, forks nested in `children`. */
  lineages: OverviewLineage[];
  /** Findings placed in no session (a whole-file problem). */
  unplaced: { errors: number; warnings: number };
}

/**
 * A refreshed overview as what differs from one held before: its top-level rows that are new or
 * changed, the order of its top-level ids when that changed (null: as before), and its own fields.
 * A turn appended to a large home changes one row of thousands: its whole overview again was
 * megabytes a write through VS Code's window.
 */
export interface OverviewChanges {
  rows: OverviewLineage[];
  order: string[] | null;
  rest: Omit<SessionOverview, 'lineages'>;
}
