// Turns in time order across lineages: a whole replay merges every lineage's turns by when they
// began (inTimeOrder), and a resumed one puts its new turns where that merge puts them (placeResumed).

import type { Transcript } from '../shared/model/transcript';
import type { Replay, ReplayRequest, ReplayResumed, ReplayTurn } from './replay';

/**
 * The new turns and requests put where a whole replay puts them; null where that cannot be told
 * from the turns alone. Without a time on every turn a whole replay keeps the sessions' order, so
 * only turns of the last session replayed, and requests of the last turn, can be new. With one,
 * every lineage's turns are merged by time again (as inTimeOrder does; with no two lineages'
 * turns at one time the merge does not depend on the order it starts from), later turns and
 * requests renumbered, and what stayed in place kept. One lineage's turns are never merged (its
 * own order stands): they too are placed as in session order. `known.reordered` (the replay's
 * turns were ever moved out of session order; the cursor's) is updated.
 */
export function placeResumed(replay: Replay, transcript: Transcript, resumed: ReplayResumed, known: { reordered: boolean }): ReplayResumed | null {
  const inSessionOrder = (): ReplayResumed | null => {
    const last = transcript.sessions[transcript.sessions.length - 1];
    for (let r = resumed.firstRequest; r < replay.requests.length; r++) if (replay.requests[r].turn < resumed.firstTurn - 1) return null;
    return !known.reordered && replay.turns.slice(resumed.firstTurn).every((t) => t.session === last) ? resumed : null;
  };
  const lineage = replay.turns[0]?.lineage;
  if (replay.turns.every((t) => t.lineage === lineage)) return inSessionOrder();
  const times = replay.turns.map((t) => turnTime(replay, t));
  if (times.some((x) => x === null)) return inSessionOrder();
  if (inPlace(replay, times as number[])) return resumed;
  const at = new Map<number, string>();
  for (let i = 0; i < times.length; i++) {
    const lineage = at.get(times[i] as number);
    if (lineage !== undefined && lineage !== replay.turns[i].lineage) return null;
    at.set(times[i] as number, replay.turns[i].lineage);
  }
  const turns = replay.turns.slice();
  const requests = replay.requests.slice();
  const lists = turns.map((t) => t.requests.join());
  // A request left in place still changes when its turn or its previous request was renumbered.
  const links = requests.map((r) => `${r.turn} ${r.previous}`);
  known.reordered = inTimeOrder(replay, true) || known.reordered;
  let firstTurn = 0;
  while (firstTurn < resumed.firstTurn && replay.turns[firstTurn] === turns[firstTurn] && replay.turns[firstTurn].requests.join() === lists[firstTurn])
    firstTurn++;
  let firstRequest = 0;
  while (
    firstRequest < resumed.firstRequest
    && replay.requests[firstRequest] === requests[firstRequest]
    && `${requests[firstRequest].turn} ${requests[firstRequest].previous}` === links[firstRequest]
  )
    firstRequest++;
  return { firstTurn, firstRequest };
}

/**
 * Whether the merge by time leaves every turn and request where it is: with each turn's time no
 * earlier than the one before it, every turn is the earliest of the lineages' next turns when its
 * place comes (a tie goes to the earlier place), and with the requests turn by turn they keep their
 * numbers. What a turn appended to the home's newest session does; then nothing is merged again.
 * False too where two lineages' turns share a time, which placeResumed does not place.
 */
function inPlace(replay: Replay, times: readonly number[]): boolean {
  for (let i = 1; i < times.length; i++) {
    if (times[i] < times[i - 1] || (times[i] === times[i - 1] && replay.turns[i].lineage !== replay.turns[i - 1].lineage)) return false;
  }
  // And numbered so already: the renumbering would change nothing.
  let next = 0;
  for (const [i, t] of replay.turns.entries()) {
    if (t.index !== i) return false;
    for (const r of t.requests) if (r !== next++ || replay.requests[r].index !== r || replay.requests[r].turn !== i) return false;
  }
  return next === replay.requests.length;
}

/**
 * Turns numbered in the order they began, across lineages (a delegate runs inside its parent's
 * turn), and requests turn by turn, so each turn's requests stay consecutive. Sessions are replayed
 * one after another, so this is the only place their turns interleave; without a time on every
 * turn the replay order stands.
 */
export function inTimeOrder(replay: Replay, relay = false): boolean {
  const times = replay.turns.map((t) => turnTime(replay, t));
  if (times.some((x) => x === null)) return false;
  if (!relay && times.every((x, i) => i === 0 || (x as number) >= (times[i - 1] as number))) return false;
  // A merge of each lineage's turns by their first time: a lineage's own order (and so every
  // request's previous one) is never changed.
  const queues = new Map<string, number[]>();
  replay.turns.forEach((t, i) => {
    const q = queues.get(t.lineage);
    if (q) q.push(i);
    else queues.set(t.lineage, [i]);
  });
  const before = (i: number, j: number): boolean => (times[i] as number) < (times[j] as number) || ((times[i] as number) === (times[j] as number) && i < j);
  const heap = new TurnHeap(before);
  // Each turn's queue and its place in it, so the next one is found without a search.
  const place = new Map<number, [number[], number]>();
  for (const q of queues.values()) {
    place.set(q[0], [q, 0]);
    heap.push(q[0]);
  }
  const order: number[] = [];
  while (heap.size) {
    const i = heap.pop();
    order.push(i);
    const [q, k] = place.get(i) as [number[], number];
    if (k + 1 < q.length) {
      place.set(q[k + 1], [q, k + 1]);
      heap.push(q[k + 1]);
    }
  }
  const moved = !order.every((v, i) => v === i);
  if (!moved && !relay) return false;
  const turns = order.map((i) => replay.turns[i]);
  const requests: ReplayRequest[] = [];
  const renumbered = new Map<number, number>();
  turns.forEach((t, i) => {
    t.index = i;
    t.requests = t.requests.map((r) => {
      renumbered.set(r, requests.length);
      requests.push(replay.requests[r]);
      return requests.length - 1;
    });
  });
  requests.forEach((r, i) => {
    r.index = i;
    r.turn = replay.turns[r.turn] === undefined ? r.turn : replay.turns[r.turn].index;
    if (r.previous !== null) r.previous = renumbered.get(r.previous) ?? null;
  });
  replay.turns = turns;
  replay.requests = requests;
  return moved;
}

/** A binary min-heap of turn indices. */
class TurnHeap {
  private readonly items: number[] = [];
  constructor(private readonly before: (a: number, b: number) => boolean) {}
  get size(): number {
    return this.items.length;
  }
  push(v: number): void {
    const a = this.items;
    a.push(v);
    for (let i = a.length - 1; i > 0;) {
      const p = (i - 1) >> 1;
      if (!this.before(a[i], a[p])) break;
      [a[i], a[p]] = [a[p], a[i]];
      i = p;
    }
  }
  pop(): number {
    const a = this.items;
    const top = a[0];
    const last = a.pop() as number;
    if (a.length) {
      a[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1,
          r = l + 1;
        let m = i;
        if (l < a.length && this.before(a[l], a[m])) m = l;
        if (r < a.length && this.before(a[r], a[m])) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m], a[i]];
        i = m;
      }
    }
    return top;
  }
}

/** When a turn began: its user row's time, else the time of the row answering its first request. */
function turnTime(replay: Replay, t: ReplayTurn): number | null {
  const own = t.rows[t.userRow]?.timestamp;
  if (typeof own === 'number' && Number.isFinite(own)) return own;
  const first = t.requests.length ? replay.requests[t.requests[0]] : undefined;
  const answer = first ? first.rows[Math.min(first.end, first.rows.length - 1)]?.timestamp : undefined;
  return typeof answer === 'number' && Number.isFinite(answer) ? answer : null;
}
