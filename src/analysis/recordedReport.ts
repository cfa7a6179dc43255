// The report of another agent's transcript (src/shared/recordedReportTypes.ts): each call judged
// (recordedCache.ts) and priced by the same catalogue as Hermes' billed calls (cost.ts), summed per
// session and over the file; an unexplained miss is a warning, as for Hermes.

import type { RecordedCall, RecordedTranscript } from '../shared/model/recorded';
import type { RecordedBreak, RecordedDiagnostic, RecordedReport, RecordedReportCall, UsageTotals } from '../shared/recordedReportTypes';
import type { PriceOverrides } from '../shared/settingNames';
import type { Diagnostic } from '../shared/reportTypes';
import { addCategories, inCategoryOrder } from './categories';
import { costOf, missCost } from './cost';
import { judgeRecordedCalls } from './recordedCache';
import { RecordedCategories } from './recordedCategories';
import type { TokenCounter } from './tokenizer';
import { sha256Hex } from './sha256';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

function totalsOf(calls: readonly RecordedReportCall[]): UsageTotals {
  const sum = (pick: (c: RecordedReportCall) => number | null | undefined): number | null => {
    const known = calls.map(pick).filter((v): v is number => typeof v === 'number');
    return known.length ? known.reduce((a, b) => a + b, 0) : null;
  };
  // The hit rate over the calls that recorded both figures: a call without cache figures says nothing of it.
  const both = calls.filter((c) => typeof c.usage?.input === 'number' && typeof c.usage.cacheRead === 'number');
  const prompts = both.reduce((a, c) => a + (c.usage?.input ?? 0), 0);
  const read = both.reduce((a, c) => a + (c.usage?.cacheRead ?? 0), 0);
  const priced = calls.filter((c) => c.cost);
  return {
    calls: calls.length,
    input: sum((c) => c.usage?.input),
    cacheRead: sum((c) => c.usage?.cacheRead),
    cacheWrite: sum((c) => c.usage?.cacheWrite),
    output: sum((c) => c.usage?.output),
    hitRate: prompts > 0 ? read / prompts : null,
    costUsd: priced.length ? priced.reduce((a, c) => a + (c.cost?.usd ?? 0), 0) : null,
    unpriced: calls.filter((c) => c.usage && !c.cost).length,
  };
}

/** Categories summed; null for none. */
function summed(parts: (Record<string, number> | null)[]): Record<string, number> | null {
  const known = parts.filter((p): p is Record<string, number> => p !== null);
  if (!known.length) return null;
  const out: Record<string, number> = {};
  for (const p of known) addCategories(out, p);
  return inCategoryOrder(out);
}

function missMessage(c: RecordedReportCall): string {
  const m = c.cacheMiss!;
  const read = c.usage?.cacheRead ?? 0;
  const idle = m.idleSeconds === null ? 'an unknown time' : `${Math.round(m.idleSeconds)} s`;
  return `call ${c.id} (${c.model ?? 'model not recorded'}) read ${read} tokens from the cache where the previous call of its model left ${read + m.rebilledTokens} (${m.rebilledTokens} billed again) after ${idle} idle, within the cache's lifetime, the prompt long enough to cache and nothing recorded between that rewrites it`;
}

/** Where a break is: "message 3, byte 120" (the body list's entries counted from 0), "the system prompt, byte 40". */
export function breakPlace(b: RecordedBreak): string {
  const part = b.part === 'messages' ? `message ${b.entry}` : b.part === 'system' ? 'the system prompt' : 'the tools';
  return `${part}, byte ${b.byte}`;
}

function breakMessage(c: RecordedReportCall): string {
  const b = c.prefixBreak!;
  return `call ${c.id} (${c.model ?? 'model not recorded'}) does not extend the previous request of its conversation, ${c.previousId}'s: ${b.cause} at ${breakPlace(b)} (cache markers taken off)`;
}

/** The report's findings as the Hermes report's diagnostics, for the views that list both alike (Problems). */
export function recordedDiagnostics(report: RecordedReport): Diagnostic[] {
  return report.diagnostics.map((d) => ({
    severity: d.severity,
    code: d.code,
    message: d.message,
    turn: null,
    request: null,
    ...(d.line === null ? {} : { line: d.line }),
    ...(d.column === null ? {} : { column: d.column }),
    ...(d.session === null ? {} : { sessionId: d.session }),
    ...(d.atEnd ? { atEnd: true } : {}),
  }));
}

/**
 * The report; with a token counter, each call whose request bytes are recorded also says where its
 * tokens go (`categories`).
 */
export function recordedReport(transcript: RecordedTranscript, prices?: PriceOverrides, counter?: TokenCounter): RecordedReport {
  const categories = counter && new RecordedCategories(counter);
  const fileOf = new Map(transcript.sessions.map((s) => [s.id, s.file]));
  const lineOf = (c: RecordedCall | null): number | null => c?.pos.line ?? null;
  const calls: RecordedReportCall[] = judgeRecordedCalls(transcript).map(({ session, turn, ordinal, call, previous, prefixBreak, cacheMiss }) => {
    const u = call.usage;
    const cost =
      u && call.model
        ? costOf({ ...u, model: call.model, provider: call.provider ?? '' }, call.firstAt === null ? undefined : new Date(call.firstAt), prices)
        : null;
    return {
      session,
      turn,
      ordinal,
      id: call.id,
      model: call.model,
      file: fileOf.get(session) ?? transcript.path,
      line: lineOf(call),
      entry: call.pos.entry ?? null,
      lines: call.lines,
      after: call.after,
      firstAt: iso(call.firstAt),
      lastAt: iso(call.lastAt),
      usage: u,
      cost,
      previousLine: lineOf(previous),
      previousId: previous?.id ?? null,
      prefixBreak,
      categories: categories && call.wire ? categories.of(call.wire) : null,
      cacheMiss: cacheMiss && u ? { ...cacheMiss, extraUsd: missCost(cacheMiss, u, cost) } : cacheMiss,
    };
  });
  const diagnostics: RecordedDiagnostic[] = transcript.findings.map((f) => ({
    severity: f.severity,
    code: 'parse-error',
    message: f.message,
    file: transcript.path,
    line: f.pos.line ?? null,
    column: f.pos.column ?? null,
    entry: f.pos.entry ?? null,
    session: f.pos.sessionId ?? null,
    ...(f.atEnd ? { atEnd: true } : {}),
  }));
  for (const c of calls) {
    if (c.prefixBreak)
      diagnostics.push({
        severity: 'error',
        code: 'prefix-break',
        message: breakMessage(c),
        file: c.file,
        line: c.line,
        column: null,
        entry: c.entry,
        session: c.session,
      });
    if (c.cacheMiss?.class === 'unexplained')
      diagnostics.push({
        severity: 'warning',
        code: 'cache-miss-unexplained',
        message: missMessage(c),
        file: c.file,
        line: c.line,
        column: null,
        entry: c.entry,
        session: c.session,
      });
  }
  return {
    schemaVersion: 1,
    kind: 'recorded',
    source: { path: transcript.path, format: transcript.format, agentVersion: transcript.agentVersion, title: transcript.title },
    records: transcript.records,
    usage: totalsOf(calls),
    sessions: transcript.sessions.map((s) => ({
      id: s.id,
      parentId: s.parentId,
      kind: s.kind,
      file: s.file,
      turns: s.turns.map((t) => ({
        prompt: t.prompt,
        line: t.pos?.line ?? null,
        at: iso(t.at),
        calls: t.calls.length,
        systemPromptSha256: t.systemPrompt === null ? null : sha256Hex(t.systemPrompt),
        settingsChanged: t.settingsChanged,
      })),
      compactions: s.compactions.map((c) => ({
        trigger: c.trigger,
        preTokens: c.preTokens,
        at: iso(c.at),
        line: c.pos.line ?? null,
        summaryLine: c.summaryPos?.line ?? null,
        turn: c.turnIndex,
      })),
      usage: totalsOf(calls.filter((c) => c.session === s.id)),
      categories: summed(calls.filter((c) => c.session === s.id).map((c) => c.categories)),
    })),
    calls,
    diagnostics,
  };
}
