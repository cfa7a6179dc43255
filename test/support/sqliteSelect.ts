// Rows of SQL queries read by real SQLite (test/support/sqlite_select.py through python3's sqlite3).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { PYTHON } from './python';

const SQLITE_SELECT_PY = join(__dirname, 'sqlite_select.py');

/**
 * Each query's rows, a row an object keyed by the query's column names (rename with AS), from `db`
 * opened read-only. T is the shape the caller's queries give (JSON values; not checked here).
 */
export function sqliteSelect<T extends Record<string, unknown[]>>(db: string, queries: { [K in keyof T]: string }): T {
  const r = spawnSync(PYTHON, [SQLITE_SELECT_PY, db], { input: JSON.stringify(queries), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`sqlite_select.py ${db} failed (${r.error?.message ?? `exit ${r.status}`}): ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}
