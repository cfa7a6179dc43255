// The inspector never writes next to a transcript: bytes, mtimes and the folder's listing are the
// same after every command, for every bundled example (state.db included: no -wal, -shm or journal).
import assert from 'node:assert/strict';
import { cpSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { cli, ROOT, tempDir } from '../cli/support';

function snapshot(dir: string): Map<string, { bytes: Buffer; mtimeMs: number }> {
  const out = new Map<string, { bytes: Buffer; mtimeMs: number }>();
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const p = join(dir, name);
    if (statSync(p).isFile()) out.set(name, { bytes: readFileSync(p), mtimeMs: statSync(p).mtimeMs });
  }
  return out;
}

it('analyze, check and report leave every transcript and its folder untouched', () => {
  const dir = tempDir();
  cpSync(join(ROOT, 'examples'), join(dir, 'examples'), { recursive: true });
  const before = snapshot(dir);
  const transcripts = [...before.keys()].filter((n) => /(state\.db|\.json|\.jsonl)$/.test(n));
  assert.ok(transcripts.length >= 6);
  for (const t of transcripts) {
    const path = join(dir, t);
    assert.ok([0, 1].includes(cli('analyze', path, '--json').code ?? -1), t);
    assert.ok([0, 1].includes(cli('check', path).code ?? -1), t);
    assert.equal(cli('report', path, '-o', join(tempDir(), 'r.html')).code, 0, t);
  }
  const after = snapshot(dir);
  assert.deepEqual([...after.keys()].sort(), [...before.keys()].sort(), 'no file created or removed');
  for (const [name, b] of before) {
    const a = after.get(name);
    assert.ok(a && a.bytes.equals(b.bytes), `${name} bytes`);
    assert.equal(a?.mtimeMs, b.mtimeMs, `${name} mtime`);
  }
});
