// The analysis worker (bundled as dist/engine.js): reads transcripts, replays them and answers
// page requests, off the extension host's thread. Loaded on the first analysis, so activation
// never parses the engine or the tokenizer's rank tables.

import { parentPort } from 'node:worker_threads';
import { Inspection } from '../protocol/inspection';
import { analyze, extendAnalysis, reanalyzeChanged } from '../analysis/report';
import { graftGrowth, keepUnchanged, transcriptGrowth } from '../engine/transcriptGrowth';
import { createTokenCounter, type TokenCounter, type TokenizerName } from '../analysis/tokenizer';
import { PROFILES } from '../engine/profile';
import { loadTranscript } from '../transcripts/load';
import { serve, type RpcRequest } from '../protocol/rpc';
import type { Transcript } from '../model/transcript';
import { lineageMembers, Lineages, listedSessions, narrowToLineage } from '../hermes/lineage';
import { overviewToOpenOn } from '../analysis/sessionOverview';
import type { EngineCalls, Recomputed, Resumed } from './engineProtocol';

/** A transcript as last read, and its analysis. */
interface Read {
  transcript: Transcript;
  inspection: Inspection;
  /** The turns and requests an earlier analysis was resumed with (rows appended); null when made whole. */
  resumed: Resumed | null;
  /** After a rewrite, the sessions replayed (the unchanged families kept); null when made whole. */
  recomputed: Recomputed | null;
}

/** A file's analysis, and the lineage last opened from it (kept to be extended when the file grows). */
interface Analysed extends Read {
  params: EngineCalls['analyze']['params'];
  opened?: Read & { lineage: string };
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

function counterFor(tokenizer: TokenizerName): TokenCounter {
  let counter = counters.get(tokenizer);
  if (!counter) {
    counter = createTokenCounter(tokenizer);
    counters.set(tokenizer, counter);
  }
  return counter;
}

function inspect(transcript: Transcript, { profile, tokenizer, title }: Analysed['params']): Inspection {
  return new Inspection(analyze(transcript, { profile: PROFILES[profile], counter: counterFor(tokenizer), messages: false }), title);
}

/**
 * A transcript read again: when the fresh read only appends rows to the earlier one's lists, they
 * are grafted onto the earlier objects and the analysis resumed where it stopped (every other
 * lineage's turns, tokens and views kept); otherwise only the families of sessions that changed
 * are replayed (a compaction or an /undo in one lineage), or, with none unchanged, all.
 */
function readAgain(earlier: Read | undefined, fresh: Transcript, params: Analysed['params']): Read {
  const growth = earlier && transcriptGrowth(earlier.transcript, fresh);
  if (!earlier || !growth) {
    const kept = earlier && keepUnchanged(earlier.transcript, fresh);
    const again = earlier && kept?.size ? reanalyzeChanged(earlier.inspection.analysis, fresh, kept) : null;
    if (!again) return { transcript: fresh, inspection: inspect(fresh, params), resumed: null, recomputed: null };
    const recomputed = { sessions: fresh.sessions.length - (kept?.size ?? 0), of: fresh.sessions.length };
    return { transcript: fresh, inspection: new Inspection(again, params.title), resumed: null, recomputed };
  }
  graftGrowth(earlier.transcript, fresh, growth);
  const extended = extendAnalysis(earlier.inspection.analysis, earlier.transcript);
  const inspection = extended ? new Inspection(extended, params.title, earlier.inspection) : inspect(earlier.transcript, params);
  const before = earlier.inspection.index;
  const after = inspection.index;
  const resumed = extended
    ? {
        turns: after.turnCount - before.turnCount,
        requests: after.requestCount - before.requestCount,
        reported: before.turnCount - (extended.kept?.turns ?? 0),
      }
    : null;
  return { transcript: earlier.transcript, inspection, resumed, recomputed: null };
}

/** Whether two analyse calls read the same thing the same way (only the file may have changed). */
function sameRead(a: Analysed['params'], b: Analysed['params']): boolean {
  return a.path === b.path && a.profile === b.profile && a.tokenizer === b.tokenizer && a.session === b.session && a.readWholeLimit === b.readWholeLimit;
}

/**
 * One lineage of an analysed file: narrowed from the file's transcript when every session of it
 * was read, else (a state.db only listed, or read for another session) loaded alone from the file.
 */
async function lineageTranscript({ params, transcript }: Read & Pick<Analysed, 'params'>, lineage: string): Promise<Transcript> {
  const members = lineageMembers(transcript, lineage);
  // A lineage is named by its first session: any other id is no row of the overview.
  if (members[0] !== lineage) throw new Error(`no lineage ${lineage} in ${params.title}`);
  const loaded = new Set(transcript.sessions.map((s) => s.id));
  if (!transcript.listedOnly && members.every((m) => loaded.has(m))) return narrowToLineage(transcript, members);
  return loadTranscript(params.path, { lineage, readWholeLimit: params.readWholeLimit });
}

const answer = serve<EngineCalls>({
  analyze: async (params) => {
    // The host asks again under the same key when the file changed.
    const found = files.get(params.key);
    const earlier = found && sameRead(found.params, params) ? found : undefined;
    let transcript = await loadTranscript(params.path, {
      session: params.session,
      readWholeLimit: params.readWholeLimit,
      earlier: earlier?.transcript,
      remember: true,
    });
    // A state.db only listed whose sessions are one lineage has no overview to choose from: that lineage loads.
    const roots = transcript.listedOnly ? [...new Lineages(listedSessions(transcript)).chains().keys()] : [];
    if (roots.length === 1) transcript = await loadTranscript(params.path, { lineage: roots[0], readWholeLimit: params.readWholeLimit });
    const read = readAgain(earlier, transcript, params);
    const { inspection } = read;
    transcript = read.transcript;
    inspections.set(params.key, inspection);
    files.set(params.key, { params, ...read, opened: earlier?.opened });
    return {
      index: inspection.index,
      overview: overviewToOpenOn(transcript, inspection.analysis.report),
      diagnostics: inspection.analysis.report.diagnostics,
      catalog: transcript.catalog ?? null,
      listedOnly: transcript.listedOnly === true,
      resumed: read.resumed,
      recomputed: read.recomputed,
    };
  },
  openLineage: async ({ key, lineage, scope }) => {
    const file = files.get(key);
    if (!file) throw new Error(`no analysis for ${key}`);
    const earlier = file.opened?.lineage === lineage ? file.opened : undefined;
    const read = readAgain(earlier, await lineageTranscript(file, lineage), file.params);
    file.opened = { lineage, ...read };
    inspections.set(scope, read.inspection);
    return read.inspection.index;
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
});

parentPort?.on('message', (request: RpcRequest<EngineCalls>) => {
  void answer(request).then((response) => parentPort?.postMessage(response));
});
