// One inspector webview bound to one transcript: the page, the ready handshake, paged answers from
// the file or the lineage opened from its overview, state kept across hide/restore and restarts,
// and live refresh that keeps the user's place.

import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import {
  PROTOCOL_VERSION,
  type FromWebview,
  type InspectorIndex,
  type Navigation,
  type PagedList,
  type RequestMap,
  type ToWebview,
  type ViewState,
} from '../protocol/messages';
import { everyLineage } from '../analysis/overviewColumns';
import { serve } from '../protocol/rpc';
import { renderInspectorHtml } from '../webviewHtml';
import type { AnalysisCache, LineageScope, RemoteInspection, RemotePages } from './analysisCache';
import { pickSession } from './sessionPicker';
import { tabTitle } from './tabTitle';

export const PANEL_VIEW_TYPE = 'promptInspector.panel';
export const EDITOR_VIEW_TYPE = 'promptInspector.inspector';

/** The state the webview keeps (webview/main.ts), from which a panel is restored after a restart. */
export interface PersistedPanel {
  version: number;
  view: ViewState | null;
  source: string | null;
}

export class InspectorView implements vscode.Disposable {
  private static activeView: InspectorView | undefined;
  private static readonly activeChanged = new vscode.EventEmitter<InspectorView | undefined>();
  static readonly onDidChangeActive = InspectorView.activeChanged.event;

  private ready = false;
  private state: ViewState | null;
  private inspection: RemoteInspection | undefined;
  /** The lineage opened from the overview; page requests answer from it while it is open. */
  private scope: LineageScope | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    readonly uri: vscode.Uri,
    private readonly panel: vscode.WebviewPanel,
    private readonly extensionUri: vscode.Uri,
    private readonly cache: AnalysisCache,
    private readonly workspaceState: vscode.Memento,
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
      panel.onDidDispose(() => this.dispose()),
    );
    this.trackActive();
  }

  static get active(): InspectorView | undefined {
    return InspectorView.activeView;
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

  get selectedRequest(): number | null {
    return this.state?.ui?.request ?? null;
  }

  navigate(to: Navigation): void {
    this.post({ type: 'navigate', to });
  }

  private trackActive(): void {
    if (this.panel.active) {
      InspectorView.activeView = this;
      InspectorView.activeChanged.fire(this);
    } else if (InspectorView.activeView === this) {
      InspectorView.activeView = undefined;
      InspectorView.activeChanged.fire(undefined);
    }
  }

  private html(): string {
    const w = this.panel.webview;
    const asset = (f: string): string => w.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', f)).toString();
    return renderInspectorHtml({
      title: `Prompt Inspector: ${vscode.workspace.asRelativePath(this.uri)}`,
      nonce: randomBytes(16).toString('base64'),
      cspSource: w.cspSource,
      script: { uri: asset('webview.js') },
      style: { uri: asset('webview.css') },
      codicons: { uri: asset('codicon.css') },
    });
  }

  private post(message: ToWebview): void {
    if (this.ready) void this.panel.webview.postMessage(message);
  }

  private async receive(m: FromWebview): Promise<void> {
    switch (m.type) {
      case 'ready': {
        // Answer even a view of another protocol version: it shows a reload message on init.
        this.ready = true;
        const inspection = await this.load();
        if (!inspection) return;
        // A restored lineage that is still a row of the overview opens again; one that is gone leaves the overview.
        const lineage = this.state?.lineage ?? null;
        const index = lineage === null ? null : await this.reopen(inspection, lineage);
        const state = this.state && !index ? { ...this.state, lineage: null, ui: lineage === null ? this.state.ui : null } : this.state;
        this.post({ type: 'init', version: PROTOCOL_VERSION, index: index ?? inspection.index, overview: inspection.overview, state });
        return;
      }
      case 'request':
        this.post(await this.answer(m));
        return;
      case 'selected':
        this.state = m.state;
        void this.workspaceState.update(stateKey(this.uri), m.state);
        InspectorView.activeChanged.fire(InspectorView.activeView);
        return;
      case 'copyRequest':
        if (this.current) {
          await vscode.env.clipboard.writeText(await this.current.requestJson(m.request));
          void vscode.window.setStatusBarMessage(`Prompt Inspector: request ${m.request} copied as JSON`, 3000);
        }
        return;
    }
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
    InspectorView.activeChanged.fire(InspectorView.activeView);
    return scope.index;
  }

  private closeScope(): void {
    this.scope?.close();
    this.scope = undefined;
    this.panel.title = tabTitle(this.uri.path, null, null);
    InspectorView.activeChanged.fire(InspectorView.activeView);
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
      this.inspection = inspection;
      InspectorView.activeChanged.fire(InspectorView.activeView);
      return inspection;
    } catch (e) {
      void vscode.window.showErrorMessage(`Prompt Inspector could not read ${vscode.workspace.asRelativePath(this.uri)}: ${(e as Error).message}`);
      return undefined;
    }
  }

  /** The file changed: the open lineage is analysed again from the new analysis, and the overview's rows posted. */
  private async refresh(): Promise<void> {
    const inspection = await this.load();
    if (!inspection) return;
    const lineage = this.scope?.lineage;
    const index = lineage === undefined ? null : await this.reopen(inspection, lineage);
    this.post({ type: 'update', index: index ?? inspection.index, overview: inspection.overview });
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
    if (InspectorView.activeView === this) {
      InspectorView.activeView = undefined;
      InspectorView.activeChanged.fire(undefined);
    }
    this.scope?.close();
    for (const d of this.disposables) d.dispose();
  }
}

function hasLineage(inspection: RemoteInspection, lineage: string): boolean {
  return inspection.overview !== null && everyLineage(inspection.overview.lineages).some((l) => l.id === lineage);
}

/** A ViewState's key; the UiState kept before there were lineages to open was under `promptInspector.ui:`. */
function stateKey(uri: vscode.Uri): string {
  return `promptInspector.view:${uri.toString()}`;
}
