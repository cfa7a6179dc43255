// Hermes session snapshots, sessions/session_<id>.json (docs/hermes-behaviour.md §3.1). A truncated
// snapshot still yields every complete message, and a message that does not parse costs only itself.

import { withoutFailedTurnNotices } from '../hermes/failedTurn';
import { leadingOlderThan, sessionStartSeconds, snapshotCopies, unansweredAsk } from '../hermes/snapshot';
import type { Row } from '../shared/model/rows';
import { documentFindings, readJsonDocument, type ListEntry } from './jsonDocument';
import { parseSplitDocument, type ElementsText } from './jsonSplitDocument';
import type { Generation, InputFinding, SourcePos, Transcript } from '../shared/model/transcript';
import { acceptRow, parseError } from './acceptRow';
import { foreignDocument } from './foreign';
import type { ByteSource } from './byteSource';

/**
 * What a read of a snapshot keeps for reading it again rewritten (load.ts's ReadMemory): its
 * messages' text and what each message object was accepted as. The messages a rewritten snapshot
 * starts with are then the same objects, at the same lines, and are not checked again.
 */
export interface SnapshotMemory {
  elements: ElementsText;
  /** By message index; undefined for a message that is no object. */
  accepted: (Accepted | undefined)[];
}

/** What acceptRow said of one message object. */
interface Accepted {
  row: Row | null;
  findings: InputFinding[];
}

/**
 * A well-formed snapshot, parsed message by message as it is read; null for anything else, which
 * readHermesSessionJson reads as one text: each message on its own, NaN and Infinity as Python
 * reads them, every error at its character. With `keep`, what a later read of the file rewritten
 * reuses is handed back; `earlier` is what an earlier read handed back.
 */
export function readSplitSessionJson(
  path: string,
  source: ByteSource,
  { keep, earlier }: { keep?: boolean; earlier?: SnapshotMemory } = {},
): { transcript: Transcript; memory?: SnapshotMemory } | null {
  const split = parseSplitDocument(source, 'messages', { keep, earlier: earlier?.elements });
  if (!split) return null;
  const messages = (split.value.messages as unknown[]).map((value, index) => ({ value, line: split.lines[index], index }));
  const accepted: (Accepted | undefined)[] = [];
  const transcript = fromDocument(path, split.value, messages, [], true, { earlier, kept: accepted });
  return { transcript, memory: split.elements && { elements: split.elements, accepted } };
}

/** Keys of a snapshot that JSON of other kinds seldom has at its top level (a "model" or "tools" it may). */
const SNAPSHOT_KEYS = ['session_id', 'messages', 'system_prompt', 'session_start', 'last_updated', 'message_count'];

export function readHermesSessionJson(path: string, text: string): Transcript {
  const findings: InputFinding[] = [];
  const read = readJsonDocument(text, ['messages']);
  const isObject = typeof read.value === 'object' && read.value !== null && !Array.isArray(read.value);
  if (!read.errors.length && !isObject) {
    return {
      path,
      format: 'hermes-session-json',
      sessions: [],
      captured: [],
      findings: [parseError(`${path}: a session snapshot must be a JSON object`, { line: 1, column: 1 })],
    };
  }
  const doc = isObject ? (read.value as Record<string, unknown>) : {};
  // A document read whole with none of a snapshot's own keys is not a snapshot at all.
  if (!read.errors.length && SNAPSHOT_KEYS.every((k) => doc[k] === undefined)) {
    return { path, format: 'hermes-session-json', sessions: [], captured: [], findings: [foreignDocument(path, doc)] };
  }
  const entries = read.list ?? [];
  findings.push(...documentFindings(path, read, 'message', `showing the ${entries.length} complete messages before it`));
  if (!read.errors.length && !Array.isArray(doc.messages)) {
    findings.push(parseError(`${path}: "messages" is ${doc.messages === undefined ? 'missing' : 'not a list'}`, { line: 1, column: 1 }));
  }
  return fromDocument(path, doc, entries, findings, read.errors.length === 0);
}

/**
 * `complete`: the document was read to its end (a file cut short was cut inside what came next).
 * `accepted`: what an earlier read accepted its messages as, and where this read's go.
 */
function fromDocument(
  path: string,
  doc: Record<string, unknown>,
  messages: ListEntry[],
  findings: InputFinding[],
  complete: boolean,
  accepted?: { earlier?: SnapshotMemory; kept: (Accepted | undefined)[] },
): Transcript {
  const read: { row: Row; at: SourcePos }[] = [];
  for (const { value, line, index } of messages) {
    const at: SourcePos = { line };
    const where = (): string => `${path}:${line}: message ${index}`;
    let row: Row | null;
    if (typeof value !== 'object' || value === null || !accepted) row = acceptRow(value, where(), at, findings);
    else {
      const known = (accepted.earlier?.elements.values[index] === value && accepted.earlier.accepted[index]) || accept(value, where(), at);
      accepted.kept[index] = known;
      findings.push(...known.findings);
      row = known.row;
    }
    if (row) read.push({ row, at });
  }
  const { kept, failedAt } = withoutFailedTurnNotices(read, (r) => r.row);
  const rows = kept.map((r) => r.row);
  const pos = kept.map((r) => r.at);

  const id = typeof doc.session_id === 'string' ? doc.session_id : sessionIdFromPath(path);
  // A snapshot written after a compaction or a fork starts with copies; nothing names the parent,
  // so their timestamps tell them from new rows (docs/hermes-behaviour.md §5.5).
  const startedAt = sessionStartSeconds(doc.session_start, doc.last_updated, rows, id);
  const copies = snapshotCopies(rows, startedAt);
  const generation: Generation = { rows, pos, ...(copies.carried > 0 ? { carried: copies.carried } : {}), ...(failedAt.length ? { failedAt } : {}) };
  // An ask whose request failed is answered by that failure, not left open.
  const last = complete && !failedAt.includes(rows.length) ? unansweredAsk(rows, copies.carried) : undefined;
  if (last !== undefined) {
    generation.unansweredAsk = last;
    findings.push({
      severity: 'info',
      code: 'snapshot-incomplete',
      pos: pos[last] ?? { line: 1 },
      message: `${path}: the last message is a user's ask this file holds no answer to (a rotation answers it in the next session's file; or the agent was still answering when the file was written): not counted as a turn here`,
    });
  }
  if (copies.evidence === 'none' && copies.carrier >= 0) {
    findings.push({
      severity: 'info',
      code: 'snapshot-incomplete',
      pos: pos[copies.carrier] ?? { line: 1 },
      message: `${path}: the list starts after a compaction (summary carrier, message ${copies.carrier}); the rows after it may be copies of the compacted list's tail, which this file cannot tell: a copy keeps its original's time, and nothing here dates the compaction after them (the carrier has no timestamp; the session's start, where known, is older than them): they are counted as new turns`,
    });
  }
  if (copies.carried > 0) {
    const why = { 'carrier-timestamp': 'older than the summary carrier', 'session-start': "older than the session's start", none: 'up to the summary carrier' }[
      copies.evidence
    ];
    findings.push({
      severity: 'info',
      code: 'snapshot-incomplete',
      pos: pos[0] ?? { line: 1 },
      message: `${path}: the first ${copies.carried} of ${rows.length} messages are taken as copies of the list before the compaction (${why}): their turns and requests happened there and are not counted again`,
    });
  }
  // Without a carrier nothing is taken as a copy; rows older than the session's own start may
  // still be a fork's copies of the session it came from, which a snapshot does not name.
  const declared = copies.carrier < 0 ? sessionStartSeconds(doc.session_start, doc.last_updated, rows) : null;
  const older = declared === null ? 0 : leadingOlderThan(rows, declared);
  if (older > 0) {
    findings.push({
      severity: 'info',
      code: 'snapshot-incomplete',
      pos: pos[0] ?? { line: 1 },
      message: `${path}: the first ${older} of ${rows.length} messages are older than the session's start: they may be copies of a session this one was forked from, which a snapshot does not name; they are counted as this session's turns`,
    });
  }
  if (copies.carrier >= 0) {
    findings.push({
      severity: 'info',
      code: 'snapshot-incomplete',
      pos: pos[copies.carrier] ?? { line: 1 },
      message: `${path}: a snapshot after a compaction holds only the compacted list; upstream does not overwrite a snapshot that held more messages, so after a compaction in place it stays frozen at the old list until the new one outgrows it: state.db is the complete record`,
    });
  }
  return {
    path,
    format: 'hermes-session-json',
    sessions: [
      {
        id,
        parentId: null,
        endReason: null,
        systemPrompt: typeof doc.system_prompt === 'string' ? doc.system_prompt : null,
        tools: Array.isArray(doc.tools) ? doc.tools : undefined,
        generations: [generation],
        // The snapshot's own platform and model; its session_start is local time without a zone,
        // placed on the rows' clock by last_updated (null when nothing places it). No end is kept.
        source: typeof doc.platform === 'string' ? doc.platform : null,
        model: typeof doc.model === 'string' ? doc.model : null,
        startedAt,
        endedAt: null,
        pos: { line: 1, sessionId: id },
      },
    ],
    captured: [],
    findings,
  };
}

function accept(value: object, where: string, pos: SourcePos): Accepted {
  const findings: InputFinding[] = [];
  return { row: acceptRow(value, where, pos, findings), findings };
}

function sessionIdFromPath(path: string): string {
  const m = /session_([^/\\]+)\.json$/.exec(path);
  return m ? m[1] : path;
}
