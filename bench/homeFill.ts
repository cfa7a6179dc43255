// Issue 23 item 1 on home C (2,000 sessions, 124 MB, under the read-whole limit): its listed rows
// filled in through the shipped worker as the extension asks (list, then `fill` in batches from the
// top row), alone and beside the whole analysis on the other worker as the extension runs them,
// against the whole analysis alone and the floor (read + parse every row + tokenise each distinct
// wire text once, bench/perf.ts). Run alone with `npx tsx bench/homeFill.ts STATE_DB` (after
// `npm run build`); part of bench/home.ts.

import { join } from 'node:path';
import { statSync } from 'node:fs';
import { EngineClient } from '../src/worker/engineProtocol';
import { batchSize, nextToFill, withFilled } from '../src/extension/overviewFill';
import { distinctWireTexts, floor, fullAnalysis, initSql, type Input } from './perf';
import { verdict } from './figures';

const ENGINE = join(__dirname, '..', 'dist', 'engine.js');
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

interface FillRun {
  listedMs: number;
  firstMs: number;
  allMs: number;
  rows: number;
  /** When the whole analysis beside it was in; null without one. */
  wholeMs: number | null;
}

/** A listing filled in from the top, as AnalysisCache.fillListing asks, with the whole analysis beside it or not; times from the open. */
async function fillRun(path: string, beside: boolean): Promise<FillRun> {
  const lister = new EngineClient(ENGINE);
  const worker = new EngineClient(ENGINE);
  const params = (key: string) => ({ key, path, title: 'state.db', profile: 'hermes-current', tokenizer: 'o200k_base' }) as const;
  try {
    const t0 = performance.now();
    let wholeMs: number | null = null;
    const whole = beside ? Promise.resolve(worker.call('analyze', params('whole'))).then(() => (wholeMs = performance.now() - t0)) : null;
    const listed = await lister.call('list', params('listing'));
    if (!listed?.overview) throw new Error(`${path}: no overview listed`);
    const listedMs = performance.now() - t0;
    let overview = listed.overview;
    let firstMs = 0;
    const asked = new Set<string>();
    for (let size = batchSize(0); ; size = batchSize(size)) {
      const lineages = nextToFill(overview, asked, null, size);
      if (!lineages.length) break;
      overview = withFilled(overview, await lister.call('fill', { key: 'listing', lineages }));
      for (const id of lineages) asked.add(id);
      firstMs ||= performance.now() - t0;
    }
    const allMs = performance.now() - t0;
    await whole;
    return { listedMs, firstMs, allMs, rows: asked.size, wholeMs };
  } finally {
    await Promise.all([lister.dispose(), worker.dispose()]);
  }
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

export async function benchHomeFill(path: string): Promise<string[]> {
  const alone = await fillRun(path, false);
  const beside = await fillRun(path, true);
  const whole = await wholeAlone(path);
  // The floor, in this process: what the whole analysis sends, each distinct text counted once.
  const input: Input = { turns: 0, format: 'db', path, bytes: statSync(path).size };
  const texts = [...distinctWireTexts(fullAnalysis(input))];
  const SQL = await initSql();
  const t0 = performance.now();
  floor(input, SQL, texts);
  const floorMs = performance.now() - t0;
  const ratio = beside.allMs / floorMs;
  return [
    `  home C's listed rows filled in through the shipped worker (issue 23 item 1; ${alone.rows.toLocaleString('en')} top-level rows, from the top, 8 then up to 128 a call): `
      + `listed ${alone.listedMs.toFixed(0)} ms after the open, the first 8 filled ${alone.firstMs.toFixed(0)} ms, all ${seconds(alone.allMs)}`,
    `    as the extension runs it, the whole analysis on the other worker: first 8 filled ${beside.firstMs.toFixed(0)} ms after the open (reported, no target), `
      + `all ${seconds(beside.allMs)}, the whole analysis ${seconds(beside.wholeMs ?? NaN)} (alone: ${seconds(whole)}); `
      + `floor ${seconds(floorMs)} (one run, ${texts.length.toLocaleString('en')} distinct wire texts): every figure filled in ${ratio.toFixed(2)}x the floor [target <= 1.5x: ${verdict(ratio <= 1.5)}]`,
  ];
}

if (require.main === module) {
  benchHomeFill(process.argv[2]).then(
    (lines) => console.log(lines.join('\n')),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
