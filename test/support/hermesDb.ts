// Hermes state.db files written by real SQLite (test/support/hermes_db.py through python3's sqlite3)
// with the agent's table and column names (hermes-reference.md §3.2), for the state.db reader's tests.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { PYTHON } from './python';

export interface SessionSpec {
  id: string;
  parent?: string;
  endReason?: string;
  startedAt: number;
  title?: string;
  /** The prompt by hash (system_prompts) rather than inline. */
  hashedPrompt?: boolean;
}

/** [session id, role, content], in id order. */
export type MessageSpec = [string, 'user' | 'assistant', string];

export const HERMES_DB_PY = join(__dirname, 'hermes_db.py');

/** Writes a state.db at `path` with these sessions and messages (and adds a column midway, as a migration would). */
export function writeHermesDb(path: string, sessions: SessionSpec[], messages: MessageSpec[]): void {
  execFileSync(PYTHON, [HERMES_DB_PY, path], { input: JSON.stringify({ sessions, messages }) });
}

/** `sessions` filler sessions of `messages` rows of `bytes` each, with a small rotated lineage (p -> t) spread through them. */
export function writeLargeHermesDb(path: string, sessions: number, messages: number, bytes: number): void {
  execFileSync(PYTHON, [HERMES_DB_PY, '--large', path, String(sessions), String(messages), String(bytes)]);
}

// a -> b -> c by rotation (each parent ended with 'compression'); d -> e a branch; f alone. Rows interleave.
export const LINEAGE_SESSIONS: SessionSpec[] = [
  { id: 'a', startedAt: 1, endReason: 'compression', title: 'first', hashedPrompt: true },
  { id: 'b', parent: 'a', startedAt: 2, endReason: 'compression', hashedPrompt: true },
  { id: 'c', parent: 'b', startedAt: 3, title: 'third', hashedPrompt: true },
  { id: 'd', startedAt: 4, endReason: 'branched' },
  { id: 'e', parent: 'd', startedAt: 5 },
  { id: 'f', startedAt: 6, title: 'alone' },
];
const LINEAGE_MESSAGES: MessageSpec[] = [];
for (let turn = 0; turn < 6; turn++) {
  for (const s of LINEAGE_SESSIONS) {
    LINEAGE_MESSAGES.push([s.id, 'user', `${s.id} question ${turn} ${'words '.repeat(turn * 400)}`], [s.id, 'assistant', `${s.id} answer ${turn}`]);
  }
}

/** Six sessions in three lineages, their rows interleaved: a -> b -> c rotated, d -> e branched, f alone. */
export function writeLineageDb(path: string): void {
  writeHermesDb(path, LINEAGE_SESSIONS, LINEAGE_MESSAGES);
}
