// The analysis worker (bundled as dist/engine.js): reads transcripts, replays them and answers
// page requests, off the extension host's thread. Loaded on the first analysis, so activation
// never parses the engine or the tokenizer's rank tables.

import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parentPort } from 'node:worker_threads';
import { Inspection } from '../protocol/inspection';
import type { AnalyzeOptions } from '../analysis/report';
import { createTokenCounter, type TokenCounter } from '../analysis/tokenizer';
import { PROFILES } from '../engine/profile';
import { listStateDb, loadFamilies, loadRemembering, loadTranscript, type ReadMemory } from '../transcripts/load';
import type { SessionTable, SessionTableMemory } from '../transcripts/stateDbSessions';
import { agentLogsBeside, readAgentLogs } from '../transcripts/agentLogFiles';
import { cacheTtlBeside } from '../transcripts/hermesConfig';
import { serve, type RpcRequest } from '../shared/rpc';
import type { Transcript } from '../shared/model/transcript';
import { TranscriptLineages } from '../hermes/lineage';
import { overviewToOpenOn, sessionOverview } from '../analysis/sessionOverview';
import { LiveAnalysis, type BillReads, type Refreshed } from '../live/liveAnalysis';
import type { EngineCalls, EngineProgress } from './engineProtocol';
import type { Diagnostic } from '../shared/reportTypes';
import type { ProgressStep } from '../shared/shownText';
import type { TokenizerName } from '../shared/settingNames';
import { loadRecorded, recordedKindAt } from '../transcripts/recordedFiles';
import type { RecordedKind } from '../transcripts/foreign';
import { listAgentFolder } from '../transcripts/agentFolders';
import { agentSessionRow } from '../analysis/agentOverview';
import type { RecordedReport } from '../shared/recordedReportTypes';
import { recordedDiagnostics, recordedReport } from '../analysis/recordedReport';

/** A transcript kept analysed as its file changes, and the view of its last analysis. */
interface Open {
  live: LiveAnalysis;
  inspection: Inspection;
}

/** A file's analysis, and the lineage last opened from it (refreshed when the file grows). */
interface Analysed extends Open {
  params: EngineCalls['analyze']['params'];
  opened?: Open & { lineage: string };
  /** The file (and its WAL and journal) as stat saw it before it was read: unchanged, it is not read again. */
  signature: string;
  /** The lineages of the analysed transcript, worked out as the overview and opened lineages need them. */
  lineages: TranscriptLineages;
  /** What fills a listed overview: its logs read on from one batch of families to the next. */
  filling?: LiveAnalysis;
  /** A listed state.db's session table as read when the file had `signature`: the next batch of families takes it while the file has not changed. */
  sessionTable?: { signature: string; table: SessionTable };
}

/**
 * Size, time and identity of the file, the files SQLite keeps beside it, and the folders a load
 * finds request dumps in (a new dump changes its folder's time); '-' for one absent.
 */
function fileSignature(path: string): string {
  return [path, `${path}-wal`, `${path}-journal`, dirname(path), join(dirname(path), 'sessions')]
    .map((p) => {
      try {
        const st = statSync(p);
        return `${st.dev}:${st.ino}:${st.size}:${Math.floor(st.mtimeMs)}`;
      } catch {
        return '-';
      }
    })
    .join('|');
}

/** Whole-file analyses and lineage scopes alike, by the key the host gave them. */
const inspections = new Map<string, Inspection>();
const files = new Map<string, Analysed>();

function get(key: string): Inspection {
  const found = inspections.get(key);
  if (!found) throw new Error(`no analysis for ${key}`);
  return found;
}

/**
 * One counter per tokenizer for the worker's life: its cache of counted texts (bounded) carries over
 * from one analysis of a growing file to the next, and to the lineages opened from it, so a refresh
 * tokenises only what is new.
 */
const counters = new Map<TokenizerName, TokenCounter>();

/** Tells the host how far the analysis under `key` is (EngineProgress). */
function postProgress(key: string, step: ProgressStep, done: number, total: number): void {
  const progress: EngineProgress = { type: 'progress', key, step, done, total };
  parentPort?.postMessage(progress);
}

function optionsFor({ key, profile, tokenizer, prices }: Analysed['params'], told = true): AnalyzeOptions {
  let counter = counters.get(tokenizer);
  if (!counter) {
    counter = createTokenCounter(tokenizer);
    counters.set(tokenizer, counter);
  }
  return {
    profile: PROFILES[profile],
    counter,
    messages: false,
    ...(prices ? { prices } : {}),
    ...(told ? { progress: (what, done, total) => postProgress(key, what, done, total) } : {}),
  } satisfies AnalyzeOptions;
}

/** The view of a refreshed analysis: a resumed one keeps the views of the turns it kept from `earlier`. */
function refresh(
  live: LiveAnalysis,
  fresh: Transcript,
  title: string,
  earlier: Inspection | undefined,
  reading: ReadMemory | null = null,
  path?: string,
): { inspection: Inspection; how: Refreshed } {
  const { analysis, how } = live.refresh(fresh, reading, path === undefined ? null : logsReadOn(live, path, fresh.format));
  return { inspection: new Inspection(analysis, title, how.kind === 'resumed' ? earlier : undefined), how };
}

/**
 * The agent's logs beside the file (docs/billing.md), each read on from where the last read
 * stopped, and the cache lifetime its home's config asks for; null without either.
 */
function logsReadOn(live: LiveAnalysis, path: string, format: string): BillReads | null {
  const paths = agentLogsBeside(path, format);
  const cacheTtl = cacheTtlBeside(path, format);
  return paths.length || cacheTtl ? { logs: paths.length ? readAgentLogs(paths, { earlier: live.logReading }) : [], cacheTtl } : null;
}

/** The finding of a `fill` whose families could not be read (the file went, or is no SQLite database now): their rows stay unread. */
function unreadFamilies(path: string, roots: readonly string[]): Diagnostic {
  const n = roots.length;
  return {
    severity: 'error',
    code: 'parse-error',
    turn: null,
    request: null,
    message: `${path}: could not be read again for the figures of ${n === 1 ? 'lineage' : `${n} lineages, the first`} ${roots[0]} (no longer a readable SQLite database); ${n === 1 ? 'its row says' : 'their rows say'} "not read"`,
  };
}

/** Whether two analyse calls read the same thing the same way (only the file may have changed). */
function sameRead(a: Analysed['params'], b: Analysed['params']): boolean {
  return (
    a.path === b.path
    && a.profile === b.profile
    && a.tokenizer === b.tokenizer
    && a.session === b.session
    && a.readWholeLimit === b.readWholeLimit
    && JSON.stringify(a.prices ?? {}) === JSON.stringify(b.prices ?? {})
  );
}

/**
 * One lineage of an analysed file: narrowed from the file's transcript when every session of it
 * was read, else (a state.db only listed, or read for another session) loaded alone from the file.
 */
async function lineageTranscript({ params, lineages }: Analysed, lineage: string): Promise<Transcript> {
  const { transcript } = lineages;
  const members = lineages.members(lineage);
  // A lineage is named by its first session: any other id is no row of the overview.
  if (members[0] !== lineage) throw new Error(`no lineage ${lineage} in ${params.title}`);
  const loaded = new Set(transcript.sessions.map((s) => s.id));
  if (!transcript.listedOnly && members.every((m) => loaded.has(m))) return lineages.narrow(members);
  return loadTranscript(params.path, { lineage, readWholeLimit: params.readWholeLimit });
}

/** The analysis held, billed again from its logs read on: for a file that did not change. */
function rebill(live: LiveAnalysis, title: string, earlier: Inspection, path: string): { inspection: Inspection; how: Refreshed } | null {
  const transcript = live.transcript;
  if (!transcript) return null;
  const billed = live.rebill(logsReadOn(live, path, transcript.format));
  return billed && { inspection: new Inspection(billed.analysis, title, earlier), how: billed.how };
}

/** Keeps the analysis under the host's key and answers `analyze`. */
function answerOf(
  params: Analysed['params'],
  live: LiveAnalysis,
  inspection: Inspection,
  how: Refreshed,
  signature: string,
  opened: Analysed['opened'],
  recorded: RecordedReport | null = null,
): EngineCalls['analyze']['result'] {
  const { analysis } = inspection;
  inspections.set(params.key, inspection);
  const lineages = new TranscriptLineages(analysis.transcript);
  files.set(params.key, { params, live, inspection, opened, signature, lineages });
  return {
    index: inspection.index,
    overview: overviewToOpenOn(analysis.transcript, analysis.report, lineages),
    diagnostics: recorded ? recordedDiagnostics(recorded) : analysis.report.diagnostics,
    catalog: analysis.transcript.catalog ?? null,
    listedOnly: analysis.transcript.listedOnly === true,
    resumed: how.kind === 'resumed' ? { turns: how.turns, requests: how.requests, reported: how.reported } : null,
    recomputed: how.kind === 'recomputed' ? { sessions: how.sessions, of: how.of } : null,
    recorded,
  };
}

/**
 * Another agent's transcript (docs/recorded.md) is read as recorded, never as Hermes' (which would
 * parse every line only to call it not-a-transcript): its report, its findings, and the index of an
 * empty transcript under its key, so the host's page calls still answer.
 */
function analyzeRecorded(params: Analysed['params'], kind: RecordedKind): EngineCalls['analyze']['result'] {
  const transcript = loadRecorded(params.path, kind);
  const options = optionsFor(params);
  const recorded = transcript && recordedReport(transcript, params.prices, options.counter);
  const live = new LiveAnalysis(options);
  const empty: Transcript = { path: params.path, format: 'hermes-session-json', sessions: [], captured: [], findings: [] };
  const { inspection, how } = refresh(live, empty, params.title, undefined);
  return answerOf(params, live, inspection, how, fileSignature(params.path), undefined, recorded);
}

const answer = serve<EngineCalls>({
  analyze: async (params) => {
    const recordedKind = recordedKindAt(params.path);
    if (recordedKind) return analyzeRecorded(params, recordedKind);
    // The host asks again under the same key when the file changed.
    const found = files.get(params.key);
    const earlier = found && sameRead(found.params, params) ? found : undefined;
    const live = earlier?.live ?? new LiveAnalysis(optionsFor(params));
    const signature = fileSignature(params.path);
    // Only the logs beside it changed (the host watches both): the file is not read again.
    const rebilled = earlier?.signature === signature ? rebill(live, params.title, earlier.inspection, params.path) : null;
    if (rebilled) return answerOf(params, live, rebilled.inspection, rebilled.how, signature, earlier?.opened);
    postProgress(params.key, 'read', 0, 1);
    let { transcript, memory } = await loadRemembering(params.path, { session: params.session, readWholeLimit: params.readWholeLimit, earlier: live.reading });
    // A state.db only listed whose sessions are one lineage has no overview to choose from: that lineage loads.
    const roots = transcript.listedOnly ? [...new TranscriptLineages(transcript).listed.chains.keys()] : [];
    if (roots.length === 1) {
      transcript = await loadTranscript(params.path, { lineage: roots[0], readWholeLimit: params.readWholeLimit });
      memory = null;
    }
    const { inspection, how } = refresh(live, transcript, params.title, earlier?.inspection, memory, params.path);
    return answerOf(params, live, inspection, how, signature, earlier?.opened);
  },
  list: (params) => {
    const signature = fileSignature(params.path);
    const table: SessionTableMemory = {};
    const transcript = params.session === undefined ? listStateDb(params.path, table) : null;
    if (!transcript) return null;
    const live = new LiveAnalysis(optionsFor(params));
    const { inspection, how } = refresh(live, transcript, params.title, undefined);
    const listed = answerOf(params, live, inspection, how, signature, undefined);
    const file = files.get(params.key);
    if (file && table.kept) file.sessionTable = { signature, table: table.kept };
    if (listed.overview) return listed;
    inspections.delete(params.key);
    files.delete(params.key);
    return null;
  },
  fill: ({ key, lineages: roots }) => {
    const file = files.get(key);
    if (!file) throw new Error(`no analysis for ${key}`);
    const { path } = file.params;
    const signature = fileSignature(path);
    const table: SessionTableMemory = file.sessionTable?.signature === signature ? { earlier: file.sessionTable.table } : {};
    const families = loadFamilies(path, roots, table);
    file.sessionTable = table.kept && { signature, table: table.kept };
    if (!families) return { rows: [], diagnostics: [unreadFamilies(path, roots)] };
    // Only these families' figures are asked for, not their progress.
    const live = (file.filling ??= new LiveAnalysis(optionsFor(file.params, false)));
    const { analysis } = live.refresh(families, null, logsReadOn(live, path, families.format));
    const wanted = new Set(roots);
    // The overview of these families alone: the catalogue names every session of the file, whose
    // rows would be built, one call after another, only to be dropped.
    const read = new Set(analysis.transcript.sessions.map((s) => s.id));
    const alone = { ...analysis.transcript, catalog: analysis.transcript.catalog?.filter((c) => read.has(c.id)) };
    return {
      rows: sessionOverview(alone, analysis.report).lineages.filter((l) => wanted.has(l.id)),
      // Those of a turn or request name its number in this analysis, which no view pages through (a
      // row counts its breaks; its lineage opened lists them); the one that sums over every session
      // read would say, each call, a part of the file.
      diagnostics: analysis.report.diagnostics.filter((d) => d.turn === null && d.request === null && d.code !== 'counters-not-recorded'),
    };
  },
  openLineage: async ({ key, lineage, scope }) => {
    const file = files.get(key);
    if (!file) throw new Error(`no analysis for ${key}`);
    const earlier = file.opened?.lineage === lineage ? file.opened : undefined;
    const live = earlier?.live ?? new LiveAnalysis(optionsFor(file.params));
    const { inspection } = refresh(live, await lineageTranscript(file, lineage), file.params.title, earlier?.inspection, null, file.params.path);
    file.opened = { lineage, live, inspection };
    inspections.set(scope, inspection);
    return inspection.index;
  },
  messages: ({ key, request, start, count }) => get(key).messages(request, start, count),
  page: ({ key, list, start, count }) => get(key).page(list, start, count),
  sessionTurns: ({ key, sessionId }) => get(key).sessionTurns(sessionId),
  breakContext: ({ key, request }) => get(key).breakContext(request),
  requestJson: ({ key, request }) => get(key).requestJson(request),
  drop: ({ key }) => {
    inspections.delete(key);
    files.delete(key);
    return null;
  },
  agentSessions: ({ folders }) => folders.map(({ agent, root }) => listAgentFolder(agent, root)),
  agentSessionRow: ({ file, prices }) => agentSessionRow(file, () => loadRecorded(file.path), prices),
});

parentPort?.on('message', (request: RpcRequest<EngineCalls>) => {
  void answer(request).then((response) => parentPort?.postMessage(response));
});
