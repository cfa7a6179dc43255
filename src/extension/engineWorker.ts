// The analysis worker (bundled as dist/engine.js): reads transcripts, replays them and answers
// page requests, off the extension host's thread. Loaded on the first analysis, so activation
// never parses the engine or the tokenizer's rank tables.

import { parentPort } from 'node:worker_threads';
import { Inspection } from '../protocol/inspection';
import { analyze } from '../analysis/report';
import { createTokenCounter, type TokenCounter, type TokenizerName } from '../analysis/tokenizer';
import { PROFILES } from '../engine/profile';
import { loadTranscript } from '../transcripts/load';
import { serve, type RpcRequest } from '../protocol/rpc';
import type { Transcript } from '../model/transcript';
import { lineageMembers, Lineages, listedSessions, narrowToLineage } from '../hermes/lineage';
import { overviewToOpenOn } from '../analysis/sessionOverview';
import type { EngineCalls } from './engineProtocol';

/** A file's analysis and what its lineage scopes are analysed with. */
interface Analysed {
  params: EngineCalls['analyze']['params'];
  transcript: Transcript;
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
 * One lineage of an analysed file: narrowed from the file's transcript when every session of it
 * was read, else (a state.db only listed, or read for another session) loaded alone from the file.
 */
async function lineageTranscript({ params, transcript }: Analysed, lineage: string): Promise<Transcript> {
  const members = lineageMembers(transcript, lineage);
  // A lineage is named by its first session: any other id is no row of the overview.
  if (members[0] !== lineage) throw new Error(`no lineage ${lineage} in ${params.title}`);
  const loaded = new Set(transcript.sessions.map((s) => s.id));
  if (!transcript.listedOnly && members.every((m) => loaded.has(m))) return narrowToLineage(transcript, members);
  return loadTranscript(params.path, { lineage, readWholeLimit: params.readWholeLimit });
}

const answer = serve<EngineCalls>({
  analyze: async (params) => {
    let transcript = await loadTranscript(params.path, { session: params.session, readWholeLimit: params.readWholeLimit });
    // A state.db only listed whose sessions are one lineage has no overview to choose from: that lineage loads.
    const roots = transcript.listedOnly ? [...new Lineages(listedSessions(transcript)).chains().keys()] : [];
    if (roots.length === 1) transcript = await loadTranscript(params.path, { lineage: roots[0], readWholeLimit: params.readWholeLimit });
    const inspection = inspect(transcript, params);
    inspections.set(params.key, inspection);
    files.set(params.key, { params, transcript });
    return {
      index: inspection.index,
      overview: overviewToOpenOn(transcript, inspection.analysis.report),
      diagnostics: inspection.analysis.report.diagnostics,
      catalog: transcript.catalog ?? null,
      listedOnly: transcript.listedOnly === true,
    };
  },
  openLineage: async ({ key, lineage, scope }) => {
    const file = files.get(key);
    if (!file) throw new Error(`no analysis for ${key}`);
    const inspection = inspect(await lineageTranscript(file, lineage), file.params);
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
});

parentPort?.on('message', (request: RpcRequest<EngineCalls>) => {
  void answer(request).then((response) => parentPort?.postMessage(response));
});
