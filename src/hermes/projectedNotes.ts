// Notes that survive only as text (docs/hermes-behaviour.md §5.12). An image turn gets its memory
// and plugin context, and gateway notes, as a durable text part after the user's parts (#71998's
// fix), but the turn-start flush stores a part list as its text projection: one string, the text
// parts and placeholder lines such as `[screenshot]` joined by "\n". The appended block is what
// follows the last placeholder line, when it opens as the agent's blocks do.

import { MEMORY_CONTEXT_OPEN } from './memoryContext';

/** A gateway or system note's opening, as the agent writes them. */
export const GATEWAY_NOTE = /^\[(System note:|Voice channel now:|Note:|Group reply|First contact|Channel)/;
/** The surface-switch note (#104414). */
export const SURFACE_NOTE = /^\[System note:[^\]]*\b(surface|switched (from|to)|desktop|TUI)\b/i;

const PROJECTED_BLOCK = new RegExp(
  String.raw`(?:^|\n)\[[^\]\n]{1,60}\]\n(?=${MEMORY_CONTEXT_OPEN.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}|${GATEWAY_NOTE.source.slice(1)})`,
  'g',
);

/** Where the block an image turn appended starts in the projection `text`, or -1. */
export function projectedBlockStart(text: string): number {
  let start = -1;
  for (const m of text.matchAll(PROJECTED_BLOCK)) start = m.index + m[0].length;
  return start;
}
