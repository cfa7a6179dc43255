// The analysis worker (bundled as dist/engine.js): reads transcripts, replays them and answers
// page requests, off the extension host's thread. Loaded on the first analysis, so activation
// never parses the engine or the tokenizer's rank tables.

import { parentPort } from 'node:worker_threads';
import { Inspection } from '../protocol/inspection';
import { analyze } from '../analysis/report';
import { createTokenCounter } from '../analysis/tokenizer';
import { PROFILES } from '../engine/profile';
import { loadTranscript } from '../transcripts/load';
import type { EngineCalls, EngineRequest, EngineResponse } from './engineProtocol';

const inspections = new Map<string, Inspection>();

function get(key: string): Inspection {
  const found = inspections.get(key);
  if (!found) throw new Error(`no analysis for ${key}`);
  return found;
}

async function handle(req: EngineRequest): Promise<unknown> {
  switch (req.op) {
    case 'analyze': {
      const p = req.params as EngineCalls['analyze']['params'];
      const transcript = await loadTranscript(p.path, { session: p.session, readWholeLimit: p.readWholeLimit });
      const analysis = analyze(transcript, { profile: PROFILES[p.profile], counter: createTokenCounter(p.tokenizer), messages: false });
      const inspection = new Inspection(analysis, p.title);
      inspections.set(p.key, inspection);
      return { index: inspection.index, diagnostics: analysis.report.diagnostics, catalog: transcript.catalog ?? null, listedOnly: transcript.listedOnly === true };
    }
    case 'messages': {
      const p = req.params as EngineCalls['messages']['params'];
      return get(p.key).messages(p.request, p.start, p.count);
    }
    case 'page': {
      const p = req.params as EngineCalls['page']['params'];
      return get(p.key).page(p.list, p.start, p.count);
    }
    case 'sessionTurns': {
      const p = req.params as EngineCalls['sessionTurns']['params'];
      return get(p.key).sessionTurns(p.sessionId);
    }
    case 'breakContext': {
      const p = req.params as EngineCalls['breakContext']['params'];
      return get(p.key).breakContext(p.request);
    }
    case 'requestJson': {
      const p = req.params as EngineCalls['requestJson']['params'];
      return get(p.key).requestJson(p.request);
    }
    case 'drop':
      inspections.delete((req.params as EngineCalls['drop']['params']).key);
      return null;
  }
  throw new Error(`unknown operation ${String(req.op)}`);
}

parentPort?.on('message', (req: EngineRequest) => {
  handle(req).then(
    (result) => parentPort?.postMessage({ id: req.id, result } satisfies EngineResponse),
    (e: unknown) => parentPort?.postMessage({ id: req.id, error: e instanceof Error ? e.message : String(e) } satisfies EngineResponse),
  );
});
