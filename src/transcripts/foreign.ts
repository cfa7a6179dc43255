// Files that are not a transcript we read, told by their content: another agent's session log
// (Claude Code, Codex), recorded HTTP traffic, JSON or JSON lines of some other kind. Such a file
// gets one `not-a-transcript` finding saying what it looks like, not a parse-error per line.

import type { InputFinding, SourcePos } from '../shared/model/transcript';
import { parseJson } from './pythonJson';

/** The formats of the README's Inputs table. */
const WE_READ =
  'Prompt Inspector reads Hermes state.db, session JSON (session_*.json), request dumps (request_dump_*.json) and turn-trace JSONL (and, as recorded, Claude Code session logs, Codex rollouts and recorded API traffic)';

function notATranscript(path: string, what: string, pos: SourcePos): InputFinding {
  return {
    // An error, as for any input that yields nothing: nothing in the file was checked, so `check`
    // must not pass it (exit 1), and a CI glob that picks up another tool's logs gets noticed.
    severity: 'error',
    code: 'not-a-transcript',
    pos,
    message: `${path}:${pos.line ?? 1}: not a transcript: this looks like ${what}; ${WE_READ}`,
  };
}

/** A value parsed from the line it starts at. */
export interface ParsedLine {
  line: number;
  value: unknown;
}

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string';

/**
 * A string from the file, quoted, cut to 40 characters, and with everything but printable ASCII
 * escaped: it is printed in a finding, which must never carry a control or bidi character.
 */
function quote(s: string): string {
  const quoted = JSON.stringify(s.slice(0, 40)).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return s.length > 40 ? `${quoted.slice(0, -1)}…"` : quoted;
}

const keysOf = (o: Obj): string => {
  const keys = Object.keys(o);
  return keys.length ? `${keys.slice(0, 6).map(quote).join(', ')}${keys.length > 6 ? ', …' : ''}` : 'none';
};

const count = (n: number, what: string): string => `${n.toLocaleString('en-US')} ${what}${n === 1 ? '' : 's'}`;

/**
 * Claude Code's session log (~/.claude/projects/<project>/<session>.jsonl): every record names its
 * session and links to its parent by uuid, except the summary and file-snapshot records.
 */
function claudeCode(v: Obj): string | null {
  const { type } = v;
  if (!isString(type)) return null;
  if (type === 'summary' && isString(v.leafUuid)) return `"type": "summary" with "leafUuid"`;
  if (type === 'file-history-snapshot' && isString(v.messageId)) return `"type": "file-history-snapshot" with "messageId"`;
  if (!isString(v.sessionId)) return null;
  if (isString(v.uuid) || 'parentUuid' in v) return `"type": ${quote(type)} with "sessionId" and ${isString(v.uuid) ? '"uuid"' : '"parentUuid"'}`;
  return type === 'queue-operation' || type === 'progress' ? `"type": ${quote(type)} with "sessionId"` : null;
}

const CODEX_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);
/** The Responses API items an early Codex rollout wrote one a line, after a first line of metadata. */
export const RESPONSE_ITEMS: ReadonlySet<string> = new Set([
  'message',
  'reasoning',
  'function_call',
  'function_call_output',
  'local_shell_call',
  'custom_tool_call',
  'custom_tool_call_output',
]);

/** Codex's rollout (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl), current or early layout. */
function codex(v: Obj): string | null {
  if (isString(v.type) && CODEX_TYPES.has(v.type) && isObject(v.payload)) return `"type": ${quote(v.type)} with "payload"`;
  if (v.record_type === 'state') return `"record_type": "state"`;
  if (isString(v.type) && RESPONSE_ITEMS.has(v.type) && (isString(v.role) || isString(v.call_id))) return `a Responses API "${v.type}" item`;
  return null;
}

/** Recorded HTTP traffic as JSON: a HAR archive, or exchanges of a request and its response. */
function httpTraffic(v: Obj): string | null {
  if (isObject(v.log) && Array.isArray(v.log.entries)) return 'a HAR archive: "log.entries"';
  if (isObject(v.request) && isObject(v.response)) return 'a "request" with its "response"';
  return null;
}

const KINDS: { what: string; shows: (v: Obj) => string | null }[] = [
  { what: 'a Claude Code session log', shows: claudeCode },
  { what: 'a Codex rollout', shows: codex },
  { what: 'recorded HTTP traffic', shows: httpTraffic },
];

/** How many of a file's first lines are enough to tell a recorded format. */
const RECORDED_SNIFF_LINES = 20;

/** What a file the recorded model reads is (docs/recorded.md), and for traffic, its container. */
export type RecordedKind = 'claude-code' | 'codex' | 'cassette' | 'har' | 'claude-trace';

/**
 * The recorded kind the text (a file's first bytes) is: a VCR cassette, a HAR archive, or JSON lines
 * one of whose first lines is a Claude Code record, a record of Codex's current rollout layout, or
 * a claude-trace exchange (a request with its URL, and its response), or an early Codex rollout's
 * bare header followed by its state marker or a bare response item; null for none of them.
 */
export function recordedKindOf(head: string): RecordedKind | null {
  if (isCassette(head)) return 'cassette';
  if (/^\s*\{\s*"log"\s*:\s*\{/.test(head) && head.includes('"entries"')) return 'har';
  let seen = 0;
  /** The first line is an early Codex rollout's bare header (an id and a timestamp, no type). */
  let earlyHeader = false;
  for (const raw of head.split('\n')) {
    if (!raw.trim()) continue;
    if (++seen > RECORDED_SNIFF_LINES) return null;
    const parsed = parseJson(raw);
    if (!parsed.ok || !isObject(parsed.value)) continue;
    const v = parsed.value;
    if (seen === 1 && isString(v.id) && isString(v.timestamp) && v.type === undefined) earlyHeader = true;
    if (claudeCode(v)) return 'claude-code';
    if (isString(v.type) && CODEX_TYPES.has(v.type) && isObject(v.payload)) return 'codex';
    // After that header, a state marker or a bare response item: the early layout.
    if (earlyHeader && seen > 1 && (v.record_type === 'state' || (isString(v.type) && RESPONSE_ITEMS.has(v.type) && !('payload' in v)))) return 'codex';
    if (isObject(v.request) && isString(v.request.url) && isObject(v.response)) return 'claude-trace';
  }
  return null;
}

/** A name or version as a record holds it, shown bare only when it is a plain word. */
const word = (v: unknown): string | null => (isString(v) && /^[\w.+-]{1,40}$/.test(v) ? v : null);

/** Who wrote it, where a record says: the Claude Code or Codex version. */
function writer(values: ParsedLine[]): string | null {
  for (const { value } of values) {
    if (!isObject(value)) continue;
    const claude = isString(value.sessionId) ? word(value.version) : null;
    if (claude) return `Claude Code ${claude}`;
    const p = value.payload;
    if (value.type === 'session_meta' && isObject(p)) {
      const who = [word(p.originator), word(p.cli_version)].filter((w) => w !== null);
      if (who.length) return who.join(' ');
    }
  }
  return null;
}

/** The kind the first lines that parsed show, and what shows it where; null when none shows a kind we know. */
function knownKind(values: ParsedLine[]): { what: string; line: number; shows: string } | null {
  for (const { line, value } of values) {
    if (!isObject(value)) continue;
    for (const kind of KINDS) {
      const shows = kind.shows(value);
      if (shows) return { what: kind.what, line, shows };
    }
  }
  return null;
}

function shapeOf(value: unknown): string {
  if (isObject(value)) return `an object with keys ${keysOf(value)}`;
  return Array.isArray(value) ? 'a list' : value === null ? 'null' : `a ${typeof value}`;
}

/**
 * JSON lines none of which is a turn-trace line: `first`, the first lines that parsed (a few are
 * enough to tell a kind), `parsed` how many did, `lines` how many lines hold anything.
 */
export function foreignJsonLines(path: string, first: ParsedLine[], parsed: number, lines: number): InputFinding {
  const none = `none of its ${count(lines, 'line')} is a turn-trace line`;
  const known = knownKind(first);
  if (known) {
    const { what, line, shows } = known;
    const by = what === 'recorded HTTP traffic' ? null : writer(first);
    return notATranscript(path, `${what} (${by ? `${by}; ` : ''}line ${line}: ${shows}); ${none}`, { line, column: 1 });
  }
  if (!parsed) return notATranscript(path, `text that is not JSON lines (${none})`, { line: 1, column: 1 });
  const { line, value } = first[0];
  return notATranscript(path, `JSON lines of another kind (${none}; line ${line} is ${shapeOf(value)})`, { line, column: 1 });
}

/** A JSON document that is not one of ours: what it looks like. */
export function foreignDocument(path: string, value: unknown): InputFinding {
  const known = knownKind([{ line: 1, value }]);
  return notATranscript(path, known ? `${known.what} (${known.shows})` : `a JSON document of another kind (${shapeOf(value)})`, { line: 1, column: 1 });
}

/**
 * A VCR cassette (vcrpy, Ruby's VCR): YAML whose top level is the list of recorded interactions,
 * each a request and its response. Its request bodies are JSON strings, so a "messages" key in
 * them must not make it a session snapshot.
 */
const CASSETTE = /^(?:(?:#[^\n]*|---[ \t]*|[ \t]*)\r?\n)*(?:http_)?interactions:[ \t]*\r?\n(?:[ \t]*\r?\n)*[ \t]*-[ \t]+request:/;

export function isCassette(head: string): boolean {
  return CASSETTE.test(head);
}

/** Text that is no state.db, session JSON, request dump or turn trace: what it looks like. */
export function foreignText(path: string, text: string): InputFinding {
  const start = { line: 1, column: 1 };
  if (isCassette(text)) {
    const requests = text.match(/^[ \t]*-[ \t]+request:/gm)?.length ?? 0;
    const exchanges = requests === 1 ? '1 request and its response' : `${count(requests, 'request')} and their responses`;
    return notATranscript(path, `recorded HTTP traffic (a VCR cassette in YAML: ${exchanges})`, start);
  }
  const parsed = parseJson(text);
  return parsed.ok ? foreignDocument(path, parsed.value) : notATranscript(path, 'text that is not JSON', start);
}
