// A state.db caught in the middle of a write transaction, its hot rollback journal beside it (issue
// 19, item 5): read as real SQLite reads it after rolling the journal back, in memory only, with a
// finding; the uncommitted rows never show.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe } from 'node:test';
import { analyze } from '../../src/analysis/report';
import { createTokenCounter } from '../../src/analysis/tokenizer';
import { PROFILES } from '../../src/engine/profile';
import { loadTranscript } from '../../src/transcripts/load';
import { writeHermesDb, type MessageSpec, type SessionSpec } from '../support/hermesDb';
import { countedBadInputs } from '../robustness/tally';
import { PYTHON } from '../support/python';

// Each case counts toward the robustness summary line (test/robustness/tally.ts).
const it = countedBadInputs('hot-journal');
const dir = mkdtempSync(join(tmpdir(), 'pi-journal-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const sessions: SessionSpec[] = [{ id: 's1', startedAt: 1789726500 }];
const messages: MessageSpec[] = Array.from({ length: 7 }, (_, t): MessageSpec[] => [
  ['s1', 'user', `Question ${t}?`],
  ['s1', 'assistant', `Answer ${t}.`],
]).flat();

const HOT_JOURNAL_PY = join(__dirname, '..', 'support', 'hot_journal.py');

/** Copies `db` and its journal while a transaction that adds two turns and rewrites the first ask is open. */
function catchMidTransaction(db: string, copy: string): void {
  const r = spawnSync(PYTHON, [HOT_JOURNAL_PY, 'catch', db, copy], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
}

describe('a hot rollback journal', () => {
  const db = join(dir, 'state.db');
  writeHermesDb(db, sessions, messages);
  const copy = join(dir, 'caught.db');
  catchMidTransaction(db, copy);
  const before = [readFileSync(copy), readFileSync(`${copy}-journal`)];

  it('is rolled back in memory: the committed turns, not the uncommitted ones, with a finding', async () => {
    const t = await loadTranscript(copy);
    const r = analyze(t, { profile: PROFILES['hermes-current'], counter: createTokenCounter('o200k_base'), messages: false }).report;
    assert.equal(r.turns.length, 7);
    const asks = t.sessions[0].generations.flatMap((g) => g.rows).filter((row) => row.role === 'user');
    assert.equal(asks[0].content, 'Question 0?', 'the rewrite was not committed');
    assert.ok(!asks.some((row) => String(row.content).startsWith('Uncommitted')));
    assert.ok(r.diagnostics.some((d) => d.code === 'journal-rolled-back' && d.severity === 'info' && /hot rollback journal/.test(d.message)));
  });

  it('agrees with real SQLite opening the same files (which rolls the journal back)', () => {
    const probe = join(dir, 'probe.db');
    copyFileSync(copy, probe);
    copyFileSync(`${copy}-journal`, `${probe}-journal`);
    const r = spawnSync(PYTHON, [HOT_JOURNAL_PY, 'count', probe], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { messages: 14, uncommitted: 0 });
  });

  it('is never written: the file and its journal are as they were', async () => {
    await loadTranscript(copy);
    assert.ok(readFileSync(copy).equals(before[0]) && readFileSync(`${copy}-journal`).equals(before[1]));
  });

  it('without the journal the uncommitted pages would show: the copy really caught the transaction', async () => {
    const bare = join(dir, 'bare.db');
    copyFileSync(copy, bare);
    const t = await loadTranscript(bare);
    const rows = t.sessions.flatMap((s) => s.generations.flatMap((g) => g.rows));
    assert.ok(rows.some((row) => String(row.content).startsWith('Uncommitted') || row.content === 'rewritten, never committed'));
  });
});
