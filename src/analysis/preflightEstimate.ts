// Which estimate decided a compaction before a turn (docs/hermes-behaviour.md §5.8, issue 18 item
// 10): since #97206 and #104555 the preflight anchors on the previous response's billed usage, its
// prompt and completion tokens plus the rough estimate of the rows added since, while the rows it
// priced are unchanged; otherwise it takes the rough estimate of the whole request. The bill comes
// from agent.log (billing.ts); the agent's own figure and threshold from its preflight line.

import { estimateMessagesTokensRough, estimateRequestTokensRough } from '../engine/estimator';
import type { Profile } from '../engine/profile';
import type { Replay } from '../engine/replay';
import type { Row } from '../shared/model/rows';
import type { LoggedPreflight } from '../transcripts/agentLogRecords';
import type { PreflightEstimate, Report } from '../shared/reportTypes';

/** usage_anchor.message_fingerprint's fields: a row the anchor priced still counts as the same row when these are. */
const FINGERPRINTED = ['role', 'content', 'api_content', 'tool_call_id', 'tool_calls'] as const;

function sameRow(a: Row, b: Row): boolean {
  return a === b || FINGERPRINTED.every((k) => JSON.stringify(a[k] ?? null) === JSON.stringify(b[k] ?? null));
}

/**
 * The estimate of each turn's compaction before its first request, by turn index. `report` is the
 * one the bill was matched to (its requests' `billed`); `preflights` the log's preflight lines.
 */
export function preflightEstimates(report: Report, replay: Replay, profile: Profile, preflights: readonly LoggedPreflight[]): Map<number, PreflightEstimate> {
  const out = new Map<number, PreflightEstimate>();
  for (const t of report.turns) {
    const c = replay.turns[t.index]?.compaction;
    const first = t.requests[0];
    if (!t.compression || !c || first === undefined) continue;
    const at = report.requests[first].prefix.previousRequest;
    const previous = at === null ? null : replay.requests[at];
    const billed = at === null ? null : report.requests[at].billed;
    const rough = (): number => estimateRequestTokensRough(c.before, replay.requests[first].systemPrompt, replay.requests[first].tools, profile);
    // The anchor is captured on the list the previous call was sent with and holds while those rows are unchanged.
    const holds =
      profile.preflightEstimate === 'anchored'
      && previous !== null
      && !previous.failed
      && c.before.length >= previous.end
      && previous.rows.slice(0, previous.end).every((row, i) => sameRow(row, c.before[i]));
    const logged = loggedFor(preflights, report, at, first);
    if (!holds) {
      out.set(t.index, { method: 'rough', tokens: rough(), anchor: null, logged });
      continue;
    }
    if (!billed || billed.input === null || billed.input <= 0 || billed.output === null) {
      // The rows say the anchor held; what the provider billed for it is not recorded.
      out.set(t.index, { method: 'anchored', tokens: null, anchor: null, logged });
      continue;
    }
    // The rows since; the first is the previous call's own answer, which its completion tokens priced.
    const since = c.before.slice(previous.end);
    const delta = since[0]?.role === 'assistant' ? since.slice(1) : since;
    out.set(t.index, {
      method: 'anchored',
      tokens: billed.input + billed.output + estimateMessagesTokensRough(delta, profile),
      anchor: { request: at as number, input: billed.input, output: billed.output },
      logged,
    });
  }
  return out;
}

/**
 * The agent's "Preflight compression: ~T tokens >= H threshold" line for this compaction: tagged
 * with the session of the request before it, logged after that request's call and by the first
 * call after the compaction.
 */
function loggedFor(preflights: readonly LoggedPreflight[], report: Report, before: number | null, first: number): PreflightEstimate['logged'] {
  if (before === null) return null;
  const session = report.requests[before].sessionId;
  const from = report.requests[before].billed?.loggedAt;
  const to = report.requests[first].billed?.loggedAt;
  if (from === undefined) return null;
  const line = preflights.find(
    (p) =>
      p.action === 'compress'
      && p.sessionTag === session
      && p.time.text > from
      && (to === undefined || p.time.text <= to)
      && p.roughTokens !== null
      && p.threshold !== null,
  );
  return line ? { tokens: line.roughTokens as number, threshold: line.threshold as number, source: { file: line.file, line: line.pos.line ?? 0 } } : null;
}
