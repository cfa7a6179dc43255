// The prologue of a turn (docs/hermes-behaviour.md §1.6 steps 9-12, build_turn_context): from the inbound message
// and the turn's recorded inputs to the user row the agent stores, under one profile's rules.

import type { InjectionKind, TurnInjectionInputs } from '../shared/model/injection';
import { composeInjectedBlock, type InjectedSpan } from './injection';
import { appendNotesToMultimodalContent, consumeGatewayTurnContextNotes, consumeSurfaceSwitchNote, mergeGatewayNotes, type PendingTurnNotes } from './notes';
import { cloneRow, type Row } from '../shared/model/rows';
import type { Profile } from './profile';
import { composeMultimodalContextPart, composeUserApiContent } from './sidecar';

export interface TurnUserRow {
  /** The stored user row; a string turn carries its composed bytes as the api_content sidecar. */
  row: Row;
  /** Where the injected pieces sit in the row's wire content. */
  injected: InjectedSpan[];
  /** Kinds of context this profile's rules dropped on the way (e.g. #71998 on image turns). */
  lost: InjectionKind[];
}

/**
 * Stamps a turn's injected context on its user row. Under the pre-sidecar profile the composed
 * bytes are still stamped: the wire build sends them for the current turn only, which is exactly
 * what that version did at request-build time.
 */
export function buildTurnUserRow(userMessage: unknown, inputs: TurnInjectionInputs, profile: Profile, extra: Row = { role: 'user' }): TurnUserRow {
  const row = cloneRow({ ...extra, role: 'user', content: userMessage });
  delete row.api_content;
  const pending: PendingTurnNotes = { gatewayTurnContextNotes: inputs.gatewayNotes ?? '', surfaceSwitchNote: inputs.surfaceSwitchNote ?? '' };
  const notes = [consumeGatewayTurnContextNotes(pending), consumeSurfaceSwitchNote(pending)];
  const memory = inputs.memoryPrefetch ?? '';
  const plugin = inputs.pluginContext ?? '';

  if (typeof row.content === 'string') {
    const composed = composeUserApiContent(row.content, memory, mergeGatewayNotes(row.content, notes, plugin));
    if (composed === null) return { row, injected: [], lost: [] };
    row.api_content = composed;
    return { row, injected: composeInjectedBlock(inputs, row.content.length + 2).spans, lost: [] };
  }
  if (!Array.isArray(row.content)) return { row, injected: [], lost: [] };

  const injected: InjectedSpan[] = [];
  const lost: InjectionKind[] = [];
  const noteText = notes.filter((n) => n).join('\n\n');
  if (appendNotesToMultimodalContent(row.content, noteText)) injected.push(partSpan(row.content.length - 1, noteText));
  const block = composeMultimodalContextPart(memory, plugin);
  if (block !== null) {
    if (profile.multimodalContextPart) {
      row.content.push({ type: 'text', text: block });
      injected.push(partSpan(row.content.length - 1, block));
    } else {
      if (memory.trim()) lost.push('memory');
      if (plugin) lost.push('plugin');
    }
  }
  return { row, injected, lost };
}

function partSpan(part: number, text: string): InjectedSpan {
  return { kind: 'multimodal-note', text, start: 0, end: text.length, part };
}
