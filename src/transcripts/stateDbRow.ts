// One messages row of a state.db decoded into the row the agent had (docs/hermes-behaviour.md §3.2),
// or null with a positioned finding when it cannot be replayed.

import { projectedBlockStart } from '../hermes/projectedNotes';
import { sanitizeMemoryContext } from '../hermes/memoryContext';
import type { Row } from '../shared/model/rows';
import type { InputFinding, SourcePos } from '../shared/model/transcript';
import { MAX_NESTING, nestsDeeperThan, parseError } from './acceptRow';
import { Names, type SqlRow } from './stateDbValues';

/** The prefix of content the agent stored as JSON (a part list, an object) rather than text. */
const JSON_CONTENT_PREFIX = '\u0000json:';

export function parseJsonColumn(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

export function decodeRow(r: SqlRow, cols: Names, findings: InputFinding[], path: string, pos: SourcePos, id: string): Row | null {
  const where = `${path}: session ${pos.sessionId}, message id ${id}`;
  const role = r.role;
  if (typeof role !== 'string' || !['system', 'user', 'assistant', 'tool'].includes(role)) {
    findings.push(
      parseError(
        `${where}: unknown role ${typeof role === 'string' ? JSON.stringify(role).slice(0, 40) : typeof role === 'bigint' ? String(role) : role instanceof Uint8Array ? 'BLOB' : JSON.stringify(role)}`,
        pos,
      ),
    );
    return null;
  }
  let content: unknown = r.content;
  let sentAsStored: string | undefined;
  if (typeof content === 'string' && content.startsWith(JSON_CONTENT_PREFIX)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(content.slice(JSON_CONTENT_PREFIX.length));
    } catch {
      findings.push(parseError(`${where}: content marked \\x00json: is not valid JSON`, pos));
      parsed = content;
    }
    if (parsed !== content && !Array.isArray(parsed) && (parsed === null || typeof parsed !== 'object')) {
      // The agent encodes only lists and dicts this way; anything else is not what it sent.
      findings.push({
        severity: 'warning',
        code: 'parse-error',
        pos,
        message: `${where}: content marked \\x00json: holds ${parsed === null ? 'null' : `a ${typeof parsed}`}, not a list of parts; replayed as empty`,
      });
      parsed = null;
    }
    content = parsed;
  } else if (typeof content === 'string' && (role === 'user' || role === 'assistant')) {
    // The agent reloads history through sanitize_context(...).strip(); replay what it reloads. An
    // image turn's notes stored inside its projection (no sidecar) are what its requests sent.
    if (role === 'user' && projectedBlockStart(content) >= 0) sentAsStored = content;
    content = sanitizeMemoryContext(content);
  } else if (content !== null && content !== undefined && typeof content !== 'string') {
    // A BLOB or a number where the agent writes text: nothing says what it sent.
    const what = content instanceof Uint8Array ? `a BLOB of ${content.length} bytes` : `a ${typeof content === 'bigint' ? 'number' : typeof content}`;
    // Damage like any other: `check` fails on it.
    findings.push(parseError(`${where}: content is ${what}, not text; replayed as empty`, pos));
    content = null;
  }
  if (content !== null && typeof content === 'object' && !Array.isArray(content)) {
    findings.push({
      severity: 'warning',
      code: 'parse-error',
      pos,
      message: `${where}: content marked \\x00json: is an object, not a list of parts; replayed as empty`,
    });
    content = null;
  }
  const row: Row = { role, content: content ?? null };
  const copy = (col: string, key = col, decode: (v: unknown) => unknown = (v) => v): void => {
    const v = cols.has(col) ? r[col] : undefined;
    if (v === null || v === undefined) return;
    // Text columns only: a BLOB or an oversized integer in one would be no value the agent keeps.
    if (v instanceof Uint8Array || typeof v === 'bigint') {
      findings.push({
        severity: 'warning',
        code: 'parse-error',
        pos,
        message: `${where}: column ${col} holds ${v instanceof Uint8Array ? 'a BLOB' : 'a 64-bit integer'}; ignored`,
      });
      return;
    }
    row[key] = decode(v);
  };
  copy('api_content');
  if (sentAsStored !== undefined && row.api_content === undefined && sentAsStored.trim() !== row.content) row.api_content = sentAsStored;
  copy('tool_calls', 'tool_calls', parseJsonColumn);
  copy('tool_call_id');
  copy('tool_name');
  copy('timestamp');
  copy('display_kind');
  copy('display_metadata', 'display_metadata', parseJsonColumn);
  if (role === 'assistant') {
    copy('finish_reason');
    copy('reasoning');
    copy('reasoning_content');
    copy('reasoning_details', 'reasoning_details', parseJsonColumn);
  }
  if (cols.has('_compressed_summary') && Number(r._compressed_summary) === 1) row._compressed_summary = true;
  if (pos.rowId !== undefined) row._row_id = pos.rowId;
  if (nestsDeeperThan(row)) {
    findings.push(parseError(`${where}: nested deeper than ${MAX_NESTING} levels`, pos));
    return null;
  }
  return row;
}
