// Runs one group of the tests with node's test runner: `node scripts/run-tests.mjs GROUP [runner flags]`.
// The groups are places, not lists (CONTRIBUTING.md, "Where a test goes"): a file's name or folder says where it runs.
//   unit     *.test.ts outside test/e2e, but *.slow.test.ts and *.browser.test.ts
//   slow     *.slow.test.ts            browser  *.browser.test.ts
//   all      every test outside test/e2e (what `npm test` runs beside the VS Code scenarios)
//   e2e      test/e2e/*.test.ts, one at a time (one code-server)
//   `npm test` runs the checks, `all` and `e2e` side by side: scripts/run-full.mjs.
// The Python that writes the tests' SQLite files is named once here (test/support/python.ts).
//
// Each test file but the e2e ones is first bundled with esbuild, then run as JavaScript: tsx compiled
// the engine's modules again in each test process, about 0.7 s of CPU a file, most of what test:unit
// took on two cores. A source file's __dirname and __filename stay its own, as under tsx.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import * as esbuild from 'esbuild';
import { packedVocabularies } from './packedVocabularies.cjs';

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
  unit: { pick: (f) => !e2e(f) && !slow(f) && !browser(f), concurrency: 2, bundled: true },
  slow: { pick: (f) => slow(f), concurrency: 1, bundled: true },
  browser: { pick: (f) => browser(f), concurrency: 1, bundled: true },
  all: { pick: (f) => !e2e(f), concurrency: 2, bundled: true },
  // The VS Code scenarios spend their time in code-server, not in loading: run from source.
  e2e: { pick: (f) => e2e(f), concurrency: 1, bundled: false },
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

/** A TypeScript file as it is, with its own __dirname and __filename where it uses them (a bundle's would be the bundle's). */
const sourcePaths = {
  name: 'source-paths',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, ({ path }) => {
      const text = readFileSync(path, 'utf8');
      const own = /\b__(dirname|filename)\b/.test(text) ? `const __dirname = ${JSON.stringify(dirname(path))}, __filename = ${JSON.stringify(path)};\n` : '';
      return { contents: own + text, loader: 'ts' };
    });
  },
};

/**
 * The files heaviest first: the browser files, then the slow ones, then the rest, each by size, larger
 * first (a test file's size is the best guess at its cost before it has run, as Jest's is). Alphabetical
 * order left a 40 s browser file to start when little else was left, the other lane idle meanwhile.
 */
function heaviestFirst(files) {
  const place = (f) => (browser(f) ? 0 : slow(f) ? 1 : 2);
  const size = new Map(files.map((f) => [f, statSync(f).size]));
  return [...files].sort((a, b) => place(a) - place(b) || size.get(b) - size.get(a) || a.localeCompare(b));
}

/**
 * Bundles `files` under node_modules/.cache (so their packages resolve; the work tree stays as it was)
 * and returns the bundles. Node's runner sorts the files it is given by path, so each bundle's path
 * begins with its place in `files`: they run in that order.
 */
async function bundled(files) {
  const outdir = resolve('node_modules/.cache/prompt-inspector-tests', group);
  rmSync(outdir, { recursive: true, force: true });
  const outs = files.map((f, i) => join(String(i).padStart(3, '0'), f.replace(/\.ts$/, '')));
  await esbuild.build({
    entryPoints: files.map((f, i) => ({ in: f, out: outs[i] })),
    outdir,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    sourcemap: 'inline',
    sourcesContent: false,
    logLevel: 'warning',
    plugins: [sourcePaths, packedVocabularies(join(outdir, 'vocabularies'))],
  });
  return outs.map((out) => join(outdir, `${out}.js`));
}

const files = heaviestFirst(testFiles('test').filter(chosen.pick));
const loaded = chosen.bundled ? ['--enable-source-maps', ...(await bundled(files))] : ['--require', 'tsx/cjs', ...files];
const run = spawnSync(process.execPath, ['--test', `--test-concurrency=${chosen.concurrency}`, ...flags, ...loaded], {
  stdio: 'inherit',
  env: { ...process.env, PROMPT_INSPECTOR_PYTHON: python() },
});
process.exit(run.status ?? 1);
