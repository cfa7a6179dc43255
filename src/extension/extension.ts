// Activation: registrations, and once per machine Agent Transcripts shown when the workspace holds
// a transcript. Nothing is read, watched or analysed until a view asks for it,
// and then in a worker thread (dist/engine.js), so the extension host never runs the engine; what
// the host itself touches on disk it touches asynchronously.

import * as vscode from 'vscode';
import { AnalysisCache } from './analysisCache';
import { registerCommands } from './commands';
import { InspectorPanels } from './inspectorPanels';
import type { InspectorView } from './inspectorView';
import { ProblemsPublisher } from './problems';
import { ProjectOverviews } from './projectOverview';
import { READING_STATUS, statusOf, statusOfOverview, statusOfRecorded } from './statusText';
import { RemoteInspection } from './analysisCache';
import { TranscriptTree, type TranscriptNode } from './transcriptTree';
import { AgentFolderWatcher } from './agentFolderWatcher';
import { TranscriptWatcher } from './transcriptWatcher';

/** Set once Agent Transcripts has been shown by itself: after that the user's layout is left alone. */
const TRANSCRIPTS_SHOWN = 'promptInspector.transcriptsShown';

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('Prompt Inspector', { log: true });
  // A listing fills its rows in the order the view on it shows them.
  const cache = new AnalysisCache(context.extensionUri, context.workspaceState, log, (uri) => panels.views.on(uri)?.overviewState ?? null);
  const watcher = new TranscriptWatcher((uri) => cache.invalidate(uri));
  const tree = new TranscriptTree(cache, () => watcher.start());
  const treeView = vscode.window.createTreeView('promptInspector.transcripts', { treeDataProvider: tree });
  const status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
  status.command = 'promptInspector.nextBreak';
  context.subscriptions.push(log, cache, watcher, tree, treeView, status);
  // Problems lists the files open in an inspector; each view opened or closed publishes its file's.
  const problems = new ProblemsPublisher(cache, (uri) => panels.views.on(uri) !== undefined);
  const panels = InspectorPanels.register(context, cache, (uri) => {
    watcher.start();
    void problems.publish(uri);
  });
  const projects = new ProjectOverviews(context.extensionUri, cache);
  const agentFolders = new AgentFolderWatcher(() => tree.refresh());
  context.subscriptions.push(
    problems,
    projects,
    agentFolders,
    ...registerCommands(cache, tree, panels, projects),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('promptInspector')) {
        cache.invalidateAll();
        agentFolders.watch();
        tree.refresh();
      }
    }),
    panels.views.onDidChangeActive((view) => updateStatus(status, view)),
    cache.onDidChange((uri) => void problems.publish(uri)),
    cache.onDidFindInRows((uri) => void problems.publish(uri)),
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
  const current = view?.current;
  if (!current) {
    status.hide();
    return;
  }
  const recorded = current instanceof RemoteInspection ? current.recorded : null;
  const overview = current instanceof RemoteInspection ? current.overview : null;
  ({ text: status.text, tooltip: status.tooltip } = recorded
    ? statusOfRecorded(recorded)
    : overview?.reading
      ? READING_STATUS
      : overview && current instanceof RemoteInspection && current.rowsOnly
        ? statusOfOverview(overview)
        : statusOf(current.index));
  status.show();
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
