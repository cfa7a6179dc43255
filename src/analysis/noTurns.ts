// A session that holds rows but yields no turn always says why (issue 18, "never silent"): its rows
// are all copies counted where they first happened, none of them is a user's ask, or its asks were
// answered in a later list.

import { userOriginatedTurnView } from '../hermes/compactionMarkers';
import type { Replay } from '../engine/replay';
import type { Transcript } from '../shared/model/transcript';
import type { Diagnostic } from '../shared/reportTypes';

export function sessionsWithoutTurns(transcript: Transcript, replay: Replay): Diagnostic[] {
  if (transcript.listedOnly) return [];
  const withTurns = new Set(replay.turns.map((t) => t.session));
  const out: Diagnostic[] = [];
  for (const s of transcript.sessions) {
    if (withTurns.has(s)) continue;
    let rows = 0;
    let own = 0;
    let asks = 0;
    for (const g of s.generations) {
      rows += g.rows.length;
      const from = g.carried ?? 0;
      own += g.rows.length - from;
      for (let i = from; i < g.rows.length; i++) if (userOriginatedTurnView(g.rows[i]) !== null) asks++;
    }
    if (rows === 0) continue;
    const why =
      own === 0
        ? `all ${rows} are copies of an earlier list, counted where they first happened`
        : asks === 0
          ? `none of its own ${own} row${own === 1 ? '' : 's'} is a user's ask (summary carriers, notes and answers only)`
          : `no ask of it was answered in it (a compaction handed the turn to the list after it, or the request was never answered)`;
    out.push({
      severity: 'info',
      code: 'no-turns',
      turn: null,
      request: null,
      sessionId: s.id,
      message: `session ${s.id} holds ${rows} row${rows === 1 ? '' : 's'} and no turn: ${why}`,
    });
  }
  return out;
}
