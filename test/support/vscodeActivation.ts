// VS Code's own activation figures for the extension, read inside a code-server workbench:
// test/e2e/extension.test.ts records them after its startup scenario, bench/hostResponsiveness.ts
// reads them itself on fresh extension hosts.

import { join } from 'node:path';
import type { Page } from 'playwright-core';

/**
 * How long one step of the workbench (an editor to show, a row to render) may take. Generous: with
 * other work on the machine (a load of 30 on 2 cores was seen) one step took a minute.
 */
const STEP_MS = 120_000;

/** page.evaluate has no timeout of its own, and a clipboard read can wait for a focus that never comes. */
async function clipboardText(page: Page): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(''), 10_000);
  });
  try {
    return String(await Promise.race([page.evaluate('navigator.clipboard.readText()'), late]));
  } finally {
    clearTimeout(timer);
  }
}

/** Where test/e2e/extension.test.ts leaves the activation time it read. */
export const E2E_ACTIVATION_RECORD = join(__dirname, '..', '..', 'test-results', 'e2e', 'activation.json');

export interface Activation {
  /** "Activation: N ms" in Developer: Show Running Extensions: VS Code's code-loading time plus the activate() call. */
  shownMs: number;
  /** VS Code's code-loading time: from its start of loading this extension to the end of the require. */
  loadMs: number;
  /** The synchronous activate() call. */
  activateMs: number;
  /**
   * require() of dist/extension.js itself (the vscode API object included), from the extension
   * host's will/didLoadExtensionCode marks; null when the activation came after the window's startup,
   * whose marks are all Startup Performance lists.
   */
  requireMs: number | null;
  /** Extensions whose code VS Code loaded inside this one's code-loading time, before its require. */
  loadedBefore: string[];
  event: string;
}

/**
 * VS Code's own activation figures for the extension, read in the workbench: the number Running
 * Extensions shows, and from Developer: Startup Performance (copied whole through the clipboard,
 * its editor only renders what is on screen) the split into code loading and the activate() call,
 * the activation event, and, for an activation during the window's startup, the extension host's
 * perf marks. Those show the require itself: VS Code starts the clock of every extension of an
 * activation batch, then requires them one after the other, so one's code-loading time includes
 * the require of those ahead of it in the batch.
 */
export async function readActivation(page: Page, runCommand: (page: Page, title: string) => Promise<void>): Promise<Activation> {
  const viewport = page.viewportSize();
  // Tall while both editors are read: Running Extensions renders only the rows on screen, and the
  // Startup Performance editor only its lines on screen, so "Extension Activation Stats" lies below
  // a window-sized view and never renders there.
  await page.setViewportSize({ width: viewport?.width ?? 1400, height: 2400 });
  let shownMs: number;
  let text = '';
  const id = 'prompt-inspector.prompt-inspector';
  try {
    await runCommand(page, 'Developer: Show Running Extensions');
    const row = page.locator('.monaco-list-row', { hasText: 'Prompt Inspector' }).first();
    await row.getByText(/Activation: \d+ms/).waitFor({ state: 'visible', timeout: STEP_MS });
    shownMs = Number(/Activation: (\d+)ms/.exec(await row.innerText({ timeout: STEP_MS }))?.[1]);
    // Closed, not left behind the next editor: a reload would restore it and render it again.
    await runCommand(page, 'View: Close Editor');

    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await runCommand(page, 'Developer: Startup Performance');
    const editor = page.locator('.editor-instance .monaco-editor', { hasText: 'Extension Activation Stats' }).first();
    await editor.waitFor({ state: 'visible', timeout: STEP_MS });
    for (let tries = 0; !text.includes(`| ${id} `); tries++) {
      if (tries === 20) throw new Error(`${id} is not in Developer: Startup Performance's activation table`);
      await page.waitForTimeout(500);
      await editor.locator('.view-lines').click({ timeout: STEP_MS });
      await page.keyboard.press('Control+A');
      await page.keyboard.press('Control+C');
      text = await clipboardText(page);
    }
    await runCommand(page, 'View: Close Editor');
  } finally {
    // Back to the window's own size before anything else renders: a tall page renders slowly.
    if (viewport) await page.setViewportSize(viewport);
  }

  // | id | eager | load code | call activate | finish activate | event | by |
  const cells = (text.split('\n').find((l) => l.startsWith(`| ${id} `)) ?? '').split('|').map((c) => c.trim());
  const loadMs = Number(cells[3]);
  // Raw marks: name, epoch ms, delta, total; the extension host's are the last that name this extension.
  const marks = new Map<string, number>();
  for (const line of text.split('\n')) {
    const [name, at] = line.split('\t');
    if (name?.startsWith('code/extHost/') && at) marks.set(name, Number(at));
  }
  const willLoad = marks.get(`code/extHost/willLoadExtensionCode/${id}`);
  const didLoad = marks.get(`code/extHost/didLoadExtensionCode/${id}`);
  const loadedBefore =
    willLoad === undefined || didLoad === undefined
      ? []
      : [...marks]
          .filter(([name, at]) => name.startsWith('code/extHost/didLoadExtensionCode/') && !name.endsWith(id) && at > didLoad - loadMs && at <= willLoad)
          .map(([name]) => name.slice('code/extHost/didLoadExtensionCode/'.length));
  const requireMs = willLoad === undefined || didLoad === undefined ? null : didLoad - willLoad;
  return { shownMs, loadMs, activateMs: Number(cells[4]), requireMs, loadedBefore, event: cells[6] };
}
