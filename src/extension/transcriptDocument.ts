// A transcript open in the inspector: the custom editor's read-only document, or a panel's own. It
// holds the file's analysis in the worker for as long as any view shows the file; VS Code disposes
// an editor's document after its last editor closes, a panel disposes its own with itself.

import type * as vscode from 'vscode';
import type { AnalysisCache } from './analysisCache';

export class TranscriptDocument implements vscode.CustomDocument {
  private readonly held: vscode.Disposable;

  constructor(
    readonly uri: vscode.Uri,
    cache: AnalysisCache,
  ) {
    this.held = cache.hold(uri);
  }

  dispose(): void {
    this.held.dispose();
  }
}
