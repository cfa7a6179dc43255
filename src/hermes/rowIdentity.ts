// When two stored rows are one logical message (docs/hermes-behaviour.md "Copies"). Compaction,
// branching and rotation copy rows; upstream's stores keep different evidence of that by era, so
// each key below names the era it serves. Strongest first: a copy recognised by a stronger key is
// never second-guessed by a weaker one.

import { contentText, type Row } from '../shared/model/rows';
import type { ContentRelation } from '../shared/model/transcript';
import { TODO_SNAPSHOT_PREFIX } from './compactionMarkers';

/** What a store may record about a row beyond its dict: the copy-identity columns. */
export interface RowEvidence {
  /** `message_uid`: newer schemas give every copy of one logical message the same uid. */
  uid?: string | null;
  /** `display_identity`: sha256 of role, content, timestamp and tool fields, equal for a copy since #59661. */
  identity?: string | null;
}

/** Role, tool fields and timestamp: what a copy keeps exactly in current stores (content may be re-projected). */
export function stampedKey(row: Row): string | null {
  if (typeof row.timestamp !== 'number' && typeof row.timestamp !== 'string') return null;
  return JSON.stringify([row.role, row.timestamp, row.tool_call_id ?? null, row.tool_name ?? null]);
}

/** Role and tool fields without the timestamp: older stores and the older /branch re-stamp every copy. */
export function unstampedKey(row: Row): string {
  return JSON.stringify([row.role, row.tool_call_id ?? null, row.tool_name ?? null]);
}

/**
 * How a copy's content relates to its original's, or null when they are different messages:
 * equal; `projected`, the same parts stored once as a part list (compaction commit) and once as
 * their text projection (the flush path: images become bracketed placeholders); `todo-merged`,
 * the compactor folded the todo snapshot into the copy (`\n\n` + snapshot after the words).
 */
export function contentRelation(original: unknown, copy: unknown): ContentRelation | null {
  if (sameValue(original, copy)) return 'equal';
  if (projectionOf(original) === projectionOf(copy) && (Array.isArray(original) || Array.isArray(copy))) return 'projected';
  const base = projectionOf(original);
  const merged = projectionOf(copy);
  const at = merged.indexOf(TODO_SNAPSHOT_PREFIX);
  if (at >= 0 && merged.slice(0, at).replace(/\n\n$/, '') === base.replace(/\n\n$/, '') && merged.length > base.length) return 'todo-merged';
  return null;
}

/** Tool calls compared by value (stored as JSON text in one place and parsed in another). */
export function sameToolCalls(a: Row, b: Row): boolean {
  return sameValue(a.tool_calls ?? null, b.tool_calls ?? null);
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return (a ?? null) === (b ?? null);
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A placeholder line the flush path writes for a non-text part (`[screenshot]`, `[image]`, …). */
const PLACEHOLDER_LINE = /^\[[^\]\n]{1,60}\]$/;

/** The text a content value shows with non-text parts and their placeholders left out. */
function projectionOf(content: unknown): string {
  const text = Array.isArray(content) ? contentText(content) : typeof content === 'string' ? content : '';
  if (!text.includes('[')) return text;
  return text
    .split('\n')
    .filter((line) => !PLACEHOLDER_LINE.test(line.trim()))
    .join('\n');
}
