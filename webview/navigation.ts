// Where the user is (turn, request, scroll) and how each step moves it. Pure functions over the
// index, so keyboard shortcuts, the host's `navigate` commands and live updates all agree.

import type { InspectorIndex, Navigation, UiState } from '../src/protocol';

/** No request: a turn the replay made no provider call for. */
export const NO_REQUEST = -1;

/** The wire index of the turn's own user message in a request (-1 when it has none). */
export function userWireIndex(index: InspectorIndex, request: number): number {
  return index.requests[request]?.userWireIndex ?? -1;
}

/** Where a newly selected request opens: at the turn's user message, the row the turn is about. */
function openAt(index: InspectorIndex, request: number): number {
  const r = index.requests[request];
  if (!r) return 0;
  const at = userWireIndex(index, request);
  return at >= 0 && at < r.messageCount ? at : 0;
}

export function selectTurn(index: InspectorIndex, turn: number): UiState {
  const t = index.turns[turn];
  if (!t) return { turn: 0, request: index.turns[0]?.requests[0] ?? NO_REQUEST, firstVisibleMessage: 0 };
  const request = t.requests[0] ?? NO_REQUEST;
  return { turn, request, firstVisibleMessage: openAt(index, request) };
}

export function selectRequest(index: InspectorIndex, request: number): UiState {
  const r = index.requests[request];
  if (!r) return selectTurn(index, 0);
  return { turn: r.turn, request, firstVisibleMessage: openAt(index, request) };
}

/**
 * A saved or current state checked against a (possibly new) index: kept where it still points at
 * the same turn and request, otherwise moved to the nearest valid place.
 */
export function restore(index: InspectorIndex, saved: UiState | null): UiState {
  if (index.turns.length === 0) return { turn: 0, request: NO_REQUEST, firstVisibleMessage: 0 };
  if (!saved) return selectTurn(index, 0);
  const turn = Math.min(Math.max(0, saved.turn), index.turns.length - 1);
  const r = index.requests[saved.request];
  if (!r || r.turn !== turn) return selectTurn(index, turn);
  const first = Math.min(Math.max(0, saved.firstVisibleMessage), Math.max(0, r.messageCount - 1));
  return { turn, request: saved.request, firstVisibleMessage: first };
}

/** One step; unchanged (the same object) at either end or when there is nowhere to go. */
export function step(index: InspectorIndex, at: UiState, to: Navigation): UiState {
  switch (to) {
    case 'nextTurn':
      return at.turn + 1 < index.turns.length ? selectTurn(index, at.turn + 1) : at;
    case 'previousTurn':
      return at.turn > 0 ? selectTurn(index, at.turn - 1) : at;
    case 'nextRequest':
      return at.request + 1 < index.requests.length ? selectRequest(index, at.request + 1) : at;
    case 'previousRequest':
      return at.request > 0 ? selectRequest(index, at.request - 1) : at;
    case 'nextBreak': {
      // Wraps around, so pressing it again and again cycles through every break.
      const n = index.requests.length;
      for (let k = 1; k <= n; k++) {
        const r = (Math.max(at.request, -1) + k) % n;
        if (!index.requests[r].stable) return r === at.request ? at : selectRequest(index, r);
      }
      return at;
    }
  }
}

/** The requests whose system prompt differs from the previous request's in their lineage. */
export function systemPromptChanges(index: InspectorIndex): Set<number> {
  const out = new Set<number>();
  for (const r of index.requests) {
    const prev = r.previousRequest === null ? undefined : index.requests[r.previousRequest];
    if (prev && prev.systemPromptSha256 !== r.systemPromptSha256) out.add(r.index);
  }
  return out;
}
