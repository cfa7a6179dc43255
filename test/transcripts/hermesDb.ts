// Hermes state.db files written by real SQLite (python3's sqlite3) with the agent's table and
// column names (hermes-reference.md §3.2), for the state.db reader's tests.
import { execFileSync } from 'node:child_process';

export interface SessionSpec {
  id: string;
  parent?: string;
  endReason?: string;
  startedAt: number;
  title?: string;
  /** The prompt by hash (system_prompts) rather than inline. */
  hashedPrompt?: boolean;
}

/** [session id, role, content], in id order. */
export type MessageSpec = [string, 'user' | 'assistant', string];

const SCHEMA = `
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE system_prompts (hash TEXT PRIMARY KEY, prompt TEXT NOT NULL);
CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, model TEXT, system_prompt TEXT, system_prompt_hash TEXT,
  parent_session_id TEXT, started_at REAL NOT NULL, ended_at REAL, end_reason TEXT, message_count INTEGER DEFAULT 0,
  tool_call_count INTEGER DEFAULT 0, title TEXT, tool_names TEXT);
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL,
  content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL, token_count INTEGER,
  finish_reason TEXT, reasoning TEXT, _compressed_summary INTEGER DEFAULT 0, active INTEGER DEFAULT 1, compacted INTEGER DEFAULT 0,
  api_content TEXT, display_kind TEXT, display_metadata TEXT);
CREATE INDEX idx_messages_session ON messages(session_id, timestamp);
CREATE VIRTUAL TABLE messages_fts USING fts5(content);
INSERT INTO schema_version VALUES (30);
INSERT INTO system_prompts VALUES ('h1', 'You are Hermes, by hash.');
`;

/** Python that defines `create(path)` (the schema) and `add_session(c, spec)`; messages go through `add_message(c, sid, role, content, ts)`. */
export const HERMES_DB_PY = `
import sqlite3, json
def create(path, page_size=4096):
    c = sqlite3.connect(path)
    c.execute('PRAGMA page_size=%d' % page_size)
    c.executescript(${JSON.stringify(SCHEMA)})
    return c
def add_session(c, s):
    c.execute("INSERT INTO sessions (id, source, model, system_prompt, system_prompt_hash, parent_session_id, started_at, end_reason, title) VALUES (?, 'cli', 'openai/gpt-5.5', ?, ?, ?, ?, ?, ?)",
              (s['id'], None if s.get('hashedPrompt') else 'You are Hermes (' + s['id'] + ').', 'h1' if s.get('hashedPrompt') else None,
               s.get('parent'), s['startedAt'], s.get('endReason'), s.get('title')))
def add_message(c, sid, role, content, ts):
    c.execute("INSERT INTO messages (session_id, role, content, timestamp, finish_reason) VALUES (?, ?, ?, ?, ?)",
              (sid, role, content, ts, 'stop' if role == 'assistant' else None))
def finish(c):
    c.execute("UPDATE sessions SET message_count = (SELECT count(*) FROM messages WHERE session_id = sessions.id)")
    c.commit()
`;

/** Writes a state.db at `path` with these sessions and messages (and adds a column midway, as a migration would). */
export function writeHermesDb(path: string, sessions: SessionSpec[], messages: MessageSpec[]): void {
  execFileSync('python3', ['-c', `${HERMES_DB_PY}
import sys
spec = json.loads(sys.stdin.read())
c = create(${JSON.stringify(path)})
for s in spec['sessions']: add_session(c, s)
half = len(spec['messages']) // 2
for i, (sid, role, content) in enumerate(spec['messages']):
    if i == half: c.execute('ALTER TABLE messages ADD COLUMN reasoning_content TEXT')
    add_message(c, sid, role, content, 1000.0 + i)
finish(c)
c.close()`], { input: JSON.stringify({ sessions, messages }) });
}
