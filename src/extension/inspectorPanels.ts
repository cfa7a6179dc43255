// The inspector's ways in: the custom editor (a transcript opened by its file pattern or "Open
// With"), a panel opened by the palette or the tree, and a panel restored after a restart. Each makes
// one InspectorView; the registry knows which are open and which is active.

import * as vscode from 'vscode';
import { PROTOCOL_VERSION, type ViewState } from '../shared/messages';
import type { AnalysisCache } from './analysisCache';
import { EDITOR_VIEW_TYPE, InspectorView, PANEL_VIEW_TYPE, type PersistedPanel } from './inspectorView';
import { tabTitle } from './tabTitle';
import { TranscriptDocument } from './transcriptDocument';
import { ViewRegistry } from './viewRegistry';

export class InspectorPanels implements vscode.Disposable {
  readonly views = new ViewRegistry<InspectorView>();
  private readonly disposables: vscode.Disposable[] = [];

  /**
   * @param opened told of each view as it opens, and of each as it closes (after the registry
   *   dropped it): the Problems panel and the watcher follow the open views.
   */
  private constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly cache: AnalysisCache,
    private readonly opened: (uri: vscode.Uri) => void,
  ) {}

  /** The custom editor and the panel serializer, registered; disposed with the extension. */
  static register(context: vscode.ExtensionContext, cache: AnalysisCache, opened: (uri: vscode.Uri) => void): InspectorPanels {
    const panels = new InspectorPanels(context, cache, opened);
    panels.disposables.push(
      vscode.window.registerCustomEditorProvider(
        EDITOR_VIEW_TYPE,
        {
          openCustomDocument: (uri) => new TranscriptDocument(uri, cache),
          resolveCustomEditor: (document, panel) => {
            panels.open(document, panel, null);
          },
        } satisfies vscode.CustomReadonlyEditorProvider<TranscriptDocument>,
        { supportsMultipleEditorsPerDocument: true },
      ),
      vscode.window.registerWebviewPanelSerializer(PANEL_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel, state: unknown) => {
          const persisted = state as Partial<PersistedPanel> | undefined;
          if (!persisted?.source) {
            panel.dispose();
            return;
          }
          // A state of another protocol version has another shape: the panel reopens without it.
          panels.open(
            panels.ownDocument(vscode.Uri.file(persisted.source), panel),
            panel,
            persisted.version === PROTOCOL_VERSION ? (persisted.view ?? null) : null,
          );
        },
      }),
    );
    context.subscriptions.push(panels);
    return panels;
  }

  /** The view already open on `uri`, brought forward; a new panel only when there is none. */
  openPanel(uri: vscode.Uri): InspectorView {
    const open = this.views.on(uri);
    if (open) return open;
    const panel = vscode.window.createWebviewPanel(PANEL_VIEW_TYPE, tabTitle(uri.path, null, null), vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(this.context.extensionUri, 'dist')],
    });
    return this.open(this.ownDocument(uri, panel), panel, null);
  }

  /** A panel's document, disposed with the panel (an editor's is VS Code's to dispose). */
  private ownDocument(uri: vscode.Uri, panel: vscode.WebviewPanel): TranscriptDocument {
    const document = new TranscriptDocument(uri, this.cache);
    panel.onDidDispose(() => document.dispose());
    return document;
  }

  // A deliberate choice: retainContextWhenHidden stays off. The view keeps its place through the
  // webview state and pulls bodies again on demand, so a hidden inspector costs no memory.
  private open({ uri }: TranscriptDocument, panel: vscode.WebviewPanel, restored: ViewState | null): InspectorView {
    const view = new InspectorView(uri, panel, this.context.extensionUri, this.cache, this.context.workspaceState, this.views, restored);
    this.opened(uri);
    // The view removed itself from the open ones first (its own listener came first).
    panel.onDidDispose(() => this.opened(uri));
    return view;
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
    this.views.dispose();
  }
}
