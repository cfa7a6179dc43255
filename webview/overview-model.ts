// The session overview as the table shows it: the lineages filtered and sorted by the shared rules
// of overviewColumns.ts, flattened into rows (a chain's sessions under it when expanded, forks
// under their parent), the slice of rows on screen, and each cell's text. Pure, so it runs in Node
// too (test/webview/model.test.ts).

import {
  distinct,
  everyLineage,
  filterLineages,
  overviewCell,
  overviewColumn,
  sortLineages,
  type MissingValue,
  type OverviewColumn,
} from '../src/analysis/overviewColumns';
import type { OverviewLineage, OverviewSession, SessionOverview } from '../src/analysis/overviewTypes';
import type { OverviewState } from '../src/protocol/messages';
import { num, revealBidiControls } from './format';

/** One row of the table: a lineage (depth: how many forks deep), or one session of an expanded chain. */
export type OverviewRow =
  | { kind: 'lineage'; lineage: OverviewLineage; depth: number; expandable: boolean; expanded: boolean }
  | { kind: 'session'; lineage: OverviewLineage; session: OverviewSession; depth: number };

export const EMPTY_OVERVIEW_STATE: OverviewState = {
  sort: null,
  filter: '',
  source: null,
  has: [],
  expanded: [],
  firstVisibleRow: 0,
  focused: null,
};

/** The sources the source filter offers: every session's, in first-seen order. */
export function overviewSources(overview: SessionOverview): string[] {
  return distinct(everyLineage(overview.lineages).flatMap((l) => l.sessions.map((s) => s.source)));
}

/** The lineages the state's filters let through, in its order (start order when it names no column). */
export function shownLineages(overview: SessionOverview, state: OverviewState): OverviewLineage[] {
  const filtered = filterLineages(overview.lineages, { text: state.filter || undefined, source: state.source ?? undefined, has: state.has });
  const column = state.sort ? overviewColumn(state.sort.column) : undefined;
  return column && state.sort ? sortLineages(filtered, column, state.sort.descending) : filtered;
}

/** The shown lineages as table rows: each lineage, its sessions when expanded, then its forks one level deeper. */
export function overviewRows(lineages: readonly OverviewLineage[], expanded: ReadonlySet<string>): OverviewRow[] {
  const out: OverviewRow[] = [];
  // Depth first without recursion: forks can nest 10,000 deep.
  const stack: { l: OverviewLineage; depth: number }[] = [];
  for (let i = lineages.length - 1; i >= 0; i--) stack.push({ l: lineages[i], depth: 0 });
  for (let f = stack.pop(); f; f = stack.pop()) {
    const { l, depth } = f;
    const expandable = l.sessions.length > 1;
    const open = expandable && expanded.has(l.id);
    out.push({ kind: 'lineage', lineage: l, depth, expandable, expanded: open });
    if (open) for (const session of l.sessions) out.push({ kind: 'session', lineage: l, session, depth: depth + 1 });
    for (let i = l.children.length - 1; i >= 0; i--) stack.push({ l: l.children[i], depth: depth + 1 });
  }
  return out;
}

/** The count line's figures: lineages and sessions in the file, and lineages the filters let through. */
export function overviewCounts(overview: SessionOverview, shown: readonly OverviewLineage[]): { lineages: number; sessions: number; shown: number } {
  const every = everyLineage(overview.lineages);
  return { lineages: every.length, sessions: every.reduce((n, l) => n + l.sessions.length, 0), shown: everyLineage(shown).length };
}

/**
 * The rows to put in the DOM for a viewport over rows of one height: those on screen and `overscan`
 * more either side, [first, last] inclusive; empty (last < first) when there are none.
 */
export function rowWindow(rowCount: number, scrollTop: number, viewport: number, rowHeight: number, overscan: number): { first: number; last: number } {
  const top = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const first = Math.max(0, top - overscan);
  const last = Math.min(rowCount - 1, top + Math.ceil(viewport / rowHeight) + overscan);
  return { first, last };
}

/** What a null cell says, and why. */
export const MISSING = {
  'not recorded': 'The store does not hold this value',
  'not read': 'The rows of this lineage were not read (the file was only listed): open it to replay them',
} as const;

interface Cell {
  text: string;
  /** Why there is no value; null when there is one. */
  missing: MissingValue | null;
}

/** A column marked * holds the agent's own counter (sessions columns), not the replay's figure. */
export const isRecorded = (column: OverviewColumn): boolean => column.heading.endsWith('*');

/** A cell of a lineage or session row; `fileRead` is false for a file only listed (SessionOverview.read). */
export function cellOf(column: OverviewColumn, row: OverviewLineage | OverviewSession, fileRead: boolean): Cell {
  const { value, missing } = overviewCell(column, row, fileRead);
  if (value === null) return { text: missing ?? '', missing };
  // Titles, sources, models and end reasons come from the store: bidi controls are shown, not applied.
  return { text: typeof value === 'number' ? num(value) : revealBidiControls(value), missing: null };
}

/** Does the overview hold a lineage of this id (forks included)? */
export function hasLineage(overview: SessionOverview, id: string): boolean {
  return everyLineage(overview.lineages).some((l) => l.id === id);
}

/** How a lineage is named where it is open (the inspector's header): its title, else its id, bidi controls shown. */
export function lineageLabel(overview: SessionOverview | null, id: string | null): string | null {
  if (id === null) return null;
  const row = overview ? everyLineage(overview.lineages).find((l) => l.id === id) : undefined;
  return revealBidiControls(row?.title || id);
}
