// Runs one group of the tests with node's test runner: `node scripts/run-tests.mjs GROUP [runner flags]`.
// The groups are places, not lists (CONTRIBUTING.md, "Where a test goes"): a file's name or folder says where it runs.
//   unit     *.test.ts outside test/e2e, but *.slow.test.ts and *.browser.test.ts
//   slow     *.slow.test.ts            browser  *.browser.test.ts
//   all      every test outside test/e2e (what `npm test` runs before the VS Code scenarios)
//   e2e      test/e2e/*.test.ts, one at a time (one code-server)
// The Python that writes the tests' SQLite files is named once here (test/support/python.ts).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const [group, ...flags] = process.argv.slice(2);

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return testFiles(path);
    return e.name.endsWith('.test.ts') ? [path] : [];
  });
}

const e2e = (f) => f.startsWith(join('test', 'e2e') + '/');
const slow = (f) => f.endsWith('.slow.test.ts');
const browser = (f) => f.endsWith('.browser.test.ts');
const GROUPS = {
  unit: { pick: (f) => !e2e(f) && !slow(f) && !browser(f), concurrency: 2 },
  slow: { pick: (f) => slow(f), concurrency: 1 },
  browser: { pick: (f) => browser(f), concurrency: 1 },
  all: { pick: (f) => !e2e(f), concurrency: 2 },
  e2e: { pick: (f) => e2e(f), concurrency: 1 },
};
const chosen = GROUPS[group];
if (!chosen) {
  console.error(`usage: node scripts/run-tests.mjs ${Object.keys(GROUPS).join('|')} [node --test flags]`);
  process.exit(2);
}

/** The interpreter behind `python3`, asked once: through a version manager's shim each call costs ~0.35 s more. */
function python() {
  if (process.env.PROMPT_INSPECTOR_PYTHON) return process.env.PROMPT_INSPECTOR_PYTHON;
  const r = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : 'python3';
}

const files = testFiles('test').filter(chosen.pick).sort();
const run = spawnSync(process.execPath, ['--require', 'tsx/cjs', '--test', `--test-concurrency=${chosen.concurrency}`, ...flags, ...files], {
  stdio: 'inherit',
  env: { ...process.env, PROMPT_INSPECTOR_PYTHON: python() },
});
process.exit(run.status ?? 1);
