// `--session` on the built CLI: analyze, check and report narrowed to one session's lineage.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { writeLineageDb } from '../support/hermesDb';
import { assertSchemaValid } from '../robustness/invariants';
import { assertNoStack, cli, example, tempDir } from './support';

// One store for both tests: they only read it.
const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));
const db = join(dir, 'state.db');
writeLineageDb(db);

describe('--session on the command line', () => {
  it('analyze, check and report narrow to the lineage; the report stays valid', () => {
    const run = cli('analyze', db, '--session', 'e', '--json');
    assert.equal(run.code, 0, run.stderr);
    assertSchemaValid(run.stdout, '--session e');
    const report = JSON.parse(run.stdout);
    assert.deepEqual(
      report.sessions.map((s: { id: string }) => s.id),
      ['d', 'e'],
    );
    assert.ok(report.requests.length > 0 && report.requests.every((q: { sessionId: string }) => q.sessionId === 'd' || q.sessionId === 'e'));
    assert.equal(cli('check', db, '--session=b').code, 0);
    const html = join(dir, 'r.html');
    const rep = cli('report', db, '--session', 'f', '-o', html);
    assert.equal(rep.code, 0, rep.stderr);
    assert.match(rep.stdout, /wrote .* \(6 turns, 6 requests\)/);
  });

  it('an unknown session exits 2 with a clear message and no stack', () => {
    for (const args of [
      ['analyze', db, '--session', 'nope', '--json'],
      ['check', db, example('rotation/state.db'), '--session', 'nope'],
      ['report', db, '--session', 'nope', '-o', join(dir, 'x.html')],
    ]) {
      const run = cli(...args);
      assert.equal(run.code, 2, args.join(' '));
      assert.match(run.stderr, /prompt-inspector: .*state\.db: no session "nope"/);
      assertNoStack(run.stdout + run.stderr);
    }
    assert.equal(cli('analyze', db, '--session').code, 2, '--session needs a value');
  });
});
