// Issue 23 item 5: a home's standalone report that a browser opens. The report of a 2,000-session
// home read whole: its size against its input (target <= 0.3x), the CLI's peak memory, and in
// Debian's Chromium the time from loading the page to its overview's first row (<= 2 s) and from
// opening a lineage to its first turn (<= 1 s), median of three loads.

import { statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { launchChromium } from '../test/support/chromium';
import { cliRun } from './cliRun';
import { mb, median, verdict } from './figures';

const LOADS = 3;
/** The report of a home this size took ~15 s. */
const KILL_MS = 600_000;

/** In Chromium: load to the overview's first row, then a double click on it to the lineage's first turn. */
async function openInChromium(page: string): Promise<{ overviewMs: number; lineageMs: number; lineage: string }> {
  const browser = await launchChromium();
  try {
    const tab = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const t0 = performance.now();
    await tab.goto(pathToFileURL(page).href, { waitUntil: 'commit' });
    const row = tab.locator('session-overview [role=row][data-key^="l:"]').first();
    await row.waitFor({ state: 'visible', timeout: 60_000 });
    const overviewMs = performance.now() - t0;
    const lineage = ((await row.getAttribute('data-key')) ?? '').slice(2);
    const t1 = performance.now();
    await row.dblclick();
    await tab.locator('turn-stepper #turn-0').waitFor({ state: 'visible', timeout: 60_000 });
    return { overviewMs, lineageMs: performance.now() - t1, lineage };
  } finally {
    await browser.close();
  }
}

export async function benchHomeReport(input: string, dir: string): Promise<string[]> {
  const out = join(dir, 'home-report.html');
  const made = cliRun(dir, ['report', input, '-o', out], KILL_MS);
  if (!made.ok) return [`  report of home C: ${made.note} [target <= 0.3x: MISS]`];
  const inBytes = statSync(input).size;
  const size = statSync(out).size;
  const ratio = size / inBytes;
  const loads = [];
  for (let i = 0; i < LOADS; i++) loads.push(await openInChromium(out));
  const overview = median(loads.map((l) => l.overviewMs));
  const lineage = median(loads.map((l) => l.lineageMs));
  return [
    `  standalone report of home C (\`prompt-inspector report FILE -o out.html\`, ${(made.ms / 1000).toFixed(1)} s, peak RSS ${made.peak === null ? 'not read' : mb(made.peak)}): `
      + `${mb(size)} for a ${mb(inBytes)} input = ${ratio.toFixed(2)}x [target <= 0.3x: ${verdict(ratio <= 0.3)}]`,
    `    in Chromium (median of ${LOADS} loads): the overview's first row ${overview.toFixed(0)} ms after loading [target <= 2000 ms: ${verdict(overview <= 2000)}]; `
      + `lineage ${loads[0].lineage} (the first row) decompressed and its first turn shown ${lineage.toFixed(0)} ms after the double click [target <= 1000 ms: ${verdict(lineage <= 1000)}]`,
  ];
}
