// Growing a transcript for the resume tests: a transcript cut short as a live agent leaves it, the
// view a resumed analysis must equal, and every transcript the corpus holds.

import { readdirSync, statSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { analyze, analyzeResumable, extendAnalysis, type Analysis, type ResumableAnalysis } from '../../src/analysis/report';
import { createTokenCounter } from '../../src/analysis/tokenizer';
import { PROFILES } from '../../src/engine/profile';
import { graftGrowth, transcriptGrowth } from '../../src/engine/transcriptGrowth';
import type { ProfileName } from '../../src/shared/settingNames';
import type { Generation, Transcript } from '../../src/shared/model/transcript';
import { Inspection } from '../../src/protocol/inspection';
import { loadTranscript } from '../../src/transcripts/load';
import { unansweredAsk } from '../../src/hermes/snapshot';
import { synthesizeLongRun, toSessionJson, toTurnTraceJsonl } from './synthesize';
import { buildStore, scenarioNames } from './upstreamStores';

const ROOT = join(__dirname, '..', '..');
const counter = createTokenCounter('o200k_base');

/** The transcripts under `dir` (.json, .jsonl, .db), every level. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return filesUnder(path);
    return /\.(json|jsonl|db)$/.test(name) ? [path] : [];
  });
}

/** The transcript with the last list of each chosen session cut to `keep` of its rows. */
export function cut(full: Transcript, keep: (gen: Generation, session: number) => number): Transcript {
  const t = structuredClone(full);
  t.sessions.forEach((s, k) => {
    const gen = s.generations[s.generations.length - 1];
    if (!gen) return;
    const n = Math.min(gen.rows.length, keep(gen, k));
    gen.rows.length = n;
    gen.pos.length = n;
    if (gen.turnInputs) for (const key of [...gen.turnInputs.keys()]) if (key >= n) gen.turnInputs.delete(key);
    if (gen.trailingRequest && n < full.sessions[k].generations[s.generations.length - 1].rows.length) gen.trailingRequest = false;
    if (gen.failedAt) gen.failedAt = gen.failedAt.filter((f) => f <= n);
    // A snapshot cut short may end on an ask, as the file written at that moment did.
    if (t.format === 'hermes-session-json') {
      const ask = unansweredAsk(gen.rows, gen.carried ?? 0);
      if (ask === undefined) delete gen.unansweredAsk;
      else gen.unansweredAsk = ask;
    }
    const copies = gen.compaction?.copies;
    if (copies && gen.compaction) gen.compaction.copies = { source: copies.source.slice(0, n), relation: copies.relation.slice(0, n) };
  });
  return t;
}

/** An analysis as the view gets it (the report, and the inspection's index and pages), as JSON to compare. */
export function viewOf(a: Analysis, earlier?: Inspection): { inspection: Inspection; json: string } {
  const inspection = new Inspection(a, 'title', earlier);
  const json = JSON.stringify({
    report: a.report,
    index: inspection.index,
    turns: inspection.turns,
    requests: inspection.requests,
    findings: inspection.findings,
  });
  return { inspection, json };
}

/** Every example, fixture and upstream-written store, with a synthesized long run as a snapshot and a trace. */
export async function resumeCorpus(): Promise<{ label: string; transcript: Transcript }[]> {
  const dir = mkdtempSync(join(tmpdir(), 'pi-resume-'));
  const run = synthesizeLongRun(60, 11);
  const json = join(dir, `session_${run.session.id}.json`);
  writeFileSync(json, toSessionJson(run.session));
  const trace = join(dir, 'run.trace.jsonl');
  writeFileSync(trace, toTurnTraceJsonl(run.trace));
  // Stores written the way upstream's storage code writes them, every scenario (hermes_store.py).
  const upstream = scenarioNames().flatMap((name) => filesUnder(buildStore(name).dir));
  const paths = [...filesUnder(join(ROOT, 'examples')), ...filesUnder(join(ROOT, 'test', 'fixtures')), ...upstream, json, trace];
  const out: { label: string; transcript: Transcript }[] = [];
  for (const path of paths) {
    try {
      out.push({ label: path.startsWith(ROOT) ? path.slice(ROOT.length + 1) : path, transcript: await loadTranscript(path) });
    } catch {
      // A fixture refused whole (not a transcript at all) has nothing to grow.
    }
  }
  return out;
}

export interface Tally {
  steps: number;
  extended: number;
}

/** Grows `full` from `steps[0]` through each later state, checking every step against a whole analysis. */
export function grow(states: Transcript[], profile: ProfileName, tally: Tally, label: string): void {
  const opts = { profile: PROFILES[profile], counter, messages: false };
  let held = structuredClone(states[0]);
  let analysis = analyzeResumable(held, opts);
  let view = viewOf(analysis.analysis);
  for (const state of states.slice(1)) {
    tally.steps++;
    const fresh = structuredClone(state);
    const growth = transcriptGrowth(held, fresh);
    let next: ResumableAnalysis | null = null;
    if (growth) {
      graftGrowth(held, fresh, growth);
      next = extendAnalysis(analysis, held);
    }
    if (next) tally.extended++;
    else held = fresh;
    analysis = next ?? analyzeResumable(held, opts);
    view = viewOf(analysis.analysis, next ? view.inspection : undefined);
    const whole = viewOf(analyze(structuredClone(state), opts));
    if (view.json !== whole.json) {
      let k = 0;
      while (view.json[k] === whole.json[k]) k++;
      assert.fail(
        `${label}: the extended analysis differs from the whole one at ${k}: ${view.json.slice(k - 200, k + 100)} / ${whole.json.slice(k - 200, k + 100)}`,
      );
    }
  }
}
