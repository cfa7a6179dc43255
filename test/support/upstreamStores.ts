// Stores written by a reconstruction of upstream Hermes' own write paths (hermes_store.py, beside
// this file), with the ground truth of what happened in each: the expectations of
// test/transcripts/upstreamStores.test.ts come from that truth, never from the inspector's output.

import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { RecordedUsage } from '../../src/model/transcript';

export const HERMES_STORE_PY = resolve(__dirname, 'hermes_store.py');

export interface InjectedSpan {
  kind: string;
  text: string;
}

export interface Compaction {
  mode: 'rotation' | 'in-place';
  kind: 'preflight' | 'mid-turn';
  /** Lengths of the live message list around the compaction. */
  beforeMessages: number;
  afterMessages: number;
  /** Index of the current turn's user row in the list before / after. */
  reanchorBefore: number;
  reanchorAfter: number;
  fromSession: string;
  toSession: string;
  carrierRole: 'user' | 'assistant';
  carrierIndex: number;
  todoFold: boolean;
  /** Mid-turn only: how many of the turn's requests came before the compaction. */
  afterRequest?: number;
  watermark?: number;
  tailCount?: number;
}

export interface TruthTurn {
  index: number;
  sessionId: string;
  /** The user's words (text parts of a multimodal row). */
  user: string;
  requests: number;
  requestIndexes: number[];
  injected: InjectedSpan[];
  undone: boolean;
  reask: boolean;
  compression: Compaction | null;
  midTurn: Compaction | null;
}

export interface TruthRequest {
  index: number;
  turn: number;
  sessionId: string;
  /** Wire messages sent in chat form: the system message plus one per row of the live list. */
  wireMessages: number;
  apiMode: 'chat_completions' | 'anthropic_messages' | 'codex_responses';
  /** What the transport sent: chat messages; Anthropic system + messages; responses instructions + input items. */
  apiItems: number;
  /** The first request after a compaction (preflight or mid-turn). */
  afterCompaction: boolean;
  /** Sent and not answered: retries exhausted or refused (the failed-turn notice), or interrupted (its placeholder). */
  failed: boolean;
  /** The first request of a re-ask after /undo. */
  rewritten: boolean;
  /** There is a previous request of the same conversation to compare with (not across a delegate's interleaving). */
  comparable: boolean;
  /** Where this request stopped extending the previous one, from the wire lists really sent; null when it extended it. */
  breakAt: null | { messageIndex: number; byteOffset: number | null };
  /** Why, when the scenario knows: compression, rewind, sidecar-dropped. */
  breakCause: string | null;
}

export interface TruthSession {
  id: string;
  parentId: string | null;
  source: string;
  /** sessions.model, started_at, ended_at as written (ended_at null: still open). */
  model: string | null;
  startedAt: number;
  endedAt: number | null;
  /** Its session_model_usage rows in rowid order (task '' main loop; 'compression' a compaction's summary call). */
  usage: RecordedUsage[];
  endReason: string | null;
  modelConfig: Record<string, unknown> | null;
  counters: Record<string, number>;
  activeRows: number;
  storedRows: number;
  /** Requests answered in it (what api_call_count counts). */
  requests: number;
  /** Requests sent in it that got no answer. */
  failedRequests: number;
}

export interface TruthSnapshot {
  path: string;
  sessionId: string;
  messageCount: number;
  turns: { turn: number; requests: number }[];
  /** False where nothing in the file tells its copies from its own turns: a branch child's, or one with undatedCopies. */
  decidable: boolean;
  /** After a summary carrier without a timestamp, a copy of an earlier ask no time in the file places before the compaction. */
  undatedCopies: boolean;
}

export interface TruthDump {
  path: string;
  sessionId: string;
  apiMode: 'chat_completions' | 'anthropic_messages' | 'codex_responses';
  /** Index (in `requests`) of the request the dump holds: the failed attempt, resent unchanged. */
  request: number;
  /** Wire messages of that request, system (or instructions) included. */
  messageCount: number;
  bodyMessages: number;
  /** Read alone: its session's turns up to this request, and their requests (this one last). */
  turns: { turn: number; requests: number }[];
  requests: number;
}

export interface Truth {
  scenario: string;
  era: 'v30' | 'v31' | 'older';
  stateDb: string;
  wal: boolean;
  sessions: TruthSession[];
  turns: TruthTurn[];
  requests: TruthRequest[];
  snapshots: TruthSnapshot[];
  dumps: TruthDump[];
  /** Diagnostics the store must produce (the corrupted counter). */
  expectedDiagnostics: { code: string; severity: string; count: number; sessionId?: string }[];
  /** Diagnostics of severity warning that this store legitimately earns, with why. */
  allowedDiagnostics: { code: string; turn?: number; why: string }[];
  corrupted: Record<string, unknown>;
  notes: string[];
  walFrames?: { frames: number; currentSaltFrames: number; staleFrames: number; lastCommitFrame: number };
}

export interface BuiltStore {
  dir: string;
  stateDb: string;
  truth: Truth;
  path(rel: string): string;
}

/** The scenario names hermes_store.py knows. */
export function scenarioNames(): string[] {
  const r = spawnSync('python3', [HERMES_STORE_PY, '--list'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`hermes_store.py --list failed: ${r.stderr}`);
  return r.stdout
    .split('\n')
    .map((s) => s.trim())
    .filter(Boolean);
}

const built = new Map<string, BuiltStore>();

/** Builds a scenario into a fresh temp dir once per process (real SQLite through python3's sqlite3). */
export function buildStore(name: string): BuiltStore {
  const cached = built.get(name);
  if (cached) return cached;
  const dir = mkdtempSync(join(tmpdir(), `hermes-upstream-${name}-`));
  const r = spawnSync('python3', [HERMES_STORE_PY, name, dir], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`hermes_store.py ${name} failed (${r.status}): ${r.stderr}`);
  const truth = JSON.parse(r.stdout) as Truth;
  const store: BuiltStore = { dir, stateDb: join(dir, truth.stateDb), truth, path: (rel) => join(dir, rel) };
  built.set(name, store);
  return store;
}
