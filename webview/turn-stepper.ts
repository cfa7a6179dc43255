// The turns of the transcript as a listbox: what each turn injected, whether it compacted, whether
// one of its requests broke the cache. Selection follows focus; arrows, Home and End move it.

import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-toolbar-button/index.js';
import type { InspectorIndex, TurnView } from '../src/protocol';
import { selectEvent } from './events';
import { KIND_LABEL, plural } from './format';
import { tokens } from './theme';

export class TurnStepper extends LitElement {
  static properties = { index: { attribute: false }, selected: { type: Number } };
  declare index: InspectorIndex | null;
  declare selected: number;
  private brokenTurns = new Set<number>();

  constructor() {
    super();
    this.index = null;
    this.selected = 0;
  }

  static styles = [tokens, css`
    :host { display: flex; flex-direction: column; min-height: 0; background: var(--pi-side-bg); }
    .bar { display: flex; align-items: center; gap: 6px; padding: 4px 6px 4px 12px; border-bottom: 1px solid var(--pi-border); }
    .bar h2 { flex: 1; display: flex; align-items: center; gap: 6px; }
    .list { flex: 1; min-height: 0; overflow-y: auto; padding: 2px 0; }
    .turn {
      display: grid; grid-template-columns: auto 1fr; gap: 1px 8px;
      padding: 5px 10px 5px 12px; cursor: pointer; border: 1px solid transparent;
      border-left: 2px solid transparent;
    }
    .turn:hover { background: var(--pi-hover); }
    .turn[aria-selected='true'] {
      background: var(--pi-selected); color: var(--pi-selected-fg);
      border-left-color: var(--pi-focus); outline: 1px dashed var(--pi-hc-active); outline-offset: -1px;
    }
    .turn:focus-visible { outline: 1px solid var(--pi-focus); outline-offset: -1px; }
    .n { grid-row: span 2; min-width: 2ch; text-align: right; color: var(--pi-muted); font-variant-numeric: tabular-nums; }
    .title {
      overflow: hidden; display: -webkit-box; -webkit-line-clamp: 2; -webkit-box-orient: vertical;
      overflow-wrap: anywhere;
    }
    .meta { display: flex; flex-wrap: wrap; align-items: center; gap: 3px; font-size: 11px; }
    .reqs { color: var(--pi-muted); margin-right: 2px; }
    .empty { padding: 12px; color: var(--pi-muted); }
  `];

  protected willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('index') && this.index) {
      const x = this.index;
      this.brokenTurns = new Set(x.requests.filter((r) => !r.stable).map((r) => r.turn));
    }
  }

  protected updated(changed: PropertyValues<this>): void {
    if (!changed.has('selected')) return;
    const option = this.renderRoot.querySelector<HTMLElement>(`#turn-${this.selected}`);
    option?.scrollIntoView({ block: 'nearest' });
    // Focus follows the selection only while the user is working in this list.
    if (this.shadowRoot?.activeElement?.getAttribute('role') === 'option') option?.focus();
  }

  private onKey(e: KeyboardEvent): void {
    const n = this.index?.turns.length ?? 0;
    const to = { ArrowDown: this.selected + 1, ArrowUp: this.selected - 1, Home: 0, End: n - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    if (to >= 0 && to < n && to !== this.selected) this.dispatchEvent(selectEvent({ turn: to }));
  }

  private step(by: number): void {
    const to = this.selected + by;
    if (this.index && to >= 0 && to < this.index.turns.length) this.dispatchEvent(selectEvent({ turn: to }));
  }

  private renderTurn(t: TurnView) {
    const selected = t.index === this.selected;
    const broken = this.brokenTurns.has(t.index);
    return html`
      <div class="turn" role="option" id="turn-${t.index}" aria-selected=${selected ? 'true' : 'false'}
        tabindex=${selected ? 0 : -1} @click=${() => this.dispatchEvent(selectEvent({ turn: t.index }))}>
        <span class="n">${t.index}</span>
        <span class="title">${t.title}</span>
        <span class="meta">
          <span class="reqs">${plural(t.requests.length, 'req', 'reqs')}</span>
          ${t.injectedKinds.map((k) => html`<span class="chip k-${k}" data-kind=${k}>${KIND_LABEL[k]}</span>`)}
          ${t.compression ? html`<span class="chip compaction" data-badge="compaction">compacted</span>` : nothing}
          ${broken ? html`<span class="chip break solid" data-badge="break">cache break</span>` : nothing}
        </span>
      </div>`;
  }

  render() {
    const turns = this.index?.turns ?? [];
    return html`
      <div class="bar">
        <h2 class="section" id="turns-label">Turns <vscode-badge variant="counter">${turns.length}</vscode-badge></h2>
        <vscode-toolbar-button icon="arrow-up" label="Previous turn (k)" title="Previous turn (k)" @click=${() => this.step(-1)}></vscode-toolbar-button>
        <vscode-toolbar-button icon="arrow-down" label="Next turn (j)" title="Next turn (j)" @click=${() => this.step(1)}></vscode-toolbar-button>
      </div>
      ${turns.length === 0
        ? html`<div class="empty">No turns in this transcript.</div>`
        : html`<div class="list" role="listbox" aria-labelledby="turns-label" @keydown=${this.onKey}>
            ${turns.map((t) => this.renderTurn(t))}
          </div>`}
    `;
  }
}
customElements.define('turn-stepper', TurnStepper);
