// Hermes request dumps, sessions/request_dump_<id>_<ts>.json (hermes-reference.md §3.3): the body
// of one provider call exactly as sent, system message first.

import type { Row } from '../model/rows';
import { linesAt, parseJson, topLevelArrayElements } from './jsonText';
import type { CapturedRequest, InputFinding, SourcePos, Transcript } from '../model/transcript';
import { acceptRow, parseError } from './acceptRow';

/**
 * A dump that cannot be parsed: a parse-error, and with `salvage` (a dump read on its own) the body
 * messages complete before the cut, like a truncated session snapshot. A cut dump is never
 * compared with a replay: its request is not known whole.
 */
export function readCapturedRequest(path: string, text: string, findings: InputFinding[], salvage = false): (CapturedRequest & { truncated?: boolean }) | null {
  const parsed = parseJson(text);
  if (!parsed.ok) {
    const spans = salvage ? bodyMessageSpans(text) : [];
    findings.push(parseError(`${path}:${parsed.pos.line}:${parsed.pos.column}: ${parsed.message}${salvage ? `; showing the ${spans.length} complete body messages before it` : ''}`,
      { line: parsed.pos.line, column: parsed.pos.column }, parsed.pos.offset >= text.length));
    if (!spans.length) return null;
    const lines = linesAt(text, spans.map((s) => s.start));
    const messages: Row[] = [];
    spans.forEach((s, i) => {
      const p = parseJson(text.slice(s.start, s.end));
      const row = acceptRow(p.ok ? p.value : undefined, `${path}:${lines[i]}: body message ${i}`, { line: lines[i] }, findings);
      if (row) messages.push(row);
    });
    const sessionId = /"session_id"\s*:\s*"([^"\\]*)"/.exec(text.slice(0, text.indexOf('"body"') >>> 0))?.[1]
      ?? (/request_dump_(.+)_\d{8}_\d{6}/.exec(path)?.[1] ?? path);
    return { sessionId, path, messages, pos: { line: 1, sessionId }, truncated: true };
  }
  const doc = parsed.value as { session_id?: unknown; timestamp?: unknown; reason?: unknown; request?: { body?: { messages?: unknown; tools?: unknown } } } | null;
  const body = doc && typeof doc === 'object' ? doc.request?.body : undefined;
  if (!body || !Array.isArray(body.messages)) {
    findings.push(parseError(`${path}: not a request dump (no request.body.messages list)`, { line: 1, column: 1 }));
    return null;
  }
  const messageLines = linesAt(text, topLevelMessagesOffsets(text));
  const messages: Row[] = [];
  body.messages.forEach((value, i) => {
    const at: SourcePos = { line: messageLines[i] ?? 1 };
    const row = acceptRow(value, `${path}:${at.line}: body message ${i}`, at, findings);
    if (row) messages.push(row);
  });
  const sessionId = typeof doc?.session_id === 'string' ? doc.session_id : (/request_dump_(.+)_\d{8}_\d{6}/.exec(path)?.[1] ?? path);
  return {
    sessionId, path, messages,
    timestamp: typeof doc?.timestamp === 'string' ? doc.timestamp : undefined,
    reason: typeof doc?.reason === 'string' ? doc.reason : undefined,
    tools: Array.isArray(body.tools) ? body.tools : undefined,
    pos: { line: 1, sessionId },
  };
}

/** Body messages sit two levels down; find the "messages" array inside "body" by its own key. */
function bodyMessageSpans(text: string): { start: number; end: number }[] {
  const at = text.indexOf('"body"');
  if (at < 0) return [];
  const inner = text.indexOf('{', at);
  if (inner < 0) return [];
  return topLevelArrayElements(text.slice(inner), 'messages').map((s) => ({ start: s.start + inner, end: s.end + inner }));
}

function topLevelMessagesOffsets(text: string): number[] {
  return bodyMessageSpans(text).map((s) => s.start);
}

/** A dump read on its own: one session whose only request is the captured one. */
export function readHermesRequestDump(path: string, text: string): Transcript {
  const findings: InputFinding[] = [];
  const captured = readCapturedRequest(path, text, findings, true);
  if (!captured) return { path, format: 'hermes-request-dump', sessions: [], captured: [], findings };
  const [first, ...rest] = captured.messages;
  const hasSystem = first?.role === 'system';
  const rows = hasSystem ? rest : captured.messages;
  return {
    path,
    format: 'hermes-request-dump',
    sessions: [{
      id: captured.sessionId,
      parentId: null,
      endReason: null,
      systemPrompt: hasSystem && typeof first.content === 'string' ? first.content : null,
      tools: captured.tools,
      generations: [{ rows, pos: rows.map(() => captured.pos), trailingRequest: !captured.truncated }],
      pos: captured.pos,
    }],
    captured: [],
    findings,
  };
}
