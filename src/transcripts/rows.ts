// Validating rows from any reader: what the replay can use, and a finding for what it cannot.

import { isRow, type Row } from '../engine/messages';
import type { InputFinding, SourcePos } from './model';

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

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
  return value;
}

export function parseError(message: string, pos: SourcePos, atEnd = false): InputFinding {
  return { severity: 'error', code: 'parse-error', message, pos, ...(atEnd ? { atEnd } : {}) };
}
