/**
 * Smoke test of the end-to-end harness itself (codeServer.ts): a throwaway probe extension is
 * packaged, installed into a real code-server, its command run from the palette, and its webview's
 * DOM (light DOM and a shadowRoot) read from inside the webview iframe, in both themes.
 *
 * Run alone: node --require tsx/cjs --test test/e2e/codeServer.test.ts
 * First run on a machine installs code-server (scripts/e2e-setup.sh, ~2 min).
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  THEMES,
  deepText,
  ensureE2eTools,
  findFrameWith,
  launchBrowser,
  openWorkbench,
  runCommand,
  reloadWorkbench,
  screenshot,
  startCodeServer,
  type CodeServer,
} from './codeServer';
import { PROBE_COMMAND_TITLE, buildProbeVsix, makeProbeWorkspace } from './probeExtension';

let server: CodeServer | undefined;
let browser: Browser | undefined;
let page: Page | undefined;
let workspace = '';
let vsixDir = '';

before(
  () => {
    ensureE2eTools(); // installs code-server on a fresh machine
  },
  { timeout: 20 * 60_000 },
);

after(async () => {
  await browser?.close().catch(() => undefined);
  await server?.stop();
  if (workspace) rmSync(workspace, { recursive: true, force: true });
  if (vsixDir) rmSync(vsixDir, { recursive: true, force: true });
});

describe('e2e harness', () => {
  it('probe extension webview in a real VS Code (light, then dark)', { timeout: 5 * 60_000 }, async () => {
    try {
      await probeScenario();
    } catch (e) {
      if (page) await screenshot(page, 'probe-failure').catch(() => undefined);
      if (server) process.stderr.write(`[e2e] code-server log (tail):\n${server.log().slice(-3000)}\n`);
      throw e;
    }
  });
});

async function probeScenario(): Promise<void> {
  const vsix = buildProbeVsix();
  vsixDir = vsix.slice(0, vsix.lastIndexOf('/'));
  workspace = makeProbeWorkspace();

  server = await startCodeServer({ workspace, vsix, colorTheme: THEMES.light });
  browser = await launchBrowser();
  page = await openWorkbench(browser, server.url, workspace);
  assert.ok(await page.locator('.monaco-workbench.vs').count(), 'light theme (.monaco-workbench.vs) at start');

  await runCommand(page, PROBE_COMMAND_TITLE);
  const frame = await findFrameWith(page, '#probe', 30_000);
  assert.equal(await deepText(frame, '#probe'), 'ok');
  assert.equal(await deepText(frame, '#folder'), `folder: ${workspace.slice(workspace.lastIndexOf('/') + 1)}`);
  assert.equal(await deepText(frame, '#files'), 'txt files: 2', 'workspace.findFiles in the extension host');

  // The custom element's content lives in its shadowRoot: the selector form looks there too,
  // and a predicate evaluated in the frame can do anything.
  const sameFrame = await findFrameWith(page, '#inner', 10_000);
  assert.equal(await deepText(sameFrame, '#inner'), 'shadow ok');
  await findFrameWith(
    page,
    () => {
      const el = (globalThis as any).document.querySelector('probe-app');
      return el?.shadowRoot?.querySelector('#inner')?.textContent === 'shadow ok';
    },
    10_000,
  );
  const light = await screenshot(page, 'probe-light');

  // Settings are read when the page loads: switch to the dark theme and reload.
  server.writeSettings({ 'workbench.colorTheme': THEMES.dark });
  await reloadWorkbench(page);
  await page.waitForSelector('.monaco-workbench.vs-dark', { timeout: 30_000 });
  await runCommand(page, PROBE_COMMAND_TITLE);
  assert.equal(await deepText(await findFrameWith(page, '#probe', 30_000), '#probe'), 'ok');
  const dark = await screenshot(page, 'probe-dark');
  process.stderr.write(`[e2e] screenshots: ${light} ${dark}\n`);
}
