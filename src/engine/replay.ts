// From stored rows to turns and requests: every assistant row answers one request whose input was
// the system prompt plus the wire copies of all rows before it. Compactions start new generations;
// rows they carry over are never counted again as turns or requests.

import type { Generation, RecordedTurnInputs, SourcePos, Transcript, TranscriptSession } from '../model/transcript';
import { isSummaryCarrier, userOriginatedTurnView } from '../hermes/compactionMarkers';
import { countCarriedRows } from '../hermes/copies';
import type { InjectionKind } from '../model/injection';
import type { InjectedSpan } from './injection';
import type { Row } from '../model/rows';
import type { Profile } from './profile';
import { reanchorCurrentTurnUserIdx, type Reanchor } from './reanchor';
import { buildTurnUserRow } from './turnContext';
import { wireCopy, wireKey } from './apiMessages';

export interface ReplayCompaction {
  mode: 'rotation' | 'in-place';
  /** The list the agent held when it compacted (the old rows plus the turn's new user row). */
  before: Row[];
  /** The compacted list the turn's first request was built from. */
  after: Row[];
  /** Index of the turn's user row in `before`. */
  reanchorBefore: number;
  reanchor: Reanchor;
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
  pos: SourcePos;
}

export interface Replay {
  profile: Profile;
  turns: ReplayTurn[];
  requests: ReplayRequest[];
}

function lineageRoot(session: TranscriptSession, byId: Map<string, TranscriptSession>): string {
  let s = session;
  const seen = new Set<string>();
  // Only compaction continues a lineage; branch, delegate and reset children start their own.
  while (s.parentId && byId.get(s.parentId)?.endReason === 'compression' && !seen.has(s.id)) {
    seen.add(s.id);
    s = byId.get(s.parentId) as TranscriptSession;
  }
  return s.id;
}

export function replayTranscript(transcript: Transcript, profile: Profile): Replay {
  const replay: Replay = { profile, turns: [], requests: [] };
  const byId = new Map(transcript.sessions.map((s) => [s.id, s]));
  const lastRequestOfLineage = new Map<string, number>();
  const lastTurnOfLineage = new Map<string, ReplayTurn>();

  for (const session of transcript.sessions) {
    const lineage = lineageRoot(session, byId);
    session.generations.forEach((gen) => {
      const rows = gen.rows.slice();
      let start = gen.carried ?? 0;
      let pendingCompaction: ReplayCompaction | null = null;
      let turn: ReplayTurn | null = null;
      let crossedBoundary = gen.compaction !== undefined || gen.carried !== undefined;

      if (gen.compaction) {
        start = countCarriedRows(rows, gen.compaction.before);
        const firstNew = rows[start];
        const before = gen.compaction.before.slice();
        const opensTurn = firstNew !== undefined && userOriginatedTurnView(firstNew) !== null;
        if (opensTurn) before.push(firstNew);
        const firstAnswer = findFirstAnswer(rows, start);
        const after = rows.slice(0, firstAnswer);
        const inputs = gen.turnInputs?.get(start);
        const continuing = opensTurn ? null : lastTurnOfLineage.get(lineage) ?? null;
        const userMessage = opensTurn ? (inputs ? inputs.userMessage : firstNew.content) : continuing ? continuing.rows[continuing.userRow]?.content : undefined;
        pendingCompaction = {
          mode: gen.compaction.mode,
          before,
          after,
          reanchorBefore: opensTurn ? before.length - 1 : continuing ? continuing.userRow : -1,
          reanchor: reanchorCurrentTurnUserIdx(after, userMessage, profile, inputs?.currentTurnUserIdx),
        };
        if (continuing) {
          // A compaction inside a turn: the turn goes on in the new list, anchored again.
          continuing.laterCompactions.push(pendingCompaction);
          turn = continuing;
          turn.rows = rows;
          turn.userRow = pendingCompaction.reanchor.index;
          pendingCompaction = null;
        }
      }

      for (let i = start; i < rows.length; i++) {
        const row = rows[i];
        if (userOriginatedTurnView(row) !== null) {
          turn = openTurn(replay, session, lineage, gen, rows, i, profile, pendingCompaction);
          pendingCompaction = null;
          lastTurnOfLineage.set(lineage, turn);
        }
        const answered = row.role === 'assistant' && !isSummaryCarrier(row);
        const sentUnanswered = gen.trailingRequest === true && i === rows.length - 1 && !answered;
        if (answered || sentUnanswered) {
          if (!turn) {
            // An answer with no human ask before it in this list: whatever drove the call is
            // what re-anchoring finds, possibly nothing (#80622).
            turn = openTurn(replay, session, lineage, gen, rows, -1, profile, pendingCompaction, i);
            pendingCompaction = null;
            lastTurnOfLineage.set(lineage, turn);
          }
          const index = replay.requests.length;
          const previous = lastRequestOfLineage.get(lineage) ?? null;
          replay.requests.push({
            index, turn: turn.index, session, lineage, rows, end: answered ? i : rows.length, currentUserIdx: turn.userRow,
            systemPrompt: turn.systemPrompt, tools: turn.tools, previous,
            afterCompaction: crossedBoundary && previous !== null && gen.compaction !== undefined,
            pos: gen.pos[i] ?? session.pos,
          });
          crossedBoundary = false;
          turn.requests.push(index);
          lastRequestOfLineage.set(lineage, index);
        }
      }
    });
  }
  return replay;
}

/** The first row that answers a request after `from`: the end of a compacted list's input. */
function findFirstAnswer(rows: readonly Row[], from: number): number {
  for (let i = from; i < rows.length; i++) if (rows[i].role === 'assistant' && !isSummaryCarrier(rows[i])) return i;
  return rows.length;
}

function openTurn(replay: Replay, session: TranscriptSession, lineage: string, gen: Generation, rows: Row[],
  userIdx: number, profile: Profile, compaction: ReplayCompaction | null, answerAt = rows.length): ReplayTurn {
  const inputs: RecordedTurnInputs | undefined = userIdx >= 0 ? gen.turnInputs?.get(userIdx) : undefined;
  let anchor: Reanchor;
  if (compaction) anchor = compaction.reanchor;
  else if (userIdx >= 0) anchor = reanchorCurrentTurnUserIdx(rows, rows[userIdx].content, profile, inputs?.currentTurnUserIdx ?? userIdx, userIdx + 1);
  // Only rows before the answer were the request's input: a later user row cannot have driven it.
  else anchor = reanchorCurrentTurnUserIdx(rows, undefined, profile, undefined, answerAt);
  const turn: ReplayTurn = {
    index: replay.turns.length, session, lineage, rows, userRow: anchor.index, anchor, injected: [], lost: [],
    requests: [], compaction, laterCompactions: [],
    systemPrompt: inputs?.systemPrompt ?? session.systemPrompt ?? '',
    tools: inputs?.tools ?? session.tools,
    pos: userIdx >= 0 ? gen.pos[userIdx] ?? session.pos : session.pos,
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
