// Other agents' session folders as the Agent Transcripts view lists them (docs/recorded.md
// "Finding them"): Claude Code's projects folder and Codex's sessions folder, each file told from its
// first lines, grouped by the project it ran in, and each read whole for its figures. Plain JSON:
// the worker lists and reads, the host and the CLI show.

import { utcText } from './overviewColumns';
import type { UsageTotals } from './recordedReportTypes';

export type AgentName = 'claude-code' | 'codex';

export interface AgentSessionFile {
  path: string;
  /** The session's id as its file records it; null where its first lines hold none. */
  id: string | null;
  /** A title the agent wrote (Claude Code's custom title or summary), else the user's first prompt; null where none is in its first lines. */
  title: string | null;
  /** Its first record's timestamp (ISO 8601); null where not recorded. */
  startedAt: string | null;
  /** The file's modification time, epoch milliseconds: the listing is newest first by it. */
  modifiedMs: number;
  bytes: number;
  /** Claude Code's subagent files beside it (<session>/subagents/agent-*.jsonl). */
  subagents: number;
}

export interface AgentProject {
  /** The working directory its sessions record; else (Claude Code) the project folder's name. */
  project: string;
  /** Claude Code's project folder; null for Codex, whose folders are by date. */
  folder: string | null;
  /** Newest first. */
  sessions: AgentSessionFile[];
}

export interface AgentFolderListing {
  agent: AgentName;
  /** The folder as set, `~` expanded. */
  root: string;
  /** Most recently used first. */
  projects: AgentProject[];
  /** Why nothing could be listed (the folder is missing or unreadable); null when it was read. */
  problem: string | null;
}

/** A session file's figures, from reading it whole as recorded (docs/recorded.md): what a row of the agents' overview shows. */
export interface AgentSessionFigures {
  /** The sessions the file records: its own, its subagents', its compaction calls'. */
  sessions: number;
  /** Turns and compactions over all of them. */
  turns: number;
  compactions: number;
  usage: UsageTotals;
  /** Calls that read less of the cache than the previous call of their model left, and of those the ones nothing recorded explains. */
  misses: number;
  unexplainedMisses: number;
  /** Requests that did not extend the previous one (known only where the request bytes are recorded). */
  prefixBreaks: number;
  errors: number;
  warnings: number;
  /** The models its calls name, in first-call order. */
  models: string[];
  /** Its last call's time (ISO 8601); null where none is recorded. */
  lastAt: string | null;
}

/** A listed session with its figures; `problem` instead where its file could not be read. */
export type AgentSessionRow = AgentSessionFile & { figures: AgentSessionFigures | null; problem: string | null };

/** When the session started as its file records it (UTC, to the minute), else when its file was last written. */
export function startedText(file: Pick<AgentSessionFile, 'startedAt' | 'modifiedMs'>): string {
  const started = file.startedAt === null ? NaN : Date.parse(file.startedAt);
  return Number.isFinite(started) ? utcText(started / 1000) : `written ${utcText(file.modifiedMs / 1000)}`;
}
