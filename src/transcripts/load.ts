// The one module that touches the file system, for the CLI and the extension host: the file, its
// WAL, request dumps beside it, and sql.js on demand. Everything is opened read-only; nothing is
// ever written next to a transcript.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import type { Transcript } from './model';
import { readCapturedRequests, readTranscript, sniffFormat } from './read';

let sqlPromise: Promise<SqlJsStatic> | null = null;

/** sql.js with its wasm found beside the bundle (dist/) or in node_modules when run from source. */
function loadSql(): Promise<SqlJsStatic> {
  if (!sqlPromise) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const init = require('sql.js/dist/sql-wasm.js') as (config: { locateFile: (f: string) => string }) => Promise<SqlJsStatic>;
    const beside = join(__dirname, 'sql-wasm.wasm');
    const wasm = existsSync(beside) ? beside : require.resolve('sql.js/dist/sql-wasm.wasm');
    sqlPromise = init({ locateFile: () => wasm });
  }
  return sqlPromise;
}

export class UnopenablePath extends Error {}

export async function loadTranscript(path: string): Promise<Transcript> {
  let bytes: Uint8Array;
  try {
    if (statSync(path).isDirectory()) throw new UnopenablePath(`${path}: is a directory`);
    bytes = readFileSync(path);
  } catch (e) {
    if (e instanceof UnopenablePath) throw e;
    throw new UnopenablePath(`${path}: cannot open (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  const format = sniffFormat(path, bytes);
  const sql = format === 'hermes-state-db' ? await loadSql() : null;
  const walPath = `${path}-wal`;
  const wal = format === 'hermes-state-db' && existsSync(walPath) ? readFileSync(walPath) : undefined;
  const transcript = readTranscript({ path, bytes, wal, sql: () => sql as SqlJsStatic });
  if (format === 'hermes-state-db' || format === 'hermes-session-json') {
    const ids = new Set(transcript.sessions.map((s) => s.id));
    const dumps = findDumps(path, format).filter((f) => [...ids].some((id) => basename(f).startsWith(`request_dump_${id}_`)));
    transcript.captured = readCapturedRequests(dumps.map((p) => ({ path: p, bytes: readFileSync(p) })), transcript.findings);
  }
  return transcript;
}

/** Dumps live in the session JSON's folder, or in sessions/ beside a state.db (HERMES_HOME layout). */
function findDumps(path: string, format: string): string[] {
  const dirs = [dirname(path)];
  if (format === 'hermes-state-db') dirs.push(join(dirname(path), 'sessions'));
  const out: string[] = [];
  for (const dir of dirs) {
    let names: string[];
    try { names = readdirSync(dir); } catch { continue; }
    for (const n of names.sort()) if (/^request_dump_.*\.json$/.test(n) && join(dir, n) !== join(path)) out.push(join(dir, n));
  }
  return out;
}
