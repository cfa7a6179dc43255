// Another agent's transcript as it was recorded: sessions, their turns, and the provider calls each
// turn made, with what each call was billed. Unlike a Hermes store, such a file is not replayed (its
// agent's prompt assembly is not ours to know): it says what it recorded, and what it did not
// (`RecordedKinds`), so a view shows "not recorded" instead of guessing.

import type { InputFinding, SourcePos } from './transcript';

/** What a format records at all. */
export interface RecordedKinds {
  systemPrompt: boolean;
  tools: boolean;
  /** The exact bytes of each request. */
  requestBytes: boolean;
  billedUsage: boolean;
  compactions: boolean;
}

/**
 * One call's billed usage in the provider's tokens, normalised as Hermes normalises its own
 * (docs/recorded.md): `input` is the whole prompt, of which `cacheRead` and `cacheWrite` are parts.
 * Anthropic reports the cache on top of its input figure and is added up to this; OpenAI, Codex and
 * Gemini count cached tokens inside theirs. Null: not recorded.
 */
export interface RecordedUsage {
  input: number | null;
  cacheRead: number | null;
  /** Every token written to the cache, whatever its lifetime. */
  cacheWrite: number | null;
  /** Of `cacheWrite`, those written for 5 minutes and for 1 hour, where the provider says. */
  cacheWrite5m: number | null;
  cacheWrite1h: number | null;
  output: number | null;
}

/**
 * What a recorded request sent, as the parts a prefix cache sees, each as JSON with cache_control
 * markers taken off: the tools, the system prompt (null: the body has none apart from its list),
 * and each entry of the body's own list.
 */
export interface RecordedWire {
  apiMode: 'chat-completions' | 'anthropic-messages' | 'responses';
  tools: string | null;
  system: string | null;
  entries: string[];
}

/** One provider call: a response, however many lines of the file wrote it. */
export interface RecordedCall {
  /** The provider's response id (`msg_…`, `resp_…`). */
  id: string;
  model: string | null;
  /** Who served it, as the price catalogue names providers (`anthropic`, `openai`, `openrouter`); null: not known. */
  provider: string | null;
  /** Epoch milliseconds of the first and the last line that wrote it; null when not recorded. */
  firstAt: number | null;
  lastAt: number | null;
  /** Where the response's last line is (the one whose usage is kept). */
  pos: SourcePos;
  /** How many lines wrote it: a streamed response is written more than once, and its usage is the last line's, never a sum. */
  lines: number;
  usage: RecordedUsage | null;
  /** The message this call answered (Claude Code: its first line's parent); null where not recorded. */
  after: RecordedAfter | null;
  /** The request as sent, where the format records its bytes; null: not recorded. */
  wire: RecordedWire | null;
}

/** A message a call answered: its line, and what it was (the user's prompt, a tool's result, an earlier answer, a compaction's summary, another line). */
export interface RecordedAfter {
  line: number;
  what: 'prompt' | 'tool result' | 'answer' | 'compaction summary' | 'other';
}

/** A compaction the transcript records: where, why, and how large the context was before it. */
export interface RecordedCompaction {
  trigger: string | null;
  /** The context's size before it, in the provider's tokens, as the agent counted it. */
  preTokens: number | null;
  at: number | null;
  pos: SourcePos;
  /** The summary that stands for the history from here on, when recorded. */
  summaryPos: SourcePos | null;
}

/** A user's message and the calls made until the next one. */
export interface RecordedTurn {
  /** The user's text, cut short; '' for calls before any user message. */
  prompt: string;
  at: number | null;
  pos: SourcePos | null;
  calls: RecordedCall[];
  /** The system prompt the turn's calls were sent with, where the format records it; null: not recorded. */
  systemPrompt: string | null;
  /** Settings the turn changed from the turn before (Codex: `turn_context` fields), by name. */
  settingsChanged: string[];
}

export type RecordedSessionKind = 'main' | 'sidechain' | 'subagent' | 'compaction';

export interface RecordedSession {
  /** The session's id; a subagent's is `<session>/<agent id>`. */
  id: string;
  /** The session it was started from; null for a main session. */
  parentId: string | null;
  kind: RecordedSessionKind;
  /** The file it was read from. */
  file: string;
  turns: RecordedTurn[];
  /** Compactions in the order recorded, each before the turn it starts (`turnIndex`). */
  compactions: (RecordedCompaction & { turnIndex: number })[];
}

export interface RecordedTranscript {
  format: 'claude-code' | 'codex' | 'api-capture';
  path: string;
  /** The agent's version as the file records it (the first found). */
  agentVersion: string | null;
  /** The title the agent gave the conversation, when it wrote one. */
  title: string | null;
  records: RecordedKinds;
  /** Main sessions before the sessions started from them. */
  sessions: RecordedSession[];
  findings: InputFinding[];
}
