// The session table kept between reads of a listing's families (SessionTable, issue 23): a read
// that takes the table an earlier read of the same file kept must give the very transcript a read
// of both tables gives, on stores written as upstream writes them: the current schema (prompts in
// system_prompts), the older one (each prompt inline in its sessions row), with session_model_usage
// rows, forks and compaction chains. Slow: the stores are written by python3's sqlite3.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listStateDb, loadFamilies } from '../../src/transcripts/load';
import type { SessionTableMemory } from '../../src/transcripts/stateDbSessions';
import { buildStore } from '../support/upstreamStores';

describe('the session table kept between reads of families', () => {
  for (const name of ['home', 'older', 'billed', 'branch', 'delegate', 'rotation-in-place']) {
    it(`${name}: a listing and each family read with the kept table equal those read without it`, () => {
      const { stateDb } = buildStore(name);
      const memory: SessionTableMemory = {};
      const listed = listStateDb(stateDb, memory);
      assert.ok(listed?.catalog?.length, `${name}: listed`);
      assert.deepEqual(listed, listStateDb(stateDb), `${name}: the listing that keeps the table`);
      const table = memory.kept;
      assert.ok(table, `${name}: the listing kept its table`);
      assert.equal(table.rows.length, listed.catalog.length);
      let prompts = 0;
      for (const { id } of listed.catalog) {
        const again: SessionTableMemory = { earlier: table };
        const kept = loadFamilies(stateDb, [id], again);
        const read = loadFamilies(stateDb, [id]);
        assert.ok(read?.sessions.length, `${name}: ${id} read`);
        assert.deepEqual(kept, read, `${name}: ${id}'s family read with the kept table`);
        assert.equal(again.kept?.rows, table.rows, 'the same table kept for the next read');
        assert.equal(again.kept?.built, table.built, 'with the sessions built from it');
        prompts += read.sessions.filter((s) => s.systemPrompt).length;
      }
      assert.ok(prompts > 0, `${name}: system prompts read`);
      // The kept table is what such a read lists from (it does not read the sessions table again).
      const marked = { rows: table.rows.map((r) => ({ ...r, title: 'from the kept table' })), usage: table.usage };
      const fromKept = loadFamilies(stateDb, [listed.catalog[0].id], { earlier: marked });
      assert.deepEqual(new Set(fromKept?.catalog?.map((c) => c.title)), new Set(['from the kept table']));
    });
  }
});
