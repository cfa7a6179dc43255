// An agent's project (docs/recorded.md "Finding them"): its sessions newest first, each with the
// figures its file records (turns, calls, the share read from the cache, what was written, cost,
// misses, compactions, subagents), filled in as the host reads them. A row chosen (click or Enter)
// asks the host to open that session in an inspector. The rows come from the host: this only renders them.

import { css, html, LitElement, nothing } from 'lit';
import { property } from 'lit/decorators.js';
import { startedText, type AgentSessionRow } from '../src/shared/agentFolderTypes';
import type { AgentProjectView } from '../src/shared/messages';
import { num, plural, revealBidiControls, usd } from './format';
import { styleProps } from './style-props';
import { figuresPage, tokens } from './theme';

const AGENTS: Record<AgentProjectView['agent'], string> = { 'claude-code': 'Claude Code', codex: 'Codex' };

export class AgentProjectViewElement extends LitElement {
  @property({ attribute: false }) accessor project: AgentProjectView | null = null;

  static styles = [
    tokens,
    figuresPage,
    css`
      table { margin-top: 8px; }
      th { white-space: nowrap; }
      td { padding: 2px 6px; }
      td.title { overflow-wrap: anywhere; }
      tbody tr { cursor: pointer; }
      tbody tr:hover, tbody tr:focus { background: var(--pi-hover); outline: none; }
      tr.unread td.figures, tr.problem td.figures { color: var(--pi-muted); font-style: italic; }
      td.misses { color: var(--pi-warning); }
      .bar { width: 60px; }
    `,
  ];

  private open(row: AgentSessionRow): void {
    this.dispatchEvent(new CustomEvent<string>('open-transcript', { detail: row.path, bubbles: true, composed: true }));
  }

  private row(row: AgentSessionRow) {
    const f = row.figures;
    const title = html`<td class="title">${revealBidiControls(row.title ?? row.id ?? row.path)}</td>`;
    const keys = (e: KeyboardEvent) => {
      if (e.key === 'Enter') this.open(row);
    };
    if (!f)
      return html`<tr class=${row.problem ? 'problem' : 'unread'} tabindex="0" data-path=${row.path} @click=${() => this.open(row)} @keydown=${keys}>
        <td class="n">${startedText(row)}</td>
        ${title}
        <td class="figures" colspan="8">${row.problem ? `not read: ${revealBidiControls(row.problem)}` : 'reading…'}</td>
      </tr>`;
    const u = f.usage;
    return html`<tr class="read" tabindex="0" data-path=${row.path} @click=${() => this.open(row)} @keydown=${keys}>
      <td class="n">${startedText(row)}</td>
      ${title}
      <td class="n">${num(f.turns)}</td>
      <td class="n">${num(u.calls)}</td>
      <td class="n">
        ${
          u.hitRate === null
            ? 'not recorded'
            : html`<span class="bar"><span ${styleProps({ width: `${Math.round(u.hitRate * 100)}%` })}></span></span>${(u.hitRate * 100).toFixed(0)}%`
        }
      </td>
      <td class="n">${u.cacheWrite ? num(u.cacheWrite) : ''}</td>
      <td class="n">${u.costUsd === null ? 'not priced' : usd(u.costUsd)}</td>
      <td class="n misses">${f.misses ? `${num(f.misses)}${f.unexplainedMisses ? ` (${num(f.unexplainedMisses)} unexplained)` : ''}` : ''}</td>
      <td class="n">${f.compactions || ''}</td>
      <td class="n">${f.sessions > 1 ? num(f.sessions - 1) : ''}</td>
    </tr>`;
  }

  render() {
    const p = this.project;
    if (!p) return nothing;
    const read = p.rows.filter((r) => r.figures !== null || r.problem !== null).length;
    const figures = p.rows.flatMap((r) => (r.figures ? [r.figures] : []));
    const sum = (f: (x: (typeof figures)[number]) => number | null): number => figures.reduce((n, x) => n + (f(x) ?? 0), 0);
    const input = sum((x) => (x.usage.cacheRead === null ? null : x.usage.input));
    const cost = figures.some((x) => x.usage.costUsd !== null) ? sum((x) => x.usage.costUsd) : null;
    return html`<h1>${AGENTS[p.agent]} <span class="of">· ${revealBidiControls(p.project)}</span></h1>
      <div class="line">
        <span><b>${plural(p.rows.length, 'session')}</b>, newest first</span>
        ${read < p.rows.length ? html`<span role="status">reading ${num(read)} of ${num(p.rows.length)}…</span>` : nothing}
        <span><b>${num(sum((x) => x.usage.calls))}</b> calls</span>
        ${input ? html`<span><b>${((sum((x) => x.usage.cacheRead) / input) * 100).toFixed(1)}%</b> read from the cache</span>` : nothing}
        ${cost === null ? nothing : html`<span><b>${usd(cost)}</b></span>`}
        ${p.folder ? html`<span>${revealBidiControls(p.folder)}</span>` : nothing}
      </div>
      <table>
        <thead>
          <tr><th>started</th><th>session</th><th>turns</th><th>calls</th><th>read from cache</th><th>written</th><th>cost</th><th>misses</th><th>compactions</th><th>subagents</th></tr>
        </thead>
        <tbody>
          ${p.rows.map((r) => this.row(r))}
        </tbody>
      </table>`;
  }
}

customElements.define('agent-project-view', AgentProjectViewElement);
