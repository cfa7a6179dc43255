"""Hermes state.db files written by real SQLite (python3's sqlite3) with the agent's table and
column names (hermes-reference.md section 3.2), for the state.db reader's tests.

    python3 test/support/hermes_db.py PATH < SPEC.json
        SPEC = {"sessions": [{id, parent?, endReason?, startedAt, title?, hashedPrompt?}, ...],
                "messages": [[session id, role, content], ...]}, messages in id order; a column is
        added midway through the messages, as a migration would.
    python3 test/support/hermes_db.py --large PATH SESSIONS MESSAGES BYTES
        SESSIONS filler sessions of MESSAGES rows of BYTES each, with a small rotated lineage
        (p -> t, prompts by hash) spread through them (issue #5: a state.db above 500 MB).
"""
import json
import sqlite3
import sys

SCHEMA = """
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
"""


def create(path, page_size=4096):
    c = sqlite3.connect(path)
    c.execute('PRAGMA page_size=%d' % page_size)
    c.executescript(SCHEMA)
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


def from_spec(path, spec):
    c = create(path)
    for s in spec['sessions']:
        add_session(c, s)
    half = len(spec['messages']) // 2
    for i, (sid, role, content) in enumerate(spec['messages']):
        if i == half:
            c.execute('ALTER TABLE messages ADD COLUMN reasoning_content TEXT')
        add_message(c, sid, role, content, 1000.0 + i)
    finish(c)
    c.close()


def large(path, sessions, messages, size):
    c = create(path)
    c.execute('PRAGMA journal_mode=OFF')
    c.execute('PRAGMA synchronous=OFF')
    add_session(c, {'id': 'p', 'startedAt': 0, 'endReason': 'compression', 'title': 'parent', 'hashedPrompt': True})
    add_session(c, {'id': 't', 'parent': 'p', 'startedAt': 0.5, 'title': 'the one to load', 'hashedPrompt': True})
    for s in range(sessions):
        add_session(c, {'id': 'big%02d' % s, 'startedAt': 1 + s})
    ts = 0
    for m in range(messages):
        for s in range(sessions):
            ts += 1
            add_message(c, 'big%02d' % s, 'user' if m % 2 == 0 else 'assistant', ('%08d' % ts) + 'x' * size, ts)
        if m % 15 == 0:
            sid = 'p' if m < 45 else 't'
            add_message(c, sid, 'user', 'question %d from %s' % (m, sid), ts + 0.1)
            add_message(c, sid, 'assistant', 'answer %d from %s' % (m, sid), ts + 0.2)
    finish(c)
    c.close()


if __name__ == '__main__':
    if sys.argv[1] == '--large':
        large(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    else:
        from_spec(sys.argv[1], json.loads(sys.stdin.read()))
