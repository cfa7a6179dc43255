// What the inspector view shows, computed from an analysis: the index posted first, and the pages
// of message bodies the view pulls afterwards. Pure, so the extension host and the standalone
// report serve the same answers.

import { revealBidiControls } from '../shared/shownText';
import type { WireMessage } from '../engine/apiMessages';
import { isSummaryCarrier } from '../hermes/compactionMarkers';
import { estimateMessagesTokensRough } from '../engine/estimator';
import { multimodalNoteSpans } from '../engine/injection';
import { contentText, isPartList, type Row } from '../shared/model/rows';
import type { ReplayCompaction } from '../engine/replay';
import { firstDifferingByte } from '../shared/model/utf8';
import {
  CACHE_MISS_CLASSES,
  INJECTION_KINDS,
  packInts,
  pageOf,
  PROTOCOL_VERSION,
  REQUEST_COMPACTION,
  REQUEST_FAILED,
  REQUEST_REWIND,
  REQUEST_STABLE,
  REQUEST_SYSTEM_CHANGED,
  TURN_COMPACTED,
  type BreakContext,
  type CompactionView,
  type DiagnosticView,
  type EmbeddedInspection,
  type InspectorIndex,
  type MessageView,
  type PackedInts,
  type PagedList,
  type RequestView,
  type SpanView,
  type SessionTurn,
  type TurnView,
} from '../shared/messages';
import type { Analysis } from '../analysis/report';
import { turnCost } from '../analysis/cost';
import { deliberateBreak, type BreakCause, type CacheMiss, type Report, type ReportCompaction } from '../shared/reportTypes';

const BREAK_CONTEXT_CHARS = 160;

function preview(text: string, max = 120): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Display text of a content value: text parts joined by newlines, images as "[image]". */
function displayText(content: unknown): { text: string; partStarts: number[] } {
  if (!isPartList(content)) return { text: revealBidiControls(contentText(content)), partStarts: [] };
  const partStarts: number[] = [];
  let text = '';
  content.forEach((part, i) => {
    if (i > 0) text += '\n';
    partStarts.push(text.length);
    text += typeof part?.text === 'string' ? revealBidiControls(part.text) : `[${typeof part?.type === 'string' ? part.type : 'part'}]`;
  });
  return { text, partStarts };
}

/** What the user wrote: a multimodal row without the note parts the assembly appended to it. */
function ownContent(content: unknown): unknown {
  if (!isPartList(content)) return content;
  const notes = new Set(multimodalNoteSpans(content).map((s) => s.part));
  return content.filter((_, i) => !notes.has(i));
}

export class Inspection {
  readonly turns: TurnView[];
  readonly requests: RequestView[];
  readonly findings: DiagnosticView[];
  /** What the view gets first: small at any length; the lists above are paged to it. */
  readonly index: InspectorIndex;

  /** @param earlier the inspection of the analysis this one extends (extendAnalysis): the views of the turns it kept are kept. */
  constructor(
    readonly analysis: Analysis,
    title: string,
    earlier?: Inspection,
  ) {
    const { report, replay } = analysis;
    this.turns = report.turns.map((t) => {
      const kept = t.index < (analysis.kept?.turns ?? 0) ? earlier?.turns[t.index] : undefined;
      const costUsd = turnCost(report, t);
      // Unless the log read since tells more of its compaction's estimate, or of its cost.
      if (kept && kept.costUsd === costUsd && JSON.stringify(kept.compression?.estimate) === JSON.stringify(t.compression?.estimate)) return kept;
      const rt = replay.turns[t.index];
      const userRow = rt.userRow >= 0 ? rt.rows[rt.userRow] : undefined;
      return {
        index: t.index,
        sessionId: t.sessionId,
        userMessageIndex: t.userMessageIndex,
        title: userRow ? preview(displayText(ownContent(userRow.content)).text, 80) : '(no user message)',
        requests: t.requests,
        injectedKinds: [...new Set(t.injected.map((s) => s.kind))],
        compression: t.compression && rt.compaction ? compactionView(t.compression, rt.compaction) : null,
        costUsd,
      };
    });
    const captured = new Map(
      (report.captures ?? [])
        .filter((c) => c.request !== null)
        .map((c) => [c.request as number, { path: c.path, apiMode: c.apiMode, breakpoints: c.breakpoints }]),
    );
    const requestView = (r: Report['requests'][number]): RequestView => ({
      index: r.index,
      turn: r.turn,
      sessionId: r.sessionId,
      systemPromptSha256: r.systemPromptSha256,
      messageCount: r.messageCount,
      inputTokens: r.inputTokens,
      categories: r.categories,
      reusedTokens: r.prefix.reusedTokens,
      previousRequest: r.prefix.previousRequest,
      stable: r.prefix.stable,
      breakAt: r.prefix.breakAt,
      failed: r.failed === true,
      sentAt: r.sentAt ?? null,
      gapSeconds: r.gapSeconds ?? null,
      userWireIndex: replay.requests[r.index].currentUserIdx >= 0 ? replay.requests[r.index].currentUserIdx + 1 : null,
      captured: captured.get(r.index) ?? null,
      billed: r.billed,
      cacheMiss: r.cacheMiss,
      cost: r.cost,
    });
    this.requests = report.requests.map((r) => {
      const kept = r.index < (analysis.kept?.requests ?? 0) ? earlier?.requests[r.index] : undefined;
      // Unless a dump or a log line read since matched it (the bill is matched afresh each time).
      const same =
        kept && kept.captured === null && !captured.has(r.index) && kept.billed === r.billed && kept.cacheMiss === r.cacheMiss && kept.cost === r.cost;
      return same ? kept : requestView(r);
    });
    this.findings = report.diagnostics.map((d) => ({ severity: d.severity, code: d.code, message: d.message, turn: d.turn, request: d.request }));
    this.index = buildIndex(
      {
        title,
        source: report.source,
        profile: report.profile,
        tokenizer: report.tokenizer,
        billing: report.billing.sources.length ? report.billing : null,
        cacheTtl: report.billing.cacheTtl,
        sessions: report.sessions.map((s) => ({
          id: s.id,
          parentId: s.parentId,
          systemPromptSha256: s.systemPromptSha256,
          replayedRequests: s.replayed.requests,
          recordedApiCalls: s.recorded?.apiCalls ?? null,
        })),
      },
      this.turns,
      this.requests,
      this.findings,
    );
  }

  page<L extends PagedList>(list: L, start: number, count: number): Inspection[L] {
    return pageOf<Inspection[L][number]>(this[list], start, count) as Inspection[L];
  }

  /** One session's turns as a tree lists them, breaks counted here rather than by the caller. */
  sessionTurns(sessionId: string): SessionTurn[] {
    return this.turns
      .filter((t) => t.sessionId === sessionId)
      .map((t) => {
        const broken = t.requests.filter((r) => !this.requests[r].stable && !deliberateBreak(this.requests[r].breakAt?.cause));
        return {
          index: t.index,
          title: t.title,
          requests: t.requests.length,
          userMessageIndex: t.userMessageIndex,
          injectedKinds: t.injectedKinds,
          compacted: t.compression !== null,
          breaks: broken.length,
          firstBreak: broken[0] ?? null,
        };
      });
  }

  /** Wire messages [start, start + count) of a request. */
  messages(request: number, start: number, count: number): MessageView[] {
    const req = this.analysis.replay.requests[request];
    if (!req) return [];
    const { wire } = this.analysis;
    const end = Math.min(wire.messageCount(req), start + Math.max(0, count));
    const out: MessageView[] = [];
    for (let i = Math.max(0, start); i < end; i++) {
      const m = wire.message(req, i);
      out.push(this.messageView(m, i, wire.tokensAt(req, i), m.source >= 0 ? req.rows[m.source] : null));
    }
    return out;
  }

  private messageView(m: WireMessage, index: number, tokens: number, stored: Row | null): MessageView {
    const { text, partStarts } = displayText(m.message.content);
    const injected: SpanView[] = m.injected.map((s) => {
      const base = s.part === undefined ? 0 : (partStarts[s.part] ?? 0);
      return { kind: s.kind, start: base + s.start, end: base + s.end };
    });
    const calls = Array.isArray(m.message.tool_calls) ? m.message.tool_calls : [];
    return {
      index,
      role: m.message.role,
      text,
      tokens,
      roughTokens: estimateMessagesTokensRough([stored ?? m.message], this.analysis.replay.profile),
      substitution: m.substituted,
      storedText: m.substituted && stored ? displayText(stored.content).text : null,
      injected,
      toolCalls: calls.map((c) => {
        const fn = (c as { function?: { name?: unknown; arguments?: unknown } })?.function;
        return {
          name: revealBidiControls(typeof fn?.name === 'string' ? fn.name : fn?.name == null ? '' : JSON.stringify(fn.name)),
          arguments: revealBidiControls(typeof fn?.arguments === 'string' ? fn.arguments : JSON.stringify(fn?.arguments ?? null)),
        };
      }),
      toolCallId: typeof m.message.tool_call_id === 'string' ? m.message.tool_call_id : null,
    };
  }

  /** The text around the first differing byte of a broken prefix, on both sides. */
  breakContext(request: number): BreakContext | null {
    const r = this.requests[request];
    if (!r || !r.breakAt || r.previousRequest === null) return null;
    const { replay, wire } = this.analysis;
    const cur = replay.requests[request];
    const prev = replay.requests[r.previousRequest];
    const i = r.breakAt.messageIndex;
    const a = i < wire.messageCount(prev) ? displayText(wire.message(prev, i).message.content).text : '';
    const b = i < wire.messageCount(cur) ? displayText(wire.message(cur, i).message.content).text : '';
    let at = 0;
    while (at < a.length && at < b.length && a.charCodeAt(at) === b.charCodeAt(at)) at++;
    return {
      request,
      previousRequest: r.previousRequest,
      messageIndex: i,
      byteOffset: r.breakAt.byteOffset ?? firstDifferingByte(a, b),
      cause: r.breakAt.cause,
      before: a.slice(Math.max(0, at - BREAK_CONTEXT_CHARS), at),
      previousAfter: a.slice(at, at + BREAK_CONTEXT_CHARS),
      currentAfter: b.slice(at, at + BREAK_CONTEXT_CHARS),
      cut: { before: at > BREAK_CONTEXT_CHARS, previousAfter: a.length > at + BREAK_CONTEXT_CHARS, currentAfter: b.length > at + BREAK_CONTEXT_CHARS },
    };
  }

  /** Everything the view can ask for, for a standalone report (see EmbeddedInspection). */
  exportAll(): EmbeddedInspection {
    const { replay, wire } = this.analysis;
    const ids = new Map<WireMessage, number>();
    const bodies: MessageView[] = [];
    const layouts = this.requests.map((r) => {
      const req = replay.requests[r.index];
      const keep = r.previousRequest === null ? 0 : r.stable ? this.requests[r.previousRequest].messageCount : (r.breakAt?.messageIndex ?? 0);
      const add: number[] = [];
      for (let i = keep; i < r.messageCount; i++) {
        const m = wire.message(req, i);
        let id = ids.get(m);
        if (id === undefined) {
          id = bodies.length;
          ids.set(m, id);
          bodies.push(this.messageView(m, i, wire.tokensAt(req, i), m.source >= 0 ? req.rows[m.source] : null));
        }
        add.push(id);
      }
      return { base: keep > 0 ? r.previousRequest : null, keep, add };
    });
    return {
      version: PROTOCOL_VERSION,
      index: this.index,
      turns: this.turns,
      requests: this.requests,
      findings: this.findings,
      bodies,
      layouts,
      breaks: this.requests.map((r) => this.breakContext(r.index)),
    };
  }

  /** The request as its wire messages, for "copy request as JSON". */
  requestJson(request: number): string {
    const req = this.analysis.replay.requests[request];
    if (!req) return 'null';
    return JSON.stringify({ messages: this.analysis.wire.messages(req).map((m) => m.message), ...(req.tools ? { tools: req.tools } : {}) }, null, 2);
  }
}

type IndexHeader = Pick<InspectorIndex, 'title' | 'source' | 'profile' | 'tokenizer' | 'sessions'> & {
  billing?: Report['billing'] | null;
  cacheTtl?: Report['billing']['cacheTtl'];
};

/** The index the view gets first, from the lists it pages through. */
export function buildIndex(
  { billing, cacheTtl, ...header }: IndexHeader,
  turns: TurnView[],
  requests: RequestView[],
  findings: DiagnosticView[],
): InspectorIndex {
  const breaks: Partial<Record<BreakCause, number>> = {};
  for (const r of requests) if (r.breakAt) breaks[r.breakAt.cause] = (breaks[r.breakAt.cause] ?? 0) + 1;
  const severities: InspectorIndex['summary']['findings'] = { error: 0, warning: 0, info: 0 };
  for (const d of findings) severities[d.severity]++;
  const column = <T>(list: T[], value: (item: T) => number): PackedInts => packInts(list.map(value));
  return {
    ...header,
    turnCount: turns.length,
    requestCount: requests.length,
    turns: {
      requestCount: column(turns, (t) => t.requests.length),
      flags: column(turns, (t) => t.injectedKinds.reduce((f, k) => f | (1 << INJECTION_KINDS.indexOf(k)), t.compression ? TURN_COMPACTED : 0)),
    },
    requests: {
      inputTokens: column(requests, (r) => r.inputTokens),
      reusedTokens: column(requests, (r) => r.reusedTokens),
      messageCount: column(requests, (r) => r.messageCount),
      userWireIndex: column(requests, (r) => r.userWireIndex ?? -1),
      previousRequest: column(requests, (r) => r.previousRequest ?? -1),
      breakMessage: column(requests, (r) => r.breakAt?.messageIndex ?? -1),
      // Whole seconds, at most 2^31 (68 years): the packed column holds safe integers only.
      gapSeconds: column(requests, (r) => (r.gapSeconds === null ? -1 : Math.min(Math.round(r.gapSeconds), 2 ** 31))),
      billedRead: column(requests, (r) =>
        r.billed && r.billed.input && r.billed.cacheRead !== null ? Math.round((r.billed.cacheRead * r.inputTokens) / r.billed.input) : -1,
      ),
      missClass: column(requests, (r) => (r.cacheMiss ? CACHE_MISS_CLASSES.indexOf(r.cacheMiss.class) + 1 : 0)),
      flags: column(requests, (r) => {
        const previous = r.previousRequest === null ? undefined : requests[r.previousRequest];
        return (
          (r.stable ? REQUEST_STABLE : 0)
          | (previous && previous.systemPromptSha256 !== r.systemPromptSha256 ? REQUEST_SYSTEM_CHANGED : 0)
          | (r.breakAt?.cause === 'compression' ? REQUEST_COMPACTION : 0)
          | (r.breakAt?.cause === 'rewind' ? REQUEST_REWIND : 0)
          | (r.failed ? REQUEST_FAILED : 0)
        );
      }),
    },
    summary: {
      breaks,
      compactions: turns.filter((t) => t.compression).length,
      findings: severities,
      billing: billingSummary(billing ?? null, requests),
      categories: categoryTotals(requests),
      cacheLifetimeSeconds: lifetimeAsked(cacheTtl ?? null),
    },
  };
}

function categoryTotals(requests: RequestView[]): Record<string, number> {
  // A Map, then one object: adding to an object's keys request after request cost a large home's refresh 80 ms.
  const totals = new Map<string, number>();
  for (const r of requests) {
    const categories = r.categories;
    for (const k in categories) totals.set(k, (totals.get(k) ?? 0) + categories[k]);
  }
  return Object.fromEntries(totals);
}

/** The idle seconds a cached prefix lives, as the home's config asks (summary.cacheLifetimeSeconds). */
function lifetimeAsked(cacheTtl: Report['billing']['cacheTtl']): number | null {
  return cacheTtl?.ttl === 'off' ? null : cacheTtl?.ttl === '1h' ? 3600 : 300;
}

function billingSummary(billing: Report['billing'] | null, requests: RequestView[]): InspectorIndex['summary']['billing'] {
  if (!billing) return null;
  const misses: Partial<Record<CacheMiss['class'], number>> = {};
  let matched = 0;
  let missUsd = 0;
  for (const r of requests) {
    if (r.billed) matched++;
    if (r.cacheMiss) misses[r.cacheMiss.class] = (misses[r.cacheMiss.class] ?? 0) + 1;
    missUsd += r.cacheMiss?.extraUsd ?? 0;
  }
  return { logs: billing.sources.length, calls: billing.sources.reduce((n, s) => n + s.calls, 0), matched, misses, usd: billing.cost.usd, missUsd };
}

function compactionView(c: ReportCompaction, replayed: ReplayCompaction): CompactionView {
  const kept = new Set(replayed.after.map((row) => JSON.stringify([row.role, row.content ?? null])));
  return {
    ...c,
    carrier: (() => {
      const row = replayed.after.find(isSummaryCarrier);
      return row ? displayText(row.content).text : null;
    })(),
    dropped: replayed.before
      .filter((row) => !kept.has(JSON.stringify([row.role, row.content ?? null])))
      .map((row) => ({ role: row.role, preview: preview(displayText(row.content).text || (Array.isArray(row.tool_calls) ? '(tool call)' : '')) })),
  };
}
