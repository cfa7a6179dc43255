// Columns, sorting, filtering and rows of the session overview: shared by every view of it (the CLI's
// table, the webview's and the report's) and by the host, which fills a listing in the order the view
// shows it, so one column sorts the same way everywhere. Pure: no I/O, no DOM, nothing of vscode.

import type { OverviewState } from './messages';
import { sameValue } from './sameValue';
import type { OverviewChanges, OverviewLineage, OverviewSession, SessionOverview } from './overviewTypes';

/** Distinct values in first-seen order, without nulls. */
export function distinct(values: readonly (string | null)[]): string[] {
  return [...new Set(values.filter((v): v is string => v !== null))];
}

/**
 * The overview with `rows` filled in, each in place of the listed top-level row of its id; the rest
 * as listed: the changes of rows alone. The host keeps its overview so, and the view merges the rows
 * it is sent the same way.
 */
export function withFilled(overview: SessionOverview, rows: readonly OverviewLineage[]): SessionOverview {
  if (!rows.length) return overview;
  const { lineages: _, ...rest } = overview;
  return withChanges(overview, { rows: [...rows], order: null, rest });
}

/** What `after` changes of `before` (withChanges makes `after` of them); null when its top-level ids repeat, and rows cannot be told apart by id. */
export function overviewChanges(before: SessionOverview, after: SessionOverview): OverviewChanges | null {
  const ids = after.lineages.map((l) => l.id);
  if (new Set(ids).size !== ids.length) return null;
  // Compared in place: two large homes' rows as JSON took the extension host's thread 30-50 ms a write.
  const held = new Map(before.lineages.map((l) => [l.id, l]));
  const rows = after.lineages.filter((l) => !sameValue(held.get(l.id), l));
  const sameOrder = before.lineages.length === ids.length && ids.every((id, i) => before.lineages[i].id === id);
  const { lineages: _, ...rest } = after;
  return { rows, order: sameOrder ? null : ids, rest };
}

/** The overview `changes` (overviewChanges) make of `before`: the host's and the view's the same. */
export function withChanges(before: SessionOverview, { rows, order, rest }: OverviewChanges): SessionOverview {
  const changed = new Map(rows.map((r) => [r.id, r]));
  // In the same order: each row in place of the one of its id; a row whose id none held is left out.
  if (order === null) return { ...rest, lineages: before.lineages.map((l) => changed.get(l.id) ?? l) };
  const held = new Map(before.lineages.map((l) => [l.id, l]));
  return { ...rest, lineages: order.map((id) => (changed.get(id) ?? held.get(id)) as OverviewLineage) };
}

/** Every lineage of a tree of them (an overview's), forks included, depth first: the order `sessions` lists them in. */
export function everyLineage(lineages: readonly OverviewLineage[]): OverviewLineage[] {
  const out: OverviewLineage[] = [];
  const stack = [...lineages].reverse();
  for (let l = stack.pop(); l; l = stack.pop()) {
    out.push(l);
    for (let i = l.children.length - 1; i >= 0; i--) stack.push(l.children[i]);
  }
  return out;
}

/** The lineage's MODEL: sessions.model, unless it is null or the main loop ran several models. */
export function lineageModel(sessions: readonly OverviewSession[]): string | null {
  const ran = distinct(sessions.flatMap((s) => s.mainLoopModels));
  const stored = distinct(sessions.map((s) => s.model));
  const models = ran.length > 1 || !stored.length ? ran : stored;
  return models.length ? models.join(', ') : null;
}

/** A column of the overview: its key (for `--sort`), its heading, and its value in a lineage row. */
export interface OverviewColumn {
  key: string;
  heading: string;
  /** A text column (sorted as text, printed left-aligned); the others are numbers. */
  text: boolean;
  value(row: OverviewLineage | OverviewSession): string | number | null;
}

const lineageOnly =
  (get: (row: OverviewLineage) => string | number | null) =>
  (row: OverviewLineage | OverviewSession): string | number | null =>
    'sessions' in row ? get(row) : null;

export const OVERVIEW_COLUMNS: readonly OverviewColumn[] = [
  { key: 'id', heading: 'LINEAGE', text: true, value: (r) => r.id },
  { key: 'title', heading: 'TITLE', text: true, value: (r) => r.title },
  { key: 'source', heading: 'SOURCE', text: true, value: (r) => r.source },
  // A chain's session row by the same rule as its lineage's, from its own rows.
  { key: 'model', heading: 'MODEL', text: true, value: (r) => ('sessions' in r ? r.model : lineageModel([r])) },
  { key: 'start', heading: 'START (UTC)', text: false, value: (r) => r.startedAt },
  { key: 'duration', heading: 'DURATION', text: false, value: (r) => r.durationSeconds },
  { key: 'end', heading: 'END', text: true, value: (r) => r.endReason },
  { key: 'sessions', heading: 'SESSIONS', text: false, value: lineageOnly((r) => r.sessions.length) },
  { key: 'turns', heading: 'TURNS', text: false, value: (r) => r.turns },
  { key: 'requests', heading: 'REQUESTS', text: false, value: (r) => r.requests },
  { key: 'api-calls', heading: 'API CALLS*', text: false, value: (r) => r.recorded.apiCalls },
  { key: 'compactions', heading: 'COMPACTIONS', text: false, value: (r) => r.compactions },
  { key: 'compaction-calls', heading: 'COMPACTION CALLS*', text: false, value: (r) => r.recordedCompactionCalls },
  { key: 'breaks', heading: 'BREAKS', text: false, value: (r) => r.cacheBreaks },
  { key: 'input', heading: 'INPUT', text: false, value: (r) => r.inputTokens },
  { key: 'reused', heading: 'REUSED', text: false, value: (r) => r.reusedTokens },
  { key: 'reused-pct', heading: 'REUSED %', text: false, value: reusedPercent },
  { key: 'rec-input', heading: 'INPUT*', text: false, value: (r) => r.recorded.inputTokens },
  { key: 'rec-cache-read', heading: 'CACHE READ*', text: false, value: (r) => r.recorded.cacheReadTokens },
  { key: 'rec-cache-write', heading: 'CACHE WRITE*', text: false, value: (r) => r.recorded.cacheWriteTokens },
  { key: 'rec-output', heading: 'OUTPUT*', text: false, value: (r) => r.recorded.outputTokens },
  { key: 'rec-messages', heading: 'MESSAGES*', text: false, value: (r) => r.recorded.messages },
  { key: 'billed-input', heading: 'BILLED INPUT', text: false, value: (r) => r.billedInputTokens },
  { key: 'hit-pct', heading: 'BILLED HIT %', text: false, value: billedHitPercent },
  { key: 'cost', heading: 'COST $', text: false, value: (r) => r.costUsd },
  { key: 'rec-cost', heading: 'COST $*', text: false, value: (r) => r.recorded.estimatedCostUsd },
  { key: 'unexplained', heading: 'UNEXPLAINED MISSES', text: false, value: (r) => r.unexplainedMisses },
  { key: 'errors', heading: 'ERRORS', text: false, value: (r) => r.errors },
  { key: 'warnings', heading: 'WARNINGS', text: false, value: (r) => r.warnings },
];

/** The share of the tokens sent that a prefix cache could have served, in percent; null when nothing was sent (or read). */
function reusedPercent(r: OverviewLineage | OverviewSession): number | null {
  return r.inputTokens && r.reusedTokens !== null ? (r.reusedTokens / r.inputTokens) * 100 : null;
}

/** The share of the billed prompt tokens the provider read from its cache, in percent; null where nothing was billed. */
function billedHitPercent(r: OverviewLineage | OverviewSession): number | null {
  return r.billedInputTokens && r.billedCacheReadTokens !== null ? (r.billedCacheReadTokens / r.billedInputTokens) * 100 : null;
}

export function overviewColumn(key: string): OverviewColumn | undefined {
  return OVERVIEW_COLUMNS.find((c) => c.key === key);
}

/**
 * The lineages sorted by a column, at every level (children among their siblings); a value not
 * recorded sorts last either way, and equal values keep start order.
 */
export function sortLineages(lineages: readonly OverviewLineage[], column: OverviewColumn, descending: boolean): OverviewLineage[] {
  const cmp = (a: OverviewLineage, b: OverviewLineage): number => {
    const x = column.value(a);
    const y = column.value(b);
    if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
    // By code unit, not locale: the same order on every machine.
    const d = typeof x === 'number' && typeof y === 'number' ? x - y : String(x) < String(y) ? -1 : String(x) > String(y) ? 1 : 0;
    return descending ? -d : d;
  };
  // Without recursion: forks can nest 10,000 deep.
  const top = [...lineages].sort(cmp).map((l) => ({ ...l }));
  const stack = [...top];
  for (let n = stack.pop(); n; n = stack.pop()) {
    n.children = [...n.children].sort(cmp).map((c) => ({ ...c }));
    for (const c of n.children) stack.push(c);
  }
  return top;
}

export interface OverviewFilter {
  /** Case-insensitive, in the title, id or source of the lineage or of one of its sessions. */
  text?: string;
  /** Only lineages with a session of this source (sessions.source). */
  source?: string;
  /** Only lineages with a cache break, or with a finding of severity error. */
  has?: readonly ('breaks' | 'errors')[];
}

/**
 * The lineages that match, each with its whole subtree; a lineage that does not match stays as the
 * path to a child that does.
 */
export function filterLineages(lineages: readonly OverviewLineage[], filter: OverviewFilter): OverviewLineage[] {
  const needle = filter.text?.toLowerCase();
  const matches = (l: OverviewLineage): boolean => {
    if (needle !== undefined) {
      const hay = [l.title, l.source, ...l.sessions.flatMap((s) => [s.id, s.title])];
      if (!hay.some((h) => h !== null && h.toLowerCase().includes(needle))) return false;
    }
    if (filter.source !== undefined && !l.sessions.some((s) => s.source === filter.source)) return false;
    for (const h of filter.has ?? []) {
      if (h === 'breaks' && !((l.cacheBreaks ?? 0) > 0)) return false;
      if (h === 'errors' && !((l.errors ?? 0) > 0)) return false;
    }
    return true;
  };
  // Depth first without recursion (forks can nest 10,000 deep): a lineage that does not match
  // waits on the stack for its children's results, then stands as their path if any matched.
  const out: OverviewLineage[] = [];
  const stack: { l: OverviewLineage; into: OverviewLineage[]; kept: OverviewLineage[]; next: number }[] = [];
  const visit = (l: OverviewLineage, into: OverviewLineage[]): void => {
    if (matches(l)) into.push(l);
    else stack.push({ l, into, kept: [], next: 0 });
  };
  for (const l of lineages) {
    visit(l, out);
    while (stack.length) {
      const f = stack[stack.length - 1];
      if (f.next < f.l.children.length) visit(f.l.children[f.next++], f.kept);
      else {
        stack.pop();
        if (f.kept.length) f.into.push({ ...f.l, children: f.kept });
      }
    }
  }
  return out;
}

/** One row of the table: a lineage (depth: how many forks deep), or one session of an expanded chain. */
export type OverviewRow =
  | { kind: 'lineage'; lineage: OverviewLineage; depth: number; expandable: boolean; expanded: boolean }
  | { kind: 'session'; lineage: OverviewLineage; session: OverviewSession; depth: number };

/** The lineages a view's filters let through, in its order (start order when it names no column). */
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

// ---- Cells: what every view prints in a column, the same words for a missing value everywhere.

/** Why a cell holds no value: the lineage's rows were not read (listed only), or the store keeps none. */
export type MissingValue = 'not read' | 'not recorded' | 'reading…';

/** How much of a file an overview read: all, only its session list, or its list while the rest is read. */
export type FileRead = 'read' | 'listed' | 'reading';

export function fileReadOf(overview: Pick<SessionOverview, 'read' | 'reading'>): FileRead {
  return overview.read ? 'read' : overview.reading ? 'reading' : 'listed';
}

/** Columns the replay fills (a duration needs the rows too): null there means the rows were not read. */
const NEEDS_ROWS = new Set(['turns', 'requests', 'compactions', 'breaks', 'input', 'reused', 'reused-pct', 'errors', 'warnings', 'duration']);

/** "2026-09-18 14:00" (with seconds, "14:00:05"), UTC; a time no date can hold (a damaged cell) as the number it is. */
export function utcText(seconds: number, withSeconds = false): string {
  const d = new Date(seconds * 1000);
  return Number.isNaN(d.getTime())
    ? String(seconds)
    : d
        .toISOString()
        .slice(0, withSeconds ? 19 : 16)
        .replace('T', ' ');
}

/** "48m50s", "22h09m", "3d04h": two units at most. */
export function durationText(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  const two = (n: number): string => String(n).padStart(2, '0');
  if (s < 3600) return `${Math.floor(s / 60)}m${two(s % 60)}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h${two(Math.floor(s / 60) % 60)}m`;
  return `${Math.floor(s / 86400)}d${two(Math.floor(s / 3600) % 24)}h`;
}

/**
 * A cell of a lineage or session row: times as text, counts as numbers (each view formats those),
 * or why there is none. `file` says how much of the file was read (fileReadOf).
 */
export function overviewCell(
  column: OverviewColumn,
  row: OverviewLineage | OverviewSession,
  file: FileRead = 'read',
): { value: string | number; missing: null } | { value: null; missing: MissingValue | null } {
  const v = column.value(row);
  if (v === null) {
    // A session row has no sessions count of its own (its lineage row says it), and a row that sent
    // nothing has no share of it reused: nothing is missing.
    if (column.key === 'sessions' || (column.key === 'reused-pct' && row.inputTokens === 0) || (column.key === 'hit-pct' && row.billedInputTokens === 0))
      return { value: null, missing: null };
    // A row filled in (EngineCalls.fill) of a file only listed, or being read, has its figures: its missing ones are not recorded.
    const read = 'sessions' in row ? row.sessions.every((s) => s.read) : row.read;
    return { value: null, missing: NEEDS_ROWS.has(column.key) && !read ? (file === 'reading' ? 'reading…' : 'not read') : 'not recorded' };
  }
  if (column.key === 'start') return { value: utcText(v as number), missing: null };
  if (column.key === 'duration') return { value: durationText(v as number), missing: null };
  // One decimal always, so a column of shares lines up.
  if (column.key === 'reused-pct' || column.key === 'hit-pct') return { value: (v as number).toFixed(1), missing: null };
  // Costs of single calls run to fractions of a cent.
  if (column.key === 'cost' || column.key === 'rec-cost') return { value: (v as number).toFixed(4), missing: null };
  return { value: v, missing: null };
}
