// What each line of Hermes' agent.log says (docs/agent-log.md): the record header Python's logging
// writes, and the messages of upstream's we type, each by the format string the upstream code logs
// it with. The chunked reading around it is agentLog.ts.

import type { SourcePos } from '../shared/model/transcript';
import type { LoggedCauseKind } from '../shared/reportTypes';

/** The record's time as Python's logging wrote it: local time of the writing machine, no zone. */
export interface LocalTime {
  /** As written: `YYYY-MM-DD HH:MM:SS,mmm`. */
  text: string;
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

/** What every record has: its place, its record header. */
export interface RecordBase {
  file: string;
  pos: SourcePos;
  time: LocalTime;
  /** Python's levelname: INFO, WARNING, ERROR… */
  level: string;
  logger: string;
  /** The ` [<session_id>]` tag of the writing thread's session context; null when it had none. */
  sessionTag: string | null;
}

/** The per-call usage line. Token counts are null where the line has `?` or `unknown`. */
export interface LoggedCall extends RecordBase {
  kind: 'call';
  /** The live agent's `session_api_calls`: counts every completed response, restarts with a new agent. */
  n: number;
  /** `model-first`: `model=… provider=…` (all but one upstream version); `provider-first`: `provider=… base_url=… model=…`. */
  layout: 'model-first' | 'provider-first';
  model: string;
  provider: string;
  /** Only the provider-first layout carries it. */
  baseUrl: string | null;
  /** The whole prompt (uncached + cache read + cache write). */
  input: number | null;
  output: number | null;
  total: number | null;
  latencySeconds: number;
  /** ` usage=unavailable`: the response carried no usage. */
  usageUnavailable: boolean;
  /** 0 when the line has no `cache=`: upstream writes it only when both the read and the prompt are non-zero. */
  cacheRead: number;
  cacheReported: boolean;
  /** The percentage as printed (`:.0f` of read/prompt); null without `cache=`. */
  cachePercent: number | null;
  /** 0 when the line has no `write=` (written only when non-zero, from #104568 on). */
  cacheWrite: number;
  writeReported: boolean;
  /** The provider's response id (`msg_…`, `gen-…`), from #104568 on. */
  responseId: string | null;
  /** Who actually served the request, as OpenRouter names it. */
  upstream: string | null;
}

/** Warnings and notes of the prompt restore that name why the prefix cache will miss. */

export interface LoggedCause extends RecordBase {
  kind: 'cause';
  cause: LoggedCauseKind;
  /** The session the message names (the log's own tag may differ on other threads). */
  sessionId: string;
  /** The error text of a failed restore or persist; `model=… provider=…` of a stale prompt. */
  detail: string | null;
}

/** One failed provider attempt: no `API call #` line and no usage follow it. */
export interface LoggedFailedAttempt extends RecordBase {
  kind: 'attempt-failed';
  attempt: number;
  attempts: number;
  retryable: boolean;
  errorType: string;
  provider: string;
  baseUrl: string;
  model: string;
  summary: string;
}

export interface LoggedRetriesExhausted extends RecordBase {
  kind: 'retries-exhausted';
  retries: number;
  summary: string;
  provider: string;
  model: string;
  messages: number;
  /** `tokens=~T`, the rough estimate of the request; null where the line has none. */
  roughTokens: number | null;
}

/** The turn-start compaction decisions (agent/turn_context_compaction.py). */
export type PreflightAction = 'compress' | 'deferred-to-real-usage' | 'cooldown' | 'insufficient-progress' | 'lock-held' | 'idle';

export interface LoggedPreflight extends RecordBase {
  kind: 'preflight';
  action: PreflightAction;
  /** The request's estimate (`~T`), where the line has one; for `insufficient-progress` the figure before the pass. */
  roughTokens: number | null;
  /** The estimate after the pass (`insufficient-progress`). */
  roughTokensAfter: number | null;
  threshold: number | null;
  model: string | null;
  contextLength: number | null;
  /** `last real provider prompt` (`deferred-to-real-usage`). */
  lastRealPrompt: number | null;
  /** Seconds: the cooldown left, or the idle gap (`idle`). */
  seconds: number | null;
  sessionId: string | null;
}

export interface LoggedCompactionStarted extends RecordBase {
  kind: 'compaction-started';
  sessionId: string;
  trigger: string | null;
  messages: number;
  /** null where the line says `unknown`. */
  roughTokens: number | null;
  model: string;
  /** Python's repr of the focus topic, as written (`None`, `'…'`). */
  focus: string;
}

export interface LoggedCompactionDone extends RecordBase {
  kind: 'compaction-done';
  /** The session after the compaction: the child's id after a rotation. */
  sessionId: string;
  messagesBefore: number;
  messagesAfter: number;
  roughTokens: number;
  /** Current lines: `rough_tokens=~T awaiting_real_usage=true`; older ones `tokens=~T` and no flag. */
  awaitingRealUsage: boolean;
}

/** `conversation turn:` at each turn start (logger agent.turn_context). */
export interface LoggedTurn extends RecordBase {
  kind: 'turn';
  sessionId: string;
  model: string;
  provider: string;
  platform: string;
  history: number;
  /** Python's repr of the first 80 characters of the user's message, as written. */
  message: string;
}

export type AgentLogRecord =
  LoggedCall | LoggedCause | LoggedFailedAttempt | LoggedRetriesExhausted | LoggedPreflight | LoggedCompactionStarted | LoggedCompactionDone | LoggedTurn;

// ---- The record header: "%(asctime)s %(levelname)s%(session_tag)s %(name)s: %(message)s" ----

export interface Header {
  level: string;
  sessionTag: string | null;
  logger: string;
  messageAt: number;
}

/** asctime without a datefmt (Python's default), then the level name (`Level N` for unnamed levels). */
const HEAD = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d),(\d{3}) ([A-Z]+|Level \d+)/;
/** A logger name: a dotted module path, never spaces or colons. */
const LOGGER = /([^\s:[\]]+): /y;
/** How many `] ` a session tag is tried against: an id holding `] ` itself is no real session id. */
const TAG_TRIES = 4;

/** The record's time, of a line parseHeader read: asked only for the records kept (most lines are not). */
export function localTimeOf(text: string): LocalTime {
  const n = (from: number, to: number): number => Number(text.slice(from, to));
  return {
    text: text.slice(0, 23),
    year: n(0, 4),
    month: n(5, 7),
    day: n(8, 10),
    hour: n(11, 13),
    minute: n(14, 16),
    second: n(17, 19),
    millisecond: n(20, 23),
  };
}

export function parseHeader(text: string): Header | null {
  const m = HEAD.exec(text);
  if (!m) return null;
  const level = m[8];
  let at = m[0].length;
  let sessionTag: string | null = null;
  if (text.startsWith(' [', at)) {
    // The tag is the session id as given (an API client may choose it): the first `] ` followed by
    // a logger name and `: ` ends it.
    let close = at + 2;
    for (let tries = 0; tries < TAG_TRIES; tries++) {
      close = text.indexOf('] ', close);
      if (close < 0) return null;
      LOGGER.lastIndex = close + 2;
      const name = LOGGER.exec(text);
      if (name) {
        sessionTag = text.slice(at + 2, close);
        return { level, sessionTag, logger: name[1], messageAt: LOGGER.lastIndex };
      }
      close++;
    }
    return null;
  }
  if (text[at] !== ' ') return null;
  at++;
  LOGGER.lastIndex = at;
  const name = LOGGER.exec(text);
  if (!name) return null;
  return { level, sessionTag, logger: name[1], messageAt: LOGGER.lastIndex };
}

// ---- The messages we read ----

/** Cheap test before any parsing: the messages of our kinds start with these (one may carry a prefix). */
const PREFIXES = [
  'API call #',
  'API call failed (',
  'Stored system prompt for session ',
  'Session DB get_session failed for system-prompt restore',
  'Session DB update_system_prompt failed',
  'Bot Chat capability epoch changed for session ',
  'Preflight compression',
  'Skipping preflight compression: ',
  'Idle compaction: ',
  'context compression started: ',
  'context compression done: ',
  'conversation turn: ',
];

/** Whether the message starting at `at` of the line is one a record is made of. */
export function interesting(text: string, at: number): boolean {
  return PREFIXES.some((p) => text.startsWith(p, at)) || text.includes('API call failed after ', at);
}

export type Parsed = { record: AgentLogRecord | null } | { at: number; why: string };

const num = (s: string): number => Number(s.replace(/,/g, ''));
const numOrNull = (s: string | undefined): number | null => (s === undefined || !/^\d[\d,]*$/.test(s) ? null : num(s));

export function parseMessage(m: string, base: RecordBase): Parsed {
  if (m.startsWith('API call #')) return parseCall(m, base);
  return { record: parseOther(m, base) };
}

// ---- `API call #N: …` (agent/turn_usage.py; docs/agent-log.md lists the layouts) ----

const CALL_N = /API call #(\d+): /y;
const COUNTS = / in=(\d+|\?|unknown) out=(\d+|\?|unknown) total=(\d+|\?|unknown) latency=(-?\d+\.\d+)s/y;
const CACHE = / cache=(\d+)\/(\d+) \((\d+)%\)/y;
const WRITE = / write=(\d+)/y;

/**
 * Reads the call line field by field, so a damaged one is reported at the field that breaks. The
 * `%s` values (model, provider, base URL, id, upstream) are found by the literal that follows each:
 * indexOf, never a backtracking pattern, so a hostile line costs its length.
 */
function parseCall(m: string, base: RecordBase): Parsed {
  CALL_N.lastIndex = 0;
  const n = CALL_N.exec(m);
  if (!n) return { at: 0, why: 'no call number' };
  let at = CALL_N.lastIndex;
  const route = m.startsWith('provider=', at) ? routeProviderFirst(m, at) : m.startsWith('model=', at) ? routeModelFirst(m, at) : null;
  if (!route || 'why' in route) return { at, why: route?.why ?? 'neither model= nor provider= follows the number' };
  at = route.end;
  COUNTS.lastIndex = at;
  const counts = COUNTS.exec(m);
  if (!counts) return { at, why: 'in=, out=, total= and latency= do not read' };
  at = COUNTS.lastIndex;
  // The base's fields named one by one, not spread: a spread then eighteen more keys made 10,000
  // call lines take ~240 ms to read instead of ~40 (measured on the billed-logs bench's lines).
  const call: LoggedCall = {
    file: base.file,
    pos: base.pos,
    time: base.time,
    level: base.level,
    logger: base.logger,
    sessionTag: base.sessionTag,
    kind: 'call',
    n: Number(n[1]),
    layout: route.layout,
    model: route.model,
    provider: route.provider,
    baseUrl: route.baseUrl,
    input: numOrNull(counts[1]),
    output: numOrNull(counts[2]),
    total: numOrNull(counts[3]),
    latencySeconds: Number(counts[4]),
    usageUnavailable: false,
    cacheRead: 0,
    cacheReported: false,
    cachePercent: null,
    cacheWrite: 0,
    writeReported: false,
    responseId: null,
    upstream: null,
  };
  if (m.startsWith(' usage=unavailable', at)) {
    at += ' usage=unavailable'.length;
    call.usageUnavailable = true;
    return at === m.length ? { record: call } : { at, why: 'text after usage=unavailable' };
  }
  CACHE.lastIndex = at;
  const cache = CACHE.exec(m);
  if (cache) {
    call.cacheRead = Number(cache[1]);
    call.cacheReported = true;
    call.cachePercent = Number(cache[3]);
    at = CACHE.lastIndex;
  }
  WRITE.lastIndex = at;
  const write = WRITE.exec(m);
  if (write) {
    call.cacheWrite = Number(write[1]);
    call.writeReported = true;
    at = WRITE.lastIndex;
  }
  // ` id=` and ` upstream=` end the line; an upstream name may hold spaces ("Amazon Bedrock").
  if (m.startsWith(' id=', at)) {
    const up = m.indexOf(' upstream=', at + 4);
    call.responseId = m.slice(at + 4, up < 0 ? m.length : up);
    at = up < 0 ? m.length : up;
  }
  if (m.startsWith(' upstream=', at)) {
    call.upstream = m.slice(at + ' upstream='.length);
    at = m.length;
  }
  if (at !== m.length) return { at, why: 'unexpected text after the usage fields' };
  return { record: call };
}

type Route = { layout: LoggedCall['layout']; model: string; provider: string; baseUrl: string | null; end: number } | { why: string };

function routeModelFirst(m: string, at: number): Route {
  const p = m.indexOf(' provider=', at);
  const i = p < 0 ? -1 : m.indexOf(' in=', p);
  if (i < 0) return { why: p < 0 ? 'no provider=' : 'no in=' };
  return { layout: 'model-first', model: m.slice(at + 6, p), provider: m.slice(p + 10, i), baseUrl: null, end: i };
}

function routeProviderFirst(m: string, at: number): Route {
  const b = m.indexOf(' base_url=', at);
  const mo = b < 0 ? -1 : m.indexOf(' model=', b);
  const i = mo < 0 ? -1 : m.indexOf(' in=', mo);
  if (i < 0) return { why: b < 0 ? 'no base_url=' : mo < 0 ? 'no model=' : 'no in=' };
  return { layout: 'provider-first', provider: m.slice(at + 9, b), baseUrl: m.slice(b + 10, mo), model: m.slice(mo + 7, i), end: i };
}

// ---- The other lines: one anchored pattern each ----

const STORED = /^Stored system prompt for session (.*) is (null|empty); rebuilding from scratch this turn\./;
const STALE = /^Stored system prompt for session (.*) has stale runtime identity; rebuilding for (model=.* provider=.*)\.$/;
const CAPABILITY = /^Bot Chat capability epoch changed for session (.*); rebuilding system prompt/;
const RESTORE = /^Session DB get_session failed for system-prompt restore \(session=(.*?)\): (.*)\. Falling back to fresh build/;
const PERSIST =
  /^Session DB update_system_prompt failed (?:for session (.*?)|after Bot Chat capability refresh \(session=(.*?)\)): (.*)\. (?:Subsequent turns|The refresh)/;
const ATTEMPT =
  /^API call failed \(attempt (\d+)\/(\d+)(, not retryable)?\) error_type=(\S+) (?:thread=.*? )?provider=(\S*) base_url=(\S*) model=(\S*) summary=(.*)$/;
const EXHAUSTED = /^API call failed after (\d+) retries\. /y;
const EXHAUSTED_TAIL = /^ \| provider=(\S*) model=(\S*) msgs=(\d+)(?: tokens=~([\d,]+|unknown))?/;
const PF_COMPRESS = /^Preflight compression: ~([\d,]+) tokens >= ([\d,]+) threshold \(model (.*), ctx ([\d,]+)\)$/;
const PF_DEFER = /^Skipping preflight compression: rough estimate ~([\d,]+) >= ([\d,]+) is not anchored on real usage \(last real provider prompt ([\d,]+)\)/;
const PF_COOLDOWN = /^Skipping preflight compression: same-session cooldown active \(~(\d+) seconds remaining, session (.*)\)$/;
const PF_PROGRESS = /^Preflight compression made insufficient progress: ~([\d,]+) -> ~([\d,]+) request tokens/;
const PF_LOCK = /^Preflight compression deferred: compression lock held by another path \(session (.*)\)$/;
const IDLE = /^Idle compaction: (\d+)s idle >= ([\d.]+)s, ~([\d,]+) tokens > ([\d,]+) floor \(last compaction produced ~([\d,]+|n\/a)\) \(session (.*)\)$/;
const STARTED = /^context compression started: session=(\S+)(?: trigger=(\S+))? messages=(\d+) tokens=~([\d,]+|unknown) model=(.*?) focus=(.*)$/;
const DONE = /^context compression done: session=(\S+) messages=(\d+)->(\d+) (?:rough_)?tokens=~([\d,]+)( awaiting_real_usage=true)?$/;
const TURN = /^conversation turn: session=(\S+) model=(.*?) provider=(\S+) platform=(\S+) history=(\d+) msg=(.*)$/;

/**
 * Upstream's messages of these kinds are a few hundred characters; a longer one is not read, which
 * keeps the lazy patterns below (a thread name or session id may hold spaces) from costing more than
 * a bounded amount on a hostile line.
 */
const MAX_MESSAGE_CHARS = 65536;

function parseOther(m: string, base: RecordBase): AgentLogRecord | null {
  if (m.length > MAX_MESSAGE_CHARS) return null;
  let g: RegExpExecArray | null;
  const cause = (kind: LoggedCauseKind, sessionId: string, detail: string | null): LoggedCause => ({ ...base, kind: 'cause', cause: kind, sessionId, detail });
  if ((g = STORED.exec(m))) return cause(g[2] === 'null' ? 'stored-prompt-null' : 'stored-prompt-empty', g[1], null);
  if ((g = STALE.exec(m))) return cause('stored-prompt-stale', g[1], g[2]);
  if ((g = CAPABILITY.exec(m))) return cause('capability-refresh', g[1], null);
  if ((g = RESTORE.exec(m))) return cause('restore-failed', g[1], g[2]);
  if ((g = PERSIST.exec(m))) return cause('persist-failed', g[1] ?? g[2], g[3]);
  if ((g = ATTEMPT.exec(m))) {
    return {
      ...base,
      kind: 'attempt-failed',
      attempt: Number(g[1]),
      attempts: Number(g[2]),
      retryable: !g[3],
      errorType: g[4],
      provider: g[5],
      baseUrl: g[6],
      model: g[7],
      summary: g[8],
    };
  }
  if (m.includes('API call failed after ')) return retriesExhausted(m, base);
  const preflight = (action: PreflightAction, fields: Partial<LoggedPreflight>): LoggedPreflight => ({
    ...base,
    kind: 'preflight',
    action,
    roughTokens: null,
    roughTokensAfter: null,
    threshold: null,
    model: null,
    contextLength: null,
    lastRealPrompt: null,
    seconds: null,
    sessionId: null,
    ...fields,
  });
  if ((g = PF_COMPRESS.exec(m))) return preflight('compress', { roughTokens: num(g[1]), threshold: num(g[2]), model: g[3], contextLength: num(g[4]) });
  if ((g = PF_DEFER.exec(m))) return preflight('deferred-to-real-usage', { roughTokens: num(g[1]), threshold: num(g[2]), lastRealPrompt: num(g[3]) });
  if ((g = PF_COOLDOWN.exec(m))) return preflight('cooldown', { seconds: Number(g[1]), sessionId: g[2] });
  if ((g = PF_PROGRESS.exec(m))) return preflight('insufficient-progress', { roughTokens: num(g[1]), roughTokensAfter: num(g[2]) });
  if ((g = PF_LOCK.exec(m))) return preflight('lock-held', { sessionId: g[1] });
  if ((g = IDLE.exec(m))) return preflight('idle', { seconds: Number(g[1]), roughTokens: num(g[3]), threshold: num(g[4]), sessionId: g[6] });
  if ((g = STARTED.exec(m))) {
    return {
      ...base,
      kind: 'compaction-started',
      sessionId: g[1],
      trigger: g[2] ?? null,
      messages: Number(g[3]),
      roughTokens: numOrNull(g[4]),
      model: g[5],
      focus: g[6],
    };
  }
  if ((g = DONE.exec(m))) {
    return {
      ...base,
      kind: 'compaction-done',
      sessionId: g[1],
      messagesBefore: Number(g[2]),
      messagesAfter: Number(g[3]),
      roughTokens: num(g[4]),
      awaitingRealUsage: !!g[5],
    };
  }
  if ((g = TURN.exec(m))) {
    return { ...base, kind: 'turn', sessionId: g[1], model: g[2], provider: g[3], platform: g[4], history: Number(g[5]), message: g[6] };
  }
  return null;
}

/**
 * `%sAPI call failed after %s retries. %s | provider=%s model=%s msgs=%s tokens=~%s`: the leading
 * `%s` is the agent's log prefix, the summary may hold ` | ` itself, so the last ` | provider=` ends it.
 */
function retriesExhausted(m: string, base: RecordBase): LoggedRetriesExhausted | null {
  const at = m.indexOf('API call failed after ');
  EXHAUSTED.lastIndex = at;
  const head = EXHAUSTED.exec(m);
  if (!head) return null;
  const bar = m.lastIndexOf(' | provider=');
  if (bar < EXHAUSTED.lastIndex) return null;
  const tail = EXHAUSTED_TAIL.exec(m.slice(bar));
  if (!tail) return null;
  return {
    ...base,
    kind: 'retries-exhausted',
    retries: Number(head[1]),
    summary: m.slice(EXHAUSTED.lastIndex, bar),
    provider: tail[1],
    model: tail[2],
    messages: Number(tail[3]),
    roughTokens: numOrNull(tail[4]),
  };
}
