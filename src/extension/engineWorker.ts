// The analysis worker (bundled as dist/engine.js): reads transcripts, replays them and answers
// page requests, off the extension host's thread. Loaded on the first analysis, so activation
// never parses the engine or the tokenizer's rank tables.

import { parentPort } from 'node:worker_threads';
import { Inspection } from '../protocol/inspection';
import { analyze } from '../analysis/report';
import { createTokenCounter } from '../analysis/tokenizer';
import { PROFILES } from '../engine/profile';
import { loadTranscript } from '../transcripts/load';
import { serve, type RpcRequest } from '../protocol/rpc';
import type { EngineCalls } from './engineProtocol';

const inspections = new Map<string, Inspection>();

function get(key: string): Inspection {
  const found = inspections.get(key);
  if (!found) throw new Error(`no analysis for ${key}`);
  return found;
}

const answer = serve<EngineCalls>({
  analyze: async ({ key, path, title, profile, tokenizer, session, readWholeLimit }) => {
    const transcript = await loadTranscript(path, { session, readWholeLimit });
    const analysis = analyze(transcript, { profile: PROFILES[profile], counter: createTokenCounter(tokenizer), messages: false });
    const inspection = new Inspection(analysis, title);
    inspections.set(key, inspection);
    return {
      index: inspection.index,
      diagnostics: analysis.report.diagnostics,
      catalog: transcript.catalog ?? null,
      listedOnly: transcript.listedOnly === true,
    };
  },
  messages: ({ key, request, start, count }) => get(key).messages(request, start, count),
  page: ({ key, list, start, count }) => get(key).page(list, start, count),
  sessionTurns: ({ key, sessionId }) => get(key).sessionTurns(sessionId),
  breakContext: ({ key, request }) => get(key).breakContext(request),
  requestJson: ({ key, request }) => get(key).requestJson(request),
  drop: ({ key }) => {
    inspections.delete(key);
    return null;
  },
});

parentPort?.on('message', (request: RpcRequest<EngineCalls>) => {
  void answer(request).then((response) => parentPort?.postMessage(response));
});
