// The selected turn's provider calls as tabs, the selected request in numbers, and "copy as JSON".

import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { property } from 'lit/decorators.js';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import { piEvent } from './events';
import { num, plural, PREFIX_STATUS_LABEL } from './format';
import type { IndexModel } from './index-model';
import { roveTo } from './roving';
import { tokens } from './theme';

export class RequestBar extends LitElement {
  @property({ attribute: false }) accessor model: IndexModel | null = null;
  @property({ type: Number }) accessor turn = 0;
  @property({ type: Number }) accessor request = -1;
  @property({ type: Boolean }) accessor canCopy = true;

  static styles = [
    tokens,
    css`
    :host { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 10px; padding: 5px 12px; border-bottom: 1px solid var(--pi-border); }
    .label { color: var(--pi-muted); }
    [role='tablist'] { display: flex; flex-wrap: wrap; gap: 3px; }
    [role='tab'] {
      font: inherit; font-variant-numeric: tabular-nums; cursor: pointer;
      display: inline-flex; align-items: center; gap: 5px;
      padding: 1px 8px; border-radius: 2px; color: var(--pi-fg);
      background: var(--vscode-button-secondaryBackground, #e5e5e5);
      border: 1px solid var(--vscode-button-border, transparent);
    }
    [role='tab']:hover { background: var(--vscode-button-secondaryHoverBackground, #cccccc); }
    [role='tab'][aria-selected='true'] {
      background: var(--vscode-button-background, #005fb8); color: var(--vscode-button-foreground, #ffffff);
      outline: 1px solid var(--pi-hc-active); outline-offset: -1px;
    }
    [role='tab']:focus-visible { outline: 1px solid var(--pi-focus); outline-offset: 1px; }
    .dot { width: 7px; height: 7px; border-radius: 50%; background: var(--pi-ok); }
    .dot.break { background: var(--pi-error); }
    .dot.compaction { background: var(--pi-info); }
    .stats { color: var(--pi-muted); font-variant-numeric: tabular-nums; }
    .stats b { color: var(--pi-fg); font-weight: 600; }
    vscode-button { margin-left: auto; }
  `,
  ];

  protected updated(changed: PropertyValues<this>): void {
    if (changed.has('request') && this.shadowRoot?.activeElement?.getAttribute('role') === 'tab') {
      this.renderRoot.querySelector<HTMLElement>(`[data-request="${this.request}"]`)?.focus();
    }
  }

  private onKey(e: KeyboardEvent): void {
    const list = this.model?.requestsOf(this.turn) ?? [];
    const to = roveTo(e, 'horizontal', list.length, list.indexOf(this.request));
    if (to !== undefined) this.dispatchEvent(piEvent('pi-select', { request: list[to] }));
  }

  private copy(): void {
    this.dispatchEvent(piEvent('pi-copy', this.request));
  }

  render() {
    const model = this.model;
    if (!model || this.turn < 0 || this.turn >= model.turnCount) return nothing;
    const own = model.requestsOf(this.turn);
    const r = model.request(this.request);
    return html`
      <span class="label" id="requests-label">Turn ${this.turn} · requests</span>
      <div role="tablist" aria-labelledby="requests-label" @keydown=${this.onKey}>
        ${own.map((q) => {
          const status = model.status(q);
          return html`<button role="tab" data-request=${q} aria-selected=${q === this.request ? 'true' : 'false'}
            tabindex=${q === this.request ? 0 : -1} title=${PREFIX_STATUS_LABEL[status]}
            @click=${() => this.dispatchEvent(piEvent('pi-select', { request: q }))}>#${q}<span class="dot ${status}"></span><span
            class="sr-only">${PREFIX_STATUS_LABEL[status]}</span></button>`;
        })}
        ${own.length === 0 ? html`<span class="muted">none: no provider call was replayed for this turn</span>` : nothing}
      </div>
      ${r ? html`<span class="stats"><b>${plural(r.messageCount, 'message')}</b> · <b>${num(r.inputTokens)}</b> input tokens</span>` : nothing}
      ${
        r && this.canCopy
          ? html`<vscode-button secondary icon="copy" @click=${this.copy} title="Copy request #${r.index} as JSON (the wire messages)">Copy request as JSON</vscode-button>`
          : nothing
      }
    `;
  }
}
customElements.define('request-bar', RequestBar);
