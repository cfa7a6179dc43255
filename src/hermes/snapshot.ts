// A session JSON snapshot's list after a compaction (docs/hermes-behaviour.md "Snapshots").
// Nothing in a snapshot names its parent, so the copies it starts with are told apart from new rows
// by their timestamps only: copies keep the time their original was written, which is before the
// summary carrier was made and before the session started. A list without a carrier holds no
// evidence of copies: a session's id can be minted after the rows it names (a rotation mints the
// child's id after the summary call), and a fork's copies are not named as such either.

import type { Row } from '../shared/model/rows';
import { isSummaryCarrier, userOriginatedTurnView } from './compactionMarkers';

export interface SnapshotCopies {
  /** Leading rows that are copies (or the carrier): not new turns or requests. */
  carried: number;
  /** What told them apart; `none` when the file cannot (the rows after the carrier then count as new). */
  evidence: 'carrier-timestamp' | 'session-start' | 'none';
  /** Index of the first summary carrier, or -1. */
  carrier: number;
}

/**
 * `sessionStart` is the snapshot's `session_start` as unix seconds, when it could be placed in
 * time (see sessionStartSeconds).
 */
export function snapshotCopies(rows: readonly Row[], sessionStart: number | null): SnapshotCopies {
  const carrier = rows.findIndex((r) => isSummaryCarrier(r));
  if (carrier < 0) return { carried: 0, evidence: 'none', carrier };
  const carrierTime = carrier >= 0 ? seconds(rows[carrier].timestamp) : null;
  const bound = carrierTime ?? sessionStart;
  // Rows right after the carrier that no human ask drives are copies in any case: since #80622 a
  // handoff alone never drives a provider call.
  // Only where a human ask follows them: a list with no ask at all is the #80622 failure itself,
  // reported as such.
  let driven = carrier + 1;
  while (carrier >= 0 && driven < rows.length && userOriginatedTurnView(rows[driven]) === null && !isSummaryCarrier(rows[driven])) driven++;
  if (driven >= rows.length || isSummaryCarrier(rows[driven])) driven = carrier + 1;
  if (bound === null) return { carried: driven, evidence: 'none', carrier };
  let k = 0;
  while (k < rows.length && (k < driven || isCopyTime(rows[k], bound))) k++;
  // A session start older than every row after the carrier tells nothing about its tail.
  if (carrierTime === null && carrier >= 0 && k === driven && driven < rows.length) return { carried: driven, evidence: 'none', carrier };
  // The last copy may be the turn the compaction ran for: flushed unanswered, answered here.
  if (k > carrier + 1 && k < rows.length && userOriginatedTurnView(rows[k - 1]) !== null && rows[k].role === 'assistant') k--;
  return { carried: k, evidence: carrierTime !== null ? 'carrier-timestamp' : 'session-start', carrier };
}

/**
 * The row a snapshot ends on when it is a user's ask the file holds no answer to (a rotation's
 * pre-publish flush writes the parent's file so), or undefined.
 */
export function unansweredAsk(rows: readonly Row[], carried: number): number | undefined {
  const last = rows.length - 1;
  return last >= carried && userOriginatedTurnView(rows[last]) !== null ? last : undefined;
}

/** How many rows the list starts with that are older than `bound` (a fork's copies would be). */
export function leadingOlderThan(rows: readonly Row[], bound: number): number {
  let k = 0;
  while (k < rows.length && isCopyTime(rows[k], bound)) k++;
  return k;
}

function isCopyTime(row: Row, bound: number): boolean {
  const t = seconds(row.timestamp);
  return t !== null && t < bound;
}

function seconds(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/**
 * When the session began, in unix seconds: the later of `session_start` and the time in its id
 * (`YYYYmmdd_HHMMSS_…`, made when the session was created; a rotation child keeps its agent's
 * session_start but gets an id of its own). Both are local times without a zone, rows carry unix
 * seconds: `last_updated` is written with the newest row, so the offset between the two (rounded
 * to a quarter hour, as zones are) places them in unix time. Null when that cannot be done, or when
 * the offset is no time zone's (outside -12:00 … +14:00: the file's clocks disagree).
 */
export function sessionStartSeconds(sessionStart: unknown, lastUpdated: unknown, rows: readonly Row[], sessionId?: unknown): number | null {
  const fromId = typeof sessionId === 'string' ? /^(\d{4})(\d{2})(\d{2})_(\d{2})(\d{2})(\d{2})(?:_|$)/.exec(sessionId) : null;
  const idTime = fromId ? localSeconds(`${fromId[1]}-${fromId[2]}-${fromId[3]}T${fromId[4]}:${fromId[5]}:${fromId[6]}`) : null;
  const declared = localSeconds(sessionStart);
  const start = declared === null ? idTime : idTime === null ? declared : Math.max(declared, idTime);
  const updated = localSeconds(lastUpdated);
  let newest: number | null = null;
  for (const r of rows) {
    const t = seconds(r.timestamp);
    if (t !== null && (newest === null || t > newest)) newest = t;
  }
  if (start === null || updated === null || newest === null) return null;
  const quarter = 15 * 60;
  const offset = Math.round((updated - newest) / quarter) * quarter;
  if (offset < -12 * 3600 || offset > 14 * 3600) return null;
  return start - offset;
}

/** An ISO local time read as if it were UTC, in seconds. */
function localSeconds(v: unknown): number | null {
  if (typeof v !== 'string') return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$/.exec(v);
  if (!m) return null;
  const ms = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
  return Number.isFinite(ms) ? ms / 1000 + (m[7] ? Number(`0.${m[7]}`) : 0) : null;
}
