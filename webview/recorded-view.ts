// Another agent's transcript as recorded (docs/recorded.md): what the format does not record, the
// totals, and per session its turns and calls: each call's prompt with the share read from the cache,
// the tokens written, a break located by message and byte, and a miss with its class. Compactions sit
// between the turns they separate. The report comes whole from the host: this only renders it.

import { css, html, LitElement, nothing } from 'lit';
import { property, state } from 'lit/decorators.js';
import './category-bar';
import type { RecordedCause, RecordedReport, RecordedReportCall, RecordedReportSession, UsageTotals } from '../src/shared/recordedReportTypes';
import { num, plural, revealBidiControls, usd } from './format';
import { styleProps } from './style-props';
import { figuresPage, tokens } from './theme';

const FORMATS: Record<RecordedReport['source']['format'], string> = {
  'claude-code': 'Claude Code session log',
  codex: 'Codex rollout',
  'api-capture': 'Recorded API traffic',
};

const NOT_RECORDED: [keyof RecordedReport['records'], string][] = [
  ['systemPrompt', 'system prompt'],
  ['tools', 'tool schemas'],
  ['requestBytes', 'request bytes'],
  ['billedUsage', 'billed usage'],
  ['compactions', 'compactions'],
];

const CAUSES: Record<RecordedCause, string> = {
  compression: 'after a compaction',
  'system-changed': 'system prompt changed',
  'settings-changed': 'turn settings changed',
  'tools-changed': 'tools changed',
  'history-rewritten': 'history rewritten',
};

const PROMPT_SHOWN = 90;

function usageLine(u: UsageTotals) {
  return html`<span><b>${plural(u.calls, 'call')}</b></span>
    ${u.input === null ? nothing : html`<span>prompts <b>${num(u.input)}</b> tokens</span>`}
    <span>${u.hitRate === null ? 'cache reads not recorded' : html`<b>${(u.hitRate * 100).toFixed(1)}%</b> read from the cache`}</span>
    ${u.cacheWrite ? html`<span><b>${num(u.cacheWrite)}</b> written to it</span>` : nothing}
    ${u.costUsd === null ? nothing : html`<span><b>${usd(u.costUsd)}</b>${u.unpriced ? ` (${plural(u.unpriced, 'call')} not priced)` : ''}</span>`}`;
}

function missText(c: RecordedReportCall): string {
  const m = c.cacheMiss;
  if (!m) return '';
  const why =
    m.class === 'predicted'
      ? CAUSES[m.cause]
      : m.class === 'expired'
        ? `expired (idle ${num(Math.round(m.idleSeconds ?? 0))} s > ${num(m.lifetimeSeconds ?? 0)} s)`
        : m.class;
  const after = c.after ? `; answering the ${c.after.what} at line ${c.after.line}` : '';
  return `miss: ${num(m.rebilledTokens)} tokens billed again, ${why}${after}`;
}

export class RecordedView extends LitElement {
  @property({ attribute: false }) accessor report: RecordedReport | null = null;

  static styles = [
    tokens,
    figuresPage,
    css`
      h2 { font-size: 12px; font-weight: 600; margin: 14px 0 4px; overflow-wrap: anywhere; }
      h2 .kind { font-weight: 400; color: var(--pi-muted); }
      .not-recorded { margin-top: 4px; color: var(--pi-muted); }
      .not-recorded b { color: var(--pi-warning); font-weight: 600; }
      tr.turn td { padding-top: 6px; font-weight: 600; overflow-wrap: anywhere; }
      tr.compaction td { color: var(--pi-info); font-style: italic; padding: 4px 6px; }
      tr.miss td.status { color: var(--pi-warning); }
      tr.break td.status { color: var(--pi-error); }
      .status { overflow-wrap: anywhere; }
      .where { margin: 6px 0 4px; max-width: 720px; }
      .where .what { color: var(--pi-muted); }
      .where .what b { color: var(--pi-fg); font-weight: 600; }
      .where category-bar { margin-top: 3px; }
      tr.counted { cursor: pointer; }
      tr.counted:hover, tr.counted:focus { background: var(--pi-hover); outline: none; }
    `,
  ];

  private stability(s: RecordedReportSession) {
    const hashes = s.turns.map((t) => t.systemPromptSha256);
    if (hashes.every((h) => h === null)) return nothing;
    const changed = hashes.flatMap((h, i) => (i > 0 && h !== hashes[i - 1] ? [i] : []));
    return html`<div class="line">
      <span>system prompt <b>${changed.length ? `changed at turn ${changed.join(', ')}` : 'byte-stable in every turn'}</b> (sha256 ${hashes[0]?.slice(0, 12) ?? '—'}…)</span>
    </div>`;
  }

  private callRow(c: RecordedReportCall) {
    const u = c.usage;
    const read = u?.cacheRead ?? null;
    const share = u?.input && read !== null ? read / u.input : null;
    // The bar's width through styleProps: the page's CSP refuses style attributes.
    const b = c.prefixBreak;
    const status = [
      b
        ? `break at ${b.part === 'messages' ? `message ${b.entry}` : `the ${b.part === 'system' ? 'system prompt' : 'tools'}`}, byte ${b.byte}: ${CAUSES[b.cause]}`
        : '',
      missText(c),
    ]
      .filter(Boolean)
      .join('; ');
    const chosen = c.categories !== null;
    return html`<tr
      class="call ${c.cacheMiss ? 'miss' : ''} ${b ? 'break' : ''} ${chosen ? 'counted' : ''}"
      data-call=${c.id}
      tabindex=${chosen ? 0 : nothing}
      @click=${() => this.choose(c)}
      @keydown=${(e: KeyboardEvent) => e.key === 'Enter' && this.choose(c)}
    >
      <td class="n">${c.ordinal + 1}</td>
      <td>${c.model ?? 'not recorded'}</td>
      <td class="n">${c.line ?? (c.entry === null ? '' : `entry ${c.entry}`)}</td>
      <td class="n">${u?.input === null || u === null ? 'not recorded' : num(u.input)}</td>
      <td class="n">${share === null ? 'not recorded' : html`<span class="bar"><span ${styleProps({ width: `${Math.round(share * 100)}%` })}></span></span>${(share * 100).toFixed(0)}%`}</td>
      <td class="n">${u?.cacheWrite ? num(u.cacheWrite) : ''}</td>
      <td class="n">${c.cost ? usd(c.cost.usd) : ''}</td>
      <td class="status">${status}</td>
    </tr>`;
  }

  /** The call whose tokens' categories each session shows, by session id: its last such call until one is chosen. */
  @state() private accessor chosen = new Map<string, string>();

  private choose(c: RecordedReportCall): void {
    if (c.categories) this.chosen = new Map(this.chosen).set(c.session, c.id);
  }

  /** Where the tokens of the chosen call go, beside the billed prompt; the session's calls together. */
  private categories(s: RecordedReportSession, calls: RecordedReportCall[]) {
    const counted = calls.filter((c) => c.categories);
    if (!s.categories || !counted.length) return nothing;
    const c = counted.find((k) => k.id === this.chosen.get(s.id)) ?? counted[counted.length - 1];
    return html`<div class="where" data-where=${c.id}>
      <div class="what">where the tokens of call <b>${c.ordinal + 1}</b> of turn <b>${c.turn}</b> go (a click on a call shows its own)</div>
      <category-bar .request=${c.categories!} .total=${s.categories} .requests=${counted.length} .billed=${c.usage?.input ?? null} .schemasBilled=${true}></category-bar>
    </div>`;
  }

  private session(s: RecordedReportSession, calls: RecordedReportCall[]) {
    return html`<section data-session=${s.id}>
      <h2>${s.id} <span class="kind">${s.kind}${s.parentId ? ` of ${s.parentId}` : ''}</span></h2>
      <div class="line">${usageLine(s.usage)}</div>
      ${this.stability(s)} ${this.categories(s, calls)}
      <table>
        <thead><tr><th>#</th><th>model</th><th>place</th><th>prompt</th><th>read from cache</th><th>written</th><th>cost</th><th>cache</th></tr></thead>
        <tbody>
          ${s.turns.map(
            (t, i) => html`${s.compactions
              .filter((k) => k.turn === i)
              .map(
                (k) =>
                  html`<tr class="compaction"><td colspan="8">compaction (${k.trigger ?? 'trigger not recorded'}) at line ${k.line ?? '?'}: ${k.preTokens === null ? 'size before not recorded' : `${num(k.preTokens)} tokens before`}</td></tr>`,
              )}
              <tr class="turn"><td colspan="8">turn ${i}: ${t.prompt ? revealBidiControls(t.prompt.length > PROMPT_SHOWN ? `${t.prompt.slice(0, PROMPT_SHOWN)}…` : t.prompt) : 'no new prompt of the user\u2019s'}${t.settingsChanged.length ? ` (settings changed: ${t.settingsChanged.join(', ')})` : ''}</td></tr>
              ${calls.filter((c) => c.turn === i).map((c) => this.callRow(c))}`,
          )}
        </tbody>
      </table>
    </section>`;
  }

  render() {
    const r = this.report;
    if (!r) return nothing;
    const missing = NOT_RECORDED.filter(([k]) => !r.records[k]).map(([, what]) => what);
    const name = r.source.path.split(/[\\/]/).pop() ?? r.source.path;
    return html`<h1>${revealBidiControls(name)} <span class="of">${FORMATS[r.source.format]}${r.source.agentVersion ? ` · ${r.source.agentVersion}` : ''}</span></h1>
      <div class="line">${plural(r.sessions.length, 'session')} ${usageLine(r.usage)}</div>
      ${
        missing.length
          ? html`<div class="not-recorded">Not recorded in this format: <b>${missing.join(', ')}</b>${r.records.requestBytes ? '' : '. A miss is located by call and time, not by byte.'}</div>`
          : nothing
      }
      ${r.sessions.map((s) =>
        this.session(
          s,
          r.calls.filter((c) => c.session === s.id),
        ),
      )}`;
  }
}

customElements.define('recorded-view', RecordedView);
