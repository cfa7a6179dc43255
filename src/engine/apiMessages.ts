// The wire build (docs/hermes-behaviour.md §1.7, build_api_messages): what one provider request really carried.

import { injectedSpansOfSidecar, multimodalNoteSpans, projectedNoteSpans, type InjectedSpan } from './injection';
import { copyParts, hasToolCalls, isEmptyContent, isPartList, type Row } from '../shared/model/rows';
import type { Profile } from './profile';
import { effectiveSidecar } from './sidecar';

/** Keys that reach the provider; everything else on a stored row is bookkeeping. */
const WIRE_KEYS = ['role', 'content', 'tool_calls', 'tool_call_id', 'name', 'reasoning_content', 'reasoning_details'];

export type Substitution = 'sidecar' | 'placeholder' | null;

export interface WireMessage {
  message: Row;
  /** Index of the stored row in the message list; -1 for the system message. */
  source: number;
  substituted: Substitution;
  /** Spans the assembly injected into this message (the current or a replayed user row). */
  injected: InjectedSpan[];
}

export interface WireCopyContext {
  profile: Profile;
  /** This row is the current turn's user row of the request being built. */
  isCurrent: boolean;
  /** This row is the last one of the request (an empty final row is not filled). */
  isFinal: boolean;
}

/** The wire copy of one stored row: sidecar substituted per profile, bookkeeping gone, placeholder. */
export function wireCopy(row: Row, source: number, ctx: WireCopyContext): WireMessage {
  // Only the wire keys are copied (none of them is persistence-only); parts are cloned so the
  // copy never aliases the stored row.
  const message: Row = { role: row.role };
  for (const key of WIRE_KEYS) if (key !== 'role' && row[key] !== undefined) message[key] = row[key];
  if (Array.isArray(row.content)) message.content = copyParts(row.content);
  let substituted: Substitution = null;
  const sidecar = effectiveSidecar(row);
  if (sidecar !== null && (ctx.profile.sidecarReplay === 'all' || ctx.isCurrent) && sidecar !== row.content) {
    message.content = sidecar;
    substituted = 'sidecar';
  }
  if (row.role === 'assistant' && row.reasoning !== undefined && row.reasoning !== null && row.reasoning_content === undefined) {
    message.reasoning_content = row.reasoning;
  }
  if (message.content === undefined) message.content = row.role === 'assistant' && hasToolCalls(row) ? null : '';
  if (!ctx.isFinal && (row.role === 'user' || row.role === 'assistant') && isEmptyContent(message.content) && !hasToolCalls(message)) {
    message.content = ctx.profile.interruptPlaceholder;
    substituted = 'placeholder';
  }
  let injected: InjectedSpan[] = [];
  if (row.role === 'user') {
    if (isPartList(message.content)) injected = multimodalNoteSpans(message.content);
    else if (typeof message.content === 'string') {
      if (substituted === 'sidecar') injected = injectedSpansOfSidecar(row.content, message.content);
      if (!injected.length) injected = projectedNoteSpans(message.content);
    }
  }
  return { message, source, substituted, injected };
}

export function systemWireMessage(prompt: string): WireMessage {
  return { message: { role: 'system', content: prompt }, source: -1, substituted: null, injected: [] };
}

/**
 * The payload of a wire message that prefix comparison and dump comparison look at. Reasoning
 * copies are left out: they come from immutable stored fields, and dumps differ in whether they
 * carry them by provider.
 */
export function wireKey(message: Row): string {
  return JSON.stringify([message.role, message.content ?? null, message.tool_calls ?? null, message.tool_call_id ?? null]);
}
