// What `analyze --json` prints for another agent's transcript (docs/recorded.md): its sessions,
// every provider call with its billed usage, cache judgement and cost, its compactions, and what the
// format does not record. Field names are public, like the Hermes report's (docs/report.md).

import type { Severity } from './model/transcript';
import type { RecordedAfter, RecordedKinds, RecordedSessionKind, RecordedTranscript, RecordedUsage } from './model/recorded';
import type { CacheMiss, RequestCost } from './reportTypes';

/** A change the transcript records between two calls, which rewrites the prefix the cache held. */
export type RecordedCause = 'compression' | 'system-changed' | 'settings-changed' | 'tools-changed' | 'history-rewritten';

/**
 * Where a recorded request stops extending the previous one of its session, from their bytes (cache
 * markers taken off): the part (tools, system prompt, or entry `entry` of the body's list) and the
 * first differing byte of that part's JSON.
 */
export interface RecordedBreak {
  part: 'tools' | 'system' | 'messages';
  /** The body list's entry, 0-based; null for the tools and the system prompt. */
  entry: number | null;
  byte: number;
  cause: 'tools-changed' | 'system-changed' | 'history-rewritten';
}

/** A recorded call's miss: shaped as the Hermes report's, with the causes a transcript records. */
export type RecordedCacheMiss = Pick<CacheMiss, 'rebilledTokens' | 'idleSeconds' | 'lifetimeSeconds' | 'extraUsd'>
  & ({ class: 'predicted'; cause: RecordedCause } | { class: 'expired' | 'too-short' | 'unexplained'; cause: null });

/** Calls' billed usage summed; a figure no call recorded is null. */
export interface UsageTotals {
  calls: number;
  input: number | null;
  cacheRead: number | null;
  cacheWrite: number | null;
  output: number | null;
  /** Of the prompts' tokens, the share read from the cache; null without both figures. */
  hitRate: number | null;
  /** The priced calls' costs summed, USD; null when none was priced. */
  costUsd: number | null;
  /** Calls the price catalogue has no price for. */
  unpriced: number;
}

export interface RecordedReportCall {
  session: string;
  /** 0-based in its session, and in its turn. */
  turn: number;
  ordinal: number;
  id: string;
  model: string | null;
  file: string;
  /** The line whose usage is kept (the response's last); null in a format of one document (a HAR). */
  line: number | null;
  /** Its place in a document's list (a HAR's `log.entries[i]`, 0-based); null in a format of lines. */
  entry: number | null;
  /** Lines that wrote the response. */
  lines: number;
  /** The message it answered (its line, and what it was); null where the format does not record it. */
  after: RecordedAfter | null;
  firstAt: string | null;
  lastAt: string | null;
  usage: RecordedUsage | null;
  cost: RequestCost | null;
  /** The line of the call this one should have read the cache of (the previous call of its model). */
  previousLine: number | null;
  /** That call's id. */
  previousId: string | null;
  /** Where its request stopped extending the previous one's; null where it extends it or the bytes are not recorded. */
  prefixBreak: RecordedBreak | null;
  /**
   * Its request's tokens by category (`system/prompt`, `tools/schemas`, `history/<role>`,
   * `current-user`), counted by our tokenizer over the body's JSON; null where the request bytes are
   * not recorded.
   */
  categories: Record<string, number> | null;
  cacheMiss: RecordedCacheMiss | null;
}

export interface RecordedReportCompaction {
  trigger: string | null;
  preTokens: number | null;
  at: string | null;
  line: number | null;
  summaryLine: number | null;
  /** The turn it starts, 0-based in its session. */
  turn: number;
}

export interface RecordedReportSession {
  id: string;
  parentId: string | null;
  kind: RecordedSessionKind;
  file: string;
  turns: {
    prompt: string;
    line: number | null;
    at: string | null;
    calls: number;
    /** SHA-256 of the system prompt its calls were sent with, hex; null where not recorded. */
    systemPromptSha256: string | null;
    settingsChanged: string[];
  }[];
  compactions: RecordedReportCompaction[];
  usage: UsageTotals;
  /** Its calls' `categories` summed; null where none of its calls has them. */
  categories: Record<string, number> | null;
}

export interface RecordedDiagnostic {
  severity: Severity;
  code: 'parse-error' | 'cache-miss-unexplained' | 'prefix-break';
  message: string;
  file: string;
  line: number | null;
  column: number | null;
  /** As a call's `entry`. */
  entry: number | null;
  session: string | null;
  atEnd?: boolean;
}

export interface RecordedReport {
  schemaVersion: 1;
  kind: 'recorded';
  source: { path: string; format: RecordedTranscript['format']; agentVersion: string | null; title: string | null };
  records: RecordedKinds;
  usage: UsageTotals;
  sessions: RecordedReportSession[];
  calls: RecordedReportCall[];
  diagnostics: RecordedDiagnostic[];
}
