// The analysis' diagnostics. Each one that names a turn or request is a button that goes there;
// the ones about the selected turn are marked.

import { css, html, LitElement, nothing } from 'lit';
import '@vscode-elements/elements/dist/vscode-collapsible/index.js';
import '@vscode-elements/elements/dist/vscode-icon/index.js';
import type { DiagnosticView } from '../src/protocol';
import { selectEvent } from './events';
import { num } from './format';
import { tokens } from './theme';

/** Beyond this many the list says how many more there are: a broken file can yield thousands. */
const SHOWN = 500;

export class FindingsList extends LitElement {
  static properties = { diagnostics: { attribute: false }, turn: { type: Number } };
  declare diagnostics: DiagnosticView[];
  declare turn: number;

  constructor() {
    super();
    this.diagnostics = [];
    this.turn = -1;
  }

  static styles = [tokens, css`
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
  `];

  private item(d: DiagnosticView) {
    const where = [d.turn !== null ? `turn ${d.turn}` : '', d.request !== null ? `request #${d.request}` : ''].filter(Boolean).join(' · ');
    const content = html`
      <vscode-icon class=${d.severity} name=${d.severity} label=${d.severity}></vscode-icon>
      <span><span class="msg">${d.message}</span><br><span class="code">${d.code}</span>${where ? html` <span class="where">· ${where}</span>` : nothing}</span>`;
    const go = d.request !== null ? { request: d.request } : d.turn !== null ? { turn: d.turn } : null;
    return html`<li class=${d.turn === this.turn ? 'current' : ''} data-severity=${d.severity}>${go
      ? html`<button class="plain" @click=${() => this.dispatchEvent(selectEvent(go))} title="Go to ${where}">${content}</button>`
      : html`<div>${content}</div>`}</li>`;
  }

  render() {
    const list = this.diagnostics;
    return html`
      <vscode-collapsible open heading="Findings" description=${num(list.length)}>
        ${list.length === 0
          ? html`<div class="empty">No findings.</div>`
          : html`<ul aria-label="Findings">${list.slice(0, SHOWN).map((d) => this.item(d))}</ul>`}
        ${list.length > SHOWN ? html`<div class="more">and ${num(list.length - SHOWN)} more (see the Problems panel or the CLI report)</div>` : nothing}
      </vscode-collapsible>`;
  }
}
customElements.define('findings-list', FindingsList);
