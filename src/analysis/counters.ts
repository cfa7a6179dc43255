// The replay checked against the agent's own records (docs/hermes-behaviour.md "Counters"): each
// session's `api_call_count` is the number of main-loop provider responses it recorded, so it
// should equal the requests the replay found answered in that session. A rotation child starts at
// 0; a gateway that writes its cached agent's running totals stores them cumulatively along the
// compaction chain, which is accepted too.

import { Lineages } from '../hermes/lineage';
import type { Replay } from '../engine/replay';
import type { Transcript, TranscriptSession } from '../model/transcript';
import type { Diagnostic, ReportSession, SessionCounts } from './reportTypes';

export function sessionCounts(transcript: Transcript, replay: Replay, tokens: { input: number[]; reused: number[] }): Map<TranscriptSession, SessionCounts> {
  const out = new Map<TranscriptSession, SessionCounts>();
  for (const s of transcript.sessions) {
    out.set(s, { requests: 0, rows: s.generations.reduce((n, g) => n + g.rows.length - (g.carried ?? 0), 0), inputTokens: 0, reusedTokens: 0 });
  }
  for (const r of replay.requests) {
    const c = out.get(r.session);
    if (!c) continue;
    c.requests++;
    c.inputTokens += tokens.input[r.index];
    c.reusedTokens += tokens.reused[r.index];
  }
  return out;
}

/** One `replay-count-mismatch` per session whose recorded call count disagrees with the replay. */
export function compareCallCounts(transcript: Transcript, sessions: readonly ReportSession[]): Diagnostic[] {
  // A file only listed (too large to read whole) replayed none of its rows: nothing to compare.
  if (transcript.listedOnly) return [];
  const byId = new Map(sessions.map((s) => [s.id, s]));
  const chains = new Lineages(transcript.sessions).chains();
  const out: Diagnostic[] = [];
  for (const chain of chains.values()) {
    const counted = chain
      .map((s) => ({ s, recorded: byId.get(s.id)?.recorded?.apiCalls, replayed: byId.get(s.id)?.replayed.requests ?? 0 }))
      .filter((c): c is { s: TranscriptSession; recorded: number; replayed: number } => c.recorded !== undefined);
    if (counted.every((c) => c.recorded === c.replayed)) continue;
    let running = 0;
    const cumulative =
      chain.length > 1
      && chain.every((s) => {
        running += byId.get(s.id)?.replayed.requests ?? 0;
        const recorded = byId.get(s.id)?.recorded?.apiCalls;
        return recorded === undefined || recorded === running;
      });
    if (cumulative) continue;
    for (const c of counted) {
      if (c.recorded === c.replayed) continue;
      out.push({
        severity: 'warning',
        code: 'replay-count-mismatch',
        turn: null,
        request: null,
        sessionId: c.s.id,
        message: `session ${c.s.id}: the agent recorded ${c.recorded} API call${c.recorded === 1 ? '' : 's'} (sessions.api_call_count); the replay found ${c.replayed} request${c.replayed === 1 ? '' : 's'} answered in it`,
      });
    }
  }
  return out;
}
