// The compaction that ran before the selected turn: sizes before → after, whether the agent counted
// it as progress and why, which preflight gate branch let it run, where the current user message
// was re-anchored, the summary carrier and the rows it dropped.

import { css, html, LitElement, nothing } from 'lit';
import { property } from 'lit/decorators.js';
import '@vscode-elements/elements/dist/vscode-collapsible/index.js';
import type { CompactionView, TurnView } from '../src/shared/messages';
import { delta, num, percentOf } from './format';
import { tokens } from './theme';

const GATE: Record<NonNullable<CompactionView['gateBranch']>, string> = {
  count: 'row count: the list had more rows than protect-first + protect-last + 1 (3 + 20 + 1 by default)',
  chars: 'char-based estimate: the rough token estimate reached the compaction threshold',
};

const ROW_CHANGE: Record<NonNullable<CompactionView['userRowChange']>, string> = {
  'todo-merged': 'the compaction folded the todo snapshot into this turn\u2019s user row',
  projected: 'the user row was stored as text before and as its part list after (images as placeholders)',
};

const REANCHOR: Record<string, string> = {
  'typed-index': 'the turn carried a valid index of its user row, and it was used as is',
  exact: 'the last user row whose content equals this turn\u2019s user message',
  'live-view': 'a merged row whose live (user-originated) view equals this turn\u2019s user message',
  fallback: 'no row matched: the last user row was taken instead',
  none: 'no user row is left: the turn has no anchor',
};

export class CompactionPanel extends LitElement {
  /** Which estimate the preflight compared with its threshold (the agent's log read beside the transcript). */
  private estimate(c: CompactionView) {
    const e = c.estimate;
    if (!e) return html`<b>not recorded</b> <span class="muted">— no agent.log read beside this transcript</span>`;
    const logged = e.logged
      ? html` · the agent logged <b>~${num(e.logged.tokens)}</b> ≥ ${num(e.logged.threshold)} threshold`
      : html` · <span class="muted">no preflight line in the log</span>`;
    if (e.method === 'rough')
      return html`<b>rough</b> ~${num(e.tokens ?? 0)} <span class="muted">— no anchor held (no earlier answered call in the lineage, or the rows it priced changed): the request\u2019s rough estimate</span>${logged}`;
    if (e.tokens === null || !e.anchor)
      return html`<b>anchored</b> <span class="muted">— the rows say the anchor held; its call\u2019s billed usage is not recorded</span>${logged}`;
    return html`<b>anchored</b> ~${num(e.tokens)} <span class="muted">— request #${e.anchor.request}\u2019s billed ${num(e.anchor.input)} prompt + ${num(e.anchor.output)} completion tokens, plus the rough rows since</span>${logged}`;
  }

  @property({ attribute: false }) accessor turn: TurnView | null = null;

  static styles = [
    tokens,
    css`
    :host { display: block; }
    .body { padding: 4px 12px 10px; display: grid; grid-template-columns: minmax(0, 1fr); gap: 8px; }
    table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
    th { text-align: left; font-weight: normal; color: var(--pi-muted); padding: 1px 8px 1px 0; white-space: nowrap; }
    td { padding: 1px 8px 1px 0; white-space: nowrap; }
    td.d { color: var(--pi-muted); width: 100%; }
    .bars { display: grid; grid-template-columns: auto 1fr; gap: 2px 6px; align-items: center; font-size: 11px; color: var(--pi-muted); }
    .meter { display: block; background: var(--pi-code-bg); }
    .fill { fill: var(--vscode-charts-blue, #1a85ff); }
    .verdict { display: flex; gap: 6px; align-items: baseline; flex-wrap: wrap; }
    .rule, .explain { color: var(--pi-muted); font-size: 12px; margin: 0; }
    dl { margin: 0; display: grid; grid-template-columns: auto 1fr; gap: 3px 10px; }
    dt { color: var(--pi-muted); }
    dd { margin: 0; overflow-wrap: anywhere; }
    .idx { font-weight: 600; font-variant-numeric: tabular-nums; }
    pre.carrier {
      margin: 0; max-height: 16em; overflow: auto; padding: 4px 6px; white-space: pre-wrap; overflow-wrap: anywhere;
      font-family: var(--pi-mono); font-size: var(--pi-mono-size); background: var(--pi-code-bg); border-radius: 2px;
    }
    ol { margin: 0; padding: 0 0 0 3.2ch; display: grid; gap: 1px; font-size: 12px; }
    li { overflow-wrap: anywhere; }
    li::marker { color: var(--pi-muted); }
    .role { font-weight: 600; margin-right: 4px; }
    h3 { margin: 0 0 2px; font-size: 12px; font-weight: 600; }
  `,
  ];

  private verdict(c: CompactionView) {
    const fewer = c.afterMessages < c.beforeMessages;
    const share = c.beforeRoughTokens > 0 ? c.afterRoughTokens / c.beforeRoughTokens : 1;
    const why = [
      `${fewer ? '✓' : '✗'} rows ${num(c.afterMessages)} ${fewer ? '<' : '≥'} ${num(c.beforeMessages)}`,
      `${share < 0.95 ? '✓' : '✗'} rough tokens at ${percentOf(c.afterRoughTokens, c.beforeRoughTokens)} of before (${share < 0.95 ? '<' : '≥'} 95 %)`,
    ];
    return html`
      <div class="verdict" data-progress=${c.madeProgress ? 'yes' : 'no'}>
        <span class="chip solid ${c.madeProgress ? 'ok' : 'warn'}">${c.madeProgress ? 'made progress' : 'no progress'}</span>
        <span>${why.join(' · ')}</span>
      </div>
      <p class="rule">A pass counts as progress when it leaves fewer rows, or rough tokens below 95 % of before.</p>`;
  }

  /** A token bar as SVG: sized by attributes, since the page's CSP allows no inline styles. */
  private bar(percent: number) {
    return html`<svg class="meter" width="100%" height="8"><rect class="fill" x="0" y="0" width="${Math.min(100, Math.max(0, percent))}%" height="8"></rect></svg>`;
  }

  private row(label: string, title: string, before: number, after: number) {
    return html`<tr><th scope="row" title=${title}>${label}</th><td>${num(before)} → <b>${num(after)}</b></td>
      <td class="d">${delta(after - before)} (${before > 0 ? `${delta(Math.round(((after - before) / before) * 1000) / 10)} %` : '—'})</td></tr>`;
  }

  render() {
    const c = this.turn?.compression;
    if (!c || !this.turn) return nothing;
    return html`
      <vscode-collapsible open heading="Compaction" description="before turn ${this.turn.index} · ${c.mode}">
        <div class="body">
          <table aria-label="Before and after">
            ${this.row('rows', 'Messages in the list', c.beforeMessages, c.afterMessages)}
            ${this.row('exact tokens', 'Exact tokens, counted with the tokenizer', c.beforeTokens, c.afterTokens)}
            ${this.row('rough tokens', 'The agent\u2019s own rough estimate, which decides compaction', c.beforeRoughTokens, c.afterRoughTokens)}
          </table>
          <p class="explain" data-token-kinds>Exact: counted with the tokenizer. Rough: the agent\u2019s own estimate, the one its compaction rules judge.</p>
          <div class="bars" aria-hidden="true">
            <span>before</span>${this.bar(100)}
            <span>after</span>${this.bar(c.beforeTokens > 0 ? (c.afterTokens / c.beforeTokens) * 100 : 0)}
          </div>
          ${this.verdict(c)}
          <dl>
            <dt>gate branch</dt><dd data-gate>${
              c.gateBranch === null
                ? html`<b>not recorded</b> <span class="muted">— neither the transcript nor the agent\u2019s log records the gate\u2019s threshold</span>`
                : html`<b>${c.gateBranch}</b> <span class="muted">— ${GATE[c.gateBranch]}</span>`
            }</dd>
            <dt>estimate</dt><dd data-estimate>${this.estimate(c)}</dd>
            <dt>re-anchor</dt>
            <dd data-reanchor>user message index <span class="idx">${c.reanchor.before}</span> → <span class="idx">${c.reanchor.after}</span>
              · rule <b>${c.reanchor.rule}</b> <span class="muted">— ${c.reanchor.confirmed ? 'no row matched the words exactly; the last user row taken instead is this turn\u2019s own row, rewritten by the compaction' : (REANCHOR[c.reanchor.rule] ?? 'rule not known to this view')}</span></dd>
            ${c.userRowChange ? html`<dt>user row</dt><dd data-user-row-change><b>${c.userRowChange}</b> <span class="muted">— ${ROW_CHANGE[c.userRowChange]}${c.sidecarDropped ? '; its api_content sidecar was dropped, so the requests after it send the row without its injected context' : ''}</span></dd>` : nothing}
          </dl>
          <div>
            <h3>Summary carrier</h3>
            ${c.carrier === null ? html`<p class="explain">The compacted list has no summary carrier.</p>` : html`<pre class="carrier">${c.carrier}</pre>`}
          </div>
          <div>
            <h3>Dropped rows (${num(c.dropped.length)})</h3>
            ${c.dropped.length === 0 ? html`<p class="explain">None.</p>` : html`<ol>${c.dropped.map((d) => html`<li><span class="role">${d.role}</span>${d.preview}</li>`)}</ol>`}
          </div>
        </div>
      </vscode-collapsible>`;
  }
}
customElements.define('compaction-panel', CompactionPanel);
