// From stored rows to turns and requests: every assistant row answers one request whose input was
// the system prompt plus the wire copies of all rows before it. Compactions start new generations;
// rows they carry over are never counted again as turns or requests.

import type { CopyMatch, Generation, RecordedTurnInputs, SourcePos, StoredCompaction, Transcript, TranscriptSession } from '../shared/model/transcript';
import { isSummaryCarrier, userOriginatedTurnView } from '../hermes/compactionMarkers';
import { isInterruptPlaceholder } from '../hermes/failedTurn';
import { carriedPrefix } from '../hermes/copies';
import { composedLive } from '../hermes/droppedSidecar';
import { Lineages } from '../hermes/lineage';
import type { InjectionKind } from '../shared/model/injection';
import type { InjectedSpan } from './injection';
import type { Row } from '../shared/model/rows';
import type { Profile } from './profile';
import { reanchorCurrentTurnUserIdx, type Reanchor } from './reanchor';
import { buildTurnUserRow } from './turnContext';
import { wireCopy, wireKey } from './apiMessages';
import { CompactionCopies, findHandovers, isAnswer, lastGeneration, partListsSent, rowsContinuingBefore, type Handover } from './handovers';
import { inTimeOrder, placeResumed } from './turnOrder';

export interface ReplayCompaction {
  mode: 'rotation' | 'in-place';
  /** The list the agent held when it compacted (the old rows plus the turn's new user row). */
  before: Row[];
  /** The compacted list the turn's first request was built from. */
  after: Row[];
  /** Index of the turn's user row in `before`. */
  reanchorBefore: number;
  reanchor: Reanchor;
  /** The turn's user row was copied with its content changed: the todo snapshot folded in, or parts re-projected. */
  userRowChange?: 'todo-merged' | 'projected';
  /** That rewrite dropped the row's api_content sidecar, so later requests send it without its injected context. */
  sidecarDropped?: boolean;
}

export interface ReplayTurn {
  index: number;
  session: TranscriptSession;
  lineage: string;
  /** Rows of the generation this turn's requests were built from (user row replayed per profile). */
  rows: Row[];
  /** The re-anchored index of the turn's user row in `rows` (-1 when none was found). */
  userRow: number;
  anchor: Reanchor;
  injected: InjectedSpan[];
  lost: InjectionKind[];
  requests: number[];
  compaction: ReplayCompaction | null;
  /** Compactions that happened after this turn's first request (e.g. on overflow mid-turn). */
  laterCompactions: ReplayCompaction[];
  systemPrompt: string;
  tools: unknown[] | undefined;
  pos: SourcePos;
  /** For a traced turn whose stored row differs on the wire from the profile's replay of it. */
  recordedMismatch?: { recorded: Row; replayed: Row };
}

export interface ReplayRequest {
  index: number;
  turn: number;
  session: TranscriptSession;
  lineage: string;
  /** The generation's rows; the request's input is rows[0..end). */
  rows: Row[];
  end: number;
  currentUserIdx: number;
  systemPrompt: string;
  tools: unknown[] | undefined;
  /** The previous request of the lineage, compared with this one for prefix stability. */
  previous: number | null;
  /** True when a compaction separates this request from the previous one. */
  afterCompaction: boolean;
  /** Sent and not answered: a provider error (the failed-turn notice) or an interrupt (its placeholder). */
  failed: boolean;
  /**
   * When it was sent, epoch seconds: the time of its last input row (the ask or the tool result
   * that preceded the call); null when that row has none.
   */
  sentAt: number | null;
  /** When its answer was stored (the answering row's time), or null. */
  answeredAt: number | null;
  /**
   * The first request after a rewind (/undo, /retry): the row where the undone rows began in the
   * previous request's list, the list going on from the rows before it; null otherwise.
   */
  rewoundAt: number | null;
  pos: SourcePos;
}

export interface Replay {
  profile: Profile;
  turns: ReplayTurn[];
  requests: ReplayRequest[];
}

/** The turn and request bookkeeping of one lineage while its generations are replayed. */
interface LineageState {
  /** The request itself, not its index: a resumed replay renumbers requests. */
  lastRequest: ReplayRequest | null;
  lastTurn: ReplayTurn | null;
}

/** Where a generation's replay starts, and what its first turn inherits from the compaction before it. */
interface GenerationStart {
  start: number;
  turn: ReplayTurn | null;
  pending: ReplayCompaction | null;
  /** The rows the compaction's turn sends, where they differ from the stored list (see liveTurnRows). */
  turnRows?: Row[];
}

/**
 * Where the replay of a session's last generation stopped, kept so rows appended to that list later
 * are replayed from there (resumeReplay) instead of from the first row.
 */
interface GenerationLoop {
  session: TranscriptSession;
  lineage: string;
  state: LineageState;
  /** The replay's copy of the list (rows a later profile rebuilt replaced in it). */
  rows: Row[];
  start: number;
  turn: ReplayTurn | null;
  pending: ReplayCompaction | null;
  turnRows?: Row[];
  crossedBoundary: boolean;
  /** The copies the generation began with, for a compacted list. */
  copies?: CopyMatch;
  /** The copy a handover's turn is answered from in this compacted or forked list, or -1. */
  handover: number;
  /** The list goes on in rows only its compacted copy stored (see continuesBeforeCompaction). */
  continued: boolean;
  /** The last row sent a request with no stored answer (a dump's): more rows would unsend it. */
  tentative: boolean;
  /** The lineage's last turn and request when this list's replay ended. */
  endTurn: ReplayTurn | null;
  endRequest: ReplayRequest | null;
}

/** The turns and requests a session's replay added, in the order it added them. */
interface SessionReplayed {
  turns: ReplayTurn[];
  requests: ReplayRequest[];
}

/**
 * Where a replay stopped, handed back beside it: what resumeReplay goes on from and replayAgain
 * takes over. Resuming changes it and the replay together, so each belongs to one owner.
 */
export interface ReplayCursor {
  loops: Map<Generation, GenerationLoop>;
  /** By session, for replayAgain to take them over. */
  replayed: Map<TranscriptSession, SessionReplayed>;
  /** inTimeOrder moved turns of one lineage behind another's. */
  reordered: boolean;
  /** What this replay worked out about its compacted lists. */
  copies: CompactionCopies;
}

/** A replay and where it stopped. */
export interface ResumableReplay {
  replay: Replay;
  cursor: ReplayCursor;
}

export function replayTranscript(transcript: Transcript, profile: Profile): ResumableReplay {
  return replaySessions(transcript, profile, null);
}

/**
 * The replay of `transcript` where the sessions of `kept` are those `previous` replayed, unchanged
 * (the same objects): their turns and requests are taken over from it (the same objects,
 * renumbered), and only the other sessions are replayed. A session replays from its own rows and
 * its parent's alone, so `kept` must hold whole families (a session with its parent and its forks
 * and children); the result equals a replay of the whole transcript.
 */
export function replayAgain(previous: ResumableReplay, transcript: Transcript, kept: ReadonlySet<TranscriptSession>): ResumableReplay {
  return replaySessions(transcript, previous.replay.profile, { known: previous.cursor, kept });
}

function replaySessions(
  transcript: Transcript,
  profile: Profile,
  earlier: { known: ReplayCursor; kept: ReadonlySet<TranscriptSession> } | null,
): ResumableReplay {
  const replay: Replay = { profile, turns: [], requests: [] };
  const copies = new CompactionCopies();
  const loops = new Map<Generation, GenerationLoop>();
  const replayed = new Map<TranscriptSession, SessionReplayed>();
  const lineages = new Lineages(transcript.sessions);
  const states = new Map<string, LineageState>();
  // Handovers and part lists lie within a family, so only the families replayed are searched.
  const replaying = transcript.sessions.filter((s) => !earlier?.kept.has(s));
  const handovers = findHandovers(replaying, lineages, copies);
  const sent = partListsSent(replaying, copies);
  // The old list's row each handover takes away, by the list it sits in.
  const handedOn = new Map([...handovers.values()].map((h) => [h.before, h.original]));
  // Where each taken-over turn and request was, and where it is now.
  const turnMoves = new Map<number, number>();
  const requestMoves = new Map<number, number>();

  for (const session of transcript.sessions) {
    const taken = earlier?.kept.has(session) ? earlier.known.replayed.get(session) : undefined;
    if (earlier && taken) {
      copies.takeOver(earlier.known.copies, session);
      for (const t of taken.turns) turnMoves.set(t.index, replay.turns.push(t) - 1);
      for (const r of taken.requests) requestMoves.set(r.index, replay.requests.push(r) - 1);
      replayed.set(session, taken);
      const last = lastGeneration(session);
      const loop = last && earlier.known.loops.get(last);
      if (last && loop) loops.set(last, loop);
      continue;
    }
    const lineage = lineages.root(session).id;
    let state = states.get(lineage);
    if (!state) {
      state = { lastRequest: null, lastTurn: null };
      states.set(lineage, state);
    }
    const [turns, requests] = [replay.turns.length, replay.requests.length];
    for (const gen of session.generations) {
      const loop = replayGeneration(
        { replay, copies, sent },
        session,
        lineage,
        gen,
        state,
        handovers.get(gen),
        handedOn.get(gen.rows) ?? gen.unansweredAsk ?? -1,
      );
      if (gen === lastGeneration(session)) loops.set(gen, loop);
    }
    replayed.set(session, { turns: replay.turns.slice(turns), requests: replay.requests.slice(requests) });
  }
  // A family is taken over whole, so every index a taken-over turn or request holds moved with it.
  const moved = (moves: Map<number, number>, i: number): number => moves.get(i) as number;
  for (const [, to] of turnMoves) {
    const t = replay.turns[to];
    t.requests = t.requests.map((r) => moved(requestMoves, r));
  }
  for (const [, to] of requestMoves) {
    const r = replay.requests[to];
    r.turn = moved(turnMoves, r.turn);
    if (r.previous !== null) r.previous = moved(requestMoves, r.previous);
  }
  for (const [, to] of turnMoves) replay.turns[to].index = to;
  for (const [, to] of requestMoves) replay.requests[to].index = to;
  return { replay, cursor: { loops, replayed, reordered: inTimeOrder(replay), copies } };
}

/** Where resumeReplay changed the replay: its turns and requests from these indices on are new or renumbered. */
export interface ReplayResumed {
  firstTurn: number;
  firstRequest: number;
}

/**
 * Rows appended to lists already replayed (the transcript's own lists, grown in place: see
 * graftGrowth) replayed from where the replay stopped: the replay and its cursor are extended in
 * place and equal a replay of the whole transcript. Null, and both no longer to be used, where it
 * would not: the list is not the last of its lineage, something was copied from it, its compaction
 * or turn order would be judged differently with the new rows.
 */
export function resumeReplay({ replay, cursor: known }: ResumableReplay, transcript: Transcript): ReplayResumed | null {
  const resumed = { firstTurn: replay.turns.length, firstRequest: replay.requests.length };
  const parents = new Set(transcript.sessions.map((s) => s.parentId));
  const lists = new Set(transcript.sessions.flatMap((s) => s.generations));
  // A session or list the replay has not seen (a compaction, a rewind since) starts from rows no list held.
  if (transcript.sessions.some((s) => s.generations.length > 0 && !known.loops.has(lastGeneration(s) as Generation))) return null;
  for (const [gen, loop] of known.loops) {
    const before = loop.rows.length;
    if (!lists.has(gen) || gen.rows.length === before) continue;
    if (gen.rows.length < before || !resumable(loop, gen, before, parents, known.copies)) return null;
    for (let i = before; i < gen.rows.length; i++) {
      loop.rows.push(gen.rows[i]);
      // A turn that goes on in its live copy of the list (see liveTurnRows) sends the new rows too.
      if (loop.turn && loop.turn.rows !== loop.rows && loop.turn.rows.length === i) loop.turn.rows.push(gen.rows[i]);
    }
    // Rows a fork or a rewind carried over are not replayed, however many of them the last read saw.
    const [turns, requests] = [replay.turns.length, replay.requests.length];
    runGeneration(replay, loop, gen, Math.max(before, loop.start), -1, true);
    const record = known.replayed.get(loop.session);
    record?.turns.push(...replay.turns.slice(turns));
    record?.requests.push(...replay.requests.slice(requests));
  }
  return placeResumed(replay, transcript, resumed, known);
}

function resumable(loop: GenerationLoop, gen: Generation, before: number, parents: Set<string | null>, copies: CompactionCopies): boolean {
  // Another list copied from this one (a compaction's, a fork's) was replayed from it as it was.
  if (parents.has(loop.session.id) || loop.continued || loop.tentative) return false;
  if (loop.state.lastTurn !== loop.endTurn || loop.state.lastRequest !== loop.endRequest) return false;
  // A fork's handover is found by matching its rows to its parent's again: not resumed.
  if (!gen.compaction) return loop.handover < 0;
  // The compaction's report reads the compacted list up to its first answer, and which rows are copies.
  if (findFirstAnswer(loop.rows, loop.start) >= before) return false;
  const was = loop.copies;
  const now = copies.of(gen);
  if (!was || now.source.length !== gen.rows.length) return false;
  for (let i = 0; i < now.source.length; i++) {
    if (i < before ? now.source[i] !== was.source[i] || now.relation[i] !== was.relation[i] : now.source[i] >= 0) return false;
  }
  // A handover stands while the turn did not go on, in rows older than the compaction, to an answer.
  return loop.handover < 0 || !rowsContinuingBefore(gen, loop.handover, now).some(isAnswer);
}

/** What every list of one replay is replayed with. */
interface ReplayRun {
  replay: Replay;
  copies: CompactionCopies;
  /** Rows stored as text whose compacted copy keeps their part list (partListsSent). */
  sent: Map<Row, Row>;
}

/** `handedOn`: the row of this list whose turn a later list answers (see Handover), or -1. */
function replayGeneration(
  { replay, copies, sent }: ReplayRun,
  session: TranscriptSession,
  lineage: string,
  gen: Generation,
  state: LineageState,
  handover: Handover | undefined,
  handedOn: number,
): GenerationLoop {
  const extra = copies.continuation(gen.rows);
  const rows = (extra ? [...gen.rows, ...extra] : gen.rows.slice()).map((r) => sent.get(r) ?? r);
  const begun = beginGeneration(replay.profile, copies, gen, rows, state, handover);
  const loop: GenerationLoop = {
    session,
    lineage,
    state,
    rows,
    start: begun.start,
    turn: begun.turn,
    pending: begun.pending,
    turnRows: begun.turnRows,
    crossedBoundary: gen.compaction !== undefined || gen.carried !== undefined,
    copies: gen.compaction ? copies.of(gen) : undefined,
    handover: handover?.copy ?? -1,
    continued: extra !== undefined,
    tentative: false,
    endTurn: null,
    endRequest: null,
  };
  runGeneration(replay, loop, gen, begun.start, handedOn);
  return loop;
}

/** The rows of a list from `from` on: turns opened and requests recorded, the loop's state kept. */
function runGeneration(replay: Replay, loop: GenerationLoop, gen: Generation, from: number, handedOn: number, resumed = false): void {
  const { rows, session, lineage, state } = loop;
  const { profile } = replay;
  let { turn } = loop;
  loop.tentative = false;
  const failedAt = new Set(gen.failedAt);
  // A request that failed after row i - 1, recorded before row i (a resumed list recorded the one at `from` already).
  const failedBefore = (i: number): void => {
    if ((resumed && i === from) || !failedAt.has(i) || !turn) return;
    recordRequest(replay, turn, session, lineage, gen, turn.rows, i, loop.crossedBoundary, state, true);
    loop.crossedBoundary = false;
  };
  for (let i = from; i < rows.length; i++) {
    failedBefore(i);
    const row = rows[i];
    if (i !== handedOn && userOriginatedTurnView(row) !== null) {
      turn = openTurn(replay, session, lineage, gen, loop.pending && loop.turnRows ? loop.turnRows : rows, i, profile, loop.pending);
      loop.pending = null;
      state.lastTurn = turn;
    }
    const answered = isAnswer(row);
    const sentUnanswered = gen.trailingRequest === true && i === rows.length - 1 && !answered;
    if (!answered && !sentUnanswered) continue;
    if (!turn) {
      // An answer with no human ask before it in this list: whatever drove the call is
      // what re-anchoring finds, possibly nothing (#80622).
      turn = openTurn(replay, session, lineage, gen, rows, -1, profile, loop.pending, i);
      loop.pending = null;
      state.lastTurn = turn;
    }
    recordRequest(replay, turn, session, lineage, gen, turn.rows, answered ? i : rows.length, loop.crossedBoundary, state, isInterruptPlaceholder(row));
    loop.crossedBoundary = false;
    loop.tentative = sentUnanswered;
  }
  failedBefore(rows.length);
  loop.turn = turn;
  loop.endTurn = state.lastTurn;
  loop.endRequest = state.lastRequest;
}

/**
 * Begin a generation: a plain one starts at its first row (or after the rows a rewind kept); a
 * compacted one after its carried-over rows, with the compaction handed to the turn it belongs
 * to: the handed-over turn, the next new turn, or (mid-turn) the turn still running.
 */
function beginGeneration(
  profile: Profile,
  lists: CompactionCopies,
  gen: Generation,
  rows: Row[],
  state: LineageState,
  handover: Handover | undefined,
): GenerationStart {
  if (!gen.compaction) return { start: handover ? Math.min(handover.copy, gen.carried ?? 0) : (gen.carried ?? 0), turn: null, pending: null };
  const copies = lists.of(gen);
  const before = lists.listBefore(gen.compaction);
  if (handover) {
    const userMessage = before[handover.original].content;
    const inputs = gen.turnInputs?.get(handover.copy);
    const after = rows.slice(0, findFirstAnswer(rows, handover.copy));
    const reanchor = reanchorCurrentTurnUserIdx(after, inputs ? inputs.userMessage : userMessage, profile, inputs?.currentTurnUserIdx);
    const pending = compactionOf(gen.compaction, before, after, handover.original, confirm(reanchor, handover.copy), copies, handover.copy);
    return { start: handover.copy, turn: null, pending, turnRows: inputs ? undefined : liveTurnRows(rows, pending, handover.copy) };
  }
  const start = carriedPrefix(rows, copies.source);
  const firstNew = rows[start];
  const opensTurn = firstNew !== undefined && userOriginatedTurnView(firstNew) !== null;
  const after = rows.slice(0, findFirstAnswer(rows, start));
  if (opensTurn) {
    const inputs = gen.turnInputs?.get(start);
    const reanchor = reanchorCurrentTurnUserIdx(after, inputs ? inputs.userMessage : firstNew.content, profile, inputs?.currentTurnUserIdx);
    return { start, turn: null, pending: compactionOf(gen.compaction, [...before, firstNew], after, before.length, reanchor, copies, -1) };
  }
  const running = state.lastTurn;
  const userMessage = running ? running.rows[running.userRow]?.content : undefined;
  const reanchor = reanchorCurrentTurnUserIdx(after, userMessage, profile);
  // The running turn's user row in the old list (a traced turn's row was rebuilt, so by position then).
  const own = running ? running.rows[running.userRow] : undefined;
  const ownIndex = own === undefined ? -1 : before.indexOf(own) >= 0 ? before.indexOf(own) : (running?.userRow ?? -1);
  const ownCopy = ownIndex >= 0 ? copies.source.lastIndexOf(ownIndex) : -1;
  const compaction = compactionOf(gen.compaction, before, after, running ? running.userRow : -1, confirm(reanchor, ownCopy), copies, ownCopy);
  if (!running) return { start, turn: null, pending: compaction };
  // A compaction inside a turn: the turn goes on in the new list, anchored again.
  running.laterCompactions.push(compaction);
  running.rows = liveTurnRows(rows, compaction, ownCopy) ?? rows;
  running.userRow = compaction.reanchor.index;
  return { start, turn: running, pending: null };
}

/**
 * The rows a turn sends after a compaction rewrote its own user row and dropped the sidecar: the
 * copy composed live with the context its original carried (src/hermes/droppedSidecar.ts). Only the
 * turn's own requests send that; later turns replay the stored row bare. Undefined when unchanged.
 */
function liveTurnRows(rows: Row[], compaction: ReplayCompaction, userCopy: number): Row[] | undefined {
  if (!compaction.sidecarDropped || userCopy < 0) return undefined;
  const live = composedLive(compaction.before[compaction.reanchorBefore], rows[userCopy]);
  if (!live) return undefined;
  const out = rows.slice();
  out[userCopy] = live;
  return out;
}

/** A fallback that landed on the copy of the turn's own row found the right row after all. */
function confirm(reanchor: Reanchor, copyOfOwnRow: number): Reanchor {
  return reanchor.rule === 'fallback' && copyOfOwnRow >= 0 && reanchor.index === copyOfOwnRow ? { ...reanchor, confirmed: true } : reanchor;
}

function compactionOf(
  stored: StoredCompaction,
  before: Row[],
  after: Row[],
  reanchorBefore: number,
  reanchor: Reanchor,
  copies: CopyMatch,
  userCopy: number,
): ReplayCompaction {
  const out: ReplayCompaction = { mode: stored.mode, before, after, reanchorBefore, reanchor };
  const change = userCopy >= 0 ? copies.relation[userCopy] : null;
  if (change === 'todo-merged' || change === 'projected') {
    out.userRowChange = change;
    const original = before[reanchorBefore];
    out.sidecarDropped = typeof original?.api_content === 'string' && original.api_content !== '' && after[userCopy]?.api_content === undefined;
  }
  return out;
}

function recordRequest(
  replay: Replay,
  turn: ReplayTurn,
  session: TranscriptSession,
  lineage: string,
  gen: Generation,
  rows: Row[],
  end: number,
  crossedBoundary: boolean,
  state: LineageState,
  failed = false,
): void {
  const index = replay.requests.length;
  const previous = state.lastRequest?.index ?? null;
  const request: ReplayRequest = {
    index,
    turn: turn.index,
    session,
    lineage,
    rows,
    end,
    currentUserIdx: turn.userRow,
    systemPrompt: turn.systemPrompt,
    tools: turn.tools,
    previous,
    afterCompaction: crossedBoundary && previous !== null && gen.compaction !== undefined,
    failed,
    rewoundAt: crossedBoundary && previous !== null && gen.compaction === undefined && gen.carried !== undefined ? gen.carried : null,
    sentAt: secondsOf(rows[end - 1]?.timestamp),
    // A failed call's next row is no answer of it (its notice is not among the rows); an interrupt's placeholder is its end.
    answeredAt: end < rows.length && (!failed || isInterruptPlaceholder(rows[end])) ? secondsOf(rows[end].timestamp) : null,
    pos: gen.pos[Math.min(end, rows.length - 1)] ?? session.pos,
  };
  replay.requests.push(request);
  turn.requests.push(index);
  state.lastRequest = request;
}

/** A stored row time as epoch seconds (Hermes stores a float), or null. */
function secondsOf(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : null;
}

/** The first row that answers a request after `from`: the end of a compacted list's input. */
function findFirstAnswer(rows: readonly Row[], from: number): number {
  for (let i = from; i < rows.length; i++) if (rows[i].role === 'assistant' && !isSummaryCarrier(rows[i])) return i;
  return rows.length;
}

function openTurn(
  replay: Replay,
  session: TranscriptSession,
  lineage: string,
  gen: Generation,
  rows: Row[],
  userIdx: number,
  profile: Profile,
  compaction: ReplayCompaction | null,
  answerAt = rows.length,
): ReplayTurn {
  const inputs: RecordedTurnInputs | undefined = userIdx >= 0 ? gen.turnInputs?.get(userIdx) : undefined;
  let anchor: Reanchor;
  if (compaction) anchor = compaction.reanchor;
  else if (userIdx >= 0) anchor = reanchorCurrentTurnUserIdx(rows, rows[userIdx].content, profile, inputs?.currentTurnUserIdx ?? userIdx, userIdx + 1);
  // Only rows before the answer were the request's input: a later user row cannot have driven it.
  else anchor = reanchorCurrentTurnUserIdx(rows, undefined, profile, undefined, answerAt);
  const turn: ReplayTurn = {
    index: replay.turns.length,
    session,
    lineage,
    rows,
    userRow: anchor.index,
    anchor,
    injected: [],
    lost: [],
    requests: [],
    compaction,
    laterCompactions: [],
    systemPrompt: inputs?.systemPrompt ?? session.systemPrompt ?? '',
    tools: inputs?.tools ?? session.tools,
    pos: userIdx >= 0 ? (gen.pos[userIdx] ?? session.pos) : session.pos,
  };
  if (inputs && userIdx >= 0) {
    // A traced turn: rebuild its user row from the recorded inputs under this profile's rules.
    const recorded = rows[userIdx];
    const built = buildTurnUserRow(inputs.userMessage, inputs, profile, recorded);
    rows[userIdx] = built.row;
    turn.injected = built.injected;
    turn.lost = built.lost;
    const ctx = { profile, isCurrent: true, isFinal: false };
    if (wireKey(wireCopy(recorded, userIdx, ctx).message) !== wireKey(wireCopy(built.row, userIdx, ctx).message)) {
      turn.recordedMismatch = { recorded, replayed: built.row };
    }
  } else if (turn.userRow >= 0) {
    turn.injected = wireCopy(rows[turn.userRow], turn.userRow, { profile, isCurrent: true, isFinal: false }).injected;
  }
  replay.turns.push(turn);
  return turn;
}
