// Finding the current turn's user row again after compaction replaced the list (docs/hermes-behaviour.md §1.3).

import { userOriginatedTurnView } from '../hermes/compactionMarkers';
import type { Row } from '../shared/model/rows';
import type { Profile } from './profile';

export type ReanchorRule = 'typed-index' | 'exact' | 'live-view' | 'fallback' | 'none';

export interface Reanchor {
  index: number;
  rule: ReanchorRule;
  /** The fallback landed on the copy of the turn's own row (a compaction rewrote its content): the right row. */
  confirmed?: boolean;
}

function sameContent(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' || typeof b === 'string' || a === null || b === null) return a === b;
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Returns the index of the row holding userMessage: under the V1 rule, the last user row whose
 * content matches, else the last user row; under the newer rule, a valid typed index wins, the
 * live view of a merged row may match, and handoff/bookkeeping rows can never be the fallback.
 */
export function reanchorCurrentTurnUserIdx(
  messages: readonly Row[],
  userMessage: unknown,
  profile: Profile,
  typedIndex?: number,
  end = messages.length,
): Reanchor {
  if (
    profile.reanchor === 'v3'
    && typedIndex !== undefined
    && Number.isInteger(typedIndex)
    && typedIndex >= 0
    && typedIndex < end
    && messages[typedIndex]?.role === 'user'
  ) {
    return { index: typedIndex, rule: 'typed-index' };
  }
  let fallback = -1;
  for (let i = end - 1; i >= 0; i--) {
    const row = messages[i];
    if (row.role !== 'user') continue;
    if (profile.reanchor === 'v1') {
      if (sameContent(row.content, userMessage)) return { index: i, rule: 'exact' };
      if (fallback < 0) fallback = i;
      continue;
    }
    const view = userOriginatedTurnView(row);
    if (view === null) continue;
    if (sameContent(row.content, userMessage)) return { index: i, rule: 'exact' };
    if (sameContent(view.content, userMessage)) return { index: i, rule: 'live-view' };
    if (fallback < 0) fallback = i;
  }
  return fallback >= 0 ? { index: fallback, rule: 'fallback' } : { index: -1, rule: 'none' };
}
