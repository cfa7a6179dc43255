"""Rows of SQL queries, read by real SQLite (python3's sqlite3), as JSON, for the readers' tests.

    python3 test/support/sqlite_select.py DB < {"NAME": "SELECT ...", ...}

Prints {"NAME": [{COLUMN: VALUE, ...}, ...]}: a row an object, keyed by the names the query gives
its columns (`ended_at AS endedAt`). DB is opened read-only (mode=ro): a test's store is the oracle
and must not change under the reader that is compared with it.
"""
import json
import sqlite3
import sys

c = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)
out = {}
for name, sql in json.load(sys.stdin).items():
    cursor = c.execute(sql)
    columns = [d[0] for d in cursor.description]
    out[name] = [dict(zip(columns, row)) for row in cursor]
print(json.dumps(out))
