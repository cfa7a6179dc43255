import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '../..');
export const CLI = join(ROOT, 'dist/cli.js');
export const example = (p: string): string => join(ROOT, 'examples', p);

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI as a user would: a real process, real files. */
export function cli(...args: string[]): Run {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd: ROOT, maxBuffer: 256 * 1024 * 1024 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export function analyzeJson(...args: string[]): any {
  const r = cli('analyze', ...args, '--json');
  if (r.code !== 0) throw new Error(`analyze exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'prompt-inspector-'));
}

/** No Node stack trace leaked to the user. */
export function assertNoStack(text: string): void {
  if (/\n\s+at .+:\d+:\d+\)?/.test(text)) throw new Error(`stack trace in output:\n${text}`);
}
