// Where the tokens go: a stacked bar of the selected request's token categories and one of every
// request's together, with the request's categories listed. The names come from the report
// (docs/report.md "Token categories"); only their group decides the colour. Widths go through
// styleProps: the page's CSP refuses style attributes.

import { css, html, LitElement, nothing } from 'lit';
import { property } from 'lit/decorators.js';
import { num, percentOf, scaledTo } from './format';
import { styleProps } from './style-props';
import { tokens } from './theme';

/** What a category name says, in words: the report's names are terse. */
const LABEL: Record<string, string> = {
  'system/stable': 'system: identity and guidance',
  'system/skills-index': 'system: skills index',
  'system/context-files': 'system: context files',
  'system/memory': 'system: memory',
  'system/user-profile': 'system: user profile',
  'system/session': 'system: session block',
  'system/prompt': 'system prompt',
  'tools/schemas': 'tool schemas',
  'tools/builtin': 'tool schemas',
  'history/user': 'history: user',
  'history/assistant': 'history: assistant',
  'history/tool': 'history: tool results',
  'history/other': 'history: other roles',
  'current-user': 'current user message',
};

export function categoryLabel(name: string): string {
  if (LABEL[name]) return LABEL[name];
  if (name.startsWith('tools/mcp:')) return `tool schemas: MCP ${name.slice('tools/mcp:'.length)}`;
  if (name.startsWith('notes/')) return `injected: ${name.slice('notes/'.length)}`;
  return name;
}

/** The CSS class that colours a category: its group, and for the system prompt its section. */
function swatch(name: string): string {
  const [group, part] = name.split('/');
  return group === 'system' ? `c-system c-${part}` : `c-${group.replace(/[^a-z-]/g, '')}${part ? ` c-${part.replace(/[^a-z-]/g, '')}` : ''}`;
}

export class CategoryBar extends LitElement {
  /** The selected request's categories, once its page is here. */
  @property({ attribute: false }) accessor request: Record<string, number> | undefined;
  /** Every request's categories summed. */
  @property({ attribute: false }) accessor total: Record<string, number> | undefined;
  @property({ type: Number }) accessor requests = 0;
  /** The provider's billed prompt tokens for the selected request, where a log line matched it. */
  @property({ attribute: false }) accessor billed: number | null = null;
  /** Whether the billed prompt counts the tool schemas (a provider's does; Hermes' own input count does not). */
  @property({ attribute: false }) accessor schemasBilled = false;

  static styles = [
    tokens,
    css`
      :host { display: grid; gap: 4px; min-width: 0; }
      .bar { display: flex; height: 12px; border-radius: 2px; overflow: hidden; outline: 1px solid var(--pi-hc); background: var(--pi-code-bg); }
      .bar > span { display: block; flex: none; height: 100%; min-width: 1px; }
      .label { font-size: 11px; color: var(--pi-muted); }
      table { border-collapse: collapse; font-size: 12px; font-variant-numeric: tabular-nums; width: 100%; }
      td { padding: 1px 6px 1px 0; vertical-align: top; }
      td.n { text-align: right; white-space: nowrap; }
      .sw { display: inline-block; width: 9px; height: 9px; margin-right: 4px; vertical-align: -1px; border-radius: 1px; }
      .c-system { background: var(--vscode-charts-blue, #1a85ff); }
      .c-skills-index { background: color-mix(in srgb, var(--vscode-charts-blue, #1a85ff) 70%, var(--pi-bg)); }
      .c-context-files { background: color-mix(in srgb, var(--vscode-charts-blue, #1a85ff) 50%, var(--pi-bg)); }
      .c-memory, .c-user-profile { background: color-mix(in srgb, var(--vscode-charts-blue, #1a85ff) 35%, var(--pi-bg)); }
      .c-session { background: color-mix(in srgb, var(--vscode-charts-blue, #1a85ff) 20%, var(--pi-bg)); }
      .c-tools { background: var(--vscode-charts-purple, #652d90); }
      .c-history.c-user { background: var(--vscode-charts-green, #388a34); }
      .c-history.c-assistant { background: color-mix(in srgb, var(--vscode-charts-green, #388a34) 55%, var(--pi-bg)); }
      .c-history.c-tool, .c-history.c-other { background: var(--vscode-charts-yellow, #bf8803); }
      .c-notes { background: var(--vscode-charts-orange, #d18616); }
      .c-notes.c-plugin { background: color-mix(in srgb, var(--vscode-charts-orange, #d18616) 70%, var(--pi-bg)); }
      .c-notes.c-gateway-note, .c-notes.c-surface-note { background: color-mix(in srgb, var(--vscode-charts-orange, #d18616) 50%, var(--pi-bg)); }
      .c-notes.c-multimodal-note { background: color-mix(in srgb, var(--vscode-charts-orange, #d18616) 30%, var(--pi-bg)); }
      .c-current-user { background: var(--pi-fg); }
    `,
  ];

  private bar(categories: Record<string, number>, what: string) {
    const entries = Object.entries(categories);
    const sum = entries.reduce((n, [, v]) => n + v, 0);
    if (sum === 0) return nothing;
    return html`<div class="bar" role="img" aria-label=${`${what}: ${entries.map(([k, v]) => `${categoryLabel(k)} ${percentOf(v, sum)}`).join(', ')}`}>
      ${entries.map(([k, v]) => html`<span class=${swatch(k)} ${styleProps({ width: `${(v / sum) * 100}%` })} title=${`${categoryLabel(k)}: ${num(v)} tokens (${percentOf(v, sum)})`}></span>`)}
    </div>`;
  }

  render() {
    const r = this.request;
    if (!r) return html`<span class="label">loading…</span>`;
    const sum = Object.values(r).reduce((n, v) => n + v, 0);
    const tools = Object.entries(r).reduce((n, [k, v]) => n + (k.startsWith('tools/') ? v : 0), 0);
    // The bill's prompt holds the tool schemas too: our split, scaled to its sum.
    const billed = this.billed === null ? null : scaledTo(r, this.billed);
    return html`
      <span class="label">this request: ${num(sum)} tokens by our count${tools ? `, ${num(tools)} of them tool schemas${this.schemasBilled ? '' : ' (not in its input count)'}` : ''}${
        billed ? html`; billed ${num(this.billed as number)}: each share scaled to the bill (≈ billed, our split)` : nothing
      }</span>
      ${this.bar(r, 'this request')}
      ${
        this.total && this.requests > 1
          ? html`<span class="label">all ${num(this.requests)} requests here together</span>${this.bar(this.total, 'all requests')}`
          : nothing
      }
      <table data-categories>
        ${billed ? html`<tr class="label"><td></td><td class="n">ours</td><td class="n">≈ billed</td><td></td></tr>` : nothing}
        ${Object.entries(r).map(
          ([k, v]) =>
            html`<tr data-category=${k}><td><span class="sw ${swatch(k)}"></span>${categoryLabel(k)}</td><td class="n">${num(v)}</td>${
              billed ? html`<td class="n" data-billed-share>${num(billed[k])}</td>` : nothing
            }<td class="n">${percentOf(v, sum)}</td></tr>`,
        )}
      </table>
    `;
  }
}

customElements.define('category-bar', CategoryBar);
