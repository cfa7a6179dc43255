// Each recorded call's cache, judged from its billed usage alone (docs/recorded.md): did it read what
// the previous call of the same model in its session sent, and if not, which rule or recorded event
// explains it. A call of another model reads another cache, so it is judged against its own model's
// last call. Without request bytes a miss is located by position and time, not by byte.

import type { RecordedBreak, RecordedCacheMiss, RecordedCause } from '../shared/recordedReportTypes';
import type { RecordedCall, RecordedSession, RecordedTranscript, RecordedWire } from '../shared/model/recorded';
import { firstDifferingByte } from '../shared/model/utf8';
import { cacheRule, familyOf, missSlack, ruleExplains } from './cacheRules';

/** Where a call stands and what its cache did. */
export interface JudgedCall {
  session: string;
  /** 0-based, in the session. */
  turn: number;
  /** 0-based, in the turn. */
  ordinal: number;
  call: RecordedCall;
  /** The previous call of the same model in the session, which this one should have read; null for a first. */
  previous: RecordedCall | null;
  /** Where its request stopped extending the previous call's, from their bytes; null where it extends it or bytes are not recorded. */
  prefixBreak: RecordedBreak | null;
  /** The previous call's prompt not read from the cache, and why; null for a hit, a first call, or usage not recorded. */
  cacheMiss: RecordedCacheMiss | null;
}

/**
 * Where `next` stops extending `previous`, in the order a prompt is rendered (tools, system, then the
 * list): every entry of the previous list must begin the next one unchanged.
 */
export function prefixBreakOf(previous: RecordedWire, next: RecordedWire): RecordedBreak | null {
  if (previous.tools !== next.tools)
    return { part: 'tools', entry: null, byte: firstDifferingByte(previous.tools ?? '', next.tools ?? '') ?? 0, cause: 'tools-changed' };
  if (previous.system !== next.system)
    return { part: 'system', entry: null, byte: firstDifferingByte(previous.system ?? '', next.system ?? '') ?? 0, cause: 'system-changed' };
  for (let i = 0; i < previous.entries.length; i++) {
    const [a, b] = [previous.entries[i], next.entries[i]];
    if (a !== b) return { part: 'messages', entry: i, byte: firstDifferingByte(a, b ?? '') ?? 0, cause: 'history-rewritten' };
  }
  return null;
}

/** Seconds from the previous call's last streamed line to this call's first: the prefix sat idle at most that long. */
function idleSeconds(previous: RecordedCall, call: RecordedCall): number | null {
  if (previous.lastAt === null || call.firstAt === null) return null;
  return Math.max(0, Math.round(call.firstAt - previous.lastAt) / 1000);
}

/**
 * What the transcript records between two calls of a session (turns `from` to `to`) that rewrites
 * the prefix: a compaction, a changed system prompt, changed settings; null for none.
 */
function recordedCause(session: RecordedSession, from: number, to: number): RecordedCause | null {
  if (session.compactions.some((c) => c.turnIndex > from && c.turnIndex <= to)) return 'compression';
  const turns = session.turns.slice(from + 1, to + 1);
  if (turns.some((t) => t.systemPrompt !== session.turns[from].systemPrompt)) return 'system-changed';
  if (turns.some((t) => t.settingsChanged.length > 0)) return 'settings-changed';
  return null;
}

/**
 * What the previous call left in the cache for the next to read: Anthropic caches up to the last
 * breakpoint only (what it read and wrote; the input after it is billed and not kept), OpenAI and
 * Gemini the whole prompt.
 */
function leftCached(previous: RecordedCall): number | null {
  const u = previous.usage;
  if (!u) return null;
  if (familyOf(previous.model ?? '') !== 'anthropic') return u.input;
  return u.cacheRead === null || u.cacheWrite === null ? null : u.cacheRead + u.cacheWrite;
}

function judge(
  session: RecordedSession,
  previous: RecordedCall,
  previousTurn: number,
  call: RecordedCall,
  turn: number,
  broke: RecordedBreak | null,
): RecordedCacheMiss | null {
  const expected = leftCached(previous);
  const read = call.usage?.cacheRead ?? null;
  if (expected === null || read === null) return null;
  const shortfall = Math.max(0, expected - read);
  if (shortfall <= missSlack(expected)) return null;
  // The previous call asked for an hour when it wrote for an hour; Claude Code's default is 5 minutes.
  const asked = (previous.usage?.cacheWrite1h ?? 0) > 0 || (call.usage?.cacheWrite1h ?? 0) > 0 ? '1h' : '5m';
  const rule = cacheRule(call.model ?? '', asked);
  const idle = idleSeconds(previous, call);
  const missed = { rebilledTokens: shortfall, idleSeconds: idle, lifetimeSeconds: rule.lifetimeSeconds, extraUsd: null };
  // In the order Hermes' billed calls are classed (docs/billing.md): the provider's rules, then the
  // break the transcript shows, then nothing.
  const explained = ruleExplains(rule, idle, expected);
  if (explained) return { ...missed, class: explained, cause: null };
  const cause = broke?.cause ?? recordedCause(session, previousTurn, turn);
  if (cause) return { ...missed, class: 'predicted', cause };
  return { ...missed, class: 'unexplained', cause: null };
}

/** Every call of every session, in order, with its cache judged. */
export function judgeRecordedCalls(transcript: RecordedTranscript): JudgedCall[] {
  const out: JudgedCall[] = [];
  for (const session of transcript.sessions) {
    const last = new Map<string, { call: RecordedCall; turn: number }>();
    session.turns.forEach((t, turn) =>
      t.calls.forEach((call, ordinal) => {
        const model = call.model ?? '';
        const before = last.get(model);
        const prefixBreak = before?.call.wire && call.wire ? prefixBreakOf(before.call.wire, call.wire) : null;
        out.push({
          session: session.id,
          turn,
          ordinal,
          call,
          previous: before?.call ?? null,
          prefixBreak,
          cacheMiss: before ? judge(session, before.call, before.turn, call, turn, prefixBreak) : null,
        });
        last.set(model, { call, turn });
      }),
    );
  }
  return out;
}
