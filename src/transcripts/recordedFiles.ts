// Other agents' transcripts from disk (docs/recorded.md), told by content: a Claude Code session log
// with the subagent files Claude Code keeps beside it (<session>.jsonl and
// <session>/subagents/agent-*.jsonl), a Codex rollout, or recorded API traffic. Read-only, regular files only.

import { closeSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordedTranscript } from '../shared/model/recorded';
import { readClaudeCode, type ClaudeCodeFile } from './claudeCode';
import type { LineSource } from './jsonLines';
import { readCodex } from './codex';
import { recordedKindOf, type RecordedKind } from './foreign';
import { readApiCapture } from './apiCapture';
import { SNIFF_BYTES } from './read';

/** How much of a file of JSON lines is read at a time. */
const CHUNK_BYTES = 1 << 20;

/**
 * A file's lines read as they come, `chunkBytes` at a time: a log of gigabytes costs a chunk and its
 * longest line, never the whole text (which V8 could not even hold past 512 MiB). Decoded as
 * `readFileSync(path, 'utf8')` decodes (bytes that are not UTF-8 read as U+FFFD).
 */
export function linesOfFile(path: string, chunkBytes = CHUNK_BYTES): LineSource {
  return {
    *[Symbol.iterator]() {
      const fd = openSync(path, 'r');
      try {
        const chunk = Buffer.alloc(chunkBytes);
        let carried: Buffer[] = [];
        let line = 0;
        for (let read = readSync(fd, chunk, 0, chunkBytes, null); read > 0; read = readSync(fd, chunk, 0, chunkBytes, null)) {
          const bytes = chunk.subarray(0, read);
          let start = 0;
          for (let end = bytes.indexOf(10); end !== -1; end = bytes.indexOf(10, start)) {
            const piece = bytes.subarray(start, end);
            yield { text: (carried.length ? Buffer.concat([...carried, piece]) : piece).toString('utf8'), line: ++line, terminated: true };
            carried = [];
            start = end + 1;
          }
          // The chunk is read over next time: what is left of its line is copied out.
          if (start < read) carried.push(Buffer.from(bytes.subarray(start)));
        }
        if (carried.length) yield { text: Buffer.concat(carried).toString('utf8'), line: ++line, terminated: false };
      } finally {
        closeSync(fd);
      }
    },
  };
}

function fileOf(path: string): ClaudeCodeFile | null {
  try {
    return statSync(path).isFile() ? { path, lines: linesOfFile(path) } : null;
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
  if (kind === 'codex') return readCodex(path, linesOfFile(path));
  // A capture is one document (a HAR, a cassette), or lines whose requests are kept to be compared.
  return readApiCapture(path, readFileSync(path, 'utf8'), kind);
}

export function loadClaudeCode(path: string): RecordedTranscript {
  const main = fileOf(path);
  if (!main) throw new Error(`${path}: not a readable file`);
  const subagents = subagentFilesOf(path)
    .map(fileOf)
    .filter((f): f is ClaudeCodeFile => f !== null);
  return readClaudeCode(main, subagents);
}
