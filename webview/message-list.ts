// The selected request's wire messages, virtualised: only the rows near the viewport exist in the
// DOM, and only their pages of bodies are asked of the host. Rows not loaded yet are placeholders.

import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { property, state } from 'lit/decorators.js';
import '@lit-labs/virtualizer';
import type { RangeChangedEvent, VisibilityChangedEvent } from '@lit-labs/virtualizer';
import type { MessageView, RequestView } from '../src/shared/messages';
import { piEvent } from './events';
import { num } from './format';
import type { IndexModel } from './index-model';
import './message-view';
import type { Pages } from './pages';
import { PagesController } from './pages-controller';
import { tokens } from './theme';

/** Messages fetched beyond the rendered range, so a slow scroll rarely meets a placeholder. */
export const AHEAD = 20;
/** Scroll positions reach the host at most this often: it persists each one. */
const SCROLL_REPORT_MS = 250;

export class MessageList extends LitElement {
  @property({ attribute: false }) accessor model: IndexModel | null = null;
  @property({ attribute: false }) accessor pages: Pages<MessageView> | null = null;
  @property({ type: Number }) accessor request = -1;
  /** The message to show at the top after a selection, and a counter that asks for it. */
  @property({ type: Number }) accessor openAt = 0;
  @property({ type: Number }) accessor openKey = 0;
  /** The request dump that captured the selected request (its details page), if any: its breakpoints mark rows. */
  @property({ attribute: false }) accessor captured: RequestView['captured'] | undefined;
  @state() accessor expanded: ReadonlySet<number> = new Set();
  /** Wire indexes 0..n-1, kept while the length stays: the virtualizer is not handed a new list
   * of thousands for every page that arrives. */
  private rows: number[] = [];
  /**
   * Where the list opens: each opening gives the virtualizer a new layout pinned at the row, so a
   * jump deep into a long request lands there directly instead of scrolling through estimated
   * heights (a profile showed those scroll corrections forcing layout for ~75 ms a jump). It stays
   * pinned while pages arrive and rows change height, until the user scrolls.
   */
  private layout: { pin?: { index: number; block: 'start' } } = {};
  /** The rows the virtualizer rendered last. */
  private range = { first: 0, last: 0 };
  private reportTimer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    super();
    this.addController(new PagesController(this, () => this.pages));
  }

  static styles = [
    tokens,
    css`
    :host { display: flex; flex-direction: column; min-height: 0; }
    lit-virtualizer { flex: 1; min-height: 0; height: 100%; }
    .placeholder {
      width: 100%; height: 64px; padding: 6px 12px 8px 12px; border-bottom: 1px solid var(--pi-border);
      color: var(--pi-muted); font-size: 12px;
    }
    .placeholder .lines { margin-top: 6px; height: 30px; border-radius: 2px; background: var(--pi-code-bg); opacity: 0.7; }
    .placeholder.error { color: var(--pi-error); height: auto; }
    .empty { padding: 16px 12px; color: var(--pi-muted); }
  `,
  ];

  disconnectedCallback(): void {
    clearTimeout(this.reportTimer);
    super.disconnectedCallback();
  }

  protected willUpdate(changed: PropertyValues<this>): void {
    const r = this.model?.request(this.request);
    if (changed.has('request')) this.expanded = new Set();
    if ((changed.has('openKey') || changed.has('request')) && r) {
      clearTimeout(this.reportTimer);
      const at = Math.max(0, Math.min(this.openAt, r.messageCount - 1));
      this.layout = { pin: { index: at, block: 'start' } };
      this.pages?.ensure(r.index, at - AHEAD, at + AHEAD);
    }
    if (!r || !this.pages) {
      this.rows = [];
      return;
    }
    // A live update dropped every page: ask again for the rows on screen, which will not move.
    if (changed.has('model')) this.pages.ensure(r.index, this.range.first - AHEAD, this.range.last + AHEAD);
    if (this.rows.length !== r.messageCount) this.rows = Array.from({ length: r.messageCount }, (_, i) => i);
  }

  private onUnpinned(): void {
    // The user scrolled: later renders must not snap back to the opening row.
    this.layout = {};
    this.requestUpdate();
  }

  private onRange(e: RangeChangedEvent): void {
    this.range = { first: e.first, last: e.last };
    this.pages?.ensure(this.request, e.first - AHEAD, e.last + AHEAD);
  }

  private onVisible(e: VisibilityChangedEvent): void {
    // Ensure here too: after a jump the list can settle without reporting a new rendered range.
    this.pages?.ensure(this.request, e.first, e.last);
    clearTimeout(this.reportTimer);
    const { first } = e;
    const request = this.request;
    this.reportTimer = setTimeout(() => {
      if (request !== this.request) return;
      this.dispatchEvent(piEvent('pi-scroll', first));
    }, SCROLL_REPORT_MS);
  }

  private toggle(e: HTMLElementEventMap['pi-expand']): void {
    const next = new Set(this.expanded);
    if (next.has(e.detail)) next.delete(e.detail);
    else next.add(e.detail);
    this.expanded = next;
  }

  private renderRow(index: number, breakAt: number, breakKind: 'break' | 'compaction' | 'rewind', current: number, breakpoints: ReadonlySet<number>) {
    const slot = this.pages?.get(this.request, index) ?? 'loading';
    if (slot === 'loading') {
      return html`<div class="placeholder" role="listitem" aria-busy="true" data-placeholder=${index}>#${index} · loading…<div class="lines"></div></div>`;
    }
    if (slot instanceof Error) {
      return html`<div class="placeholder error" role="listitem" data-placeholder=${index}>#${index} · could not load: ${slot.message}
        <button class="link" @click=${() => this.pages?.retry(this.request, index)}>Retry</button></div>`;
    }
    return html`<message-view role="listitem" .message=${slot} .expanded=${this.expanded.has(index)}
      .current=${index === current && slot.role === 'user'} .breakHere=${index === breakAt ? breakKind : null}
      .cacheBreakpoint=${breakpoints.has(index) ? (this.captured?.path ?? null) : null}></message-view>`;
  }

  render() {
    // lit-virtualizer can still ask for rows of its previous range for one frame after the list
    // shrinks (a shorter request selected), hence the undefined rows tolerated below.
    const r = this.model?.request(this.request);
    if (!r) return html`<div class="empty">No request selected.</div>`;
    if (r.messageCount === 0) return html`<div class="empty">Request #${r.index} has no messages.</div>`;
    const breakAt = r.breakMessage;
    const breakKind = r.compaction ? 'compaction' : r.rewind ? 'rewind' : 'break';
    const current = r.userWireIndex;
    const breakpoints = new Set(this.captured?.breakpoints);
    // A new function each render (a page arrived) makes the virtualizer re-render
    // its visible rows, and only those.
    const renderItem = (i: number | undefined) => (i === undefined ? nothing : this.renderRow(i, breakAt, breakKind, current, breakpoints));
    return html`
      <lit-virtualizer scroller role="list" aria-label="Messages of request ${r.index} (${num(r.messageCount)})"
        .items=${this.rows}
        .layout=${this.layout}
        .renderItem=${renderItem}
        @rangeChanged=${this.onRange}
        @visibilityChanged=${this.onVisible}
        @unpinned=${this.onUnpinned}
        @pi-expand=${this.toggle}
      ></lit-virtualizer>
    `;
  }
}
customElements.define('message-list', MessageList);
