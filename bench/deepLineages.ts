// Issue 19's targets for deep, cyclic and many lineages: `sessions`, `analyze` and `report` of the
// built CLI on a compaction chain 10,000 deep, a parent_session_id cycle through 4,000 sessions,
// 10,000 sessions each a branch of the one before, 50,000 sessions of their own and one session
// with 20,000 children (and, beside them, the same 20,000 continuing it by compaction), each within
// 10 s and 1 GB. The stores are written by test/support/lineageShapes.ts on real SQLite (a second
// each). Each command runs once in a fresh `node dist/cli.js` (killed at 60 s); its peak RSS is the
// process's VmHWM, read as it exits by a preloaded hook.
// Run alone with `npx tsx bench/deepLineages.ts` (after `npm run build`); also part of `npm run bench`.

import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { writeLineageShape, type LineageShape } from '../test/support/lineageShapes';
import { cliRun } from './cliRun';
import { mb, verdict } from './figures';

const LIMIT_MS = 10_000;
const LIMIT_BYTES = 1e9;
const KILL_MS = 60_000;

const SHAPES: { shape: LineageShape; n: number; what: string }[] = [
  { shape: 'chain', n: 10_000, what: 'one compaction chain 10,000 deep' },
  { shape: 'cycle', n: 4_000, what: 'a parent_session_id cycle through 4,000 sessions' },
  { shape: 'branches', n: 10_000, what: '10,000 sessions, each a branch of the one before' },
  { shape: 'flat', n: 50_000, what: '50,000 sessions of their own' },
  { shape: 'children', n: 20_001, what: 'one session with 20,000 children (each a lineage)' },
  { shape: 'compacted-children', n: 20_001, what: 'one session with 20,000 children continuing it (one lineage)' },
];

const seconds = (t: number): string => `${(t / 1000).toFixed(1)} s`;

export function benchDeepLineages(): string[] {
  const lines = [
    'Deep, cyclic and many lineages (issue 19), stores by test/support/lineageShapes.ts on real SQLite, each command once in a fresh `node dist/cli.js`:',
  ];
  const dir = mkdtempSync(join(tmpdir(), 'bench-deep-lineages-'));
  try {
    for (const { shape, n, what } of SHAPES) {
      const path = join(dir, `${shape}.db`);
      const t0 = performance.now();
      writeLineageShape(path, shape, n);
      const written = performance.now() - t0;
      const out = join(dir, `${shape}.html`);
      const runs = {
        sessions: cliRun(dir, ['sessions', path], KILL_MS),
        analyze: cliRun(dir, ['analyze', path], KILL_MS),
        report: cliRun(dir, ['report', path, '-o', out], KILL_MS),
      };
      const reportBytes = existsSync(out) ? statSync(out).size : 0;
      rmSync(out, { force: true });
      const within = Object.values(runs).every((r) => r.ok && r.ms <= LIMIT_MS && r.peak !== null && r.peak <= LIMIT_BYTES);
      lines.push(
        `  ${what} (${mb(statSync(path).size)}, written in ${seconds(written)}): `
          + Object.entries(runs)
            .map(([name, r]) => `${name} ${seconds(r.ms)}, ${r.peak === null ? 'peak not read' : mb(r.peak)}${r.note ? ` (${r.note})` : ''}`)
            .join('; ')
          + `; report ${mb(reportBytes)} [target <= 10 s and <= 1 GB each: ${verdict(within)}]`,
      );
      rmSync(path, { force: true });
    }
    lines.push(depthAgainstBreadth(dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return lines;
}

/** Depth costs no more than breadth (issue 23 item 6): `analyze` of a chain N deep against N sessions of their own, same rows. */
const DEPTH_N = 3_000;
const DEPTH_REPEATS = 3;
const DEPTH_TARGET = 2;

function depthAgainstBreadth(dir: string): string {
  const median = (shape: LineageShape): number => {
    const path = join(dir, `${shape}-${DEPTH_N}.db`);
    writeLineageShape(path, shape, DEPTH_N);
    const times = Array.from({ length: DEPTH_REPEATS }, () => cliRun(dir, ['analyze', path], KILL_MS))
      .filter((r) => r.ok)
      .map((r) => r.ms)
      .sort((a, b) => a - b);
    return times.length === DEPTH_REPEATS ? times[Math.floor(DEPTH_REPEATS / 2)] : NaN;
  };
  const chain = median('chain');
  const flat = median('flat');
  const ratio = chain / flat;
  return (
    `  analyze of a chain ${DEPTH_N.toLocaleString('en-US')} deep against ${DEPTH_N.toLocaleString('en-US')} sessions of their own (two rows each, median of ${DEPTH_REPEATS}): `
    + `${seconds(chain)} / ${seconds(flat)} = ${Number.isFinite(ratio) ? ratio.toFixed(2) : 'a run failed'}x [target <= ${DEPTH_TARGET}x: ${verdict(ratio <= DEPTH_TARGET)}]`
  );
}

if (require.main === module) {
  mkdirSync(tmpdir(), { recursive: true });
  for (const line of benchDeepLineages()) console.log(line);
}
