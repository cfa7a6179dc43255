// Stores written by a reconstruction of upstream Hermes' own write paths (hermes_store.py, beside
// this file), with the ground truth of what happened in each: the expectations of
// test/transcripts/upstreamStores.slow.test.ts come from that truth, never from the inspector's output.

import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { RecordedUsage } from '../../src/shared/model/transcript';
import { PYTHON } from './python';

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
  /** Scenarios with an agent.log (`billed`) only, on a turn compacted at its start: the figure that decided it. */
  preflight?: TruthPreflight;
}

/**
 * What `_preflight_request_tokens` returned before a compaction at a turn's start, as the log's
 * `Preflight compression` and `context compression started` lines print it (billed_log.py, from
 * docs/hermes-behaviour.md §2.3 V3 and the anchored estimator). `anchored`: the previous completed call's
 * billed `in=` + `out=` plus the rough estimate of the rows added since (that call's own reply left out),
 * while the rows it priced still fingerprint the same; `rough`: system prompt + rows + tool schemas.
 */
export interface TruthPreflight {
  method: 'anchored' | 'rough';
  /** The figure printed (`~N tokens`). */
  tokens: number;
  /** The threshold printed; `tokens >= threshold`. */
  threshold: number;
  /** Anchored only (else null): index in `requests` of the call anchored on, and its line's `in=` / `out=`. */
  anchorRequest: number | null;
  anchorInput: number | null;
  anchorOutput: number | null;
  /** estimate_messages_tokens_rough (V3) of the live list at the preflight (no system prompt, no tools). */
  messagesRough: number;
  /** Rows of that list (the new ask included). */
  messages: number;
  /** The cheap gate's branch: `chars` when messagesRough >= threshold, else `count` (more than 3 + 20 + 1 rows). */
  gateBranch: 'chars' | 'count';
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
  /** Why, when the scenario knows: compression, rewind, sidecar-dropped, system-changed (the prompt rebuilt with other bytes). */
  breakCause: string | null;
  /** Scenarios with an agent.log (`billed`) only: what the provider billed for it, from its `API call #` line; null: no line (failed). */
  billed?: TruthBilled | null;
  /**
   * Scenarios with an agent.log only: why the provider read less than the previous call's whole prompt
   * from its cache, by the reason it used, checked in the order of MissClass; null when it read it whole,
   * for a lineage's first call, and for a failed call.
   */
  missClass?: MissClass | null;
  /** Scenarios with an agent.log only: the simulated provider cache's decision for this call; null for a failed call. */
  providerCache?: ProviderCacheDecision | null;
}

/**
 * `cause-logged`: a cause line (the stored-prompt warning) was logged for the session since its previous
 * call; `expired`: the idle gap since the previous call's response passed the TTL (300 s); `too-short`:
 * the previous prompt was under the model's cacheable minimum (Claude Opus 4.5/4.6 and Haiku 4.5: 4096,
 * Sonnet: 1024); `predicted`: the wire stopped extending the previous call's (the replay's break);
 * `unexplained`: the provider dropped its cache with none of these.
 */
export type MissClass = 'cause-logged' | 'expired' | 'too-short' | 'predicted' | 'unexplained';

/** What the provider really counted for a request (a layout without `write=` still wrote). */
export interface TruthBilled {
  /** Index in `calls` of its line. */
  call: number;
  n: number;
  /** Null with usage unavailable. */
  input: number | null;
  output: number | null;
  cacheRead: number | null;
  cacheWrite: number | null;
  usageUnavailable: boolean;
}

export interface ProviderCacheDecision {
  prompt: number;
  read: number;
  write: number;
  /** `first` (a lineage's first call), or what stopped a whole read: expired, too-short, break, dropped; [] for a whole read. */
  reasons: string[];
  /** Seconds from the previous call's response to this call's sending. */
  gapSeconds: number | null;
  previousPrompt: number | null;
  minCacheable: number;
  /** At a break: the wire messages shared with the previous call and the tokens they count. */
  sharedPrefix: { wireMessages: number; tokens: number } | null;
}

/** One `API call #N` line as written (scenarios with an agent.log). */
export interface TruthCall {
  /** Where the line ended up after every rollover, relative to the store's dir: `logs/agent.log.1` or `logs/agent.log`. */
  file: string;
  /** 1-based line number in that file. */
  line: number;
  sessionTag: string | null;
  /** The live agent's call counter: it starts again at 1 in a new process (and a branch's fresh agent). */
  n: number;
  /** The agent's model when it sent the call. */
  model: string;
  layout: 'model-first' | 'provider-first';
  /** `before #104568` (no write=, no id=), `#104568` (write=, id=), `provider-first`. */
  version: string;
  /** What the line says, as the reader reads it: a suffix not printed reads 0; null with usage unavailable. */
  input: number | null;
  output: number | null;
  cacheRead: number;
  cacheWrite: number;
  cacheReported: boolean;
  writeReported: boolean;
  usageUnavailable: boolean;
  /** What the provider really counted; null with usage unavailable. */
  providerCacheRead: number | null;
  providerCacheWrite: number | null;
  /** Seconds, as simulated (the line prints it to 0.1 s). */
  latency: number;
  responseId: string | null;
  /** The record's time as epoch seconds (to the millisecond), and as the line prints it (local time, no zone). */
  time: number;
  asctime: string;
  /** Index in `requests` of the request it answers; null for a session state.db does not hold. */
  request: number | null;
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
  /** Scenarios with an agent.log only: its files, oldest first, relative to the store's dir. */
  logs?: string[];
  /** The zone the log's local times were written in, and its offset from UTC (Asia/Kolkata: 19800). */
  logTimezone?: string;
  logTimezoneOffsetSeconds?: number;
  logMaxBytes?: number;
  /** Every `API call #` line written, in the order written. */
  calls?: TruthCall[];
}

export interface BuiltStore {
  dir: string;
  stateDb: string;
  truth: Truth;
  /** The agent.log files the scenario wrote (absolute, oldest first); empty when it wrote none. */
  logs: string[];
  path(rel: string): string;
}

/** The scenario names hermes_store.py knows. */
export function scenarioNames(): string[] {
  const r = spawnSync(PYTHON, [HERMES_STORE_PY, '--list'], { encoding: 'utf8' });
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
  const r = spawnSync(PYTHON, [HERMES_STORE_PY, name, dir], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`hermes_store.py ${name} failed (${r.status}): ${r.stderr}`);
  const truth = JSON.parse(r.stdout) as Truth;
  const store: BuiltStore = {
    dir,
    stateDb: join(dir, truth.stateDb),
    truth,
    logs: (truth.logs ?? []).map((rel) => join(dir, rel)),
    path: (rel) => join(dir, rel),
  };
  built.set(name, store);
  return store;
}

/**
 * The `billed` home copied into `dir`, its current agent.log cut before its call line number
 * `calls + 1` (the lines before are other loggers' too), as a live log stands mid-session:
 * `rest` is what the agent writes next.
 */
export function billedHomeWithLogCut(dir: string, calls: number): { db: string; log: string; rest: string } {
  const store = buildStore('billed');
  const db = join(dir, 'state.db');
  cpSync(store.stateDb, db);
  mkdirSync(join(dir, 'logs'));
  cpSync(store.path('logs/agent.log.1'), join(dir, 'logs', 'agent.log.1'));
  const current = readFileSync(store.path('logs/agent.log'), 'utf8');
  let cut = 0;
  for (let k = 0; k <= calls; k++) cut = current.indexOf('API call #', cut) + 1;
  cut = current.lastIndexOf('\n', cut) + 1;
  const log = join(dir, 'logs', 'agent.log');
  writeFileSync(log, current.slice(0, cut));
  return { db, log, rest: current.slice(cut) };
}
