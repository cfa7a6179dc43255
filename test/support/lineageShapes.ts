// Hermes state.db files of extreme lineage shapes (issue 19, items 1 and 2), written by real SQLite
// (sqliteExec) with recursive CTEs, so 50,000 sessions take a second: one compaction chain N deep,
// a parent_session_id cycle through N sessions, N sessions each a branch of the one before, N
// sessions of their own, one session with N children. Each session holds one user row and one
// answer. For deepLineages.slow.test.ts and bench/deepLineages.ts.

import { sqliteExec } from './sqliteExec';

export type LineageShape = 'chain' | 'cycle' | 'branches' | 'flat' | 'children' | 'compacted-children';

/** Session i's id: `s` and five digits (the parent of `children` is s00000). */
export const shapeId = (i: number): string => `s${String(i).padStart(5, '0')}`;

const SCHEMA = `
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE system_prompts (hash TEXT PRIMARY KEY, prompt TEXT NOT NULL);
CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, model TEXT, model_config TEXT, system_prompt TEXT,
  system_prompt_hash TEXT, parent_session_id TEXT, started_at REAL NOT NULL, ended_at REAL, end_reason TEXT,
  message_count INTEGER DEFAULT 0, api_call_count INTEGER DEFAULT 0, title TEXT, tool_names TEXT);
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT,
  tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL, token_count INTEGER, finish_reason TEXT,
  reasoning TEXT, _compressed_summary INTEGER NOT NULL DEFAULT 0, active INTEGER NOT NULL DEFAULT 1,
  compacted INTEGER NOT NULL DEFAULT 0, api_content TEXT, display_kind TEXT, display_metadata TEXT);
CREATE INDEX idx_messages_session ON messages(session_id, timestamp);
INSERT INTO schema_version VALUES (30);
`;

/** SQL of session i's parent, end reason and model_config in each shape (i counts from 0, n sessions). */
function columns(shape: LineageShape, n: number): { parent: string; endReason: string; modelConfig: string } {
  const prev = `printf('s%05d', i - 1)`;
  switch (shape) {
    case 'chain':
      return { parent: `CASE WHEN i = 0 THEN NULL ELSE ${prev} END`, endReason: `CASE WHEN i < ${n - 1} THEN 'compression' END`, modelConfig: 'NULL' };
    case 'cycle':
      // s00000's parent is the last session: every session of the ring ended by compaction.
      return { parent: `CASE WHEN i = 0 THEN printf('s%05d', ${n - 1}) ELSE ${prev} END`, endReason: `'compression'`, modelConfig: 'NULL' };
    case 'branches':
      return {
        parent: `CASE WHEN i = 0 THEN NULL ELSE ${prev} END`,
        endReason: `CASE WHEN i < ${n - 1} THEN 'branched' END`,
        modelConfig: `CASE WHEN i = 0 THEN NULL ELSE json_object('_branched_from', ${prev}) END`,
      };
    case 'flat':
      return { parent: 'NULL', endReason: `'user_exit'`, modelConfig: 'NULL' };
    case 'children':
      // Each child a lineage of its own under s00000 (which did not end by compaction).
      return { parent: `CASE WHEN i = 0 THEN NULL ELSE 's00000' END`, endReason: `'user_exit'`, modelConfig: 'NULL' };
    case 'compacted-children':
      // s00000 ended by compaction: every child continues it, one lineage of n sessions.
      return {
        parent: `CASE WHEN i = 0 THEN NULL ELSE 's00000' END`,
        endReason: `CASE WHEN i = 0 THEN 'compression' ELSE 'user_exit' END`,
        modelConfig: 'NULL',
      };
  }
}

/** Writes a state.db at `path` of `n` sessions in `shape` (started in id order, 10 s apart), two rows each. */
export function writeLineageShape(path: string, shape: LineageShape, n: number): void {
  const { parent, endReason, modelConfig } = columns(shape, n);
  const ids = `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ${n})`;
  const sessions = `${ids}
INSERT INTO sessions (id, source, model, model_config, system_prompt, parent_session_id, started_at, ended_at, end_reason, message_count, api_call_count, title)
SELECT printf('s%05d', i), 'cli', 'openai/gpt-5.5', ${modelConfig}, 'You are Hermes.', ${parent}, 1789700000 + 10 * i, 1789700005 + 10 * i, ${endReason}, 2, 1,
  'conversation ' || i FROM n;`;
  const messages = `${ids}, k(j) AS (SELECT 0 UNION ALL SELECT 1)
INSERT INTO messages (session_id, role, content, timestamp, finish_reason)
SELECT printf('s%05d', i), CASE j WHEN 0 THEN 'user' ELSE 'assistant' END,
  CASE j WHEN 0 THEN 'question ' || i || ': what is in notes.md?' ELSE 'answer ' || i || ': ship on Friday, three open items.' END,
  1789700001 + 10 * i + j, CASE j WHEN 1 THEN 'stop' END
FROM n, k ORDER BY i, j;`;
  sqliteExec(path, ['PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;', SCHEMA, `BEGIN; ${sessions} COMMIT;`, `BEGIN; ${messages} COMMIT;`]);
}
