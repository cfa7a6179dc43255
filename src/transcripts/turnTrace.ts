// Our own turn-trace JSONL (schemas/turn-trace.schema.json, docs/turn-trace.md): one line per
// turn with the assembly's inputs and the rows it stored, so the replay recomputes the assembly.

import { unparsedLine } from './jsonLines';
import type { Row } from '../shared/model/rows';
import { userOriginatedTurnView } from '../hermes/compactionMarkers';
import { nonFiniteNote, parseJson } from './pythonJson';
import type { Generation, InputFinding, RecordedTurnInputs, SourcePos, Transcript, TranscriptSession } from '../shared/model/transcript';
import { acceptRow, MAX_NESTING, nestsDeeperThan, parseError } from './acceptRow';
import { foreignJsonLines, type ParsedLine } from './foreign';

interface TraceLine {
  kind?: unknown;
  version?: unknown;
  sessionId?: unknown;
  parentSessionId?: unknown;
  systemPrompt?: unknown;
  tools?: unknown;
  historyLength?: unknown;
  userMessage?: unknown;
  memoryPrefetch?: unknown;
  pluginContext?: unknown;
  gatewayNotes?: unknown;
  surfaceSwitchNote?: unknown;
  currentTurnUserIdx?: unknown;
  compaction?: { mode?: unknown; messages?: unknown };
  messages?: unknown;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export function isTurnTraceLine(line: string): boolean {
  const p = parseJson(line);
  return p.ok && typeof p.value === 'object' && p.value !== null && (p.value as TraceLine).kind === 'turn-trace';
}

/**
 * A trace line, or a line meant to be one: its kind, or the fields only a trace line has (a line
 * whose kind was damaged still gets its own finding).
 */
function traceShaped(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const t = value as TraceLine;
  return t.kind === 'turn-trace' || t.systemPrompt !== undefined || t.userMessage !== undefined;
}

/** A line that does not parse, yet names itself a trace line: a damaged one. */
const DAMAGED_TRACE_LINE = /"kind"\s*:\s*"turn-trace"/;

/** A line that does not parse, yet starts as JSON does: damaged, or still being written. */
const DAMAGED_JSON = /^\s*[{[]/;

/** The first lines that parse kept to tell what a file of no trace line is. */
const FIRST_KEPT = 20;

/** `kept.reader`, set by the read of a trace: the reader, to read the lines appended later into the same transcript. */
export function readTurnTrace(path: string, text: string, kept?: { reader?: TurnTraceReader }): Transcript {
  const reader = new TurnTraceReader(path);
  reader.read(text);
  const foreign = reader.notATrace();
  if (foreign) return { path, format: 'turn-trace', sessions: [], captured: [], findings: [foreign] };
  if (kept) kept.reader = reader;
  return reader.transcript;
}

/**
 * A trace's lines read in order into one transcript: `readAppended` with the lines appended since,
 * and the transcript (the same object) grows as the whole file's read would.
 */
export class TurnTraceReader {
  readonly transcript: Transcript;
  private session: TranscriptSession | null = null;
  private gen: Generation | null = null;
  // A gateway serving several chats interleaves their turns: a session seen before goes on where it stopped.
  private readonly known = new Map<string, { session: TranscriptSession; gen: Generation }>();
  /** Lines read so far. */
  private lines = 0;
  /** Lines that are, or were meant to be, turn-trace lines: a file of none is no trace. */
  private traceLines = 0;
  /** Of the other lines: how many hold anything, how many parse (the first of them kept), how many start as JSON. */
  private others = { lines: 0, parsed: 0, first: [] as ParsedLine[], damagedJson: 0 };

  constructor(path: string) {
    this.transcript = { path, format: 'turn-trace', sessions: [], captured: [], findings: [] };
  }

  /**
   * Reads lines appended to the trace into its transcript; false, and nothing read, until a line
   * has shown the file is a trace (the lines to come may show it is none: read it whole then).
   */
  readAppended(text: string): boolean {
    if (!this.traceLines) return false;
    this.read(text);
    return true;
  }

  /** Reads the lines of `text`, which follows what was read before at a line's start. */
  read(text: string): void {
    const { path, findings, sessions } = this.transcript;
    const known = this.known;
    let { session, gen } = this;
    const lines = text.split('\n');
    const lastLine = text.endsWith('\n') ? lines.length - 1 : lines.length;
    const first = this.lines;
    this.lines += lastLine;
    for (let n = 0; n < lastLine; n++) {
      const raw = lines[n];
      if (raw.trim() === '') continue;
      const line = first + n + 1;
      const at: SourcePos = { line };
      const parsed = parseJson(raw);
      this.sort(raw, line, parsed);
      if (!parsed.ok) {
        // Only an error where the last line ends can be a writer still writing it.
        findings.push(unparsedLine(path, line, parsed, parsed.atEnd && n === lastLine - 1 && !text.endsWith('\n')));
        continue;
      }
      if (parsed.nonFinite) {
        const { column } = parsed.nonFinite.pos;
        findings.push({
          severity: 'warning',
          code: 'parse-error',
          pos: { line, column },
          message: `${path}:${line}:${column}: the line ${nonFiniteNote(parsed.nonFinite.tokens)}`,
        });
      }
      const t = parsed.value as TraceLine;
      const problem = validate(t);
      if (problem) {
        findings.push(parseError(`${path}:${line}: ${problem}`, at));
        continue;
      }

      const sessionId = t.sessionId as string;
      const rotation = t.compaction?.mode === 'rotation';
      const resumed: { session: TranscriptSession; gen: Generation } | undefined =
        session && session.id !== sessionId && !rotation ? known.get(sessionId) : undefined;
      if (session && gen) known.set(session.id, { session, gen });
      if (resumed) {
        session = resumed.session;
        gen = resumed.gen;
      } else if (!session || session.id !== sessionId) {
        const parentId: string | null = str(t.parentSessionId) ?? (rotation && session ? session.id : null);
        if (rotation && session && parentId === session.id) session.endReason = 'compression';
        session = {
          id: sessionId,
          parentId,
          endReason: null,
          systemPrompt: t.systemPrompt as string,
          tools: Array.isArray(t.tools) ? t.tools : undefined,
          generations: [],
          pos: { line, sessionId },
        };
        const before = gen && rotation ? gen : null;
        gen = { rows: [], pos: [], turnInputs: new Map() };
        if (before) gen.compaction = { mode: 'rotation', before: before.rows, beforePos: before.pos };
        session.generations.push(gen);
        sessions.push(session);
      }
      const current = gen as Generation;
      const currentSession = session;
      const inputs: RecordedTurnInputs = {
        userMessage: t.userMessage,
        memoryPrefetch: str(t.memoryPrefetch),
        pluginContext: str(t.pluginContext),
        gatewayNotes: str(t.gatewayNotes),
        surfaceSwitchNote: str(t.surfaceSwitchNote),
        systemPrompt: t.systemPrompt as string,
        tools: Array.isArray(t.tools) ? t.tools : undefined,
        currentTurnUserIdx: typeof t.currentTurnUserIdx === 'number' ? t.currentTurnUserIdx : undefined,
      };
      const rowsOf = (list: unknown[], where: string): Row[] =>
        list.map((v, i) => acceptRow(v, `${path}:${line}: ${where} ${i}`, at, findings)).filter((r): r is Row => r !== null);

      let target = current;
      if (t.compaction && !rotation) {
        target = { rows: [], pos: [], turnInputs: new Map(), compaction: { mode: 'in-place', before: current.rows, beforePos: current.pos } };
        currentSession.generations.push(target);
      } else if (!t.compaction && typeof t.historyLength === 'number' && t.historyLength < current.rows.length) {
        // A rewind: the turn starts from a shorter list than the one the previous turn left.
        target = { rows: current.rows.slice(0, t.historyLength), pos: current.pos.slice(0, t.historyLength), turnInputs: new Map(), carried: t.historyLength };
        currentSession.generations.push(target);
      }
      gen = target;

      let userIdx: number;
      if (t.compaction) {
        const compacted = rowsOf(t.compaction.messages as unknown[], 'compaction.messages');
        target.rows.push(...compacted);
        target.pos.push(...compacted.map(() => at));
        userIdx = inputs.currentTurnUserIdx ?? lastRowHolding(target.rows, t.userMessage);
        if (userIdx < 0)
          findings.push({
            severity: 'warning',
            code: 'parse-error',
            pos: at,
            message: `${path}:${line}: compaction.messages holds no user row with this turn's userMessage; its recorded inputs are not replayed`,
          });
      } else {
        userIdx = target.rows.length;
      }
      const appended = rowsOf(t.messages as unknown[], 'message');
      if (!t.compaction && appended[0]?.role !== 'user') {
        findings.push(parseError(`${path}:${line}: the turn's first message must be its user row`, at));
        continue;
      }
      target.rows.push(...appended);
      target.pos.push(...appended.map(() => at));
      if (userIdx >= 0) target.turnInputs?.set(userIdx, inputs);
    }
    this.session = session;
    this.gen = gen;
  }

  /** Counts a line as a trace line or as another. */
  private sort(raw: string, line: number, parsed: ReturnType<typeof parseJson>): void {
    if (parsed.ok ? traceShaped(parsed.value) : DAMAGED_TRACE_LINE.test(raw)) {
      this.traceLines++;
      return;
    }
    const o = this.others;
    o.lines++;
    if (!parsed.ok) {
      if (DAMAGED_JSON.test(raw)) o.damagedJson++;
    } else if (o.parsed++ < FIRST_KEPT) o.first.push({ line, value: parsed.value });
  }

  /**
   * The one finding for a file none of whose lines is a trace line, and some parse (or none starts
   * as JSON): what it looks like instead. Null for a trace, and for lines that are all JSON
   * damaged or cut short (a trace being written): each of those gets its own finding.
   */
  notATrace(): InputFinding | null {
    const { lines, parsed, first, damagedJson } = this.others;
    if (this.traceLines || !lines || (!parsed && damagedJson)) return null;
    return foreignJsonLines(this.transcript.path, first, parsed, lines);
  }
}

/** The last user-originated row whose content is the turn's inbound message (list content may have note parts appended). */
function lastRowHolding(rows: Row[], userMessage: unknown): number {
  const key = (v: unknown): string => JSON.stringify(v ?? null);
  for (let i = rows.length - 1; i >= 0; i--) {
    const row = rows[i];
    if (userOriginatedTurnView(row) === null) continue;
    if (key(row.content) === key(userMessage)) return i;
    if (Array.isArray(userMessage) && Array.isArray(row.content) && userMessage.every((p, k) => key(p) === key((row.content as unknown[])[k]))) return i;
  }
  return -1;
}

function validate(t: TraceLine): string | null {
  if (typeof t !== 'object' || t === null || Array.isArray(t)) return 'a trace line must be a JSON object';
  if (t.kind !== 'turn-trace') return 'not a turn-trace line (kind must be "turn-trace")';
  if (t.version !== 1) return `unsupported turn-trace version ${JSON.stringify(t.version)}`;
  if (typeof t.sessionId !== 'string' || !t.sessionId) return '"sessionId" must be a non-empty string';
  if (typeof t.systemPrompt !== 'string') return '"systemPrompt" must be a string';
  if (typeof t.userMessage !== 'string' && !Array.isArray(t.userMessage)) return '"userMessage" must be a string or a list of parts';
  if (!Array.isArray(t.messages)) return '"messages" must be a list';
  if (t.historyLength !== undefined && !(Number.isInteger(t.historyLength) && (t.historyLength as number) >= 0))
    return '"historyLength" must be a non-negative integer';
  if (t.compaction !== undefined) {
    if (typeof t.compaction !== 'object' || t.compaction === null || Array.isArray(t.compaction)) return '"compaction" must be an object';
    if (t.compaction.mode !== 'rotation' && t.compaction.mode !== 'in-place') return '"compaction.mode" must be "rotation" or "in-place"';
    if (!Array.isArray(t.compaction.messages)) return '"compaction.messages" must be a list';
  }
  if (nestsDeeperThan(t)) return `nested deeper than ${MAX_NESTING} levels`;
  return null;
}
