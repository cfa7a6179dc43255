// A state.db opened through a symbolic link: SQLite keeps the WAL (and the agent its request dumps)
// beside the file the link points at, so that is where the reader must look for them too.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analyze } from '../../src/analysis/report';
import { createTokenCounter } from '../../src/analysis/tokenizer';
import { PROFILES } from '../../src/engine/profile';
import { loadTranscript } from '../../src/transcripts/load';
import { buildStore } from '../support/upstreamStores';

const summary = async (path: string) => {
  const t = await loadTranscript(path);
  const r = analyze(t, { profile: PROFILES['hermes-current'], counter: createTokenCounter('o200k_base'), messages: false }).report;
  return {
    rows: t.sessions.map((s) => [s.id, s.generations.map((g) => g.rows.length)]),
    turns: r.turns.length,
    requests: r.requests.length,
    captured: (t.captured ?? []).length,
  };
};

describe('a state.db opened through a symbolic link', () => {
  it("reads the WAL beside the link's target, as SQLite does: the same rows as opened directly", async () => {
    const store = buildStore('wal');
    assert.ok(existsSync(`${store.stateDb}-wal`), 'the scenario leaves its WAL in place');
    const links = mkdtempSync(join(tmpdir(), 'pi-links-'));
    const hop = join(links, 'hop.db');
    const link = join(links, 'state.db');
    symlinkSync(store.stateDb, hop);
    symlinkSync(hop, link); // a chain of two links
    assert.ok(!existsSync(`${link}-wal`), 'no WAL beside the link');
    const direct = await summary(store.stateDb);
    assert.ok(direct.requests > 0);
    assert.deepEqual(await summary(link), direct);
  });

  it("finds the request dumps in the sessions folder of the link's target", async () => {
    const store = buildStore('dumps');
    const links = mkdtempSync(join(tmpdir(), 'pi-links-'));
    const link = join(links, 'state.db');
    symlinkSync(store.stateDb, link);
    const direct = await summary(store.stateDb);
    assert.equal(direct.captured, store.truth.dumps.length);
    assert.deepEqual(await summary(link), direct);
  });
});
