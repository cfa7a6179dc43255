// Prefix-cache stability between consecutive requests of one lineage (docs/report.md, requests[].prefix).

import { wireKey, type WireMessage } from '../engine/apiMessages';
import type { ReplayRequest } from '../engine/replay';
import { contentRelation } from '../hermes/rowIdentity';
import type { Row } from '../shared/model/rows';
import { firstDifferingByte } from '../shared/model/utf8';
import type { PrefixBreak, PrefixResult } from '../shared/reportTypes';
import type { RequestWire } from './requestWire';

/** Compares a request with the previous one of its lineage. */
export function comparePrefix(prev: ReplayRequest | null, cur: ReplayRequest, wire: RequestWire): PrefixResult {
  if (!prev) return { previousRequest: null, stable: true, breakAt: null, reusedTokens: 0 };
  const at = firstDifference(prev, cur, wire);
  if (at === null) {
    return { previousRequest: prev.index, stable: true, breakAt: null, reusedTokens: wire.inputTokens(prev) };
  }
  return { previousRequest: prev.index, stable: false, breakAt: at, reusedTokens: wire.leadingTokens(prev, at.messageIndex) };
}

function contentByte(a: WireMessage, b: WireMessage): number | null {
  const x = a.message.content;
  const y = b.message.content;
  return typeof x === 'string' && typeof y === 'string' ? firstDifferingByte(x, y) : null;
}

function firstDifference(prev: ReplayRequest, cur: ReplayRequest, wire: RequestWire): PrefixBreak | null {
  if (prev.systemPrompt !== cur.systemPrompt) {
    return { messageIndex: 0, byteOffset: firstDifferingByte(prev.systemPrompt, cur.systemPrompt), cause: 'system-changed' };
  }
  if (prev.tools !== undefined && cur.tools !== undefined && prev.tools !== cur.tools && JSON.stringify(prev.tools) !== JSON.stringify(cur.tools)) {
    return { messageIndex: 0, byteOffset: null, cause: 'tools-changed' };
  }
  const prevCount = wire.messageCount(prev);
  const curCount = wire.messageCount(cur);
  const limit = Math.min(prevCount, curCount);
  for (const index of candidateIndices(prev, cur, limit)) {
    const a = wire.message(prev, index);
    const b = wire.message(cur, index);
    if (!sameOnWire(a.message, b.message)) {
      return { messageIndex: index, byteOffset: contentByte(a, b), cause: classify(prev, cur, a, b) };
    }
  }
  if (curCount < prevCount)
    return { messageIndex: curCount, byteOffset: null, cause: cur.afterCompaction ? 'compression' : cur.rewoundAt !== null ? 'rewind' : 'history-rewritten' };
  return null;
}

/**
 * The wire indices where the two requests can differ, in order. Within one generation only the
 * rows whose mode changed (the previous current/final rows, the new current row) can; across
 * generations every message must be compared.
 */
function candidateIndices(prev: ReplayRequest, cur: ReplayRequest, limit: number): number[] {
  if (prev.rows !== cur.rows) return Array.from({ length: Math.max(0, limit - 1) }, (_, i) => i + 1);
  const rows = new Set([prev.currentUserIdx, prev.end - 1, cur.currentUserIdx, cur.end - 1]);
  return [...rows]
    .filter((r) => r >= 0 && r + 1 < limit)
    .map((r) => r + 1)
    .sort((a, b) => a - b);
}

function classify(prev: ReplayRequest, cur: ReplayRequest, a: WireMessage, b: WireMessage): PrefixBreak['cause'] {
  if (cur.afterCompaction) return 'compression';
  // The user took turns back: the list goes on from the rows before the undone ones. A difference
  // before them has another cause.
  if (cur.rewoundAt !== null && (a.source < 0 || a.source >= cur.rewoundAt)) return 'rewind';
  const was = a.source >= 0 ? prev.rows[a.source] : undefined;
  const row = b.source >= 0 ? cur.rows[b.source] : undefined;
  // The sidecar causes say one stored message went out with its sidecar, then without. A different
  // message in its place (after /undo, the re-ask of a turn that injected nothing where the undone
  // ask went out composed) is the history changing there, however its words begin.
  if (a.substituted === 'sidecar' && b.substituted !== 'sidecar' && was && row && oneStoredMessage(was, row)) {
    return typeof row.api_content === 'string' && row.api_content !== '' ? 'sidecar-not-replayed' : 'sidecar-dropped';
  }
  return 'history-rewritten';
}

/**
 * Whether two rows at one wire index are the same stored message: the same state.db row id where
 * both have one (a re-ask may repeat the undone words exactly), else the same stored content
 * (session JSON and traces keep no row ids; a turn's row composed live keeps the stored copy's words).
 */
function oneStoredMessage(x: Row, y: Row): boolean {
  if (x._row_id !== undefined && y._row_id !== undefined) return x._row_id === y._row_id;
  return contentRelation(x.content, y.content) === 'equal';
}

/** wireKey(x) === wireKey(y), without serialising the common case: same strings, same tool calls. */
function sameOnWire(x: WireMessage['message'], y: WireMessage['message']): boolean {
  if (x === y) return true;
  if (typeof x.content === 'string' && typeof y.content === 'string' && (x.tool_calls ?? null) === (y.tool_calls ?? null)) {
    return x.role === y.role && x.content === y.content && (x.tool_call_id ?? null) === (y.tool_call_id ?? null);
  }
  return wireKey(x) === wireKey(y);
}
