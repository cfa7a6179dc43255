// The session overview as the table shows it: the lineages filtered and sorted by the shared rules
// of overviewColumns.ts, flattened into rows (a chain's sessions under it when expanded, forks
// under their parent), the slice of rows on screen, and each cell's text. Pure, so it runs in Node
// too (test/webview/model.test.ts).

import { distinct, filterLineages, overviewColumn, sortLineages, type OverviewColumn } from '../src/analysis/overviewColumns';
import type { OverviewLineage, OverviewSession, SessionOverview } from '../src/analysis/overviewTypes';
import type { OverviewState } from '../src/protocol/messages';
import { num } from './format';

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

const walk = (rows: readonly OverviewLineage[]): OverviewLineage[] => rows.flatMap((l) => [l, ...walk(l.children)]);

/** Every lineage of the file, forks included, depth first. */
function allLineages(overview: SessionOverview): OverviewLineage[] {
  return walk(overview.lineages);
}

/** The sources the source filter offers: every session's, in first-seen order. */
export function overviewSources(overview: SessionOverview): string[] {
  return distinct(allLineages(overview).flatMap((l) => l.sessions.map((s) => s.source)));
}

/**
 * The lineages of one source, a lineage of another kept as the path to a fork of that source, as
 * filterLineages keeps paths (OverviewFilter has no source, so this narrows before it).
 */
function ofSource(lineages: readonly OverviewLineage[], source: string): OverviewLineage[] {
  const out: OverviewLineage[] = [];
  for (const l of lineages) {
    if (l.sessions.some((s) => s.source === source)) out.push(l);
    else {
      const children = ofSource(l.children, source);
      if (children.length) out.push({ ...l, children });
    }
  }
  return out;
}

/** The lineages the state's filters let through, in its order (start order when it names no column). */
export function shownLineages(overview: SessionOverview, state: OverviewState): OverviewLineage[] {
  const bySource = state.source === null ? overview.lineages : ofSource(overview.lineages, state.source);
  const filtered = filterLineages(bySource, { text: state.filter || undefined, has: state.has });
  const column = state.sort ? overviewColumn(state.sort.column) : undefined;
  return column && state.sort ? sortLineages(filtered, column, state.sort.descending) : filtered;
}

/** The shown lineages as table rows: each lineage, its sessions when expanded, then its forks one level deeper. */
export function overviewRows(lineages: readonly OverviewLineage[], expanded: ReadonlySet<string>): OverviewRow[] {
  const out: OverviewRow[] = [];
  const add = (l: OverviewLineage, depth: number): void => {
    const expandable = l.sessions.length > 1;
    const open = expandable && expanded.has(l.id);
    out.push({ kind: 'lineage', lineage: l, depth, expandable, expanded: open });
    if (open) for (const session of l.sessions) out.push({ kind: 'session', lineage: l, session, depth: depth + 1 });
    for (const c of l.children) add(c, depth + 1);
  };
  for (const l of lineages) add(l, 0);
  return out;
}

/** The count line's figures: lineages and sessions in the file, and lineages the filters let through. */
export function overviewCounts(overview: SessionOverview, shown: readonly OverviewLineage[]): { lineages: number; sessions: number; shown: number } {
  const every = allLineages(overview);
  return { lineages: every.length, sessions: every.reduce((n, l) => n + l.sessions.length, 0), shown: walk(shown).length };
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

/** Columns the replay fills: null there means the rows were not read (the duration needs them too). */
const REPLAYED = new Set(['turns', 'requests', 'compactions', 'breaks', 'input', 'reused', 'errors', 'warnings', 'duration']);

/** What a null cell says, and why. */
export const MISSING = {
  'not recorded': 'The store does not hold this value',
  'not read': 'The rows of this lineage were not read (the file was only listed): open it to replay them',
} as const;

type Missing = keyof typeof MISSING;

interface Cell {
  text: string;
  /** Why there is no value; null when there is one. */
  missing: Missing | null;
}

/** A column marked * holds the agent's own counter (sessions columns), not the replay's figure. */
export const isRecorded = (column: OverviewColumn): boolean => column.heading.endsWith('*');

/** "2026-09-18 14:00", UTC, as the CLI prints it; a start no date can hold as its number. */
function startText(seconds: number): string {
  const d = new Date(seconds * 1000);
  return Number.isNaN(d.getTime()) ? String(seconds) : d.toISOString().slice(0, 16).replace('T', ' ');
}

/** "48m50s", "22h09m", "3d04h": two units at most, as the CLI prints it. */
function durationText(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  const two = (n: number): string => String(n).padStart(2, '0');
  if (s < 3600) return `${Math.floor(s / 60)}m${two(s % 60)}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h${two(Math.floor(s / 60) % 60)}m`;
  return `${Math.floor(s / 86400)}d${two(Math.floor(s / 3600) % 24)}h`;
}

/** A cell of a lineage or session row; `fileRead` is false for a file only listed (SessionOverview.read). */
export function cellOf(column: OverviewColumn, row: OverviewLineage | OverviewSession, fileRead: boolean): Cell {
  const v = column.value(row);
  if (v === null) {
    // A session row has no sessions count of its own: its lineage row says it.
    if (column.key === 'sessions') return { text: '', missing: null };
    const read = fileRead && ('sessions' in row ? row.sessions.every((s) => s.read) : row.read);
    const missing: Missing = REPLAYED.has(column.key) && !read ? 'not read' : 'not recorded';
    return { text: missing, missing };
  }
  if (column.key === 'start') return { text: startText(v as number), missing: null };
  if (column.key === 'duration') return { text: durationText(v as number), missing: null };
  return { text: typeof v === 'number' ? num(v) : v, missing: null };
}

/** Does the overview hold a lineage of this id (forks included)? */
export function hasLineage(overview: SessionOverview, id: string): boolean {
  return allLineages(overview).some((l) => l.id === id);
}
