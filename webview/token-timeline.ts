// Input tokens per request as bars: the reused (cached) prefix at the bottom, the re-billed rest on
// top, breaks marked. Drawn with Lit's svg templates. A listbox: click a bar, or focus the chart and
// use the arrow keys, to select a request.

import { css, html, LitElement, nothing, svg, type PropertyValues } from 'lit';
import type { InspectorIndex, RequestView } from '../src/protocol';
import { selectEvent } from './events';
import { num, percentOf } from './format';
import { tokens } from './theme';
import { WidthController } from './width';

const HEIGHT = 64;
/** Room above the tallest bar for the break marker. */
const TOP = 8;
/** A bar's slot stays between these widths: thin enough to stay a chart, wide enough to click. */
const MIN_SLOT = 4;
const MAX_SLOT = 28;

export class TokenTimeline extends LitElement {
  static properties = {
    index: { attribute: false },
    turn: { type: Number },
    request: { type: Number },
  };
  declare index: InspectorIndex | null;
  declare turn: number;
  declare request: number;
  private readonly width = new WidthController(this);

  constructor() {
    super();
    this.index = null;
    this.turn = 0;
    this.request = -1;
  }

  static styles = [tokens, css`
    :host { display: block; padding: 5px 12px 6px; border-bottom: 1px solid var(--pi-border); min-width: 0; }
    .head { display: flex; flex-wrap: wrap; align-items: baseline; gap: 2px 14px; margin-bottom: 3px; }
    .legend { display: flex; flex-wrap: wrap; gap: 2px 12px; font-size: 11px; color: var(--pi-muted); }
    .sw { display: inline-block; width: 9px; height: 9px; margin-right: 4px; vertical-align: -1px; border-radius: 1px; }
    .sw.reused { background: var(--reused); }
    .sw.billed { background: var(--billed); }
    .sw.broken { background: var(--pi-error); }
    .sw.turn { background: var(--turn-band); outline: 1px solid var(--pi-border); }
    .scale { margin-left: auto; font-size: 11px; color: var(--pi-muted); }
    .plot { overflow-x: auto; overflow-y: hidden; }
    svg { display: block; }
    svg:focus-visible { outline: 1px solid var(--pi-focus); outline-offset: 1px; }
    :host {
      --reused: color-mix(in srgb, var(--vscode-charts-blue, #1a85ff) 35%, transparent);
      --billed: var(--vscode-charts-blue, #1a85ff);
      --turn-band: color-mix(in srgb, var(--pi-focus) 10%, transparent);
    }
    .band { fill: var(--turn-band); }
    .axis { stroke: var(--pi-border); stroke-width: 1; }
    .hit { fill: transparent; cursor: pointer; }
    .bar:hover .hit { fill: var(--pi-hover); }
    .reused { fill: var(--reused); }
    .billed { fill: var(--billed); }
    .bar.broken .billed { fill: var(--pi-error); }
    .marker { fill: var(--pi-error); }
    .bar.selected .outline { fill: none; stroke: var(--pi-fg); stroke-width: 1.5; }
    .bar.selected .hit { fill: color-mix(in srgb, var(--pi-focus) 14%, transparent); }
  `];


  private get barSlot(): number {
    const n = this.index?.requests.length ?? 0;
    return n === 0 ? 0 : Math.min(MAX_SLOT, Math.max(MIN_SLOT, (this.width.value || 600) / n));
  }

  protected updated(changed: PropertyValues<this>): void {
    // Keep the selected bar in view when the chart is wider than the panel.
    if (changed.has('request') || (changed as Map<PropertyKey, unknown>).has('width')) {
      const plot = this.renderRoot.querySelector<HTMLElement>('.plot');
      if (plot && plot.scrollWidth > plot.clientWidth) {
        const x = this.request * this.barSlot;
        if (x < plot.scrollLeft || x + this.barSlot > plot.scrollLeft + plot.clientWidth) plot.scrollLeft = x - plot.clientWidth / 2;
      }
    }
  }

  private onKey(e: KeyboardEvent): void {
    const n = this.index?.requests.length ?? 0;
    const to = { ArrowRight: this.request + 1, ArrowLeft: this.request - 1, Home: 0, End: n - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    if (to >= 0 && to < n && to !== this.request) this.dispatchEvent(selectEvent({ request: to }));
  }

  private label(r: RequestView): string {
    const status = r.stable ? 'stable' : `cache break (${r.breakAt?.cause ?? 'unknown'})`;
    return `Request ${r.index}, turn ${r.turn}: ${num(r.inputTokens)} input tokens, ${num(r.reusedTokens)} reused (${percentOf(r.reusedTokens, r.inputTokens)}), ${status}`;
  }

  private bar(r: RequestView, max: number, slot: number) {
    const gap = slot >= 8 ? 2 : slot >= 5 ? 1 : 0;
    const x = r.index * slot + gap / 2;
    const w = Math.max(1, slot - gap);
    const total = (r.inputTokens / max) * HEIGHT;
    const reused = (Math.min(r.reusedTokens, r.inputTokens) / max) * HEIGHT;
    const base = TOP + HEIGHT;
    const cls = `bar${r.stable ? '' : ' broken'}${r.index === this.request ? ' selected' : ''}`;
    return svg`
      <g class=${cls} id="bar-${r.index}" role="option" aria-selected=${r.index === this.request ? 'true' : 'false'}
        aria-label=${this.label(r)} data-request=${r.index}
        @click=${() => this.dispatchEvent(selectEvent({ request: r.index }))}>
        <title>${this.label(r)}</title>
        <rect class="hit" x=${r.index * slot} y="0" width=${slot} height=${base + 4}></rect>
        <rect class="reused" x=${x} y=${base - reused} width=${w} height=${reused}></rect>
        <rect class="billed" x=${x} y=${base - total} width=${w} height=${Math.max(0, total - reused)}></rect>
        ${r.index === this.request ? svg`<rect class="outline" x=${x - 0.75} y=${base - total - 0.75} width=${w + 1.5} height=${total + 1.5}></rect>` : nothing}
        ${r.stable ? nothing : svg`<path class="marker" d="M${x + w / 2 - 3.5} ${base - total - 7} h7 l-3.5 5 z"></path>`}
      </g>`;
  }

  render() {
    const x = this.index;
    if (!x || x.requests.length === 0) return html`<h2 class="section">Input tokens per request</h2><p class="muted">No requests.</p>`;
    const slot = this.barSlot;
    const width = slot * x.requests.length;
    const max = Math.max(1, ...x.requests.map((r) => r.inputTokens));
    const turn = x.turns[this.turn];
    const band = turn && turn.requests.length
      ? svg`<rect class="band" x=${turn.requests[0] * slot} y="0" width=${turn.requests.length * slot} height=${TOP + HEIGHT + 4}></rect>`
      : nothing;
    return html`
      <div class="head">
        <h2 class="section" id="chart-label">Input tokens per request</h2>
        <div class="legend" aria-hidden="true">
          <span><span class="sw reused"></span>reused prefix</span>
          <span><span class="sw billed"></span>re-billed</span>
          <span><span class="sw broken"></span>cache break ▼</span>
          <span><span class="sw turn"></span>selected turn</span>
        </div>
        <span class="scale">max ${num(max)} tokens</span>
      </div>
      <div class="plot">
        <svg width=${width} height=${TOP + HEIGHT + 4} role="listbox" tabindex="0" aria-labelledby="chart-label"
          aria-activedescendant=${this.request >= 0 ? `bar-${this.request}` : nothing} @keydown=${this.onKey}>
          ${band}
          <line class="axis" x1="0" x2=${width} y1=${TOP + HEIGHT + 0.5} y2=${TOP + HEIGHT + 0.5}></line>
          ${x.requests.map((r) => this.bar(r, max, slot))}
        </svg>
      </div>
    `;
  }
}
customElements.define('token-timeline', TokenTimeline);
