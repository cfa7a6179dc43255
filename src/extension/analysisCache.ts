// One analysis per transcript file and settings, shared by the inspector views, the tree and the
// Problems panel, recomputed when the file changes. At most one analysis per file is in flight.

import * as vscode from 'vscode';
import { Inspection } from '../analysis/inspection';
import { analyze } from '../analysis/report';
import { createTokenCounter } from '../analysis/tokenizer';
import { PROFILES } from '../engine/profile';
import { loadTranscript } from '../transcripts/load';
import { readSettings } from './settings';

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

  private async compute(uri: vscode.Uri, profile: keyof typeof PROFILES, tokenizer: 'o200k_base' | 'cl100k_base'): Promise<Inspection> {
    const transcript = await loadTranscript(uri.fsPath);
    const analysis = analyze(transcript, { profile: PROFILES[profile], counter: createTokenCounter(tokenizer), messages: false });
    return new Inspection(analysis, vscode.workspace.asRelativePath(uri));
  }

  dispose(): void {
    this.changed.dispose();
  }
}
