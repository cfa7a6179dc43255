// The status bar's words for the active inspector (issue 20, items 4 and 6): never "cache-stable"
// for a file with errors or without a request; one count per thing, with separators, and the
// re-billing a compaction or a rewind causes told apart from the breaks to look into.

import { deliberateBreak, type BreakCause } from '../shared/reportTypes';
import { num, plural } from '../shared/shownText';
import type { InspectorIndex } from '../shared/messages';
import type { RecordedReport } from '../shared/recordedReportTypes';
import { everyLineage } from '../shared/overviewColumns';
import type { SessionOverview } from '../shared/overviewTypes';

/** While a large state.db is only listed and its rows are read, there is nothing to count yet. */
export const READING_STATUS = {
  text: '$(loading~spin) reading…',
  tooltip: "Prompt Inspector: the lineages are listed; their rows are being read, and the overview's figures come in a few rows at a time.",
} as const;

/** What the status bar counts, of an index or of an overview's rows. */
interface Counted {
  requests: number;
  /** Cache breaks to look into (not compactions or rewinds, re-billed by design). */
  breaks: number;
  errors: number;
  systemChanges: number;
  compactions: number;
  rewinds: number;
  /** What was read when not all of it was ("1 of 2 lineages"): then never cache-stable. */
  partly: string | null;
  /** The tooltip's words before the counts, and after them. */
  lead: string;
  end: string;
}

function statusOfCounts(c: Counted): { text: string; tooltip: string } {
  const text =
    c.breaks > 0
      ? `$(warning) ${plural(c.breaks, 'cache break')}`
      : c.errors > 0
        ? `$(error) ${plural(c.errors, 'error')}`
        : c.partly !== null
          ? `$(info) ${c.partly} read`
          : c.requests === 0
            ? '$(info) no requests'
            : '$(pass) cache-stable';
  const rebilled = [c.compactions ? plural(c.compactions, 'compaction') : '', c.rewinds ? plural(c.rewinds, 'rewind') : ''].filter((s) => s).join(' and ');
  const tooltip = [
    `Prompt Inspector: ${c.lead}${plural(c.requests, 'request')}, ${plural(c.breaks, 'cache break')} to look into`,
    c.systemChanges ? ` (${plural(c.systemChanges, 'system-prompt change')})` : '',
    rebilled ? `; ${rebilled} re-billed by design` : '',
    c.errors ? `; ${plural(c.errors, 'error')} in the findings` : '',
    c.end,
  ].join('');
  return { text, tooltip };
}

/**
 * A file only listed (too large for one index of all its requests) once its overview's rows were
 * filled in: their figures summed, of the lineages filled in (all, unless the filling was cancelled).
 */
export function statusOfOverview(overview: SessionOverview): { text: string; tooltip: string } {
  const lineages = everyLineage(overview.lineages);
  const filled = lineages.filter((l) => l.requests !== null);
  const sum = (k: 'requests' | 'cacheBreaks' | 'errors' | 'compactions'): number => filled.reduce((n, l) => n + (l[k] ?? 0), 0);
  const partly = filled.length < lineages.length ? `${num(filled.length)} of ${plural(lineages.length, 'lineage')}` : null;
  return statusOfCounts({
    requests: sum('requests'),
    breaks: sum('cacheBreaks'),
    errors: sum('errors'),
    systemChanges: 0,
    compactions: sum('compactions'),
    rewinds: 0,
    partly,
    lead: `${partly ?? `all ${plural(lineages.length, 'lineage')}`} read, `,
    end: '. Open a lineage to step through its breaks.',
  });
}

export function statusOf(index: InspectorIndex): { text: string; tooltip: string } {
  const byCause = index.summary.breaks;
  const breaks = (Object.entries(byCause) as [BreakCause, number][]).reduce((n, [cause, k]) => n + (deliberateBreak(cause) ? 0 : k), 0);
  return statusOfCounts({
    requests: index.requestCount,
    breaks,
    errors: index.summary.findings.error ?? 0,
    systemChanges: byCause['system-changed'] ?? 0,
    compactions: byCause.compression ?? 0,
    rewinds: byCause.rewind ?? 0,
    partly: null,
    lead: '',
    end: breaks ? '. Click to jump to the next break.' : '.',
  });
}

/**
 * The status bar's words for another agent's transcript (docs/recorded.md): its breaks, errors or
 * unexplained misses first; else its calls and the share the cache served, never "cache-stable"
 * (without request bytes nothing says the prefix held).
 */
export function statusOfRecorded(report: RecordedReport): { text: string; tooltip: string } {
  const breaks = report.calls.filter((c) => c.prefixBreak).length;
  const errors = report.diagnostics.filter((d) => d.severity === 'error').length;
  const unexplained = report.calls.filter((c) => c.cacheMiss?.class === 'unexplained').length;
  const misses = report.calls.filter((c) => c.cacheMiss).length;
  const { calls, hitRate } = report.usage;
  const text =
    breaks > 0
      ? `$(warning) ${plural(breaks, 'cache break')}`
      : errors > 0
        ? `$(error) ${plural(errors, 'error')}`
        : unexplained > 0
          ? `$(warning) ${plural(unexplained, 'unexplained miss', 'unexplained misses')}`
          : calls === 0
            ? '$(info) no calls'
            : `$(info) ${plural(calls, 'call')}${hitRate === null ? '' : `, ${Math.round(hitRate * 100)}% from the cache`}`;
  const tooltip = `Prompt Inspector: ${plural(calls, 'recorded call')}, ${plural(misses, 'cache miss', 'cache misses')} (${unexplained} unexplained), ${plural(breaks, 'cache break')}${errors ? `; ${plural(errors, 'error')} in the findings` : ''}.`;
  return { text, tooltip };
}
