// Labelling what the assembly added to a user message: where each injected piece sits on the wire
// and where it came from.

import { MEMORY_CONTEXT_CLOSE, MEMORY_CONTEXT_OPEN, buildMemoryContextBlock } from '../hermes/memoryContext';
import { GATEWAY_NOTE, projectedBlockStart, SURFACE_NOTE } from '../hermes/projectedNotes';
import type { InjectionKind, TurnInjectionInputs } from '../shared/model/injection';
import type { ContentPart } from '../shared/model/rows';

export interface InjectedSpan {
  kind: InjectionKind;
  text: string;
  /** UTF-16 offsets into the wire string content, or into text part `part` for list content. */
  start: number;
  end: number;
  part?: number;
}

interface Piece {
  kind: InjectionKind;
  text: string;
}

function joinPieces(pieces: Piece[], base: number, part?: number): { text: string; spans: InjectedSpan[] } {
  const spans: InjectedSpan[] = [];
  let text = '';
  for (const p of pieces) {
    if (text) text += '\n\n';
    const start = base + text.length;
    text += p.text;
    spans.push({ kind: p.kind, text: p.text, start, end: start + p.text.length, ...(part === undefined ? {} : { part }) });
  }
  return { text, spans };
}

/**
 * The injected block composed from known inputs, in the reference's order (memory fence, plugin
 * context, gateway notes, surface note), with spans relative to `base`.
 */
export function composeInjectedBlock(inputs: TurnInjectionInputs, base = 0, part?: number): { text: string; spans: InjectedSpan[] } {
  const pieces: Piece[] = [];
  const memory = buildMemoryContextBlock(inputs.memoryPrefetch ?? '');
  if (memory) pieces.push({ kind: 'memory', text: memory });
  if (inputs.pluginContext) pieces.push({ kind: 'plugin', text: inputs.pluginContext });
  if (inputs.gatewayNotes) pieces.push({ kind: 'gateway-note', text: inputs.gatewayNotes });
  if (inputs.surfaceSwitchNote) pieces.push({ kind: 'surface-note', text: inputs.surfaceSwitchNote });
  return joinPieces(pieces, base, part);
}

/**
 * Labels the injected tail of a stored sidecar (the text after content + "\n\n"). Only the
 * memory fence has fixed delimiters; notes are recognised by their bracketed "[System note: …]"
 * style, and the paragraphs before the first note are plugin context (the composition order).
 */
export function classifyInjectedText(text: string, base: number): InjectedSpan[] {
  const pieces: Piece[] = [];
  let rest = text;
  if (rest.startsWith(MEMORY_CONTEXT_OPEN)) {
    const close = rest.indexOf(MEMORY_CONTEXT_CLOSE);
    const end = close < 0 ? rest.length : close + MEMORY_CONTEXT_CLOSE.length;
    pieces.push({ kind: 'memory', text: rest.slice(0, end) });
    rest = rest.slice(end).replace(/^\n\n/, '');
  }
  const paragraphs = rest ? rest.split('\n\n') : [];
  let plugin: string[] = [];
  let inNotes = false;
  for (const para of paragraphs) {
    const kind = SURFACE_NOTE.test(para) ? 'surface-note' : GATEWAY_NOTE.test(para) ? 'gateway-note' : null;
    if (kind && !inNotes && plugin.length) {
      pieces.push({ kind: 'plugin', text: plugin.join('\n\n') });
      plugin = [];
    }
    if (kind) {
      inNotes = true;
      pieces.push({ kind, text: para });
    } else if (inNotes) pieces[pieces.length - 1].text += `\n\n${para}`;
    else plugin.push(para);
  }
  if (plugin.length) pieces.push({ kind: 'plugin', text: plugin.join('\n\n') });
  return joinPieces(pieces, base).spans;
}

/** Spans of a user row's wire string when it is its stored content plus an injected tail. */
export function injectedSpansOfSidecar(content: unknown, wire: string): InjectedSpan[] {
  const bare = typeof content === 'string' ? content : '';
  if (wire.length <= bare.length + 2 || !wire.startsWith(`${bare}\n\n`)) return [];
  return classifyInjectedText(wire.slice(bare.length + 2), bare.length + 2);
}

/**
 * Notes an image turn appended as a text part (memory and plugin context, gateway notes, #71998's
 * fix), where the flush stored the part list as its text projection: one string, the text parts and
 * placeholder lines such as `[screenshot]` joined by "\n". The block is what follows the last
 * placeholder line, when it opens with the memory fence or a bracketed note.
 */
export function projectedNoteSpans(text: string): InjectedSpan[] {
  const start = projectedBlockStart(text);
  return start < 0 ? [] : classifyInjectedText(text.slice(start), start);
}

/**
 * Durable note parts of a multimodal user row: trailing text parts after the user's own parts
 * (an image or the first text part), recognised as fences or bracketed notes.
 */
export function multimodalNoteSpans(parts: readonly ContentPart[]): InjectedSpan[] {
  const spans: InjectedSpan[] = [];
  for (let i = parts.length - 1; i > 0; i--) {
    const p = parts[i];
    if (!p || p.type !== 'text' || typeof p.text !== 'string') break;
    const t = p.text;
    if (!(t.startsWith(MEMORY_CONTEXT_OPEN) || GATEWAY_NOTE.test(t) || SURFACE_NOTE.test(t))) break;
    spans.unshift({ kind: 'multimodal-note', text: t, start: 0, end: t.length, part: i });
  }
  return spans;
}
