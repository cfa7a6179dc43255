// One replayed turn or request as the report lists it (docs/report.md, turns[] and requests[]), with
// the findings about it. The report builder (report.ts) calls these once per new turn and request,
// so a resumed replay's rows are built exactly as a whole one's.

import { wireCopy } from '../engine/apiMessages';
import { estimateMessagesTokensRough } from '../engine/estimator';
import type { Profile } from '../engine/profile';
import { compactionMadeProgress } from '../engine/progress';
import type { ReplayCompaction, ReplayRequest, ReplayTurn } from '../engine/replay';
import type { Row } from '../shared/model/rows';
import type { SourcePos } from '../shared/model/transcript';
import { firstDifferingByte } from '../shared/model/utf8';
import { deliberateBreak, type Diagnostic, type Report, type ReportCompaction } from '../shared/reportTypes';
import { comparePrefix } from './prefix';
import type { RequestWire } from './requestWire';

type ReportTurn = Report['turns'][number];
type ReportRequest = Report['requests'][number];

/** What every row is built with: the replay's profile, the wire that measures it, whether messages are listed. */
export interface RowContext {
  profile: Profile;
  wire: RequestWire;
  messages: boolean;
}

type Place = Pick<Diagnostic, 'line' | 'column' | 'offset' | 'sessionId' | 'rowId'>;

/** A finding's place in the transcript, from a source position (only the parts it has). */
export function placeOf(pos: SourcePos | undefined): Place {
  if (!pos) return {};
  const out: Place = {};
  if (pos.line !== undefined) out.line = pos.line;
  if (pos.column !== undefined) out.column = pos.column;
  if (pos.offset !== undefined) out.offset = pos.offset;
  if (pos.sessionId !== undefined) out.sessionId = pos.sessionId;
  if (pos.rowId !== undefined) out.rowId = pos.rowId;
  return out;
}

/** A compaction's before and after, measured on the wire and roughly, and the no-progress finding. */
export function reportCompaction(c: ReplayCompaction, turn: number, pos: SourcePos, ctx: RowContext): { compaction: ReportCompaction; findings: Diagnostic[] } {
  const { profile, wire } = ctx;
  const tokensOf = (rows: Row[], current: number): number =>
    rows.reduce((sum, row, i) => sum + wire.messageTokens(wireCopy(row, i, { profile, isCurrent: i === current, isFinal: i === rows.length - 1 }).message), 0);
  const beforeRough = estimateMessagesTokensRough(c.before, profile);
  const afterRough = estimateMessagesTokensRough(c.after, profile);
  const madeProgress = compactionMadeProgress(c.before.length, c.after.length, beforeRough, afterRough);
  const findings: Diagnostic[] = madeProgress
    ? []
    : [
        {
          severity: 'warning',
          code: 'compression-no-progress',
          turn,
          request: null,
          ...placeOf(pos),
          message: `compaction kept ${c.after.length} of ${c.before.length} rows and ${afterRough} of ${beforeRough} rough tokens: not below 95 %, so it made no progress`,
        },
      ];
  const compaction: ReportCompaction = {
    mode: c.mode,
    beforeMessages: c.before.length,
    afterMessages: c.after.length,
    beforeTokens: tokensOf(c.before, c.reanchorBefore),
    afterTokens: tokensOf(c.after, c.reanchor.index),
    beforeRoughTokens: beforeRough,
    afterRoughTokens: afterRough,
    madeProgress,
    // Upstream records neither protect_first_n/protect_last_n nor the threshold in its stores
    // (model_config holds none of them), so which branch fired cannot be told from a transcript.
    gateBranch: null,
    reanchor: { before: c.reanchorBefore, after: c.reanchor.index, rule: c.reanchor.rule, ...(c.reanchor.confirmed ? { confirmed: true } : {}) },
    ...(c.userRowChange ? { userRowChange: c.userRowChange, sidecarDropped: c.sidecarDropped === true } : {}),
  };
  return { compaction, findings };
}

/** The findings about a turn itself: how its user row was found, notes the profile drops, a replay unlike the record. */
function turnFindings(t: ReplayTurn, ctx: RowContext): Diagnostic[] {
  const { profile } = ctx;
  const about = { turn: t.index, request: null, ...placeOf(t.pos) };
  const found: Diagnostic[] = [];
  if (t.anchor.rule === 'none') {
    found.push({ severity: 'error', code: 'reanchor-none', ...about, message: `no user-originated row drives turn ${t.index}: re-anchoring returned -1` });
  } else if (t.anchor.rule === 'fallback' && !t.anchor.confirmed) {
    found.push({
      severity: 'warning',
      code: 'reanchor-fallback',
      ...about,
      message: `turn ${t.index}'s user row was found only by the fallback rule (index ${t.anchor.index})`,
    });
  }
  if (t.lost.length) {
    found.push({
      severity: 'warning',
      code: 'notes-lost',
      ...about,
      message: `${profile.name} drops the ${t.lost.join(' and ')} context of multimodal turn ${t.index} (upstream #71998)`,
    });
  }
  if (t.recordedMismatch) {
    const a = wireCopy(t.recordedMismatch.recorded, t.userRow, { profile, isCurrent: true, isFinal: false }).message;
    const b = wireCopy(t.recordedMismatch.replayed, t.userRow, { profile, isCurrent: true, isFinal: false }).message;
    const byte = typeof a.content === 'string' && typeof b.content === 'string' ? firstDifferingByte(a.content, b.content) : null;
    found.push({
      severity: 'warning',
      code: 'replay-mismatch',
      ...about,
      message: `the recorded user row of turn ${t.index} differs on the wire from its ${profile.name} replay${byte === null ? '' : ` at byte ${byte}`}`,
    });
  }
  return found;
}

/** A turn as turns[] lists it, with its findings and those of its compactions, in that order. */
export function reportTurn(t: ReplayTurn, ctx: RowContext): { turn: ReportTurn; findings: Diagnostic[] } {
  const findings = turnFindings(t, ctx);
  const compact = (c: ReplayCompaction): ReportCompaction => {
    const made = reportCompaction(c, t.index, t.pos, ctx);
    findings.push(...made.findings);
    return made.compaction;
  };
  const compression = t.compaction ? compact(t.compaction) : null;
  const laterCompressions = t.laterCompactions.map(compact);
  const turn: ReportTurn = {
    index: t.index,
    sessionId: t.session.id,
    userMessageIndex: t.userRow,
    requests: t.requests,
    injected: t.injected.map((s) => ({ kind: s.kind, text: s.text, start: s.start, end: s.end, ...(s.part === undefined ? {} : { part: s.part }) })),
    compression,
    laterCompressions,
    ...(t.pos.line === undefined ? {} : { line: t.pos.line }),
  };
  return { turn, findings };
}

/** A request's sending time and the idle gap before it (docs/report.md, requests[].gapSeconds). */
export function timing(r: ReplayRequest, previous: ReplayRequest | null): { sentAt?: number; gapSeconds?: number } {
  if (r.sentAt === null) return {};
  const since = previous ? (previous.answeredAt ?? previous.sentAt) : null;
  const gap = since === null ? NaN : r.sentAt - since;
  // Clocks of rows copied across a compaction can run backwards, and a hostile one can overflow: no gap then.
  if (!(gap >= 0) || !Number.isFinite(gap * 1000)) return { sentAt: r.sentAt };
  return { sentAt: r.sentAt, gapSeconds: Math.round(gap * 1000) / 1000 };
}

/**
 * A request as requests[] lists it, compared with the one before it in its lineage, with the
 * findings of that comparison. Nothing billed yet: withBilling sets that from the logs.
 */
export function reportRequest(r: ReplayRequest, previous: ReplayRequest | null, ctx: RowContext): { request: ReportRequest; findings: Diagnostic[] } {
  const { wire } = ctx;
  const findings: Diagnostic[] = [];
  const prefix = comparePrefix(previous, r, wire);
  const about = { turn: r.turn, request: r.index, ...placeOf(r.pos) };
  if (prefix.breakAt) {
    const b = prefix.breakAt;
    const where = `wire message ${b.messageIndex}${b.byteOffset === null ? '' : `, byte ${b.byteOffset}`}`;
    if (b.cause === 'system-changed') {
      findings.push({
        severity: 'error',
        code: 'system-prompt-changed',
        ...about,
        message: `system prompt differs from request ${prefix.previousRequest}'s at byte ${b.byteOffset}`,
      });
    }
    findings.push({
      severity: deliberateBreak(b.cause) ? 'info' : 'error',
      code: 'prefix-break',
      ...about,
      message: `request ${r.index} does not extend request ${prefix.previousRequest}: first difference at ${where} (${b.cause}); ${prefix.reusedTokens} tokens reused`,
    });
  }
  const request: ReportRequest = {
    index: r.index,
    turn: r.turn,
    sessionId: r.session.id,
    systemPromptSha256: wire.sha256(r.systemPrompt),
    messageCount: wire.messageCount(r),
    inputTokens: wire.inputTokens(r),
    categories: wire.categories(r),
    prefix,
    ...(r.failed ? { failed: true as const } : {}),
    ...timing(r, previous),
    billed: null,
    cacheMiss: null,
    cost: null,
    ...(r.pos.line === undefined ? {} : { line: r.pos.line }),
  };
  if (ctx.messages) {
    request.messages = wire.messages(r).map((m, i) => ({
      role: m.message.role,
      tokens: wire.tokensAt(r, i),
      substituted: m.substituted !== null,
      substitution: m.substituted,
    }));
  }
  return { request, findings };
}
