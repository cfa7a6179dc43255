// The index as the view reads it: the packed columns unpacked once into typed arrays, with the
// few derived facts every part needs (a turn's requests, a request's turn, the tallest request).
// Titles, hashes and causes are not here: they come in pages (app.ts).

import type { CacheMiss } from '../src/shared/reportTypes';
import {
  CACHE_MISS_CLASSES,
  INJECTION_KINDS,
  REQUEST_COMPACTION,
  REQUEST_FAILED,
  REQUEST_REWIND,
  REQUEST_STABLE,
  REQUEST_SYSTEM_CHANGED,
  TURN_COMPACTED,
  unpackInts,
  type InspectorIndex,
} from '../src/shared/messages';
import type { InjectionKind } from '../src/shared/model/injection';

/** How a request's prefix relates to the previous request's: extended, broken, replaced by a compaction, or rewound by the user. */
export type PrefixStatus = 'stable' | 'break' | 'compaction' | 'rewind';

/** One request in numbers; -1 where REQUEST columns say none. */
export interface RequestSummary {
  index: number;
  turn: number;
  inputTokens: number;
  reusedTokens: number;
  messageCount: number;
  userWireIndex: number;
  previousRequest: number;
  breakMessage: number;
  stable: boolean;
  /** Not stable because a compaction replaced the history: re-billed by design. */
  compaction: boolean;
  /** Not stable because the user took turns back (/undo, /retry): re-billed by their act. */
  rewind: boolean;
  /** Sent and not answered: a provider error or an interrupt. */
  failed: boolean;
  /** Whole seconds since the previous request of its lineage; -1 where not recorded. */
  gapSeconds: number;
  systemChanged: boolean;
  /** The billed cache read in our tokens; -1 where not recorded. */
  billedRead: number;
  /** The cache miss's class; null for none or not judged. */
  missClass: CacheMiss['class'] | null;
}

export class IndexModel {
  readonly turnCount: number;
  readonly requestCount: number;
  /** Turn t owns requests [firstRequest[t], firstRequest[t + 1]). */
  private readonly firstRequest: Int32Array;
  private readonly turnOf: Int32Array;
  private readonly turnFlags: Float64Array;
  private readonly brokenTurns: Uint8Array;
  private readonly columns: Record<keyof InspectorIndex['requests'], Float64Array>;
  readonly maxInputTokens: number;
  /** Cache breaks to look into: a compaction's re-billing is not one. */
  readonly breakCount: number;

  constructor(readonly index: InspectorIndex) {
    this.turnCount = index.turnCount;
    this.requestCount = index.requestCount;
    const counts = unpackInts(index.turns.requestCount, this.turnCount);
    this.turnFlags = unpackInts(index.turns.flags, this.turnCount);
    const c = index.requests;
    const n = this.requestCount;
    this.columns = {
      inputTokens: unpackInts(c.inputTokens, n),
      reusedTokens: unpackInts(c.reusedTokens, n),
      messageCount: unpackInts(c.messageCount, n),
      userWireIndex: unpackInts(c.userWireIndex, n),
      previousRequest: unpackInts(c.previousRequest, n),
      breakMessage: unpackInts(c.breakMessage, n),
      gapSeconds: unpackInts(c.gapSeconds, n),
      flags: unpackInts(c.flags, n),
      billedRead: unpackInts(c.billedRead, n),
      missClass: unpackInts(c.missClass, n),
    };
    this.firstRequest = new Int32Array(this.turnCount + 1);
    this.turnOf = new Int32Array(n);
    this.brokenTurns = new Uint8Array(this.turnCount);
    let max = 1;
    let breaks = 0;
    for (let t = 0; t < this.turnCount; t++) {
      const first = this.firstRequest[t];
      const end = Math.min(n, first + counts[t]);
      this.firstRequest[t + 1] = end;
      for (let r = first; r < end; r++) {
        this.turnOf[r] = t;
        if (this.breaks(r)) {
          this.brokenTurns[t] = 1;
          breaks++;
        }
        if (this.columns.inputTokens[r] > max) max = this.columns.inputTokens[r];
      }
    }
    this.maxInputTokens = max;
    this.breakCount = breaks;
  }

  /** The requests of turn t, in order (empty for a turn without a provider call). */
  requestsOf(t: number): number[] {
    if (t < 0 || t >= this.turnCount) return [];
    const out: number[] = [];
    for (let r = this.firstRequest[t]; r < this.firstRequest[t + 1]; r++) out.push(r);
    return out;
  }

  firstRequestOf(t: number): number {
    return t >= 0 && t < this.turnCount && this.firstRequest[t] < this.firstRequest[t + 1] ? this.firstRequest[t] : -1;
  }

  injectedKinds(t: number): InjectionKind[] {
    const f = this.turnFlags[t] ?? 0;
    return INJECTION_KINDS.filter((_, i) => f & (1 << i));
  }

  compacted(t: number): boolean {
    return ((this.turnFlags[t] ?? 0) & TURN_COMPACTED) !== 0;
  }

  broken(t: number): boolean {
    return this.brokenTurns[t] === 1;
  }

  request(r: number): RequestSummary | undefined {
    if (!Number.isInteger(r) || r < 0 || r >= this.requestCount) return undefined;
    const c = this.columns;
    return {
      index: r,
      turn: this.turnOf[r],
      inputTokens: c.inputTokens[r],
      reusedTokens: c.reusedTokens[r],
      messageCount: c.messageCount[r],
      userWireIndex: c.userWireIndex[r],
      previousRequest: c.previousRequest[r],
      breakMessage: c.breakMessage[r],
      stable: (c.flags[r] & REQUEST_STABLE) !== 0,
      compaction: (c.flags[r] & REQUEST_COMPACTION) !== 0,
      rewind: (c.flags[r] & REQUEST_REWIND) !== 0,
      failed: (c.flags[r] & REQUEST_FAILED) !== 0,
      gapSeconds: c.gapSeconds[r],
      systemChanged: (c.flags[r] & REQUEST_SYSTEM_CHANGED) !== 0,
      billedRead: c.billedRead[r],
      missClass: c.missClass[r] > 0 ? (CACHE_MISS_CLASSES[c.missClass[r] - 1] ?? null) : null,
    };
  }

  status(r: number): PrefixStatus {
    const f = this.columns.flags[r];
    return f & REQUEST_STABLE ? 'stable' : f & REQUEST_COMPACTION ? 'compaction' : f & REQUEST_REWIND ? 'rewind' : 'break';
  }

  /** A cache break to look into: the prefix broke, and not because a compaction or the user's rewind replaced it. */
  breaks(r: number): boolean {
    return (this.columns.flags[r] & (REQUEST_STABLE | REQUEST_COMPACTION | REQUEST_REWIND)) === 0;
  }

  /** The requests whose system prompt differs from the previous request's in their lineage. */
  systemChanges(): number[] {
    const out: number[] = [];
    for (let r = 0; r < this.requestCount; r++) if (this.columns.flags[r] & REQUEST_SYSTEM_CHANGED) out.push(r);
    return out;
  }
}
