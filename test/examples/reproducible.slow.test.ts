import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { it } from 'node:test';

const ROOT = resolve(__dirname, '../..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : [p];
  }).sort();
}

it('the committed examples are exactly what the generator writes', () => {
  const out = mkdtempSync(join(tmpdir(), 'examples-'));
  execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts/generate-examples.ts'), '--out', out], { cwd: ROOT });
  const committed = files(join(ROOT, 'examples')).map((p) => relative(join(ROOT, 'examples'), p));
  const generated = files(out).map((p) => relative(out, p));
  assert.deepEqual(generated, committed);
  for (const rel of committed) {
    assert.ok(readFileSync(join(out, rel)).equals(readFileSync(join(ROOT, 'examples', rel))), `${rel} differs`);
  }
});
