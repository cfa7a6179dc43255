// Hermes request dumps, sessions/request_dump_<id>_<ts>.json (docs/hermes-behaviour.md §3.3): the body
// of one provider call exactly as sent, system message first.

import type { Row } from '../shared/model/rows';
import { documentFindings, readJsonDocument } from './jsonDocument';
import type { CapturedRequest, InputFinding, SourcePos, Transcript } from '../shared/model/transcript';
import { acceptRow, parseError } from './acceptRow';
import { wireOfRequestBody, type WireBody } from './requestBody';

/**
 * A dump that cannot be read whole: its findings, and with `salvage` (a dump read on its own) the
 * body messages that read, like a damaged session snapshot. A damaged dump is never compared with
 * a replay: its request is not known whole. Of repeated keys the last counts, as in Python's json.
 */
export function readCapturedRequest(path: string, text: string, findings: InputFinding[], salvage = false): (CapturedRequest & { truncated?: boolean }) | null {
  return readDump(path, text, findings, salvage)?.captured ?? null;
}

/** The captured request and the position of each of its messages. */
function readDump(
  path: string,
  text: string,
  findings: InputFinding[],
  salvage: boolean,
): { captured: CapturedRequest & { truncated?: boolean }; rowPos: SourcePos[] } | null {
  const read = readJsonDocument(text, ['request', 'body', 'messages']);
  const entries = read.list ?? [];
  findings.push(...documentFindings(path, read, 'body message', salvage ? `showing the ${entries.length} complete body messages before it` : ''));
  const doc =
    typeof read.value === 'object' && read.value !== null
      ? (read.value as { session_id?: unknown; timestamp?: unknown; reason?: unknown; request?: { body?: { messages?: unknown; tools?: unknown } } })
      : null;
  const damaged = read.errors.length > 0;
  if (damaged && (!salvage || !entries.length)) return null;
  const body = doc?.request?.body as Record<string, unknown> | undefined;
  const responses = body !== undefined && Array.isArray(body.input);
  if (!damaged && (!body || (!Array.isArray(body.messages) && !responses))) {
    findings.push(
      parseError(`${path}: not a request dump (no request.body.messages list, nor request.body.input for the responses API)`, { line: 1, column: 1 }),
    );
    return null;
  }
  const messages: Row[] = [];
  const rowPos: SourcePos[] = [];
  let wire: WireBody | undefined;
  if (!damaged && body) {
    // Every API mode read into the chat wire model; each message keeps the line of its body entry.
    wire = wireOfRequestBody(body);
    const lines = responses ? (readJsonDocument(text, ['request', 'body', 'input']).list ?? []) : entries;
    wire.messages.forEach((value, i) => {
      const entry = wire?.entry[i] ?? -1;
      const at: SourcePos = { line: entry >= 0 ? (lines[entry]?.line ?? 1) : 1 };
      const row = acceptRow(value, `${path}:${at.line}: body ${responses ? 'input item' : 'message'} ${entry}`, at, findings);
      if (row) {
        messages.push(row);
        rowPos.push(at);
      }
    });
  } else {
    for (const { value, line, index } of entries) {
      const at: SourcePos = { line };
      const row = acceptRow(value, `${path}:${line}: body message ${index}`, at, findings);
      if (row) {
        messages.push(row);
        rowPos.push(at);
      }
    }
  }
  const sessionId = typeof doc?.session_id === 'string' ? doc.session_id : (/request_dump_(.+)_\d{8}_\d{6}/.exec(path)?.[1] ?? path);
  if (damaged) return { captured: { sessionId, path, messages, pos: { line: 1, sessionId }, truncated: true }, rowPos };
  return {
    captured: {
      sessionId,
      path,
      messages,
      timestamp: typeof doc?.timestamp === 'string' ? doc.timestamp : undefined,
      reason: typeof doc?.reason === 'string' ? doc.reason : undefined,
      tools: wire?.tools,
      apiMode: wire?.apiMode,
      breakpoints: wire?.breakpoints,
      bodyEntries: wire?.bodyEntries,
      pos: { line: 1, sessionId },
    },
    rowPos,
  };
}

/** A dump read on its own: one session whose only request is the captured one. */
export function readHermesRequestDump(path: string, text: string): Transcript {
  const findings: InputFinding[] = [];
  const dump = readDump(path, text, findings, true);
  if (!dump) return { path, format: 'hermes-request-dump', sessions: [], captured: [], findings };
  const { captured, rowPos } = dump;
  const [first, ...rest] = captured.messages;
  const hasSystem = first?.role === 'system';
  const rows = hasSystem ? rest : captured.messages;
  return {
    path,
    format: 'hermes-request-dump',
    sessions: [
      {
        id: captured.sessionId,
        parentId: null,
        endReason: null,
        systemPrompt: hasSystem && typeof first.content === 'string' ? first.content : null,
        tools: captured.tools,
        generations: [{ rows, pos: hasSystem ? rowPos.slice(1) : rowPos, trailingRequest: !captured.truncated }],
        pos: captured.pos,
      },
    ],
    // Itself, so its API mode, breakpoints and body entries reach the report and the view as for
    // a dump beside a session (the replay built from it is compared with it like any other).
    captured: captured.truncated ? [] : [captured],
    findings,
  };
}
