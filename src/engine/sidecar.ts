// The api_content sidecar: the exact bytes sent for a row, stored beside its clean content
// (docs/hermes-behaviour.md §1.1, introduced upstream in #67274).

import { buildMemoryContextBlock } from '../hermes/memoryContext';
import type { Row } from '../model/rows';

/** The injected block for a turn: fenced memory, then plugin context, joined by a blank line. */
export function composeMultimodalContextPart(extPrefetchCache: string, pluginUserContext: string): string | null {
  const pieces = [buildMemoryContextBlock(extPrefetchCache), pluginUserContext].filter((p) => p);
  return pieces.length ? pieces.join('\n\n') : null;
}

/**
 * The user row's API content: its text, a blank line, then the injected block. Null for list
 * content (a multimodal turn never gets a string sidecar) and when there is nothing to inject.
 */
export function composeUserApiContent(content: unknown, extPrefetchCache: string, pluginUserContext: string): string | null {
  if (typeof content !== 'string') return null;
  const block = composeMultimodalContextPart(extPrefetchCache, pluginUserContext);
  return block === null ? null : `${content}\n\n${block}`;
}

/**
 * Pops the sidecar from an API-bound copy and, for a user/assistant row with a non-empty string
 * sidecar, puts it in place of content. Returns the popped value.
 */
export function substituteApiContent(apiMsg: Row): unknown {
  const sidecar = apiMsg.api_content;
  delete apiMsg.api_content;
  if (typeof sidecar === 'string' && sidecar !== '' && (apiMsg.role === 'user' || apiMsg.role === 'assistant')) {
    apiMsg.content = sidecar;
  }
  return sidecar;
}

/** Every content rewrite must drop the sidecar, or the replay would resend what was rewritten away. */
export function dropStaleApiContent(msg: Row): void {
  delete msg.api_content;
}

/** The sidecar to carry over when a row is copied, if it is a string. */
export function extractApiContentSidecar(msg: Row): string | null {
  return typeof msg.api_content === 'string' ? msg.api_content : null;
}

/** The sidecar that substitution would send for this row, or null when it would send content. */
export function effectiveSidecar(row: Row): string | null {
  const sidecar = row.api_content;
  return typeof sidecar === 'string' && sidecar !== '' && (row.role === 'user' || row.role === 'assistant') ? sidecar : null;
}
