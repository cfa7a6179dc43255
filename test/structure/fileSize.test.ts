// No source file over 600 lines (issue 21): a file that long holds more than one job; split it
// along its seams (docs/architecture.md) rather than raising the limit.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const root = path.resolve(__dirname, '../..');
const MAX_LINES = 600;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('file size', () => {
  it(`no source file under src/ or webview/ is over ${MAX_LINES} lines`, () => {
    const files = [...sources(path.join(root, 'src')), ...sources(path.join(root, 'webview'))];
    assert.ok(files.length > 50, 'the source tree was found');
    const long = files.map((f) => ({ file: path.relative(root, f), lines: readFileSync(f, 'utf8').split('\n').length - 1 })).filter((f) => f.lines > MAX_LINES);
    assert.deepEqual(long, []);
  });
});
