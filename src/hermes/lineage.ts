// Session lineage (docs/hermes-behaviour.md "Lineage"): which sessions continue one conversation,
// and in which order they are read. One walker for every reader and the replay, iterative
// throughout, so a chain of any depth neither recurses nor loops.

import type { ForkKind } from '../model/transcript';

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
