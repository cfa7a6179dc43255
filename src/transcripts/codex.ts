// Codex's rollout (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl) read into the recorded model
// (docs/recorded.md). One JSON record a line, `{timestamp, type, payload}`: `session_meta` (the
// session, and in `base_instructions` the system prompt), `turn_context` (a turn's model and
// settings), `response_item`s (what went over the wire), `event_msg`s (the user's messages, and
// `token_count` after each model call: its usage, cached tokens inside input), `compacted` (a
// compaction with the history that replaces the old). A token count whose running total repeats
// the one before is the same call written twice.

import type { InputFinding, SourcePos } from '../shared/model/transcript';
import type { RecordedCall, RecordedSession, RecordedTranscript, RecordedTurn, RecordedUsage } from '../shared/model/recorded';
import { parseError } from './acceptRow';
import { RESPONSE_ITEMS } from './foreign';
import { eachRecord, isObject, PROMPT_CHARS, str, timeOf, UnknownTypes, type LineSource } from './jsonLines';
import { recordedUsageOf } from './providerUsage';

type Obj = Record<string, unknown>;

/** Record types read or knowingly passed over; any other costs its lines one finding per type. */
const KNOWN_TYPES = new Set([
  'session_meta',
  'turn_context',
  'response_item',
  'event_msg',
  'compacted',
  'token_usage_record',
  // Later Codex's records that hold no call, prompt or turn: passed over without a finding.
  'inter_agent_communication',
  'inter_agent_communication_metadata',
  'world_state',
  'retained_context',
  'security_risk_score',
  'realtime_item',
]);
/** Response items the model wrote: the first after a token count is when the next call answered. */
const MODEL_OUTPUT = new Set(['message', 'reasoning', 'function_call', 'custom_tool_call', 'local_shell_call', 'web_search_call']);
/** The type an early rollout's state markers are read as (passed over). */
const EARLY_STATE = '(state)';

/**
 * What the user typed, in an early rollout's user message item: its `input_text` parts; null for
 * another item, or for the context Codex sent as user messages (`<environment_context>`,
 * `<user_instructions>`: text that opens with a tag).
 */
export function earlyPrompt(item: Obj): string | null {
  if (item.type !== 'message' || item.role !== 'user' || !Array.isArray(item.content)) return null;
  const text = item.content
    .filter(isObject)
    .map((c) => (c.type === 'input_text' ? (str(c.text) ?? '') : `[${str(c.type) ?? 'input'}]`))
    .join('\n');
  return text.trimStart().startsWith('<') ? null : text;
}

/** `turn_context` fields that are no setting: a new turn has a new id. */
const NOT_SETTINGS = new Set(['turn_id']);

/** The settings a turn_context holds, each as its JSON, to tell which changed. */
function settingsOf(p: Obj): Map<string, string> {
  return new Map(
    Object.entries(p)
      .filter(([k]) => !NOT_SETTINGS.has(k))
      .map(([k, v]) => [k, JSON.stringify(v)]),
  );
}

/**
 * What the user typed, from an event_msg's payload: `user_message`'s `message` (Codex to 0.147), or
 * an `item_completed` whose item is a `UserMessage` (0.147 on), its content a list of inputs: the
 * texts joined, another input named by its type (`[local_image]`). Null for any other event.
 */
export function codexUserPrompt(p: Obj): string | null {
  if (p.type === 'user_message') return str(p.message) ?? '';
  if (p.type !== 'item_completed' || !isObject(p.item) || p.item.type !== 'UserMessage') return null;
  const content = Array.isArray(p.item.content) ? p.item.content : [];
  return content
    .filter(isObject)
    .map((c) => (c.type === 'text' ? (str(c.text) ?? '') : `[${str(c.type) ?? 'input'}]`))
    .join('\n');
}

function changedSettings(before: Map<string, string> | null, now: Map<string, string>): string[] {
  if (!before) return [];
  return [...new Set([...before.keys(), ...now.keys()])].filter((k) => before.get(k) !== now.get(k)).sort();
}

export function readCodex(path: string, lines: LineSource): RecordedTranscript {
  const findings: InputFinding[] = [];
  const unknownTypes = new UnknownTypes('Codex');
  let session: RecordedSession | null = null;
  let agentVersion: string | null = null;
  let systemPrompt: string | null = null;
  let model: string | null = null;
  /** session_meta's `model_provider` (`openai` for OpenAI's own API). */
  let provider: string | null = null;
  let settings: Map<string, string> | null = null;
  let lastTotal: string | null = null;
  /** The first model output since the last token count: when the next call's answer began. */
  let answerStart: number | null = null;
  let pending: { settings: string[]; at: number | null; pos: SourcePos } | null = null;
  /** The id of the turn under way (task_started, turn_context, item_completed carry it): a call is named by it and its place in the turn. */
  let turnId: string | null = null;
  /**
   * The last call and what wrote it. Later Codex writes a call's usage twice, as a `token_count`
   * event and a `token_usage_record` (with the response's id), in either order: one call.
   */
  let last: { call: RecordedCall; from: 'token_count' | 'token_usage_record'; paired: boolean } | null = null;
  /** Sessions of other threads (subagents) whose usage records this rollout holds, by thread id. */
  const threads = new Map<string, { session: RecordedSession; turnId: string | null }>();

  const sessionFor = (): RecordedSession => {
    session ??= {
      id:
        path
          .split('/')
          .pop()
          ?.replace(/\.jsonl$/, '') ?? path,
      parentId: null,
      kind: 'main',
      file: path,
      turns: [],
      compactions: [],
    };
    return session;
  };
  const currentTurn = (s: RecordedSession, at: number | null): RecordedTurn => {
    let turn = s.turns[s.turns.length - 1];
    if (!turn || pending || s.compactions.some((c) => c.turnIndex === s.turns.length)) {
      turn = { prompt: '', at: pending?.at ?? at, pos: pending?.pos ?? null, calls: [], systemPrompt, settingsChanged: pending?.settings ?? [] };
      s.turns.push(turn);
      pending = null;
    }
    return turn;
  };

  /**
   * A record of the turn `id` (null: a writer that names no turns): another id than the turn under
   * way's begins a turn. With no ids, each turn_context begins one, as Codex wrote one a turn.
   */
  const beginTurn = (id: string | null, at: number | null, pos: SourcePos, s: RecordedSession): void => {
    if (id !== null && id === turnId) return;
    turnId = id;
    pending = { settings: [], at, pos: { ...pos, sessionId: s.id } };
  };

  const sameUsage = (a: RecordedUsage | null, b: RecordedUsage | null): boolean =>
    a !== null && b !== null && a.input === b.input && a.cacheRead === b.cacheRead && a.output === b.output;

  /** A call of this session's turn under way, unless it is the last one written again by its other record. */
  const addCall = (
    s: RecordedSession,
    usage: RecordedUsage | null,
    responseId: string | null,
    from: 'token_count' | 'token_usage_record',
    at: number | null,
    pos: SourcePos,
  ): void => {
    if (last && !last.paired && last.from !== from && sameUsage(last.call.usage, usage)) {
      last.paired = true;
      if (responseId !== null) last.call.id = responseId;
      return;
    }
    const turn = currentTurn(s, at);
    // Without a response id (token_count), the turn's id and the call's place in it.
    const call = newCall(responseId ?? `${turnId ?? 'turn'}#${turn.calls.length + 1}`, usage, at, { ...pos, sessionId: s.id });
    turn.calls.push(call);
    last = { call, from, paired: false };
    answerStart = null;
  };

  const newCall = (id: string, usage: RecordedUsage | null, at: number | null, pos: SourcePos): RecordedCall => ({
    id,
    model,
    provider,
    firstAt: answerStart ?? at,
    lastAt: at,
    pos,
    lines: 1,
    usage,
    after: null,
    wire: null,
  });

  /** Another thread's call (a subagent's, recorded in its root's rollout): a session of its own, a turn per turn id. */
  const otherThreadCall = (
    thread: string,
    s: RecordedSession,
    turn: string | null,
    responseId: string | null,
    usage: RecordedUsage | null,
    at: number | null,
    pos: SourcePos,
  ): void => {
    let child = threads.get(thread);
    if (!child) {
      child = { session: { id: thread, parentId: s.id, kind: 'subagent', file: path, turns: [], compactions: [] }, turnId: null };
      threads.set(thread, child);
    }
    const { turns } = child.session;
    let t = turns[turns.length - 1];
    if (!t || (turn !== null && turn !== child.turnId)) {
      t = { prompt: '', at, pos: { ...pos, sessionId: thread }, calls: [], systemPrompt: null, settingsChanged: [] };
      turns.push(t);
      child.turnId = turn;
    }
    // Its model is in its own rollout's turn_context, not here.
    t.calls.push({ ...newCall(responseId ?? `${turn ?? 'turn'}#${t.calls.length + 1}`, usage, at, { ...pos, sessionId: thread }), model: null, firstAt: at });
  };

  /** An early rollout (Codex to mid 2025): a bare header, then bare response items; no token counts, no turn records. */
  let early = false;
  /** The early layout's typeless lines: its header is the session's metadata, its state markers nothing. */
  const untyped = (v: Obj): Obj | null => {
    if (v.record_type === 'state') return { type: EARLY_STATE };
    if (str(v.id) === null || str(v.timestamp) === null || session !== null) return null;
    early = true;
    return { type: 'session_meta', timestamp: v.timestamp, payload: v };
  };

  eachRecord(
    path,
    lines,
    findings,
    'Codex',
    (given, givenType, line) => {
      const pos: SourcePos = { line, column: 1 };
      // An early rollout's response items stand alone, not in a record's payload.
      const bare = early && !isObject(given.payload) && RESPONSE_ITEMS.has(givenType);
      const v: Obj = bare ? { type: 'response_item', payload: given } : given;
      const type = bare ? 'response_item' : givenType;
      if (type === EARLY_STATE) return;
      if (!KNOWN_TYPES.has(type)) {
        unknownTypes.add(type, line);
        return;
      }
      const p = v.payload;
      if (!isObject(p)) {
        findings.push(parseError(`${path}:${line}: a ${type} record without its "payload" object`, pos));
        return;
      }
      const at = timeOf(v);
      const s = sessionFor();
      switch (type) {
        case 'session_meta': {
          const id = str(p.id);
          if (id && s.turns.length === 0) s.id = id;
          provider = str(p.model_provider) ?? provider;
          // An early rollout's header may name the model; later ones name it per turn.
          model = str(p.model) ?? model;
          agentVersion ??= [str(p.originator), str(p.cli_version)].filter((w) => w !== null).join(' ') || null;
          const base = p.base_instructions;
          const instructions = isObject(base) ? str(base.text) : str(base);
          if (instructions !== null) systemPrompt = instructions;
          break;
        }
        case 'turn_context': {
          model = str(p.model) ?? model;
          const now = settingsOf(p);
          const changed = changedSettings(settings, now);
          settings = now;
          const id = str(p.turn_id);
          // Codex 0.147 on writes the user's message before its turn's context: that turn is begun already.
          const begun = id !== null && id === turnId && pending === null;
          beginTurn(id, at, pos, s);
          if (!begun) pending!.settings = changed;
          else {
            const turn = s.turns[s.turns.length - 1];
            turn.settingsChanged = [...new Set([...turn.settingsChanged, ...changed])].sort();
          }
          break;
        }
        case 'compacted':
          s.compactions.push({
            trigger: null,
            preTokens: null,
            at,
            pos: { ...pos, sessionId: s.id },
            summaryPos: { ...pos, sessionId: s.id },
            turnIndex: s.turns.length,
          });
          break;
        case 'response_item': {
          if (MODEL_OUTPUT.has(str(p.type) ?? '') && (p.type !== 'message' || p.role === 'assistant')) answerStart ??= at;
          // The early layout has no user_message event: the user's own message item begins a turn.
          const typed = early ? earlyPrompt(p) : null;
          if (typed !== null) {
            beginTurn(null, at, pos, s);
            currentTurn(s, at).prompt = typed.slice(0, PROMPT_CHARS);
          }
          break;
        }
        case 'event_msg': {
          if (p.type === 'task_started' && str(p.turn_id) !== null) {
            beginTurn(str(p.turn_id), at, pos, s);
            break;
          }
          const message = codexUserPrompt(p);
          if (message !== null) {
            const id = str(p.turn_id);
            if (id !== null) beginTurn(id, at, pos, s);
            const turn = currentTurn(s, at);
            if (!turn.prompt) {
              turn.prompt = message.slice(0, PROMPT_CHARS);
              turn.pos ??= { ...pos, sessionId: s.id };
            }
            break;
          }
          if (p.type !== 'token_count' || !isObject(p.info)) break;
          const total = JSON.stringify(p.info.total_token_usage ?? null);
          // The same running total again: the same call's count written twice.
          if (total === lastTotal) break;
          lastTotal = total;
          addCall(s, recordedUsageOf(p.info.last_token_usage, 'codex'), null, 'token_count', at, pos);
          break;
        }
        case 'token_usage_record': {
          const usage = recordedUsageOf(p.usage, 'codex');
          const thread = str(p.thread_id);
          if (thread !== null && thread !== s.id) {
            otherThreadCall(thread, s, str(p.turn_id), str(p.response_id), usage, at, pos);
            break;
          }
          if (str(p.turn_id) !== null) beginTurn(str(p.turn_id), at, pos, s);
          addCall(s, usage, str(p.response_id), 'token_usage_record', at, pos);
          break;
        }
      }
    },
    untyped,
  );
  findings.push(...unknownTypes.findings(path));
  return {
    format: 'codex',
    path,
    agentVersion,
    title: null,
    records: { systemPrompt: systemPrompt !== null, tools: false, requestBytes: false, billedUsage: !early, compactions: !early },
    sessions: session ? [session, ...[...threads.values()].map((t) => t.session)] : [],
    findings,
  };
}
