// Issue #5: a state.db above 500 MB, written by real SQLite (python3) in a temp dir and deleted
// afterwards. The CLI, in processes whose heap is capped at 512 MB, lists its sessions with a clear
// message, then loads one lineage with --session; the peak resident memory (VmHWM) of each stays
// far below the size of the file. Slow on purpose (~half a minute): it writes half a gigabyte.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { CLI, ROOT, tempDir } from '../cli/support';
import { assertSchemaValid } from '../robustness/invariants';
import { writeLargeHermesDb } from '../support/hermesDb';

const FILLER_SESSIONS = 30;
const FILLER_MESSAGES = 90;
const FILLER_BYTES = 200_000;

/** Builds the file: filler sessions of large rows, with a small rotated lineage (p -> t) spread through them. */
function writeLargeDb(path: string): void {
  writeLargeHermesDb(path, FILLER_SESSIONS, FILLER_MESSAGES, FILLER_BYTES);
}

/** Runs the built CLI with a 512 MB heap; a preloaded hook reports the process's peak RSS at exit. */
function cliCapped(hook: string, ...args: string[]): { code: number | null; stdout: string; stderr: string; peakMb: number; seconds: number } {
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--max-old-space-size=512', '--require', hook, CLI, ...args], { encoding: 'utf8', cwd: ROOT, maxBuffer: 64 << 20 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const peak = /VmHWM (\d+)/.exec(r.stderr);
  assert.ok(peak, `no VmHWM reported: ${r.stderr}`);
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, peakMb: Number(peak[1]) / 1024, seconds };
}

it('a 500 MB state.db: the session list, then one session, in bounded memory', { timeout: 600_000 }, (t) => {
  const dir = tempDir();
  try {
    const db = join(dir, 'state.db');
    const started = process.hrtime.bigint();
    writeLargeDb(db);
    const size = statSync(db).size;
    t.diagnostic(`wrote ${(size / 2 ** 20).toFixed(1)} MB in ${(Number(process.hrtime.bigint() - started) / 1e9).toFixed(1)} s`);
    assert.ok(size > 500 * 2 ** 20, `${size} bytes`);
    const hook = join(dir, 'peak.js');
    writeFileSync(
      hook,
      `process.on('exit', () => { const m = /VmHWM:\\s+(\\d+)/.exec(require('fs').readFileSync('/proc/self/status', 'utf8')); require('fs').writeSync(2, 'VmHWM ' + (m ? m[1] : '?') + '\\n'); });`,
    );
    const files = readdirSync(dir).sort();

    const list = cliCapped(hook, 'analyze', db, '--json');
    assert.equal(list.code, 0, list.stderr);
    assertSchemaValid(list.stdout, 'the session list');
    const listed = JSON.parse(list.stdout);
    assert.equal(listed.sessions.length, FILLER_SESSIONS + 2);
    assert.equal(listed.turns.length, 0);
    assert.equal(listed.diagnostics[0].severity, 'info');
    assert.match(
      listed.diagnostics[0].message,
      new RegExp(
        `^state\\.db is ${(size / 2 ** 20).toFixed(1)} MB \\(above the 256 MB read-whole limit\\): ${FILLER_SESSIONS + 2} sessions listed; choose one to load \\(CLI: --session ID\\)$`,
      ),
    );
    t.diagnostic(`session list: ${list.seconds.toFixed(1)} s, peak RSS ${list.peakMb.toFixed(0)} MB`);

    const one = cliCapped(hook, 'analyze', db, '--session', 't', '--json');
    assert.equal(one.code, 0, one.stderr);
    assertSchemaValid(one.stdout, '--session t');
    const loaded = JSON.parse(one.stdout);
    assert.deepEqual(
      loaded.sessions.map((s: { id: string }) => s.id),
      ['p', 't'],
    );
    assert.equal(loaded.requests.length, 6, 'three turns in the parent, three in the child');
    assert.equal(loaded.turns[3].compression?.mode, 'rotation', "the child's first turn follows the rotation");
    assert.deepEqual(
      loaded.diagnostics.filter((d: { severity: string }) => d.severity !== 'info'),
      [],
    );
    t.diagnostic(`--session t: ${one.seconds.toFixed(1)} s, peak RSS ${one.peakMb.toFixed(0)} MB`);

    // A CI check must not pass a file it did not read: without --session it says so and exits 2.
    const unchecked = cliCapped(hook, 'check', db);
    assert.equal(unchecked.code, 2, unchecked.stderr);
    assert.match(unchecked.stderr, /state\.db: state\.db is [\d.]+ MB \(above the 256 MB read-whole limit\).*nothing was checked\. Sessions: /);
    assert.doesNotMatch(unchecked.stderr, /\n\s+at /, 'no stack trace');
    assert.equal(cliCapped(hook, 'check', db, '--session', 't').code, 0);

    // The file alone is 500 MB; reading it whole (and again into sql.js) took three times that.
    assert.ok(list.peakMb < 256, `session list peak ${list.peakMb} MB`);
    assert.ok(one.peakMb < 256, `--session peak ${one.peakMb} MB`);
    assert.deepEqual(readdirSync(dir).sort(), files, 'no -wal, -shm or journal created');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
