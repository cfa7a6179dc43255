// One inspector webview bound to one transcript: the page, the ready handshake, paged answers from
// the file or the lineage opened from its overview, state kept across hide/restore and restarts,
// and live refresh that keeps the user's place.

import * as vscode from 'vscode';
import {
  PROTOCOL_VERSION,
  type FromWebview,
  type InspectorIndex,
  type Navigation,
  type PagedList,
  type RequestMap,
  type ToWebview,
  type OverviewState,
  type ViewState,
} from '../shared/messages';
import { everyLineage, overviewChanges, withFilled } from '../shared/overviewColumns';
import type { SessionOverview } from '../shared/overviewTypes';
import { serve } from '../shared/rpc';
import { webviewPage } from './webviewPage';
import type { AnalysisCache, LineageScope, RemoteInspection, RemotePages } from './analysisCache';
import { pickSession } from './sessionPicker';
import { tabTitle } from './tabTitle';
import type { ViewRegistry } from './viewRegistry';
import { AnalysisCancelled } from '../worker/engineProtocol';

/** The button of the message a cancelled analysis leaves. */
const ANALYSE_AGAIN = 'Analyse again';

export const PANEL_VIEW_TYPE = 'promptInspector.panel';
export const EDITOR_VIEW_TYPE = 'promptInspector.inspector';

/** The state the webview keeps (webview/main.ts), from which a panel is restored after a restart. */
export interface PersistedPanel {
  version: number;
  view: ViewState | null;
  source: string | null;
}

/**
 * A place in a file chosen outside the view (a node of Agent Transcripts): a lineage, a session, or
 * a session's turn by its position there, landing on its first break when `toBreak`.
 */
export type RevealTarget =
  { kind: 'lineage'; lineage: string } | { kind: 'session'; session: string } | { kind: 'turn'; session: string; ordinal: number; toBreak: boolean };

export class InspectorView implements vscode.Disposable {
  private ready = false;
  /** Init was posted: the page can take a reveal. */
  private initialised = false;
  /** The user was told this file's analysis was cancelled (and offered Analyse again). */
  private toldCancelled = false;
  /** A reveal asked for before init: posted right after it. */
  private pendingReveal: ToWebview | null = null;
  private state: ViewState | null;
  private inspection: RemoteInspection | undefined;
  /** The lineage opened from the overview; page requests answer from it while it is open. */
  private scope: LineageScope | undefined;
  /** The overview the view holds (init's or the last update's, with the rows filled in since): an update posts what changed of it. */
  private shown: SessionOverview | null = null;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    readonly uri: vscode.Uri,
    private readonly panel: vscode.WebviewPanel,
    private readonly extensionUri: vscode.Uri,
    private readonly cache: AnalysisCache,
    private readonly workspaceState: vscode.Memento,
    private readonly views: ViewRegistry<InspectorView>,
    restored: ViewState | null,
  ) {
    this.state = restored ?? workspaceState.get<ViewState>(stateKey(uri)) ?? null;
    const dist = vscode.Uri.joinPath(extensionUri, 'dist');
    panel.webview.options = { enableScripts: true, localResourceRoots: [dist] };
    panel.webview.html = this.html();
    this.disposables.push(
      panel.webview.onDidReceiveMessage((m: FromWebview) => this.receive(m)),
      panel.onDidChangeViewState(() => this.trackActive()),
      cache.onDidChange((changed) => {
        if (changed.toString() === uri.toString()) void this.refresh();
      }),
      cache.onDidFill(({ inspection, rows }) => {
        // Only the analysis this view shows (a newer one comes with its own update); `init` sent the rows filled before it.
        if (inspection !== this.inspection || !this.initialised || !inspection.overview) return;
        const reading = inspection.overview.reading ?? false;
        this.post({ type: 'overviewFilled', rows: [...rows], reading });
        // As the view merges them (into what it holds, which an update on its way may not have replaced yet).
        this.shown = this.shown && { ...withFilled(this.shown, rows), reading };
        // The status bar's "reading…" ends when every row is filled in (of a listing, or of a file only listed).
        this.views.changed(this);
      }),
      panel.onDidDispose(() => this.dispose()),
    );
    this.trackActive();
  }

  /**
   * Brings this view forward at `target`: its lineage opened (when the file has several), the
   * session's turn selected, or its first break, as the view's own navigation would.
   */
  async reveal(target: RevealTarget | null): Promise<void> {
    this.panel.reveal();
    if (!target) return;
    const inspection = this.inspection ?? (await this.load());
    if (!inspection) return;
    const lineage = target.kind === 'lineage' ? target.lineage : lineageOfSession(inspection.overview, target.session);
    let place: { turn: number | null; request: number | null } = { turn: null, request: null };
    if (target.kind !== 'lineage') {
      // The turn's index in the lineage's own scope, where the view numbers its turns from 0.
      const opened = lineage !== null && this.scope?.lineage !== lineage ? await inspection.openLineage(lineage) : undefined;
      try {
        const turns = await (opened ?? this.scope ?? inspection).sessionTurns(target.session);
        const turn = turns[target.kind === 'turn' ? target.ordinal : 0];
        if (turn) place = { turn: turn.index, request: target.kind === 'turn' && target.toBreak ? turn.firstBreak : null };
      } finally {
        opened?.dispose();
      }
    }
    const message: ToWebview = { type: 'reveal', lineage, ...place };
    if (this.initialised) this.post(message);
    else this.pendingReveal = message;
  }

  /** What the view shows: the open lineage, else the whole file. */
  get current(): RemotePages | undefined {
    return this.scope ?? this.inspection;
  }

  /** Offers the state.db's sessions; the view follows the choice. */
  async chooseSession(): Promise<void> {
    const inspection = this.inspection ?? (await this.load());
    if (inspection?.catalog) await pickSession(this.uri, inspection, this.cache);
    else void vscode.window.showInformationMessage('Prompt Inspector: only a state.db has sessions to choose from.');
  }

  /** How the page shows the overview (sort, filters, scroll), as it last said; null before it said. */
  get overviewState(): OverviewState | null {
    return this.state?.overview ?? null;
  }

  get selectedRequest(): number | null {
    return this.state?.ui?.request ?? null;
  }

  navigate(to: Navigation): void {
    this.post({ type: 'navigate', to });
  }

  private trackActive(): void {
    this.views.track(this, this.panel.visible, this.panel.active);
  }

  private html(): string {
    return webviewPage(this.panel.webview, this.extensionUri, `Prompt Inspector: ${vscode.workspace.asRelativePath(this.uri)}`);
  }

  private post(message: ToWebview): void {
    if (this.ready) void this.panel.webview.postMessage(message);
  }

  private async receive(m: FromWebview): Promise<void> {
    switch (m.type) {
      case 'ready':
        // Answer even a view of another protocol version: it shows a reload message on init.
        this.ready = true;
        await this.init();
        return;
      case 'request':
        this.post(await this.answer(m));
        return;
      case 'selected':
        this.state = m.state;
        void this.workspaceState.update(stateKey(this.uri), m.state);
        this.views.changed(this);
        return;
      case 'copyRequest':
        await this.copyRequest(m.request);
        return;
      case 'openTranscript':
        // Only an agent project's overview lists transcripts to open (projectOverview.ts).
        return;
    }
  }

  /** The request's wire messages as JSON on the clipboard: the view's button and the command alike. */
  async copyRequest(request: number): Promise<void> {
    if (!this.current) return;
    await vscode.env.clipboard.writeText(await this.current.requestJson(request));
    void vscode.window.setStatusBarMessage(`Prompt Inspector: request ${request} copied as JSON`, 3000);
  }

  /** The webview's page requests, answered by the worker's analysis. */
  private readonly answer = serve<RequestMap>({
    messages: async ({ request, start, count }) => (await this.inspected()).messages(request, start, count),
    turns: this.page('turns'),
    requests: this.page('requests'),
    findings: this.page('findings'),
    breakContext: async ({ request }) => (await this.inspected()).breakContext(request),
    openLineage: async ({ lineage }) => {
      const inspection = this.inspection ?? (await this.load());
      if (!inspection) throw new Error(`no analysis of ${vscode.workspace.asRelativePath(this.uri)}`);
      if (lineage === null) {
        this.closeScope();
        return inspection.index;
      }
      return this.openScope(inspection, lineage);
    },
  });

  /** Opens a lineage of the file for the page requests that follow; its index. */
  private async openScope(inspection: RemoteInspection, lineage: string): Promise<InspectorIndex> {
    const scope = await inspection.openLineage(lineage);
    this.closeScope();
    this.scope = scope;
    this.panel.title = tabTitle(this.uri.path, inspection.overview, lineage);
    this.views.changed(this);
    return scope.index;
  }

  private closeScope(): void {
    this.scope?.dispose();
    this.scope = undefined;
    this.panel.title = tabTitle(this.uri.path, null, null);
    this.views.changed(this);
  }

  private page<L extends PagedList>(list: L) {
    return async ({ start, count }: RequestMap[L]['params']) => (await this.inspected()).page(list, start, count);
  }

  /** The analysis a request reads: the view asks only after init, so one was loaded before. */
  private async inspected(): Promise<RemotePages> {
    const inspection = this.scope ?? this.inspection ?? (await this.load());
    if (!inspection) throw new Error(`no analysis of ${vscode.workspace.asRelativePath(this.uri)}`);
    return inspection;
  }

  private async load(): Promise<RemoteInspection | undefined> {
    try {
      const inspection = await this.cache.get(this.uri);
      this.toldCancelled = false;
      this.inspection = inspection;
      this.views.changed(this);
      return inspection;
    } catch (e) {
      const title = vscode.workspace.asRelativePath(this.uri);
      if (e instanceof AnalysisCancelled) {
        // Once: the file changing meanwhile asks again, and gets the same answer.
        if (this.toldCancelled) return undefined;
        this.toldCancelled = true;
        void vscode.window.showInformationMessage(`Prompt Inspector: the analysis of ${title} was cancelled.`, ANALYSE_AGAIN).then((chosen) => {
          if (chosen === ANALYSE_AGAIN) this.cache.analyseAgain(this.uri);
        });
      } else void vscode.window.showErrorMessage(`Prompt Inspector could not read ${title}: ${(e as Error).message}`);
      return undefined;
    }
  }

  /** The view's first content: the analysis, with the lineage it showed before opened again. */
  private async init(): Promise<void> {
    const inspection = await this.load();
    if (!inspection) return;
    if (this.postedRecorded(inspection)) return;
    // A restored lineage that is still a row of the overview opens again; one that is gone leaves the overview.
    const lineage = this.state?.lineage ?? null;
    const index = lineage === null ? null : await this.reopen(inspection, lineage);
    const state = this.state && !index ? { ...this.state, lineage: null, ui: lineage === null ? this.state.ui : null } : this.state;
    const { overview } = inspection;
    this.post({ type: 'init', version: PROTOCOL_VERSION, index: indexToPost(inspection, index), overview, state });
    this.shown = overview;
    this.initialised = true;
    if (this.pendingReveal) this.post(this.pendingReveal);
    this.pendingReveal = null;
  }

  /**
   * The file changed: the open lineage is analysed again from the new analysis, and the overview's
   * rows posted. A view whose first analysis failed or was cancelled is still waiting: it gets its init.
   */
  private async refresh(): Promise<void> {
    if (this.ready && !this.initialised) return this.init();
    const inspection = await this.load();
    if (!inspection) return;
    if (this.postedRecorded(inspection)) return;
    const lineage = this.scope?.lineage;
    const index = lineage === undefined ? null : await this.reopen(inspection, lineage);
    const { overview } = inspection;
    const changes = this.shown && overview ? overviewChanges(this.shown, overview) : null;
    this.post({ type: 'update', index: indexToPost(inspection, index), overview: changes ? { changes } : { whole: overview } });
    this.shown = overview;
  }

  /** Another agent's transcript: its report posted, which the view shows alone (no overview held); false for a Hermes one. */
  private postedRecorded(inspection: RemoteInspection): boolean {
    if (!inspection.recorded) return false;
    this.post({ type: 'recorded', version: PROTOCOL_VERSION, report: inspection.recorded });
    this.shown = null;
    return true;
  }

  /**
   * The lineage opened again on a new analysis; null, and the whole file in scope, when it is no
   * row of the overview any more or cannot be read now (the message says why).
   */
  private async reopen(inspection: RemoteInspection, lineage: string): Promise<InspectorIndex | null> {
    if (hasLineage(inspection, lineage)) {
      try {
        return await this.openScope(inspection, lineage);
      } catch (e) {
        void vscode.window.showErrorMessage(`Prompt Inspector could not read lineage ${lineage}: ${(e as Error).message}`);
      }
    }
    this.closeScope();
    return null;
  }

  dispose(): void {
    this.views.closed(this);
    this.scope?.dispose();
    for (const d of this.disposables) d.dispose();
  }
}

/**
 * The index init and update post: the lineage's opened (`opened`), else the whole file's, but none
 * beside an overview, which the view draws from no index (a large home's whole file's is megabytes).
 */
function indexToPost(inspection: RemoteInspection, opened: InspectorIndex | null): InspectorIndex | null {
  return opened ?? (inspection.overview ? null : inspection.index);
}

/** The overview row whose chain holds `session`; null for a file without an overview. */
function lineageOfSession(overview: SessionOverview | null, session: string): string | null {
  return overview ? (everyLineage(overview.lineages).find((l) => l.sessions.some((s) => s.id === session))?.id ?? null) : null;
}

function hasLineage(inspection: RemoteInspection, lineage: string): boolean {
  return inspection.overview !== null && everyLineage(inspection.overview.lineages).some((l) => l.id === lineage);
}

/** A ViewState's key; the UiState kept before there were lineages to open was under `promptInspector.ui:`. */
function stateKey(uri: vscode.Uri): string {
  return `promptInspector.view:${uri.toString()}`;
}
