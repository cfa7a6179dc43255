// The turns of the transcript as a listbox: what each turn injected, whether it compacted, whether
// one of its requests broke the cache. Selection follows focus; arrows, Home and End move it.

import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { property } from 'lit/decorators.js';
import '@lit-labs/virtualizer';
import type { RangeChangedEvent } from '@lit-labs/virtualizer';
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-toolbar-button/index.js';
import type { TurnView } from '../src/shared/messages';
import { piEvent } from './events';
import { KIND_LABEL, num, plural, usd } from './format';
import type { IndexModel } from './index-model';
import type { Pages } from './pages';
import { PagesController } from './pages-controller';
import { roveTo } from './roving';
import { tokens } from './theme';

export class TurnStepper extends LitElement {
  @property({ attribute: false }) accessor model: IndexModel | null = null;
  /** Titles arrive in pages; a turn without its page yet shows its numbers only. */
  @property({ attribute: false }) accessor turns: Pages<TurnView> | null = null;
  @property({ type: Number }) accessor selected = 0;
  private items: number[] = [];

  constructor() {
    super();
    this.addController(new PagesController(this, () => this.turns));
  }
  static styles = [
    tokens,
    css`
    :host { display: flex; flex-direction: column; min-height: 0; background: var(--pi-side-bg); }
    .bar { display: flex; align-items: center; gap: 6px; padding: 4px 6px 4px 12px; border-bottom: 1px solid var(--pi-border); }
    .bar h2 { flex: 1; display: flex; align-items: center; gap: 6px; }
    lit-virtualizer { flex: 1; min-height: 0; height: 100%; }
    /* One height for every row (one line of title, one of chips): the virtualizer's estimates are
       then exact, and a jump across thousands of turns lands without corrections. */
    .turn {
      width: 100%; height: 44px; overflow: hidden; display: grid; grid-template-columns: auto minmax(0, 1fr); gap: 1px 8px;
      padding: 4px 10px 4px 12px; cursor: pointer; border: 1px solid transparent;
      border-left: 2px solid transparent;
    }
    .turn:hover { background: var(--pi-hover); }
    .turn[aria-selected='true'] {
      background: var(--pi-selected); color: var(--pi-selected-fg);
      border-left-color: var(--pi-focus); outline: 1px dashed var(--pi-hc-active); outline-offset: -1px;
    }
    .turn:focus-visible { outline: 1px solid var(--pi-focus); outline-offset: -1px; }
    .n { grid-row: span 2; min-width: 3ch; text-align: right; color: var(--pi-muted); font-variant-numeric: tabular-nums; }
    .title { overflow: hidden; white-space: nowrap; text-overflow: ellipsis; }
    /* One line of chips: one that does not fit wraps onto a hidden second line (a row gap as tall
       as the line keeps it wholly below), never cut mid-word ("plu"); breaks and compactions come
       first so they show, and the row's title lists all. */
    .meta { display: flex; flex-wrap: wrap; height: 18px; overflow: hidden; align-items: center; align-content: flex-start; gap: 18px 3px; font-size: 11px; }
    .meta > * { flex-shrink: 0; white-space: nowrap; }
    .reqs { color: var(--pi-muted); margin-right: 2px; }
    .empty { padding: 12px; color: var(--pi-muted); }
  `,
  ];

  protected willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('model') && this.items.length !== this.model?.turnCount) this.items = Array.from({ length: this.model?.turnCount ?? 0 }, (_, i) => i);
  }

  protected updated(changed: PropertyValues<this>): void {
    if (!changed.has('selected')) return;
    // Focus follows the selection only while the user is working in this list.
    const focused = this.shadowRoot?.activeElement?.getAttribute('role') === 'option';
    const option = (): HTMLElement | null => this.renderRoot.querySelector<HTMLElement>(`#turn-${this.selected}`);
    const rendered = option();
    if (rendered) {
      rendered.scrollIntoView({ block: 'nearest' });
      if (focused) rendered.focus();
      return;
    }
    // Not rendered yet: the virtualizer scrolls there and renders it in a later frame.
    this.renderRoot.querySelector('lit-virtualizer')?.element(this.selected)?.scrollIntoView({ block: 'nearest' });
    if (focused) requestAnimationFrame(() => requestAnimationFrame(() => option()?.focus()));
  }

  private onRange(e: RangeChangedEvent): void {
    this.turns?.ensure(0, e.first, e.last);
  }

  private onKey(e: KeyboardEvent): void {
    const to = roveTo(e, 'vertical', this.model?.turnCount ?? 0, this.selected);
    if (to !== undefined) this.dispatchEvent(piEvent('pi-select', { turn: to }));
  }

  private step(by: number): void {
    const to = this.selected + by;
    if (this.model && to >= 0 && to < this.model.turnCount) this.dispatchEvent(piEvent('pi-select', { turn: to }));
  }

  private renderTurn(model: IndexModel, i: number) {
    const selected = i === this.selected;
    const slot = this.turns?.get(0, i);
    const turn = slot === undefined || slot === 'loading' || slot instanceof Error ? null : slot;
    const title = turn ? turn.title : slot instanceof Error ? `(could not load: ${slot.message})` : '…';
    return html`
      <div class="turn" role="option" id="turn-${i}" aria-selected=${selected ? 'true' : 'false'} aria-posinset=${i + 1} aria-setsize=${model.turnCount}
        tabindex=${selected ? 0 : -1} @click=${() => this.dispatchEvent(piEvent('pi-select', { turn: i }))}>
        <span class="n">${i}</span>
        <span class="title" title=${title}>${title}</span>
        <span class="meta" title=${[model.broken(i) ? 'cache break' : '', model.compacted(i) ? 'compacted' : '', ...model.injectedKinds(i).map((k) => KIND_LABEL[k])].filter(Boolean).join(', ')}>
          <span class="reqs">${plural(model.requestsOf(i).length, 'req', 'reqs')}</span>
          ${turn?.costUsd != null ? html`<span class="reqs" data-turn-cost title="what its billed requests cost">${usd(turn.costUsd)}</span>` : nothing}
          ${model.broken(i) ? html`<span class="chip break solid" data-badge="break">cache break</span>` : nothing}
          ${model.compacted(i) ? html`<span class="chip compaction" data-badge="compaction">compacted</span>` : nothing}
          ${model.injectedKinds(i).map((k) => html`<span class="chip k-${k}" data-kind=${k}>${KIND_LABEL[k]}</span>`)}
        </span>
      </div>`;
  }

  render() {
    const model = this.model;
    const n = model?.turnCount ?? 0;
    return html`
      <div class="bar">
        <h2 class="section" id="turns-label">Turns <vscode-badge variant="counter">${num(n)}</vscode-badge></h2>
        <vscode-toolbar-button icon="arrow-up" label="Previous turn (k)" title="Previous turn (k)" @click=${() => this.step(-1)}></vscode-toolbar-button>
        <vscode-toolbar-button icon="arrow-down" label="Next turn (j)" title="Next turn (j)" @click=${() => this.step(1)}></vscode-toolbar-button>
      </div>
      ${
        !model || n === 0
          ? html`<div class="empty">No turns in this transcript.</div>`
          : // A new renderItem each render (titles arrived) re-renders the visible rows only.
            html`<lit-virtualizer scroller role="listbox" aria-labelledby="turns-label" @keydown=${this.onKey}
            .items=${this.items} .renderItem=${(i: number) => this.renderTurn(model, i)}
            @rangeChanged=${this.onRange}></lit-virtualizer>`
      }
    `;
  }
}
customElements.define('turn-stepper', TurnStepper);
