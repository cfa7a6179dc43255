// What a live refresh remembers lives in one object (src/live/liveAnalysis.ts), handed back by each
// layer as a value: no module keeps a table beside the objects it returned. A module-level WeakMap
// is allowed only as a plain cache, named here with why.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const root = path.resolve(__dirname, '../..');

/** Module-level WeakMaps that are caches, not resume state. */
const CACHES: Record<string, string> = {
  // Where each session's rows, dumps and findings sit in a transcript, worked out again whenever its lists change.
  'src/hermes/lineage.ts': 'indexes',
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('side tables', () => {
  it('no module keeps a WeakMap beside what it returned, except the caches named', () => {
    const found: string[] = [];
    for (const file of sources(path.join(root, 'src'))) {
      const rel = path.relative(root, file);
      for (const m of readFileSync(file, 'utf8').matchAll(/^(?:export )?const (\w+) = new WeakMap\b/gm)) {
        if (CACHES[rel] !== m[1]) found.push(`${rel}: ${m[1]}`);
      }
    }
    assert.deepEqual(found, []);
  });
});
