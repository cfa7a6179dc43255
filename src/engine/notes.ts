// One-shot notes that ride the user message instead of the system prompt (docs/hermes-behaviour.md §1.2), so the
// system prompt stays byte-stable (#67403).

import type { ContentPart } from '../shared/model/rows';

/** The agent-side state the notes are popped from: each note is consumed by exactly one turn. */
export interface PendingTurnNotes {
  gatewayTurnContextNotes?: unknown;
  surfaceSwitchNote?: unknown;
}

function popTurnNote(state: PendingTurnNotes, key: keyof PendingTurnNotes): string {
  const note = state[key];
  if (key in state) state[key] = '';
  return typeof note === 'string' ? note : '';
}

export function consumeGatewayTurnContextNotes(state: PendingTurnNotes): string {
  return popTurnNote(state, 'gatewayTurnContextNotes');
}

export function consumeSurfaceSwitchNote(state: PendingTurnNotes): string {
  return popTurnNote(state, 'surfaceSwitchNote');
}

/** Appends notes as a durable text part to list content, in place. True when it did. */
export function appendNotesToMultimodalContent(content: unknown, notes: string): content is ContentPart[] {
  if (!notes || !Array.isArray(content)) return false;
  content.push({ type: 'text', text: notes });
  return true;
}

/**
 * Merges the turn's one-shot notes: a multimodal row takes them as a text part and the plugin
 * context is returned unchanged; otherwise they are appended to the plugin context.
 */
export function mergeGatewayNotes(userContent: unknown, notes: readonly string[], pluginUserContext: string): string {
  const joined = notes.filter((n) => n).join('\n\n');
  if (!joined) return pluginUserContext;
  if (appendNotesToMultimodalContent(userContent, joined)) return pluginUserContext;
  return pluginUserContext ? `${pluginUserContext}\n\n${joined}` : joined;
}
