// Prefix-cache stability of the selected request: its system-prompt hash against the previous
// request's, stable or broken, tokens reused vs re-billed, and for a break the text on both sides
// of the first differing byte. Below it, every request's status in one strip.

import { css, html, LitElement, nothing, svg } from 'lit';
import { property, state } from 'lit/decorators.js';
import '@vscode-elements/elements/dist/vscode-collapsible/index.js';
import { durationText, utcText } from '../src/shared/overviewColumns';
import type { BreakContext, RequestView } from '../src/shared/messages';
import type { BreakCause, CacheMiss, LoggedCauseKind, RequestCost } from '../src/shared/reportTypes';
import { piEvent } from './events';
import { num, outlivedCache, percentOf, plural, PREFIX_STATUS_LABEL, shortHash, showWhitespace, usd } from './format';
import type { IndexModel, PrefixStatus, RequestSummary } from './index-model';
import { tokens } from './theme';
import { WidthController } from './width';
import './category-bar';

/** A break's context as the panel knows it: not asked yet, on its way, there, or failed. */
export type ContextState = BreakContext | null | 'loading' | Error | undefined;

const CAUSE: Record<BreakCause, string> = {
  'sidecar-not-replayed': 'the previous request sent this row\u2019s api_content sidecar (with its injected notes); this one sent the stored content instead',
  'sidecar-dropped': 'the row\u2019s sidecar was dropped as stale, so the row went back to its stored content',
  'history-rewritten': 'an earlier message was rewritten between the two requests',
  rewind: 'the user took turns back (/undo, /retry): the list went on from before the undone messages',
  compression: 'a compaction replaced the history: everything from this message on is re-billed',
  'system-changed': 'the system prompt changed',
  'tools-changed': 'the tool definitions changed',
};

/** What each cause the agent logs means for the cache (docs/agent-log.md). */
const LOGGED_CAUSE: Record<LoggedCauseKind, string> = {
  'stored-prompt-null': 'the stored system prompt was null, so it was rebuilt',
  'stored-prompt-empty': 'the stored system prompt was empty, so it was rebuilt',
  'stored-prompt-stale': 'the stored system prompt named another model or provider, so it was rebuilt',
  'capability-refresh': 'the system prompt was rebuilt after a capability refresh',
  'restore-failed': 'the stored system prompt could not be read, so it was rebuilt',
  'persist-failed': 'the rebuilt system prompt could not be stored, so later turns rebuild it again',
};

const CELL = 12;

export class CachePanel extends LitElement {
  @property({ attribute: false }) accessor model: IndexModel | null = null;
  @property({ type: Number }) accessor request = -1;
  /** The selected request's and its predecessor's details (hashes, break), once their page is here. */
  @property({ attribute: false }) accessor detail: RequestView | undefined;
  @property({ attribute: false }) accessor previous: RequestView | undefined;
  @property({ attribute: false }) accessor context: ContextState;
  /** The strip cell under the pointer, or -1. */
  @state() accessor hovered = -1;
  private strips: { model: IndexModel; perRow: number; paths: Record<'first' | PrefixStatus | 'hashmark' | 'gapmark', string>; changes: number[] } | null =
    null;
  private readonly width = new WidthController(this);

  static styles = [
    tokens,
    css`
    :host { display: block; }
    .body { padding: 4px 12px 10px; display: grid; gap: 8px; min-width: 0; }
    .status { display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 8px; }
    dl { margin: 0; display: grid; grid-template-columns: auto 1fr; gap: 3px 10px; }
    dt { color: var(--pi-muted); white-space: nowrap; }
    dd { margin: 0; min-width: 0; overflow-wrap: anywhere; font-variant-numeric: tabular-nums; }
    .hash { font-family: var(--pi-mono); font-size: var(--pi-mono-size); }
    .same { color: var(--pi-ok); }
    .changed { color: var(--pi-error); font-weight: 600; }
    .share { display: block; margin-top: 3px; }
    .share .reused { fill: color-mix(in srgb, var(--vscode-charts-blue, #1a85ff) 35%, transparent); }
    .share .billed { fill: var(--vscode-charts-blue, #1a85ff); }
    .share.broken .billed { fill: var(--pi-error); }
    .explain { margin: 0; color: var(--pi-muted); font-size: 12px; }
    .ctx { display: grid; gap: 4px; }
    .side-label { font-size: 11px; color: var(--pi-muted); }
    pre {
      margin: 0; padding: 3px 6px; white-space: pre-wrap; overflow-wrap: anywhere; border-radius: 2px;
      font-family: var(--pi-mono); font-size: var(--pi-mono-size); line-height: 1.5; background: var(--pi-code-bg);
      max-height: 14em; overflow: auto;
    }
    .common { color: var(--pi-muted); }
    .caret { color: var(--pi-error); font-weight: 700; }
    mark { color: inherit; font-weight: 600; }
    mark.prev { background: var(--pi-removed); outline: 1px dashed var(--pi-hc); }
    mark.cur { background: var(--pi-inserted); outline: 1px dashed var(--pi-hc); }
    .ends { color: var(--pi-muted); font-style: italic; }
    .strip-head { display: flex; flex-wrap: wrap; gap: 2px 10px; align-items: baseline; }
    .legend { display: flex; flex-wrap: wrap; gap: 2px 10px; font-size: 11px; color: var(--pi-muted); }
    .sw { display: inline-block; width: 9px; height: 9px; margin-right: 4px; vertical-align: -1px; border-radius: 1px; }
    .sw.stable, .cell.stable { background: var(--pi-ok); fill: var(--pi-ok); }
    .sw.break, .cell.break { background: var(--pi-error); fill: var(--pi-error); }
    .sw.compaction, .cell.compaction, .sw.rewind, .cell.rewind { background: var(--pi-info); fill: var(--pi-info); }
    .sw.first { background: var(--pi-muted); }
    h3 { margin: 0; font-size: 12px; font-weight: 600; }
    .sw.hash { background: var(--vscode-charts-purple, #652d90); }
    .sw.gap { background: var(--vscode-charts-orange, #d18616); width: 3px; }
    .cells { cursor: pointer; }
    .cell.first { fill: var(--pi-muted); }
    .caption { font-size: 11px; color: var(--pi-muted); min-height: 1.4em; font-variant-numeric: tabular-nums; }
    .hashmark { fill: var(--vscode-charts-purple, #652d90); pointer-events: none; }
    .gapmark { stroke: var(--vscode-charts-orange, #d18616); stroke-width: 2; pointer-events: none; }
    .long-gap { color: var(--vscode-charts-orange, #d18616); }
    .sel { fill: none; stroke: var(--pi-fg); stroke-width: 1.5; pointer-events: none; }
  `,
  ];

  private hashLine(r: RequestSummary) {
    const d = this.detail;
    if (!d) return html`<span class="muted">loading…</span>`;
    const prev = r.previousRequest >= 0 ? this.previous : undefined;
    if (r.previousRequest < 0)
      return html`<span class="hash" title=${d.systemPromptSha256}>${shortHash(d.systemPromptSha256)}</span> <span class="muted">first request of its lineage</span>`;
    return html`<span class="hash" title=${d.systemPromptSha256}>${shortHash(d.systemPromptSha256)}</span>
      ${
        !r.systemChanged
          ? html`<span class="same" data-system="same">= request #${r.previousRequest}</span>`
          : html`<span class="changed" data-system="changed">≠ request #${r.previousRequest}${prev ? html` (<span class="hash">${shortHash(prev.systemPromptSha256)}</span>)` : nothing}</span>`
      }`;
  }

  /** When the request went out and how long the cache sat idle before it (a provider's cache expires after minutes). */
  private sentLine(r: RequestSummary) {
    const at = this.detail?.sentAt;
    const when =
      at === undefined
        ? html`<span class="muted">loading…</span>`
        : at === null
          ? html`<span class="muted">not recorded</span>`
          : html`${utcText(at, true)} UTC`;
    if (r.previousRequest < 0 || r.gapSeconds < 0) return when;
    const lifetime = this.model?.index.summary.cacheLifetimeSeconds ?? null;
    const long = outlivedCache(r.gapSeconds, lifetime);
    return html`${when} · <span class=${long ? 'long-gap' : ''}>${durationText(r.gapSeconds)} after request #${r.previousRequest}${long ? ` — longer than a ${durationText(lifetime as number)} cache lifetime` : ''}</span>`;
  }

  /** What the provider billed for the request (the agent's log), beside the replay's tokens above. */
  private billedLine() {
    const d = this.detail;
    if (!d) return html`<span class="muted">loading…</span>`;
    if (!this.model?.index.summary.billing) return html`<span class="muted">not recorded: no agent.log read beside this transcript</span>`;
    const b = d.billed;
    if (!b) return html`<span class="muted">not recorded: no agent.log line matched this request${d.failed ? ' (a failed call logs none)' : ''}</span>`;
    const where = `${b.source.file}:${b.source.line} · ${b.loggedAt} (the log's local time) · ${b.model} via ${b.provider}${b.responseId ? ` · ${b.responseId}` : ''}`;
    if (b.input === null) return html`<span title=${where}>usage unavailable: the response carried none</span>`;
    return html`<span title=${where}><b>${num(b.input)}</b> prompt · <b>${num(b.cacheRead ?? 0)}</b> read from the cache (${percentOf(b.cacheRead ?? 0, b.input)})${
      b.cacheWrite === null ? html` · <span class="muted">writes not logged</span>` : b.cacheWrite ? html` · ${num(b.cacheWrite)} written` : nothing
    } · ${num(b.output ?? 0)} out</span>`;
  }

  /** What the call cost, and at which rates (USD per million tokens), from the price catalogue. */
  private costLine(c: RequestCost) {
    const r = c.rates;
    const rates = [
      ['input', r.input],
      ['cache read', r.cacheRead],
      ['cache write', r.cacheWrite],
      ['output', r.output],
    ]
      .filter(([, v]) => v !== null)
      .map(([k, v]) => `${k} $${v}`)
      .join(' · ');
    return html`<b>${usd(c.usd)}</b> <span class="muted" title=${[`${c.model} via ${c.provider}, ${c.catalogue}`, ...c.notes].join('\n')}>at ${rates} per million tokens${c.notes.length ? ` · ${c.notes.join('; ')}` : ''}</span>`;
  }

  private missLine(m: CacheMiss) {
    const explain = (): string => {
      switch (m.class) {
        case 'cause-logged':
          return `the agent logged why: ${m.cause} (${LOGGED_CAUSE[m.cause]})`;
        case 'expired':
          return `idle ${m.idleSeconds === null ? '' : durationText(m.idleSeconds)}: longer than the ${m.lifetimeSeconds === null ? "provider's cache lifetime" : `cache's ${durationText(m.lifetimeSeconds)} lifetime`}`;
        case 'too-short':
          return 'the prompt is shorter than this model caches at all';
        case 'predicted':
          return `the replay breaks the prefix here (${m.cause}: ${CAUSE[m.cause]})`;
        case 'unexplained':
          return 'no logged cause, within the cache lifetime, long enough to cache, and no break in the replayed prefix: the provider\u2019s side, or a rule the replay lacks';
      }
    };
    const cost = m.extraUsd === null ? '' : ` (${usd(m.extraUsd)} more than reading them)`;
    return html`<span class="chip solid ${m.class === 'unexplained' ? 'break' : 'compaction'}">${m.class}</span> <b>${num(m.rebilledTokens)}</b> tokens of the previous prompt billed again${cost} · ${explain()}`;
  }

  private tokensLine(r: RequestSummary) {
    const billed = Math.max(0, r.inputTokens - r.reusedTokens);
    const reusedShare = r.inputTokens > 0 ? Math.min(1, r.reusedTokens / r.inputTokens) : 0;
    return html`<b>${num(r.reusedTokens)}</b> reused (${percentOf(r.reusedTokens, r.inputTokens)}) ·
      <b>${num(billed)}</b> re-billed · ${num(r.inputTokens)} input
      <svg class="share ${this.model?.breaks(r.index) ? 'broken' : ''}" width="100%" height="6" aria-hidden="true">
        <rect class="reused" x="0" y="0" width="${reusedShare * 100}%" height="6"></rect>
        <rect class="billed" x="${reusedShare * 100}%" y="0" width="${(1 - reusedShare) * 100}%" height="6"></rect>
      </svg>`;
  }

  private breakContext(r: RequestSummary) {
    const c = this.context;
    if (r.stable || r.breakMessage < 0) return nothing;
    if (c === 'loading' || c === undefined) return html`<p class="explain">Loading the bytes around the break…</p>`;
    if (c instanceof Error) return html`<p class="explain">Could not load the break context: ${c.message}</p>`;
    if (c === null) return html`<p class="explain">No text to compare for this break.</p>`;
    const side = (label: string, after: string, cut: boolean, cls: string) => html`
      <div class="side-label">${label}</div>
      <pre data-side=${cls}><span class="common">${c.cut.before ? '…' : ''}${c.before}</span><span class="caret" aria-label="first difference">|</span>${
        after === '' ? html`<span class="ends">(message ends here)</span>` : html`<mark class=${cls}>${showWhitespace(after)}</mark>${cut ? '…' : ''}`
      }</pre>`;
    return html`
      <div class="ctx" data-break-context>
        ${side(`previous · request #${c.previousRequest}`, c.previousAfter, c.cut.previousAfter, 'prev')}
        ${side(`current · request #${c.request}`, c.currentAfter, c.cut.currentAfter, 'cur')}
      </div>`;
  }

  /** The strip's cells as one path per status: a long session has tens of thousands of them. */
  private stripPaths(x: IndexModel, perRow: number) {
    if (this.strips?.model === x && this.strips.perRow === perRow) return this.strips;
    const paths = { first: '', stable: '', break: '', compaction: '', rewind: '', hashmark: '', gapmark: '' };
    const cell = (at: number, w: number): string => `M${(at % perRow) * CELL + 1} ${Math.floor(at / perRow) * CELL + 1}h${w}v${CELL - 2}h${-w}z`;
    for (let i = 0; i < x.requestCount; i++) {
      const r = x.request(i) as RequestSummary;
      paths[r.previousRequest < 0 ? 'first' : x.status(i)] += cell(i, CELL - 2);
      if (r.systemChanged) paths.hashmark += cell(i, 3);
      if (r.previousRequest >= 0 && outlivedCache(r.gapSeconds, x.index.summary.cacheLifetimeSeconds))
        paths.gapmark += `M${(i % perRow) * CELL} ${Math.floor(i / perRow) * CELL + 1}v${CELL - 2}`;
    }
    this.strips = { model: x, perRow, paths, changes: x.systemChanges() };
    return this.strips;
  }

  private cellAt(e: MouseEvent, perRow: number): number {
    const box = (e.currentTarget as SVGElement).getBoundingClientRect();
    const col = Math.floor((e.clientX - box.left) / CELL);
    const at = Math.floor((e.clientY - box.top) / CELL) * perRow + col;
    return col >= 0 && col < perRow && at >= 0 && at < (this.model?.requestCount ?? 0) ? at : -1;
  }

  private caption(x: IndexModel, i: number): string {
    const r = x.request(i);
    if (!r) return '';
    return `#${r.index} (turn ${r.turn}): ${r.previousRequest < 0 ? 'first' : PREFIX_STATUS_LABEL[x.status(i)]}${r.systemChanged ? ', system prompt changed' : ''}${r.previousRequest >= 0 && r.gapSeconds >= 0 ? `, ${durationText(r.gapSeconds)} after #${r.previousRequest}` : ''}`;
  }

  private strip(x: IndexModel) {
    // The body's padding is 12px a side.
    const perRow = Math.max(1, Math.floor(((this.width.value || 300) - 24) / CELL));
    const rows = Math.ceil(x.requestCount / perRow);
    const { paths, changes } = this.stripPaths(x, perRow);
    const sel = this.request >= 0 && this.request < x.requestCount ? this.request : -1;
    return html`
      <div class="strip-head">
        <h3>Every request</h3>
        <div class="legend" aria-hidden="true">
          <span><span class="sw stable"></span>stable</span>
          <span><span class="sw break"></span>break</span>
          <span><span class="sw compaction"></span>compaction or rewind</span>
          <span><span class="sw hash"></span>system prompt changed</span>
          <span><span class="sw gap"></span>5+ min idle before it</span>
          <span><span class="sw first"></span>first</span>
        </div>
      </div>
      <svg class="cells" width=${perRow * CELL} height=${rows * CELL} role="img" data-system-changes=${changes.join(' ')}
        aria-label="${plural(x.requestCount, 'request')}: ${plural(x.breakCount, 'break')}, system prompt changed ${plural(changes.length, 'time')}"
        @click=${(e: MouseEvent) => {
          const at = this.cellAt(e, perRow);
          if (at >= 0) this.dispatchEvent(piEvent('pi-select', { request: at }));
        }}
        @mousemove=${(e: MouseEvent) => {
          this.hovered = this.cellAt(e, perRow);
        }}
        @mouseleave=${() => {
          this.hovered = -1;
        }}>
        ${(['first', 'stable', 'break', 'compaction', 'rewind'] as const).map((k) => (paths[k] ? svg`<path class="cell ${k}" d=${paths[k]}></path>` : nothing))}
        ${paths.hashmark ? svg`<path class="hashmark" d=${paths.hashmark}></path>` : nothing}
        ${paths.gapmark ? svg`<path class="gapmark" d=${paths.gapmark}></path>` : nothing}
        ${sel >= 0 ? svg`<rect class="sel" x=${(sel % perRow) * CELL + 0.75} y=${Math.floor(sel / perRow) * CELL + 0.75} width=${CELL - 1.5} height=${CELL - 1.5}></rect>` : nothing}
      </svg>
      <div class="caption" aria-hidden="true">${this.caption(x, this.hovered >= 0 ? this.hovered : sel)}</div>`;
  }

  render() {
    const x = this.model;
    const r = x?.request(this.request);
    if (!x) return nothing;
    const cause = this.detail?.breakAt?.cause;
    const byteOffset = this.detail?.breakAt?.byteOffset;
    return html`
      <vscode-collapsible open heading="Prefix cache" description=${r ? `request #${r.index}` : ''}>
        <div class="body">
          ${
            r
              ? html`
            <div class="status" data-status=${x.status(r.index)}>
              ${
                r.stable
                  ? html`<span class="chip solid ok">stable</span><span>${r.previousRequest >= 0 ? `extends request #${r.previousRequest} byte for byte` : 'first request: nothing to reuse yet'}</span>`
                  : r.compaction
                    ? html`<span class="chip solid compaction">compaction</span><span>${CAUSE.compression} (by design: not a break to fix)</span>`
                    : r.rewind
                      ? html`<span class="chip solid compaction">rewind</span><span>${CAUSE.rewind} (the user's act: not a break to fix)</span>`
                      : html`<span class="chip solid break">cache break</span><span>${cause ? html`<b>${cause}</b>: ${CAUSE[cause]}` : html`<span class="muted">loading…</span>`}</span>`
              }
            </div>
            <dl>
              <dt>system prompt</dt><dd>${this.hashLine(r)}</dd>
              <dt>tokens</dt><dd>${this.tokensLine(r)}</dd>
              <dt>where they go</dt><dd data-where><category-bar .request=${this.detail?.categories} .total=${x.index.summary.categories} requests=${x.requestCount} .billed=${this.detail?.billed?.input ?? null}></category-bar></dd>
              <dt>sent</dt><dd data-sent>${this.sentLine(r)}</dd>
              <dt>billed</dt><dd data-billed>${this.billedLine()}</dd>
              ${this.detail?.cost ? html`<dt>cost</dt><dd data-cost>${this.costLine(this.detail.cost)}</dd>` : nothing}
              ${this.detail?.cacheMiss ? html`<dt>cache miss</dt><dd data-cache-miss=${this.detail.cacheMiss.class}>${this.missLine(this.detail.cacheMiss)}</dd>` : nothing}
              ${r.failed ? html`<dt>answer</dt><dd data-failed><span class="chip solid break">failed</span> sent, no answer: a provider error or an interrupt (not in the agent's call count)</dd>` : nothing}
              ${
                r.breakMessage >= 0
                  ? html`
                <dt>first difference</dt>
                <dd data-first-difference>message <b>#${r.breakMessage}</b>${
                  byteOffset === undefined
                    ? nothing
                    : byteOffset === null
                      ? html`, <span class="muted">no byte offset (the message is missing or not plain text)</span>`
                      : html`, byte <b>${num(byteOffset)}</b> <span class="muted">(UTF-8)</span>`
                }</dd>`
                  : nothing
              }
              ${
                this.detail?.captured
                  ? html`
                <dt>request dump</dt>
                <dd data-captured title=${this.detail.captured.path}>${this.detail.captured.apiMode ?? 'unread'} · ${
                  this.detail.captured.breakpoints.length
                    ? html`cache breakpoints on messages ${this.detail.captured.breakpoints.map((b, i) => html`${i ? ', ' : ''}<b>#${b}</b>`)}`
                    : html`<span class="muted">no cache breakpoints</span>`
                }</dd>`
                  : nothing
              }
            </dl>
            ${this.breakContext(r)}`
              : html`<p class="explain">No request selected.</p>`
          }
          ${this.strip(x)}
        </div>
      </vscode-collapsible>`;
  }
}
customElements.define('cache-panel', CachePanel);
