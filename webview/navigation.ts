// Where the user is (turn, request, scroll) and how each step moves it. Pure functions over the
// index, so keyboard shortcuts, the host's `navigate` commands and live updates all agree.

import type { Navigation, UiState } from '../src/shared/messages';
import type { IndexModel } from './index-model';

/** No request: a turn the replay made no provider call for. */
export const NO_REQUEST = -1;

/** Where a newly selected request opens: at the turn's user message, the row the turn is about. */
function openAt(model: IndexModel, request: number): number {
  const r = model.request(request);
  if (!r) return 0;
  return r.userWireIndex >= 0 && r.userWireIndex < r.messageCount ? r.userWireIndex : 0;
}

export function selectTurn(model: IndexModel, turn: number): UiState {
  if (turn < 0 || turn >= model.turnCount) return { turn: 0, request: model.firstRequestOf(0), firstVisibleMessage: 0 };
  const request = model.firstRequestOf(turn);
  return { turn, request, firstVisibleMessage: openAt(model, request) };
}

export function selectRequest(model: IndexModel, request: number): UiState {
  const r = model.request(request);
  if (!r) return selectTurn(model, 0);
  return { turn: r.turn, request, firstVisibleMessage: openAt(model, request) };
}

/** A request opened where its prefix broke: the first message that differs from the previous request's. */
function breakAt(model: IndexModel, request: number): UiState {
  const at = selectRequest(model, request);
  const r = model.request(request);
  return r && r.breakMessage >= 0 && r.breakMessage < r.messageCount ? { ...at, firstVisibleMessage: r.breakMessage } : at;
}

/**
 * A place chosen outside the view: a request opened where its prefix broke (a break's first
 * differing message, else the user message), else a turn, else the first turn.
 */
export function revealed(model: IndexModel, turn: number | null, request: number | null): UiState {
  if (request !== null && model.request(request)) return breakAt(model, request);
  return selectTurn(model, turn ?? 0);
}

/**
 * A saved or current state checked against a (possibly new) index: kept where it still points at
 * the same turn and request, otherwise moved to the nearest valid place.
 */
export function restore(model: IndexModel, saved: UiState | null): UiState {
  if (model.turnCount === 0) return { turn: 0, request: NO_REQUEST, firstVisibleMessage: 0 };
  if (!saved) return selectTurn(model, 0);
  const turn = Math.min(Math.max(0, saved.turn), model.turnCount - 1);
  const r = model.request(saved.request);
  if (!r || r.turn !== turn) return selectTurn(model, turn);
  const first = Math.min(Math.max(0, saved.firstVisibleMessage), Math.max(0, r.messageCount - 1));
  return { turn, request: saved.request, firstVisibleMessage: first };
}

/** One step; unchanged (the same object) at either end or when there is nowhere to go. */
export function step(model: IndexModel, at: UiState, to: Navigation): UiState {
  switch (to) {
    case 'nextTurn':
      return at.turn + 1 < model.turnCount ? selectTurn(model, at.turn + 1) : at;
    case 'previousTurn':
      return at.turn > 0 ? selectTurn(model, at.turn - 1) : at;
    case 'nextRequest':
      return at.request + 1 < model.requestCount ? selectRequest(model, at.request + 1) : at;
    case 'previousRequest':
      return at.request > 0 ? selectRequest(model, at.request - 1) : at;
    case 'nextBreak': {
      // Wraps around, so pressing it again and again cycles through every break (a compaction's
      // re-billing is not one, as for the status bar's count).
      const n = model.requestCount;
      for (let k = 1; k <= n; k++) {
        const r = (Math.max(at.request, -1) + k) % n;
        if (model.breaks(r)) return r === at.request ? at : breakAt(model, r);
      }
      return at;
    }
  }
}
