// The api_content sidecar: the exact bytes sent for a row, stored beside its clean content
// (docs/hermes-behaviour.md §1.1, introduced upstream in #67274).

import { buildMemoryContextBlock } from '../hermes/memoryContext';
import type { Row } from '../shared/model/rows';

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
 * The sidecar rule, the one place it is written: a user or assistant row's non-empty string sidecar
 * is sent in place of its content (the wire copy, the current-row check and the rough estimator's
 * shadow all ask this). Null when the row's content is what would be sent.
 */
export function effectiveSidecar(row: Row): string | null {
  const sidecar = row.api_content;
  return typeof sidecar === 'string' && sidecar !== '' && (row.role === 'user' || row.role === 'assistant') ? sidecar : null;
}
