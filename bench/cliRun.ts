// One command of the built CLI in a fresh `node dist/cli.js`: timed, killed at a limit, its peak
// RSS the process's VmHWM, read as it exits by a preloaded hook (not the parent's resourceUsage,
// which Linux carries over from a fat bench parent).

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const ROOT = join(__dirname, '..');
const CLI = join(ROOT, 'dist/cli.js');

/** Preloaded into each CLI process: its peak RSS (VmHWM) written where PEAK_RSS_FILE says, as it exits. */
const PRELOAD = `process.on('exit', () => {
  const kb = /VmHWM:\\s*(\\d+) kB/.exec(require('node:fs').readFileSync('/proc/self/status', 'utf8'));
  if (kb) require('node:fs').writeFileSync(process.env.PEAK_RSS_FILE, kb[1]);
});
`;

export interface CliRun {
  ms: number;
  /** Bytes; null when the process did not get to write it. */
  peak: number | null;
  ok: boolean;
  /** Why it is not ok: killed, or its exit code and last line of stderr. */
  note: string;
}

/** `args` run by the CLI, with `dir` (a scratch folder) holding the hook and the figure. */
export function cliRun(dir: string, args: string[], killMs: number): CliRun {
  const preload = join(dir, 'peak-rss.cjs');
  if (!existsSync(preload)) writeFileSync(preload, PRELOAD);
  const peakFile = join(dir, 'peak');
  rmSync(peakFile, { force: true });
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--require', preload, CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, PEAK_RSS_FILE: peakFile },
    timeout: killMs,
    maxBuffer: 1 << 30,
    encoding: 'utf8',
  });
  const took = performance.now() - t0;
  const peak = existsSync(peakFile) ? Number(readFileSync(peakFile, 'utf8')) * 1024 : null;
  const killed = r.error !== undefined || r.signal !== null;
  const note = killed ? `killed at ${killMs / 1000} s` : r.status !== 0 ? `exit ${r.status}: ${r.stderr.trim().split('\n').slice(-1)[0]}` : '';
  return { ms: took, peak, ok: !killed && r.status === 0, note };
}
