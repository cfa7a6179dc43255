// One analysis per transcript file and settings, shared by the inspector views, the tree and the
// Problems panel, recomputed when the file changes. At most one analysis per file is in flight.

import * as vscode from 'vscode';
import type { Inspection } from '../analysis/inspection';
import type { TokenizerName } from '../analysis/tokenizer';
import type { ProfileName } from '../engine/profile';
import { readSettings } from './settings';

type Engine = typeof import('./engine');
let engine: Engine | undefined;

/** dist/engine.js, required on the first analysis (kept out of the activation path). */
function loadEngine(): Engine {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  engine ??= require('./engine.js') as Engine;
  return engine;
}

export class AnalysisCache implements vscode.Disposable {
  private readonly entries = new Map<string, { key: string; inspection: Promise<Inspection> }>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  /** Fires after a transcript's analysis was recomputed because the file changed. */
  readonly onDidChange = this.changed.event;

  get(uri: vscode.Uri): Promise<Inspection> {
    const s = readSettings();
    const key = `${s.profile}|${s.tokenizer}`;
    const hit = this.entries.get(uri.toString());
    if (hit && hit.key === key) return hit.inspection;
    const inspection = this.compute(uri, s.profile, s.tokenizer);
    this.entries.set(uri.toString(), { key, inspection });
    return inspection;
  }

  /** Drops the cached analysis (the file changed) and tells the views to pull a new one. */
  invalidate(uri: vscode.Uri): void {
    if (this.entries.delete(uri.toString())) this.changed.fire(uri);
  }

  invalidateAll(): void {
    const uris = [...this.entries.keys()];
    this.entries.clear();
    for (const u of uris) this.changed.fire(vscode.Uri.parse(u));
  }

  private async compute(uri: vscode.Uri, profile: ProfileName, tokenizer: TokenizerName): Promise<Inspection> {
    const { analyze, createTokenCounter, Inspection, loadTranscript, PROFILES } = loadEngine();
    const transcript = await loadTranscript(uri.fsPath);
    const analysis = analyze(transcript, { profile: PROFILES[profile], counter: createTokenCounter(tokenizer), messages: false });
    return new Inspection(analysis, vscode.workspace.asRelativePath(uri));
  }

  dispose(): void {
    this.changed.dispose();
  }
}
