"""A state.db caught in the middle of a write transaction, with its hot rollback journal, for
test/transcripts/hotJournal.test.ts (issue 19, item 5).

    python3 test/support/hot_journal.py catch DB COPY
        Opens DB in rollback-journal mode with a small page cache (so the transaction spills to the
        file), begins a transaction that adds two turns to session s1 and rewrites message 1, copies
        DB and DB-journal to COPY and COPY-journal while it is open, then rolls it back.
    python3 test/support/hot_journal.py count DB
        Opens DB as real SQLite does (rolling a hot journal back) and prints the number of messages
        and how many of them were never committed, as JSON.
"""
import json
import shutil
import sqlite3
import sys


def catch(db, copy):
    c = sqlite3.connect(db, isolation_level=None)
    c.execute('PRAGMA journal_mode=DELETE')
    c.execute('PRAGMA cache_size=-16')
    c.execute('BEGIN')
    for t in range(2):
        for role, text in (('user', 'Uncommitted question %d? ' % t + 'x' * 3000), ('assistant', 'Uncommitted answer %d.' % t)):
            c.execute("INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s1', ?, ?, 1789727000)", (role, text))
    c.execute("UPDATE messages SET content = 'rewritten, never committed' WHERE id = 1")
    shutil.copyfile(db, copy)
    shutil.copyfile(db + '-journal', copy + '-journal')
    c.execute('ROLLBACK')


def count(db):
    c = sqlite3.connect(db)
    total, uncommitted = c.execute("SELECT count(*), sum(content LIKE 'Uncommitted%') FROM messages").fetchone()
    print(json.dumps({'messages': total, 'uncommitted': uncommitted}))


if __name__ == '__main__':
    if sys.argv[1:2] == ['catch'] and len(sys.argv) == 4:
        catch(sys.argv[2], sys.argv[3])
    elif sys.argv[1:2] == ['count'] and len(sys.argv) == 3:
        count(sys.argv[2])
    else:
        sys.exit(__doc__)
