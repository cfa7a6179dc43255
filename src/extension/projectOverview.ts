// An agent's project as an overview (docs/recorded.md "Finding them"): a panel listing its sessions
// newest first at once, then each file read by the worker in turn and its row filled in; a row
// chosen opens its file in an inspector. One panel per project; closing it stops the reads.

import { basename } from 'node:path';
import * as vscode from 'vscode';
import type { AgentName, AgentProject } from '../shared/agentFolderTypes';
import { PROTOCOL_VERSION, type AgentProjectView, type FromWebview, type ToWebview } from '../shared/messages';
import type { AnalysisCache } from './analysisCache';
import { webviewPage } from './webviewPage';

const PROJECT_VIEW_TYPE = 'promptInspector.project';
const AGENT_TITLE: Record<AgentName, string> = { 'claude-code': 'Claude Code', codex: 'Codex' };

export class ProjectOverviews implements vscode.Disposable {
  private readonly panels = new Map<string, vscode.WebviewPanel>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly cache: AnalysisCache,
  ) {}

  show(agent: AgentName, project: AgentProject): void {
    const key = `${agent}\n${project.folder ?? project.project}`;
    const open = this.panels.get(key);
    if (open) {
      open.reveal();
      return;
    }
    const title = `${basename(project.project) || project.project} · ${AGENT_TITLE[agent]}`;
    // retainContextWhenHidden stays off, as for the inspector: a page shown again says ready and gets the rows again.
    const panel = vscode.window.createWebviewPanel(PROJECT_VIEW_TYPE, title, vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'dist')],
    });
    this.panels.set(key, panel);
    panel.webview.html = webviewPage(panel.webview, this.extensionUri, `Prompt Inspector: ${title}`);
    const view: AgentProjectView = {
      agent,
      project: project.project,
      folder: project.folder,
      rows: project.sessions.map((file) => ({ ...file, figures: null, problem: null })),
    };
    let ready = false;
    let closed = false;
    const post = (): void => {
      if (ready && !closed) void panel.webview.postMessage({ type: 'agentProject', version: PROTOCOL_VERSION, project: view } satisfies ToWebview);
    };
    panel.webview.onDidReceiveMessage((m: FromWebview) => {
      if (m.type === 'ready') {
        ready = true;
        post();
      }
      // Only a file the listing holds opens: the page names a row, it does not choose a path.
      else if (m.type === 'openTranscript' && view.rows.some((r) => r.path === m.path))
        void vscode.commands.executeCommand('promptInspector.openFile', vscode.Uri.file(m.path));
    });
    panel.onDidDispose(() => {
      closed = true;
      this.panels.delete(key);
    });
    void (async () => {
      for (const [i, file] of project.sessions.entries()) {
        if (closed) return;
        view.rows[i] = await this.cache.agentSessionRow(file).catch((e: unknown) => ({
          ...file,
          figures: null,
          problem: e instanceof Error ? e.message : String(e),
        }));
        post();
      }
    })();
  }

  dispose(): void {
    for (const panel of this.panels.values()) panel.dispose();
  }
}
