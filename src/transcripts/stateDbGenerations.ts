// A state.db session's rows (in id order) into the running lists they were: compactions in place,
// rewinds, and the rows each kept (docs/hermes-behaviour.md "Generations").

import { userOriginatedTurnView } from '../hermes/compactionMarkers';
import { copiesRow, HeadCopies, uncarriedRows, type CopySide } from '../hermes/copies';
import { withoutFailedTurnNotices } from '../hermes/failedTurn';
import type { RowEvidence } from '../hermes/rowIdentity';
import type { Row } from '../shared/model/rows';
import type { Generation, InputFinding, SourcePos } from '../shared/model/transcript';

/** One stored row with what the store says about it beyond the dict. */
export interface StoredMessage {
  row: Row;
  pos: SourcePos;
  active: boolean;
  /** Archived by a compaction in place (`compacted = 1`), as opposed to undone or carried. */
  compacted: boolean;
  evidence: RowEvidence;
  /** A compaction's summary carrier (isSummaryCarrier), told once per row read. */
  carrier: boolean;
}

/**
 * Splits a session's rows (in id order) into the running lists they were (docs/hermes-behaviour.md
 * "Generations"):
 * - a compaction in place archived the live rows and inserted the compacted set after them: a new
 *   generation starts at the set's head copies, right before its summary carrier, after archived rows;
 * - a rewind (/undo, /retry) set the undone rows inactive, neither archived nor carried: the list
 *   went on from the row before them, so the rows after them start a generation that keeps the rows
 *   before (`carried`), and the undone rows stay with the requests that sent them.
 * Inactive rows that are not archived are a compaction's carried tail when they run up to the next
 * compacted set (they were live), and undone rows otherwise.
 *
 * Undone rows lie side by side whether one rewind took back several turns (`/undo 3`) or each turn
 * was taken back on its own (an /undo, a re-ask, then /retry): only `sessions.rewind_count` tells how
 * many rewinds there were. Each rewind beyond one per run of undone rows starts a list of its own at
 * a turn inside a run, the latest turns first; without the count, every undone turn was its own
 * rewind (plain /undo and /retry take back one turn). Even the count cannot tell an ask sent after
 * the turn before it was undone from two turns undone by two /undo in a row: each such ask in a run
 * (one that does not repeat the words before it, as /retry does) gets a `rewind-order-not-recorded`.
 */
export function splitGenerations(
  rows: StoredMessage[],
  rotationChild: boolean,
  rewinds: number | undefined,
  report: (f: InputFinding) => void,
): EvidencedGeneration[] {
  const starts = compactionStarts(rows, rotationChild);
  const side: CopySide = { rows: rows.map((m) => m.row), evidence: rows.map((m) => m.evidence) };
  const slices = starts.map((start, g) => {
    const slice = rows.slice(start, g + 1 < starts.length ? starts[g + 1] : rows.length);
    const live = g === starts.length - 1;
    // Whether archived rows follow each row, from the end (one pass).
    const archivedAfter = new Array<boolean>(slice.length);
    for (let k = slice.length - 1, seen = false; k >= 0; seen ||= slice[k].compacted, k--) archivedAfter[k] = seen;
    const undone = slice.map((m, k) => !m.active && (live || (!m.compacted && archivedAfter[k])));
    if (!live) {
      // The inactive rows after the archived ones are the carried tail, but an /undo just before the
      // compaction left its rows among them: those the compacted list holds no copy of.
      let t = slice.length;
      while (t > 0 && !slice[t - 1].active && !slice[t - 1].compacted) t--;
      const run = Array.from({ length: slice.length - t }, (_, i) => start + t + i);
      const next = starts[g + 1];
      for (const i of uncarriedRows(side, run, next, g + 2 < starts.length ? starts[g + 2] : rows.length)) undone[i - start] = true;
    }
    return { slice, undone };
  });
  let runs = 0;
  const inner: StoredMessage[] = [];
  // Asks inside a run that do not repeat the run's ask before them: the order is a guess there.
  const unordered: { ask: StoredMessage; before: StoredMessage }[] = [];
  for (const { slice, undone } of slices) {
    let lastAsk: StoredMessage | undefined;
    slice.forEach((m, k) => {
      if (!undone[k]) return;
      const ask = userOriginatedTurnView(m.row);
      if (k === 0 || !undone[k - 1]) {
        runs++;
        lastAsk = undefined;
      } else if (ask !== null) inner.push(m);
      if (ask === null) return;
      if (lastAsk !== undefined && !sameAsk(userOriginatedTurnView(lastAsk.row), ask)) unordered.push({ ask: m, before: lastAsk });
      lastAsk = m;
    });
  }
  const separate = rewinds === undefined ? inner.length : Math.min(inner.length, Math.max(0, rewinds - runs));
  const rewindStarts = new Set(inner.slice(inner.length - separate));
  const counted = rewinds === undefined ? 'sessions.rewind_count not recorded' : `sessions.rewind_count ${rewinds}`;
  for (const { ask, before } of unordered) {
    const after = rewindStarts.has(ask);
    report({
      severity: 'info',
      code: 'rewind-order-not-recorded',
      pos: ask.pos,
      message:
        `the asks of rows ${before.pos.rowId} and ${ask.pos.rowId} were both undone; whether row ${ask.pos.rowId} was asked `
        + `before or after row ${before.pos.rowId}'s turn was undone is not recorded (${counted}). Replayed as asked `
        + `${after ? 'after: its requests do not carry' : 'before: its requests carry'} the turn of row ${before.pos.rowId}.`,
    });
  }

  const out: EvidencedGeneration[] = [];
  slices.forEach(({ slice, undone }, g) => {
    const lists: { messages: StoredMessage[]; carried?: number }[] = [];
    const kept: StoredMessage[] = [];
    let carried: number | undefined;
    for (let k = 0; k < slice.length;) {
      if (!undone[k]) {
        kept.push(slice[k++]);
        continue;
      }
      // The lists that sent the undone rows (each later rewind's went on from the same kept rows),
      // then the one that went on without them.
      let u = k + 1;
      while (u < slice.length && undone[u] && !rewindStarts.has(slice[u])) u++;
      lists.push({ messages: [...kept, ...slice.slice(k, u)], carried });
      carried = kept.length;
      k = u;
    }
    lists.push({ messages: kept, carried });
    lists.forEach((list, i) => {
      const gen = generationOf(list.messages);
      if (list.carried !== undefined) gen.carried = list.carried;
      if (i === 0 && g > 0) {
        const prev = out[out.length - 1];
        gen.compaction = { mode: 'in-place', before: prev.rows, beforePos: prev.pos };
      }
      out.push(gen);
    });
  });
  return out.length ? out : [generationOf([])];
}

/** Whether two asks are the same words (a /retry sends the undone ask again). */
function sameAsk(a: Row | null, b: Row): boolean {
  return a !== null && JSON.stringify(a.content) === JSON.stringify(b.content);
}

export type EvidencedGeneration = Generation & { evidence?: RowEvidence[] };

function generationOf(messages: StoredMessage[]): EvidencedGeneration {
  const { kept, failedAt } = withoutFailedTurnNotices(messages, (m) => m.row);
  return {
    rows: kept.map((m) => m.row),
    pos: kept.map((m) => m.pos),
    evidence: kept.map((m) => m.evidence),
    ...(failedAt.length ? { failedAt } : {}),
  };
}

/**
 * Where each compacted set inserted in place begins: the run of copies of earlier rows right
 * before a summary carrier, when archived rows precede it (a rotated child's head copies are live
 * and start no set). A pass that left no carrier (one that only pruned tool output) starts its set
 * with a copy of the list's first row right after the list's last, inactive row.
 */
function compactionStarts(rows: StoredMessage[], rotationChild: boolean): number[] {
  const side: CopySide = { rows: rows.map((m) => m.row), evidence: rows.map((m) => m.evidence) };
  const starts = [0];
  let head = new HeadCopies(side, 0);
  let skip = rotationChild;
  for (let i = 0; i < rows.length; i++) {
    if (!rows[i].carrier) continue;
    if (skip) {
      skip = false;
      continue;
    }
    const genStart = starts[starts.length - 1];
    const q = head.startBefore(i);
    if (q > genStart && !rows[q - 1].active) {
      starts.push(q);
      head = new HeadCopies(side, q);
    }
  }
  // Inside each list found so far, the passes that left no carrier.
  const out: number[] = [];
  starts.forEach((s, g) => {
    out.push(s);
    const end = g + 1 < starts.length ? starts[g + 1] : rows.length;
    for (let i = s + 1; i < end; i++) {
      if (rows[i - 1].active || !copiesRow(side, s, i)) continue;
      out.push(i);
      s = i;
    }
  });
  return out;
}
