// The inspector page: owns the protocol conversation and the selection, lays out the parts, and
// turns keys and host commands into steps. Components below it only render and send the events
// of events.ts.

import { css, html, LitElement, nothing } from 'lit';
import { state } from 'lit/decorators.js';
import {
  PROTOCOL_VERSION,
  type MessageView,
  type Navigation,
  type PagedList,
  type RequestMap,
  type ToWebview,
  type Transport,
  type UiState,
} from '../src/protocol/messages';
import { RpcClient } from '../src/protocol/rpc';
import './cache-panel';
import type { ContextState } from './cache-panel';
import './compaction-panel';
import './findings-list';
import { IndexModel } from './index-model';
import { AHEAD } from './message-list';
import { PREFIX_STATUS_LABEL } from './format';
import { NO_REQUEST, restore, selectRequest, selectTurn, step } from './navigation';
import { Pages, type Details } from './pages';
import { PagesController } from './pages-controller';
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
  j: 'nextTurn',
  k: 'previousTurn',
  J: 'nextRequest',
  K: 'previousRequest',
  n: 'nextRequest',
  p: 'previousRequest',
  b: 'nextBreak',
};

export class InspectorApp extends LitElement {
  @state() accessor model: IndexModel | null = null;
  @state() accessor sel: UiState = { turn: 0, request: NO_REQUEST, firstVisibleMessage: 0 };
  @state() accessor openKey = 0;
  @state() accessor problem: string | null = null;
  @state() accessor announcement = '';

  /** Set by main.ts before the first update. */
  transport: Transport | null = null;
  memory: Memory | null = null;
  canCopy = true;

  private rpc: RpcClient<RequestMap> | null = null;
  private pages: Pages<MessageView> | null = null;
  private details: Details | null = null;
  private readonly contexts = new Map<number, ContextState>();
  private posted = '';

  constructor() {
    super();
    // What the app itself shows of the details: a compaction (turns), the cache panel's (requests).
    this.addController(new PagesController(this, () => this.details?.turns));
    this.addController(new PagesController(this, () => this.details?.requests));
  }

  static styles = [
    tokens,
    css`
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
    .waiting-detail { margin: 0; padding: 8px 12px; color: var(--pi-muted); }
    /* Narrow panels: one column, the page scrolls, the message list keeps a height to virtualise in. */
    @media (max-width: 860px) {
      :host {
        height: auto; min-height: 100vh; overflow: visible;
        grid-template-columns: minmax(0, 1fr); grid-template-rows: none;
        grid-template-areas: 'head' 'chart' 'turns' 'main' 'side';
      }
      turn-stepper { height: 30vh; border-right: 0; border-bottom: 1px solid var(--pi-border); }
      .main { height: 75vh; }
      .side { overflow: visible; border-left: 0; border-top: 1px solid var(--pi-border); }
    }
  `,
  ];

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
    const rpc = new RpcClient<RequestMap>((request) => transport.post(request));
    this.rpc = rpc;
    this.pages = new Pages((request, start, count) => rpc.call('messages', { request, start, count }));
    const list = <M extends PagedList>(method: M, size: number) =>
      new Pages<RequestMap[M]['result'][number]>((_, start, count) => rpc.call(method, { start, count }), size);
    this.details = { turns: list('turns', 50), requests: list('requests', 100), findings: list('findings', 100) };
    transport.onMessage((m) => this.receive(m));
    transport.post({ type: 'ready', version: PROTOCOL_VERSION });
  }

  private receive(m: ToWebview): void {
    switch (m.type) {
      case 'init':
        if (m.version !== PROTOCOL_VERSION) {
          this.problem = `This view speaks protocol ${PROTOCOL_VERSION} but its host speaks ${m.version}: reload the window.`;
          return;
        }
        this.model = new IndexModel(m.index);
        this.sel = restore(this.model, m.state ?? this.memory?.load() ?? null);
        this.openKey++;
        this.selectionChanged(false);
        return;
      case 'update': {
        if (!this.model) return;
        const before = this.sel;
        this.model = new IndexModel(m.index);
        this.pages?.invalidate();
        const d = this.details;
        if (d) for (const list of [d.turns, d.requests, d.findings]) list.invalidate();
        this.contexts.clear();
        this.sel = restore(this.model, before);
        // Same request still there: the list keeps its scroll; otherwise open the new place.
        if (this.sel.request !== before.request || this.sel.turn !== before.turn) this.openKey++;
        this.selectionChanged(this.sel.request !== before.request || this.sel.turn !== before.turn);
        return;
      }
      case 'navigate':
        this.go(m.to);
        return;
      case 'response':
        this.rpc?.settle(m);
        return;
    }
  }

  private go(to: Navigation): void {
    if (!this.model) return;
    this.moveTo(step(this.model, this.sel, to));
  }

  private moveTo(next: UiState): void {
    if (next.turn === this.sel.turn && next.request === this.sel.request) return;
    this.prefetch(next);
    this.sel = next;
    this.openKey++;
    this.selectionChanged(true);
  }

  /**
   * Asks for what the new place shows before rendering it: the pages come back while the view
   * renders, instead of being asked for by the render and awaited after it.
   */
  private prefetch(at: UiState): void {
    const r = this.model?.request(at.request);
    if (!r || !this.details) return;
    this.pages?.ensure(r.index, at.firstVisibleMessage - AHEAD, at.firstVisibleMessage + AHEAD);
    this.details.turns.ensure(0, at.turn, at.turn);
    this.details.requests.ensure(0, r.index, r.index);
    if (r.previousRequest >= 0) this.details.requests.ensure(0, r.previousRequest, r.previousRequest);
  }

  /** After any selection: tell the host (it persists), remember, announce, fetch what a break needs. */
  private selectionChanged(announce: boolean): void {
    this.report();
    const x = this.model;
    if (!x) return;
    const r = x.request(this.sel.request);
    if (r && !r.stable && !this.contexts.has(r.index) && this.rpc) {
      this.contexts.set(r.index, 'loading');
      this.rpc.call('breakContext', { request: r.index }).then(
        (c) => {
          this.contexts.set(r.index, c);
          this.requestUpdate();
        },
        (e: unknown) => {
          this.contexts.set(r.index, e instanceof Error ? e : new Error(String(e)));
          this.requestUpdate();
        },
      );
    }
    if (announce) {
      const title = this.details?.turns.peek(0, this.sel.turn)?.title;
      const cause = r && x.breaks(r.index) ? this.details?.requests.peek(0, r.index)?.breakAt?.cause : undefined;
      const status = !r ? 'no request' : `${PREFIX_STATUS_LABEL[x.status(r.index)]}${cause ? `, ${cause}` : ''}`;
      this.announcement = `Turn ${this.sel.turn} of ${x.turnCount}${title ? `: ${title}` : ''}. Request ${r ? `#${r.index}` : 'none'}, ${status}.`;
    }
  }

  private report(): void {
    const state = { ...this.sel };
    const key = JSON.stringify(state);
    if (key === this.posted || !this.model) return;
    this.posted = key;
    this.transport?.post({ type: 'selected', state });
    this.memory?.save(state);
  }

  private onSelect(e: HTMLElementEventMap['pi-select']): void {
    if (!this.model) return;
    const d = e.detail;
    if (d.request !== undefined) this.moveTo(selectRequest(this.model, d.request));
    else if (d.turn !== undefined) this.moveTo(selectTurn(this.model, d.turn));
  }

  private onScroll(e: HTMLElementEventMap['pi-scroll']): void {
    if (e.detail === this.sel.firstVisibleMessage) return;
    this.sel = { ...this.sel, firstVisibleMessage: e.detail };
    this.report();
  }

  private onCopy(e: HTMLElementEventMap['pi-copy']): void {
    if (e.detail >= 0) this.transport?.post({ type: 'copyRequest', request: e.detail });
  }

  /** Letters work anywhere but in text fields; bare arrows only when nothing else takes them. */
  private readonly onKey = (e: KeyboardEvent): void => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || !this.model) return;
    const target = e.composedPath()[0];
    if (target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
    const idle = target === document.body || target === document.documentElement || target === this;
    const to = KEYS[e.key] ?? (idle ? ({ ArrowDown: 'nextTurn', ArrowUp: 'previousTurn' } as Record<string, Navigation>)[e.key] : undefined);
    if (!to) return;
    e.preventDefault();
    this.go(to);
  };

  render() {
    const x = this.model;
    const details = this.details;
    if (this.problem) return html`<div class="waiting problem" role="alert">${this.problem}</div>`;
    if (!x || !details) return html`<div class="waiting" role="status">Waiting for the transcript…</div>`;
    const { turn, request } = this.sel;
    const r = x.request(request);
    const detail = r ? details.requests.peek(0, r.index) : undefined;
    const previous = r && r.previousRequest >= 0 ? details.requests.peek(0, r.previousRequest) : undefined;
    const compacted = x.compacted(turn) ? details.turns.get(0, turn) : null;
    return html`
      <summary-header .model=${x}></summary-header>
      <turn-stepper .model=${x} .turns=${details.turns} .selected=${turn} @pi-select=${this.onSelect}></turn-stepper>
      <token-timeline .model=${x} .requests=${details.requests} .turn=${turn} .request=${request} @pi-select=${this.onSelect}></token-timeline>
      <section class="main" aria-label="Messages">
        <request-bar .model=${x} .turn=${turn} .request=${request} .canCopy=${this.canCopy}
          @pi-select=${this.onSelect} @pi-copy=${this.onCopy}></request-bar>
        <message-list .model=${x} .pages=${this.pages} .request=${request} .captured=${detail?.captured}
          .openAt=${this.sel.firstVisibleMessage} .openKey=${this.openKey}
          @pi-scroll=${this.onScroll}></message-list>
      </section>
      <aside class="side" aria-label="Details" @pi-select=${this.onSelect}>
        ${
          compacted === null
            ? nothing
            : compacted === 'loading' || compacted instanceof Error
              ? html`<p class="waiting-detail">${compacted === 'loading' ? 'Loading the compaction…' : `Could not load the compaction: ${compacted.message}`}</p>`
              : html`<compaction-panel .turn=${compacted}></compaction-panel>`
        }
        <cache-panel .model=${x} .request=${request} .detail=${detail} .previous=${previous} .context=${this.contexts.get(request)}></cache-panel>
        <findings-list .model=${x} .findings=${details.findings} .turn=${turn}></findings-list>
      </aside>
      <div class="sr-only" aria-live="polite" data-announcement>${this.announcement}</div>
    `;
  }
}
customElements.define('prompt-inspector-app', InspectorApp);
