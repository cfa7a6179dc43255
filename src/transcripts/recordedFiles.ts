// Other agents' transcripts from disk (docs/recorded.md), told by content: a Claude Code session log
// with the subagent files Claude Code keeps beside it (<session>.jsonl and
// <session>/subagents/agent-*.jsonl), a Codex rollout, or recorded API traffic. Read-only, regular files only.

import { closeSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordedTranscript } from '../shared/model/recorded';
import { readClaudeCode, type ClaudeCodeFile } from './claudeCode';
import { readCodex } from './codex';
import { recordedKindOf, type RecordedKind } from './foreign';
import { readApiCapture } from './apiCapture';
import { SNIFF_BYTES } from './read';

function textOf(path: string): ClaudeCodeFile | null {
  try {
    return statSync(path).isFile() ? { path, text: readFileSync(path, 'utf8') } : null;
  } catch {
    return null;
  }
}

/** `<session>/subagents/agent-*.jsonl` beside `<session>.jsonl`, by name. */
export function subagentFilesOf(path: string): string[] {
  const dir = join(path.replace(/\.jsonl$/, ''), 'subagents');
  try {
    return readdirSync(dir)
      .filter((n) => /^agent-.+\.jsonl$/.test(n))
      .sort()
      .map((n) => join(dir, n));
  } catch {
    return [];
  }
}

/** The file's first bytes as text; null for what is not a regular file or cannot be read. */
function headOf(path: string): string | null {
  let fd: number | null = null;
  try {
    if (!statSync(path).isFile()) return null;
    fd = openSync(path, 'r');
    const head = Buffer.alloc(SNIFF_BYTES);
    return head.subarray(0, readSync(fd, head, 0, SNIFF_BYTES, 0)).toString('utf8');
  } catch {
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** Which other agent's format the file's first bytes say it is; null for none (or no readable file). */
export function recordedKindAt(path: string): RecordedKind | null {
  const head = headOf(path);
  return head === null ? null : recordedKindOf(head);
}

/** Another agent's transcript read into the recorded model; null for a file of no such format (or none at all). */
export function loadRecorded(path: string, kind = recordedKindAt(path)): RecordedTranscript | null {
  if (kind === null) return null;
  if (kind === 'claude-code') return loadClaudeCode(path);
  const text = readFileSync(path, 'utf8');
  return kind === 'codex' ? readCodex(path, text) : readApiCapture(path, text, kind);
}

export function loadClaudeCode(path: string): RecordedTranscript {
  const main = textOf(path);
  if (!main) throw new Error(`${path}: not a readable file`);
  const subagents = subagentFilesOf(path)
    .map(textOf)
    .filter((f): f is ClaudeCodeFile => f !== null);
  return readClaudeCode(main, subagents);
}
