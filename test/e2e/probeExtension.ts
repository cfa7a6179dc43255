/**
 * A throwaway extension that exercises the harness end to end: built into a temp dir and packaged
 * with vsce at test time, never committed as an extension of its own.
 *
 * Its one command, "E2E Probe: Show", calls workspace.findFiles (a real extension host with the
 * folder open), then opens a webview under a strict CSP with a nonce'd script that defines a custom
 * element with an open shadowRoot, the same shape as the real app (`prompt-inspector-app`).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './codeServer';

export const PROBE_COMMAND_TITLE = 'E2E Probe: Show';

const EXTENSION_JS = String.raw`
const vscode = require('vscode');

function activate(context) {
  context.subscriptions.push(vscode.commands.registerCommand('piE2eProbe.show', async () => {
    const files = await vscode.workspace.findFiles('**/*.txt');
    const folder = vscode.workspace.workspaceFolders ? vscode.workspace.workspaceFolders[0].name : '(none)';
    const panel = vscode.window.createWebviewPanel('piE2eProbe', 'E2E Probe', vscode.ViewColumn.One, { enableScripts: true });
    const nonce = Math.random().toString(36).slice(2) + Date.now().toString(36);
    const csp = "default-src 'none'; style-src " + panel.webview.cspSource + " 'nonce-" + nonce + "'; script-src 'nonce-" + nonce + "'";
    const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
    panel.webview.html = '<!DOCTYPE html><html><head><meta charset="utf-8">' +
      '<meta http-equiv="Content-Security-Policy" content="' + csp + '">' +
      '<style nonce="' + nonce + '">body{font-family:var(--vscode-font-family);color:var(--vscode-foreground);font-size:16px;padding:16px}' +
      '#probe{font-size:28px;font-weight:bold;color:var(--vscode-textLink-foreground)}</style></head><body>' +
      '<div id="probe">ok</div>' +
      '<div id="folder">folder: ' + esc(folder) + '</div>' +
      '<div id="files">txt files: ' + files.length + '</div>' +
      '<probe-app></probe-app>' +
      '<script nonce="' + nonce + '">' +
      'customElements.define("probe-app", class extends HTMLElement { connectedCallback() {' +
      '  const root = this.attachShadow({ mode: "open" });' +
      '  root.innerHTML = "<p id=\\"inner\\">shadow ok</p>";' +
      '} });' +
      '</script></body></html>';
  }));
}

module.exports = { activate, deactivate() {} };
`;

/** Builds and packages the probe extension; returns the .vsix path. */
export function buildProbeVsix(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pi-e2e-probe-'));
  const pkg = {
    name: 'pi-e2e-probe',
    displayName: 'Prompt Inspector E2E Probe',
    description: 'Throwaway extension that checks the end-to-end harness.',
    version: '0.0.1',
    publisher: 'prompt-inspector-e2e',
    license: 'MIT',
    engines: { vscode: '^1.90.0' },
    main: './extension.js',
    activationEvents: [],
    contributes: { commands: [{ command: 'piE2eProbe.show', title: PROBE_COMMAND_TITLE }] },
  };
  writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg, null, 2));
  writeFileSync(join(dir, 'extension.js'), EXTENSION_JS);
  writeFileSync(join(dir, 'README.md'), '# E2E probe\n\nChecks the end-to-end harness of Prompt Inspector.\n');
  const vsix = join(dir, 'pi-e2e-probe.vsix');
  const r = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/@vscode/vsce/vsce'), 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '-o', vsix],
    { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 },
  );
  if (r.status !== 0) throw new Error(`vsce package failed (${r.status ?? r.signal}):\n${r.stdout}${r.stderr}`);
  return vsix;
}

/** A small workspace folder for the probe to open. */
export function makeProbeWorkspace(): string {
  const ws = mkdtempSync(join(tmpdir(), 'pi-e2e-ws-'));
  mkdirSync(join(ws, 'notes'));
  writeFileSync(join(ws, 'a.txt'), 'a\n');
  writeFileSync(join(ws, 'notes/b.txt'), 'b\n');
  writeFileSync(join(ws, 'README.md'), '# probe workspace\n');
  return ws;
}
