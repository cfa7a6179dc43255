// Input tokens per request as bars: the reused (cached) prefix at the bottom, the re-billed rest on
// top, breaks marked. A long session has tens of thousands of requests, so the bars are a few SVG
// paths covering only the scrolled-to window, and the chart is one slider over the requests: click
// a bar, or focus the chart and use the arrow keys, to select a request.

import { css, html, LitElement, nothing, svg, type PropertyValues } from 'lit';
import { property, state } from 'lit/decorators.js';
import { CACHE_MISS_CLASSES, type RequestView } from '../src/shared/messages';
import { piEvent } from './events';
import { num, outlivedCache, percentOf, PREFIX_STATUS_LABEL, tickStep } from './format';
import type { IndexModel, RequestSummary } from './index-model';
import type { Pages } from './pages';
import { PagesController } from './pages-controller';
import { roveTo } from './roving';
import { tokens } from './theme';
import { WidthController } from './width';

const HEIGHT = 64;
/** Room above the tallest bar for the break marker. */
const TOP = 8;
/** A bar's slot stays between these widths: thin enough to stay a chart, wide enough to click. */
const MIN_SLOT = 4;
const MAX_SLOT = 28;
/** Bars drawn beyond each side of the visible window, so a scroll rarely shows a gap. */
const OVERSCAN = 64;
/** Room under the bars for the request numbers, and the least distance between two of them. */
const AXIS = 13;
const TICK_SPACING = 44;

export class TokenTimeline extends LitElement {
  @property({ attribute: false }) accessor model: IndexModel | null = null;
  /** Request details (break causes) for the labels, when their page is here. */
  @property({ attribute: false }) accessor requests: Pages<RequestView> | null = null;
  @property({ type: Number }) accessor turn = 0;
  @property({ type: Number }) accessor request = -1;
  @state() accessor scrollLeft = 0;
  private readonly width = new WidthController(this);

  constructor() {
    super();
    this.addController(new PagesController(this, () => this.requests));
  }

  static styles = [
    tokens,
    css`
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
    .tick { fill: var(--pi-muted); font-size: 10px; font-variant-numeric: tabular-nums; }
    .gap, .sw.gap { stroke: var(--vscode-charts-orange, #d18616); stroke-width: 2; background: var(--vscode-charts-orange, #d18616); }
    .sw.gap { width: 3px; }
    svg { cursor: pointer; }
    .reused { fill: var(--reused); }
    .billed { fill: var(--billed); }
    .billed.broken { fill: var(--pi-error); }
    .marker { fill: var(--pi-error); }
    .marker.compaction, .sw.compaction { fill: var(--pi-info); background: var(--pi-info); }
    .outline { fill: color-mix(in srgb, var(--pi-focus) 14%, transparent); stroke: var(--pi-fg); stroke-width: 1.5; }
    /* The billed cache read, drawn across its bar at its height: coloured by the miss's class. */
    .read { fill: none; stroke-width: 2; stroke: var(--pi-fg); }
    .read.unexplained, .sw.unexplained { stroke: var(--pi-error); background: var(--pi-error); }
    .read.predicted, .sw.predicted { stroke: var(--pi-info); background: var(--pi-info); }
    .read.expired, .sw.expired { stroke: var(--vscode-charts-orange, #d18616); background: var(--vscode-charts-orange, #d18616); }
    .read.cause-logged, .sw.cause-logged { stroke: var(--vscode-charts-purple, #b180d7); background: var(--vscode-charts-purple, #b180d7); }
    .read.too-short, .sw.too-short { stroke: var(--pi-muted); background: var(--pi-muted); }
    .sw.read, .sw.unexplained, .sw.predicted, .sw.expired, .sw.cause-logged, .sw.too-short { height: 3px; vertical-align: 2px; }
    .sw.read { background: var(--pi-fg); }
  `,
  ];

  private get barSlot(): number {
    const n = this.model?.requestCount ?? 0;
    return n === 0 ? 0 : Math.min(MAX_SLOT, Math.max(MIN_SLOT, (this.width.value || 600) / n));
  }

  protected updated(changed: PropertyValues<this>): void {
    // Keep the selected bar in view when the chart is wider than the panel.
    if (changed.has('request') || (changed as Map<PropertyKey, unknown>).has('width')) {
      const plot = this.renderRoot.querySelector<HTMLElement>('.plot');
      if (plot && plot.scrollWidth > plot.clientWidth) {
        const x = this.request * this.barSlot;
        if (x < plot.scrollLeft || x + this.barSlot > plot.scrollLeft + plot.clientWidth) plot.scrollLeft = x - plot.clientWidth / 2;
        this.scrollLeft = plot.scrollLeft;
      }
    }
  }

  private onScroll(e: Event): void {
    this.scrollLeft = (e.target as HTMLElement).scrollLeft;
  }

  private onKey(e: KeyboardEvent): void {
    const to = roveTo(e, 'horizontal', this.model?.requestCount ?? 0, this.request);
    if (to !== undefined) this.dispatchEvent(piEvent('pi-select', { request: to }));
  }

  private label(r: RequestSummary): string {
    const prefix = this.model?.status(r.index) ?? 'stable';
    const cause = prefix === 'break' ? this.requests?.peek(0, r.index)?.breakAt?.cause : undefined;
    const status = `${PREFIX_STATUS_LABEL[prefix]}${cause ? ` (${cause})` : ''}`;
    const bill = r.billedRead < 0 ? '' : `; billed cache read ${num(r.billedRead)} in our tokens${r.missClass ? `, a cache miss (${r.missClass})` : ''}`;
    return `Request ${r.index}, turn ${r.turn}: ${num(r.inputTokens)} input tokens, ${num(r.reusedTokens)} reused (${percentOf(r.reusedTokens, r.inputTokens)}), ${status}${bill}`;
  }

  /** The request under the pointer, from its x in the chart. */
  private onClick(e: MouseEvent): void {
    const svgBox = (e.currentTarget as SVGElement).getBoundingClientRect();
    const at = Math.floor((e.clientX - svgBox.left) / this.barSlot);
    if (this.model && at >= 0 && at < this.model.requestCount && at !== this.request) this.dispatchEvent(piEvent('pi-select', { request: at }));
  }

  private onHover(e: MouseEvent): void {
    const svgBox = (e.currentTarget as SVGElement).getBoundingClientRect();
    const r = this.model?.request(Math.floor((e.clientX - svgBox.left) / this.barSlot));
    (e.currentTarget as SVGElement).querySelector('title')!.textContent = r ? this.label(r) : '';
  }

  render() {
    const x = this.model;
    if (!x || x.requestCount === 0) return html`<h2 class="section">Input tokens per request</h2><p class="muted">No requests.</p>`;
    const slot = this.barSlot;
    const width = slot * x.requestCount;
    const max = x.maxInputTokens;
    const base = TOP + HEIGHT;
    const own = x.requestsOf(this.turn);
    const band = own.length ? svg`<rect class="band" x=${own[0] * slot} y="0" width=${own.length * slot} height=${base + 4}></rect>` : nothing;
    const visible = Math.ceil((this.width.value || 600) / slot);
    const first = Math.max(0, Math.floor(this.scrollLeft / slot) - OVERSCAN);
    const end = Math.min(x.requestCount, first + visible + 2 * OVERSCAN);
    const gap = slot >= 8 ? 2 : slot >= 5 ? 1 : 0;
    const w = Math.max(1, slot - gap);
    let reusedPath = '';
    let billedPath = '';
    let brokenPath = '';
    let markers = '';
    let compactionMarkers = '';
    let gaps = '';
    const reads = new Map<string, string>();
    const column = (left: number, top: number, height: number): string => (height > 0 ? `M${left} ${top}h${w}v${height}h${-w}z` : '');
    for (let i = first; i < end; i++) {
      const r = x.request(i) as RequestSummary;
      const left = i * slot + gap / 2;
      if (r.previousRequest >= 0 && outlivedCache(r.gapSeconds, x.index.summary.cacheLifetimeSeconds)) gaps += `M${i * slot + 0.5} ${TOP - 4}V${base}`;
      const total = (r.inputTokens / max) * HEIGHT;
      const reused = (Math.min(r.reusedTokens, r.inputTokens) / max) * HEIGHT;
      reusedPath += column(left, base - reused, reused);
      if (r.billedRead >= 0) {
        const kind = r.missClass ?? 'hit';
        const y = base - (Math.min(r.billedRead, r.inputTokens) / max) * HEIGHT;
        reads.set(kind, `${reads.get(kind) ?? ''}M${left} ${Math.min(base - 1, y)}h${w}`);
      }
      const marker = `M${left + w / 2 - 3.5} ${base - total - 7}h7l-3.5 5z`;
      // A compaction re-bills by design: drawn as re-billed, marked apart from the breaks.
      const status = x.status(i);
      if (status === 'break') {
        brokenPath += column(left, base - total, total - reused);
        markers += marker;
      } else {
        billedPath += column(left, base - total, total - reused);
        if (status === 'compaction') compactionMarkers += marker;
      }
    }
    const step = tickStep(slot, TICK_SPACING);
    const ticks = [];
    for (let i = Math.ceil(first / step) * step; i < end; i += step) {
      const at = i * slot + slot / 2;
      ticks.push(
        svg`<text class="tick" x=${at} y=${base + AXIS} text-anchor=${i === 0 ? 'start' : 'middle'}>${i}</text><path class="axis" d="M${at} ${base}v3"></path>`,
      );
    }
    const selected = x.request(this.request);
    const outline = selected
      ? (() => {
          const total = (selected.inputTokens / max) * HEIGHT;
          return svg`<rect class="outline" data-request=${selected.index} x=${selected.index * slot + gap / 2 - 0.75} y=${base - total - 0.75} width=${w + 1.5} height=${total + 1.5}></rect>`;
        })()
      : nothing;
    return html`
      <div class="head">
        <h2 class="section" id="chart-label">Input tokens per request</h2>
        <div class="legend" aria-hidden="true">
          <span><span class="sw reused"></span>reused prefix</span>
          <span><span class="sw billed"></span>re-billed</span>
          <span><span class="sw broken"></span>cache break ▼</span>
          <span><span class="sw compaction"></span>compaction ▼</span>
          <span><span class="sw turn"></span>selected turn</span>
          <span><span class="sw gap"></span>5+ min idle before it</span>
          ${
            x.index.summary.billing
              ? html`<span><span class="sw read"></span>billed cache read</span>${CACHE_MISS_CLASSES.filter((c) => x.index.summary.billing?.misses[c]).map(
                  (c) => html`<span><span class="sw ${c}"></span>miss: ${c}</span>`,
                )}`
              : nothing
          }
        </div>
        <span class="scale">request number → · max ${num(max)} tokens</span>
      </div>
      <div class="plot" @scroll=${this.onScroll}>
        <svg width=${width} height=${base + AXIS + 3} role="slider" tabindex="0" aria-labelledby="chart-label" aria-orientation="horizontal"
          aria-valuemin="0" aria-valuemax=${x.requestCount - 1} aria-valuenow=${selected ? selected.index : nothing}
          aria-valuetext=${selected ? this.label(selected) : 'no request selected'}
          @keydown=${this.onKey} @click=${this.onClick} @mousemove=${this.onHover}>
          <title></title>
          ${band}
          <line class="axis" x1="0" x2=${width} y1=${base + 0.5} y2=${base + 0.5}></line>
          <path class="reused" d=${reusedPath}></path>
          <path class="billed" d=${billedPath}></path>
          <path class="billed broken" d=${brokenPath}></path>
          <path class="marker" d=${markers}></path>
          <path class="marker compaction" d=${compactionMarkers}></path>
          <path class="gap" data-long-gaps d=${gaps}></path>
          ${[...reads].map(([kind, d]) => svg`<path class="read ${kind === 'hit' ? '' : kind}" data-billed-read=${kind} d=${d}></path>`)}
          ${ticks}
          ${outline}
        </svg>
      </div>
    `;
  }
}
customElements.define('token-timeline', TokenTimeline);
