// The inspector page: owns the protocol conversation and the selection, lays out the parts, and
// turns keys and host commands into steps. Components below it only render and send pi-select.

import { css, html, LitElement, nothing } from 'lit';
import {
  PROTOCOL_VERSION, RpcClient,
  type InspectorIndex, type Navigation, type ToWebview, type Transport, type UiState,
} from '../src/protocol';
import './cache-panel';
import type { ContextState } from './cache-panel';
import './compaction-panel';
import type { SelectDetail } from './events';
import './findings-list';
import { MessagePages } from './message-pages';
import './message-list';
import { NO_REQUEST, restore, selectRequest, selectTurn, step } from './navigation';
import './request-bar';
import './summary-header';
import { tokens } from './theme';
import './token-timeline';
import './turn-stepper';

/** Where the page remembers the selection for itself (the VS Code webview state). */
export interface Memory {
  load(): UiState | null;
  save(state: UiState): void;
}

const KEYS: Record<string, Navigation> = {
  j: 'nextTurn', k: 'previousTurn',
  J: 'nextRequest', K: 'previousRequest', n: 'nextRequest', p: 'previousRequest',
  b: 'nextBreak',
};

export class InspectorApp extends LitElement {
  static properties = {
    index: { state: true },
    sel: { state: true },
    pagesVersion: { state: true },
    openKey: { state: true },
    problem: { state: true },
    announcement: { state: true },
  };
  declare index: InspectorIndex | null;
  declare sel: UiState;
  declare pagesVersion: number;
  declare openKey: number;
  declare problem: string | null;
  declare announcement: string;

  /** Set by main.ts before the first update. */
  transport: Transport | null = null;
  memory: Memory | null = null;
  canCopy = true;

  private rpc: RpcClient | null = null;
  private pages: MessagePages | null = null;
  private readonly contexts = new Map<number, ContextState>();
  private posted = '';

  constructor() {
    super();
    this.index = null;
    this.sel = { turn: 0, request: NO_REQUEST, firstVisibleMessage: 0 };
    this.pagesVersion = 0;
    this.openKey = 0;
    this.problem = null;
    this.announcement = '';
  }

  static styles = [tokens, css`
    :host {
      display: grid; height: 100vh; overflow: hidden;
      grid-template-columns: minmax(200px, 250px) minmax(0, 1fr) minmax(300px, 380px);
      grid-template-rows: auto auto minmax(0, 1fr);
      grid-template-areas: 'head head head' 'turns chart chart' 'turns main side';
      background: var(--pi-bg);
    }
    summary-header { grid-area: head; }
    turn-stepper { grid-area: turns; border-right: 1px solid var(--pi-border); }
    token-timeline { grid-area: chart; }
    .main { grid-area: main; display: flex; flex-direction: column; min-height: 0; min-width: 0; }
    message-list { flex: 1; min-height: 0; }
    .side { grid-area: side; overflow-y: auto; border-left: 1px solid var(--pi-border); background: var(--pi-side-bg); min-width: 0; }
    .waiting { grid-column: 1 / -1; grid-row: 1 / -1; padding: 24px; color: var(--pi-muted); }
    .waiting.problem { color: var(--pi-error); }
    /* Narrow panels: one column, the page scrolls, the message list keeps a height to virtualise in. */
    @media (max-width: 860px) {
      :host {
        height: auto; min-height: 100vh; overflow: visible;
        grid-template-columns: minmax(0, 1fr); grid-template-rows: none;
        grid-template-areas: 'head' 'chart' 'turns' 'main' 'side';
      }
      turn-stepper { max-height: 30vh; border-right: 0; border-bottom: 1px solid var(--pi-border); }
      .main { height: 75vh; }
      .side { overflow: visible; border-left: 0; border-top: 1px solid var(--pi-border); }
    }
  `];

  connectedCallback(): void {
    super.connectedCallback();
    window.addEventListener('keydown', this.onKey);
  }

  disconnectedCallback(): void {
    window.removeEventListener('keydown', this.onKey);
    super.disconnectedCallback();
  }

  protected firstUpdated(): void {
    const transport = this.transport;
    if (!transport) {
      this.problem = 'No host to talk to: the inspector page was opened without its transport.';
      return;
    }
    const rpc = new RpcClient(transport);
    this.rpc = rpc;
    this.pages = new MessagePages(
      (request, start, count) => rpc.call('messages', { request, start, count }),
      () => { this.pagesVersion++; },
    );
    transport.onMessage((m) => this.receive(m));
    transport.post({ type: 'ready', version: PROTOCOL_VERSION });
  }

  private receive(m: ToWebview): void {
    if (this.rpc?.handle(m)) return;
    switch (m.type) {
      case 'init':
        if (m.version !== PROTOCOL_VERSION) {
          this.problem = `This view speaks protocol ${PROTOCOL_VERSION} but its host speaks ${m.version}: reload the window.`;
          return;
        }
        this.index = m.index;
        this.sel = restore(m.index, m.state ?? this.memory?.load() ?? null);
        this.openKey++;
        this.selectionChanged(false);
        return;
      case 'update': {
        if (!this.index) return;
        const before = this.sel;
        this.index = m.index;
        this.pages?.invalidate();
        this.contexts.clear();
        this.sel = restore(m.index, before);
        // Same request still there: the list keeps its scroll; otherwise open the new place.
        if (this.sel.request !== before.request || this.sel.turn !== before.turn) this.openKey++;
        this.selectionChanged(this.sel.request !== before.request || this.sel.turn !== before.turn);
        return;
      }
      case 'navigate':
        this.go(m.to);
        return;
      case 'response':
        return;
    }
  }

  private go(to: Navigation): void {
    if (!this.index) return;
    this.moveTo(step(this.index, this.sel, to));
  }

  private moveTo(next: UiState): void {
    if (next.turn === this.sel.turn && next.request === this.sel.request) return;
    this.sel = next;
    this.openKey++;
    this.selectionChanged(true);
  }

  /** After any selection: tell the host (it persists), remember, announce, fetch what a break needs. */
  private selectionChanged(announce: boolean): void {
    this.report();
    const x = this.index;
    if (!x) return;
    const r = x.requests[this.sel.request];
    if (r && !r.stable && !this.contexts.has(r.index) && this.rpc) {
      this.contexts.set(r.index, 'loading');
      this.rpc.call('breakContext', { request: r.index }).then(
        (c) => { this.contexts.set(r.index, c); this.requestUpdate(); },
        (e: unknown) => { this.contexts.set(r.index, e instanceof Error ? e : new Error(String(e))); this.requestUpdate(); },
      );
    }
    if (announce) {
      const t = x.turns[this.sel.turn];
      const status = !r ? 'no request' : r.stable ? 'stable prefix' : `cache break, ${r.breakAt?.cause ?? ''}`;
      this.announcement = `Turn ${this.sel.turn} of ${x.turns.length}${t ? `: ${t.title}` : ''}. Request ${r ? `#${r.index}` : 'none'}, ${status}.`;
    }
  }

  private report(): void {
    const state = { ...this.sel };
    const key = JSON.stringify(state);
    if (key === this.posted || !this.index) return;
    this.posted = key;
    this.transport?.post({ type: 'selected', state });
    this.memory?.save(state);
  }

  private onSelect(e: CustomEvent<SelectDetail>): void {
    if (!this.index) return;
    const d = e.detail;
    if (d.request !== undefined) this.moveTo(selectRequest(this.index, d.request));
    else if (d.turn !== undefined) this.moveTo(selectTurn(this.index, d.turn));
  }

  private onScroll(e: CustomEvent<number>): void {
    if (e.detail === this.sel.firstVisibleMessage) return;
    this.sel = { ...this.sel, firstVisibleMessage: e.detail };
    this.report();
  }

  private onCopy(e: CustomEvent<number>): void {
    if (e.detail >= 0) this.transport?.post({ type: 'copyRequest', request: e.detail });
  }

  /** Letters work anywhere but in text fields; bare arrows only when nothing else takes them. */
  private readonly onKey = (e: KeyboardEvent): void => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || !this.index) return;
    const target = e.composedPath()[0];
    if (target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
    const idle = target === document.body || target === document.documentElement || target === this;
    const to = KEYS[e.key] ?? (idle ? ({ ArrowDown: 'nextTurn', ArrowUp: 'previousTurn' } as Record<string, Navigation>)[e.key] : undefined);
    if (!to) return;
    e.preventDefault();
    this.go(to);
  };

  render() {
    const x = this.index;
    if (this.problem) return html`<div class="waiting problem" role="alert">${this.problem}</div>`;
    if (!x) return html`<div class="waiting" role="status">Waiting for the transcript…</div>`;
    const { turn, request } = this.sel;
    const t = x.turns[turn] ?? null;
    return html`
      <summary-header .index=${x}></summary-header>
      <turn-stepper .index=${x} .selected=${turn} @pi-select=${this.onSelect}></turn-stepper>
      <token-timeline .index=${x} .turn=${turn} .request=${request} @pi-select=${this.onSelect}></token-timeline>
      <section class="main" aria-label="Messages">
        <request-bar .index=${x} .turn=${turn} .request=${request} .canCopy=${this.canCopy}
          @pi-select=${this.onSelect} @pi-copy=${this.onCopy}></request-bar>
        <message-list .index=${x} .pages=${this.pages} .turn=${turn} .request=${request}
          .pagesVersion=${this.pagesVersion} .openAt=${this.sel.firstVisibleMessage} .openKey=${this.openKey}
          @pi-scroll=${this.onScroll}></message-list>
      </section>
      <aside class="side" aria-label="Details" @pi-select=${this.onSelect}>
        ${t?.compression ? html`<compaction-panel .turn=${t}></compaction-panel>` : nothing}
        <cache-panel .index=${x} .request=${request} .context=${this.contexts.get(request)}></cache-panel>
        <findings-list .diagnostics=${x.diagnostics} .turn=${turn}></findings-list>
      </aside>
      <div class="sr-only" aria-live="polite" data-announcement>${this.announcement}</div>
    `;
  }
}
customElements.define('prompt-inspector-app', InspectorApp);
