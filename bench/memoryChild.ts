// Child process of bench/perf.ts: analyses one file and prints its peak RSS. perf.ts bundles it
// with esbuild and runs it under plain node, as the shipped engine runs, so the figure holds no
// TypeScript loader and nothing the benchmark itself keeps alive.

import { readFileSync } from 'node:fs';
import type { SqlJsStatic } from 'sql.js';
import { analyze } from '../src/analysis/report';
import { createTokenCounter } from '../src/analysis/tokenizer';
import { PROFILES } from '../src/engine/profile';
import { readTranscript, sniffFormat } from '../src/transcripts/read';

async function main(path: string): Promise<void> {
  const counter = createTokenCounter('o200k_base');
  counter.count('load the encoding before the baseline');
  const baseKb = process.resourceUsage().maxRSS;
  const bytes = readFileSync(path);
  // sql.js only for a database, loaded on demand as the host does (src/transcripts/load.ts).
  const SQL = sniffFormat(path, bytes) === 'hermes-state-db' ? await (require('sql.js') as () => Promise<SqlJsStatic>)() : null;
  const transcript = readTranscript({ path, bytes, sql: () => SQL as SqlJsStatic });
  const analysis = analyze(transcript, { profile: PROFILES['hermes-current'], counter, messages: false });
  const peakKb = process.resourceUsage().maxRSS;
  process.stdout.write(JSON.stringify({ baseKb, peakKb, requests: analysis.report.requests.length }));
}

main(process.argv[2]).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
