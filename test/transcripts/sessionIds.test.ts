// Session ids that are not text (issue 19, item 7): an INTEGER 42 and a TEXT '42' are two sessions,
// as they are to SQLite; a BLOB id names its own rows; a BLOB where text belongs is damage that
// `check` fails on.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe } from 'node:test';
import { bytesSource } from '../../src/transcripts/byteSource';
import { readHermesStateDb } from '../../src/transcripts/hermesStateDb';
import { sqliteExec } from '../support/sqliteExec';
import { countedBadInputs } from '../robustness/tally';

// Each case counts toward the robustness summary line (test/robustness/tally.ts).
const it = countedBadInputs('session-ids');
const dir = mkdtempSync(join(tmpdir(), 'pi-ids-'));
after(() => rmSync(dir, { recursive: true, force: true }));

// Columns declared without a type keep each value's own type (no text affinity).
const SCHEMA = `CREATE TABLE sessions (id PRIMARY KEY, source TEXT, started_at REAL, parent_session_id, system_prompt TEXT);
CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id, role TEXT, content, timestamp REAL);`;

function store(name: string, sql: string) {
  const path = join(dir, name);
  sqliteExec(path, [SCHEMA, sql]);
  return readHermesStateDb(name, bytesSource(new Uint8Array(readFileSync(path))));
}

const rowsOf = (t: ReturnType<typeof store>, id: string): string[] =>
  (t.sessions.find((s) => s.id === id)?.generations ?? []).flatMap((g) => g.rows.map((r) => String(r.content)));

describe('session ids that are not text', () => {
  it('INTEGER 42 and TEXT 42 are two sessions, each with its own rows', () => {
    const t = store(
      'mixed.db',
      `INSERT INTO sessions VALUES (42, 'cli', 1, NULL, 'p'), ('42', 'cli', 2, NULL, 'p');
       INSERT INTO messages (session_id, role, content, timestamp) VALUES (42, 'user', 'to the integer', 1), ('42', 'user', 'to the text', 2);`,
    );
    assert.equal(t.sessions.length, 2);
    assert.deepEqual(rowsOf(t, '42'), ['to the text']);
    assert.deepEqual(rowsOf(t, '42 (integer)'), ['to the integer']);
    assert.ok(!t.findings.some((f) => /not in the sessions table/.test(f.message)), t.findings.map((f) => f.message).join('\n'));
  });

  it("a BLOB id is shown as hex and keeps its own rows (not an unknown session's); a BLOB parent links", () => {
    const t = store(
      'blob.db',
      `INSERT INTO sessions VALUES (x'01ff', 'cli', 1, NULL, 'p'), ('child', 'cli', 2, x'01ff', 'p');
       INSERT INTO messages (session_id, role, content, timestamp) VALUES (x'01ff', 'user', 'hello', 1);`,
    );
    assert.deepEqual(rowsOf(t, "x'01ff'"), ['hello']);
    assert.equal(t.sessions.find((s) => s.id === 'child')?.parentId, "x'01ff'");
    assert.ok(!t.findings.some((f) => /not in the sessions table/.test(f.message)));
  });

  it('a BLOB in a content column is an error finding at its row, the other rows read', () => {
    const t = store(
      'content.db',
      `INSERT INTO sessions VALUES ('s', 'cli', 1, NULL, 'p');
       INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s', 'user', zeroblob(1000000), 1), ('s', 'user', 'still read', 2);`,
    );
    const f = t.findings.filter((x) => /content is a BLOB/.test(x.message));
    assert.equal(f.length, 1);
    assert.equal(f[0].severity, 'error');
    assert.equal(f[0].pos.rowId, 1);
    assert.deepEqual(rowsOf(t, 's'), ['null', 'still read'], 'the BLOB row replays as empty');
  });
});
