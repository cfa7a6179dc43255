// Hermes session snapshots, sessions/session_<id>.json (hermes-reference.md §3.1). A truncated
// snapshot still yields every complete message.

import { isSummaryCarrier } from '../hermes/compactionMarkers';
import type { Row } from '../model/rows';
import { linesAt, parseJson, parseSplitDocument, topLevelArrayElements } from './jsonText';
import type { Generation, InputFinding, SourcePos, Transcript } from '../model/transcript';
import { acceptRow, parseError } from './acceptRow';
import type { ByteSource } from '../model/byteSource';

/**
 * A well-formed snapshot, parsed message by message as it is read; null for anything else, which
 * readHermesSessionJson reads as one text to position the error and salvage what precedes it.
 */
export function readSplitSessionJson(path: string, source: ByteSource): Transcript | null {
  const split = parseSplitDocument(source, 'messages');
  return split && fromDocument(path, split.value, split.value.messages as unknown[], split.lines, []);
}

export function readHermesSessionJson(path: string, text: string): Transcript {
  const findings: InputFinding[] = [];
  const parsed = parseJson(text);
  const spans = topLevelArrayElements(text, 'messages');
  const lines = linesAt(text, spans.map((s) => s.start));
  let doc: Record<string, unknown> = {};
  let elements: unknown[];
  if (parsed.ok) {
    if (typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value)) {
      return { path, format: 'hermes-session-json', sessions: [], captured: [], findings: [parseError(`${path}: a session snapshot must be a JSON object`, { line: 1, column: 1 })] };
    }
    doc = parsed.value as Record<string, unknown>;
    if (!Array.isArray(doc.messages)) {
      findings.push(parseError(`${path}: "messages" is ${doc.messages === undefined ? 'missing' : 'not a list'}`, { line: 1, column: 1 }));
    }
    elements = Array.isArray(doc.messages) ? doc.messages : [];
  } else {
    findings.push(parseError(`${path}:${parsed.pos.line}:${parsed.pos.column}: ${parsed.message}; showing the ${spans.length} complete messages before it`, { line: parsed.pos.line, column: parsed.pos.column }, parsed.pos.offset >= text.length));
    doc = salvageHeader(text);
    elements = spans.map((s) => { const p = parseJson(text.slice(s.start, s.end)); return p.ok ? p.value : undefined; });
  }
  return fromDocument(path, doc, elements, lines, findings);
}

function fromDocument(path: string, doc: Record<string, unknown>, elements: unknown[], lines: number[], findings: InputFinding[]): Transcript {
  const rows: Row[] = [];
  const pos: SourcePos[] = [];
  elements.forEach((value, i) => {
    const at: SourcePos = { line: lines[i] ?? 1 };
    const row = acceptRow(value, `${path}:${at.line}: message ${i}`, at, findings);
    if (row) { rows.push(row); pos.push(at); }
  });

  const id = typeof doc.session_id === 'string' ? doc.session_id : sessionIdFromPath(path);
  // A snapshot written after a rotation starts with the compacted list; without the parent's file
  // the rows up to the summary carrier are known to be carried over.
  const carrier = rows.findIndex(isSummaryCarrier);
  const generation: Generation = { rows, pos, ...(carrier >= 0 ? { carried: carrier + 1 } : {}) };
  return {
    path,
    format: 'hermes-session-json',
    sessions: [{
      id,
      parentId: null,
      endReason: null,
      systemPrompt: typeof doc.system_prompt === 'string' ? doc.system_prompt : null,
      tools: Array.isArray(doc.tools) ? doc.tools : undefined,
      generations: [generation],
      pos: { line: 1, sessionId: id },
    }],
    captured: [],
    findings,
  };
}

function sessionIdFromPath(path: string): string {
  const m = /session_([^/\\]+)\.json$/.exec(path);
  return m ? m[1] : path;
}

/**
 * The scalar header fields of a snapshot whose JSON is cut short, taken before "messages". The
 * string is found by a linear scan: a regex with an alternation inside a repetition backtracks
 * once per character and overflows the stack on a multi-megabyte prompt.
 */
function salvageHeader(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of ['session_id', 'system_prompt']) {
    const m = new RegExp(`"${key}"\\s*:\\s*"`).exec(text);
    if (!m) continue;
    const start = m.index + m[0].length - 1;
    let i = start + 1;
    while (i < text.length && text.charCodeAt(i) !== 34) i += text.charCodeAt(i) === 92 ? 2 : 1;
    if (i >= text.length) continue;
    const p = parseJson(text.slice(start, i + 1));
    if (p.ok) out[key] = p.value;
  }
  return out;
}
