// Validating rows from any reader: what the replay can use, and a finding for what it cannot.

import { isRow, type Row } from '../shared/model/rows';
import type { InputFinding, SourcePos } from '../shared/model/transcript';

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

/**
 * Python's json refuses input nested about 1,000 deep, so a real transcript never is; deeper input
 * is hostile, and the engine's JSON.stringify/repr calls would overflow the stack on it.
 */
export const MAX_NESTING = 512;

/** True when value nests arrays/objects deeper than `limit` (iterative: cannot overflow itself). */
export function nestsDeeperThan(value: unknown, limit = MAX_NESTING): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** Returns the row, or null after recording why it cannot be replayed. */
export function acceptRow(value: unknown, where: string, pos: SourcePos, findings: InputFinding[]): Row | null {
  if (!isRow(value)) {
    findings.push({ severity: 'error', code: 'parse-error', pos, message: `${where}: a message must be an object with a string "role"` });
    return null;
  }
  if (!ROLES.has(value.role)) {
    findings.push({ severity: 'error', code: 'parse-error', pos, message: `${where}: unknown role ${JSON.stringify(value.role).slice(0, 40)}` });
    return null;
  }
  const c = value.content;
  if (c !== undefined && c !== null && typeof c !== 'string' && !Array.isArray(c)) {
    findings.push({ severity: 'error', code: 'parse-error', pos, message: `${where}: content must be a string, a list of parts or null, not ${typeof c}` });
    return null;
  }
  if (nestsDeeperThan(value)) {
    findings.push({ severity: 'error', code: 'parse-error', pos, message: `${where}: nested deeper than ${MAX_NESTING} levels` });
    return null;
  }
  if (value.role === 'tool' && (typeof value.tool_call_id !== 'string' || value.tool_call_id === '')) {
    findings.push({
      severity: 'warning',
      code: 'parse-error',
      pos,
      message: `${where}: a tool result without tool_call_id (a provider rejects the request that carries it)`,
    });
  }
  return value;
}

export function parseError(message: string, pos: SourcePos, atEnd = false): InputFinding {
  return { severity: 'error', code: 'parse-error', message, pos, ...(atEnd ? { atEnd } : {}) };
}

/** A file not read (the input, or one beside it: a WAL, a journal, a dump, a log), and why: a notice, not a parse error. */
export function skippedFile(path: string, why: string): InputFinding {
  return { severity: 'warning', code: 'file-skipped', pos: { line: 1, column: 1 }, message: `${path}: skipped, ${why}` };
}
