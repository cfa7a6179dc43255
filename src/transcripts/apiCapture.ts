// Recorded API traffic read into the recorded model (docs/recorded.md "Recorded API traffic"): a
// vcrpy cassette (YAML), a HAR 1.2 archive, or claude-trace's JSON lines, each a list of request and
// response pairs. Bodies are gzip-decoded and server-sent event streams put back together; pairs
// that are no model call (not a POST to Anthropic's messages, OpenAI's chat completions or
// responses) are skipped and counted. Here the exact request bytes are known.

import { gunzipSync } from 'node:zlib';
import { parse as parseYaml } from 'yaml';
import type { InputFinding, SourcePos } from '../shared/model/transcript';
import type { RecordedCall, RecordedSession, RecordedTranscript, RecordedTurn, RecordedWire } from '../shared/model/recorded';
import { parseError } from './acceptRow';
import { recordedWireOf } from './apiBody';
import { isObject, PROMPT_CHARS, str } from './jsonLines';
import { parseJson } from './pythonJson';
import { recordedUsageOf } from './providerUsage';

type Obj = Record<string, unknown>;

/** One recorded request and its response, bodies as found (text, or bytes a recorder kept binary). */
interface Exchange {
  method: string;
  url: string;
  requestBody: string | Uint8Array | null;
  requestHeaders: Map<string, string>;
  responseBody: string | Uint8Array | null;
  responseHeaders: Map<string, string>;
  at: number | null;
  pos: SourcePos;
  /** How a finding names it: `file:line`, or a HAR's `file: log.entries[i]`. */
  where: string;
}

export type CaptureContainer = 'cassette' | 'har' | 'claude-trace';

/** Model endpoints by the end of their path, and who serves them by host. */
const MODEL_PATH = /\/(?:v1\/)?(?:messages|chat\/completions|responses)$/;
const PROVIDER_HOSTS: [RegExp, string][] = [
  [/(^|\.)anthropic\.com$/, 'anthropic'],
  [/(^|\.)openai\.com$/, 'openai'],
  [/(^|\.)openrouter\.ai$/, 'openrouter'],
  [/(^|\.)googleapis\.com$/, 'google'],
];

/** Headers as lower-cased names to their (first) value, from a list or an object of strings or lists. */
function headersOf(v: unknown): Map<string, string> {
  const out = new Map<string, string>();
  const add = (name: unknown, value: unknown): void => {
    const text = Array.isArray(value) ? str(value[0]) : typeof value === 'number' ? String(value) : str(value);
    if (typeof name === 'string' && text !== null && !out.has(name.toLowerCase())) out.set(name.toLowerCase(), text);
  };
  if (Array.isArray(v)) for (const h of v) if (isObject(h)) add(h.name, h.value);
  if (isObject(v)) for (const [k, x] of Object.entries(v)) add(k, x);
  return out;
}

/** A body as text: gzip taken off (by its header or its magic bytes); null when it cannot be. */
function bodyText(body: string | Uint8Array | null, headers: Map<string, string>): string | null {
  if (body === null) return null;
  let bytes = typeof body === 'string' ? null : body;
  const gzip = headers.get('content-encoding')?.includes('gzip') || (bytes !== null && bytes[0] === 0x1f && bytes[1] === 0x8b);
  if (gzip && bytes === null) bytes = Buffer.from(body as string, 'latin1');
  if (gzip && bytes) {
    try {
      return gunzipSync(bytes).toString('utf8');
    } catch {
      return null;
    }
  }
  return bytes ? Buffer.from(bytes).toString('utf8') : (body as string);
}

/**
 * A response body's final message: the JSON itself, or put back together from a server-sent event
 * stream (Anthropic's message_start and message_delta, OpenAI's chunks with usage last, Responses'
 * response.completed).
 */
function responseMessage(text: string): Obj | null {
  const whole = parseJson(text);
  if (whole.ok && isObject(whole.value)) return whole.value;
  let message: Obj | null = null;
  for (const line of text.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const data = parseJson(line.slice(5).trim());
    if (!data.ok || !isObject(data.value)) continue;
    const e = data.value;
    if (e.type === 'message_start' && isObject(e.message)) message = { ...e.message, usage: { ...(isObject(e.message.usage) ? e.message.usage : {}) } };
    else if (e.type === 'message_delta' && message && isObject(e.usage)) Object.assign(message.usage as Obj, e.usage);
    else if (e.type === 'response.completed' && isObject(e.response)) message = e.response;
    else if (e.object === 'chat.completion.chunk') message = { ...(message ?? {}), id: e.id, model: e.model, ...(isObject(e.usage) ? { usage: e.usage } : {}) };
  }
  return message;
}

function cassetteExchanges(path: string, text: string, findings: InputFinding[]): Exchange[] {
  let doc: unknown;
  try {
    doc = parseYaml(text, { version: '1.1' });
  } catch (e) {
    findings.push(parseError(`${path}: not YAML a cassette can be read from: ${(e as Error).message.split('\n')[0]}`, { line: 1, column: 1 }));
    return [];
  }
  const interactions = isObject(doc) ? (doc.interactions ?? doc.http_interactions) : null;
  if (!Array.isArray(interactions)) return [];
  // The line of each interaction, in order: YAML's own positions are not kept by the parse.
  const lines = [...text.matchAll(/^[ \t]*-[ \t]+request:/gm)].map((m) => text.slice(0, m.index).split('\n').length);
  return interactions.flatMap((x, i): Exchange[] => {
    if (!isObject(x) || !isObject(x.request) || !isObject(x.response)) {
      findings.push(parseError(`${path}:${lines[i] ?? 1}: interaction ${i} is no request with its response: skipped`, { line: lines[i] ?? 1, column: 1 }));
      return [];
    }
    const { request, response } = x;
    const body = isObject(response.body) ? response.body.string : response.body;
    const bytes = (v: unknown): string | Uint8Array | null => (typeof v === 'string' || v instanceof Uint8Array ? v : null);
    return [
      {
        method: str(request.method) ?? '',
        url: str(request.uri) ?? '',
        requestBody: bytes(isObject(request.body) ? request.body.string : request.body),
        requestHeaders: headersOf(request.headers),
        responseBody: bytes(body),
        responseHeaders: headersOf(response.headers),
        at: null,
        pos: { line: lines[i] ?? 1, column: 1 },
        where: `${path}:${lines[i] ?? 1}`,
      },
    ];
  });
}

function harExchanges(path: string, value: Obj, findings: InputFinding[]): Exchange[] {
  const log = isObject(value.log) ? value.log : {};
  const entries = Array.isArray(log.entries) ? log.entries : [];
  return entries.flatMap((e, i): Exchange[] => {
    if (!isObject(e) || !isObject(e.request) || !isObject(e.response)) {
      findings.push(parseError(`${path}: log.entries[${i}] is no request with its response: skipped`, { entry: i }));
      return [];
    }
    const content = isObject(e.response.content) ? e.response.content : {};
    const text = str(content.text);
    const started = str(e.startedDateTime);
    return [
      {
        method: str(e.request.method) ?? '',
        url: str(e.request.url) ?? '',
        requestBody: isObject(e.request.postData) ? str(e.request.postData.text) : null,
        requestHeaders: headersOf(e.request.headers),
        responseBody: text !== null && content.encoding === 'base64' ? Buffer.from(text, 'base64') : text,
        // A HAR's content text is already decoded: its encoding header no longer applies.
        responseHeaders: new Map([...headersOf(e.response.headers)].filter(([k]) => k !== 'content-encoding')),
        at: started === null ? null : Date.parse(started) || null,
        // A HAR is one JSON document: its entries are named by their place, `log.entries[i]`.
        pos: { entry: i },
        where: `${path}: log.entries[${i}]`,
      },
    ];
  });
}

function claudeTraceExchanges(path: string, text: string, findings: InputFinding[]): Exchange[] {
  const out: Exchange[] = [];
  const bodyOf = (v: unknown): string | null => (v === undefined || v === null ? null : typeof v === 'string' ? v : JSON.stringify(v));
  // claude-trace's records have no "type": each line is one object with its request and response.
  const lines = text.split('\n');
  lines.forEach((raw, n) => {
    if (!raw.trim()) return;
    const parsed = parseJson(raw);
    const v = parsed.ok ? parsed.value : null;
    if (!isObject(v) || !isObject(v.request)) {
      if (n < lines.length - 1 || text.endsWith('\n'))
        findings.push(parseError(`${path}:${n + 1}: not a claude-trace record (a "request" with its "response")`, { line: n + 1, column: 1 }));
      return;
    }
    const response = isObject(v.response) ? v.response : {};
    const at = str(v.request.timestamp) ?? str(v.logged_at);
    out.push({
      method: str(v.request.method) ?? 'POST',
      url: str(v.request.url) ?? '',
      requestBody: bodyOf(v.request.body),
      requestHeaders: headersOf(v.request.headers),
      responseBody: bodyOf(response.body_raw ?? response.body),
      responseHeaders: new Map(),
      at: at === null ? null : Date.parse(at) || (typeof v.request.timestamp === 'number' ? v.request.timestamp * 1000 : null),
      pos: { line: n + 1, column: 1 },
      where: `${path}:${n + 1}`,
    });
  });
  return out;
}

/** Who served a URL, by host; null for a host not known. */
function providerOf(url: string): string | null {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return null;
  }
  return PROVIDER_HOSTS.find(([re]) => re.test(host))?.[1] ?? null;
}

function isModelCall(x: Exchange): boolean {
  if (x.method.toUpperCase() !== 'POST') return false;
  try {
    return MODEL_PATH.test(new URL(x.url).pathname);
  } catch {
    return false;
  }
}

/** The user's own words at the end of a request's list: a turn starts there; null when it ends otherwise (a tool result). */
function userPromptAtEnd(body: Obj): string | null {
  const list = Array.isArray(body.messages)
    ? body.messages
    : Array.isArray(body.input)
      ? body.input
      : typeof body.input === 'string'
        ? [{ role: 'user', content: body.input }]
        : [];
  const last: unknown = list[list.length - 1];
  if (!isObject(last) || last.role !== 'user') return null;
  const { content } = last;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const texts = content.filter((b): b is Obj => isObject(b) && b.type !== 'tool_result' && b.type !== 'function_call_output');
  return texts.length ? texts.map((b) => str(b.text) ?? '').join('\n') : null;
}

/**
 * The conversation a call continues: the latest one of its model whose last call began with the
 * same entry, or had the same tools and system prompt and fewer entries (an agent's loop only
 * appends, so a request with as many or fewer starts another conversation, such as a parallel
 * subagent); undefined for none.
 */
function conversationOf(sessions: readonly RecordedSession[], model: string | null, wire: RecordedWire): RecordedSession | undefined {
  for (let i = sessions.length - 1; i >= 0; i--) {
    const turns = sessions[i].turns;
    const calls = turns[turns.length - 1]?.calls ?? [];
    const last = calls[calls.length - 1];
    if (!last?.wire || last.model !== model) continue;
    if (last.wire.entries[0] === wire.entries[0]) return sessions[i];
    if (last.wire.tools === wire.tools && last.wire.system === wire.system && last.wire.entries.length < wire.entries.length) return sessions[i];
  }
  return undefined;
}

/** The exchanges of a capture of any container. */
export function captureExchanges(path: string, text: string, container: CaptureContainer, findings: InputFinding[]): Exchange[] {
  if (container === 'cassette') return cassetteExchanges(path, text, findings);
  if (container === 'claude-trace') return claudeTraceExchanges(path, text, findings);
  const parsed = parseJson(text);
  if (!parsed.ok || !isObject(parsed.value)) {
    findings.push(parseError(`${path}: not a HAR archive that parses`, { line: 1, column: 1 }));
    return [];
  }
  return harExchanges(path, parsed.value, findings);
}

/**
 * Recorded traffic as sessions: the model calls of one conversation (`conversationOf`) are one
 * session, a call ending on the user's own words starts a turn.
 */
export function readApiCapture(path: string, text: string, container: CaptureContainer): RecordedTranscript {
  const findings: InputFinding[] = [];
  const exchanges = captureExchanges(path, text, container, findings);
  const sessions: RecordedSession[] = [];
  let skipped = 0;
  for (const x of exchanges) {
    if (!isModelCall(x)) {
      skipped++;
      continue;
    }
    const requestText = bodyText(x.requestBody, x.requestHeaders);
    const request = requestText === null ? null : parseJson(requestText);
    if (!request?.ok || !isObject(request.value)) {
      findings.push(parseError(`${x.where}: a model call whose request body is no JSON object: not read`, x.pos));
      continue;
    }
    const body = request.value;
    const responseText = bodyText(x.responseBody, x.responseHeaders);
    const response = responseText === null ? null : responseMessage(responseText);
    if (responseText !== null && !response)
      findings.push({
        severity: 'warning',
        code: 'parse-error',
        pos: x.pos,
        message: `${x.where}: the response body could not be read: its usage is not recorded`,
      });
    const wire = recordedWireOf(body);
    const model = str(response?.model) ?? str(body.model);
    let session = conversationOf(sessions, model, wire);
    if (!session) {
      session = { id: `conversation ${sessions.length + 1}`, parentId: null, kind: 'main', file: path, turns: [], compactions: [] };
      sessions.push(session);
    }
    const call: RecordedCall = {
      // Without a response id: its place in the capture.
      id: str(response?.id) ?? (x.pos.entry === undefined ? `line ${x.pos.line}` : `log.entries[${x.pos.entry}]`),
      model,
      provider: providerOf(x.url),
      firstAt: x.at,
      lastAt: x.at,
      pos: { ...x.pos, sessionId: session.id },
      lines: 1,
      usage: recordedUsageOf(response?.usage),
      after: null,
      wire,
    };
    const prompt = userPromptAtEnd(body);
    let turn: RecordedTurn | undefined = session.turns[session.turns.length - 1];
    if (!turn || prompt !== null) {
      turn = { prompt: (prompt ?? '').slice(0, PROMPT_CHARS), at: x.at, pos: call.pos, calls: [], systemPrompt: wire.system, settingsChanged: [] };
      session.turns.push(turn);
    }
    turn.calls.push(call);
  }
  if (skipped)
    findings.push({
      severity: 'info',
      code: 'parse-error',
      pos: { line: 1, column: 1 },
      message: `${path}:1: ${skipped} recorded exchange${skipped === 1 ? ' is' : 's are'} no model call: skipped`,
    });
  return {
    format: 'api-capture',
    path,
    agentVersion: container,
    title: null,
    records: { systemPrompt: true, tools: true, requestBytes: true, billedUsage: true, compactions: false },
    sessions,
    findings,
  };
}
