// The extension's commands (package.json `contributes.commands`): the palette's, the tree's and the
// keys' that act on the active inspector.

import * as vscode from 'vscode';
import type { Navigation } from '../shared/messages';
import { plural } from '../shared/shownText';
import type { AnalysisCache } from './analysisCache';
import { findTranscripts } from './findTranscripts';
import type { InspectorPanels } from './inspectorPanels';
import type { RevealTarget } from './inspectorView';
import { sizeText, transcriptKind } from './transcriptKind';
import type { TranscriptTree } from './transcriptTree';
import type { ProjectOverviews } from './projectOverview';
import type { AgentName, AgentProject } from '../shared/agentFolderTypes';

const NAVIGATIONS: Navigation[] = ['nextTurn', 'previousTurn', 'nextRequest', 'previousRequest', 'nextBreak'];

export function registerCommands(cache: AnalysisCache, tree: TranscriptTree, panels: InspectorPanels, projects: ProjectOverviews): vscode.Disposable[] {
  const active = () => panels.views.active;
  return [
    vscode.commands.registerCommand('promptInspector.open', () => pickTranscript(cache, panels)),
    vscode.commands.registerCommand('promptInspector.openFile', (uri?: vscode.Uri) => {
      const target = uri ?? vscode.window.activeTextEditor?.document.uri;
      if (target) void panels.openPanel(target).reveal(null);
    }),
    // Agent Transcripts' nodes: not in the palette (package.json lists them nowhere), a click's target.
    vscode.commands.registerCommand('promptInspector.reveal', (uri: vscode.Uri, target: RevealTarget) => panels.openPanel(uri).reveal(target)),
    vscode.commands.registerCommand('promptInspector.openProject', (agent: AgentName, project: AgentProject) => projects.show(agent, project)),
    vscode.commands.registerCommand('promptInspector.refreshTranscripts', () => tree.refresh()),
    vscode.commands.registerCommand('promptInspector.chooseSession', () => active()?.chooseSession()),
    vscode.commands.registerCommand('promptInspector.copyRequest', async () => {
      const view = active();
      const request = view?.selectedRequest;
      if (view && request !== null && request !== undefined) await view.copyRequest(request);
    }),
    ...NAVIGATIONS.map((to) => vscode.commands.registerCommand(`promptInspector.${to}`, () => active()?.navigate(to))),
  ];
}

/** The palette's list of the workspace's transcripts; the one picked opens in an inspector. */
async function pickTranscript(cache: AnalysisCache, panels: InspectorPanels): Promise<void> {
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
  if (pick) void panels.openPanel(pick.uri).reveal(null);
}
