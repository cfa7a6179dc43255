// The agents' folders (settings claudeCodeProjects and codexSessions) watched for sessions that
// start or go: Agent Transcripts lists them again, at most once a second. A session's file growing
// changes no listing (its title and start are in its first lines), so writes are not watched:
// Claude Code appends to its log on every message.

import * as vscode from 'vscode';
import { KeyedThrottle } from './liveRefresh';
import { readSettings } from './settings';

/** A burst of new files (a session with its subagents) is one listing. */
const LIST_AGAIN_MS = 1000;

export class AgentFolderWatcher implements vscode.Disposable {
  private watchers: vscode.Disposable[] = [];
  private readonly throttle: KeyedThrottle;

  constructor(changed: () => void) {
    this.throttle = new KeyedThrottle(LIST_AGAIN_MS, changed);
    this.watch();
  }

  /** Watches the folders the settings name now (again after they change). */
  watch(): void {
    this.unwatch();
    const { claudeCodeProjects, codexSessions } = readSettings();
    for (const folder of [claudeCodeProjects, codexSessions].filter(Boolean)) {
      const files = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(folder), '**/*.jsonl'), false, true, false);
      const touch = (): void => this.throttle.touch('listing');
      this.watchers.push(files, files.onDidCreate(touch), files.onDidDelete(touch));
    }
  }

  private unwatch(): void {
    for (const d of this.watchers.splice(0)) d.dispose();
  }

  dispose(): void {
    this.unwatch();
    this.throttle.dispose();
  }
}
