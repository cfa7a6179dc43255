// Child process of bench/perf.ts: analyses one file as the extension's engine does
// (src/extension/engineWorker.ts) and prints its peak RSS. perf.ts bundles it with esbuild and runs
// it under plain node, as the shipped engine runs, so the figure holds no TypeScript loader and
// nothing the benchmark itself keeps alive.

import { analyze } from '../src/analysis/report';
import { createTokenCounter } from '../src/analysis/tokenizer';
import { PROFILES } from '../src/engine/profile';
import { loadTranscript } from '../src/transcripts/load';

async function main(path: string): Promise<void> {
  const counter = createTokenCounter('o200k_base');
  counter.count('load the encoding before the baseline');
  const baseKb = process.resourceUsage().maxRSS;
  const analysis = analyze(await loadTranscript(path), { profile: PROFILES['hermes-current'], counter, messages: false });
  const peakKb = process.resourceUsage().maxRSS;
  process.stdout.write(JSON.stringify({ baseKb, peakKb, requests: analysis.report.requests.length }));
}

main(process.argv[2]).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
