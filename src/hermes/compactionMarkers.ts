// How a compaction shows up inside rows (docs/hermes-behaviour.md §2.2), and which user rows are real human asks.

import { contentText, type Row } from '../shared/model/rows';

export const SUMMARY_PREFIX = '[CONTEXT COMPACTION — REFERENCE ONLY]';
export const LEGACY_SUMMARY_PREFIX = '[CONTEXT SUMMARY]:';
export const SUMMARY_END_MARKER = '--- END OF CONTEXT SUMMARY — respond to the message below, not the summary above ---';
export const MERGED_PRIOR_CONTEXT_HEADER = '[PRIOR CONTEXT — for reference only; not a new message]';
export const MERGED_SUMMARY_DELIMITER = '[END OF PRIOR CONTEXT — COMPACTION SUMMARY BELOW]';
export const TODO_SNAPSHOT_PREFIX = '[Your active task list was preserved across context compression]';
export const COMPRESSION_CONTINUATION_USER_CONTENT =
  'Continue from the compressed conversation context above. This marker exists because no human user turn was available.';

function truthy(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 'true';
}

/** A summary carrier: flagged by the compressor, or recognisable by its wording. */
export function isSummaryCarrier(row: Row): boolean {
  if (truthy(row._compressed_summary)) return true;
  if (row.role !== 'user' && row.role !== 'assistant') return false;
  const text = contentText(row.content);
  return (
    text.startsWith(SUMMARY_PREFIX)
    || text.startsWith(LEGACY_SUMMARY_PREFIX)
    || text.startsWith(MERGED_PRIOR_CONTEXT_HEADER)
    || text.includes(SUMMARY_END_MARKER)
  );
}

/**
 * The human ask a user row carries, or null when it carries none: compaction handoffs, typed
 * bookkeeping rows (todo snapshots, hidden rows) and the continuation marker are never turns.
 * For a summary merged with a human ask, the ask is unwrapped (split_user_originated_turn).
 */
export function userOriginatedTurnView(row: Row): Row | null {
  if (row.role !== 'user') return null;
  if (row.display_kind !== undefined && row.display_kind !== null && row.display_kind !== '/steer') return null;
  const text = typeof row.content === 'string' ? row.content : null;
  if (text !== null) {
    if (text.startsWith(TODO_SNAPSHOT_PREFIX) || text === COMPRESSION_CONTINUATION_USER_CONTENT) return null;
    if (isSummaryCarrier(row)) {
      const ask = unwrapMergedAsk(text);
      return ask === null ? null : { role: 'user', content: ask };
    }
  }
  return { role: 'user', content: row.content };
}

/** The human text merged around a summary, if any (the two merge shapes of §2.2). */
function unwrapMergedAsk(text: string): string | null {
  if (text.startsWith(MERGED_PRIOR_CONTEXT_HEADER)) {
    // PRIOR_HEADER + "\n" + old + "\n\n" + DELIMITER + ...: the old row's text is the ask.
    const end = text.indexOf(`\n\n${MERGED_SUMMARY_DELIMITER}`);
    const ask = end < 0 ? '' : text.slice(MERGED_PRIOR_CONTEXT_HEADER.length + 1, end);
    return ask.trim() ? ask : null;
  }
  // Force-user-leading merge: summary + "\n\n" + END_MARKER + "\n\n" + old.
  const marker = text.indexOf(SUMMARY_END_MARKER);
  if (marker < 0) return null;
  const ask = text.slice(marker + SUMMARY_END_MARKER.length).replace(/^\n\n/, '');
  return ask.trim() ? ask : null;
}
