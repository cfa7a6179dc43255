// Prefix-cache stability of the selected request: its system-prompt hash against the previous
// request's, stable or broken, tokens reused vs re-billed, and for a break the text on both sides
// of the first differing byte. Below it, every request's status in one strip.

import { css, html, LitElement, nothing, svg, type PropertyValues } from 'lit';
import '@vscode-elements/elements/dist/vscode-collapsible/index.js';
import type { BreakContext, InspectorIndex, RequestView } from '../src/protocol';
import { selectEvent } from './events';
import { num, percentOf, plural, shortHash, showWhitespace } from './format';
import { systemPromptChanges } from './navigation';
import { tokens } from './theme';
import { WidthController } from './width';

/** A break's context as the panel knows it: not asked yet, on its way, there, or failed. */
export type ContextState = BreakContext | null | 'loading' | Error | undefined;

const CAUSE: Record<string, string> = {
  'sidecar-not-replayed': 'the previous request sent this row\u2019s api_content sidecar (with its injected notes); this one sent the stored content instead',
  'sidecar-dropped': 'the row\u2019s sidecar was dropped as stale, so the row went back to its stored content',
  'history-rewritten': 'an earlier message was rewritten between the two requests',
  compression: 'a compaction replaced the history: everything from this message on is re-billed',
  'system-changed': 'the system prompt changed',
  'tools-changed': 'the tool definitions changed',
};

const CELL = 12;

export class CachePanel extends LitElement {
  static properties = {
    index: { attribute: false },
    request: { type: Number },
    context: { attribute: false },
  };
  declare index: InspectorIndex | null;
  declare request: number;
  declare context: ContextState;
  private changes = new Set<number>();
  private readonly width = new WidthController(this);

  constructor() {
    super();
    this.index = null;
    this.request = -1;
    this.context = undefined;
  }

  static styles = [tokens, css`
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
    .sw.broken, .cell.broken { background: var(--pi-error); fill: var(--pi-error); }
    .sw.first { background: var(--pi-muted); }
    h3 { margin: 0; font-size: 12px; font-weight: 600; }
    .sw.hash { background: var(--vscode-charts-purple, #652d90); }
    .cell { cursor: pointer; }
    .cell.first { fill: var(--pi-muted); }
    .hashmark { fill: var(--vscode-charts-purple, #652d90); pointer-events: none; }
    .sel { fill: none; stroke: var(--pi-fg); stroke-width: 1.5; pointer-events: none; }
  `];


  protected willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('index') && this.index) this.changes = systemPromptChanges(this.index);
  }

  private hashLine(r: RequestView, prev: RequestView | undefined) {
    if (!prev) return html`<span class="hash" title=${r.systemPromptSha256}>${shortHash(r.systemPromptSha256)}</span> <span class="muted">first request of its lineage</span>`;
    const same = prev.systemPromptSha256 === r.systemPromptSha256;
    return html`<span class="hash" title=${r.systemPromptSha256}>${shortHash(r.systemPromptSha256)}</span>
      ${same
        ? html`<span class="same" data-system="same">= request #${prev.index}</span>`
        : html`<span class="changed" data-system="changed">≠ request #${prev.index} (<span class="hash">${shortHash(prev.systemPromptSha256)}</span>)</span>`}`;
  }

  private tokensLine(r: RequestView) {
    const billed = Math.max(0, r.inputTokens - r.reusedTokens);
    const reusedShare = r.inputTokens > 0 ? Math.min(1, r.reusedTokens / r.inputTokens) : 0;
    return html`<b>${num(r.reusedTokens)}</b> reused (${percentOf(r.reusedTokens, r.inputTokens)}) ·
      <b>${num(billed)}</b> re-billed · ${num(r.inputTokens)} input
      <svg class="share ${r.stable ? '' : 'broken'}" width="100%" height="6" aria-hidden="true">
        <rect class="reused" x="0" y="0" width="${reusedShare * 100}%" height="6"></rect>
        <rect class="billed" x="${reusedShare * 100}%" y="0" width="${(1 - reusedShare) * 100}%" height="6"></rect>
      </svg>`;
  }

  private breakContext(r: RequestView) {
    const c = this.context;
    if (r.stable || !r.breakAt) return nothing;
    if (c === 'loading' || c === undefined) return html`<p class="explain">Loading the bytes around the break…</p>`;
    if (c instanceof Error) return html`<p class="explain">Could not load the break context: ${c.message}</p>`;
    if (c === null) return html`<p class="explain">No text to compare for this break.</p>`;
    const side = (label: string, after: string, cut: boolean, cls: string) => html`
      <div class="side-label">${label}</div>
      <pre data-side=${cls}><span class="common">${c.cut.before ? '…' : ''}${c.before}</span><span class="caret" aria-label="first difference">|</span>${after === ''
        ? html`<span class="ends">(message ends here)</span>`
        : html`<mark class=${cls}>${showWhitespace(after)}</mark>${cut ? '…' : ''}`}</pre>`;
    return html`
      <div class="ctx" data-break-context>
        ${side(`previous · request #${c.previousRequest}`, c.previousAfter, c.cut.previousAfter, 'prev')}
        ${side(`current · request #${c.request}`, c.currentAfter, c.cut.currentAfter, 'cur')}
      </div>`;
  }

  private strip(x: InspectorIndex) {
    // The body's padding is 12px a side.
    const perRow = Math.max(1, Math.floor(((this.width.value || 300) - 24) / CELL));
    const rows = Math.ceil(x.requests.length / perRow);
    return html`
      <div class="strip-head">
        <h3>Every request</h3>
        <div class="legend" aria-hidden="true">
          <span><span class="sw stable"></span>stable</span>
          <span><span class="sw broken"></span>break</span>
          <span><span class="sw hash"></span>system prompt changed</span>
          <span><span class="sw first"></span>first</span>
        </div>
      </div>
      <svg width=${perRow * CELL} height=${rows * CELL} role="img"
        aria-label="${plural(x.requests.length, 'request')}: ${plural(x.requests.filter((q) => !q.stable).length, 'break')}, system prompt changed ${plural(this.changes.size, 'time')}">
        ${x.requests.map((q) => {
          const cx = (q.index % perRow) * CELL;
          const cy = Math.floor(q.index / perRow) * CELL;
          const cls = q.previousRequest === null ? 'first' : q.stable ? 'stable' : 'broken';
          return svg`<g data-request=${q.index}>
            <rect class="cell ${cls}" x=${cx + 1} y=${cy + 1} width=${CELL - 2} height=${CELL - 2} rx="1"
              @click=${() => this.dispatchEvent(selectEvent({ request: q.index }))}>
              <title>#${q.index} (turn ${q.turn}): ${q.stable ? 'stable' : `break, ${q.breakAt?.cause ?? ''}`} · system ${shortHash(q.systemPromptSha256)}${this.changes.has(q.index) ? ' (changed)' : ''}</title></rect>
            ${this.changes.has(q.index) ? svg`<rect class="hashmark" x=${cx + 1} y=${cy + 1} width="3" height=${CELL - 2}></rect>` : nothing}
            ${q.index === this.request ? svg`<rect class="sel" x=${cx + 0.75} y=${cy + 0.75} width=${CELL - 1.5} height=${CELL - 1.5}></rect>` : nothing}
          </g>`;
        })}
      </svg>`;
  }

  render() {
    const x = this.index;
    const r = x?.requests[this.request];
    if (!x) return nothing;
    const prev = r?.previousRequest === null || !r ? undefined : x.requests[r.previousRequest];
    return html`
      <vscode-collapsible open heading="Prefix cache" description=${r ? `request #${r.index}` : ''}>
        <div class="body">
          ${r ? html`
            <div class="status" data-status=${r.stable ? 'stable' : 'break'}>
              ${r.stable
                ? html`<span class="chip solid ok">stable</span><span>${prev ? `extends request #${prev.index} byte for byte` : 'first request: nothing to reuse yet'}</span>`
                : html`<span class="chip solid break">cache break</span><span><b>${r.breakAt?.cause}</b>: ${CAUSE[r.breakAt?.cause ?? ''] ?? ''}</span>`}
            </div>
            <dl>
              <dt>system prompt</dt><dd>${this.hashLine(r, prev)}</dd>
              <dt>tokens</dt><dd>${this.tokensLine(r)}</dd>
              ${r.breakAt ? html`
                <dt>first difference</dt>
                <dd data-first-difference>message <b>#${r.breakAt.messageIndex}</b>${r.breakAt.byteOffset === null
                  ? html`, <span class="muted">no byte offset (the message is missing or not plain text)</span>`
                  : html`, byte <b>${num(r.breakAt.byteOffset)}</b> <span class="muted">(UTF-8)</span>`}</dd>` : nothing}
            </dl>
            ${this.breakContext(r)}` : html`<p class="explain">No request selected.</p>`}
          ${this.strip(x)}
        </div>
      </vscode-collapsible>`;
  }
}
customElements.define('cache-panel', CachePanel);
