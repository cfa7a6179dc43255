"""Every value of every ordinary table of an SQLite database, exactly (test/transcripts/sqliteOracle.ts).

    python3 test/support/sqlite_dump.py DB        prints the dump of DB as JSON
    from sqlite_dump import dump                  dump(connection, skip=()) from a writer script

A table's rows come in b-tree order (rowid, or a WITHOUT ROWID table's primary key with its
collations and directions), its columns as table_xinfo lists them less the virtual generated
ones; a value is [kind, text]: ['n'], ['i', decimal], ['f', repr], ['t', text], ['b', hex].
"""
import json
import sqlite3
import sys


def dump(c, skip=()):
    out = {}
    for (name,) in c.execute("SELECT name FROM sqlite_master WHERE type='table' AND sql NOT LIKE 'CREATE VIRTUAL%'").fetchall():
        if name in skip: continue
        q = name.replace('"', '""')
        order = 'rowid'
        if c.execute("SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?", (name,)).fetchone()[0]:
            # A WITHOUT ROWID table's b-tree order: its primary key's columns, collations and directions.
            pk = c.execute("SELECT name FROM pragma_index_list(?) WHERE origin = 'pk'", (name,)).fetchone()[0]
            keys = [r for r in c.execute('PRAGMA index_xinfo("%s")' % pk.replace('"', '""')).fetchall() if r[5]]
            order = ', '.join('"%s" COLLATE "%s" %s' % (r[2].replace('"', '""'), r[4], 'DESC' if r[3] else 'ASC') for r in keys)
        cols = [r[1] for r in c.execute('PRAGMA table_xinfo("%s")' % q).fetchall() if r[6] != 2]
        def enc(v):
            if v is None: return ['n']
            if isinstance(v, int): return ['i', str(v)]
            if isinstance(v, float): return ['f', repr(v)]
            if isinstance(v, str): return ['t', v]
            return ['b', bytes(v).hex()]
        sel = ', '.join('"%s"' % x.replace('"', '""') for x in cols)
        rows = [[enc(v) for v in r] for r in c.execute('SELECT %s FROM "%s" ORDER BY %s' % (sel, q, order))]
        out[name] = {'columns': cols, 'rows': rows}
    return out


if __name__ == '__main__':
    print(json.dumps(dump(sqlite3.connect(sys.argv[1]))))
