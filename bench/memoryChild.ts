// Child process of bench/perf.ts: analyses one file as the extension's engine does
// (src/worker/engineWorker.ts) and prints its peak RSS. perf.ts bundles it with esbuild and runs
// it under plain node, as the shipped engine runs, so the figure holds no TypeScript loader and
// nothing the benchmark itself keeps alive.

import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { Inspection } from '../src/protocol/inspection';
import { analyze } from '../src/analysis/report';
import { createTokenCounter } from '../src/analysis/tokenizer';
import { PROFILES } from '../src/engine/profile';
import { loadTranscript } from '../src/transcripts/load';

/** Peak RSS in KB of this process image. Not process.resourceUsage().maxRSS: Linux carries that
 * over from the parent that forked this child (a fat bench parent made it read 200+ MB before the child loaded anything). */
function peakRssKb(): number {
  return Number(/VmHWM:\s*(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
}

async function main(path: string): Promise<void> {
  const counter = createTokenCounter('o200k_base');
  counter.count('load the encoding before the baseline');
  const baseKb = peakRssKb();
  const analysis = analyze(await loadTranscript(path), { profile: PROFILES['hermes-current'], counter, messages: false });
  // Then the worker builds the inspection it answers the view from.
  new Inspection(analysis, basename(path));
  const peakKb = peakRssKb();
  process.stdout.write(JSON.stringify({ baseKb, peakKb, requests: analysis.report.requests.length }));
}

main(process.argv[2]).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
