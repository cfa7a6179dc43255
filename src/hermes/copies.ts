// Recognising the rows a compaction or a fork carried over from an earlier list
// (docs/hermes-behaviour.md "Copies"): those turns and requests happened before and are not counted
// again. Evidence, strongest first: message_uid, display_identity, equality of role, tool fields and
// timestamp with equivalent content, then (for stores that re-stamp copies) an alignment without
// timestamps: the rows before the summary carrier are a prefix of the old list, the rows after it
// up to the turn a suffix.

import type { Row } from '../shared/model/rows';
import type { ContentRelation, CopyMatch } from '../shared/model/transcript';
import { isSummaryCarrier, userOriginatedTurnView } from './compactionMarkers';
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
  const relation = new Array<ContentRelation | null>(n).fill(null);
  const used = new Uint8Array(before.rows.length);
  const take = (j: number, i: number): boolean => {
    if (used[i]) return false;
    const rel = relate(before.rows[i], after.rows[j]);
    if (rel === null) return false;
    used[i] = 1;
    source[j] = i;
    relation[j] = rel;
    return true;
  };

  // 1 and 2: the identity columns, where both rows have them.
  for (const field of ['uid', 'identity'] as const) {
    const index = new Map<string, number>();
    before.evidence?.forEach((e, i) => {
      const v = e?.[field];
      if (v && !index.has(v)) index.set(v, i);
    });
    if (!index.size) continue;
    for (let j = 0; j < n; j++) {
      const v = after.evidence?.[j]?.[field];
      const i = v ? index.get(v) : undefined;
      if (source[j] < 0 && i !== undefined && !used[i]) {
        used[i] = 1;
        source[j] = i;
        relation[j] = relate(before.rows[i], after.rows[j]) ?? 'equal';
      }
    }
  }

  // 3: same role, tool fields and timestamp, equivalent content.
  const stamped = new Map<string, number[]>();
  before.rows.forEach((r, i) => {
    const k = stampedKey(r);
    if (k === null) return;
    const list = stamped.get(k);
    if (list) list.push(i);
    else stamped.set(k, [i]);
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

/**
 * Whether row `copy` of one stored sequence copies row `original` of it, by the strongest evidence
 * both have (a compaction in place stores its list after the one it compacted).
 */
export function copiesRow(side: CopySide, original: number, copy: number): boolean {
  const a = side.evidence?.[original];
  const b = side.evidence?.[copy];
  if (a?.uid && b?.uid) return a.uid === b.uid;
  if (a?.identity && b?.identity && a.identity === b.identity) return true;
  const k = stampedKey(side.rows[original]);
  return k !== null && k === stampedKey(side.rows[copy]) && relate(side.rows[original], side.rows[copy]) !== null;
}

function relate(original: Row, copy: Row): ContentRelation | null {
  if (unstampedKey(original) !== unstampedKey(copy) || !sameToolCalls(original, copy)) return null;
  const rel = contentRelation(original.content, copy.content);
  // A tool result is one call's answer: the compactor may clear or shorten its output (pruning),
  // and its call id still names it.
  if (rel === null && copy.role === 'tool' && typeof copy.tool_call_id === 'string' && copy.tool_call_id !== '') return 'pruned';
  return rel;
}

/** How many leading rows of a new list are copies or summary carriers: the carried-over head of it. */
export function carriedPrefix(after: readonly Row[], source: ArrayLike<number>): number {
  let k = 0;
  while (k < after.length && (source[k] >= 0 || isSummaryCarrier(after[k]))) k++;
  return k;
}

/**
 * Finds where the head copies before a summary carrier begin, in one stored sequence that holds an
 * old list followed by its compacted set (a compaction in place): the rows right before the
 * carrier that copy rows of the old list. Indexes the sequence once, from the list's first row on,
 * so a session with many carriers stays linear.
 */
export class HeadCopies {
  /** First index of each identity key and each stamped key, over rows [from, indexed). */
  private readonly first = new Map<string, number>();
  private readonly stamped = new Map<string, number[]>();
  private indexed: number;

  constructor(
    private readonly side: CopySide,
    private readonly from: number,
  ) {
    this.indexed = from;
  }

  /** The start of the head copies before `carrier`, or `carrier` when there are none. */
  startBefore(carrier: number): number {
    this.indexUpTo(carrier);
    let q = carrier;
    while (q > this.from + 1 && this.copiesEarlier(q - 1)) q--;
    if (q < carrier) return q;
    // Copies re-stamped by older stores: the rows before the carrier repeat the list's first rows.
    const rows = this.side.rows;
    for (let k = Math.min(carrier - this.from - 1, ALIGN_LIMIT); k > 0; k--) {
      let ok = true;
      for (let t = 0; t < k && ok; t++) ok = relate(rows[this.from + t], rows[carrier - k + t]) !== null;
      if (ok) return carrier - k;
    }
    return carrier;
  }

  private keysOf(i: number): string[] {
    const e = this.side.evidence?.[i];
    const keys: string[] = [];
    if (e?.uid) keys.push(`u:${e.uid}`);
    if (e?.identity) keys.push(`i:${e.identity}`);
    return keys;
  }

  private indexUpTo(n: number): void {
    for (; this.indexed < n; this.indexed++) {
      const i = this.indexed;
      for (const k of this.keysOf(i)) if (!this.first.has(k)) this.first.set(k, i);
      const k = stampedKey(this.side.rows[i]);
      if (k === null) continue;
      const list = this.stamped.get(k);
      if (!list) this.stamped.set(k, [i]);
      else if (list.length < 8) list.push(i); // a few candidates per key are enough to find the original
    }
  }

  private copiesEarlier(x: number): boolean {
    if (this.keysOf(x).some((k) => (this.first.get(k) ?? x) < x)) return true;
    const k = stampedKey(this.side.rows[x]);
    return k !== null && (this.stamped.get(k) ?? []).some((y) => y < x && relate(this.side.rows[y], this.side.rows[x]) !== null);
  }
}

/** What a copy keeps of its original, as lookup keys: uid, display identity, role/time/tool fields. */
function copyKeys(side: CopySide, i: number): string[] {
  const e = side.evidence?.[i];
  const out: string[] = [];
  if (e?.uid) out.push(`u${e.uid}`);
  if (e?.identity) out.push(`i${e.identity}`);
  const k = stampedKey(side.rows[i]);
  if (k !== null) out.push(`k${k}`);
  return out;
}

/**
 * Of the inactive rows a compaction in place left after its archived ones (`run`, indices into
 * `side`: its carried tail, stored inactive and not archived), those no row of the list it made
 * (`start` to `end` of `side`) copies: rows an /undo took back before it, which the agent had
 * already dropped, each run of them from its ask on. Where none of them has a copy (a store that
 * re-stamps copies), nothing tells them apart and none is returned.
 */
export function uncarriedRows(side: CopySide, run: readonly number[], start: number, end: number): Set<number> {
  const byKey = new Map<string, number[]>();
  for (let j = start; j < end; j++) {
    for (const k of copyKeys(side, j)) {
      const list = byKey.get(k);
      if (list) list.push(j);
      else byKey.set(k, [j]);
    }
  }
  const carried = new Set(run.filter((r) => copyKeys(side, r).some((k) => byKey.get(k)?.some((j) => copiesRow(side, r, j)))));
  const out = new Set<number>();
  if (!carried.size) return out;
  // An /undo takes back whole turns: from an ask on, up to the next carried row. A row with no copy
  // before any such ask is the tail's own (its flags reach one row further than its copies).
  let undone = false;
  for (const r of run) {
    if (carried.has(r)) undone = false;
    else if (userOriginatedTurnView(side.rows[r]) !== null) undone = true;
    if (undone) out.add(r);
  }
  return out;
}
