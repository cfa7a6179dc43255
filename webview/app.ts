// The inspector page: owns the protocol conversation, which lineage is open and the selection in
// it, lays out the parts, and turns keys and host commands into steps. A file of several lineages
// opens on the session overview; a row opens that lineage's inspector and "Sessions" goes back.
// Components below it only render and send the events of events.ts.

import { css, html, LitElement, nothing } from 'lit';
import { state } from 'lit/decorators.js';
import { withChanges, withFilled } from '../src/shared/overviewColumns';
import type { SessionOverview } from '../src/shared/overviewTypes';
import type { RecordedReport } from '../src/shared/recordedReportTypes';
import type { AgentProjectView } from '../src/shared/messages';
import {
  PROTOCOL_VERSION,
  type InspectorIndex,
  type MessageView,
  type Navigation,
  type OverviewState,
  type PagedList,
  type RequestMap,
  type ToWebview,
  type Transport,
  type UiState,
  type ViewState,
} from '../src/shared/messages';
import { RpcClient } from '../src/shared/rpc';
import './cache-panel';
import type { ContextState } from './cache-panel';
import './compaction-panel';
import './findings-list';
import { IndexModel } from './index-model';
import { AHEAD } from './message-list';
import { plural } from './format';
import { NO_REQUEST, restore, revealed, selectRequest, selectTurn, step } from './navigation';
import { EMPTY_OVERVIEW_STATE, hasLineage, lineageLabel } from './overview-model';
import { firstView, keyAction, selectionAnnouncement, updatePlan } from './view-plan';
import { Pages, type Details } from './pages';
import { PagesController } from './pages-controller';
import './recorded-view';
import './agent-project-view';
import './request-bar';
import './session-overview';
import './summary-header';
import { tokens } from './theme';
import './token-timeline';
import './turn-stepper';

/** Where the page remembers what it shows for itself (the VS Code webview state). */
export interface Memory {
  load(): ViewState | null;
  save(state: ViewState): void;
}

export class InspectorApp extends LitElement {
  @state() accessor model: IndexModel | null = null;
  @state() accessor sel: UiState = { turn: 0, request: NO_REQUEST, firstVisibleMessage: 0 };
  @state() accessor openKey = 0;
  @state() accessor problem: string | null = null;
  /** Another agent's transcript, shown as recorded instead of replayed. */
  @state() accessor recorded: RecordedReport | null = null;
  /** Another agent's project: the view shows its sessions alone. */
  @state() accessor agentProject: AgentProjectView | null = null;
  @state() accessor announcement = '';
  /** A short visible answer to a key that had nothing to do (`b` without a break). */
  @state() accessor notice = '';
  /** The file's lineages; null for a file of one lineage (no overview, the inspector only). */
  @state() accessor overview: SessionOverview | null = null;
  @state() accessor overviewState: OverviewState = EMPTY_OVERVIEW_STATE;
  /** The overview is shown (the inspector is not rendered meanwhile). */
  @state() accessor onOverview = false;
  /** The lineage the inspector shows; null: the whole file. */
  @state() accessor lineage: string | null = null;
  /** Why the last row could not be opened, shown over the overview. */
  @state() accessor openProblem: string | null = null;

  /** Set by main.ts before the first update. */
  transport: Transport | null = null;
  memory: Memory | null = null;
  canCopy = true;

  private rpc: RpcClient<RequestMap> | null = null;
  private pages: Pages<MessageView> | null = null;
  private details: Details | null = null;
  private readonly contexts = new Map<number, ContextState>();
  private posted = '';
  /** Counts openLineage calls: an answer to one the user has since left is dropped. */
  private opening = 0;

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
    session-overview { grid-column: 1 / -1; grid-row: 1 / -1; height: 100vh; }
    recorded-view, agent-project-view { grid-column: 1 / -1; grid-row: 1 / -1; height: 100vh; min-width: 0; }
    .notice { position: fixed; left: 12px; bottom: 36px; padding: 6px 10px; color: var(--pi-fg); background: var(--pi-bg); border: 1px solid var(--pi-border); }
    .open-problem { position: fixed; left: 12px; right: 12px; bottom: 36px; padding: 6px 10px; color: var(--pi-error); background: var(--pi-bg); border: 1px solid var(--pi-error); }
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
    this.rpc = new RpcClient<RequestMap>((request) => transport.post(request));
    transport.onMessage((m) => this.receive(m));
    transport.post({ type: 'ready', version: PROTOCOL_VERSION });
  }

  /** Shows the inspector over `index`, the scope of `lineage`, with fresh pages: the host now answers for that scope. */
  private showScope(lineage: string | null, index: InspectorIndex, ui: UiState | null): void {
    const rpc = this.rpc;
    if (!rpc) return;
    this.pages = new Pages((request, start, count) => rpc.call('messages', { request, start, count }));
    const list = <M extends PagedList>(method: M, size: number) =>
      new Pages<RequestMap[M]['result'][number]>((_, start, count) => rpc.call(method, { start, count }), size);
    this.details = { turns: list('turns', 50), requests: list('requests', 100), findings: list('findings', 100) };
    this.contexts.clear();
    this.lineage = lineage;
    this.onOverview = false;
    this.openProblem = null;
    this.model = new IndexModel(index);
    this.sel = restore(this.model, ui);
    this.openKey++;
    this.selectionChanged(false);
  }

  private showOverview(): void {
    this.onOverview = true;
    this.lineage = null;
    this.model = null;
    this.pages = null;
    this.details = null;
    this.contexts.clear();
    this.report();
  }

  /** Asks the host to scope every later request to `lineage`, then shows its inspector at `ui`. */
  private openLineage(lineage: string, ui: UiState | null, place?: (model: IndexModel) => UiState): void {
    const rpc = this.rpc;
    if (!rpc) return;
    const ticket = ++this.opening;
    this.openProblem = null;
    rpc.call('openLineage', { lineage }).then(
      (index) => {
        if (ticket !== this.opening || !this.onOverview) return;
        this.showScope(lineage, index, place ? place(new IndexModel(index)) : ui);
        this.announcement = `Lineage ${index.title}: ${plural(index.turnCount, 'turn')}.`;
      },
      (e: unknown) => {
        if (ticket !== this.opening) return;
        this.openProblem = `Could not open lineage ${lineage}: ${e instanceof Error ? e.message : String(e)}`;
      },
    );
  }

  /** From a lineage's inspector to the overview, as it was left; the host goes back to the whole file. */
  private back(): void {
    const rpc = this.rpc;
    if (!this.overview || this.onOverview || !rpc) return;
    ++this.opening;
    this.showOverview();
    rpc.call('openLineage', { lineage: null }).then(
      // The overview shows no index: the whole file's is the host's scope again, nothing to render.
      () => undefined,
      (e: unknown) => {
        this.openProblem = `Could not return to the whole file: ${e instanceof Error ? e.message : String(e)}`;
      },
    );
  }

  private receive(m: ToWebview): void {
    switch (m.type) {
      case 'init':
      case 'recorded':
      case 'agentProject':
        if (m.version !== PROTOCOL_VERSION) {
          this.problem = `This view speaks protocol ${PROTOCOL_VERSION} but its host speaks ${m.version}: reload the window.`;
          return;
        }
        if (m.type === 'recorded') this.recorded = m.report;
        else if (m.type === 'agentProject') this.agentProject = m.project;
        else this.init(m.index, m.overview, m.state, m.state ?? this.memory?.load() ?? null);
        return;
      case 'update': {
        const overview = 'whole' in m.overview ? m.overview.whole : this.overview && withChanges(this.overview, m.overview.changes);
        this.overview = overview;
        const plan = updatePlan(overview, { onOverview: this.onOverview, inspecting: this.model !== null, lineage: this.lineage });
        // The index is null only on the overview (the host's scope is the whole file), where no plan reads it.
        if (plan === 'whole-file' && m.index) this.showScope(null, m.index, null);
        else if (plan === 'overview') this.showOverview();
        else if (plan === 'refresh' && m.index) this.refresh(m.index);
        return;
      }
      case 'overviewFilled':
        // Only its figures changed: the overview shown (or gone back to) has them, the rest stays as it is.
        if (this.overview) this.overview = { ...withFilled(this.overview, m.rows), reading: m.reading };
        return;
      case 'navigate':
        this.go(m.to);
        return;
      case 'reveal':
        this.reveal(m.lineage, (model) => revealed(model, m.turn, m.request));
        return;
      case 'response':
        this.rpc?.settle(m);
        return;
    }
  }

  /** The same scope over a new index: pages asked again, the selection kept where it still exists. */
  private refresh(index: InspectorIndex): void {
    const before = this.sel;
    this.model = new IndexModel(index);
    this.pages?.invalidate();
    const d = this.details;
    if (d) for (const list of [d.turns, d.requests, d.findings]) list.invalidate();
    this.contexts.clear();
    this.sel = restore(this.model, before);
    // Same request still there: the list keeps its scroll; otherwise open the new place.
    const moved = this.sel.request !== before.request || this.sel.turn !== before.turn;
    if (moved) this.openKey++;
    this.selectionChanged(moved);
  }

  /** The first view (firstView); `index` is the scope of `given`, the host's state. */
  private init(index: InspectorIndex | null, overview: SessionOverview | null, given: ViewState | null, wanted: ViewState | null): void {
    this.overview = overview;
    this.overviewState = wanted?.overview ?? EMPTY_OVERVIEW_STATE;
    const first = firstView(overview, given, wanted);
    // The host sends no index only with an overview and no lineage open (firstView: the overview then).
    if (first.show === 'inspector' && index) this.showScope(first.lineage, index, first.ui);
    else this.showOverview();
    if (first.show === 'opening') this.openLineage(first.lineage, first.ui);
  }

  /** A tree click: its lineage opened (unless open already), then its place selected there. */
  private reveal(lineage: string | null, place: (model: IndexModel) => UiState): void {
    if (this.model && !this.onOverview && this.lineage === lineage) {
      this.moveTo(place(this.model));
      return;
    }
    if (lineage === null || !this.overview || !hasLineage(this.overview, lineage)) {
      if (this.overview && !this.onOverview) this.back();
      return;
    }
    if (!this.onOverview) this.showOverview();
    this.openLineage(lineage, null, place);
  }

  private go(to: Navigation): void {
    if (!this.model) return;
    // Said, not silent: `b` with nothing to go to.
    if (to === 'nextBreak' && this.model.breakCount === 0) {
      this.notice = 'No cache breaks in this transcript (a compaction or a rewind re-bills by design, not counted).';
      this.announcement = this.notice;
      return;
    }
    this.moveTo(step(this.model, this.sel, to));
  }

  private moveTo(next: UiState): void {
    this.notice = '';
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
      this.announcement = selectionAnnouncement(x, this.sel, title, cause);
    }
  }

  private report(): void {
    if (!this.model && !this.overview) return;
    const state: ViewState = {
      lineage: this.lineage,
      ui: this.model && !this.onOverview ? { ...this.sel } : null,
      overview: this.overview ? this.overviewState : null,
    };
    const key = JSON.stringify(state);
    if (key === this.posted) return;
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

  private onOverviewState(e: HTMLElementEventMap['pi-overview-state']): void {
    this.overviewState = e.detail;
    this.report();
  }

  private onOpenLineage(e: HTMLElementEventMap['pi-open-lineage']): void {
    this.openLineage(e.detail, null);
  }

  private onCopy(e: HTMLElementEventMap['pi-copy']): void {
    if (e.detail >= 0) this.transport?.post({ type: 'copyRequest', request: e.detail });
  }

  private readonly onKey = (e: KeyboardEvent): void => {
    const target = e.composedPath()[0];
    const action = keyAction(e, {
      inTextField: target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)),
      idle: target === document.body || target === document.documentElement || target === this,
      hasOverview: this.overview !== null,
      onOverview: this.onOverview,
      inspecting: this.model !== null,
    });
    if (!action) return;
    e.preventDefault();
    if (action === 'back') this.back();
    else this.go(action);
  };

  render() {
    if (this.problem) return html`<div class="waiting problem" role="alert">${this.problem}</div>`;
    if (this.recorded) return html`<recorded-view .report=${this.recorded}></recorded-view>`;
    if (this.agentProject)
      return html`<agent-project-view
        .project=${this.agentProject}
        @open-transcript=${(e: CustomEvent<string>) => this.transport?.post({ type: 'openTranscript', path: e.detail })}
      ></agent-project-view>`;
    // The overview first and in one place: hidden while a lineage is open, never re-created, so it
    // keeps its scroll and focus.
    return html`${
      this.overview
        ? html`<session-overview .overview=${this.overview} .state=${this.overviewState} ?active=${this.onOverview}
          @pi-overview-state=${this.onOverviewState} @pi-open-lineage=${this.onOpenLineage}></session-overview>`
        : nothing
    }${this.onOverview ? this.renderOnOverview() : this.renderInspector()}`;
  }

  private renderOnOverview() {
    return html`${this.openProblem ? html`<div class="open-problem" role="alert">${this.openProblem}</div>` : nothing}
      <div class="sr-only" aria-live="polite" data-announcement>${this.announcement}</div>`;
  }

  private renderInspector() {
    const x = this.model;
    const details = this.details;
    if (!x || !details) return html`<div class="waiting" role="status">Waiting for the transcript…</div>`;
    const { turn, request } = this.sel;
    const r = x.request(request);
    const detail = r ? details.requests.peek(0, r.index) : undefined;
    const previous = r && r.previousRequest >= 0 ? details.requests.peek(0, r.previousRequest) : undefined;
    const compacted = x.compacted(turn) ? details.turns.get(0, turn) : null;
    return html`
      <summary-header .model=${x} .back=${this.overview !== null} .lineage=${lineageLabel(this.overview, this.lineage)} @pi-back=${this.back}></summary-header>
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
      ${this.notice ? html`<div class="notice" role="status" data-notice>${this.notice}</div>` : nothing}
      <div class="sr-only" aria-live="polite" data-announcement>${this.announcement}</div>
    `;
  }
}
customElements.define('prompt-inspector-app', InspectorApp);
