// Recognising the rows a compaction or a branch carried over from an earlier list: those turns and
// requests happened before and are not counted again.

import type { Row } from '../model/rows';
import { isSummaryCarrier } from './compactionMarkers';

function rowKey(row: Row): string {
  return JSON.stringify([row.role, row.content ?? null, row.tool_call_id ?? null, row.timestamp ?? null, row.tool_calls ?? null]);
}

/** How many leading rows of a compacted list are carried-over copies or summary carriers. */
export function countCarriedRows(rows: readonly Row[], before: readonly Row[]): number {
  const old = new Set(before.map(rowKey));
  let k = 0;
  while (k < rows.length && (isSummaryCarrier(rows[k]) || old.has(rowKey(rows[k])))) k++;
  return k;
}

