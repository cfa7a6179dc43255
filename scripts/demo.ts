// npm run demo: the CLI on every bundled example, as a newcomer would run it by hand.

import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..');
const runs: [string, string[]][] = [
  [
    'Pre-sidecar replay (hermes-v0): every later turn breaks the prefix at the previous user row',
    ['analyze', 'examples/sidecars/session_20260918_101500_a1b2c3.json', '--profile', 'hermes-v0'],
  ],
  [
    'The same session under v2026.7.20 (hermes-v1): sidecars replayed, prefix stable',
    ['analyze', 'examples/sidecars/session_20260918_101500_a1b2c3.json', '--profile', 'hermes-v1'],
  ],
  ['state.db with a compaction by rotation', ['analyze', 'examples/rotation/state.db']],
  ['CI check where only the compaction broke the prefix (exit 0)', ['check', 'examples/rotation/state.db']],
  ['CI check where the child session changed its system prompt (exit 1)', ['check', 'examples/rotation-prompt-changed/state.db']],
  ['state.db compacted in place', ['analyze', 'examples/in-place/state.db']],
  ['A whole Hermes home (48 sessions of every source): the session overview, one row per lineage', ['sessions', 'examples/home/state.db']],
  [
    'The same home, its lineages sorted by input tokens, gateway sessions only',
    ['sessions', 'examples/home/state.db', '--sort', 'input', '--desc', '--filter', 'telegram'],
  ],
  ['A home with its agent.log: each request billed, each cache miss classed, what it cost', ['analyze', 'examples/billed/state.db']],
  [
    'One session of a state.db with its lineage (what a state.db above 256 MB loads on demand)',
    ['analyze', 'examples/rotation/state.db', '--session', '20260918_144025_8b9c0d', '--turn', '5'],
  ],
  [
    'Turn-trace JSONL replayed under hermes-v1: memory and plugin context lost on the image turn',
    ['analyze', 'examples/trace/agent.trace.jsonl', '--profile', 'hermes-v1'],
  ],
  [
    'The inspector view as one offline HTML file: open out/rotation-report.html in a browser',
    ['report', 'examples/rotation/state.db', '-o', 'out/rotation-report.html'],
  ],
  [
    'The same for the pre-sidecar replay of the sidecar session',
    ['report', 'examples/sidecars/session_20260918_101500_a1b2c3.json', '--profile', 'hermes-v0', '-o', 'out/sidecars-v0-report.html'],
  ],
];

mkdirSync(join(root, 'out'), { recursive: true });

for (const [title, args] of runs) {
  console.log(`\n=== ${title}\n$ prompt-inspector ${args.join(' ')}`);
  const r = spawnSync(process.execPath, [join(root, 'dist/cli.js'), ...args], { cwd: root, stdio: 'inherit' });
  console.log(`(exit ${r.status})`);
}
