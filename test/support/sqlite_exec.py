"""Runs SQL scripts on a database with real SQLite (python3's sqlite3), for the readers' tests.

    python3 test/support/sqlite_exec.py [--wal] [--copy PREFIX] [--exit-open] [--] DB SCRIPT...

Each SCRIPT goes through executescript() in autocommit mode (a script holds its own BEGIN/COMMIT
when its statements must commit together). --wal: journal_mode=WAL without auto-checkpoint, so
committed frames stay in DB-wal. --copy PREFIX: once the scripts have run and while the connection
is still open (closing it would checkpoint), DB is copied to PREFIX.db and DB-wal, if there is one,
to PREFIX.db-wal. --exit-open: the process ends without closing the connection, as a writer that
dies would, leaving its WAL behind.
"""
import argparse
import os
import shutil
import sqlite3

parser = argparse.ArgumentParser()
parser.add_argument('db')
parser.add_argument('scripts', nargs='*')
parser.add_argument('--wal', action='store_true')
parser.add_argument('--copy')
parser.add_argument('--exit-open', action='store_true')
args = parser.parse_args()

c = sqlite3.connect(args.db, isolation_level=None)
if args.wal:
    c.execute('PRAGMA journal_mode=WAL')
    c.execute('PRAGMA wal_autocheckpoint=0')
for script in args.scripts:
    c.executescript(script)
if args.copy:
    shutil.copyfile(args.db, args.copy + '.db')
    if os.path.exists(args.db + '-wal'):
        shutil.copyfile(args.db + '-wal', args.copy + '.db-wal')
if args.exit_open:
    os._exit(0)
c.close()
