// Child process of bench/home.ts: one step of opening a Hermes home as the extension's engine
// worker does (src/worker/engineWorker.ts), timed from the file being opened, with its peak RSS.
// home.ts bundles it with esbuild and runs it under plain node, a fresh process per measurement, so
// nothing is warm that the worker would not have warm on a first open.
//
//   overview PATH      loadTranscript with the default read-whole limit (256 MB: a larger state.db is
//                      only listed), analyze, the Inspection the worker keeps, then the session overview
//   listed PATH        as overview, from listStateDb (the session table alone): what the extension
//                      shows of a large home under the limit while it reads the whole file
//   lineage PATH ID    loadTranscript(PATH, { lineage: ID }) as the worker opens an overview row, then analyze
//   session PATH ID    loadTranscript(PATH, { session: ID }) (the CLI's --session), then analyze
//   warm-lineage PATH ID   as lineage, in a process whose tokenizer already loaded its vocabulary
//                      (a worker that counted before): what the vocabulary's first load costs

import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { performance } from 'node:perf_hooks';
import { analyze } from '../src/analysis/report';
import { sessionOverview } from '../src/analysis/sessionOverview';
import { createTokenCounter } from '../src/analysis/tokenizer';
import { PROFILES } from '../src/engine/profile';
import { Inspection } from '../src/protocol/inspection';
import { listStateDb, loadTranscript } from '../src/transcripts/load';

/** Peak RSS in KB of this process image (VmHWM; see bench/memoryChild.ts for why not maxRSS). */
function peakRssKb(): number {
  return Number(/VmHWM:\s*(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
}

/** Every lineage of the overview, forks included. */
function countLineages(lineages: readonly { children: readonly unknown[] }[]): number {
  return lineages.reduce((n, l) => n + 1 + countLineages(l.children as { children: unknown[] }[]), 0);
}

async function main(mode: string, path: string, id: string | undefined): Promise<void> {
  if (mode === 'warm-lineage') {
    createTokenCounter('o200k_base').count('load the vocabulary before the clock starts');
    mode = 'lineage';
  }
  const baseKb = peakRssKb();
  const t0 = performance.now();
  const transcript =
    mode === 'listed'
      ? listStateDb(path)
      : mode === 'overview'
        ? await loadTranscript(path)
        : await loadTranscript(path, mode === 'lineage' ? { lineage: id } : { session: id });
  if (!transcript) throw new Error(`${path}: nothing listed`);
  const loadedMs = performance.now() - t0;
  const analysis = analyze(transcript, { profile: PROFILES['hermes-current'], counter: createTokenCounter('o200k_base'), messages: false });
  let lineages = 0;
  if (mode === 'overview' || mode === 'listed') {
    new Inspection(analysis, basename(path));
    lineages = countLineages(sessionOverview(transcript, analysis.report).lineages);
  }
  const ms = performance.now() - t0;
  process.stdout.write(
    JSON.stringify({
      ms,
      loadedMs,
      baseKb,
      peakKb: peakRssKb(),
      listedOnly: transcript.listedOnly === true,
      sessions: (transcript.catalog ?? transcript.sessions).length,
      loadedSessions: transcript.sessions.length,
      lineages,
      turns: analysis.report.turns.length,
      requests: analysis.report.requests.length,
    }),
  );
}

main(process.argv[2], process.argv[3], process.argv[4]).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
