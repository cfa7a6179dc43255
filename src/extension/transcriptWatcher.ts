// Live refresh's watcher: a transcript that grows (or its WAL, or its home's agent.log) makes its
// analysis stale, throttled per file (liveRefresh.ts holds the rules, tested in Node).

import * as vscode from 'vscode';
import { KeyedThrottle, refreshTargetPath } from './liveRefresh';

/**
 * Live refresh runs at most this often while a file keeps changing: a writer appending every few
 * milliseconds is followed, without one analysis per append.
 */
const REFRESH_INTERVAL_MS = 250;

export class TranscriptWatcher implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private watching = false;

  /** @param stale called with the transcript a change stands for, at most once per interval per file. */
  constructor(private readonly stale: (uri: vscode.Uri) => void) {}

  /**
   * Starts watching; later calls do nothing. Only analysed files can go stale, so this waits for the
   * first analysis: a workspace nobody inspects is not watched, and activation makes one call fewer
   * to the workbench.
   */
  start(): void {
    if (this.watching) return;
    this.watching = true;
    const targets = new Map<string, vscode.Uri>();
    const throttle = new KeyedThrottle(REFRESH_INTERVAL_MS, (key) => {
      const target = targets.get(key);
      targets.delete(key);
      if (target) this.stale(target);
    });
    const onFileEvent = (uri: vscode.Uri): void => {
      const target = uri.with({ path: refreshTargetPath(uri.path) });
      targets.set(target.toString(), target);
      throttle.touch(target.toString());
    };
    const files = vscode.workspace.createFileSystemWatcher('**/*.{db,db-wal,json,jsonl}');
    const logs = vscode.workspace.createFileSystemWatcher('**/logs/agent.log*');
    this.disposables.push(
      files,
      files.onDidChange(onFileEvent),
      files.onDidCreate(onFileEvent),
      logs,
      logs.onDidChange(onFileEvent),
      logs.onDidCreate(onFileEvent),
      throttle,
    );
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
