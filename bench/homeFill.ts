// Issue 23 items 1 and 3: a home's listed rows filled in through the shipped worker as the extension
// asks (list, then `fill` in batches from the top row), each run in a fresh process
// (bench/fillChild.ts) for its peak RSS. Home C (2,000 sessions, 124 MB, under the read-whole
// limit): by one worker alone, and as the extension runs it (two workers filling, then one reading
// it whole), against the whole analysis alone and the floor (read + parse every row + tokenise each distinct
// wire text once, bench/perf.ts). Home D (10,000 sessions, 600 MB, above it): filled whole, its
// peak. Run alone with `npx tsx bench/homeFill.ts STATE_DB` (after `npm run build`; home C's
// figures); part of bench/home.ts.

import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EngineClient } from '../src/worker/engineProtocol';
import { childBundle, runChild } from './childBundle';
import { distinctWireTexts, floor, fullAnalysis, initSql, type Input } from './perf';
import { mb, verdict } from './figures';

const ENGINE = join(__dirname, '..', 'dist', 'engine.js');
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

interface FillRun {
  listedMs: number;
  firstMs: number;
  allMs: number;
  rows: number;
  /** When the whole analysis after it was in; null without one. */
  wholeMs: number | null;
  peakKb: number;
}

/** A listing filled in from the top in a fresh process (bench/fillChild.ts), by one worker or by two then read whole; times from the open. */
function fillRun(bundle: string, path: string, both: boolean): FillRun {
  return runChild<FillRun>(bundle, both ? 'fill-both' : 'fill', ENGINE, path);
}

async function wholeAlone(path: string): Promise<number> {
  const worker = new EngineClient(ENGINE);
  try {
    const t0 = performance.now();
    await worker.call('analyze', { key: 'whole', path, title: 'state.db', profile: 'hermes-current', tokenizer: 'o200k_base' });
    return performance.now() - t0;
  } finally {
    await worker.dispose();
  }
}

export async function benchHomeFill(path: string, dir: string): Promise<string[]> {
  const bundle = await childBundle(dir, 'fillChild');
  const alone = fillRun(bundle, path, false);
  const both = fillRun(bundle, path, true);
  const whole = await wholeAlone(path);
  // The floor, in this process: what the whole analysis sends, each distinct text counted once.
  const input: Input = { turns: 0, format: 'db', path, bytes: statSync(path).size };
  const texts = [...distinctWireTexts(fullAnalysis(input))];
  const SQL = await initSql();
  const t0 = performance.now();
  floor(input, SQL, texts);
  const floorMs = performance.now() - t0;
  // Every figure shows when the filling is done: the whole read comes after it.
  const ratio = both.allMs / floorMs;
  return [
    `  home C's listed rows filled in through the shipped worker (issue 23 item 1; ${alone.rows.toLocaleString('en')} top-level rows, from the top, 8 then up to 32 a call): `
      + `listed ${alone.listedMs.toFixed(0)} ms after the open, the first 8 filled ${alone.firstMs.toFixed(0)} ms, all ${seconds(alone.allMs)}, peak RSS ${mb(alone.peakKb * 1024)}`,
    `    as the extension runs it, both workers filling, then one reading it whole: first 8 filled ${both.firstMs.toFixed(0)} ms after the open (reported, no target), `
      + `all ${seconds(both.allMs)}, the whole analysis in ${seconds(both.wholeMs ?? NaN)} (alone: ${seconds(whole)}), peak RSS ${mb(both.peakKb * 1024)}; `
      + `floor ${seconds(floorMs)} (one run, ${texts.length.toLocaleString('en')} distinct wire texts): every figure shown ${seconds(both.allMs)} after the open = ${ratio.toFixed(2)}x the floor [target <= 1.5x: ${verdict(ratio <= 1.5)}]`,
  ];
}

/** A home above the read-whole limit (home D) filled in whole, as the extension fills it, with the process's peak. */
export async function benchYearFill(path: string, dir: string): Promise<string> {
  const run = fillRun(await childBundle(dir, 'fillChild'), path, false);
  return (
    `  home D's listed rows filled in through the shipped worker (issue 23 items 1 and 3; ${run.rows.toLocaleString('en')} top-level rows): listed ${run.listedMs.toFixed(0)} ms after the open, `
    + `the first 8 filled ${run.firstMs.toFixed(0)} ms, all ${seconds(run.allMs)}; peak RSS of the process (the worker and a small host) ${mb(run.peakKb * 1024)} [target <= 600 MB: ${verdict(run.peakKb * 1024 <= 600e6)}]`
  );
}

if (require.main === module) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-fill-'));
  benchHomeFill(process.argv[2], dir).then(
    (lines) => {
      console.log(lines.join('\n'));
      rmSync(dir, { recursive: true, force: true });
    },
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
