// The session overview as the table shows it: the lineages filtered and sorted by the shared rules
// of overviewColumns.ts, flattened into rows (a chain's sessions under it when expanded, forks
// under their parent), the columns shown, the slice of rows on screen, and each cell's text. Pure,
// so it runs in Node too (test/webview/overviewModel.test.ts).

import { distinct, everyLineage, overviewCell, OVERVIEW_COLUMNS, type FileRead, type MissingValue, type OverviewColumn } from '../src/shared/overviewColumns';
import type { OverviewLineage, OverviewSession, SessionOverview } from '../src/shared/overviewTypes';
import type { OverviewState } from '../src/shared/messages';
import { num, revealBidiControls } from './format';

export const EMPTY_OVERVIEW_STATE: OverviewState = {
  sort: null,
  filter: '',
  source: null,
  has: [],
  expanded: [],
  firstVisibleRow: 0,
  focused: null,
  columns: null,
};

/** The columns the table offers: every overview column but the lineage id, which the title cell shows under the title. */
export const TABLE_COLUMNS: readonly OverviewColumn[] = OVERVIEW_COLUMNS.filter((c) => c.key !== 'id');

/** The title names a row and opens it: always shown (frozen at the table's left), whatever the choice. */
export const TITLE_COLUMN = 'title';

/**
 * What the table shows until the user chooses (issue 20): what the row is, where and when it ran,
 * and how well the prefix cache held; the rest is a choice away. Narrow enough for an editor beside
 * the side bar.
 */
export const DEFAULT_COLUMNS: readonly string[] = [TITLE_COLUMN, 'source', 'start', 'turns', 'breaks', 'input', 'reused-pct'];

/**
 * Where an agent.log was read, what the bill says joins them: the billed hit rate, the cost with
 * Hermes' own estimate beside it (the first complaint: the two disagree), the misses nobody explains.
 */
export const BILLED_COLUMNS: readonly string[] = [...DEFAULT_COLUMNS, 'hit-pct', 'cost', 'rec-cost', 'unexplained'];

const defaults = (billed: boolean): readonly string[] => (billed ? BILLED_COLUMNS : DEFAULT_COLUMNS);

/** Whether any lineage's requests were matched to billed calls: the overview then starts from BILLED_COLUMNS. */
export function overviewBilled(overview: SessionOverview): boolean {
  return everyLineage(overview.lineages).some((l) => l.billedInputTokens !== null);
}

/**
 * The columns a state shows, in the table's order: the title and the keys it chose. A key no column
 * has (a state stored by another version) is ignored; a state that chose none it knows (null, or
 * stored before columns could be chosen, so missing) shows the default set.
 */
export function shownColumns(columns: readonly string[] | null | undefined, billed = false): OverviewColumn[] {
  const known = (columns ?? []).filter((k) => TABLE_COLUMNS.some((c) => c.key === k));
  const keys = new Set([TITLE_COLUMN, ...(known.length ? known : defaults(billed))]);
  return TABLE_COLUMNS.filter((c) => keys.has(c.key));
}

/**
 * The choice to keep once column `key` is shown or hidden: the keys shown, or null when that is
 * the default set again (so a later default reaches it). The title is never hidden.
 */
export function withColumn(columns: readonly string[] | null | undefined, key: string, show: boolean, billed = false): string[] | null {
  const keys = shownColumns(columns, billed)
    .map((c) => c.key)
    .filter((k) => k !== key || k === TITLE_COLUMN);
  if (show) keys.push(key);
  const next = TABLE_COLUMNS.filter((c) => keys.includes(c.key)).map((c) => c.key);
  const initial = defaults(billed);
  return next.length === initial.length && initial.every((k) => next.includes(k)) ? null : next;
}

/** The sources the source filter offers: every session's, in first-seen order. */
export function overviewSources(overview: SessionOverview): string[] {
  return distinct(everyLineage(overview.lineages).flatMap((l) => l.sessions.map((s) => s.source)));
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
  'reading…': 'The file is being read: its figures come in a few rows at a time, those on screen first',
} as const;

interface Cell {
  text: string;
  /** Why there is no value; null when there is one. */
  missing: MissingValue | null;
}

/** A column marked * holds the agent's own counter (sessions columns), not the replay's figure. */
export const isRecorded = (column: OverviewColumn): boolean => column.heading.endsWith('*');

/** A cell of a lineage or session row; `file` says how much of the file was read (fileReadOf). */
export function cellOf(column: OverviewColumn, row: OverviewLineage | OverviewSession, file: FileRead): Cell {
  const { value, missing } = overviewCell(column, row, file);
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
