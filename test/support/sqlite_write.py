"""Writes a database with real SQLite (python3's sqlite3) step by step, for the page reader's tests
(test/transcripts/sqliteOracle.ts writeSqlite).

    python3 test/support/sqlite_write.py DIR < {"autocommit": BOOL, "steps": [[OP, ARG...], ...]}

The steps run in order on one connection `c` to DIR/x.db (isolation_level=None with autocommit,
Python's default otherwise); the connection is closed after the last one:

    ["execute", SQL]            c.execute(SQL), one statement
    ["script", SQL]             c.executescript(SQL)
    ["commit"]                  c.commit()
    ["reopen"]                  c.close(), then a new connection (what another process would read)
    ["copy"]                    x.db to copy.db and x.db-wal to copy.db-wal while c is still open
                                (closing it would checkpoint the WAL into x.db)
    ["expect", SQL, ROWS]       SQL must return ROWS (a list of lists), or the writer fails
    ["expect-error", SQL, TEXT] SQL must fail with an OperationalError whose message holds TEXT
    ["dump"]                    every table's values through c (sqlite_dump.py)
    ["dump-fresh"]              the same through a second connection: the committed state only,
                                while c holds a transaction open
    ["layout"]                  per WITHOUT ROWID table, the column (cid) at each place of its record

Prints {"dump": ..., "layout": ...}, each {} when no step asked for it.
"""
import json
import os
import shutil
import sqlite3
import sys

# The tests run this from the source tree: no __pycache__ next to it.
sys.dont_write_bytecode = True
from sqlite_dump import dump  # noqa: E402 (after the flag above)


def layout(c):
    out = {}
    for (name,) in c.execute("SELECT name FROM pragma_table_list WHERE schema = 'main' AND wr = 1").fetchall():
        pk = c.execute("SELECT name FROM pragma_index_list(?) WHERE origin = 'pk'", (name,)).fetchone()[0]
        out[name] = [r[1] for r in c.execute('PRAGMA index_xinfo("%s")' % pk.replace('"', '""')).fetchall()]
    return out


def main():
    directory = sys.argv[1]
    spec = json.load(sys.stdin)
    path = os.path.join(directory, 'x.db')
    copy = os.path.join(directory, 'copy.db')

    def connect():
        return sqlite3.connect(path, isolation_level=None) if spec.get('autocommit') else sqlite3.connect(path)

    c = connect()
    out = {'dump': {}, 'layout': {}}
    for op, *args in spec['steps']:
        if op == 'execute':
            c.execute(args[0])
        elif op == 'script':
            c.executescript(args[0])
        elif op == 'commit':
            c.commit()
        elif op == 'reopen':
            c.close()
            c = connect()
        elif op == 'copy':
            shutil.copyfile(path, copy)
            shutil.copyfile(path + '-wal', copy + '-wal')
        elif op == 'expect':
            rows = [list(r) for r in c.execute(args[0]).fetchall()]
            assert rows == args[1], '%s: %r, not %r' % (args[0], rows, args[1])
        elif op == 'expect-error':
            try:
                c.execute(args[0])
            except sqlite3.OperationalError as e:
                assert args[1] in str(e), e
            else:
                raise SystemExit('%s: no error, expected one with %r' % (args[0], args[1]))
        elif op == 'dump':
            out['dump'] = dump(c)
        elif op == 'dump-fresh':
            r = sqlite3.connect(path)
            out['dump'] = dump(r)
            r.close()
        elif op == 'layout':
            out['layout'] = layout(c)
        else:
            raise SystemExit('unknown step %r' % op)
    c.close()
    print(json.dumps(out))


main()
