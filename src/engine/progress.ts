// The compaction thresholds of docs/hermes-behaviour.md (§1.4), at their exact boundaries.

/** Fewer rows always counts; with as many rows, rough tokens must fall strictly below 95 %. */
export function compressionMadeProgress(origLen: number, newLen: number, origTokens: number, newTokens: number): boolean {
  return newLen < origLen || (origTokens > 0 && newTokens < origTokens * 0.95);
}

/** Another preflight pass runs only while still over threshold and the last pass cut more than 5 %. */
export function compressionWarrantsAnotherPreflightPass(origTokens: number, newTokens: number, thresholdTokens: number): boolean {
  return newTokens >= thresholdTokens && origTokens > 0 && newTokens < origTokens * 0.95;
}

export type PreflightGateBranch = 'count' | 'chars' | null;

/**
 * The cheap gate before the full estimate: the row-count branch, or (since #27405) the char-based
 * estimate reaching the threshold. Returns which branch fired, count first, or null.
 */
export function preflightGateBranch(messageCount: number, roughMessageTokens: number,
  protectFirstN: number, protectLastN: number, thresholdTokens: number): PreflightGateBranch {
  if (messageCount > protectFirstN + protectLastN + 1) return 'count';
  if (roughMessageTokens >= thresholdTokens) return 'chars';
  return null;
}

export function shouldRunPreflightEstimate(messageCount: number, roughMessageTokens: number,
  protectFirstN: number, protectLastN: number, thresholdTokens: number): boolean {
  return preflightGateBranch(messageCount, roughMessageTokens, protectFirstN, protectLastN, thresholdTokens) !== null;
}

export interface IdleCompactInputs {
  enabled: boolean;
  idleAfterSeconds: number;
  idleGapSeconds: number;
  tokens: number;
  floorTokens: number;
  cooldownActive: boolean;
  lastCompactionTokens?: number;
}

/** Idle compaction (V2+); the floor rises by the last pass's output since #97239. */
export function shouldIdleCompact(i: IdleCompactInputs): boolean {
  if (!i.enabled || i.idleAfterSeconds <= 0 || i.idleGapSeconds < i.idleAfterSeconds || i.cooldownActive) return false;
  const last = i.lastCompactionTokens ?? 0;
  const floor = last > 0 ? Math.max(i.floorTokens, last + i.floorTokens) : i.floorTokens;
  return i.tokens > floor;
}
