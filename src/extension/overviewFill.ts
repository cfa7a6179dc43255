// Filling a listed overview while its file is read whole (issue 23 item 1): which rows go next, in
// the order the view shows them from its first row on screen, and how many one call to the worker
// asks for. No vscode, so it is tested in Node.

import type { OverviewState } from '../shared/messages';
import { overviewRows, shownLineages } from '../shared/overviewColumns';
import type { OverviewLineage, SessionOverview } from '../shared/overviewTypes';

/** Rows the first call asks for: about a screenful, back within a second. */
const FIRST_BATCH = 8;
/** Each call asks for twice the rows of the one before, up to this many: every call lists the session table again. */
const LARGEST_BATCH = 128;

/** How many rows the call after one of `size` rows asks for (the first: `batchSize(0)`). */
export function batchSize(size: number): number {
  return size ? Math.min(size * 2, LARGEST_BATCH) : FIRST_BATCH;
}

/**
 * The next `size` top-level rows to fill, of those not `filled` yet: in the order the view shows
 * them (`at`: its sort, filters, expanded chains and scroll; none: start order, from the top), from
 * the row at its first row on screen down, then the rows above it, then those its filters hide.
 */
export function nextToFill(overview: SessionOverview, filled: ReadonlySet<string>, at: OverviewState | null, size: number): string[] {
  const shown = at ? shownLineages(overview, at) : overview.lineages;
  // The top-level row the screen starts in: the last one at or above its first row.
  let first = 0;
  const rows = overviewRows(shown, new Set(at?.expanded ?? []));
  for (let i = 0, top = -1; i < rows.length && i <= (at?.firstVisibleRow ?? 0); i++) if (rows[i].depth === 0) first = ++top;
  const order = [...shown.slice(first), ...shown.slice(0, first), ...overview.lineages];
  const next = new Set<string>();
  for (const l of order) {
    if (next.size === size) break;
    if (!filled.has(l.id)) next.add(l.id);
  }
  return [...next];
}

/** The overview with `rows` filled in, each in place of the listed row of its id; the rest as listed. */
export function withFilled(overview: SessionOverview, rows: readonly OverviewLineage[]): SessionOverview {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return { ...overview, lineages: overview.lineages.map((l) => byId.get(l.id) ?? l) };
}
