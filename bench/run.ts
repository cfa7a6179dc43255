// npm run bench: every figure is measured in this one run, on inputs built here, and printed with
// their sizes (these machines are noisy, so compare ratios, not absolute times across runs).

import { performance } from 'node:perf_hooks';
import { analyze } from '../src/analysis/report';
import { createTokenCounter } from '../src/analysis/tokenizer';
import { PROFILES } from '../src/engine/profile';
import { readTranscript } from '../src/transcripts/read';
import { synthesizeLongSession, toSessionJson } from '../test/support/synthesize';
import { benchBilledLogs } from './billedLogs';
import { benchDeepLineages } from './deepLineages';
import { mb } from './figures';
import { benchHome } from './home';
import { benchHostResponsiveness } from './hostResponsiveness';
import { benchLiveRefresh } from './liveRefresh';
import { benchPerformance } from './perf';
import { benchTokenizers } from './tokenizers';
import { benchWebview } from './webview';

function benchAnalysis(turns: number): string[] {
  const text = toSessionJson(synthesizeLongSession(turns, 42));
  const bytes = new TextEncoder().encode(text);
  const t0 = performance.now();
  const transcript = readTranscript({ path: 'bench.json', bytes });
  const t1 = performance.now();
  const { report } = analyze(transcript, { profile: PROFILES['hermes-current'], counter: createTokenCounter('o200k_base'), messages: false });
  const t2 = performance.now();
  const json = JSON.stringify(report);
  const sent = report.requests.reduce((s, r) => s + r.inputTokens, 0);
  return [
    `analysis of a generated ${turns}-turn session JSON (${mb(bytes.length)}, ${report.turns.length} turns, ${report.requests.length} requests, ${sent.toLocaleString('en')} tokens sent in all):`,
    `  read ${(t1 - t0).toFixed(0)} ms, replay + tokens + prefix ${(t2 - t1).toFixed(0)} ms, total ${(t2 - t0).toFixed(0)} ms; --json report ${mb(json.length)}`,
  ];
}

async function main(): Promise<void> {
  for (const line of await benchTokenizers()) console.log(line);
  console.log('');
  for (const line of benchAnalysis(1000)) console.log(line);
  console.log('');
  for (const line of await benchPerformance()) console.log(line);
  console.log('');
  for (const line of await benchHome()) console.log(line);
  console.log('');
  for (const line of benchDeepLineages()) console.log(line);
  console.log('');
  for (const line of await benchLiveRefresh()) console.log(line);
  console.log('');
  for (const line of await benchBilledLogs()) console.log(line);
  console.log('');
  for (const line of await benchHostResponsiveness()) console.log(line);
  console.log('');
  for (const line of await benchWebview()) console.log(line);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
