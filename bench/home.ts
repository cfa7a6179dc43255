// Issue 10's targets on real-sized Hermes homes, written by test/support/hermes_home.py (upstream's
// write paths and full schema on real SQLite): the overview of a 2,000-session ~300 MB home, one
// 500-turn lineage of it, its rows filled in while the ~124 MB home is read (issue 23 item 1,
// bench/homeFill.ts), and the standalone report of a 2,000-session ~124 MB home (issue 23):
// its size against its input, its peak memory, and in Chromium how soon its overview shows and a
// lineage opens; then a year of Hermes (issue 23): a 10,000-session ~600 MB home's first rows, and
// the CLI's sessions --json and report on it, with their peak memory.
// Run alone with `npx tsx bench/home.ts` (after `npm run build`); also part of `npm run bench`.
//
// A home takes minutes to write, so each is kept under os.tmpdir() by its parameters and a hash of
// the generator's two files: a later run reuses it (the generation time is printed either way,
// from when it was written). Timings come from fresh child processes (bench/homeChild.ts, bundled
// like the engine), median of three; peak RSS is the worst of the three.

import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childBundle, runChild } from './childBundle';
import { benchHomeFill, benchYearFill } from './homeFill';
import { benchHomeReport } from './homeReport';
import { cliRun } from './cliRun';
import { mb, median, verdict } from './figures';

const ROOT = join(__dirname, '..');
const HOME_PY = join(ROOT, 'test/support/hermes_home.py');
const STORE_PY = join(ROOT, 'test/support/hermes_store.py');

const ms = (t: number): string => `${t.toFixed(0)} ms`;
/** Home D's CLI runs are killed past this: the issue's 10,000-session report did not finish in 60 s. */
const YEAR_KILL_MS = 15 * 60_000;

interface HomeTruth {
  bytes: number;
  generationSeconds: number;
  sessions: { id: string }[];
  lineages: { id: string; sessions: string[]; turns: number }[];
  longestLineage: { id: string; turns: number; sessions: string[] };
}

interface Home {
  path: string;
  truth: HomeTruth;
  cached: boolean;
}

/** A generated home, reused from os.tmpdir() when these parameters and the generator are unchanged. */
export function home(sessions: number, seed: number, targetMb: number, longLineage: number): Home {
  const hash = createHash('sha256').update(readFileSync(HOME_PY)).update(readFileSync(STORE_PY)).digest('hex').slice(0, 12);
  const dir = join(tmpdir(), `prompt-inspector-bench-home-${sessions}-${seed}-${targetMb}-${longLineage}-${hash}`);
  const truthPath = join(dir, 'truth.json');
  if (existsSync(truthPath) && existsSync(join(dir, 'state.db'))) {
    return { path: join(dir, 'state.db'), truth: JSON.parse(readFileSync(truthPath, 'utf8')) as HomeTruth, cached: true };
  }
  const work = mkdtempSync(`${dir}.partial-`);
  const args = [HOME_PY, work, '--sessions', String(sessions), '--seed', String(seed), '--target-mb', String(targetMb), '--long-lineage', String(longLineage)];
  const r = spawnSync('python3', args, { encoding: 'utf8', maxBuffer: 256 << 20 });
  if (r.status !== 0) throw new Error(`hermes_home.py exited ${r.status}: ${r.stderr}`);
  writeFileSync(join(work, 'truth.json'), r.stdout);
  rmSync(dir, { recursive: true, force: true });
  renameSync(work, dir);
  return { path: join(dir, 'state.db'), truth: JSON.parse(r.stdout) as HomeTruth, cached: false };
}

function describe(h: Home, what: string): string {
  const t = h.truth;
  return (
    `  ${what}: ${t.sessions.length.toLocaleString('en')} sessions, ${t.lineages.length.toLocaleString('en')} lineages, ${mb(statSync(h.path).size)}; `
    + `generated in ${t.generationSeconds.toFixed(0)} s by hermes_home.py${h.cached ? ' (an earlier run; reused from the cache)' : ''}`
  );
}

interface ChildResult {
  ms: number;
  loadedMs: number;
  baseKb: number;
  peakKb: number;
  listedOnly: boolean;
  sessions: number;
  loadedSessions: number;
  lineages: number;
  turns: number;
  requests: number;
}

/** Three fresh children: the median time, the worst peak. */
function measure(bundle: string, ...args: string[]): { time: number; loaded: number; peak: number; last: ChildResult } {
  const runs = [0, 1, 2].map(() => runChild<ChildResult>(bundle, ...args));
  return {
    time: median(runs.map((r) => r.ms)),
    loaded: median(runs.map((r) => r.loadedMs)),
    peak: Math.max(...runs.map((r) => r.peakKb)) * 1024,
    last: runs[runs.length - 1],
  };
}

export async function benchHome(): Promise<string[]> {
  const lines: string[] = ['Hermes homes (issue 10), written by test/support/hermes_home.py on real SQLite, upstream full schema:'];
  const dir = mkdtempSync(join(tmpdir(), 'bench-home-'));
  try {
    const bundle = await childBundle(dir, 'homeChild');

    // (a) + (b): a 2,000-session ~300 MB home with one 500-turn compression chain
    const big = home(2000, 1, 300, 500);
    lines.push(describe(big, 'home A'));
    const o = measure(bundle, 'overview', big.path);
    lines.push(
      `  overview first data of home A (the default 256 MB read-whole limit: ${o.last.listedOnly ? 'listed only' : 'read whole'}, `
        + `${o.last.sessions.toLocaleString('en')} sessions, ${o.last.lineages.toLocaleString('en')} lineages with forks): open -> session list ${ms(o.loaded)}, `
        + `-> overview computed ${ms(o.time)} (median of 3 fresh processes) [target <= 1000 ms: ${verdict(o.time <= 1000)}]`,
      `    peak RSS (VmHWM, worst of 3): ${mb(o.peak)} [target <= 300 MB: ${verdict(o.peak <= 300e6)}]`,
    );
    if (o.last.lineages !== big.truth.lineages.length) lines.push(`    (the overview has ${o.last.lineages} lineages, the truth ${big.truth.lineages.length})`);
    const long = big.truth.longestLineage;
    for (const mode of ['lineage', 'session', 'warm-lineage'] as const) {
      const id = mode === 'session' ? long.sessions[long.sessions.length - 1] : long.id;
      const l = measure(bundle, mode, big.path, id);
      const how = {
        lineage: `{ lineage: first session } (the worker opening an overview row)`,
        session: `{ session: last session } (the CLI's --session)`,
        'warm-lineage': `{ lineage: first session }, the tokenizer's vocabulary already loaded`,
      }[mode];
      lines.push(
        `  one ${long.turns}-turn lineage of home A (${long.sessions.length} sessions), loadTranscript ${how} + analyze: `
          + `${ms(l.time)} (read ${ms(l.loaded)}; ${l.last.turns} turns, ${l.last.requests.toLocaleString('en')} requests replayed; peak RSS ${mb(l.peak)}) `
          + `[target <= 500 ms: ${verdict(l.time <= 500)}]`,
      );
    }

    // (c): the standalone report of a 2,000-session ~124 MB home, read whole (issue 23 item 5)
    const c = home(2000, 2, 124, 0);
    lines.push(describe(c, 'home C'));
    // The extension's first rows of a home under the read-whole limit (issue 23 item 1): listed from its session table.
    const listed = measure(bundle, 'listed', c.path);
    lines.push(
      `  overview first rows of home C (read whole by the extension, listed first: ${listed.last.lineages.toLocaleString('en')} lineages with forks, none read): `
        + `${ms(listed.time)} (median of 3 fresh processes) [target <= 1000 ms: ${verdict(listed.time <= 1000)}]; peak RSS ${mb(listed.peak)}`,
      ...(await benchHomeFill(c.path, dir)),
      ...(await benchHomeReport(c.path, dir)),
    );

    // (d): a year of Hermes on one machine (issue 23): 10,000 sessions, ~600 MB, over the read-whole limit
    const year = home(10000, 3, 600, 0);
    lines.push(describe(year, 'home D'));
    const d = measure(bundle, 'overview', year.path);
    lines.push(
      `  overview first rows of home D (${d.last.listedOnly ? 'listed only: over the read-whole limit' : 'read whole'}, ${d.last.lineages.toLocaleString('en')} lineages with forks): `
        + `${ms(d.time)} (median of 3 fresh processes) [target <= 1000 ms: ${verdict(d.time <= 1000)}]; peak RSS ${mb(d.peak)} [target <= 600 MB: ${verdict(d.peak <= 600e6)}]`,
    );
    lines.push(await benchYearFill(year.path, dir));
    const sessions = cliRun(dir, ['sessions', year.path, '--json'], YEAR_KILL_MS);
    lines.push(
      `  \`prompt-inspector sessions FILE --json\` on home D: ${sessions.ok ? `${(sessions.ms / 1000).toFixed(1)} s` : sessions.note}, `
        + `peak RSS ${sessions.peak === null ? 'not read' : mb(sessions.peak)} [target <= 600 MB: ${verdict(sessions.ok && sessions.peak !== null && sessions.peak <= 600e6)}]`,
    );
    const report = cliRun(dir, ['report', year.path, '-o', join(dir, 'home-d.html')], YEAR_KILL_MS);
    lines.push(
      `  \`prompt-inspector report FILE -o out.html\` on home D: ${report.ok ? `finished in ${(report.ms / 1000).toFixed(1)} s, ${mb(statSync(join(dir, 'home-d.html')).size)}` : report.note}, `
        + `peak RSS ${report.peak === null ? 'not read' : mb(report.peak)} [target: finishes: ${verdict(report.ok)}]`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return lines;
}

if (require.main === module) {
  mkdirSync(tmpdir(), { recursive: true });
  benchHome()
    .then((lines) => {
      for (const line of lines) console.log(line);
    })
    .catch((e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    });
}
