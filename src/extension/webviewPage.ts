// The page every Prompt Inspector webview loads (the bundle in dist/, under its CSP with a fresh
// nonce): the inspector's panels and editors and an agent project's overview alike.

import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { renderInspectorHtml } from '../shared/webviewHtml';

export function webviewPage(webview: vscode.Webview, extensionUri: vscode.Uri, title: string): string {
  const asset = (f: string): string => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', f)).toString();
  return renderInspectorHtml({
    title,
    nonce: randomBytes(16).toString('base64'),
    cspSource: webview.cspSource,
    script: { uri: asset('webview.js') },
    style: { uri: asset('webview.css') },
    codicons: { uri: asset('codicon.css') },
  });
}
