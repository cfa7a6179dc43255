// Recognising the rows a compaction or a fork carried over from an earlier list
// (docs/hermes-behaviour.md "Copies"): those turns and requests happened before and are not counted
// again. Evidence, strongest first: message_uid, display_identity, equality of role, tool fields and
// timestamp with equivalent content, then (for stores that re-stamp copies) an alignment without
// timestamps: the rows before the summary carrier are a prefix of the old list, the rows after it
// up to the turn a suffix.

import type { Row } from '../model/rows';
import type { ContentRelation, CopyMatch } from '../model/transcript';
import { isSummaryCarrier } from './compactionMarkers';
import { contentRelation, sameToolCalls, stampedKey, unstampedKey, type RowEvidence } from './rowIdentity';

export interface CopySide {
  rows: readonly Row[];
  /** Parallel to rows, where the store records copy identity. */
  evidence?: readonly (RowEvidence | undefined)[];
}

/** Alignment without timestamps looks at no more than this many rows on each side of the carrier. */
const ALIGN_LIMIT = 512;

export function matchCopies(before: CopySide, after: CopySide): CopyMatch {
  const n = after.rows.length;
  const source = new Int32Array(n).fill(-1);
  const relation: (ContentRelation | null)[] = new Array(n).fill(null);
  const used = new Uint8Array(before.rows.length);
  const take = (j: number, i: number): boolean => {
    if (used[i]) return false;
    const rel = relate(before.rows[i], after.rows[j]);
    if (rel === null) return false;
    used[i] = 1; source[j] = i; relation[j] = rel;
    return true;
  };

  // 1 and 2: the identity columns, where both rows have them.
  for (const field of ['uid', 'identity'] as const) {
    const index = new Map<string, number>();
    before.evidence?.forEach((e, i) => { const v = e?.[field]; if (v && !index.has(v)) index.set(v, i); });
    if (!index.size) continue;
    for (let j = 0; j < n; j++) {
      const v = after.evidence?.[j]?.[field];
      const i = v ? index.get(v) : undefined;
      if (source[j] < 0 && i !== undefined && !used[i]) { used[i] = 1; source[j] = i; relation[j] = relate(before.rows[i], after.rows[j]) ?? 'equal'; }
    }
  }

  // 3: same role, tool fields and timestamp, equivalent content.
  const stamped = new Map<string, number[]>();
  before.rows.forEach((r, i) => {
    const k = stampedKey(r);
    if (k === null) return;
    const list = stamped.get(k);
    if (list) list.push(i); else stamped.set(k, [i]);
  });
  for (let j = 0; j < n; j++) {
    if (source[j] >= 0 || isSummaryCarrier(after.rows[j])) continue;
    const k = stampedKey(after.rows[j]);
    for (const i of (k === null ? undefined : stamped.get(k)) ?? []) if (take(j, i)) break;
  }

  // 4: alignment without timestamps around the carrier, for the rows still unmatched.
  // The head: the new list's rows before the carrier (all of a fork's copied history, which has
  // no carrier) are the old list's first rows, up to the first that is not.
  const carrier = after.rows.findIndex((r) => isSummaryCarrier(r));
  const headEnd = Math.min(carrier < 0 ? n : carrier, before.rows.length, ALIGN_LIMIT);
  for (let j = 0; j < headEnd; j++) if (source[j] !== j && !(source[j] < 0 && take(j, j))) break;
  if (carrier >= 0) alignTail(before.rows, after.rows, carrier + 1, source, take);
  return { source, relation };
}

/** Rows after the carrier that end in a run equal to the old list's last rows (the kept tail). */
function alignTail(before: readonly Row[], after: readonly Row[], from: number, source: Int32Array, take: (j: number, i: number) => boolean): void {
  const maxLen = Math.min(after.length - from, before.length, ALIGN_LIMIT);
  // The longest run after[from .. from+len) that is a suffix of `before`.
  for (let len = maxLen; len > 0; len--) {
    const offset = before.length - len;
    let ok = true;
    for (let k = 0; k < len && ok; k++) {
      const j = from + k;
      ok = source[j] === offset + k || (source[j] < 0 && relate(before[offset + k], after[j]) !== null);
    }
    if (!ok) continue;
    for (let k = 0; k < len; k++) if (source[from + k] < 0) take(from + k, offset + k);
    return;
  }
}

function relate(original: Row, copy: Row): ContentRelation | null {
  if (unstampedKey(original) !== unstampedKey(copy) || !sameToolCalls(original, copy)) return null;
  return contentRelation(original.content, copy.content);
}

/** How many leading rows of a new list are copies or summary carriers: the carried-over head of it. */
export function carriedPrefix(after: readonly Row[], source: ArrayLike<number>): number {
  let k = 0;
  while (k < after.length && (source[k] >= 0 || isSummaryCarrier(after[k]))) k++;
  return k;
}

/** How many leading rows of a compacted list are carried-over copies or summary carriers. */
export function countCarriedRows(rows: readonly Row[], before: readonly Row[]): number {
  return carriedPrefix(rows, matchCopies({ rows: before }, { rows }).source);
}
