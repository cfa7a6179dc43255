// The analysis' diagnostics, pulled a page at a time (a broken file can yield thousands). Each one
// that names a turn or request is a button that goes there; the ones about the selected turn are
// marked.

import { css, html, LitElement, nothing } from 'lit';
import { property, state } from 'lit/decorators.js';
import '@vscode-elements/elements/dist/vscode-collapsible/index.js';
import '@vscode-elements/elements/dist/vscode-icon/index.js';
import type { DiagnosticView } from '../src/shared/messages';
import { piEvent } from './events';
import { num } from './format';
import type { IndexModel } from './index-model';
import type { Pages } from './pages';
import { PagesController } from './pages-controller';
import { tokens } from './theme';

/** Findings shown at first, and added by each "Show more". */
const STEP = 100;

export class FindingsList extends LitElement {
  @property({ attribute: false }) accessor model: IndexModel | null = null;
  @property({ attribute: false }) accessor findings: Pages<DiagnosticView> | null = null;
  @property({ type: Number }) accessor turn = -1;
  @state() accessor shown = STEP;

  constructor() {
    super();
    this.addController(new PagesController(this, () => this.findings));
  }

  static styles = [
    tokens,
    css`
    :host { display: block; }
    ul { list-style: none; margin: 0; padding: 2px 0 8px; }
    li > * {
      display: grid; grid-template-columns: 16px 1fr; gap: 0 6px; width: 100%;
      padding: 4px 12px; border-left: 2px solid transparent;
    }
    li > button:hover { background: var(--pi-hover); }
    li.current > * { border-left-color: var(--pi-focus); background: var(--pi-inactive-selected); }
    vscode-icon { margin-top: 1px; }
    .error { --vscode-icon-foreground: var(--pi-error); }
    .warning { --vscode-icon-foreground: var(--pi-warning); }
    .info { --vscode-icon-foreground: var(--pi-info); }
    .code { font-family: var(--pi-mono); font-size: 11px; color: var(--pi-muted); }
    .where { font-size: 11px; color: var(--pi-muted); }
    .msg { overflow-wrap: anywhere; }
    .empty, .more { padding: 4px 12px 8px; color: var(--pi-muted); }
    .more button { margin-left: 4px; }
  `,
  ];

  private item(d: DiagnosticView) {
    const where = [d.turn !== null ? `turn ${d.turn}` : '', d.request !== null ? `request #${d.request}` : ''].filter(Boolean).join(' · ');
    const content = html`
      <vscode-icon class=${d.severity} name=${d.severity} label=${d.severity}></vscode-icon>
      <span><span class="msg">${d.message}</span><br><span class="code">${d.code}</span>${where ? html` <span class="where">· ${where}</span>` : nothing}</span>`;
    const go = d.request !== null ? { request: d.request } : d.turn !== null ? { turn: d.turn } : null;
    return html`<li class=${d.turn === this.turn ? 'current' : ''} data-severity=${d.severity}>${
      go
        ? html`<button class="plain" @click=${() => this.dispatchEvent(piEvent('pi-select', go))} title="Go to ${where}">${content}</button>`
        : html`<div>${content}</div>`
    }</li>`;
  }

  render() {
    const counts = this.model?.index.summary.findings;
    const total = counts ? counts.error + counts.warning + counts.info : 0;
    const shown = Math.min(total, this.shown);
    this.findings?.ensure(0, 0, shown - 1);
    const items = [];
    for (let i = 0; i < shown; i++) {
      const slot = this.findings?.get(0, i) ?? 'loading';
      if (slot === 'loading') {
        items.push(html`<li class="empty" aria-busy="true">loading…</li>`);
        break;
      }
      if (slot instanceof Error) {
        items.push(html`<li class="empty">Could not load the findings: ${slot.message}</li>`);
        break;
      }
      items.push(this.item(slot));
    }
    return html`
      <vscode-collapsible open heading="Findings" description=${num(total)}>
        ${total === 0 ? html`<div class="empty">No findings.</div>` : html`<ul aria-label="Findings">${items}</ul>`}
        ${
          total > shown
            ? html`<div class="more">${num(total - shown)} more<button class="link" @click=${() => {
                this.shown += STEP;
              }}>Show ${num(Math.min(STEP, total - shown))} more</button></div>`
            : nothing
        }
      </vscode-collapsible>`;
  }
}
customElements.define('findings-list', FindingsList);
