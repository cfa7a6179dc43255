// What a standalone report embeds (EmbeddedReport): a file of one lineage as the editor shows it,
// a file of several as its overview and each lineage's inspection, compressed as soon as it is made
// (so memory holds the compressed lineages, not their views), so the page opens on the overview and a
// row opens the lineage as `openLineage` does in the editor.

import { analyze, lineageSlicer, withBilling, type AnalyzeOptions, type Analysis } from '../analysis/report';
import { billingLogFor, type BillingLog } from '../analysis/billing';
import { everyLineage } from '../shared/overviewColumns';
import { overviewToOpenOn } from '../analysis/sessionOverview';
import { TranscriptLineages } from '../hermes/lineage';
import { Inspection } from './inspection';
import { compressInspection } from './compressedInspection';
import { PROTOCOL_VERSION, type EmbeddedReport, type CompressedInspection } from '../shared/messages';

/**
 * The report's data. Each lineage is as `--lineage` replays it alone, from the rows already read; a
 * lineage whose rows were not read (a state.db only listed, or outside `--session`) is a row of the
 * overview without an inspection to open. `options` are those `analysis` was made with; `log`, the
 * bill it was matched against, is matched again to each lineage's requests (its own sessions' calls).
 */
export function reportData(analysis: Analysis, title: string, options: AnalyzeOptions, log: BillingLog | null = null): EmbeddedReport {
  const { transcript, report } = analysis;
  const lineagesOf = new TranscriptLineages(transcript);
  const overview = overviewToOpenOn(transcript, report, lineagesOf);
  const whole = new Inspection(analysis, title);
  if (overview === null) return { version: PROTOCOL_VERSION, overview: null, inspection: whole.exportAll() };
  const loaded = new Set(transcript.listedOnly ? [] : transcript.sessions.map((s) => s.id));
  const lineages: Record<string, CompressedInspection> = {};
  // Progress is told per lineage here, not per request of each lineage's own analysis.
  const { progress, ...quiet } = options;
  const slice = lineageSlicer(analysis, quiet);
  const all = everyLineage(overview.lineages);
  for (const [done, lineage] of all.entries()) {
    progress?.('lineages', done, all.length);
    const members = lineagesOf.members(lineage.id);
    if (!members.every((m) => loaded.has(m))) continue;
    const narrowed = lineagesOf.narrow(members);
    // A lineage of its own is replayed alone as in the whole file: taken from it, not replayed again.
    const alone = (lineagesOf.replaysAlone(members) ? slice(narrowed) : null) ?? analyze(narrowed, quiet);
    // A branch's first request is judged against its parent's last call: that session's calls come too.
    const parents = narrowed.sessions.flatMap((s) => (s.parentId === null ? [] : [s.parentId]));
    lineages[lineage.id] = compressInspection(
      new Inspection(withBilling(alone, log && billingLogFor(log, members, parents), options.prices), title).exportAll(),
    );
  }
  return { version: PROTOCOL_VERSION, overview, index: whole.index, lineages };
}
