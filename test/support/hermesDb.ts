// Hermes state.db files written by real SQLite (test/support/hermes_db.py through python3's sqlite3)
// with the agent's table and column names (hermes-reference.md §3.2), for the state.db reader's tests.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

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
  execFileSync('python3', [HERMES_DB_PY, path], { input: JSON.stringify({ sessions, messages }) });
}

/** `sessions` filler sessions of `messages` rows of `bytes` each, with a small rotated lineage (p -> t) spread through them. */
export function writeLargeHermesDb(path: string, sessions: number, messages: number, bytes: number): void {
  execFileSync('python3', [HERMES_DB_PY, '--large', path, String(sessions), String(messages), String(bytes)]);
}
