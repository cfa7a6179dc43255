// A row of the agents' overview (docs/recorded.md "Finding them"): a session file's recorded report
// summed up, so a project's sessions compare side by side (calls, cache share, cost, misses).

import type { AgentSessionFigures, AgentSessionFile, AgentSessionRow } from '../shared/agentFolderTypes';
import type { RecordedTranscript } from '../shared/model/recorded';
import type { RecordedReport } from '../shared/recordedReportTypes';
import type { PriceOverrides } from '../shared/settingNames';
import { recordedReport } from './recordedReport';

export function agentSessionFigures(report: RecordedReport): AgentSessionFigures {
  const { calls, sessions, diagnostics } = report;
  const models = [...new Set(calls.map((c) => c.model).filter((m): m is string => m !== null))];
  const last = calls.reduce<string | null>((at, c) => (c.lastAt !== null && (at === null || c.lastAt > at) ? c.lastAt : at), null);
  return {
    sessions: sessions.length,
    turns: sessions.reduce((n, s) => n + s.turns.length, 0),
    compactions: sessions.reduce((n, s) => n + s.compactions.length, 0),
    usage: report.usage,
    misses: calls.filter((c) => c.cacheMiss).length,
    unexplainedMisses: calls.filter((c) => c.cacheMiss?.class === 'unexplained').length,
    prefixBreaks: calls.filter((c) => c.prefixBreak).length,
    errors: diagnostics.filter((d) => d.severity === 'error').length,
    warnings: diagnostics.filter((d) => d.severity === 'warning').length,
    models,
    lastAt: last,
  };
}

/** A listed session with its figures, from `load` (its file read as recorded); what went wrong instead, never a throw. */
export function agentSessionRow(file: AgentSessionFile, load: () => RecordedTranscript | null, prices?: PriceOverrides): AgentSessionRow {
  try {
    const recorded = load();
    if (!recorded) return { ...file, figures: null, problem: 'no longer a Claude Code log or Codex rollout' };
    return { ...file, figures: agentSessionFigures(recordedReport(recorded, prices)), problem: null };
  } catch (e) {
    return { ...file, figures: null, problem: e instanceof Error ? e.message : String(e) };
  }
}
