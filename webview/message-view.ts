// One wire message: header (index, role, tokens, substitution), its text with every injected span
// marked and labelled, stored-vs-sent for substituted rows, tool calls. Text only ever reaches the
// page through Lit text bindings, so transcript content cannot become markup.

import { css, html, LitElement, nothing } from 'lit';
import { property } from 'lit/decorators.js';
import '@vscode-elements/elements/dist/vscode-icon/index.js';
import type { MessageView as Message } from '../src/shared/messages';
import { piEvent } from './events';
import { cacheBreakpointLabel, KIND_LABEL, num } from './format';
import { changedRange, collapsePoint, segment, type Range } from './segments';
import { tokens } from './theme';

const COLLAPSED_LINES = 20;
const COLLAPSED_CHARS = 2400;

function prettyArguments(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args), null, 2);
  } catch {
    return args;
  }
}

export class MessageViewElement extends LitElement {
  @property({ attribute: false }) accessor message: Message | null = null;
  @property({ type: Boolean }) accessor expanded = false;
  /** The selected turn's own user message. */
  @property({ type: Boolean, reflect: true }) accessor current = false;
  /** Where this request's prefix first differs from the previous one's: a cache break, or where a compaction's re-billing starts. */
  @property({ reflect: true, attribute: 'break-here' }) accessor breakHere: 'break' | 'compaction' | 'rewind' | null = null;
  /** The path of the request dump whose body puts a cache breakpoint (cache_control) on this message, or null. */
  @property({ attribute: false }) accessor cacheBreakpoint: string | null = null;

  static styles = [
    tokens,
    css`
    :host { display: block; width: 100%; padding: 6px 12px 8px 10px; border-bottom: 1px solid var(--pi-border); border-left: 2px solid transparent; }
    :host([current]) { border-left-color: var(--pi-focus); background: color-mix(in srgb, var(--pi-focus) 5%, transparent); }
    :host([break-here='break']) { border-left-color: var(--pi-error); }
    :host([break-here='compaction']), :host([break-here='rewind']) { border-left-color: var(--pi-info); }
    header { display: flex; flex-wrap: wrap; align-items: center; gap: 2px 8px; margin-bottom: 3px; font-size: 12px; }
    .idx { color: var(--pi-muted); font-variant-numeric: tabular-nums; min-width: 3ch; }
    .role { font-weight: 600; text-transform: lowercase; }
    .role.system { color: var(--vscode-charts-purple, #652d90); }
    .role.user { color: var(--vscode-charts-blue, #1a85ff); }
    .role.assistant { color: var(--vscode-charts-green, #388a34); }
    .role.tool { color: var(--vscode-charts-orange, #d18616); }
    .tok { font-variant-numeric: tabular-nums; }
    .tok b { font-weight: 600; }
    .callid { color: var(--pi-muted); font-family: var(--pi-mono); font-size: 11px; overflow-wrap: anywhere; }
    pre {
      margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; word-break: normal;
      font-family: var(--pi-mono); font-size: var(--pi-mono-size); line-height: 1.5; tab-size: 4;
    }
    .empty { color: var(--pi-muted); font-style: italic; }
    mark { color: inherit; }
    mark.inj {
      background: color-mix(in srgb, var(--k) 13%, transparent);
      box-shadow: inset 0 -1px 0 color-mix(in srgb, var(--k) 70%, transparent);
      outline: 1px dotted var(--pi-hc); -webkit-box-decoration-break: clone; box-decoration-break: clone;
    }
    mark.changed { background: var(--pi-inserted); outline: 1px dashed var(--pi-hc); }
    .chip { margin-right: 3px; }
    /* A badge in the theme's badge colours (every role and kind colour is taken); a border in high contrast. */
    .chip.cache {
      --k: var(--vscode-badge-foreground, #3b3b3b); display: inline-flex; align-items: center; gap: 3px;
      background: var(--vscode-badge-background, #cccccc); border-color: var(--pi-hc);
    }
    .chip.cache vscode-icon { --vscode-icon-foreground: var(--k); display: inline-flex; }
    .sub { display: grid; gap: 3px; }
    .side-label { font-size: 11px; color: var(--pi-muted); display: flex; gap: 6px; align-items: center; }
    .stored, .sent { padding: 3px 6px; border-radius: 2px; background: var(--pi-code-bg); outline: 1px dashed var(--pi-hc); }
    .stored { color: var(--pi-muted); }
    .calls { margin-top: 4px; display: grid; gap: 3px; }
    .call { border-left: 2px solid var(--vscode-charts-orange, #d18616); padding: 1px 0 1px 8px; }
    .fn { font-family: var(--pi-mono); font-size: var(--pi-mono-size); font-weight: 600; }
    .more { margin-top: 3px; font-size: 12px; }
    .fade { color: var(--pi-muted); }
  `,
  ];

  private toggle(): void {
    if (this.message) this.dispatchEvent(piEvent('pi-expand', this.message.index));
  }

  /** Text with its spans marked, cut at `limit`; `changed` is the part added over the stored row. */
  private marked(text: string, m: Message, changed: Range | null, limit: number, placeholder: boolean) {
    if (text === '') return html`<span class="empty">(empty)</span>`;
    const runs = segment(text, m.injected, changed, limit);
    return html`${runs.map((r) => {
      if (r.kind) {
        return html`${r.spanStart ? html`<span class="chip k-${r.kind}" data-kind=${r.kind}>${KIND_LABEL[r.kind]}</span>` : nothing}<mark
          class="inj k-${r.kind}" data-kind=${r.kind}>${r.text}</mark>`;
      }
      if (r.changed && placeholder)
        return html`<span class="chip k-placeholder" data-kind="placeholder">placeholder</span><mark class="inj k-placeholder" data-kind="placeholder">${r.text}</mark>`;
      if (r.changed) return html`<mark class="changed">${r.text}</mark>`;
      return r.text;
    })}${limit < text.length ? html`<span class="fade">…</span>` : nothing}`;
  }

  private limit(text: string): number {
    return this.expanded ? text.length : collapsePoint(text, COLLAPSED_LINES, COLLAPSED_CHARS);
  }

  private body(m: Message) {
    if (m.substitution === null || m.storedText === null) {
      return html`<pre class="text">${this.marked(m.text, m, null, this.limit(m.text), false)}</pre>`;
    }
    const changed = changedRange(m.storedText, m.text);
    const stored = m.storedText;
    const size = changed ? changed[1] - changed[0] : 0;
    const appended = changed !== null && changed[0] === stored.length;
    return html`
      <div class="sub" data-substitution=${m.substitution}>
        <div class="side-label">stored row (what the transcript kept)</div>
        <pre class="stored">${stored === '' ? html`<span class="empty">(empty)</span>` : stored.slice(0, this.limit(stored))}${this.limit(stored) < stored.length ? html`<span class="fade">…</span>` : nothing}</pre>
        <div class="side-label">sent on the wire ${m.substitution === 'sidecar' ? `(api_content sidecar: ${num(size)} chars ${appended ? 'added' : 'differ'})` : '(interrupt placeholder for an empty row)'}</div>
        <pre class="sent">${this.marked(m.text, m, changed, this.limit(m.text), m.substitution === 'placeholder')}</pre>
      </div>`;
  }

  private isLong(m: Message): boolean {
    const long = (t: string): boolean => collapsePoint(t, COLLAPSED_LINES, COLLAPSED_CHARS) < t.length;
    return long(m.text) || (m.storedText !== null && long(m.storedText)) || m.toolCalls.some((c) => long(prettyArguments(c.arguments)));
  }

  render() {
    const m = this.message;
    if (!m) return nothing;
    const long = this.isLong(m);
    const cache = this.cacheBreakpoint === null ? null : cacheBreakpointLabel(this.cacheBreakpoint);
    return html`
      <article aria-label="Message ${m.index}, ${m.role}${cache ? `, ${cache}` : ''}">
        <header>
          <span class="idx">#${m.index}</span>
          <span class="role ${m.role}">${m.role}</span>
          <span class="tok" title="Exact tokens (tokenizer) and the agent's rough estimate">
            <b>${num(m.tokens)}</b> tok <span class="muted">· ~${num(m.roughTokens)} rough</span></span>
          ${m.substitution ? html`<span class="chip ${m.substitution === 'sidecar' ? 'compaction' : 'warn'}" data-badge="substitution">${m.substitution === 'sidecar' ? 'sidecar substituted' : 'placeholder'}</span>` : nothing}
          ${this.current ? html`<span class="chip solid compaction">this turn's user message</span>` : nothing}
          ${
            this.breakHere === 'break'
              ? html`<span class="chip solid break">cache break here</span>`
              : this.breakHere === 'compaction'
                ? html`<span class="chip solid compaction">compaction re-bills from here</span>`
                : this.breakHere === 'rewind'
                  ? html`<span class="chip solid compaction">rewind re-bills from here</span>`
                  : nothing
          }
          ${
            cache
              ? html`<span class="chip cache" data-badge="cache-breakpoint" role="img" aria-label=${cache} title=${cache}><vscode-icon
            name="bookmark" size="10"></vscode-icon>cache breakpoint</span>`
              : nothing
          }
          ${m.toolCallId ? html`<span class="callid">tool_call_id ${m.toolCallId}</span>` : nothing}
        </header>
        ${m.text === '' && m.toolCalls.length > 0 && m.substitution === null ? nothing : this.body(m)}
        ${
          m.toolCalls.length
            ? html`<div class="calls">${m.toolCalls.map((c) => {
                const args = prettyArguments(c.arguments);
                const cut = this.limit(args);
                return html`<div class="call"><span class="fn">${c.name}</span><pre>${args.slice(0, cut)}${cut < args.length ? html`<span class="fade">…</span>` : nothing}</pre></div>`;
              })}</div>`
            : nothing
        }
        ${long ? html`<button class="link more" @click=${this.toggle} aria-expanded=${this.expanded ? 'true' : 'false'}>${this.expanded ? 'Show less' : `Show all (${num(m.text.split('\n').length)} lines)`}</button>` : nothing}
      </article>`;
  }
}
customElements.define('message-view', MessageViewElement);
