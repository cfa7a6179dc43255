// The Problems panel: the findings of each file open in an inspector, not of every file the tree
// has read. A parse error where the file ends is what a writer mid-append looks like: it is held
// back while the file keeps changing, and published once the file has been quiet for a while
// (heldBack in liveRefresh.ts, tested in Node).

import { stat } from 'node:fs/promises';
import * as vscode from 'vscode';
import type { AnalysisCache } from './analysisCache';
import { toDiagnostics } from './diagnostics';
import { heldBack } from './liveRefresh';

/** A file unchanged for this long has no writer mid-line any more. */
const WRITER_QUIET_MS = 2000;

export class ProblemsPublisher implements vscode.Disposable {
  private readonly problems = vscode.languages.createDiagnosticCollection('prompt-inspector');
  private readonly recheck = new Map<string, NodeJS.Timeout>();

  /** @param shown whether a file is open in an inspector now. */
  constructor(
    private readonly cache: AnalysisCache,
    private readonly shown: (uri: vscode.Uri) => boolean,
  ) {}

  /** Sets the file's problems from its analysis now, or clears them when no inspector shows it. */
  async publish(uri: vscode.Uri): Promise<void> {
    clearTimeout(this.recheck.get(uri.toString()));
    this.recheck.delete(uri.toString());
    if (!this.shown(uri)) {
      this.problems.delete(uri);
      return;
    }
    try {
      const diagnostics = (await this.cache.get(uri)).diagnostics;
      const { shown, recheckInMs } = heldBack(diagnostics, (await stat(uri.fsPath)).mtimeMs, Date.now(), WRITER_QUIET_MS);
      if (recheckInMs !== null)
        this.recheck.set(
          uri.toString(),
          setTimeout(() => void this.publish(uri), recheckInMs),
        );
      this.problems.set(uri, toDiagnostics(shown));
    } catch {
      this.problems.delete(uri);
    }
  }

  dispose(): void {
    for (const t of this.recheck.values()) clearTimeout(t);
    this.recheck.clear();
    this.problems.dispose();
  }
}
