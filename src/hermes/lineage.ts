// Session lineage (docs/hermes-behaviour.md "Lineage"): which sessions continue one conversation,
// and in which order they are read. One walker for every reader and the replay, iterative
// throughout, so a chain of any depth neither recurses nor loops.

import type { ForkKind, Transcript, TranscriptSession } from '../shared/model/transcript';

/** What lineage needs of a session. */
export interface LineageNode {
  id: string;
  parentId: string | null;
  endReason: string | null;
  /** A child that starts a conversation of its own (model_config `_branched_from`, `_delegate_from`, `_reset_from`). */
  forkKind?: ForkKind;
}

/** model_config markers of a child that is not a compaction continuation (upstream get_compression_chain). */
export const FORK_MARKERS: Readonly<Record<string, ForkKind>> = {
  _branched_from: 'branch',
  _delegate_from: 'delegate',
  _reset_from: 'reset',
};

/** The fork kind a session's model_config names, if any. */
export function forkKindOf(modelConfig: unknown): ForkKind | undefined {
  if (!modelConfig || typeof modelConfig !== 'object' || Array.isArray(modelConfig)) return undefined;
  for (const [key, kind] of Object.entries(FORK_MARKERS)) {
    const v = (modelConfig as Record<string, unknown>)[key];
    if (v !== undefined && v !== null && v !== false && v !== '') return kind;
  }
  return undefined;
}

/**
 * True when `child` continues `parent`'s conversation: the parent ended by compaction (upstream
 * stores `end_reason = 'compression'`) and the child is not a branch, delegate or reset.
 */
export function continuesParent(child: LineageNode, parent: LineageNode | undefined): boolean {
  return parent !== undefined && child.parentId === parent.id && parent.endReason === 'compression' && child.forkKind === undefined;
}

export class Lineages<T extends LineageNode> {
  private readonly byId = new Map<string, T>();
  private readonly children = new Map<string, T[]>();
  /** root() of each session already asked about, or met on the way (one walk per session in all). */
  private readonly roots = new Map<T, T>();

  constructor(readonly sessions: readonly T[]) {
    for (const s of sessions) if (!this.byId.has(s.id)) this.byId.set(s.id, s);
    for (const s of sessions) {
      if (s.parentId === null || this.byId.get(s.id) !== s) continue;
      const list = this.children.get(s.parentId);
      if (list) list.push(s);
      else this.children.set(s.parentId, [s]);
    }
  }

  get(id: string): T | undefined {
    return this.byId.get(id);
  }

  parentOf(s: T): T | undefined {
    return s.parentId === null ? undefined : this.byId.get(s.parentId);
  }

  /**
   * The first session of the compaction chain `s` belongs to: its conversation's id. The walk up
   * stops before a session it already passed (a loop of compactions ends at the session whose
   * parent comes next); what it finds is kept for every session on the way, so the roots of a whole
   * file cost one step per session, however deep its chains.
   */
  root(s: T): T {
    const known = this.roots.get(s);
    if (known) return known;
    // A session whose id another one holds first is not in the parent links: walked alone, unkept.
    if (this.byId.get(s.id) !== s) return this.walkRoot(s);
    const path: T[] = [];
    const at = new Map<string, number>();
    let cur = s;
    let top: T | undefined;
    for (;;) {
      at.set(cur.id, path.push(cur) - 1);
      const p = this.parentOf(cur);
      if (!p || !continuesParent(cur, p)) {
        top = cur;
        break;
      }
      top = this.roots.get(p);
      if (top) break;
      const loop = at.get(p.id);
      if (loop !== undefined) {
        // A loop entered at path[loop]: from each of its sessions the walk ends at the one before it
        // on the loop (the entry's at the last), and from a session leading into it, as from the entry.
        for (let k = loop + 1; k < path.length; k++) this.roots.set(path[k], path[k - 1]);
        this.roots.set(path[loop], cur);
        for (let k = 0; k < loop; k++) this.roots.set(path[k], cur);
        return this.roots.get(s) as T;
      }
      cur = p;
    }
    for (const n of path) this.roots.set(n, top);
    return top;
  }

  /** root() by the plain walk, for a session that shares its id with an earlier one. */
  private walkRoot(s: T): T {
    let cur = s;
    const seen = new Set<string>([s.id]);
    for (let p = this.parentOf(cur); p && continuesParent(cur, p) && !seen.has(p.id); p = this.parentOf(cur)) {
      seen.add(p.id);
      cur = p;
    }
    return cur;
  }

  /** The session `s` continues, when it is a compaction child. */
  continued(s: T): T | undefined {
    const p = this.parentOf(s);
    return p && continuesParent(s, p) ? p : undefined;
  }

  /** A parent chain that comes back to a session it passed, or null: [s, its parents…, the session met again]. */
  cycleFrom(s: T): string[] | null {
    const seen = [s.id];
    const passed = new Set(seen);
    for (let p = this.parentOf(s); p; p = this.parentOf(p)) {
      if (passed.has(p.id)) return [...seen, p.id];
      seen.push(p.id);
      passed.add(p.id);
    }
    return null;
  }

  /**
   * Every parent loop once: [first, its parent, …, first], `first` being the loop's session that
   * comes first in the given order. Sessions that only lead into a loop are not in it. One step per
   * session in all (each parent link is followed once), however long the loops and the chains into them.
   */
  cycles(): T[][] {
    const order = new Map<T, number>();
    this.sessions.forEach((s, i) => {
      if (this.byId.get(s.id) === s && !order.has(s)) order.set(s, i);
    });
    // 0: not visited; a walk's own number while it is on that walk's path; -1: done.
    const state = new Map<T, number>();
    const out: { first: number; loop: T[] }[] = [];
    let walk = 0;
    for (const s of order.keys()) {
      if (state.has(s)) continue;
      walk++;
      const path: T[] = [];
      let cur: T | undefined = s;
      while (cur && !state.has(cur)) {
        state.set(cur, walk);
        path.push(cur);
        cur = this.parentOf(cur);
      }
      if (cur && state.get(cur) === walk) {
        const loop = path.slice(path.indexOf(cur));
        let first = 0;
        for (let k = 1; k < loop.length; k++) if ((order.get(loop[k]) as number) < (order.get(loop[first]) as number)) first = k;
        const turned = [...loop.slice(first), ...loop.slice(0, first)];
        out.push({ first: order.get(turned[0]) as number, loop: [...turned, turned[0]] });
      }
      for (const n of path) state.set(n, -1);
    }
    return out.sort((a, b) => a.first - b.first).map((c) => c.loop);
  }

  /** `id`, its parent chain and every session descending from it (branches and delegates included). */
  around(id: string): Set<string> {
    const out = new Set([id]);
    const start = this.byId.get(id);
    for (let p = start ? this.parentOf(start) : undefined; p && !out.has(p.id); p = this.parentOf(p)) out.add(p.id);
    const queue = [id];
    while (queue.length) {
      for (const child of this.children.get(queue.pop() as string) ?? []) {
        if (!out.has(child.id)) {
          out.add(child.id);
          queue.push(child.id);
        }
      }
    }
    return out;
  }

  /**
   * Every session once, parents before their children, otherwise in the given (start) order.
   * Iterative, so a chain 100,000 deep neither recurses nor reorders.
   */
  ordered(): T[] {
    const out: T[] = [];
    const placed = new Set<string>();
    for (const s of this.sessions) {
      if (placed.has(s.id)) continue;
      // The unplaced ancestors of s, nearest first; placed from the top down.
      const chain: T[] = [s];
      const seen = new Set<string>([s.id]);
      for (let p = this.parentOf(s); p && !placed.has(p.id) && !seen.has(p.id); p = this.parentOf(p)) {
        seen.add(p.id);
        chain.push(p);
      }
      for (let k = chain.length - 1; k >= 0; k--) {
        placed.add(chain[k].id);
        out.push(chain[k]);
      }
    }
    return out;
  }

  /** The compaction chains: each root's sessions in lineage order (parents before children), by root id. */
  chains(): Map<string, T[]> {
    const chains = new Map<string, T[]>();
    for (const s of this.ordered()) {
      const root = this.root(s).id;
      const chain = chains.get(root);
      if (chain) chain.push(s);
      else chains.set(root, [s]);
    }
    return chains;
  }
}

/** A session the file names, loaded or only listed, with what its catalogue entry says of it. */
export interface ListedSession extends LineageNode {
  title: string | null;
  startedAt: number | null;
  messageCount: number | null;
  source: string | null;
  model: string | null;
  endedAt: number | null;
  loaded: TranscriptSession | undefined;
}

/** Every session the file names: the state.db catalogue (loaded or not) in start order, then any session only the readers know. */
export function listedSessions(transcript: Transcript): ListedSession[] {
  const loaded = new Map(transcript.sessions.map((s) => [s.id, s]));
  const out: ListedSession[] = [];
  const seen = new Set<string>();
  for (const c of transcript.catalog ?? []) {
    if (seen.has(c.id)) continue;
    seen.add(c.id);
    const s = loaded.get(c.id);
    out.push({
      id: c.id,
      parentId: s ? s.parentId : c.parentId,
      endReason: s ? s.endReason : c.endReason,
      forkKind: s ? s.forkKind : c.forkKind,
      title: c.title,
      startedAt: c.startedAt,
      messageCount: c.messageCount,
      source: c.source,
      model: c.model,
      endedAt: c.endedAt,
      loaded: s,
    });
  }
  for (const s of transcript.sessions) {
    if (seen.has(s.id)) continue;
    seen.add(s.id);
    out.push({
      id: s.id,
      parentId: s.parentId,
      endReason: s.endReason,
      forkKind: s.forkKind,
      title: null,
      startedAt: s.startedAt ?? null,
      messageCount: null,
      source: s.source ?? null,
      model: s.model ?? null,
      endedAt: s.endedAt ?? null,
      loaded: s,
    });
  }
  return out;
}

/** The sessions a file names (listedSessions), their walker, and its compaction chains by first session's id. */
export interface ListedLineages {
  lineages: Lineages<ListedSession>;
  chains: Map<string, ListedSession[]>;
}

/** Where each session's sessions, catalogue entries, dumps and findings sit in a transcript's lists. */
interface Places {
  sessions: Map<string, number[]>;
  /** The loaded sessions whose parent is each session, by the parent's id. */
  children: Map<string, number[]>;
  catalog: Map<string, number[]>;
  captured: Map<string, number[]>;
  findings: Map<string, number[]>;
  /** Findings placed in no session: every lineage keeps them. */
  unplaced: number[];
}

/**
 * The lineages of one transcript, each part worked out on first use and kept by whoever holds this
 * object: a report asks for every lineage of the file in turn (src/protocol/reportData.ts), and a
 * walk of the whole file per lineage would make 50,000 lineages cost 50,000² steps. A transcript is
 * not changed in place once read, so what is worked out stays true for as long as it is held.
 */
export class TranscriptLineages {
  private listedOnce?: ListedLineages;
  private chainOf?: Map<string, ListedSession[]>;
  private placesOnce?: Places;

  constructor(readonly transcript: Transcript) {}

  /** The lineages of every session the file names. */
  get listed(): ListedLineages {
    if (!this.listedOnce) {
      const lineages = new Lineages(listedSessions(this.transcript));
      this.listedOnce = { lineages, chains: lineages.chains() };
    }
    return this.listedOnce;
  }

  /**
   * The sessions of the lineage that holds session `id` (one overview row: its compaction chain), in
   * lineage order, from what the file names (the state.db catalogue included, so a chain member that
   * was not loaded is named too); [] when the file names no such session.
   */
  members(id: string): string[] {
    if (!this.chainOf) {
      this.chainOf = new Map();
      for (const chain of this.listed.chains.values()) for (const n of chain) this.chainOf.set(n.id, chain);
    }
    return this.chainOf.get(id)?.map((n) => n.id) ?? [];
  }

  /**
   * The transcript without what lies outside the lineage of `members` (members()): other
   * sessions' rows, catalogue entries, request dumps and the findings placed in them. A new object:
   * the transcript it narrows is left as it was (the extension's worker keeps it for other lineages).
   * Each list keeps its order; the cost is the lineage's size, not the file's.
   */
  narrow(members: readonly string[]): Transcript {
    const { transcript } = this;
    const at = this.places;
    const keep = [...new Set(members)];
    const pick = <T>(list: readonly T[], by: Map<string, number[]>, also: readonly number[] = []): T[] => {
      const picked = [...also];
      for (const id of keep) for (const i of by.get(id) ?? []) picked.push(i);
      return picked.sort((a, b) => a - b).map((i) => list[i]);
    };
    return {
      ...transcript,
      sessions: pick(transcript.sessions, at.sessions),
      ...(transcript.catalog ? { catalog: pick(transcript.catalog, at.catalog) } : {}),
      captured: pick(transcript.captured, at.captured),
      findings: pick(transcript.findings, at.findings, at.unplaced),
    };
  }

  /**
   * True when no loaded session of the lineage `members` (members()) has its parent or a child
   * among the file's other loaded sessions. The replay reads a fork's parent's list (the turn a fork
   * answers) and a parent's forks (the row that turn takes away), so only such a lineage replays the
   * same alone (narrow()) as within the whole file.
   */
  replaysAlone(members: readonly string[]): boolean {
    const { sessions } = this.transcript;
    const at = this.places;
    const own = new Set(members);
    const outside = (id: string | null): boolean => id !== null && !own.has(id) && at.sessions.has(id);
    for (const id of own) {
      for (const i of at.sessions.get(id) ?? []) if (outside(sessions[i].parentId)) return false;
      for (const i of at.children.get(id) ?? []) if (outside(sessions[i].id)) return false;
    }
    return true;
  }

  private get places(): Places {
    if (!this.placesOnce) {
      const { sessions, catalog, captured, findings } = this.transcript;
      const unplaced: number[] = [];
      this.placesOnce = {
        sessions: positions(sessions, (s) => s.id),
        children: positions(sessions, (s) => s.parentId ?? undefined),
        catalog: positions(catalog ?? [], (s) => s.id),
        captured: positions(captured, (c) => c.sessionId),
        findings: positions(findings, (f) => f.pos.sessionId, unplaced),
        unplaced,
      };
    }
    return this.placesOnce;
  }
}

function positions<T>(list: readonly T[], key: (item: T) => string | undefined, unplaced?: number[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  list.forEach((item, i) => {
    const k = key(item);
    if (k === undefined) unplaced?.push(i);
    else {
      const at = out.get(k);
      if (at) at.push(i);
      else out.set(k, [i]);
    }
  });
  return out;
}
