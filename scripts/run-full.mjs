// The full test after the build (`npm test`): the static checks and then every test outside test/e2e
// on one side, the VS Code scenarios on the other, at the same time. The scenarios mostly wait on
// code-server and Chromium (about half a core over their six minutes), so one after the other left a
// core idle for most of the run. The first side prints as it goes; the scenarios' output is written
// to test-results/e2e.log as it comes and printed whole when they end. The exit code is 1 when
// anything failed.
//
// One scenario measures how fast keys answer while a large home is read, against the same keys with
// the home idle: it waits until the first side has ended (the file named by PROMPT_INSPECTOR_E2E_QUIET
// exists), so that it measures the extension and not the other tests.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const RESULTS = resolve('test-results');
const E2E_LOG = join(RESULTS, 'e2e.log');
const QUIET = join(RESULTS, 'e2e-quiet');
mkdirSync(RESULTS, { recursive: true });
rmSync(QUIET, { force: true });

const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(0)} s`;

/** Runs `node args…`; its output to `out` (a stream) or to this process's own. Resolves to whether it passed. */
function node(args, out, env = process.env) {
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', out ? 'pipe' : 'inherit', out ? 'pipe' : 'inherit'], env });
    if (out) {
      child.stdout.pipe(out, { end: false });
      child.stderr.pipe(out, { end: false });
    }
    child.on('close', (code) => done(code === 0));
  });
}

const started = Date.now();
const log = createWriteStream(E2E_LOG);
const logClosed = new Promise((r) => log.on('close', r));
const e2e = node(['scripts/run-tests.mjs', 'e2e', '--test-reporter=spec'], log, { ...process.env, PROMPT_INSPECTOR_E2E_QUIET: QUIET }).then((passed) => {
  log.end();
  return passed;
});

const checked = await node(['scripts/run-checks.mjs']);
const tested = await node(['scripts/run-tests.mjs', 'all', '--test-reporter=spec']);
writeFileSync(QUIET, '');
process.stdout.write(`── checks ${checked ? 'passed' : 'FAILED'}, tests outside test/e2e ${tested ? 'passed' : 'FAILED'}: ${seconds(started)}\n`);

const scenarios = await e2e;
await logClosed;
process.stdout.write(`── VS Code scenarios (test/e2e, logged to ${E2E_LOG}):\n${readFileSync(E2E_LOG, 'utf8')}`);
process.stdout.write(`── VS Code scenarios ${scenarios ? 'passed' : 'FAILED'}; the full test ${seconds(started)}\n`);
rmSync(QUIET, { force: true });
process.exit(checked && tested && scenarios ? 0 : 1);
