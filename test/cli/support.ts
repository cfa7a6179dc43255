import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { after } from 'node:test';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { main, type Terminal } from '../../src/cli/main';

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

/**
 * The CLI's main() in this process, as `cli` would run it: the same code without a process of its
 * own (the bundle and its streams are `cli`'s to test), for checks that run it hundreds of times.
 */
export async function runMain(args: string[], terminal?: Terminal): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    args,
    (s) => out.push(s),
    (s) => err.push(s),
    terminal,
  );
  const text = (lines: string[]): string => lines.map((l) => `${l}\n`).join('');
  return { code, stdout: text(out), stderr: text(err) };
}

export function analyzeJson(...args: string[]): any {
  const r = cli('analyze', ...args, '--json');
  if (r.code !== 0) throw new Error(`analyze exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'prompt-inspector-'));
}

/** A maker of temporary folders, each removed after the calling file's tests. */
export function tempDirsRemovedAfter(): () => string {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = tempDir();
    dirs.push(dir);
    return dir;
  };
}

/** No Node stack trace leaked to the user. */
export function assertNoStack(text: string): void {
  if (/\n\s+at .+:\d+:\d+\)?/.test(text)) throw new Error(`stack trace in output:\n${text}`);
}
