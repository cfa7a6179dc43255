// A transcript read again while its agent writes: what is new since the last read, when all that
// changed is rows appended to the end of sessions' lists (and what the sessions record about
// themselves). Anything else (a row rewritten or removed, a new session or list, another system
// prompt) is no growth. Then the families of sessions that did not change at all are kept
// (keepUnchanged), and only the others are replayed (replayAgain).

import type { Generation, Transcript, TranscriptSession } from '../shared/model/transcript';
import { sameValue } from '../shared/sameValue';

/** Each session read before beside its fresh read, whose lists hold the same rows and perhaps more. */
export interface Growth {
  pairs: { old: TranscriptSession; fresh: TranscriptSession }[];
}

/** What `fresh` adds to `old`, or null when it is not `old` with rows appended. */
export function transcriptGrowth(old: Transcript, fresh: Transcript): Growth | null {
  if (old.format !== fresh.format || old.path !== fresh.path || old.listedOnly || fresh.listedOnly) return null;
  if (old.sessions.length !== fresh.sessions.length) return null;
  const growth: Growth = { pairs: [] };
  for (let s = 0; s < old.sessions.length; s++) {
    const a = old.sessions[s];
    const b = fresh.sessions[s];
    if (a.id !== b.id || a.parentId !== b.parentId || a.systemPrompt !== b.systemPrompt || !sameValue(a.tools, b.tools)) return null;
    if (a.generations.length !== b.generations.length) return null;
    for (let g = 0; g < a.generations.length; g++) {
      const last = g === a.generations.length - 1;
      if (!listGrew(a.generations[g], b.generations[g], last)) return null;
    }
    growth.pairs.push({ old: a, fresh: b });
  }
  return growth;
}

/** Whether `b` is `a` with rows appended (only a session's last list may have any). */
function listGrew(a: Generation, b: Generation, last: boolean): boolean {
  const n = a.rows.length;
  if (b.rows.length < n || (!last && b.rows.length !== n)) return false;
  if (a.carried !== b.carried || a.unansweredAsk !== b.unansweredAsk || (a.compaction === undefined) !== (b.compaction === undefined)) return false;
  if (a.compaction && b.compaction && (a.compaction.mode !== b.compaction.mode || a.compaction.before.length !== b.compaction.before.length)) return false;
  for (let i = 0; i < n; i++) if (a.rows[i] !== b.rows[i] && !sameValue(a.rows[i], b.rows[i])) return false;
  // A request that failed within the rows read (or right after them) changes what was replayed.
  const failedWithin = (g: Generation): string => JSON.stringify((g.failedAt ?? []).filter((k) => k <= n));
  if (failedWithin(a) !== failedWithin(b)) return false;
  for (const [i, inputs] of a.turnInputs ?? []) if (!sameValue(inputs, b.turnInputs?.get(i))) return false;
  return true;
}

/**
 * Makes `old` what `fresh` read, keeping its objects (the replay's progress refers to them): new
 * rows pushed onto its lists, everything else taken from the fresh read.
 */
export function graftGrowth(old: Transcript, fresh: Transcript, growth: Growth): void {
  for (const { old: a, fresh: b } of growth.pairs) {
    const lists = a.generations;
    Object.assign(a, b, { generations: lists });
    lists.forEach((gen, g) => {
      const next = b.generations[g];
      const grew = next.rows.length > gen.rows.length;
      for (let i = gen.rows.length; i < next.rows.length; i++) gen.rows.push(next.rows[i]);
      gen.pos = next.pos;
      // Only the fields the fresh list has, so that the list compares equal to a later read of it (keepUnchanged).
      for (const key of ['turnInputs', 'trailingRequest', 'failedAt'] as const) {
        if (next[key] === undefined) delete gen[key];
        else Object.assign(gen, { [key]: next[key] });
      }
      // A new object, so copies recognised on the shorter list are not taken for the longer one's.
      if (grew && gen.compaction && next.compaction) {
        const { copies, ...kept } = gen.compaction;
        gen.compaction = { ...kept, beforePos: next.compaction.beforePos, ...(next.compaction.copies ? { copies: next.compaction.copies } : {}) };
      }
    });
  }
  Object.assign(old, fresh, { sessions: old.sessions });
}

/**
 * The sessions of `old` that `fresh` holds unchanged, whole families at a time (a session, its
 * parent and every session descending from either: what one session's replay reads), put into
 * `fresh` in place of its equal copies, so that the replay of `old` can be taken over for them.
 */
export function keepUnchanged(old: Transcript, fresh: Transcript): Set<TranscriptSession> {
  const kept = new Set<TranscriptSession>();
  if (old.format !== fresh.format || old.path !== fresh.path || old.listedOnly || fresh.listedOnly) return kept;
  const oldById = new Map(old.sessions.map((s) => [s.id, s]));
  const freshIds = new Set(fresh.sessions.map((s) => s.id));
  if (oldById.size !== old.sessions.length || freshIds.size !== fresh.sessions.length) return kept;
  const oldFamily = familyOf(old.sessions);
  const freshFamily = familyOf(fresh.sessions);
  const members = new Map<string, TranscriptSession[]>();
  for (const s of fresh.sessions) {
    const f = freshFamily.get(s.id) as string;
    const list = members.get(f);
    if (list) list.push(s);
    else members.set(f, [s]);
  }
  const oldSizes = new Map<string, number>();
  for (const f of oldFamily.values()) oldSizes.set(f, (oldSizes.get(f) ?? 0) + 1);
  for (const family of members.values()) {
    const was = family.map((s) => oldById.get(s.id));
    const f = oldFamily.get(family[0].id);
    if (f === undefined || oldSizes.get(f) !== family.length || !was.every((o) => o && oldFamily.get(o.id) === f)) continue;
    if (!family.every((s, i) => sameValue(was[i], s))) continue;
    for (const o of was) kept.add(o as TranscriptSession);
  }
  fresh.sessions = fresh.sessions.map((s) => {
    const o = oldById.get(s.id);
    return o && kept.has(o) ? o : s;
  });
  return kept;
}

/** Each session's family, named by one of its members: sessions joined by their parent links. */
function familyOf(sessions: readonly TranscriptSession[]): Map<string, string> {
  const up = new Map(sessions.map((s) => [s.id, s.id]));
  const find = (id: string): string => {
    let root = id;
    while (up.get(root) !== root) root = up.get(root) as string;
    for (let at = id; at !== root;) {
      const next = up.get(at) as string;
      up.set(at, root);
      at = next;
    }
    return root;
  };
  for (const s of sessions) if (s.parentId !== null && up.has(s.parentId)) up.set(find(s.id), find(s.parentId));
  return new Map(sessions.map((s) => [s.id, find(s.id)]));
}
