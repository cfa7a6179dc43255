// SQL run on a database by real SQLite (test/support/sqlite_exec.py through python3's sqlite3).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { PYTHON } from './python';

export const SQLITE_EXEC_PY = join(__dirname, 'sqlite_exec.py');

export interface SqliteExecOptions {
  /** journal_mode=WAL without auto-checkpoint: committed frames stay in `${db}-wal`. */
  wal?: boolean;
  /** Copies the database to `${copy}.db` (and its WAL to `${copy}.db-wal`) while the connection is open. */
  copy?: string;
  /** Exits without closing the connection, leaving the WAL behind. */
  exitOpen?: boolean;
}

/** Runs each script through executescript() in autocommit mode (a script holds its own BEGIN/COMMIT). */
export function sqliteExec(db: string, scripts: string[], opts: SqliteExecOptions = {}): void {
  const flags = [...(opts.wal ? ['--wal'] : []), ...(opts.copy ? ['--copy', opts.copy] : []), ...(opts.exitOpen ? ['--exit-open'] : [])];
  const r = spawnSync(PYTHON, [SQLITE_EXEC_PY, ...flags, '--', db, ...scripts], { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`sqlite_exec.py ${db} failed (${r.error?.message ?? `exit ${r.status}`}): ${r.stderr}`);
}
