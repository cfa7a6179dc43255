// Child process of bench/homeFill.ts: a home's overview rows filled in through the shipped worker
// (ENGINE, dist/engine.js, a thread of this process) as the extension asks, timed from the open,
// with this process's peak RSS (the worker's heap is in it; the rest of the process is small).
//
//   fill ENGINE PATH        list, then `fill` from the top row in growing batches until every row is
//                           (a home above the read-whole limit, as the extension fills it)
//   fill-both ENGINE PATH   two workers list it and fill it together, then the second reads it whole
//                           (a home under the read-whole limit, as the extension opens it)

import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fillOverview } from '../src/extension/overviewFill';
import { withFilled } from '../src/shared/overviewColumns';
import { EngineClient } from '../src/worker/engineProtocol';

function peakRssKb(): number {
  return Number(/VmHWM:\s*(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
}

async function main(mode: string, engine: string, path: string): Promise<void> {
  const lister = new EngineClient(engine);
  const worker = new EngineClient(engine);
  const params = (key: string) => ({ key, path, title: 'state.db', profile: 'hermes-current', tokenizer: 'o200k_base' }) as const;
  try {
    const t0 = performance.now();
    const both = mode === 'fill-both';
    const ownListed = both ? worker.call('list', params('filling')) : null;
    const listed = await lister.call('list', params('listing'));
    if (!listed?.overview) throw new Error(`${path}: no overview listed`);
    const listedMs = performance.now() - t0;
    let overview = listed.overview;
    let firstMs = 0;
    let rows = 0;
    const filler = (engine: EngineClient, key: string) => async (lineages: string[]) => {
      overview = withFilled(overview, (await engine.call('fill', { key, lineages })).rows);
      firstMs ||= performance.now() - t0;
      return true;
    };
    await fillOverview({
      overview: () => overview,
      shownAs: () => null,
      fillers: [Promise.resolve(filler(lister, 'listing')), ...(ownListed ? [Promise.resolve(ownListed).then(() => filler(worker, 'filling'))] : [])],
      stillShown: () => true,
      cancelled: () => false,
      filledIn: (done) => (rows = done),
    });
    const allMs = performance.now() - t0;
    let wholeMs: number | null = null;
    if (both) {
      await worker.call('drop', { key: 'filling' });
      await worker.call('analyze', params('whole'));
      wholeMs = performance.now() - t0;
    }
    process.stdout.write(JSON.stringify({ listedMs, firstMs, allMs, rows, wholeMs, peakKb: peakRssKb() }));
  } finally {
    await Promise.all([lister.dispose(), worker.dispose()]);
  }
}

main(process.argv[2], process.argv[3], process.argv[4]).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
