// Other agents' session folders listed (docs/recorded.md "Finding them"): Claude Code's projects
// folder (<root>/<project>/<session>.jsonl, subagents in <session>/subagents/) and Codex's sessions
// folder (<root>/YYYY/MM/DD/rollout-*.jsonl). Each file is told from its first lines only (a listing
// of thousands of sessions cannot read them whole): its id, start, working directory and title.

import { closeSync, openSync, readdirSync, readSync, statSync, type Dirent } from 'node:fs';
import { basename, join } from 'node:path';
import type { AgentFolderListing, AgentName, AgentProject, AgentSessionFile } from '../shared/agentFolderTypes';
import { isObject, PROMPT_CHARS, str } from './jsonLines';
import { claudeCodeTitle, noteTitle, promptOf, type ClaudeCodeTitles } from './claudeCode';
import { codexUserPrompt, earlyPrompt } from './codex';
import { recordedKindAt, subagentFilesOf } from './recordedFiles';

/** What a listing reads of each file at first, and at most when its title is further on. */
const HEAD_BYTES = 64 * 1024;
const LONG_HEAD_BYTES = 256 * 1024;

/** Folders deeper than Codex's YYYY/MM/DD are not walked. */
const CODEX_DEPTH = 3;

type Obj = Record<string, unknown>;

interface Head {
  id: string | null;
  title: string | null;
  startedAt: string | null;
  cwd: string | null;
}

/** The complete lines of a file's first bytes, parsed; a line that does not parse is passed over. */
function recordsOf(head: string, whole: boolean): Obj[] {
  const lines = head.split('\n');
  if (!whole) lines.pop(); // cut off where the head ends
  const records: Obj[] = [];
  for (const line of lines) {
    try {
      const v: unknown = JSON.parse(line);
      if (isObject(v)) records.push(v);
    } catch {
      // a broken line costs only itself here; opening the file says where
    }
  }
  return records;
}

const titleOf = (text: string | null): string | null => {
  const t = text?.trim().replace(/\s+/g, ' ');
  return t ? t.slice(0, PROMPT_CHARS) : null;
};

/**
 * A Claude Code prompt as its user typed it: the reminders Claude Code wraps in are taken off and a
 * slash command reads as typed (`/init args`), so a list of sessions shows what each was started with.
 */
export function typedPrompt(text: string): string {
  const command = /<command-name>([\s\S]*?)<\/command-name>/.exec(text);
  if (command) {
    const args = /<command-args>([\s\S]*?)<\/command-args>/.exec(text)?.[1] ?? '';
    return `${command[1].trim()} ${args.trim()}`.trim();
  }
  return text.replace(/<system-reminder>[\s\S]*?(<\/system-reminder>|$)/g, '');
}

/** A Claude Code log's first lines: the title it was given (the user's, Claude Code's, a summary's) or the user's first own prompt. */
export function claudeCodeHead(records: Obj[]): Head {
  const head: Head = { id: null, title: null, startedAt: null, cwd: null };
  const named: ClaudeCodeTitles = {};
  let prompt: string | null = null;
  for (const v of records) {
    head.id ??= str(v.sessionId);
    head.cwd ??= str(v.cwd);
    head.startedAt ??= str(v.timestamp);
    if (noteTitle(named, v, v.type)) continue;
    if (v.type === 'user' && prompt === null && v.isMeta !== true && v.isCompactSummary !== true && v.isSidechain !== true) {
      const text = isObject(v.message) ? promptOf(v.message.content) : null;
      prompt = titleOf(text === null ? null : typedPrompt(text));
    }
  }
  return { ...head, title: titleOf(claudeCodeTitle(named)) ?? prompt };
}

/** A Codex rollout's first lines: session_meta's id, start and working directory, the first user message as its title. */
export function codexHead(records: Obj[]): Head {
  const head: Head = { id: null, title: null, startedAt: null, cwd: null };
  for (const [i, v] of records.entries()) {
    // An early rollout: a bare header first, then bare response items.
    if (i === 0 && v.type === undefined && str(v.id) !== null) {
      head.id = str(v.id);
      head.cwd = str(v.cwd);
      head.startedAt = str(v.timestamp);
      continue;
    }
    if (head.id !== null && v.payload === undefined) head.title ??= titleOf(earlyPrompt(v));
    const p = isObject(v.payload) ? v.payload : null;
    if (!p) continue;
    if (v.type === 'session_meta') {
      head.id ??= str(p.id);
      head.cwd ??= str(p.cwd);
      head.startedAt ??= str(p.timestamp) ?? str(v.timestamp);
    } else if (v.type === 'turn_context') head.cwd ??= str(p.cwd);
    else if (v.type === 'event_msg') head.title ??= titleOf(codexUserPrompt(p));
  }
  return head;
}

const HEAD_OF: Record<AgentName, (records: Obj[]) => Head> = { 'claude-code': claudeCodeHead, codex: codexHead };

function readHead(path: string, agent: AgentName, size: number): Head {
  const fd = openSync(path, 'r');
  try {
    let head: Head | null = null;
    for (const length of [HEAD_BYTES, LONG_HEAD_BYTES]) {
      const bytes = Buffer.alloc(Math.min(size, length));
      const read = readSync(fd, bytes, 0, bytes.length, 0);
      head = HEAD_OF[agent](recordsOf(bytes.subarray(0, read).toString('utf8'), read >= size));
      if (head.title !== null || read >= size) break;
    }
    return head!;
  } finally {
    closeSync(fd);
  }
}

/** A session file as listed; null for what is not a regular file or cannot be read. */
function sessionFile(path: string, agent: AgentName): (AgentSessionFile & { cwd: string | null }) | null {
  try {
    const st = statSync(path);
    if (!st.isFile()) return null;
    const { id, title, startedAt, cwd } = readHead(path, agent, st.size);
    const subagents = agent === 'claude-code' ? subagentFilesOf(path).length : 0;
    return { path, id, title, startedAt, modifiedMs: st.mtimeMs, bytes: st.size, subagents, cwd };
  } catch {
    return null;
  }
}

function entries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

const newestFirst = (a: { modifiedMs: number }, b: { modifiedMs: number }): number => b.modifiedMs - a.modifiedMs;
const latest = (p: AgentProject): number => p.sessions[0]?.modifiedMs ?? 0;

function claudeCodeProjects(root: string): AgentProject[] {
  const projects: AgentProject[] = [];
  // The projects folder holds one folder per project; a project's own folder given holds its sessions.
  const folders = [root, ...entries(root).flatMap((dir) => (dir.isDirectory() ? [join(root, dir.name)] : []))];
  for (const folder of folders) {
    const found = entries(folder)
      .filter((f) => f.isFile() && f.name.endsWith('.jsonl'))
      .map((f) => sessionFile(join(folder, f.name), 'claude-code'))
      .filter((f) => f !== null)
      .sort(newestFirst);
    if (!found.length) continue;
    // Claude Code names the folder after the working directory with its separators replaced: the
    // sessions' own cwd says it exactly.
    const project = found.find((f) => f.cwd !== null)?.cwd ?? basename(folder);
    projects.push({ project, folder, sessions: found.map(({ cwd: _, ...file }) => file) });
  }
  return projects.sort((a, b) => latest(b) - latest(a));
}

function codexProjects(root: string): AgentProject[] {
  const files: string[] = [];
  const walk = (dir: string, depth: number): void => {
    for (const e of entries(dir)) {
      if (e.isDirectory() && depth < CODEX_DEPTH) walk(join(dir, e.name), depth + 1);
      else if (e.isFile() && /^rollout-.*\.jsonl$/.test(e.name)) files.push(join(dir, e.name));
    }
  };
  walk(root, 0);
  const byProject = new Map<string, AgentSessionFile[]>();
  for (const path of files) {
    const found = sessionFile(path, 'codex');
    if (!found) continue;
    const { cwd, ...file } = found;
    const project = cwd ?? 'working directory not recorded';
    const sessions = byProject.get(project);
    if (sessions) sessions.push(file);
    else byProject.set(project, [file]);
  }
  return [...byProject].map(([project, sessions]) => ({ project, folder: null, sessions: sessions.sort(newestFirst) })).sort((a, b) => latest(b) - latest(a));
}

/**
 * Whose folder `root` is, by content: the first session file found (breadth first, as deep as
 * Codex's YYYY/MM/DD) told by its first bytes; a folder with none is read as Claude Code's.
 */
export function agentOfFolder(root: string): AgentName {
  let level = [root];
  for (let depth = 0; depth <= CODEX_DEPTH && level.length; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      for (const e of entries(dir)) {
        const path = join(dir, e.name);
        if (e.isDirectory()) next.push(path);
        else if (e.isFile() && e.name.endsWith('.jsonl')) {
          const kind = recordedKindAt(path);
          if (kind === 'codex' || kind === 'claude-code') return kind;
        }
      }
    }
    level = next;
  }
  return 'claude-code';
}

/** The sessions of an agent's folder, grouped by project; a folder that cannot be read says so. */
export function listAgentFolder(agent: AgentName, root: string): AgentFolderListing {
  try {
    if (!statSync(root).isDirectory()) return { agent, root, projects: [], problem: `${root} is not a folder` };
  } catch {
    return { agent, root, projects: [], problem: `${root} does not exist or cannot be read` };
  }
  return { agent, root, projects: agent === 'claude-code' ? claudeCodeProjects(root) : codexProjects(root), problem: null };
}
