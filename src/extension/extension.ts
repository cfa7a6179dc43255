// Activation: registrations, and once per machine Agent Transcripts shown when the workspace holds
// a transcript. Nothing is read, watched or analysed until a view asks for it,
// and then in a worker thread (dist/engine.js), so the extension host never runs the engine; what
// the host itself touches on disk it touches asynchronously.

import { stat } from 'node:fs/promises';
import * as vscode from 'vscode';
import { PROTOCOL_VERSION, type Navigation, type ViewState } from '../shared/messages';
import { AnalysisCache } from './analysisCache';
import { toDiagnostics } from './diagnostics';
import { findTranscripts } from './findTranscripts';
import { heldBack, KeyedThrottle, refreshTargetPath } from './liveRefresh';
import { EDITOR_VIEW_TYPE, InspectorView, PANEL_VIEW_TYPE, type PersistedPanel, type RevealTarget } from './inspectorView';
import { statusOf } from './statusText';
import { tabTitle } from './tabTitle';
import { sizeText, transcriptKind } from './transcriptKind';
import { plural } from '../shared/shownText';
import { TranscriptTree, type TranscriptNode } from './transcriptTree';

/**
 * Live refresh runs at most this often while a file keeps changing: a writer appending every few
 * milliseconds is followed, without one analysis per append.
 */
const REFRESH_INTERVAL_MS = 250;
/** A file unchanged for this long has no writer mid-line any more. */
const WRITER_QUIET_MS = 2000;
/** Set once Agent Transcripts has been shown by itself: after that the user's layout is left alone. */
const TRANSCRIPTS_SHOWN = 'promptInspector.transcriptsShown';

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('Prompt Inspector', { log: true });
  const cache = new AnalysisCache(context.extensionUri, context.workspaceState, log);
  const problems = vscode.languages.createDiagnosticCollection('prompt-inspector');

  // Live refresh: a transcript that grows (or its WAL) invalidates its analysis, throttled. Only
  // analysed files can go stale, so the watcher starts with the first analysis: a workspace nobody
  // inspects is not watched, and activation makes one call fewer to the workbench.
  let watching = false;
  const watchTranscripts = (): void => {
    if (watching) return;
    watching = true;
    const targets = new Map<string, vscode.Uri>();
    const throttle = new KeyedThrottle(REFRESH_INTERVAL_MS, (key) => {
      const target = targets.get(key);
      targets.delete(key);
      if (target) cache.invalidate(target);
    });
    const onFileEvent = (uri: vscode.Uri): void => {
      const target = uri.with({ path: refreshTargetPath(uri.path) });
      targets.set(target.toString(), target);
      throttle.touch(target.toString());
    };
    const watcher = vscode.workspace.createFileSystemWatcher('**/*.{db,db-wal,json,jsonl}');
    const logs = vscode.workspace.createFileSystemWatcher('**/logs/agent.log*');
    context.subscriptions.push(
      watcher,
      watcher.onDidChange(onFileEvent),
      watcher.onDidCreate(onFileEvent),
      logs,
      logs.onDidChange(onFileEvent),
      logs.onDidCreate(onFileEvent),
      throttle,
    );
  };

  const tree = new TranscriptTree(cache, watchTranscripts);
  const treeView = vscode.window.createTreeView('promptInspector.transcripts', { treeDataProvider: tree });
  const status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
  status.command = 'promptInspector.nextBreak';
  context.subscriptions.push(cache, tree, problems, status, log);

  // A parse error where the file ends is what a writer mid-append looks like: it is held back
  // while the file keeps changing, and published once the file has been quiet for a while.
  const recheck = new Map<string, NodeJS.Timeout>();
  const publish = async (uri: vscode.Uri): Promise<void> => {
    clearTimeout(recheck.get(uri.toString()));
    // Problems lists the files open in an inspector, not every file the tree has read.
    if (!InspectorView.on(uri)) {
      problems.delete(uri);
      return;
    }
    try {
      const diagnostics = (await cache.get(uri)).diagnostics;
      const { shown, recheckInMs } = heldBack(diagnostics, (await stat(uri.fsPath)).mtimeMs, Date.now(), WRITER_QUIET_MS);
      if (recheckInMs !== null)
        recheck.set(
          uri.toString(),
          setTimeout(() => void publish(uri), recheckInMs),
        );
      problems.set(uri, toDiagnostics(shown));
    } catch {
      problems.delete(uri);
    }
  };
  context.subscriptions.push({
    dispose: () => {
      for (const t of recheck.values()) clearTimeout(t);
    },
  });

  // A deliberate choice: retainContextWhenHidden stays off. The view keeps its place through the
  // webview state and pulls bodies again on demand, so a hidden inspector costs no memory.
  const openView = (uri: vscode.Uri, panel: vscode.WebviewPanel, restored: ViewState | null): InspectorView => {
    watchTranscripts();
    const view = new InspectorView(uri, panel, context.extensionUri, cache, context.workspaceState, restored);
    void publish(uri);
    // The view removed itself from the open ones first (its own listener came first).
    panel.onDidDispose(() => void publish(uri));
    return view;
  };

  /** The view already open on `uri`, brought forward; a new panel only when there is none. */
  const openPanel = (uri: vscode.Uri): InspectorView => {
    const open = InspectorView.on(uri);
    if (open) return open;
    const panel = vscode.window.createWebviewPanel(PANEL_VIEW_TYPE, tabTitle(uri.path, null, null), vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(context.extensionUri, 'dist')],
    });
    return openView(uri, panel, null);
  };

  context.subscriptions.push(
    vscode.window.registerCustomEditorProvider(
      EDITOR_VIEW_TYPE,
      {
        openCustomDocument: (uri) => ({ uri, dispose: () => undefined }),
        resolveCustomEditor: (document, panel) => {
          openView(document.uri, panel, null);
        },
      } satisfies vscode.CustomReadonlyEditorProvider,
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
        openView(vscode.Uri.file(persisted.source), panel, persisted.version === PROTOCOL_VERSION ? (persisted.view ?? null) : null);
      },
    }),

    treeView,

    vscode.commands.registerCommand('promptInspector.open', async () => {
      const uris = await findTranscripts();
      if (!uris.length) {
        void vscode.window.showInformationMessage('Prompt Inspector found no transcripts (see the promptInspector.transcriptGlobs setting).');
        return;
      }
      const items = await Promise.all(
        uris.map(async (uri) => {
          const size = await vscode.workspace.fs.stat(uri).then(
            (s) => sizeText(s.size),
            () => 'size not known',
          );
          // Sessions only where an analysis counted them: the palette reads no file to list it.
          const sessions = cache.sessionCount(uri);
          const counted = sessions === undefined ? '' : ` · ${plural(sessions, 'session')}`;
          return { label: vscode.workspace.asRelativePath(uri), description: `${transcriptKind(uri.path)} · ${size}${counted}`, uri };
        }),
      );
      const pick = await vscode.window.showQuickPick(items, { placeHolder: 'Transcript to inspect' });
      if (pick) void openPanel(pick.uri).reveal(null);
    }),
    vscode.commands.registerCommand('promptInspector.openFile', (uri?: vscode.Uri) => {
      const target = uri ?? vscode.window.activeTextEditor?.document.uri;
      if (target) void openPanel(target).reveal(null);
    }),
    // Agent Transcripts' nodes: not in the palette (package.json lists it nowhere), a click's target.
    vscode.commands.registerCommand('promptInspector.reveal', (uri: vscode.Uri, target: RevealTarget) => openPanel(uri).reveal(target)),
    vscode.commands.registerCommand('promptInspector.refreshTranscripts', () => tree.refresh()),
    vscode.commands.registerCommand('promptInspector.chooseSession', () => InspectorView.active?.chooseSession()),
    vscode.commands.registerCommand('promptInspector.copyRequest', async () => {
      const view = InspectorView.active;
      const request = view?.selectedRequest;
      if (view && request !== null && request !== undefined) await view.copyRequest(request);
    }),
    ...(['nextTurn', 'previousTurn', 'nextRequest', 'previousRequest', 'nextBreak'] as Navigation[]).map((to) =>
      vscode.commands.registerCommand(`promptInspector.${to}`, () => InspectorView.active?.navigate(to)),
    ),

    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('promptInspector')) {
        cache.invalidateAll();
        tree.refresh();
      }
    }),
    InspectorView.onDidChangeActive((view) => updateStatus(status, view)),
    cache.onDidChange((uri) => void publish(uri)),
  );
  void showTranscriptsOnce(context.globalState, tree, treeView);
}

/**
 * A new view in the Explorer starts collapsed under Outline and Timeline, where nobody finds it:
 * the first time a workspace holds a transcript, Agent Transcripts is opened once, without taking
 * the focus (a palette being typed in stays open).
 */
async function showTranscriptsOnce(memory: vscode.Memento, tree: TranscriptTree, view: vscode.TreeView<TranscriptNode>): Promise<void> {
  if (memory.get(TRANSCRIPTS_SHOWN)) return;
  const [first] = await tree.getChildren();
  if (!first) return;
  await memory.update(TRANSCRIPTS_SHOWN, true);
  await view.reveal(first, { select: false, focus: false });
}

function updateStatus(status: vscode.StatusBarItem, view: InspectorView | undefined): void {
  const index = view?.current?.index;
  if (!index) {
    status.hide();
    return;
  }
  ({ text: status.text, tooltip: status.tooltip } = statusOf(index));
  status.show();
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
