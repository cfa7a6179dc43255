// Session lineage (docs/hermes-behaviour.md "Lineage"): which sessions continue one conversation,
// and in which order they are read. One walker for every reader and the replay, iterative
// throughout, so a chain of any depth neither recurses nor loops.

import type { ForkKind, Transcript, TranscriptSession } from '../model/transcript';

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

  /** The first session of the compaction chain `s` belongs to: its conversation's id. */
  root(s: T): T {
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

  /** A parent chain that comes back to the session itself, or null: such a session has no parent to read from. */
  cycleFrom(s: T): string[] | null {
    const seen = [s.id];
    for (let p = this.parentOf(s); p; p = this.parentOf(p)) {
      if (seen.includes(p.id)) return [...seen, p.id];
      seen.push(p.id);
    }
    return null;
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

/**
 * The sessions of the lineage that holds session `id` (one overview row: its compaction chain), in
 * lineage order, from what the file names (the state.db catalogue included, so a chain member that
 * was not loaded is named too); [] when the file names no such session.
 */
export function lineageMembers(transcript: Transcript, id: string): string[] {
  const lineages = new Lineages(listedSessions(transcript));
  const start = lineages.get(id);
  if (!start) return [];
  const root = lineages.root(start).id;
  return lineages
    .ordered()
    .filter((n) => lineages.root(n).id === root)
    .map((n) => n.id);
}

/**
 * The transcript without what lies outside the lineage of `members` (lineageMembers): other
 * sessions' rows, catalogue entries, request dumps and the findings placed in them. A new object:
 * the transcript it narrows is left as it was (the extension's worker keeps it for other lineages).
 */
export function narrowToLineage(transcript: Transcript, members: readonly string[]): Transcript {
  const keep = new Set(members);
  return {
    ...transcript,
    sessions: transcript.sessions.filter((s) => keep.has(s.id)),
    ...(transcript.catalog ? { catalog: transcript.catalog.filter((s) => keep.has(s.id)) } : {}),
    captured: transcript.captured.filter((c) => keep.has(c.sessionId)),
    findings: transcript.findings.filter((f) => f.pos.sessionId === undefined || keep.has(f.pos.sessionId)),
  };
}
