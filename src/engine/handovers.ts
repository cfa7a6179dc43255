// What a replay works out about its compacted and forked lists before it replays them: which rows
// are copies, which turn a later list answers (a handover), which lists went on in rows only their
// compacted copy stored. Kept per replay (CompactionCopies), never beside the transcript, so a
// second replay of the same lists works it all out again as the first did.

import type { CopyMatch, Generation, StoredCompaction, TranscriptSession } from '../shared/model/transcript';
import { isSummaryCarrier, userOriginatedTurnView } from '../hermes/compactionMarkers';
import { matchCopies } from '../hermes/copies';
import type { Lineages } from '../hermes/lineage';
import type { Row } from '../shared/model/rows';

/**
 * A turn whose user row was stored, unanswered, just before a compaction and whose copy opens the
 * compacted list (upstream's preflight flushes the row to the old list, then compacts): one turn,
 * replayed where it was answered. Maps the compacted generation to its copy's index and the old row's.
 */
export interface Handover {
  copy: number;
  original: number;
  before: Row[];
}

/** The copies of one replay's compacted lists, and the old lists' continuations it found (see findHandovers). */
export class CompactionCopies {
  /** Recognised from the rows alone, by list; a list that grew since gets a new compaction object (graftGrowth), recognised again. */
  private readonly recognised = new Map<Generation, { compaction: StoredCompaction; match: CopyMatch }>();
  /**
   * Rows the old list had when it was compacted that only its compacted copy stores: the turn went
   * on (answered, called tools) after its user row was flushed, and the compaction came mid-turn.
   * They follow the user row's copy and are older than the summary carrier (stamped when the
   * compaction committed). Recorded as the old list's continuation, by the old list; the copies
   * map onto them (`continued`).
   */
  private readonly continuations = new Map<Row[], Row[]>();
  private readonly continued = new Map<StoredCompaction, CopyMatch>();

  /** The copies a reader recognised with its store's evidence, or recognised here from the rows alone. */
  of(gen: Generation): CopyMatch {
    const c = gen.compaction as StoredCompaction;
    const continued = this.continued.get(c);
    if (continued) return continued;
    if (c.copies) return c.copies;
    const known = this.recognised.get(gen);
    if (known?.compaction === c) return known.match;
    const match = matchCopies({ rows: c.before }, { rows: gen.rows });
    this.recognised.set(gen, { compaction: c, match });
    return match;
  }

  /** The rows a list went on in, stored only in its compacted copy. */
  continuation(rows: Row[]): Row[] | undefined {
    return this.continuations.get(rows);
  }

  /** The list the agent held when it compacted: the stored old list and its continuation. */
  listBefore(c: StoredCompaction): Row[] {
    const extra = this.continuations.get(c.before);
    return extra ? [...c.before, ...extra] : c.before;
  }

  /** What `from` worked out about the lists of a session that a replay takes over from it unchanged (replayAgain). */
  takeOver(from: CompactionCopies, session: TranscriptSession): void {
    for (const gen of session.generations) {
      const recognised = from.recognised.get(gen);
      if (recognised) this.recognised.set(gen, recognised);
      const extra = from.continuations.get(gen.rows);
      if (extra) this.continuations.set(gen.rows, extra);
      const continued = gen.compaction && from.continued.get(gen.compaction);
      if (gen.compaction && continued) this.continued.set(gen.compaction, continued);
    }
  }

  /** Whether the turn whose user row `userCopy` copies went on before the compaction (then recorded as the old list's continuation). */
  continuesBefore(gen: Generation, userCopy: number): boolean {
    const c = gen.compaction as StoredCompaction;
    const copies = this.of(gen);
    const extra = rowsContinuingBefore(gen, userCopy, copies);
    if (!extra.some(isAnswer)) return false;
    this.continuations.set(c.before, extra);
    const source = Int32Array.from(copies.source);
    const relation = copies.relation.slice();
    extra.forEach((_, t) => {
      source[userCopy + 1 + t] = c.before.length + t;
      relation[userCopy + 1 + t] = 'equal';
    });
    this.continued.set(c, { source, relation });
    return true;
  }
}

export function findHandovers(
  sessions: readonly TranscriptSession[],
  lineages: Lineages<TranscriptSession>,
  copies: CompactionCopies,
): Map<Generation, Handover> {
  const out = new Map<Generation, Handover>();
  for (const session of sessions) {
    session.generations.forEach((gen, g) => {
      // A compacted list, or a fork's copy of its parent's list (whose turn, too, is answered where it was copied).
      const fork = g === 0 && !gen.compaction && gen.carried !== undefined ? lastGeneration(lineages.parentOf(session)) : undefined;
      if (!gen.compaction && !fork) return;
      const previous = gen.compaction ? (g > 0 ? session.generations[g - 1] : lastGeneration(lineages.continued(session))) : fork;
      const before = gen.compaction ? gen.compaction.before : (fork as Generation).rows;
      const original = trailingUnansweredUserRow(before);
      if (original < 0 || !previous || previous.rows !== before) return;
      const source = gen.compaction ? copies.of(gen).source : matchCopies({ rows: before }, { rows: gen.rows }).source;
      for (let j = source.length - 1; j >= 0; j--) {
        if (source[j] !== original) continue;
        if (!gen.compaction || !copies.continuesBefore(gen, j)) out.set(gen, { copy: j, original, before });
        return;
      }
    });
  }
  return out;
}

/** The new rows after the turn's user copy that are older than the compaction's summary carrier. */
export function rowsContinuingBefore(gen: Generation, userCopy: number, copies: CopyMatch): Row[] {
  const rows = gen.rows;
  const carrier = rows.findIndex((r) => isSummaryCarrier(r));
  const committed = carrier >= 0 ? rows[carrier].timestamp : undefined;
  if (typeof committed !== 'number') return [];
  let k = userCopy + 1;
  while (
    k < rows.length
    && copies.source[k] < 0
    && !isSummaryCarrier(rows[k])
    && typeof rows[k].timestamp === 'number'
    && (rows[k].timestamp as number) < committed
  )
    k++;
  return rows.slice(userCopy + 1, k);
}

/**
 * Rows stored as the text projection of a part list (upstream's flush writes images as
 * placeholders) whose compacted copy keeps the list: the agent held, and sent, the list. The
 * replay sends the copy's parts for the original's requests too.
 */
export function partListsSent(sessions: readonly TranscriptSession[], copies: CompactionCopies): Map<Row, Row> {
  const out = new Map<Row, Row>();
  for (const session of sessions) {
    for (const gen of session.generations) {
      if (!gen.compaction) continue;
      const match = copies.of(gen);
      match.source.forEach((i, j) => {
        const original = gen.compaction?.before[i];
        const copy = gen.rows[j];
        if (i >= 0 && original && match.relation[j] === 'projected' && typeof original.content === 'string' && Array.isArray(copy.content)) {
          out.set(original, { ...original, content: copy.content });
        }
      });
    }
  }
  return out;
}

export function lastGeneration(session: TranscriptSession | undefined): Generation | undefined {
  return session?.generations[session.generations.length - 1];
}

/** The index of the list's last user-originated row when no answer follows it, or -1. */
function trailingUnansweredUserRow(rows: readonly Row[]): number {
  for (let i = rows.length - 1; i >= 0; i--) {
    if (isAnswer(rows[i])) return -1;
    if (userOriginatedTurnView(rows[i]) !== null) return i;
  }
  return -1;
}

export function isAnswer(row: Row): boolean {
  return row.role === 'assistant' && !isSummaryCarrier(row);
}
