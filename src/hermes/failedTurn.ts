// Rows that say a request was sent and not answered (docs/hermes-behaviour.md §5.11). After a
// provider error (retries exhausted, a refused request) upstream's closer appends the failed-turn
// notice (agent/turn_failure_copy.py): display-only, stripped before every provider request. An
// interrupt that streamed no answer leaves a hidden placeholder instead
// (agent/agent_runtime_helpers_placeholders.py), which later requests do send.

import { isEmptyContent, type Row } from '../shared/model/rows';

const FAILED_TURN_DISPLAY_KIND = 'failed_turn';
const INTERRUPT_PLACEHOLDER = /^\[(?:interrupt: |response interrupted\])/;

/** The failed-turn notice: it ends a request that got no answer, and never reaches the wire. */
export function isFailedTurnNotice(row: Row): boolean {
  return row.role === 'assistant' && row.display_kind === FAILED_TURN_DISPLAY_KIND;
}

/** The hidden row an interrupted call leaves: sent as its placeholder later, but no answer. */
export function isInterruptPlaceholder(row: Row): boolean {
  return (
    row.role === 'assistant'
    && row.display_kind === 'hidden'
    && typeof row.api_content === 'string'
    && INTERRUPT_PLACEHOLDER.test(row.api_content)
    && isEmptyContent(row.content)
    && !Array.isArray(row.tool_calls)
  );
}

/**
 * A list as the replay reads it: the failed-turn notices taken out (no request ever sent them),
 * each remembered as a request that sent the rows before it and got no answer.
 */
export function withoutFailedTurnNotices<T>(items: readonly T[], rowOf: (item: T) => Row): { kept: T[]; failedAt: number[] } {
  const kept: T[] = [];
  const failedAt: number[] = [];
  for (const item of items) {
    if (isFailedTurnNotice(rowOf(item))) {
      if (failedAt[failedAt.length - 1] !== kept.length) failedAt.push(kept.length);
    } else kept.push(item);
  }
  return { kept, failedAt };
}
