// The current turn's user row after a rewrite dropped its sidecar (docs/hermes-behaviour.md §5.3).
// A compaction inside a turn that folds the todo snapshot into the turn's own user row drops that
// row's `api_content` (drop_stale_api_content), but the turn's context is still held by the agent:
// every later request of the turn composes the current row live (build_api_messages: the stamp,
// else compose_user_api_content(live content, memory, plugin)). The stored copy keeps nothing of
// it; the archived original's sidecar does: `original content + "\n\n" + the injected block`.

import type { Row } from '../shared/model/rows';

/** The block compose_user_api_content appended to the original's words, or null when its sidecar is not that shape. */
export function injectedBlock(original: Row): string | null {
  const { content, api_content: sent } = original;
  if (typeof content !== 'string' || typeof sent !== 'string') return null;
  const lead = `${content}\n\n`;
  return sent.length > lead.length && sent.startsWith(lead) ? sent.slice(lead.length) : null;
}

/**
 * The copy as the turn's requests sent it while it was the current row: its own (rewritten) words,
 * then the block the original's sidecar carried. Null when the copy kept a sidecar, is not text
 * (compose_user_api_content returns None for part lists) or the original shows no block.
 */
export function composedLive(original: Row, copy: Row): Row | null {
  if (typeof copy.api_content === 'string' || typeof copy.content !== 'string') return null;
  const block = injectedBlock(original);
  return block === null ? null : { ...copy, api_content: `${copy.content}\n\n${block}` };
}
