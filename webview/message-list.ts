// The selected request's wire messages, virtualised: only the rows near the viewport exist in the
// DOM, and only their pages of bodies are asked of the host. Rows not loaded yet are placeholders.

import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import '@lit-labs/virtualizer';
import type { RangeChangedEvent, VisibilityChangedEvent } from '@lit-labs/virtualizer';
import type { InspectorIndex } from '../src/protocol';
import { num } from './format';
import type { MessagePages, Slot } from './message-pages';
import './message-view';
import { userWireIndex } from './navigation';
import { tokens } from './theme';

/** Messages fetched beyond the rendered range, so a slow scroll rarely meets a placeholder. */
const AHEAD = 20;
/** Scroll positions reach the host at most this often: it persists each one. */
const SCROLL_REPORT_MS = 250;

interface Row {
  index: number;
  slot: Slot;
}

export class MessageList extends LitElement {
  static properties = {
    index: { attribute: false },
    pages: { attribute: false },
    turn: { type: Number },
    request: { type: Number },
    pagesVersion: { type: Number },
    openAt: { type: Number },
    openKey: { type: Number },
    expanded: { state: true },
  };
  declare index: InspectorIndex | null;
  declare pages: MessagePages | null;
  declare turn: number;
  declare request: number;
  /** Bumped by the app whenever a page arrives. */
  declare pagesVersion: number;
  /** The message to show at the top after a selection, and a counter that asks for it. */
  declare openAt: number;
  declare openKey: number;
  declare expanded: ReadonlySet<number>;
  private rows: Row[] = [];
  /** The row to scroll to once it has loaded, or -1. */
  private pendingOpen = -1;
  /** The rows the virtualizer rendered last. */
  private range = { first: 0, last: 0 };
  private reportTimer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    super();
    this.index = null;
    this.pages = null;
    this.turn = 0;
    this.request = -1;
    this.pagesVersion = 0;
    this.openAt = 0;
    this.openKey = 0;
    this.expanded = new Set();
  }

  static styles = [tokens, css`
    :host { display: flex; flex-direction: column; min-height: 0; }
    lit-virtualizer { flex: 1; min-height: 0; height: 100%; }
    .placeholder {
      width: 100%; height: 64px; padding: 6px 12px 8px 12px; border-bottom: 1px solid var(--pi-border);
      color: var(--pi-muted); font-size: 12px;
    }
    .placeholder .lines { margin-top: 6px; height: 30px; border-radius: 2px; background: var(--pi-code-bg); opacity: 0.7; }
    .placeholder.error { color: var(--pi-error); height: auto; }
    .empty { padding: 16px 12px; color: var(--pi-muted); }
  `];

  disconnectedCallback(): void {
    clearTimeout(this.reportTimer);
    super.disconnectedCallback();
  }

  protected willUpdate(changed: PropertyValues<this>): void {
    const r = this.index?.requests[this.request];
    if (changed.has('request')) this.expanded = new Set();
    if ((changed.has('openKey') || changed.has('request')) && r) {
      clearTimeout(this.reportTimer);
      this.pendingOpen = Math.min(this.openAt, r.messageCount - 1);
      this.pages?.ensure(r.index, this.pendingOpen - AHEAD, this.pendingOpen + AHEAD);
    }
    if (!r || !this.pages) {
      this.rows = [];
      return;
    }
    // A live update dropped every page: ask again for the rows on screen, which will not move.
    if (changed.has('index')) this.pages.ensure(r.index, this.range.first - AHEAD, this.range.last + AHEAD);
    // A new array each time: lit-virtualizer re-renders its visible rows when `items` changes.
    const pages = this.pages;
    this.rows = Array.from({ length: r.messageCount }, (_, i) => ({ index: i, slot: pages.get(r.index, i) }));
  }

  protected async updated(): Promise<void> {
    // Scroll only once the target row's body is here: scrolling among placeholders would land
    // elsewhere as soon as the real rows replace them.
    const at = this.pendingOpen;
    if (at < 0 || !this.pages || this.pages.get(this.request, at) === 'loading') return;
    this.pendingOpen = -1;
    const v = this.renderRoot.querySelector('lit-virtualizer');
    if (!v) return;
    try {
      // The virtualizer takes the new items in its own update and lays them out after that; then
      // it can scroll to a row it has not rendered yet, and keeps that row in place while the rows
      // above it load and change height.
      await v.updateComplete;
      await v.layoutComplete;
    } catch {
      return; // Disconnected meanwhile.
    }
    if (this.pendingOpen < 0) v.element(at)?.scrollIntoView({ block: 'start' });
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
      this.dispatchEvent(new CustomEvent('pi-scroll', { detail: first, bubbles: true, composed: true }));
    }, SCROLL_REPORT_MS);
  }

  private toggle(e: CustomEvent<number>): void {
    const next = new Set(this.expanded);
    if (next.has(e.detail)) next.delete(e.detail);
    else next.add(e.detail);
    this.expanded = next;
  }

  private renderRow(row: Row, breakAt: number, current: number) {
    const { slot, index } = row;
    if (slot === 'loading') {
      return html`<div class="placeholder" role="listitem" aria-busy="true" data-placeholder=${index}>#${index} · loading…<div class="lines"></div></div>`;
    }
    if (slot instanceof Error) {
      return html`<div class="placeholder error" role="listitem" data-placeholder=${index}>#${index} · could not load: ${slot.message}
        <button class="link" @click=${() => this.pages?.retry(this.request, index)}>Retry</button></div>`;
    }
    return html`<message-view role="listitem" .message=${slot} .expanded=${this.expanded.has(index)}
      .current=${index === current && slot.role === 'user'} .breakHere=${index === breakAt}></message-view>`;
  }

  render() {
    // lit-virtualizer can still ask for rows of its previous range for one frame after the list
    // shrinks (a shorter request selected), hence the undefined rows tolerated below.
    const r = this.index?.requests[this.request];
    if (!r) return html`<div class="empty">No request selected.</div>`;
    if (r.messageCount === 0) return html`<div class="empty">Request #${r.index} has no messages.</div>`;
    const breakAt = r.breakAt?.messageIndex ?? -1;
    const current = userWireIndex(this.index as InspectorIndex, r.index);
    return html`
      <lit-virtualizer scroller role="list" aria-label="Messages of request ${r.index} (${num(r.messageCount)})"
        .items=${this.rows}
        .keyFunction=${(row: Row | undefined, i: number) => row?.index ?? i}
        .renderItem=${(row: Row | undefined) => (row ? this.renderRow(row, breakAt, current) : nothing)}
        @rangeChanged=${this.onRange}
        @visibilityChanged=${this.onVisible}
        @pi-expand=${this.toggle}
      ></lit-virtualizer>
    `;
  }
}
customElements.define('message-list', MessageList);
