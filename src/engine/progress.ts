// The compaction thresholds of docs/hermes-behaviour.md (§1.4), at their exact boundaries.

/** Fewer rows always counts; with as many rows, rough tokens must fall strictly below 95 %. */
export function compactionMadeProgress(origLen: number, newLen: number, origTokens: number, newTokens: number): boolean {
  return newLen < origLen || (origTokens > 0 && newTokens < origTokens * 0.95);
}
