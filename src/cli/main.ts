// prompt-inspector: the engine on the command line, for people and for CI.

import { PROTOCOL_VERSION, type EmbeddedPage } from '../shared/messages';
import { reportData } from '../protocol/reportData';
import { progressText, usd } from '../shared/shownText';
import { analyze, withBilling, type Analysis, type AnalysisProgress, type AnalyzeOptions } from '../analysis/report';
import type { Diagnostic, Report, ReportCompaction } from '../shared/reportTypes';
import { createTokenCounter } from '../analysis/tokenizer';
import { PROFILES } from '../engine/profile';
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import { loadTranscript, UnknownSession, UnopenablePath } from '../transcripts/load';
import { agentLogsBeside, readAgentLogs } from '../transcripts/agentLogFiles';
import { cacheTtlBeside } from '../transcripts/hermesConfig';
import { billingLogOf, type BillingLog } from '../analysis/billing';
import { turnCost } from '../analysis/cost';
import { ReportNotWritten, writeHtmlReport } from './htmlReport';
import { writeJson } from '../shared/jsonPieces';
import { outputRefusal } from './outputPath';
import { githubData, githubProperty, visible } from './terminalText';
import { everyLineage, filterLineages, overviewColumn, sortLineages } from '../shared/overviewColumns';
import type { OverviewLineage, SessionOverview } from '../shared/overviewTypes';
import { sessionOverview } from '../analysis/sessionOverview';
import { sessionsTable } from './sessions';
import { HELP, USAGE } from './usage';
import { StatusLine } from './statusLine';
import { checkOptions, isCommand, parseArgs, UsageError, type Options } from './options';
import { recordedReport } from '../analysis/recordedReport';
import type { RecordedReport } from '../shared/recordedReportTypes';
import { loadRecorded } from '../transcripts/recordedFiles';
import { recordedCheckLine, recordedFileName, recordedText } from './recordedText';
import { agentOfFolder, listAgentFolder } from '../transcripts/agentFolders';
import { agentSessionRow } from '../analysis/agentOverview';
import { agentSessionsText } from './agentSessionsText';

/** `report -o` cannot or must not write where it was told: said in one line, exit 2. */
class CannotWrite extends Error {}

/** A state.db too large to read whole, asked for without --session: only its sessions were listed. */
class NotReadWhole extends Error {}

function analyzeOptions(o: Options, progress?: AnalysisProgress): AnalyzeOptions {
  return {
    profile: PROFILES[o.profile],
    counter: createTokenCounter(o.tokenizer),
    messages: o.messages,
    ...(o.prices ? { prices: o.prices } : {}),
    ...(progress ? { progress } : {}),
  };
}

/** A progress line's words for each step of an analysis of `path`. */
function progressOn(status: StatusLine | undefined, path: string): AnalysisProgress | undefined {
  if (!status) return undefined;
  const name = visible(basename(path));
  return (what, done, total) => status.show(`${name}: ${progressText(what, done, total)}`);
}

/** The file's analysis with the bill of the agent.log files it was matched against (`log`: null without any). */
async function analyzeFile(path: string, o: Options, needsRows = false, status?: StatusLine): Promise<{ analysis: Analysis; log: BillingLog | null }> {
  status?.show(`${visible(basename(path))}: reading`);
  const transcript = await loadTranscript(path, { session: o.session, lineage: o.lineage });
  if (needsRows && transcript.listedOnly) {
    const ids = (transcript.catalog ?? []).map((s) => s.id);
    throw new NotReadWhole(
      `${path}: ${transcript.findings[0]?.message ?? 'not read whole'}; nothing was checked. `
        + `Sessions: ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? `, … (${ids.length} in all; \`analyze\` lists them)` : ''}`,
    );
  }
  const analysis = analyze(transcript, analyzeOptions(o, progressOn(status, path)));
  const logs = o.logs ?? agentLogsBeside(path, transcript.format);
  const cacheTtl = cacheTtlBeside(path, transcript.format);
  const log = logs.length || cacheTtl ? billingLogOf(readAgentLogs(logs), cacheTtl) : null;
  return { analysis: withBilling(analysis, log, o.prices), log };
}

/** Where findings are placed in a file of several sessions: each session's lineage, and the lineages in `sessions` order. */
interface Placement {
  /** More than one session: a finding says which one it is in. */
  named: boolean;
  lineageOf: Map<string, OverviewLineage>;
  /** Top-level lineages and their forks, depth first (the order `sessions` lists them in). */
  lineages: OverviewLineage[];
}

function placement(overview: SessionOverview, report: Report): Placement {
  const lineages = everyLineage(overview.lineages);
  const lineageOf = new Map<string, OverviewLineage>();
  for (const l of lineages) for (const s of l.sessions) lineageOf.set(s.id, l);
  return { named: report.sessions.length > 1, lineageOf, lineages };
}

/** The session a finding is placed in: by its sessionId, else by its request's or its turn's session. */
function sessionOf(r: Report, d: Diagnostic): string | undefined {
  return d.sessionId ?? (d.request !== null ? r.requests[d.request]?.sessionId : undefined) ?? (d.turn !== null ? r.turns[d.turn]?.sessionId : undefined);
}

function where(r: Report, d: Diagnostic, p: Placement): string {
  const bits: string[] = [];
  if (p.named) {
    // A file of several sessions: every finding placed in one names it, and its lineage when that starts elsewhere.
    const session = sessionOf(r, d);
    if (session !== undefined) {
      bits.push(`session ${session}`);
      const lineage = p.lineageOf.get(session)?.id;
      if (lineage !== undefined && lineage !== session) bits.push(`lineage ${lineage}`);
    }
  } else if (d.sessionId !== undefined && d.line === undefined) {
    bits.push(`session ${d.sessionId}`);
  }
  if (d.rowId !== undefined) bits.push(`message id ${d.rowId}`);
  return bits.length ? ` (${bits.join(', ')})` : '';
}

function textReport(r: Report, turn: number | null, p: Placement, read: boolean): string {
  const out: string[] = [];
  out.push(`${r.source.path} (${r.source.format}), profile ${r.profile}, tokenizer ${r.tokenizer}`);
  out.push(`${r.sessions.length} session(s), ${r.turns.length} turn(s), ${r.requests.length} request(s)`);
  const billing = billingLine(r.billing);
  if (billing) out.push(billing);
  const shown = r.diagnostics.filter((d) => turn === null || d.turn === null || d.turn === turn);
  const finding = (d: Diagnostic): string => `${d.severity} ${d.code}: ${d.message}${where(r, d, p)}`;
  if (read && p.lineages.length > 1) {
    // One block per lineage, in `sessions` order; turns keep their numbers over the whole file.
    const of = (sessionId: string | undefined): OverviewLineage | undefined => (sessionId === undefined ? undefined : p.lineageOf.get(sessionId));
    // Each lineage's turns, dumps and findings, in report order, sorted out in one pass (not one per lineage).
    const byLineage = <T>(items: readonly T[], sessionIdOf: (item: T) => string | undefined): { placed: Map<OverviewLineage, T[]>; unplaced: T[] } => {
      const placed = new Map<OverviewLineage, T[]>();
      const unplaced: T[] = [];
      for (const item of items) {
        const l = of(sessionIdOf(item));
        if (!l) unplaced.push(item);
        else if (placed.has(l)) (placed.get(l) as T[]).push(item);
        else placed.set(l, [item]);
      }
      return { placed, unplaced };
    };
    const turns = byLineage(turn === null ? r.turns : r.turns.filter((t) => t.index === turn), (t) => t.sessionId).placed;
    const captures = byLineage(r.captures ?? [], (c) => c.sessionId);
    const findings = byLineage(shown, (d) => sessionOf(r, d));
    for (const l of p.lineages) {
      const mine = turns.get(l) ?? [];
      if (turn !== null && !mine.length) continue;
      const fork = l.kind === 'conversation' ? '' : ` (${l.kind} of ${l.forkedFrom})`;
      const sessions = l.sessions.length > 1 ? ` (${l.sessions.map((s) => s.id).join(', ')})` : '';
      out.push(`lineage ${l.id}${fork}: ${l.sessions.length} session(s)${sessions}, ${l.turns ?? 0} turn(s), ${l.requests ?? 0} request(s)`);
      for (const t of mine) for (const line of turnLines(r, t)) out.push(`  ${line}`);
      for (const c of captures.placed.get(l) ?? []) out.push(`  ${captureLine(c)}`);
      const found = findings.placed.get(l) ?? [];
      out.push(found.length ? '  findings:' : '  findings: none');
      for (const d of found) out.push(`    ${finding(d)}`);
    }
    for (const c of captures.unplaced) out.push(captureLine(c));
    const unplaced = findings.unplaced;
    if (unplaced.length) out.push('findings in no lineage:');
    for (const d of unplaced) out.push(`  ${finding(d)}`);
  } else {
    for (const t of r.turns) if (turn === null || t.index === turn) out.push(...turnLines(r, t));
    for (const c of r.captures ?? []) out.push(captureLine(c));
    out.push(shown.length ? 'findings:' : 'findings: none');
    for (const d of shown) out.push(`  ${finding(d)}`);
  }
  // Paths, session ids and messages come from the input: no line may carry a control character.
  return out.map(visible).join('\n');
}

function turnLines(r: Report, t: Report['turns'][number]): string[] {
  const out: string[] = [];
  const injected = t.injected.length ? `; injected: ${t.injected.map((s) => s.kind).join(', ')}` : '';
  const spent = turnCost(r, t);
  const cost = spent === null ? '' : `; cost ${usd(spent)}`;
  out.push(`turn ${t.index}  session ${t.sessionId}  user row ${t.userMessageIndex}${injected}${cost}`);
  if (t.compression) out.push(`  ${compactionLine(t.compression, 'compaction')}`);
  // Compactions inside the turn, each before the first request it broke (its re-billing).
  const later = [...t.laterCompressions];
  for (const q of t.requests) {
    const req = r.requests[q];
    const p = req.prefix;
    if (later.length && q !== t.requests[0] && p.breakAt?.cause === 'compression')
      out.push(`  ${compactionLine(later.shift() as ReportCompaction, 'compaction inside the turn')}`);
    const status =
      p.previousRequest === null
        ? 'first request'
        : p.stable
          ? `extends #${p.previousRequest}`
          : `BREAK vs #${p.previousRequest} at message ${p.breakAt?.messageIndex}${p.breakAt?.byteOffset === null ? '' : ` byte ${p.breakAt?.byteOffset}`} (${p.breakAt?.cause})`;
    const share = req.inputTokens ? Math.round((100 * p.reusedTokens) / req.inputTokens) : 0;
    out.push(
      `  request ${String(req.index).padStart(3)}  ${String(req.messageCount).padStart(4)} msgs  ${String(req.inputTokens).padStart(7)} tokens  reused ${String(p.reusedTokens).padStart(7)} (${share}%)  ${status}${req.failed ? '; FAILED: sent, no answer' : ''}${billedText(req)}`,
    );
  }
  for (const c of later) out.push(`  ${compactionLine(c, 'compaction inside the turn')}`);
  return out;
}

/** What the provider billed for the request and, for a miss, its class, where a log line matched it. */
function billedText(req: Report['requests'][number]): string {
  const b = req.billed;
  if (!b) return '';
  const usage =
    b.input === null
      ? 'usage unavailable'
      : `${b.input} in, ${b.cacheRead ?? '?'} read${b.cacheWrite ? `, ${b.cacheWrite} written` : ''}, ${b.output ?? '?'} out`;
  const m = req.cacheMiss;
  const miss = m
    ? `; cache MISS (${m.class}${m.cause ? `: ${m.cause}` : ''}), ${m.rebilledTokens} billed again${m.idleSeconds === null ? '' : ` after ${Math.round(m.idleSeconds)} s idle`}${m.class === 'expired' && m.lifetimeSeconds !== null ? ` (lifetime ${m.lifetimeSeconds} s)` : ''}`
    : '';
  const cost = req.cost ? `, ${usd(req.cost.usd)}` : '';
  const extra = m?.extraUsd ? ` (${usd(m.extraUsd)} more than a hit)` : '';
  return `; billed ${usage}${cost}${miss}${extra}`;
}

function billingLine(billing: Report['billing']): string | null {
  if (!billing.sources.length) return null;
  const calls = billing.sources.reduce((n, s) => n + s.calls, 0);
  const matched = billing.sessions.reduce((n, s) => n + s.matched, 0);
  const offset = billing.logClockOffsetSeconds;
  const clock =
    offset === null
      ? matched
        ? 'matched by order alone'
        : "the log's clock not placed (no timed request of a logged session)"
      : `log clock ${offset < 0 ? '-' : '+'}${String(Math.floor(Math.abs(offset) / 3600)).padStart(2, '0')}:${String(Math.floor((Math.abs(offset) % 3600) / 60)).padStart(2, '0')} from the rows'`;
  const ratios = billing.models.map((m) => `${m.model} x${m.ratio}`).join(', ');
  const cost = `${usd(billing.cost.usd)} over ${billing.cost.priced} priced request(s)${billing.cost.unpriced ? `, ${billing.cost.unpriced} billed with no price` : ''} (${billing.cost.catalogue})`;
  const unmatched = billing.unmatchedCalls.length ? ` (${usd(billing.cost.unmatchedUsd)})` : '';
  const ttl = billing.cacheTtl ? `; cache_ttl ${billing.cacheTtl.ttl} (${billing.cacheTtl.file}:${billing.cacheTtl.line})` : '';
  return `billing: ${billing.sources.length} agent.log file(s), ${calls} call(s), ${matched} matched to a request, ${billing.unmatchedCalls.length} unmatched${unmatched}; ${clock}${ratios ? `; prompt tokens billed per ours: ${ratios}` : ''}${ttl}; cost ${cost}`;
}

function captureLine(c: NonNullable<Report['captures']>[number]): string {
  const marks = c.breakpoints.length ? `; cache breakpoints at wire messages ${c.breakpoints.join(', ')}` : '';
  return `dump ${c.path} (${c.apiMode ?? 'unread'}): ${c.request === null ? 'matches no replayed request' : `request ${c.request}`}${marks}`;
}

function compactionLine(c: ReportCompaction, label: string): string {
  const change = c.userRowChange ? `; user row ${c.userRowChange}${c.sidecarDropped ? ', its sidecar dropped' : ''}` : '';
  return (
    `${label} (${c.mode}): ${c.beforeMessages} -> ${c.afterMessages} rows, ${c.beforeTokens} -> ${c.afterTokens} tokens (rough ${c.beforeRoughTokens} -> ${c.afterRoughTokens}), `
    + `${c.madeProgress ? 'progress' : 'NO progress'}, gate: ${c.gateBranch ?? 'not recorded'}; user row re-anchored ${c.reanchor.before} -> ${c.reanchor.after} `
    + `(${c.reanchor.rule}${c.reanchor.confirmed ? ', its own row' : ''})${change}${estimateText(c)}`
  );
}

/** Which estimate the preflight decided by, where an agent.log was read (docs/billing.md). */
function estimateText(c: ReportCompaction): string {
  const e = c.estimate;
  if (!e) return '';
  const figure = e.tokens === null ? 'its billed usage not recorded' : `~${e.tokens}`;
  const from = e.anchor ? ` on request ${e.anchor.request}'s ${e.anchor.input} + ${e.anchor.output}` : '';
  const logged = e.logged ? `, logged ~${e.logged.tokens} >= ${e.logged.threshold}` : '';
  return `; estimate ${e.method} ${figure}${from}${logged}`;
}

function checkLine(path: string, r: Report, d: Diagnostic, p: Placement, format: Options['format']): string {
  const line = d.line ?? 1;
  if (format === 'github') {
    const level = d.severity === 'error' ? 'error' : 'warning';
    return `::${level} file=${githubProperty(path)},line=${line},title=${githubProperty(d.code)}::${githubData(`${d.code} ${d.message}${where(r, d, p)}`)}`;
  }
  return visible(`${path}:${line}: ${d.severity} ${d.code} ${d.message}${where(r, d, p)}`);
}

/**
 * The report of another agent's transcript (docs/recorded.md), or null for a file of no such format.
 * Its sessions are not Hermes lineages: the options that choose among those are refused for it.
 */
function recordedOf(path: string, o: Options): RecordedReport | null {
  const recorded = loadRecorded(path);
  if (!recorded) return null;
  const chosen = [o.session !== undefined && '--session', o.lineage !== undefined && '--lineage', o.turn !== null && '--turn'].filter(Boolean);
  // Only recorded request bytes are counted (where the tokens go): the tokenizer is loaded for those alone.
  const report = recordedReport(recorded, o.prices, recorded.records.requestBytes ? createTokenCounter(o.tokenizer) : undefined);
  if (chosen.length) throw new UsageError(`${chosen.join(', ')}: not for ${recordedFileName(report)}, which is read whole (${path})`);
  return report;
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** `sessions DIR`: an agent's own folder, its sessions by project, each read whole for its figures. */
function agentSessions(root: string, o: Options, out: (line: string) => void): void {
  const hermesOnly = [
    o.sort !== null && '--sort',
    o.filter.text !== undefined && '--filter',
    o.filter.has !== undefined && '--has',
    o.session !== undefined && '--session',
  ].filter(Boolean);
  if (hermesOnly.length) throw new UsageError(`${hermesOnly.join(', ')}: not for a folder of another agent's sessions (${root})`);
  const listing = listAgentFolder(agentOfFolder(root), root);
  if (listing.problem) throw new UsageError(listing.problem);
  const projects = listing.projects.map((p) => ({ ...p, sessions: p.sessions.map((f) => agentSessionRow(f, () => loadRecorded(f.path), o.prices)) }));
  if (o.json) out(jsonText({ schemaVersion: 1, kind: 'agent-sessions', agent: listing.agent, root: listing.root, projects }));
  else for (const line of agentSessionsText(listing, projects)) out(line);
}

/** The HTML report written a piece at a time, never held as one string (htmlReport.ts); a failed write is CannotWrite. */
function writeReport(output: string, data: EmbeddedPage, title: string, theme: Options['theme']): void {
  try {
    writeHtmlReport(output, data, title, theme);
  } catch (e) {
    if (e instanceof ReportNotWritten) throw new CannotWrite(e.message);
    throw e;
  }
}

/** What the CLI knows of the terminal it runs in; nothing for pipes and files. */
export interface Terminal {
  /** Standard output's width when it is a terminal: `sessions` fits its table to it. */
  columns?: number;
  /** A progress line, when standard error is a terminal. */
  status?: StatusLine;
}

/** Runs one command, printing through `out` and `err` (each line goes after the progress line is taken away). */
export async function main(argv: string[], print: (s: string) => void, printErr: (s: string) => void, terminal: Terminal = {}): Promise<number> {
  const { status } = terminal;
  const out = (s: string): void => {
    status?.clear();
    print(s);
  };
  const err = (s: string): void => {
    status?.clear();
    printErr(s);
  };
  try {
    return await run(argv, out, err, terminal);
  } finally {
    status?.clear();
  }
}

async function run(argv: string[], out: (s: string) => void, err: (s: string) => void, { columns, status }: Terminal): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (!command || command === '--help' || command === '-h' || command === 'help') {
      out(USAGE);
      return command ? 0 : 2;
    }
    if (!isCommand(command)) throw new UsageError(`unknown command "${command}"`);
    const o = parseArgs(rest);
    if (o.help) {
      out(HELP[command]);
      return 0;
    }
    checkOptions(command, o, rest);
    if (command === 'sessions' && isFolder(o.files[0])) {
      agentSessions(o.files[0], o, out);
      return 0;
    }
    if (command === 'sessions') {
      // Another agent's sessions are no Hermes lineages: `analyze` lists them.
      if (recordedOf(o.files[0], o)) throw new UsageError(`sessions: not for ${o.files[0]}, another agent's transcript; \`analyze\` lists its sessions`);
      const { transcript, report } = (await analyzeFile(o.files[0], o, false, status)).analysis;
      const overview = sessionOverview(transcript, report);
      const column = o.sort === null ? undefined : overviewColumn(o.sort);
      const shown = filterLineages(column ? sortLineages(overview.lineages, column, o.desc) : overview.lineages, o.filter);
      if (o.json) out(jsonText({ schemaVersion: 1, ...overview, lineages: shown }));
      else for (const line of sessionsTable(overview, shown, o.wide ? undefined : columns)) out(line);
      return 0;
    }
    if (command === 'analyze') {
      const recorded = recordedOf(o.files[0], o);
      if (recorded) {
        out(o.json ? jsonText(recorded) : recordedText(recorded));
        return 0;
      }
      const { transcript, report } = (await analyzeFile(o.files[0], o, false, status)).analysis;
      if (o.json) out(jsonText(report));
      else out(textReport(report, o.turn, placement(sessionOverview(transcript, report), report), !transcript.listedOnly));
      return 0;
    }
    if (command === 'report') {
      const output = o.output as string; // checkOptions asked for one
      const refusal = outputRefusal(output, o.files[0]);
      if (refusal) throw new CannotWrite(`not writing the report: ${refusal}`);
      const recorded = recordedOf(o.files[0], o);
      if (recorded) {
        writeReport(output, { version: PROTOCOL_VERSION, recorded }, `Prompt Inspector: ${basename(o.files[0])}`, o.theme);
        out(visible(`wrote ${output} (${recorded.sessions.length} sessions, ${recorded.calls.length} calls)`));
        return 0;
      }
      const { analysis, log } = await analyzeFile(o.files[0], o, false, status);
      const title = `Prompt Inspector: ${basename(o.files[0])}`;
      const data = reportData(analysis, title, analyzeOptions(o, progressOn(status, o.files[0])), log);
      writeReport(output, data, title, o.theme);
      out(visible(`wrote ${output} (${analysis.report.turns.length} turns, ${analysis.report.requests.length} requests)`));
      return 0;
    }
    let errors = 0;
    let unopenable = false;
    for (const file of o.files) {
      const recorded = recordedOf(file, o);
      if (recorded) {
        for (const d of recorded.diagnostics) {
          if (d.severity === 'info') continue;
          if (d.severity === 'error') errors++;
          out(recordedCheckLine(d, o.format));
        }
        continue;
      }
      let analysis: Analysis;
      try {
        // A check that read no rows must not pass: it says so and exits 2, like a path it cannot open.
        analysis = (await analyzeFile(file, o, true, status)).analysis;
      } catch (e) {
        if (!(e instanceof UnopenablePath || e instanceof UnknownSession || e instanceof NotReadWhole)) throw e;
        err(`prompt-inspector: ${visible(e.message)}`);
        unopenable = true;
        continue;
      }
      const { report } = analysis;
      const placed = placement(sessionOverview(analysis.transcript, report), report);
      for (const d of report.diagnostics) {
        if (d.severity === 'info') continue;
        if (d.severity === 'error') errors++;
        out(checkLine(file, report, d, placed, o.format));
      }
    }
    if (unopenable) return 2;
    return errors ? 1 : 0;
  } catch (e) {
    if (e instanceof UsageError) {
      err(`prompt-inspector: ${visible(e.message)}\n\n${USAGE}`);
      return 2;
    }
    if (e instanceof UnopenablePath || e instanceof UnknownSession || e instanceof CannotWrite) {
      err(`prompt-inspector: ${visible(e.message)}`);
      return 2;
    }
    err(`prompt-inspector: internal error: ${visible((e as Error).message)}`);
    return 3;
  }
}

/**
 * JSON indented for reading; where it nests deeper than the stack allows to indent (forks 10,000
 * deep), the same value without indentation, which writeJson writes at any depth.
 */
function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    const parts: string[] = [];
    writeJson(value, (s) => parts.push(s));
    return parts.join('');
  }
}
