// The top line: what is open and how it was analysed, then the transcript in numbers; in a file of
// several lineages, the way back to the session overview.

import { css, html, LitElement, nothing } from 'lit';
import { property } from 'lit/decorators.js';
import '@vscode-elements/elements/dist/vscode-icon/index.js';
import { piEvent } from './events';
import type { IndexModel } from './index-model';
import { num, plural, revealBidiControls, usd } from './format';
import { tokens } from './theme';

export class SummaryHeader extends LitElement {
  @property({ attribute: false }) accessor model: IndexModel | null = null;
  /** The file has a session overview to go back to. */
  @property({ type: Boolean }) accessor back = false;
  /** The lineage open from the overview, as named there; null on a file of one lineage. */
  @property({ attribute: false }) accessor lineage: string | null = null;

  static styles = [
    tokens,
    css`
    :host { display: block; padding: 6px 12px 7px; border-bottom: 1px solid var(--pi-border); }
    .line { display: flex; flex-wrap: wrap; align-items: baseline; gap: 2px 14px; min-width: 0; }
    button.back {
      font: inherit; cursor: pointer; padding: 0 8px; height: 22px; border-radius: 2px;
      color: var(--vscode-button-secondaryForeground, var(--pi-fg)); background: var(--vscode-button-secondaryBackground, var(--pi-hover));
      border: 1px solid var(--vscode-button-border, transparent);
    }
    button.back:hover { background: var(--vscode-button-secondaryHoverBackground, var(--pi-hover)); }
    button.back:focus-visible { outline: 1px solid var(--pi-focus); outline-offset: 1px; }
    h1 { margin: 0; font-size: 13px; font-weight: 600; overflow-wrap: anywhere; }
    h1 .of { font-weight: 400; color: var(--pi-muted); }
    dl { display: flex; flex-wrap: wrap; gap: 2px 12px; margin: 0; }
    dt { display: inline; color: var(--pi-muted); }
    dd { display: inline; margin: 0 0 0 4px; font-weight: 600; }
    .summary { margin-top: 3px; display: flex; flex-wrap: wrap; gap: 2px 14px; color: var(--pi-muted); }
    .summary b { color: var(--pi-fg); font-weight: 600; }
    .summary .breaks b { color: var(--pi-error); }
    .summary .counters.differ b { color: var(--pi-warning); }
    .summary .unexplained { color: var(--pi-warning); }
    .sev { display: inline-flex; align-items: center; gap: 3px; }
    .sev vscode-icon { vertical-align: middle; }
    .sev.error { --vscode-icon-foreground: var(--pi-error); }
    .sev.warning { --vscode-icon-foreground: var(--pi-warning); }
    .sev.info { --vscode-icon-foreground: var(--pi-info); }
  `,
  ];

  /** The agent's own call count beside the replay's, for the sessions whose store keeps one. */
  private counters() {
    const kept = (this.model?.index.sessions ?? []).filter((s) => s.recordedApiCalls !== null);
    if (!kept.length)
      return html`<span class="counters" title="The transcript does not record the agent's own call count">API calls recorded: not recorded</span>`;
    const recorded = kept.reduce((n, s) => n + (s.recordedApiCalls as number), 0);
    const replayed = kept.reduce((n, s) => n + s.replayedRequests, 0);
    return html`<span class="counters ${recorded === replayed ? '' : 'differ'}" title="sessions.api_call_count beside the requests the replay found in the same sessions">API calls recorded by the agent <b>${recorded}</b>, replayed <b>${replayed}</b></span>`;
  }

  /** The bill beside the replay (docs/billing.md): how many requests a log line matched, and the misses. */
  private billing() {
    const b = this.model?.index.summary.billing;
    if (!b) return nothing;
    const misses = Object.values(b.misses).reduce((n, k) => n + (k ?? 0), 0);
    const unexplained = b.misses.unexplained ?? 0;
    const classes = Object.entries(b.misses)
      .map(([c, k]) => `${c} ${k}`)
      .join(', ');
    return html`<span data-billing title=${`${plural(b.logs, 'agent.log file')}, ${plural(b.calls, 'call line')}; misses by class: ${classes || 'none'}`}>billed: <b>${num(b.matched)}</b> of ${plural(this.model?.index.requestCount ?? 0, 'request')} · <b>${usd(b.usd)}</b> · ${
      misses
        ? html`<b class=${unexplained ? 'unexplained' : ''}>${plural(misses, 'cache miss', 'cache misses')}</b>${unexplained ? html` (${num(unexplained)} unexplained)` : nothing}, ${usd(b.missUsd)} more than hits`
        : 'no cache misses'
    }</span>`;
  }

  render() {
    const m = this.model;
    if (!m) return html``;
    const x = m.index;
    const breaks = m.breakCount;
    const compactions = x.summary.compactions;
    const count = (s: 'error' | 'warning' | 'info'): number => x.summary.findings[s];
    return html`
      <div class="line">
        ${
          this.back
            ? html`<button class="back" title="Back to the sessions overview (Backspace, Alt+Left)" @click=${() => this.dispatchEvent(piEvent('pi-back', null))}>← Sessions</button>`
            : nothing
        }
        <h1 title=${revealBidiControls(x.source.path)}>
          ${
            this.lineage === null
              ? revealBidiControls(x.title)
              : html`<span data-lineage>${revealBidiControls(this.lineage)}</span> <span class="of">— ${revealBidiControls(x.title)}</span>`
          }
        </h1>
        <dl aria-label="Analysis">
          <div><dt>format</dt><dd>${x.source.format}</dd></div>
          <div><dt>profile</dt><dd>${x.profile}</dd></div>
          <div><dt>tokenizer</dt><dd>${x.tokenizer}</dd></div>
        </dl>
      </div>
      <div class="summary" aria-label="Summary">
        <span><b>${plural(x.sessions.length, 'session')}</b></span>
        <span><b>${plural(x.turnCount, 'turn')}</b></span>
        <span><b>${plural(x.requestCount, 'request')}</b></span>
        <span class="breaks">${breaks ? html`<b>${plural(breaks, 'cache break')}</b>` : 'no cache breaks'}</span>
        <span>${plural(compactions, 'compaction')}</span>
        ${this.counters()}
        ${this.billing()}
        <span class="findings" aria-label="Findings by severity">
          ${(['error', 'warning', 'info'] as const).map(
            (s) => html`
            <span class="sev ${s}" title=${`${s} findings`}><vscode-icon name=${s}></vscode-icon>${plural(count(s), s, s === 'info' ? 'info' : `${s}s`)}</span>`,
          )}
        </span>
      </div>
    `;
  }
}
customElements.define('summary-header', SummaryHeader);
