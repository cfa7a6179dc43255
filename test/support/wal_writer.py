"""A writer that keeps a state.db open in WAL mode (test/robustness/bad-input.slow.test.ts):

    python3 test/support/wal_writer.py STATE_DB

commits one more turn, then opens a transaction big enough to spill uncommitted frames into the
WAL, prints "ready" and waits for a line on stdin before rolling back.
"""
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute('PRAGMA journal_mode=WAL')
c.execute('PRAGMA wal_autocheckpoint=0')
c.execute('PRAGMA cache_size=8')
c.execute('BEGIN')
c.execute("INSERT INTO messages(session_id, role, content, timestamp) VALUES ('live', 'user', 'committed question', 5)")
c.execute("INSERT INTO messages(session_id, role, content, timestamp) VALUES ('live', 'assistant', 'committed answer', 6)")
c.execute('COMMIT')
c.execute('BEGIN')
for i in range(400):
    c.execute("INSERT INTO messages(session_id, role, content, timestamp) VALUES ('live', 'user', ?, 7)", ('uncommitted %d ' % i + 'x' * 3000,))
print('ready', flush=True)
sys.stdin.readline()
c.execute('ROLLBACK')
c.close()
