// The Hermes state.db logic on schemas written other ways than upstream's: names in another case
// (SQLite compares them case-insensitively), and a messages table that cannot be read, which must
// fail alone and leave the session list.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analyze } from '../../src/analysis/report';
import { createTokenCounter } from '../../src/analysis/tokenizer';
import { PROFILES } from '../../src/engine/profile';
import { readStateDbRows } from '../../src/transcripts/hermesStateDb';
import type { RowSource } from '../../src/transcripts/stateDbValues';
import { loadTranscript } from '../../src/transcripts/load';
import { tempDirsRemovedAfter } from '../cli/support';
import { sqliteExec } from '../support/sqliteExec';

const newDir = tempDirsRemovedAfter();
const counter = createTokenCounter('o200k_base');

describe('state.db schema variants', () => {
  it("tables and columns named in another case read like upstream's", async () => {
    const dir = newDir();
    const db = join(dir, 'state.db');
    sqliteExec(db, [
      `CREATE TABLE SESSIONS (ID TEXT PRIMARY KEY, Source TEXT, System_Prompt TEXT, Parent_Session_Id TEXT, Started_At REAL, End_Reason TEXT, API_CALL_COUNT INTEGER);
CREATE TABLE Messages (ID INTEGER PRIMARY KEY AUTOINCREMENT, SESSION_ID TEXT, ROLE TEXT, CONTENT TEXT, TIMESTAMP REAL, ACTIVE INTEGER DEFAULT 1);
INSERT INTO SESSIONS VALUES ('s1', 'cli', 'You are Hermes.', NULL, 1000.0, NULL, 2);
INSERT INTO Messages (session_id, role, content, timestamp) VALUES ('s1', 'user', 'q1', 1001), ('s1', 'assistant', 'a1', 1002), ('s1', 'user', 'q2', 1003), ('s1', 'assistant', 'a2', 1004);
`,
    ]);
    const r = analyze(await loadTranscript(db), { profile: PROFILES['hermes-current'], counter, messages: false }).report;
    assert.equal(r.turns.length, 2);
    assert.equal(r.requests.length, 2);
    assert.equal(r.sessions[0].recorded?.apiCalls, 2);
    assert.deepEqual(
      r.diagnostics.filter((d) => d.severity !== 'info'),
      [],
    );
  });

  it('a messages table that cannot be read fails alone: the sessions stay listed', () => {
    const source: RowSource = {
      tables: () => ['sessions', 'messages'],
      columns: (t) => {
        if (t === 'messages') throw new Error('table messages: page 5 has type 0x0d, not an index b-tree page');
        return ['id', 'started_at'];
      },
      *rows(t) {
        if (t === 'sessions') yield { get: (c: string) => (c === 'id' ? 's1' : c === 'started_at' ? 1000 : null) };
      },
    };
    const findings: Parameters<typeof readStateDbRows>[2] = [];
    const t = readStateDbRows('x/state.db', source, findings);
    assert.deepEqual(
      t.sessions.map((s) => s.id),
      ['s1'],
    );
    assert.equal(findings.length, 1);
    assert.match(findings[0].message, /page 5 has type 0x0d/);
  });
});
