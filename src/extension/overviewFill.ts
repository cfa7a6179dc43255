// Filling a listed overview in (issue 23 item 1), while its file is read whole or when it is too
// large to be: which rows go next, in the order the view shows them from its first row on screen,
// how many one call to the worker asks for, when to stop, and what a changed file keeps. No vscode,
// so it is tested in Node.

import type { OverviewState } from '../shared/messages';
import { everyLineage, overviewRows, shownLineages } from '../shared/overviewColumns';
import type { OverviewLineage, SessionOverview } from '../shared/overviewTypes';
import type { Diagnostic } from '../shared/reportTypes';

/** Rows the first call asks for: about a screenful, back within a second. */
const FIRST_BATCH = 8;
/**
 * Each call asks for twice the rows of the one before, up to this many: a row opened meanwhile waits
 * for the call in flight (with the session table kept, larger calls fill no faster, and hold more).
 */
const LARGEST_BATCH = 32;

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

/**
 * A file's rows as listed and as filled in (by id): kept for its next analysis, so that a home the
 * agent writes to fills in again only the rows its session table lists otherwise (a session written
 * to changes its counters there), not every row after every write.
 */
export interface FilledRows {
  listed: Map<string, string>;
  rows: Map<string, OverviewLineage>;
  /** The findings the rows were filled in with (EngineCalls.fill). */
  findings: Diagnostic[];
}

/**
 * The rows of `listed` to fill in again, from what `before` (the same file's last listing) filled in:
 * those it listed the same way are kept, with the findings of their sessions.
 */
export function filledAgain(before: FilledRows | null, listed: SessionOverview): FilledRows {
  const now: FilledRows = { listed: new Map(listed.lineages.map((l) => [l.id, JSON.stringify(l)])), rows: new Map(), findings: [] };
  for (const [id, text] of now.listed) {
    const row = before?.rows.get(id);
    if (row && before?.listed.get(id) === text) now.rows.set(id, row);
  }
  const sessions = new Set(everyLineage([...now.rows.values()]).flatMap((l) => l.sessions.map((s) => s.id)));
  now.findings = (before?.findings ?? []).filter((d) => d.sessionId !== undefined && sessions.has(d.sessionId));
  return now;
}

/** One worker that fills rows in (the worker's `fill`): false when it could not (its listing was dropped). */
export type Filler = (lineages: string[]) => Promise<boolean>;

/** What filling an overview in asks of the host (AnalysisCache) and tells it. */
export interface Filling {
  /** Rows filled in already (kept from the file's last listing). */
  filled?: ReadonlySet<string>;
  /** The overview as filled so far; null: nothing to fill. */
  overview(): SessionOverview | null;
  /** How the view shows it now (null: no view says). */
  shownAs(): OverviewState | null;
  /**
   * The workers that fill rows in, each once it has the file listed (null: it could not list it):
   * each asks for the next rows as soon as its last call is back, so every core has families of
   * its own (issue 23 item 4).
   */
  fillers: readonly Promise<Filler | null>[];
  /** Whether the rows filled are still wanted: the listing or analysis they belong to is still the file's. */
  stillShown(): boolean;
  /** The user asked it to stop. */
  cancelled(): boolean;
  /** `done` of `total` top-level rows filled in. */
  filledIn(done: number, total: number): void;
}

/**
 * Fills every top-level row in, a batch at a time on each filler, each batch the rows the view shows
 * next that no call has asked for yet (it may be scrolled or sorted between two calls); stops early,
 * every filler after its call in flight, when a call fails, the rows are no longer wanted or the user
 * cancels. True when every row was filled in.
 */
export async function fillOverview(f: Filling): Promise<boolean> {
  const filled = new Set<string>(f.filled);
  // Filled, or asked for by a call still out.
  const taken = new Set<string>(f.filled);
  let stopped = false;
  const fillFrom = async (listed: Promise<Filler | null>): Promise<void> => {
    const fill = await listed;
    if (!fill) return;
    for (let size = batchSize(0); !stopped; size = batchSize(size)) {
      const overview = f.overview();
      if (!overview) {
        stopped = true;
        return;
      }
      const lineages = nextToFill(overview, taken, f.shownAs(), size);
      if (!lineages.length) return;
      for (const id of lineages) taken.add(id);
      if (!(await fill(lineages)) || !f.stillShown()) stopped = true;
      if (stopped) return;
      for (const id of lineages) filled.add(id);
      f.filledIn(filled.size, overview.lineages.length);
      if (f.cancelled()) stopped = true;
    }
  };
  await Promise.all(f.fillers.map(fillFrom));
  return !stopped;
}

/**
 * Adds to `found` each finding of `more` it does not hold yet: a finding of the file itself (its
 * WAL, say) comes with every call, and is listed once. The findings added.
 */
export function addFindings(found: Diagnostic[], more: readonly Diagnostic[]): Diagnostic[] {
  const known = new Set(found.map((d) => JSON.stringify(d)));
  const added: Diagnostic[] = [];
  for (const d of more) {
    const text = JSON.stringify(d);
    if (known.has(text)) continue;
    known.add(text);
    added.push(d);
  }
  found.push(...added);
  return added;
}
