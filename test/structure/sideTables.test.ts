// What a live refresh remembers lives in one object (src/live/liveAnalysis.ts), handed back by each
// layer as a value: no module keeps a table beside the objects it returned. What is worked out once
// per object (a transcript's lineages, a generation's wire) is held by an object its caller keeps.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const root = path.resolve(__dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('side tables', () => {
  it('no module keeps a WeakMap beside what it returned', () => {
    const found: string[] = [];
    for (const file of sources(path.join(root, 'src'))) {
      const rel = path.relative(root, file);
      for (const m of readFileSync(file, 'utf8').matchAll(/^(?:export )?(?:const|let) (\w+)(?:: [^=]+)? = new WeakMap\b/gm)) found.push(`${rel}: ${m[1]}`);
    }
    assert.deepEqual(found, []);
  });
});
