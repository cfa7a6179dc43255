// The replay checked against the agent's own records (docs/hermes-behaviour.md "Counters"): each
// session's `api_call_count` is the number of main-loop provider responses it recorded, so it
// should equal the requests the replay found answered in that session. A rotation child starts at
// 0; a gateway that writes its cached agent's running totals stores them cumulatively along the
// compaction chain, which is accepted too.

import { Lineages } from '../hermes/lineage';
import type { Replay } from '../engine/replay';
import type { Transcript, TranscriptSession } from '../shared/model/transcript';
import type { Diagnostic, ReportSession, SessionCounts } from '../shared/reportTypes';

export function sessionCounts(transcript: Transcript, replay: Replay, tokens: { input: number[]; reused: number[] }): Map<TranscriptSession, SessionCounts> {
  const out = new Map<TranscriptSession, SessionCounts>();
  for (const s of transcript.sessions) {
    out.set(s, { requests: 0, failed: 0, rows: s.generations.reduce((n, g) => n + g.rows.length - (g.carried ?? 0), 0), inputTokens: 0, reusedTokens: 0 });
  }
  for (const r of replay.requests) {
    const c = out.get(r.session);
    if (!c) continue;
    if (r.failed) c.failed++;
    else c.requests++;
    c.inputTokens += tokens.input[r.index];
    c.reusedTokens += tokens.reused[r.index];
  }
  return out;
}

/**
 * One `replay-count-mismatch` per session whose kept call count disagrees with the replay. A count
 * of 0 on a session with answered requests was never kept (an older agent, or a store whose counter
 * writer never ran): such sessions are named once, in one `counters-not-recorded` info.
 */
export function compareCallCounts(transcript: Transcript, sessions: readonly ReportSession[]): Diagnostic[] {
  // A file only listed (too large to read whole) replayed none of its rows: nothing to compare.
  if (transcript.listedOnly) return [];
  const byId = new Map(sessions.map((s) => [s.id, s]));
  const unkept = sessions.filter((s) => s.recorded?.apiCalls === 0 && s.replayed.requests > 0);
  const kept = (s: TranscriptSession): number | undefined => {
    const r = byId.get(s.id);
    return r?.recorded?.apiCalls === 0 && r.replayed.requests > 0 ? undefined : r?.recorded?.apiCalls;
  };
  const chains = new Lineages(transcript.sessions).chains();
  const out: Diagnostic[] = [];
  if (unkept.length) {
    const named =
      unkept
        .slice(0, 3)
        .map((s) => s.id)
        .join(', ') + (unkept.length > 3 ? ` and ${unkept.length - 3} more` : '');
    out.push({
      severity: 'info',
      code: 'counters-not-recorded',
      turn: null,
      request: null,
      message: `the agent's API-call counters are not recorded for ${unkept.length} session${unkept.length === 1 ? '' : 's'} with answered requests (sessions.api_call_count is 0: ${named}); they are not compared with the replay`,
    });
  }
  for (const chain of chains.values()) {
    const counted = chain
      .map((s) => ({ s, recorded: kept(s), replayed: byId.get(s.id)?.replayed.requests ?? 0 }))
      .filter((c): c is { s: TranscriptSession; recorded: number; replayed: number } => c.recorded !== undefined);
    if (counted.every((c) => c.recorded === c.replayed)) continue;
    let running = 0;
    const cumulative =
      chain.length > 1
      && chain.every((s) => {
        running += byId.get(s.id)?.replayed.requests ?? 0;
        const recorded = kept(s);
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
