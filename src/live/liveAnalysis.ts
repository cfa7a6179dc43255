// A transcript kept analysed while its agent writes to it: each fresh read is refreshed from what
// the last one left, in one of three ways (docs/glossary.md: growth, resume, family). The one home
// of what a live refresh remembers: what the file's next load reuses, the transcript as analysed,
// and the analysis with its replay cursor and report parts. Each layer hands its part back as a
// value (loadRemembering, analyzeResumable); this object alone holds them, so the contracts that
// an extension spends what it extended, and a graft changes the transcript held, stay inside it.

import { billingLogOf } from '../analysis/billing';
import {
  analyzeResumable,
  extendAnalysis,
  reanalyzeChanged,
  withBilling,
  type Analysis,
  type AnalyzeOptions,
  type ResumableAnalysis,
} from '../analysis/report';
import { graftGrowth, keepUnchanged, transcriptGrowth } from '../engine/transcriptGrowth';
import type { CacheTtlSetting, Transcript } from '../shared/model/transcript';
import type { AgentLogRead } from '../transcripts/agentLogFiles';
import type { ReadMemory } from '../transcripts/load';

/** How a refresh came by its analysis. */
export type Refreshed =
  /** The first read, or one that nothing of the last analysis could be kept for. */
  | { kind: 'whole' }
  /**
   * Rows appended: the replay resumed, adding these turns and requests; `reported` earlier turns
   * were reported again (renumbered, or gone on to new requests).
   */
  | { kind: 'resumed'; turns: number; requests: number; reported: number }
  /** Rewritten: `sessions` of `of` replayed, the families that did not change taken over. */
  | { kind: 'recomputed'; sessions: number; of: number };

/** What a refresh bills from, beside the transcript's home: the agent.log reads, and what its config.yaml asks of the cache. */
export interface BillReads {
  logs: readonly AgentLogRead[];
  cacheTtl: CacheTtlSetting | null;
}

export class LiveAnalysis {
  private memory: ReadMemory | null = null;
  private held: { transcript: Transcript; analysed: ResumableAnalysis } | null = null;
  /**
   * The agent.log files as last read, each with every record read from it so far (a read that went
   * on from an earlier one adds to its records): what the next read goes on from, and the bill.
   */
  private logs: AgentLogRead[] | null = null;

  /** `options` hold for every refresh: another profile or tokenizer is another LiveAnalysis. */
  constructor(private readonly options: AnalyzeOptions) {}

  /** What the file's next load reuses (loadRemembering's `earlier`); null: nothing. */
  get reading(): ReadMemory | null {
    return this.memory;
  }

  /** The agent.log reads the next read of the logs goes on from (readAgentLogs' `earlier`). */
  get logReading(): readonly AgentLogRead[] {
    return this.logs ?? [];
  }

  /** The transcript as last analysed (a fresh read that only grew is grafted onto the one before). */
  get transcript(): Transcript | undefined {
    return this.held?.transcript;
  }

  /**
   * The analysis of `fresh`, the file read again (with `reading`, what that load kept). When all
   * that changed is rows appended, they are grafted onto the transcript held and the replay
   * resumes where it stopped (every other lineage's turns and tokens kept); otherwise only the
   * families of sessions that changed are replayed (a compaction or an /undo in one lineage), or,
   * with none unchanged, all. Each equals analysing `fresh` whole.
   */
  refresh(fresh: Transcript, reading: ReadMemory | null = null, bill: BillReads | null = null): { analysis: Analysis; how: Refreshed } {
    this.memory = reading;
    const { analysis, how } = this.replayed(fresh);
    return { analysis: this.billed(analysis, bill), how };
  }

  /**
   * The file unchanged since the analysis held (its logs read on, say): that analysis, billed again
   * from `bill`, as a resume that added nothing. Null when nothing is held.
   */
  rebill(bill: BillReads | null): { analysis: Analysis; how: Refreshed } | null {
    if (!this.held) return null;
    const billed = this.billed(this.held.analysed.analysis, bill);
    // Every turn and request kept: a view made of them is kept unless the bill changed it.
    const kept = { turns: billed.report.turns.length, requests: billed.report.requests.length };
    return { analysis: { ...billed, kept }, how: { kind: 'resumed', turns: 0, requests: 0, reported: 0 } };
  }

  /**
   * Keeps the logs of `bill` (each read on from the one before) and bills `analysis`, held without
   * the bill, from them: the bill is matched afresh every time (it is linear).
   */
  private billed(analysis: Analysis, bill: BillReads | null): Analysis {
    this.logs = bill && bill.logs.map((read) => this.withEarlierRecords(read));
    return bill && this.logs ? withBilling(analysis, billingLogOf(this.logs, bill.cacheTtl), this.options.prices) : analysis;
  }

  /** A read that went on from an earlier one holds only what it added: the earlier records go first. */
  private withEarlierRecords(read: AgentLogRead): AgentLogRead {
    if (!read.continued) return read;
    const before = this.logs?.find((r) => r.dev === read.dev && r.ino === read.ino);
    if (!before) return read;
    // A rotation renamed the file since (agent.log → agent.log.1): its earlier lines are named by its name now.
    const earlier = before.path === read.path ? before.records : before.records.map((r) => ({ ...r, file: read.path }));
    return { ...read, records: [...earlier, ...read.records], findings: [...before.findings, ...read.findings] };
  }

  private replayed(fresh: Transcript): { analysis: Analysis; how: Refreshed } {
    const held = this.held;
    const growth = held && transcriptGrowth(held.transcript, fresh);
    if (held && growth) {
      graftGrowth(held.transcript, fresh, growth);
      const before = held.analysed.analysis.report;
      const extended = extendAnalysis(held.analysed, held.transcript);
      if (!extended) return this.whole(held.transcript);
      held.analysed = extended;
      const { analysis } = extended;
      const turns = analysis.report.turns.length - before.turns.length;
      const requests = analysis.report.requests.length - before.requests.length;
      return { analysis, how: { kind: 'resumed', turns, requests, reported: before.turns.length - (analysis.kept?.turns ?? 0) } };
    }
    const kept = held ? keepUnchanged(held.transcript, fresh) : null;
    if (!held || !kept?.size) return this.whole(fresh);
    const again = reanalyzeChanged(held.analysed, fresh, kept);
    this.held = { transcript: fresh, analysed: again };
    return { analysis: again.analysis, how: { kind: 'recomputed', sessions: fresh.sessions.length - kept.size, of: fresh.sessions.length } };
  }

  private whole(transcript: Transcript): { analysis: Analysis; how: Refreshed } {
    const analysed = analyzeResumable(transcript, this.options);
    this.held = { transcript, analysed };
    return { analysis: analysed.analysis, how: { kind: 'whole' } };
  }
}
