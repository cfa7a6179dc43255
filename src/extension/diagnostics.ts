// Findings in the Problems panel, at the transcript's file and line (for state.db: its first line,
// with the session and row named in the message, since a database has no lines). A message quotes
// paths, ids and transcript text: bidi controls in it are shown as the inspector shows them, as ⇆.

import * as vscode from 'vscode';
import type { Diagnostic } from '../shared/reportTypes';
import { revealBidiControls } from '../shared/shownText';

const SEVERITY: Record<string, vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
};

export function toDiagnostics(diagnostics: Diagnostic[]): vscode.Diagnostic[] {
  // Info findings too: the view's header counts them, and Problems' own filter hides them.
  return diagnostics.map((d) => {
    const line = Math.max(0, (d.line ?? 1) - 1);
    const column = Math.max(0, (d.column ?? 1) - 1);
    const where = d.line === undefined && d.sessionId ? ` (session ${d.sessionId}${d.rowId !== undefined ? `, message id ${d.rowId}` : ''})` : '';
    const diag = new vscode.Diagnostic(
      new vscode.Range(line, column, line, Number.MAX_SAFE_INTEGER),
      revealBidiControls(`${d.message}${where}`),
      SEVERITY[d.severity],
    );
    diag.code = d.code;
    diag.source = 'prompt-inspector';
    return diag;
  });
}
