// Transcript files in the workspace (by the configured globs) and in the optional Hermes home.

import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { readSettings } from './settings';

export async function findTranscripts(): Promise<vscode.Uri[]> {
  const { globs, hermesHome } = readSettings();
  const found = new Map<string, vscode.Uri>();
  for (const glob of globs) {
    for (const uri of await vscode.workspace.findFiles(glob, '**/node_modules/**', 2000)) found.set(uri.toString(), uri);
  }
  if (hermesHome) {
    const db = join(hermesHome, 'state.db');
    if (
      await stat(db).then(
        (s) => s.isFile(),
        () => false,
      )
    )
      found.set(vscode.Uri.file(db).toString(), vscode.Uri.file(db));
  }
  return [...found.values()].sort((a, b) => a.fsPath.localeCompare(b.fsPath));
}
