// Claude Code's session log (~/.claude/projects/<project>/<session>.jsonl, its subagents in
// <session>/subagents/agent-*.jsonl) read into the recorded model (docs/recorded.md). One JSON
// record a line. A provider call is one `message.id`: a streamed response is written over several
// assistant lines whose usage grows, so the last line's usage is kept, never a sum. Turns start at
// the user's own lines (not tool results, not meta lines). A `compact_boundary` system line is a
// compaction, its `isCompactSummary` user line the summary that replaces the history. The log holds
// no system prompt, no tool schemas and no request bytes.

import type { InputFinding, SourcePos } from '../shared/model/transcript';
import type { RecordedAfter, RecordedCall, RecordedSession, RecordedSessionKind, RecordedTranscript, RecordedTurn } from '../shared/model/recorded';
import { parseError } from './acceptRow';
import { eachRecord, isObject, PROMPT_CHARS, str, timeOf, UnknownTypes, type LineSource } from './jsonLines';
import { recordedUsageOf } from './providerUsage';

export interface ClaudeCodeFile {
  path: string;
  lines: LineSource;
}

type Obj = Record<string, unknown>;

/** Record types read or knowingly passed over; any other costs its lines one finding per type. */
const KNOWN_TYPES = new Set([
  'user',
  'assistant',
  'system',
  'summary',
  'progress',
  'file-history-snapshot',
  'queue-operation',
  'custom-title',
  'ai-title',
  'mode',
  'permission-mode',
  'agent-name',
  'last-prompt',
  'attachment',
  'pr-link',
]);

/** The user's own words in a user line; null for a line of tool results only. */
export function promptOf(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const texts = content.filter((b): b is Obj => isObject(b) && b.type !== 'tool_result');
  if (!texts.length) return null;
  return texts.map((b) => str(b.text) ?? `[${str(b.type) ?? 'block'}]`).join('\n');
}

/** The titles a log gives, by who gave it. */
export interface ClaudeCodeTitles {
  custom?: string;
  ai?: string;
  summary?: string;
}

/**
 * Keeps a title record's title; false for a record that is none. `custom-title` is the user's
 * `/rename` (`customTitle`), `ai-title` Claude Code's own (2.1 on; `aiTitle`), both the latest
 * written winning; an older layout's `summary`, the first.
 */
export function noteTitle(titles: ClaudeCodeTitles, v: Obj, type: unknown): boolean {
  const text =
    type === 'custom-title'
      ? (str(v.customTitle) ?? str(v.title))
      : type === 'ai-title'
        ? (str(v.aiTitle) ?? str(v.title))
        : type === 'summary'
          ? str(v.summary)
          : null;
  if (text === null || !text.trim()) return type === 'custom-title' || type === 'ai-title' || type === 'summary';
  if (type === 'custom-title') titles.custom = text;
  else if (type === 'ai-title') titles.ai = text;
  else titles.summary ??= text;
  return true;
}

/** The title shown: the user's, else Claude Code's, else a summary's. */
export const claudeCodeTitle = (t: ClaudeCodeTitles): string | null => t.custom ?? t.ai ?? t.summary ?? null;

/** What a user line is to the call that answers it. */
function userLineKind(v: Obj, message: Obj): RecordedAfter['what'] {
  if (v.isCompactSummary === true) return 'compaction summary';
  if (v.isMeta === true) return 'other';
  return promptOf(message.content) === null ? 'tool result' : 'prompt';
}

/** One file's sessions: its own (main, or the subagent it is), and the sidechains an old-layout file holds inline. */
class FileReader {
  private readonly sessions = new Map<string, RecordedSession>();
  private readonly callsOf = new Map<RecordedSession, Map<string, RecordedCall>>();
  private readonly unknownTypes = new UnknownTypes('Claude Code');
  agentVersion: string | null = null;
  /** The titles the file gives, by kind: the title is the user's, else Claude Code's, else a summary's. */
  readonly titles: ClaudeCodeTitles = {};
  /** The user and assistant lines by uuid: what a call answered is named by its parent's. */
  private readonly messages = new Map<string, RecordedAfter>();
  /** Assistant lines of model "<synthetic>": counted in one finding, never calls. */
  private synthetic = 0;

  constructor(
    private readonly file: ClaudeCodeFile,
    private readonly own: { id: string; parentId: string | null; kind: RecordedSessionKind },
    private readonly findings: InputFinding[],
  ) {}

  read(): RecordedSession[] {
    const { path, lines } = this.file;
    eachRecord(path, lines, this.findings, 'Claude Code', (v, type, line) => {
      this.agentVersion ??= str(v.version);
      this.record(v, type, { line, column: 1 });
    });
    this.findings.push(...this.unknownTypes.findings(path));
    if (this.synthetic)
      this.findings.push({
        severity: 'info',
        code: 'parse-error',
        pos: { line: 1, column: 1 },
        message: `${path}:1: ${this.synthetic} assistant line${this.synthetic === 1 ? '' : 's'} of model "<synthetic>" (Claude Code's own notes): no call`,
      });
    return [...this.sessions.values()];
  }

  private record(v: Obj, type: string, pos: SourcePos): void {
    if (!KNOWN_TYPES.has(type)) {
      this.unknownTypes.add(type, pos.line as number);
      return;
    }
    if (noteTitle(this.titles, v, type)) return;
    if (type !== 'user' && type !== 'assistant' && type !== 'system') return;
    const session = this.sessionOf(v);
    if (type === 'system') {
      if (v.subtype !== 'compact_boundary') return;
      const meta = isObject(v.compactMetadata) ? v.compactMetadata : {};
      const preTokens = meta.preTokens;
      session.compactions.push({
        trigger: str(meta.trigger),
        preTokens: typeof preTokens === 'number' && Number.isFinite(preTokens) ? preTokens : null,
        at: timeOf(v),
        pos: { ...pos, sessionId: session.id },
        summaryPos: null,
        turnIndex: session.turns.length,
      });
      return;
    }
    const message = isObject(v.message) ? v.message : null;
    if (!message) {
      this.findings.push(parseError(`${this.file.path}:${pos.line}: a ${type} line without its "message" object`, pos));
      return;
    }
    if (type === 'user') this.user(session, v, message, pos);
    else this.assistant(session, v, message, pos);
    const uuid = str(v.uuid);
    if (uuid !== null) this.messages.set(uuid, { line: pos.line as number, what: type === 'assistant' ? 'answer' : userLineKind(v, message) });
  }

  private user(session: RecordedSession, v: Obj, message: Obj, pos: SourcePos): void {
    if (v.isCompactSummary === true) {
      const compaction = session.compactions[session.compactions.length - 1];
      if (compaction && !compaction.summaryPos) compaction.summaryPos = { ...pos, sessionId: session.id };
      return;
    }
    if (v.isMeta === true) return;
    const prompt = promptOf(message.content);
    // A local command's output echoed back (`/compact`'s "Compacted …") is no prompt of the user's.
    if (prompt === null || /^<local-command-(stdout|stderr)>/.test(prompt)) return;
    session.turns.push({
      prompt: prompt.slice(0, PROMPT_CHARS),
      at: timeOf(v),
      pos: { ...pos, sessionId: session.id },
      calls: [],
      systemPrompt: null,
      settingsChanged: [],
    });
  }

  private assistant(session: RecordedSession, v: Obj, message: Obj, pos: SourcePos): void {
    const id = str(message.id);
    const model = str(message.model);
    // Claude Code writes its own error notes as assistant lines of model "<synthetic>": no call.
    if (model === '<synthetic>') {
      this.synthetic++;
      return;
    }
    if (id === null) {
      this.findings.push({
        severity: 'warning',
        code: 'parse-error',
        pos,
        message: `${this.file.path}:${pos.line}: an assistant line without its message id: not counted as a call`,
      });
      return;
    }
    let calls = this.callsOf.get(session);
    if (!calls) this.callsOf.set(session, (calls = new Map<string, RecordedCall>()));
    const at = timeOf(v);
    const usage = recordedUsageOf(message.usage, 'anthropic');
    const known = calls.get(id);
    if (known) {
      known.lines++;
      known.lastAt = at ?? known.lastAt;
      known.pos = { ...pos, sessionId: session.id };
      known.usage = usage ?? known.usage;
      known.model ??= model;
      return;
    }
    const call: RecordedCall = {
      id,
      model,
      provider: 'anthropic',
      firstAt: at,
      lastAt: at,
      pos: { ...pos, sessionId: session.id },
      lines: 1,
      usage,
      after: this.messages.get(str(v.parentUuid) ?? '') ?? null,
      wire: null,
    };
    calls.set(id, call);
    let turn: RecordedTurn | undefined = session.turns[session.turns.length - 1];
    // Calls before any prompt of the user's (a resumed session's first answer) get a turn of their own.
    if (!turn || session.compactions.some((c) => c.turnIndex === session.turns.length)) {
      turn = { prompt: '', at, pos: null, calls: [], systemPrompt: null, settingsChanged: [] };
      session.turns.push(turn);
    }
    turn.calls.push(call);
  }

  private sessionOf(v: Obj): RecordedSession {
    // A sidechain inside a main file (the old layout's Task agents) is a session of its own.
    const sidechain = v.isSidechain === true && this.own.kind === 'main';
    const key = sidechain ? `${this.own.id}/sidechain` : this.own.id;
    let session = this.sessions.get(key);
    if (!session) {
      session = sidechain
        ? { id: key, parentId: this.own.id, kind: 'sidechain', file: this.file.path, turns: [], compactions: [] }
        : { ...this.own, file: this.file.path, turns: [], compactions: [] };
      this.sessions.set(key, session);
    }
    return session;
  }
}

/** Where a file's session id is looked for: its first lines. */
const SESSION_ID_CHARS = 64 * 1024;

/** The session id a file's records carry (the first found in its first lines), else its name without `.jsonl`. */
function sessionIdOf(file: ClaudeCodeFile): string {
  let seen = 0;
  for (const { text } of file.lines) {
    const found = /"sessionId"\s*:\s*"([^"\\]{1,200})"/.exec(text);
    if (found) return found[1];
    if ((seen += text.length) > SESSION_ID_CHARS) break;
  }
  return (file.path.split('/').pop() ?? file.path).replace(/\.jsonl$/, '');
}

/** A subagent file's agent id: `agent-<id>.jsonl`. */
function agentIdOf(path: string): string {
  return (path.split('/').pop() ?? path).replace(/^agent-/, '').replace(/\.jsonl$/, '');
}

/**
 * A session log and its subagent files. A subagent whose id starts `acompact` is the compaction
 * call itself (the summarize instruction and its answer), any other a Task subagent.
 */
export function readClaudeCode(main: ClaudeCodeFile, subagents: readonly ClaudeCodeFile[] = []): RecordedTranscript {
  const findings: InputFinding[] = [];
  const id = sessionIdOf(main);
  const mainReader = new FileReader(main, { id, parentId: null, kind: 'main' }, findings);
  const sessions = mainReader.read();
  let agentVersion = mainReader.agentVersion;
  for (const file of [...subagents].sort((a, b) => a.path.localeCompare(b.path))) {
    const agent = agentIdOf(file.path);
    const reader = new FileReader(file, { id: `${id}/${agent}`, parentId: id, kind: agent.startsWith('acompact') ? 'compaction' : 'subagent' }, findings);
    sessions.push(...reader.read());
    agentVersion ??= reader.agentVersion;
  }
  return {
    format: 'claude-code',
    path: main.path,
    agentVersion,
    title: claudeCodeTitle(mainReader.titles),
    records: { systemPrompt: false, tools: false, requestBytes: false, billedUsage: true, compactions: true },
    sessions,
    findings,
  };
}
