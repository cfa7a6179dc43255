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

/**
 * A file only listed (too large for one index of all its requests) once its overview's rows were
 * filled in: their figures summed, of the lineages filled in (all, unless the filling was cancelled).
 */
export function statusOfOverview(overview: SessionOverview): { text: string; tooltip: string } {
  const lineages = everyLineage(overview.lineages);
  const filled = lineages.filter((l) => l.requests !== null);
  const sum = (k: 'requests' | 'cacheBreaks' | 'errors' | 'compactions'): number => filled.reduce((n, l) => n + (l[k] ?? 0), 0);
  const [requests, breaks, errors, compactions] = [sum('requests'), sum('cacheBreaks'), sum('errors'), sum('compactions')];
  const text =
    breaks > 0
      ? `$(warning) ${plural(breaks, 'cache break')}`
      : errors > 0
        ? `$(error) ${plural(errors, 'error')}`
        : filled.length < lineages.length
          ? `$(info) ${num(filled.length)} of ${plural(lineages.length, 'lineage')} read`
          : requests === 0
            ? '$(info) no requests'
            : '$(pass) cache-stable';
  const tooltip = [
    `Prompt Inspector: ${filled.length === lineages.length ? `all ${plural(lineages.length, 'lineage')}` : `${num(filled.length)} of ${plural(lineages.length, 'lineage')}`} read, `,
    `${plural(requests, 'request')}, ${plural(breaks, 'cache break')} to look into`,
    compactions ? `; ${plural(compactions, 'compaction')} re-billed by design` : '',
    errors ? `; ${plural(errors, 'error')} in the findings` : '',
    '. Open a lineage to step through its breaks.',
  ].join('');
  return { text, tooltip };
}

export function statusOf(index: InspectorIndex): { text: string; tooltip: string } {
  const byCause = index.summary.breaks;
  const breaks = (Object.entries(byCause) as [BreakCause, number][]).reduce((n, [cause, k]) => n + (deliberateBreak(cause) ? 0 : k), 0);
  const compactions = byCause.compression ?? 0;
  const rewinds = byCause.rewind ?? 0;
  const systemChanges = byCause['system-changed'] ?? 0;
  const errors = index.summary.findings.error ?? 0;
  const text =
    breaks > 0
      ? `$(warning) ${plural(breaks, 'cache break')}`
      : errors > 0
        ? `$(error) ${plural(errors, 'error')}`
        : index.requestCount === 0
          ? '$(info) no requests'
          : '$(pass) cache-stable';
  const rebilled = [compactions ? plural(compactions, 'compaction') : '', rewinds ? plural(rewinds, 'rewind') : ''].filter((s) => s).join(' and ');
  const tooltip = [
    `Prompt Inspector: ${plural(index.requestCount, 'request')}, ${plural(breaks, 'cache break')} to look into`,
    systemChanges ? ` (${plural(systemChanges, 'system-prompt change')})` : '',
    rebilled ? `; ${rebilled} re-billed by design` : '',
    errors ? `; ${plural(errors, 'error')} in the findings` : '',
    breaks ? '. Click to jump to the next break.' : '.',
  ].join('');
  return { text, tooltip };
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
