/**
 * The extension in a real VS Code (code-server): the packaged .vsix installed, the examples as the
 * workspace, the inspector opened from the palette and through "Reopen Editor With…", stepped with
 * the keyboard, its webview's DOM read inside its iframe, the Problems panel, live refresh, the
 * session overview of a home of several sessions (sort, filter, open a lineage and back, a live
 * SQLite writer), restore after a reload, a state.db listed only, and screenshots in the light and
 * dark themes (test-results/e2e/).
 *
 * Run alone: node --require tsx/cjs --test test/e2e/extension.test.ts
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  closeSync,
  copyFileSync,
  cpSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Frame, Locator, Page } from 'playwright-core';
import { E2E_ACTIVATION_RECORD, readActivation } from '../support/vscodeActivation';
import { inspect } from '../support/webviewHarness';
import { PYTHON } from '../support/python';
import { sqliteExec } from '../support/sqliteExec';
import { HERMES_STORE_PY } from '../support/upstreamStores';
import { FOREIGN } from '../support/foreignFixtures';
import { everyLineage, filterLineages, overviewColumn, sortLineages } from '../../src/shared/overviewColumns';
import type { OverviewColumn } from '../../src/shared/overviewColumns';
import type { OverviewLineage, SessionOverview } from '../../src/shared/overviewTypes';
import { shortPath } from '../../src/extension/tabTitle';
import {
  CODE_SERVER_VERSION,
  RESULTS_DIR,
  ROOT,
  THEMES,
  ensureE2eTools,
  findFrameWith,
  launchBrowser,
  openWorkbench,
  reloadWorkbench,
  runCommand,
  screenshot,
  startCodeServer,
  type CodeServer,
} from './codeServer';

const VSIX = join(ROOT, 'prompt-inspector.vsix');
const OPEN = 'Prompt Inspector: Open Transcript…';

let server: CodeServer | undefined;
let browser: Browser | undefined;
let page: Page | undefined;
let workspace = '';
/** Claude Code's projects folder and Codex's sessions folder as the agents lay them out, outside the workspace (settings point at them). */
let agentHome = '';
const SPOTTER = 'ae4a77f8-aedd-4bc1-888f-c94edc91af04';
const ROLLOUT = 'rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl';
/**
 * Two 2,000-session homes (~120 MB each) beside the workspace, made while the first scenarios run:
 * one opened, then the other put in its place. The first is written by hermes_home.py (40 s of a
 * core); the second is the first with a quarter of its lone sessions deleted by SQLite (a second):
 * other lineages in a file of the same size, which the worker reads whole again (its log says
 * "rewritten": the sessions left are kept, not replayed, and the read alone takes seconds).
 */
let bigHomes: Promise<string[]> | undefined;

function writeBigHome(dir: string, seed: number): Promise<string> {
  const args = [join(ROOT, 'test/support/hermes_home.py'), dir, '--sessions', '2000', '--seed', String(seed), '--target-mb', '120'];
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(join(dir, 'state.db')) : reject(new Error(`hermes_home.py exited ${code}`))));
  });
}

/** A copy of `home` in `dir` with every fourth session that has no parent and no child deleted, in every table that names it. */
function otherHome(home: string, dir: string): Promise<string> {
  const db = join(dir, 'state.db');
  mkdirSync(dir, { recursive: true });
  copyFileSync(home, db);
  const script = `
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN")
c.execute("""CREATE TEMP TABLE gone AS SELECT id FROM sessions s WHERE parent_session_id IS NULL AND rowid % 4 = 0
  AND NOT EXISTS (SELECT 1 FROM sessions k WHERE k.parent_session_id = s.id)""")
tables = [t for (t,) in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
          if any(col[1] == 'session_id' for col in c.execute(f'PRAGMA table_info("{t}")'))]
for t in tables:
    c.execute(f'DELETE FROM "{t}" WHERE session_id IN (SELECT id FROM gone)')
c.execute("DELETE FROM sessions WHERE id IN (SELECT id FROM gone)")
c.execute("COMMIT")
`;
  return new Promise((resolve, reject) => {
    execFile(PYTHON, ['-c', script, db], (err, _stdout, stderr) =>
      err ? reject(new Error(`deleting sessions from ${db}: ${stderr || err.message}`)) : resolve(db),
    );
  });
}

before(
  () => {
    // Said first, not as an ENOENT from a copy after the package is built: a clone outside /work has
    // no ../shared, and the scenarios are not to be skipped.
    assert.ok(existsSync(FOREIGN), `the VS Code scenarios open real files other agents wrote, kept in ${FOREIGN}: clone the repository beside ../shared`);
    ensureE2eTools();
    // The real package, as a user installs it (vsce runs the production build first).
    execFileSync('npm', ['run', 'package', '--silent'], { cwd: ROOT, stdio: 'inherit' });
    // A fixed path for this checkout (not a random temp name): the window title, the Explorer and the
    // inspector's header show it, and the README's pictures (media/) only change when the product does.
    workspace = join(tmpdir(), `prompt-inspector-e2e-${createHash('sha256').update(ROOT).digest('hex').slice(0, 8)}`, 'ledger-sync');
    rmSync(dirname(workspace), { recursive: true, force: true });
    mkdirSync(workspace, { recursive: true });
    for (const dir of ['sidecars', 'rotation', 'rotation-prompt-changed', 'trace'])
      cpSync(join(ROOT, 'examples', dir), join(workspace, dir), { recursive: true });
    agentHome = join(dirname(workspace), 'agent-home');
    const project = join(agentHome, 'claude-projects', '-home-USER-projects-spotter-worktrees-spotter-4te');
    mkdirSync(project, { recursive: true });
    cpSync(join(FOREIGN, 'claude-code', 'spotter', `${SPOTTER}.jsonl`), join(project, `${SPOTTER}.jsonl`));
    cpSync(join(FOREIGN, 'claude-code', 'spotter', SPOTTER), join(project, SPOTTER), { recursive: true });
    const day = join(agentHome, 'codex-sessions', '2026', '05', '11');
    mkdirSync(day, { recursive: true });
    cpSync(join(FOREIGN, 'codex', 'codemie-code', ROLLOUT), join(day, ROLLOUT));
    const first = writeBigHome(join(dirname(workspace), 'big-home-20'), 20);
    bigHomes = first.then(async (home) => [home, await otherHome(home, join(dirname(workspace), 'big-home-21'))]);
    bigHomes.catch(() => undefined); // awaited, and reported, by its scenario
  },
  { timeout: 20 * 60_000 },
);

after(async () => {
  await browser?.close().catch(() => undefined);
  await server?.stop();
  if (workspace) rmSync(dirname(workspace), { recursive: true, force: true });
});

/**
 * The screenshots the README shows (its pictures under media/), by their name here. The run writes
 * each under test-results/media/ with the picture's name, and never touches media/ itself (`npm test`
 * leaves the work tree as it found it): `npm run media` copies the ones that changed into media/, to
 * be committed with the change of look.
 */
const README_PICTURES: Readonly<Record<string, string>> = {
  'sidecars-light': 'sidecars.png',
  'rotation-compaction-light': 'compaction.png',
  'prompt-changed-cache-light': 'cache-break.png',
  'transcripts-view-light': 'agent-transcripts.png',
  'overview-light': 'overview-light.png',
  'overview-dark': 'overview-dark.png',
  'overview-1440-sidebar-light': 'overview-1440.png',
  'overview-1100-light': 'overview-1100.png',
  'overview-lineage-open-light': 'lineage-tab.png',
  'billed-overview-light': 'billed-overview.png',
  'billed-lineage-light': 'billed-lineage.png',
  'billed-miss-classes-light': 'billed-miss-classes.png',
  'recorded-claude-code-light': 'recorded-claude-code.png',
  'recorded-codex-light': 'recorded-codex.png',
  'recorded-har-light': 'recorded-har.png',
  'agent-project-light': 'agent-project.png',
  'analysis-progress-light': 'analysis-progress.png',
};

/** A HAR of two Anthropic calls, the second with the first question edited: a break at message 0, byte 26. */
function rewrittenHistoryHar(): unknown {
  const request = (messages: unknown[]) => ({ model: 'claude-sonnet-4-5', system: 'You are terse.', messages });
  const entry = (body: unknown, id: string, read: number, write: number, at: string) => ({
    startedDateTime: at,
    request: {
      method: 'POST',
      url: 'https://api.anthropic.com/v1/messages',
      headers: [],
      postData: { mimeType: 'application/json', text: JSON.stringify(body) },
    },
    response: {
      status: 200,
      headers: [],
      content: {
        mimeType: 'application/json',
        text: JSON.stringify({
          id,
          model: 'claude-sonnet-4-5',
          usage: { input_tokens: 2, cache_read_input_tokens: read, cache_creation_input_tokens: write, output_tokens: 40 },
        }),
      },
    },
  });
  const question = { role: 'user', content: 'question' };
  return {
    log: {
      version: '1.2',
      creator: { name: 'e2e', version: '1' },
      entries: [
        entry(request([question]), 'msg_1', 0, 4000, '2026-01-01T10:00:00.000Z'),
        entry(
          request([
            { ...question, content: 'Question' },
            { role: 'assistant', content: 'answer' },
            { role: 'user', content: 'more' },
          ]),
          'msg_2',
          0,
          4100,
          '2026-01-01T10:00:30.000Z',
        ),
      ],
    },
  };
}

/** screenshot(), and for a README picture its copy under test-results/media/. */
async function shot(p: Page, name: string): Promise<void> {
  const path = await screenshot(p, name);
  const picture = README_PICTURES[name];
  if (!picture) return;
  const target = join(RESULTS_DIR, 'media', picture);
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(path, target);
  const committed = join(ROOT, 'media', picture);
  if (!existsSync(committed) || !readFileSync(committed).equals(readFileSync(path)))
    process.stderr.write(`[e2e] media/${picture} differs from ${name}.png (npm run media copies it)\n`);
}

/** Runs a scenario; on failure keeps a screenshot and the end of code-server's log. */
function scenario(name: string, fn: () => Promise<void>, timeoutMs = 4 * 60_000): void {
  it(name, { timeout: timeoutMs }, async () => {
    try {
      await fn();
    } catch (e) {
      if (page) await screenshot(page, `failure-${name}`).catch(() => undefined);
      if (server) process.stderr.write(`[e2e] code-server log (tail):\n${server.log().slice(-3000)}\n`);
      throw e;
    }
  });
}

/** The inspector frame whose transcript path ends with `name`, once its index has arrived. */
function inspectorFor(name: string, timeoutMs = 30_000): Promise<Frame> {
  return findFrameWith(
    page as Page,
    (n: string) => {
      const app = (globalThis as any).document.querySelector('prompt-inspector-app');
      const path = app?.model?.index?.source?.path;
      return typeof path === 'string' && path.endsWith(n);
    },
    timeoutMs,
    name,
  );
}

/** What the view was given: the index header and counts, and the turns it marks as compacted. */
const appIndex = (frame: Frame): Promise<{ profile: string; turnCount: number; compactedTurns: number[] }> =>
  frame.evaluate(() => {
    const model = (globalThis as any).document.querySelector('prompt-inspector-app').model;
    const compactedTurns = Array.from({ length: model.turnCount }, (_, i) => i).filter((i) => model.compacted(i));
    return { profile: model.index.profile, turnCount: model.turnCount, compactedTurns };
  });
const selectedTurn = (frame: Frame): Promise<string | null> => frame.locator('turn-stepper [role=option][aria-selected=true]').getAttribute('id');

/**
 * The workbench reloaded with these user settings (code-server reads them only on a load) and the
 * theme they name drawn: each scenario that changes settings starts from this.
 */
async function reloadWithSettings(p: Page, theme: keyof typeof THEMES, more: Record<string, unknown> = {}): Promise<void> {
  (server as CodeServer).writeSettings({ 'workbench.colorTheme': THEMES[theme], ...more });
  await reloadWorkbench(p);
  await p.waitForSelector(theme === 'dark' ? '.monaco-workbench.vs-dark' : '.monaco-workbench.vs', { timeout: 30_000 });
}

/** How long the key-latency scenario waits for the tests beside it to end (scripts/run-full.mjs). */
const QUIET_WAIT_MS = 15 * 60_000;

/** `fn()` once `ok` holds for it; past `timeoutMs` it fails with the last value: a wait is an assertion. */
async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > deadline) assert.fail(`not so within ${timeoutMs} ms: ${ok.toString()}; last seen ${JSON.stringify(v)?.slice(0, 400)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Presses `key` in an inspector and measures, inside its webview, from the keydown to the moment the
 * request it lands on shows its messages: a round trip through the host to the file's engine.
 * -1 when that did not happen within 10 s.
 */
async function keyAnswered(frame: Frame, key: string): Promise<number> {
  // Strings, not functions: tsx would name the helpers inside with a `__name` the page lacks.
  // The probe is in place before the key is pressed: started together, a loaded machine ran the
  // press first and the probe then waited for a key that had already come (a CI run saw -1).
  await frame.evaluate(`(() => {
    const root = document.querySelector('prompt-inspector-app').shadowRoot;
    const selected = () => root.querySelector('request-bar')?.shadowRoot?.querySelector('[role=tab][aria-selected=true]')?.dataset.request;
    const shown = () => {
      const list = root.querySelector('message-list')?.shadowRoot;
      return !!list?.querySelector('message-view') && !list.querySelector('[data-placeholder]');
    };
    const from = selected();
    let pressed = -1;
    addEventListener('keydown', () => (pressed = performance.now()), { capture: true, once: true });
    const started = performance.now();
    globalThis.__keyAnswered = new Promise((resolve) => {
      const poll = () => {
        const now = performance.now();
        if (pressed >= 0 && selected() !== from && shown()) resolve(now - pressed);
        else if (now - started > 10000) resolve(-1);
        else requestAnimationFrame(poll);
      };
      requestAnimationFrame(poll);
    });
  })()`);
  await (page as Page).keyboard.press(key);
  return frame.evaluate<number>('globalThis.__keyAnswered');
}

async function openFromPalette(filter: string): Promise<void> {
  const p = page as Page;
  await runCommand(p, OPEN);
  const input = p.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible' });
  await input.fill(filter);
  await p.locator('.quick-input-widget .quick-input-list .monaco-list-row').first().waitFor({ state: 'visible' });
  await p.keyboard.press('Enter');
}

/**
 * A turn-trace line asking `user` `minutes` after the turn `line` records, with that turn's replies:
 * a new turn of the same session (no history count, notes or plugin context of its own).
 */
function turnAskedAgain(line: string, user: string, minutes: number): string {
  const next = JSON.parse(line);
  delete next.historyLength;
  delete next.gatewayNotes;
  delete next.pluginContext;
  next.userMessage = user;
  next.messages[0] = { role: 'user', content: user, timestamp: next.messages[0].timestamp + 60 * minutes };
  return JSON.stringify(next);
}

/**
 * The example trace with `extra` turns more, each the last turn asked again (two requests each), at
 * `path`: enough requests that every key of a latency measurement lands on one not shown before.
 */
function writeLongTrace(path: string, extra: number): void {
  const lines = readFileSync(join(ROOT, 'examples/trace/agent.trace.jsonl'), 'utf8').trim().split('\n');
  const last = lines[lines.length - 1];
  for (let i = 1; i <= extra; i++) lines.push(turnAskedAgain(last, `follow-up ${i}: tag the release`, 10 * i));
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${lines.join('\n')}\n`);
}

// ---- the session overview of a home of several sessions ----

/** Where the home's state.db is put: written by the upstream write paths' reconstruction (hermes_store.py). */
const HOME = 'home/state.db';

/** Builds the home into the workspace (real SQLite through python3); once. */
function buildHome(): string {
  const dir = join(workspace, 'home');
  if (!existsSync(join(dir, 'state.db'))) execFileSync(PYTHON, [HERMES_STORE_PY, 'home', dir], { stdio: ['ignore', 'ignore', 'inherit'] });
  return join(dir, 'state.db');
}

function cliJson(...args: string[]): any {
  return JSON.parse(execFileSync(process.execPath, [join(ROOT, 'dist/cli.js'), ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }));
}

/** Lineage ids as the overview lists them: each lineage, then its forks. */
const flat = (lineages: readonly OverviewLineage[]): string[] => lineages.flatMap((l) => [l.id, ...flat(l.children)]);

/** The page of `name` showing its session overview. */
function overviewFor(name: string, timeoutMs = 30_000): Promise<Frame> {
  return findFrameWith(
    page as Page,
    (n: string) => {
      const app = (globalThis as any).document.querySelector('prompt-inspector-app');
      const path = app?.overview?.source?.path;
      return (
        typeof path === 'string'
        && path.endsWith(n)
        && app.onOverview === true
        && !!app.shadowRoot?.querySelector('session-overview')?.shadowRoot?.querySelector('.body [role=row]')
      );
    },
    timeoutMs,
    name,
  );
}

/** What the overview shows: whether it is shown, its lineage rows in order, the filter box and the sorted column. */
const overviewShown = (frame: Frame): Promise<{ onOverview: boolean; rows: string[]; filter: string; sorted: { column: string; order: string } | null }> =>
  frame.evaluate(() => {
    const app = (globalThis as any).document.querySelector('prompt-inspector-app');
    const root = app.shadowRoot.querySelector('session-overview')?.shadowRoot;
    const rows = Array.from(root?.querySelectorAll('.body [role=row]') ?? [])
      .filter((r: any) => !r.dataset.session)
      .sort((a: any, b: any) => Number(a.getAttribute('aria-rowindex')) - Number(b.getAttribute('aria-rowindex')))
      .map((r: any) => r.dataset.lineage as string);
    const head = root?.querySelector('[role=columnheader][aria-sort=ascending], [role=columnheader][aria-sort=descending]');
    return {
      onOverview: app.onOverview === true,
      rows,
      filter: root?.querySelector('input[type=search]')?.value ?? '',
      sorted: head ? { column: head.dataset.column, order: head.getAttribute('aria-sort') } : null,
    };
  });

/** Empties the filter box and waits for every one of the `lineages` rows to be back. */
async function clearFilter(frame: Frame, lineages: number): Promise<void> {
  await frame.locator('session-overview input[type=search]').fill('');
  await eventually(
    () => overviewShown(frame),
    (v) => v.filter === '' && v.rows.length === lineages,
  );
}

/** Opens a lineage as a user does: its row focused by a click on a plain cell, then Enter. */
async function openRow(frame: Frame, lineage: string): Promise<void> {
  await frame.locator(`session-overview .body [role=row][data-lineage="${lineage}"]:not([data-session]) [data-column=source]`).click();
  await (page as Page).keyboard.press('Enter');
}

/** A lineage row's cell of one column, as shown. */
const overviewCell = (frame: Frame, lineage: string, column: string): Promise<string> =>
  frame.locator(`session-overview .body [role=row][data-lineage="${lineage}"]:not([data-session]) [data-column="${column}"]`).innerText();

/** The rows the overview should show for a sort and filter: the shared column code over the CLI's overview. */
function expectedRows(overview: SessionOverview, column: OverviewColumn, descending: boolean, text?: string): string[] {
  return flat(filterLineages(sortLineages(overview.lineages, column, descending), { text }));
}

/** The lines of the extension's log (its "Prompt Inspector" output channel, kept in code-server's log files). */
function extensionLog(): string[] {
  const lines: string[] = [];
  const walk = (dir: string): void => {
    for (const e of existsSync(dir) ? readdirSync(dir, { withFileTypes: true }) : []) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      // Whole lines only: a count of lines taken before a write must not include the one to come.
      else if (e.name.endsWith('Prompt Inspector.log'))
        lines.push(
          ...readFileSync(path, 'utf8')
            .split('\n')
            .filter((l) => l !== ''),
        );
    }
  };
  walk(join((server as CodeServer).userDataDir, 'logs'));
  return lines;
}

/** Every log file code-server keeps, for a failure's message. */
function logFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of existsSync(dir) ? readdirSync(dir, { withFileTypes: true }) : []) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else out.push(join(dir, e.name).slice((server as CodeServer).userDataDir.length + 1));
    }
  };
  walk(join((server as CodeServer).userDataDir, 'logs'));
  return out;
}

/**
 * A turn appended to session `sessionId` as the agent writes one: its user row and the reply in one
 * transaction of real SQLite (python3), while the extension has the file open.
 */
function appendTurn(db: string, sessionId: string, user: string): void {
  const script = `
import sqlite3, sys
db, sid, user = sys.argv[1:4]
c = sqlite3.connect(db)
(ts,) = c.execute("SELECT max(timestamp) FROM messages WHERE session_id = ?", (sid,)).fetchone()
c.execute("INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', ?, ?)", (sid, user, ts + 60))
c.execute("INSERT INTO messages (session_id, role, content, timestamp, finish_reason) VALUES (?, 'assistant', 'Done: tagged v1.4.0.', ?, 'stop')", (sid, ts + 64))
c.execute("UPDATE sessions SET message_count = message_count + 2, api_call_count = api_call_count + 1 WHERE id = ?", (sid,))
c.commit()
c.close()
`;
  execFileSync(PYTHON, ['-c', script, db, sessionId, user]);
}

describe('Prompt Inspector in a real VS Code (code-server)', () => {
  scenario('palette: open the sidecar session, step with the keyboard, memory fence and stored-vs-sent', async () => {
    server = await startCodeServer({
      workspace,
      vsix: VSIX,
      colorTheme: THEMES.light,
      settings: {
        'promptInspector.claudeCodeProjects': join(agentHome, 'claude-projects'),
        'promptInspector.codexSessions': join(agentHome, 'codex-sessions'),
      },
    });
    browser = await launchBrowser();
    page = await openWorkbench(browser, server.url, workspace);

    await openFromPalette('sidecars/session_');
    const frame = await inspectorFor('session_20260918_101500_a1b2c3.json');
    const index = await appIndex(frame);
    assert.equal(index.turnCount, 5);
    assert.equal(index.profile, 'hermes-current');

    // The first request's user row: the memory fence highlighted with its kind, stored vs sent.
    const fence = frame.locator('message-view mark[data-kind=memory]').first();
    await fence.waitFor({ state: 'visible', timeout: 15_000 });
    assert.match((await fence.textContent()) ?? '', /^<memory-context>/);
    assert.equal(await frame.locator('message-view .chip[data-kind=memory]').first().textContent(), 'memory');
    const sub = frame.locator('message-view [data-substitution=sidecar]').first();
    const stored = (await sub.locator('pre.stored').textContent()) ?? '';
    assert.ok(stored.length > 0);
    assert.ok(((await sub.locator('pre.sent').textContent()) ?? '').startsWith(stored));
    await shot(page, 'sidecars-light');

    // Keyboard inside the webview, then the extension's own keybinding through the host.
    assert.equal(await selectedTurn(frame), 'turn-0');
    await frame.locator('turn-stepper #turn-0').click();
    await page.keyboard.press('j');
    assert.equal(
      await eventually(
        () => selectedTurn(frame),
        (v) => v === 'turn-1',
      ),
      'turn-1',
    );
    await page.keyboard.press('k');
    assert.equal(
      await eventually(
        () => selectedTurn(frame),
        (v) => v === 'turn-0',
      ),
      'turn-0',
    );
    await runCommand(page, 'Prompt Inspector: Next Turn');
    assert.equal(
      await eventually(
        () => selectedTurn(frame),
        (v) => v === 'turn-1',
      ),
      'turn-1',
      'host command navigates the view',
    );
    await screenshot(page, 'sidecars-turn1-light');
  });

  scenario('Open With…: state.db with a rotation shows the compaction and the re-anchored index', async () => {
    const p = page as Page;
    // Explorer: expand rotation/, open state.db (a binary file), then reopen it with the inspector.
    const explorerRow = (name: string) =>
      p.locator('.explorer-folders-view .monaco-list-row', { has: p.locator('.label-name', { hasText: new RegExp(`^${name.replace('.', '\\.')}$`) }) }).first();
    await explorerRow('rotation').click();
    await explorerRow('state.db').click();
    await runCommand(p, 'View: Reopen Editor With...');
    const choice = p.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: 'Prompt Inspector' }).first();
    await choice.waitFor({ state: 'visible', timeout: 15_000 });
    await choice.click();

    const frame = await inspectorFor('rotation/state.db');
    const index = await appIndex(frame);
    const turn = index.compactedTurns[0];
    assert.ok(turn !== undefined, 'a turn with a compaction');
    await frame.locator(`turn-stepper #turn-${turn}`).click();
    const panel = frame.locator('compaction-panel');
    await panel.waitFor({ state: 'visible', timeout: 10_000 });
    const table = await panel.locator('table').innerText();
    // What the panel must say: the same compaction as the engine gives in Node.
    const c = (await inspect(join(ROOT, 'examples/rotation/state.db'), 'hermes-current')).turns[turn].compression;
    assert.ok(c);
    const n = (x: number) => x.toLocaleString('en');
    assert.ok(table.includes(`${n(c.beforeTokens)} → ${n(c.afterTokens)}`), table);
    const reanchor = await panel.locator('[data-reanchor]').innerText();
    assert.match(reanchor, new RegExp(`${c.reanchor.before}\\s*→\\s*${c.reanchor.after}`));
    assert.match(reanchor, /exact/);
    await shot(p, 'rotation-compaction-light');
  });

  scenario('cache panel and Problems panel: a changed system prompt at the file and line', async () => {
    const p = page as Page;
    await openFromPalette('rotation-prompt-changed');
    const frame = await inspectorFor('rotation-prompt-changed/state.db');
    await p.keyboard.press('Escape');
    await frame.locator('turn-stepper #turn-0').click();
    await p.keyboard.press('b');
    const status = await eventually(
      () => frame.locator('cache-panel [data-status]').innerText(),
      (t) => /system-changed/.test(t),
    );
    assert.match(status, /cache break/);
    assert.match(status, /system-changed/);
    assert.match(await frame.locator('cache-panel [data-first-difference]').innerText(), /message #0, byte 1,469/);
    assert.match(await frame.locator('cache-panel [data-system=changed]').innerText(), /≠ request #10/);
    // The picture shows the first differing byte: the compaction panel above it fills the column.
    await frame.locator('cache-panel [data-first-difference]').scrollIntoViewIfNeeded();
    await shot(p, 'prompt-changed-cache-light');

    await runCommand(p, 'Problems: Focus on Problems View');
    const markers = p.locator('.markers-panel');
    const problems = await eventually(
      () => markers.innerText(),
      (t) => t.includes('system-prompt-changed'),
      15_000,
    );
    assert.match(problems, /state\.db/);
    assert.match(problems, /system prompt differs from request 10's at byte 1469/);
    assert.match(problems, /\[Ln 1, Col 1\]/);
    await screenshot(p, 'problems-light');
  });

  scenario('the Agent Transcripts view: transcripts → sessions → turns with break and compaction badges', async () => {
    const p = page as Page;
    const view = p.locator('.pane', { has: p.locator('.pane-header', { hasText: 'Agent Transcripts' }) });
    // Nobody opened it: on this first start in a workspace with transcripts it was shown by itself.
    assert.equal(await view.locator('.pane-header').getAttribute('aria-expanded'), 'true', 'Agent Transcripts shown on the first start');
    await runCommand(p, 'Explorer: Focus on Agent Transcripts View');
    const item = (label: string | RegExp) => view.locator('.monaco-list-row', { hasText: label }).first();
    await item('rotation-prompt-changed/state.db').waitFor({ state: 'visible', timeout: 20_000 });
    assert.ok(await item('sidecars/session_20260918_101500_a1b2c3.json').isVisible());
    assert.ok(await item('trace/agent.trace.jsonl').isVisible());
    await item('rotation-prompt-changed/state.db').locator('.monaco-tl-twistie').click();
    await item('20260919_093733_f4a5b6').waitFor({ state: 'visible', timeout: 20_000 });
    await item('20260919_093733_f4a5b6').locator('.monaco-tl-twistie').click();
    const compacted = item(/^Turn 5:/);
    await compacted.waitFor({ state: 'visible', timeout: 20_000 });
    const text = await compacted.innerText();
    assert.match(text, /1 cache break/);
    assert.match(text, /compaction/);
    await shot(p, 'transcripts-view-light');

    // A click goes to that turn's break in the panel already open on the file (the cache scenario
    // opened it), not to a new one.
    const tabs = () => p.locator('.tabs-container .tab', { hasText: 'rotation-prompt-changed/state.db' }).count();
    assert.equal(await tabs(), 1);
    const frame = await inspectorFor('rotation-prompt-changed/state.db');
    await frame.locator('turn-stepper #turn-0').click();
    await compacted.locator('.label-name').click();
    assert.equal(
      await eventually(
        () => selectedTurn(frame),
        (v) => v === 'turn-5',
        15_000,
      ),
      'turn-5',
    );
    assert.match(
      await eventually(
        () => frame.locator('cache-panel [data-status]').innerText(),
        (t) => /cache break/.test(t),
      ),
      /system-changed/,
      'lands on the request that broke',
    );
    assert.equal(await tabs(), 1, 'no second panel');
    // The same file opened again focuses its panel.
    await item('rotation-prompt-changed/state.db').locator('.label-name').click();
    await p.waitForTimeout(500);
    assert.equal(await tabs(), 1, 'opening the file again focuses its panel');

    // The palette describes each transcript: its kind and size, and its sessions once analysed.
    await runCommand(p, OPEN);
    const input = p.locator('.quick-input-widget .quick-input-box input');
    await input.fill('rotation-prompt-changed/state.db');
    const row = p.locator('.quick-input-widget .quick-input-list .monaco-list-row').first();
    await row.waitFor({ state: 'visible' });
    assert.match(await row.innerText(), /Hermes state\.db · [\d.]+ KB · 2 sessions/);
    await p.keyboard.press('Escape');
  });

  scenario('other agents: a Claude Code log, a Codex rollout, a cassette and a HAR capture shown as recorded, Problems clean once closed', async () => {
    const p = page as Page;
    // Real files other people's tools wrote (../shared/fixtures/foreign, PROVENANCE.md there), put in
    // the workspace for this run only; the HAR is built here, with a rewritten history.
    const name = `${SPOTTER}.jsonl`;
    const spotter = join(FOREIGN, 'claude-code', 'spotter');
    mkdirSync(join(workspace, 'claude'));
    cpSync(join(spotter, name), join(workspace, 'claude', name));
    cpSync(join(spotter, name.replace('.jsonl', '')), join(workspace, 'claude', name.replace('.jsonl', '')), { recursive: true });
    const rollout = ROLLOUT;
    mkdirSync(join(workspace, 'codex'));
    cpSync(join(FOREIGN, 'codex', 'codemie-code', rollout), join(workspace, 'codex', rollout));
    writeFileSync(join(workspace, 'codex', 'capture.har'), JSON.stringify(rewrittenHistoryHar(), null, 1));
    cpSync(join(FOREIGN, 'api-capture', 'openllmetry', 'anthropic_prompt_caching.yaml'), join(workspace, 'codex', 'cassette.yaml'));
    await runCommand(p, 'Refresh Explorer');
    const explorerRow = (label: string) => p.locator('.explorer-folders-view .monaco-list-row', { has: p.locator('.label-name', { hasText: label }) }).first();
    await runCommand(p, 'View: Show Explorer');
    /** As the issue's user did: the file opened from the Explorer, then reopened with the inspector. */
    const reopenWithInspector = async (folder: string | null, file: string): Promise<Frame> => {
      if (folder) await explorerRow(folder).click();
      await explorerRow(file).click();
      await runCommand(p, 'View: Reopen Editor With...');
      const choice = p.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: 'Prompt Inspector' }).first();
      await choice.waitFor({ state: 'visible', timeout: 15_000 });
      await choice.click();
      return findFrameWith(
        p,
        (n: string) => {
          const path = (globalThis as any).document.querySelector('prompt-inspector-app')?.recorded?.source?.path;
          return typeof path === 'string' && path.endsWith(n);
        },
        30_000,
        file,
      );
    };
    const statusText = () => p.locator('.part.statusbar').innerText();
    /** The README's picture: the view alone, the panel hidden. */
    const picture = async (frame: Frame, row: string, name: string): Promise<void> => {
      await runCommand(p, 'View: Hide Panel');
      await frame.locator(`recorded-view ${row}`).first().scrollIntoViewIfNeeded();
      await shot(p, name);
    };

    // Claude Code: its compaction between the turns, the miss after it classed, what is not recorded.
    const claude = await reopenWithInspector('claude', name);
    const view = claude.locator('recorded-view');
    assert.match(await view.locator('h1').innerText(), /Claude Code session log · 2\.1\.39/);
    assert.match(await view.locator('.not-recorded').innerText(), /Not recorded in this format: system prompt, tool schemas, request bytes/);
    assert.equal(await view.locator('tr.compaction').first().innerText(), 'compaction (manual) at line 1481: 142,431 tokens before');
    const miss = view.locator('tr.miss');
    assert.equal(await miss.count(), 1);
    assert.match(await miss.innerText(), /1511[\s\S]*miss: 11,011 tokens billed again, expired \(idle 2,359 s > 300 s\)/);
    assert.equal(await view.locator('section[data-session]').count(), 3, 'the session, its Task subagent and the compaction call');
    assert.match(await eventually(statusText, (t) => /221 calls/.test(t), 15_000), /221 calls, 98% from the cache/);
    await picture(claude, 'tr.compaction', 'recorded-claude-code-light');
    await runCommand(p, 'Problems: Focus on Problems View');
    const rows = p.locator('.markers-panel .monaco-list-row');
    assert.equal(await rows.filter({ hasText: 'not-a-transcript' }).count(), 0);

    // Codex: the system prompt hashed per turn and byte-stable; its misses unexplained, in Problems as warnings.
    await runCommand(p, 'View: Show Explorer');
    const codex = await reopenWithInspector('codex', rollout);
    const codexView = codex.locator('recorded-view');
    assert.match(await codexView.locator('h1').innerText(), /Codex rollout · codex-tui 0\.125\.0/);
    assert.match(await codexView.locator('section').first().innerText(), /system prompt byte-stable in every turn \(sha256 c2a980bc28af…\)/);
    assert.equal(await codexView.locator('tr.miss').count(), 18);
    await picture(codex, 'tr.miss', 'recorded-codex-light');
    await runCommand(p, 'Problems: Focus on Problems View');
    await eventually(
      () => rows.filter({ hasText: 'cache-miss-unexplained' }).count(),
      (n) => n > 0,
      15_000,
    );
    assert.match(await statusText(), /17 unexplained misses/);

    // A vcrpy cassette (YAML): the same body sent twice, a write then a read of the whole prefix.
    await runCommand(p, 'View: Show Explorer');
    const cassette = (await reopenWithInspector(null, 'cassette.yaml')).locator('recorded-view');
    assert.match(await cassette.locator('h1').innerText(), /Recorded API traffic · cassette/);
    const cassetteCalls = cassette.locator('tr.call');
    assert.equal(await cassetteCalls.count(), 2);
    assert.deepEqual((await cassetteCalls.nth(1).locator('td').allInnerTexts()).map((t) => t.trim()).slice(4, 5), ['100%']);
    assert.equal(await cassette.locator('tr.miss, tr.break').count(), 0);

    // The HAR: its request's break located by message and byte; a prefix-break error in Problems.
    const har = await reopenWithInspector(null, 'capture.har');
    const broken = har.locator('recorded-view tr.break');
    assert.match(await broken.innerText(), /break at message 0, byte 26: history rewritten; miss: 4,000 tokens billed again, history rewritten/);
    // The request bytes are recorded: where the tokens go, the last call's first, a click shows another's.
    const where = har.locator('recorded-view .where');
    assert.match(await where.locator('.what').innerText(), /where the tokens of call 1 of turn 1 go/);
    assert.equal(await where.locator('category-bar tr[data-category="current-user"]').count(), 1);
    await har.locator('recorded-view tr.call').first().click();
    assert.match(
      await eventually(
        () => where.locator('.what').innerText(),
        (t) => /of turn 0/.test(t),
        10_000,
      ),
      /call 1 of turn 0/,
    );
    await picture(har, 'tr.break', 'recorded-har-light');
    await runCommand(p, 'Problems: Focus on Problems View');
    // Problems also lists the rotation store an earlier scenario left open, with a prefix-break of its
    // own: the HAR's is the one about a call by its id.
    const harBreaks = rows.filter({ hasText: 'prefix-break' }).filter({ hasText: /call msg_\d+/ });
    await eventually(
      () => harBreaks.count(),
      (n) => n === 1,
      15_000,
    );
    assert.match(await statusText(), /1 cache break/);

    // A file opened from the Explorer with one click is a preview: each of these replaced the one
    // before in the same tab. The last closes: no finding of any of them is left in Problems.
    await har.locator('body').click();
    await runCommand(p, 'View: Close Editor');
    const ownRows = rows.filter({ hasText: new RegExp(`capture\\.har|cassette\\.yaml|${ROLLOUT.slice(0, 20)}|${SPOTTER}`) });
    await eventually(
      async () => (await ownRows.count()) + (await harBreaks.count()) + (await rows.filter({ hasText: 'cache-miss-unexplained' }).count()),
      (n) => n === 0,
      15_000,
    );
  });

  scenario('Agent Transcripts: Claude Code and Codex sessions from their own folders, by project', async () => {
    const p = page as Page;
    await runCommand(p, 'Explorer: Focus on Agent Transcripts View');
    const view = p.locator('.pane', { has: p.locator('.pane-header', { hasText: 'Agent Transcripts' }) });
    const item = (label: string | RegExp) => view.locator('.monaco-list-row', { hasText: label }).first();
    // Room for the view (its list draws only the rows on screen): the workspace's folder pane and
    // the file expanded by an earlier scenario are folded.
    const folders = p.locator('.pane-header', { hasText: 'ledger-sync' }).first();
    /** Folds what is open by a click on `toggle` (a pane's header, a row's twistie). */
    const fold = async (open: Locator, toggle: Locator) => {
      if ((await open.getAttribute('aria-expanded')) === 'true') await toggle.click();
    };
    await fold(folders, folders);
    const expandedFile = item('rotation-prompt-changed/state.db');
    await fold(expandedFile, expandedFile.locator('.monaco-tl-twistie'));
    // The folders the settings name, listed from their files' first lines, each agent's open.
    const claude = item('Claude Code sessions');
    await claude.waitFor({ state: 'visible', timeout: 20_000 });
    assert.match(await claude.innerText(), /1 project · 1 session/);
    assert.match(await item('Codex sessions').innerText(), /1 project · 1 session/);
    // A project is named by the working directory its sessions record, not the folder's mangled name.
    const project = item('spotter-4te');
    assert.match(await project.innerText(), /1 session · \/home\/USER\/projects\/spotter-worktrees\/spotter-4te/);
    await project.locator('.monaco-tl-twistie').click();
    const session = item('Work on bead spotter-4te');
    await session.waitFor({ state: 'visible', timeout: 15_000 });
    assert.match(await session.innerText(), /2026-02-12 14:11 · 2\.6 MB · 2 subagents/);
    // Its sessions as recorded: the main one with its compaction and its miss, the subagents.
    await session.locator('.monaco-tl-twistie').click();
    const main = item('main session');
    await main.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match(await main.innerText(), /turns · \d+ calls · \d+% from cache · 1 cache miss · 1 compaction/);
    assert.equal(await view.locator('.monaco-list-row', { hasText: /^(subagent|compaction) / }).count(), 2);
    const codexProject = item('codemie-code');
    await codexProject.locator('.monaco-tl-twistie').click();
    await item('show tools').waitFor({ state: 'visible', timeout: 15_000 });
    await shot(p, 'agent-sessions-light');
    // A click opens it in the inspector, shown as recorded.
    await item('show tools').locator('.label-name').click();
    const recordedFrame = (name: string) =>
      findFrameWith(
        p,
        (n: string) => String((globalThis as any).document.querySelector('prompt-inspector-app')?.recorded?.source?.path ?? '').endsWith(n),
        30_000,
        name,
      );
    const frame = await recordedFrame(ROLLOUT);
    assert.match(await frame.locator('recorded-view h1').innerText(), /Codex rollout · codex-tui 0\.125\.0/);
    await frame.locator('body').click();
    await runCommand(p, 'View: Close Editor');

    // A project's overview: its sessions listed at once, each filled in as the worker reads it; a row opens it.
    await project.locator('.label-name').click();
    const overview = await findFrameWith(
      p,
      (n: string) => (globalThis as any).document.querySelector('prompt-inspector-app')?.agentProject?.project === n,
      30_000,
      '/home/USER/projects/spotter-worktrees/spotter-4te',
    );
    const row = overview.locator('agent-project-view tr.read').first();
    await row.waitFor({ state: 'visible', timeout: 30_000 });
    const cells = (await row.locator('td').allInnerTexts()).map((t) => t.trim());
    assert.match(cells[1], /^Work on bead spotter-4te/);
    assert.deepEqual(
      cells.slice(2),
      ['5', '221', '98%', '377,624', '$6.17', '1', '1', '2'],
      'turns, calls, cache share, written, cost, misses, compactions, subagents',
    );
    await runCommand(p, 'View: Hide Panel');
    await shot(p, 'agent-project-light');
    await row.click();
    const opened = await recordedFrame(`${SPOTTER}.jsonl`);
    assert.match(await opened.locator('recorded-view h1').innerText(), /Claude Code session log · 2\.1\.39/);
    // The inspector opened over the overview, in its place: closing it shows the overview again (a new page).
    await opened.locator('body').click();
    await runCommand(p, 'View: Close Editor');
    await findFrameWith(p, 'agent-project-view');
    await runCommand(p, 'View: Close Editor');

    // A session that starts in a watched folder is listed without a Refresh.
    const started = join(agentHome, 'claude-projects', '-home-USER-projects-spotter-worktrees-spotter-4te', 'started-now.jsonl');
    writeFileSync(
      started,
      `${JSON.stringify({ type: 'user', sessionId: 'started-now', uuid: 'u1', parentUuid: null, cwd: '/home/USER/projects/spotter-worktrees/spotter-4te', timestamp: '2026-12-06T09:00:00.000Z', message: { role: 'user', content: 'a session started while watched' } })}\n`,
    );
    assert.match(
      await eventually(
        () => claude.innerText(),
        (t) => /1 project · 2 sessions/.test(t),
        20_000,
      ),
      /1 project · 2 sessions/,
    );
    rmSync(started);
    assert.match(
      await eventually(
        () => claude.innerText(),
        (t) => /1 project · 1 session\b/.test(t),
        20_000,
      ),
      /1 project · 1 session\b/,
    );
    await folders.click();
  });

  scenario('live refresh: a turn appended to an open trace shows within a second (two beside the other tests)', async () => {
    await openFromPalette('agent.trace.jsonl');
    const frame = await inspectorFor('agent.trace.jsonl');
    const before = (await appIndex(frame)).turnCount;
    const file = join(workspace, 'trace/agent.trace.jsonl');
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    const next = turnAskedAgain(lines[lines.length - 1], 'one more thing: tag the release', 10);
    const written = Date.now();
    appendFileSync(file, `${next}\n`);
    const after = await eventually(
      async () => (await appIndex(frame)).turnCount,
      (n) => n === before + 1,
      10_000,
    );
    const elapsed = Date.now() - written;
    process.stderr.write(`[e2e] live refresh: ${elapsed} ms from append to updated view\n`);
    assert.equal(after, before + 1);
    // Within a second on a machine doing nothing else (450-460 ms here). Under `npm test` the other
    // tests run beside (PROMPT_INSPECTOR_E2E_QUIET is set): 450-1,089 ms over five runs on two cores,
    // so 2 s there, still far below the full read that a refresh held up would wait for.
    const bound = process.env.PROMPT_INSPECTOR_E2E_QUIET ? 2000 : 1000;
    assert.ok(elapsed < bound, `view updated ${elapsed} ms after the append (bound ${bound} ms)`);
  });

  scenario('a writer appending every 50 ms for 10 s: the view follows, no error for the line being written', async () => {
    const p = page as Page;
    const lines = readFileSync(join(ROOT, 'examples/trace/agent.trace.jsonl'), 'utf8').trim().split('\n');
    const file = join(workspace, 'live/agent.trace.jsonl');
    mkdirSync(join(workspace, 'live'));
    writeFileSync(file, `${lines[0]}\n`);
    await openFromPalette('live/agent.trace.jsonl');
    const frame = await inspectorFor('live/agent.trace.jsonl');
    await runCommand(p, 'Problems: Focus on Problems View');
    const markers = p.locator('.markers-panel');

    // Six complete lines and half of the seventh, in 200 appends 50 ms apart: the file ends
    // mid-line most of the time, and at the end.
    const rest = `${lines.slice(1, 6).join('\n')}\n${lines[6].slice(0, lines[6].length >> 1)}`;
    const chunk = Math.ceil(rest.length / 200);
    let errorsWhileWriting = 0;
    const turnsSeen = new Set<number>();
    for (let i = 0; i < rest.length; i += chunk) {
      appendFileSync(file, rest.slice(i, i + chunk));
      await new Promise((r) => setTimeout(r, 50));
      if (i % (chunk * 10) === 0) {
        // Errors only: the compaction's info finding is listed as soon as its turn is written.
        if ((await markers.innerText()).includes('parse-error')) errorsWhileWriting++;
        turnsSeen.add((await appIndex(frame)).turnCount);
      }
    }
    assert.equal(errorsWhileWriting, 0, 'the line being written is never reported while the writer writes');
    const turns = await eventually(
      async () => (await appIndex(frame)).turnCount,
      (n) => n === 6,
      5_000,
    );
    assert.equal(turns, 6, 'the view followed to the last complete line');
    assert.ok(turnsSeen.size >= 3, `the view followed while writing (turn counts seen: ${[...turnsSeen].join(', ')})`);
    // Once the writer has stopped, the half line is a real error, at its line.
    const problems = await eventually(
      () => markers.innerText(),
      (t) => t.includes('parse-error'),
      10_000,
    );
    assert.match(problems, /incomplete/);
    assert.match(problems, /\[Ln 7, Col \d+\]/);
    await screenshot(p, 'live-writer-stopped-light');
  });

  scenario('the session overview of a home: sort, filter, open a lineage and back, a live writer updates its row', async () => {
    const p = page as Page;
    const db = buildHome();
    const overview = cliJson('sessions', db, '--json') as SessionOverview;
    const chain = overview.lineages.find((l) => l.sessions.length > 1 && l.turns !== null);
    assert.ok(chain && flat(overview.lineages).length > 3, 'a home of several lineages, one a compaction chain');
    // The table is wide: the side bar and the panel make room for it (and for the pictures).
    await runCommand(p, 'View: Toggle Primary Side Bar Visibility');
    await runCommand(p, 'View: Toggle Panel Visibility');
    await openFromPalette(HOME);
    const frame = await overviewFor(HOME);
    assert.deepEqual((await overviewShown(frame)).rows, flat(overview.lineages), 'every lineage, forks after theirs, in start order');

    // Sort by turns: ascending on the first click, descending on the second.
    const turns = overviewColumn('turns') as OverviewColumn;
    const header = frame.locator('session-overview [role=columnheader][data-column=turns] button');
    await header.click();
    assert.deepEqual(
      (
        await eventually(
          () => overviewShown(frame),
          (v) => v.sorted?.order === 'ascending',
        )
      ).rows,
      expectedRows(overview, turns, false),
    );
    await header.click();
    const sorted = await eventually(
      () => overviewShown(frame),
      (v) => v.sorted?.order === 'descending',
    );
    assert.deepEqual(sorted.rows, expectedRows(overview, turns, true));
    await shot(p, 'overview-light');
    // At 1,440 px with the side bar open, the compact column set fits, the title column first;
    // at 1,100 px without it too.
    await p.setViewportSize({ width: 1440, height: 900 });
    await runCommand(p, 'View: Toggle Primary Side Bar Visibility');
    const fits = () => frame.locator('session-overview .scroller').evaluate((e: any) => e.scrollWidth <= e.clientWidth + 1);
    assert.equal(await eventually(fits, (v) => v), true, 'no sideways scroll at 1,440 px with the side bar open');
    await shot(p, 'overview-1440-sidebar-light');
    await runCommand(p, 'View: Toggle Primary Side Bar Visibility');
    await p.setViewportSize({ width: 1100, height: 900 });
    assert.equal(await eventually(fits, (v) => v), true, 'no sideways scroll at 1,100 px');
    await shot(p, 'overview-1100-light');
    await p.setViewportSize({ width: 1400, height: 900 });

    // Filter by the chain's last session's id: the chain's row (a session of it matches).
    const last = chain.sessions[chain.sessions.length - 1];
    const text = last.id.slice(-6);
    await frame.locator('session-overview input[type=search]').fill(text);
    const filtered = await eventually(
      () => overviewShown(frame),
      (v) => v.filter === text && v.rows.length < sorted.rows.length,
    );
    assert.deepEqual(filtered.rows, expectedRows(overview, turns, true, text));
    assert.ok(filtered.rows.includes(chain.id));

    // Open the chain: the inspector of its turns only, as --lineage replays it.
    await openRow(frame, chain.id);
    const alone = cliJson('analyze', db, '--lineage', chain.id, '--json');
    const opened = await eventually(
      () => frame.evaluate(() => (globalThis as any).document.querySelector('prompt-inspector-app').model?.turnCount ?? null),
      (n) => n !== null,
      15_000,
    );
    assert.equal(opened, alone.turns.length);
    assert.ok(alone.turns.length < cliJson('analyze', db, '--json').turns.length, 'fewer turns than the whole file');
    assert.equal(alone.turns.length, chain.turns);
    await frame.locator('turn-stepper [role=option]').first().waitFor({ state: 'visible', timeout: 10_000 });
    assert.equal(await frame.locator('turn-stepper [role=option]').count(), alone.turns.length);
    // The tab names the open lineage and the file (issue 20, item 2).
    const tab = (text: string) => p.locator('.tabs-container .tab', { hasText: text }).count();
    await eventually(
      () => tab(`${chain.title || chain.id} — ${shortPath(db)}`),
      (n) => n === 1,
      10_000,
    );
    await shot(p, 'overview-lineage-open-light');

    // Back: the overview as it was left, sort and filter kept.
    await frame.locator('summary-header button.back').click();
    const back = await eventually(
      () => overviewShown(frame),
      (v) => v.onOverview && v.rows.length > 0,
    );
    assert.deepEqual(back, filtered);
    await eventually(
      () => tab(`${chain.title || chain.id} — `),
      (n) => n === 0,
      10_000,
    );

    // A live writer appends a turn to the chain's last session: the row's figures follow, the filter stays.
    const before = Number(await overviewCell(frame, chain.id, 'turns'));
    assert.equal(before, chain.turns);
    const logged = extensionLog().length;
    const written = Date.now();
    appendTurn(db, last.id, 'One more thing: tag the release.');
    const after = await eventually(
      () => overviewCell(frame, chain.id, 'turns'),
      (t) => Number(t) === before + 1,
      15_000,
    );
    process.stderr.write(`[e2e] overview live refresh: ${Date.now() - written} ms from the commit to the updated row\n`);
    assert.equal(Number(after), before + 1);
    // Nothing else was replayed: the analysis resumed with the one turn and its request (a
    // follow-up refresh, for the WAL's own change, finds nothing more); the later turns of other
    // lineages are only numbered again.
    const since = (): string[] =>
      extensionLog()
        .slice(logged)
        .filter((l) => l.includes(`${HOME}: `));
    await eventually(
      async () => since(),
      (lines) => lines.some((l) => l.includes('resumed')),
      10_000,
    );
    assert.ok(
      since().some((l) => l.includes('resumed with the rows appended: 1 turn and 1 request replayed')),
      `${since().join('\n')}\nthe log ends: ${extensionLog().slice(-6).join('\n')}\nlogs: ${logFiles().join(', ')}`,
    );
    assert.ok(!since().some((l) => l.includes('analysed whole')), since().join('\n'));
    assert.equal((await overviewShown(frame)).filter, text, 'the filter is kept through the update');
    await screenshot(p, 'overview-live-light');
    // Unfiltered again for the restore after the reload (the sort stays).
    // The sort follows the new figures: the chain's extra turn may move its row.
    await clearFilter(frame, sorted.rows.length);
    assert.deepEqual((await overviewShown(frame)).rows, expectedRows(cliJson('sessions', db, '--json') as SessionOverview, turns, true));
  });

  scenario(
    'restore after a reload (dark theme), and the activation time',
    async () => {
      const p = page as Page;
      // The workbench keeps webview and workspace state in storage it flushes once a minute (and,
      // in a browser, not reliably on a reload): the home's last change (back to its overview) was
      // lost in about half the runs. Wait for a flush, as a user's window would have had one; two
      // minutes, since on a loaded machine one minute's wait still lost it (1 full run in 5 on
      // 2026-12-07). The scenarios wait on the other tests at their end anyway.
      await p.waitForTimeout(125_000);
      await reloadWithSettings(p, 'dark');
      // Panels opened from the palette come back through the serializer, at the selection they had
      // (a background tab's webview is created when the tab is shown).
      await p.locator('.tabs-container .tab', { hasText: 'sidecars/session_20260918_101500_a1b2c3.json' }).first().click();
      const frame = await inspectorFor('session_20260918_101500_a1b2c3.json', 45_000);
      assert.equal(
        await eventually(
          () => selectedTurn(frame),
          (v) => v === 'turn-1',
        ),
        'turn-1',
      );
      await frame.locator('turn-stepper #turn-1').click();
      await screenshot(p, 'sidecars-restored-dark');
      await openFromPalette('rotation/state.db');
      const rotation = await inspectorFor('rotation/state.db');
      const index = await appIndex(rotation);
      await rotation.locator(`turn-stepper #turn-${index.compactedTurns[0]}`).click();
      await rotation.locator('compaction-panel').waitFor({ state: 'visible' });
      await screenshot(p, 'rotation-compaction-dark');

      await openFromPalette('rotation-prompt-changed');
      const changed = await inspectorFor('rotation-prompt-changed/state.db');
      await changed.locator('turn-stepper #turn-5').click();
      await changed.locator('cache-panel [data-first-difference]').waitFor({ state: 'visible' });
      await runCommand(p, 'Problems: Focus on Problems View');
      await eventually(
        () => p.locator('.markers-panel').innerText(),
        (t) => t.includes('system-prompt-changed'),
        15_000,
      );
      await screenshot(p, 'prompt-changed-problems-dark');

      // The home's overview comes back as it was left: sorted by turns, descending, unfiltered.
      await openFromPalette(HOME);
      await runCommand(p, 'View: Toggle Panel Visibility');
      const home = await overviewFor(HOME, 45_000);
      assert.deepEqual((await overviewShown(home)).sorted, { column: 'turns', order: 'descending' });
      // The filter was cleared moments before the reload, and the workbench may not have stored that
      // last change yet (an earlier one, the sort, it has): cleared again for the picture.
      await clearFilter(home, flat((cliJson('sessions', buildHome(), '--json') as SessionOverview).lineages).length);
      await shot(p, 'overview-dark');

      // VS Code's figures for this window's activation, kept for `npm run bench` (bench/hostResponsiveness.ts).
      const activation = await readActivation(p, runCommand);
      mkdirSync(dirname(E2E_ACTIVATION_RECORD), { recursive: true });
      writeFileSync(E2E_ACTIVATION_RECORD, `${JSON.stringify({ at: new Date().toISOString(), codeServer: CODE_SERVER_VERSION, ...activation }, null, 2)}\n`);
      process.stderr.write(`[e2e] activation: ${JSON.stringify(activation)}\n`);
      process.stderr.write(`[e2e] .vsix size: ${statSync(VSIX).size} bytes\n`);
      assert.ok(activation.shownMs >= 0 && activation.loadMs >= 0 && activation.activateMs >= 0, `activation times read: ${JSON.stringify(activation)}`);
      await runCommand(p, 'Developer: Show Running Extensions');
      await p.locator('.monaco-list-row', { hasText: 'Prompt Inspector' }).first().waitFor({ state: 'visible', timeout: 20_000 });
      await screenshot(p, 'running-extensions-dark');
    },
    10 * 60_000,
  ); // readActivation's steps may each take up to 2 min on a loaded machine

  scenario('a state.db too large to read whole: the overview lists its lineages, fills them in family by family, a row loads that lineage alone', async () => {
    const p = page as Page;
    // A limit of 0 MB makes every state.db "too large": the same path as a 500 MB file, on small stores.
    await runCommand(p, 'View: Close All Editors');
    await reloadWithSettings(p, 'dark', { 'promptInspector.readWholeLimitMB': 0 });
    const db = buildHome();
    const overview = cliJson('sessions', db, '--json') as SessionOverview;
    await openFromPalette(HOME);
    const frame = await overviewFor(HOME);
    assert.equal(await p.locator('.quick-input-widget').isVisible(), false, 'no session picker offered by itself');
    // The panel opens where the home's last one was left (the sort; a filter, if the reload came before it was stored).
    await clearFilter(frame, flat(overview.lineages).length);
    const shown = await overviewShown(frame);
    assert.deepEqual([...shown.rows].sort(), flat(overview.lineages).sort(), 'every lineage of the catalogue');
    // Its rows are then filled in, a few families at a time read alone from the file: the figures a whole read gives them.
    const turnsOf = new Map(everyLineage(overview.lineages).map((l) => [l.id, (l.turns ?? NaN).toLocaleString('en')]));
    for (const id of shown.rows) {
      const want = turnsOf.get(id);
      assert.equal(
        await eventually(
          () => overviewCell(frame, id, 'turns'),
          (t) => t === want,
          30_000,
        ),
        want,
        id,
      );
    }
    await p.locator('.statusbar-item', { hasText: 'reading…' }).waitFor({ state: 'hidden', timeout: 10_000 });
    // Then the status bar sums the rows filled in, as the CLI's whole read counts them.
    const breaks = everyLineage(overview.lineages).reduce((n, l) => n + (l.cacheBreaks ?? 0), 0);
    assert.ok(breaks > 0, 'the home has a cache break to count');
    await p.locator('.statusbar-item', { hasText: `${breaks} cache break` }).waitFor({ state: 'visible', timeout: 10_000 });
    await screenshot(p, 'large-db-overview-dark');

    // A compaction chain: its sessions loaded from the file, nothing else.
    const chain = overview.lineages.find((l) => l.sessions.length > 1) as OverviewLineage;
    await openRow(frame, chain.id);
    const alone = cliJson('analyze', db, '--lineage', chain.id, '--json');
    const loaded = await eventually(
      () => appIndex(frame).catch(() => null),
      (x) => x !== null && x.turnCount > 0,
      30_000,
    );
    assert.equal(loaded?.turnCount, alone.turns.length);
    await screenshot(p, 'large-db-lineage-loaded-dark');

    // A file of one lineage, only listed, opens on that lineage: nothing to choose.
    await openFromPalette('rotation/state.db');
    const rotation = await inspectorFor('rotation/state.db');
    const expected = await inspect(join(ROOT, 'examples/rotation/state.db'), 'hermes-current');
    const index = await eventually(
      () => appIndex(rotation),
      (x) => x.turnCount > 0,
      30_000,
    );
    assert.equal(index.turnCount, expected.turns.length);
    assert.deepEqual(
      index.compactedTurns,
      expected.turns.filter((t) => t.compression).map((t) => t.index),
    );
    await rotation.locator(`turn-stepper #turn-${index.compactedTurns[0]}`).click();
    await rotation.locator('compaction-panel').waitFor({ state: 'visible' });
    await screenshot(p, 'large-db-session-loaded-dark');

    // A damaged row of a file only listed: its finding comes with its family's row, into Problems.
    const damaged = join(workspace, 'home-damaged', 'state.db');
    mkdirSync(dirname(damaged), { recursive: true });
    copyFileSync(db, damaged);
    sqliteExec(damaged, ["UPDATE messages SET content = char(0) || 'json:{not json' WHERE id = (SELECT min(id) FROM messages WHERE role = 'user');"]);
    await openFromPalette('home-damaged/state.db');
    await overviewFor('home-damaged/state.db');
    await runCommand(p, 'Problems: Focus on Problems View');
    const problem = await eventually(
      () => p.locator('.markers-panel').innerText(),
      (text) => text.includes('content marked \\x00json: is not valid JSON'),
      60_000,
    );
    assert.match(problem, /home-damaged[\s\S]*session \S+, message id \d+: content marked/);
  });

  scenario(
    'a large home lists its lineages at once and fills them in; the notification says how far, Cancel stops it, Analyse again reads it',
    async () => {
      const p = page as Page;
      const [, second] = await (bigHomes as Promise<string[]>);
      await runCommand(p, 'View: Close All Editors');
      // The default read-whole limit again (an earlier scenario set 0 MB): the home is read whole.
      await reloadWithSettings(p, 'light');
      await runCommand(p, 'Notifications: Clear All Notifications');
      const home = join(workspace, 'big-cancel/state.db');
      mkdirSync(dirname(home), { recursive: true });
      cpSync(second, home);
      const toast = (text: string): Locator => p.locator('.notifications-toasts .notification-toast', { hasText: text });
      const lineagesOf = (frame: Frame): Promise<string[]> =>
        frame.evaluate(() => ((globalThis as any).document.querySelector('prompt-inspector-app').overview?.lineages ?? []).map((l: { id: string }) => l.id));
      const opened = Date.now();
      await openFromPalette('big-cancel/state.db');
      // The session table first: every lineage a row, the replay's figures "reading…" until filled in.
      const listing = await overviewFor('big-cancel/state.db', 60_000);
      const listed = await lineagesOf(listing);
      process.stderr.write(`[e2e] the home's ${listed.length} lineages listed ${Date.now() - opened} ms after the open\n`);
      assert.ok(listed.length > 100, `lineages listed (${listed.length})`);
      await p.locator('.statusbar-item', { hasText: 'reading…' }).waitFor({ state: 'visible', timeout: 10_000 });
      // Both workers fill the rows in, those on screen first, before the file is read whole: the top row
      // has its figures at once.
      const filled = await eventually(
        () => overviewCell(listing, listed[0], 'turns'),
        (t) => /^\d/.test(t),
        60_000,
      );
      assert.ok(!extensionLog().some((l) => l.includes('big-cancel/state.db: ')), `the top row filled in (${filled} turns) before the whole analysis`);
      process.stderr.write(`[e2e] the top row filled in ${Date.now() - opened} ms after the open\n`);
      // Past a second the window's spinner becomes a notification, which counts the rows filled in.
      const progress = toast('Prompt Inspector: analysing big-cancel/state.db');
      await progress.filter({ hasText: /[\d,]+ of [\d,]+ rows filled in/ }).waitFor({ state: 'visible', timeout: 120_000 });
      await shot(p, 'analysis-progress-light');
      await progress.getByRole('button', { name: 'Cancel' }).click();
      const cancelled = toast('Prompt Inspector: the analysis of big-cancel/state.db was cancelled.');
      await cancelled.waitFor({ state: 'visible', timeout: 30_000 });
      await progress.waitFor({ state: 'hidden', timeout: 10_000 });
      assert.ok(!extensionLog().some((l) => l.includes('big-cancel/state.db: ')), 'no analysis of it finished: the worker was stopped');
      const logged = extensionLog().length;
      const readWhole = (): boolean =>
        extensionLog()
          .slice(logged)
          .some((l) => l.includes('big-cancel/state.db: analysed whole'));
      await cancelled.getByRole('button', { name: 'Analyse again' }).click();
      // Listed again; a row opened meanwhile is analysed at once, by the listing's own worker.
      const relisted = await overviewFor('big-cancel/state.db', 60_000);
      await openRow(relisted, listed[2]);
      const lineageTurns = (): Promise<number> =>
        relisted.evaluate(() => {
          const app = (globalThis as any).document.querySelector('prompt-inspector-app');
          return app.onOverview ? 0 : (app.model?.turnCount ?? 0);
        });
      const turns = await eventually(lineageTurns, (n) => n > 0, 60_000);
      assert.ok(turns > 0, 'the opened lineage shows its turns');
      assert.equal(readWhole(), false, 'shown before the whole file was read');
      // Every row filled in (back on the overview), the overview and the status bar stop saying
      // "reading" before the whole read, which brings the findings: the status sums the rows.
      await relisted.locator('summary-header button.back').click();
      await eventually(
        () => relisted.evaluate(() => (globalThis as any).document.querySelector('prompt-inspector-app').overview?.reading),
        (reading) => reading === false,
        120_000,
      );
      await p.locator('.statusbar-item', { hasText: 'reading…' }).waitFor({ state: 'hidden', timeout: 10_000 });
      const summed = await p
        .locator('.statusbar-item', { hasText: /cache-stable|cache break|error/ })
        .first()
        .innerText();
      assert.equal(readWhole(), false, `every row in (status "${summed}") before the whole read`);
      process.stderr.write(`[e2e] every row filled in ${Date.now() - opened} ms after the open, the status bar saying "${summed}"\n`);
      await openRow(relisted, listed[2]);
      await eventually(async () => readWhole(), Boolean, 180_000);
      // The whole analysis in: the same rows, read, and the open lineage opened again from it.
      const read = await eventually(
        () =>
          relisted.evaluate(() => {
            const overview = (globalThis as any).document.querySelector('prompt-inspector-app').overview;
            return { reading: overview?.reading === true, ids: (overview?.lineages ?? []).map((l: { id: string }) => l.id) as string[] };
          }),
        (o) => !o.reading,
        30_000,
      );
      assert.deepEqual(read, { reading: false, ids: listed }, 'the same rows, now read');
      assert.equal(await eventually(lineageTurns, (n) => n === turns, 30_000), turns, 'the open lineage, as the whole analysis has it');
      await runCommand(p, 'View: Close All Editors');
    },
    8 * 60_000,
  );

  scenario('the bill beside the replay: cost and hit rate per lineage, a miss classed, where the tokens go', async () => {
    const p = page as Page;
    // examples/billed: a home with its agent.log and agent.log.1 (examples/billed/README.md), for this scenario only.
    cpSync(join(ROOT, 'examples', 'billed'), join(workspace, 'billed'), { recursive: true });
    const db = join(workspace, 'billed', 'state.db');
    try {
      const overview = cliJson('sessions', db, '--json') as SessionOverview;
      const chain = overview.lineages.find((l) => l.sessions.length > 1);
      assert.ok(chain && chain.costUsd !== null && chain.unexplainedMisses !== null, 'the chain was billed');
      await openFromPalette('billed/state.db');
      const frame = await overviewFor('billed/state.db');
      // Where a log was read, the overview starts with the bill's columns, as the CLI figures them.
      assert.equal(await overviewCell(frame, chain.id, 'cost'), chain.costUsd.toFixed(4));
      // Hermes' own estimate beside ours, from the store.
      assert.ok(chain.recorded.estimatedCostUsd !== null, 'the store kept its estimate');
      assert.equal(await overviewCell(frame, chain.id, 'rec-cost'), chain.recorded.estimatedCostUsd.toFixed(4));
      assert.equal(await overviewCell(frame, chain.id, 'unexplained'), String(chain.unexplainedMisses));
      assert.match(await overviewCell(frame, chain.id, 'hit-pct'), /^\d+\.\d$/);
      // The side bar makes room for the bill's columns (and the pictures) while this scenario runs.
      await runCommand(p, 'View: Toggle Primary Side Bar Visibility');
      await p.setViewportSize({ width: 1520, height: 1000 });
      await shot(p, 'billed-overview-light');
      await p.setViewportSize({ width: 1400, height: 1000 });

      // The chain's unexplained miss: the timeline marks it, the cache panel classes it and splits its tokens.
      const alone = cliJson('analyze', db, '--lineage', chain.id, '--json');
      const miss = alone.requests.find((r: any) => r.cacheMiss?.class === 'unexplained');
      assert.ok(miss, 'the chain has an unexplained miss');
      await openRow(frame, chain.id);
      const chart = frame.locator('token-timeline svg[tabindex]').first();
      await chart.waitFor({ state: 'visible', timeout: 15_000 });
      await chart.focus();
      await p.keyboard.press('Home');
      for (let k = 0; k < miss.index; k++) await p.keyboard.press('ArrowRight');
      const panel = frame.locator('cache-panel');
      const missLine = await eventually(
        () =>
          panel
            .locator('[data-cache-miss]')
            .getAttribute('data-cache-miss', { timeout: 1000 })
            .catch(() => null),
        (v) => v === 'unexplained',
      );
      assert.equal(missLine, 'unexplained');
      assert.match(await panel.locator('[data-cache-miss]').innerText(), /^unexplained [\d,]+ tokens of the previous prompt billed again/);
      assert.match(
        await panel.locator('[data-billed]').innerText(),
        new RegExp(`^${miss.billed.input.toLocaleString('en-US')} prompt · ${miss.billed.cacheRead.toLocaleString('en-US')} read from the cache`),
      );
      const rows = panel.locator('category-bar [data-categories] tr[data-category]');
      await rows.first().waitFor();
      assert.deepEqual(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-category'))), Object.keys(miss.categories));
      await shot(p, 'billed-lineage-light');

      // A miss of every class, each in the lineage that holds it, as that lineage shows it: the
      // cache panel's lines from when the request was sent to its miss, gathered in one picture.
      const CLASSES = ['cause-logged', 'expired', 'too-short', 'predicted', 'unexplained'];
      const missAt = new Map<string, { lineage: string; index: number }>();
      for (const id of everyLineage(overview.lineages).map((l) => l.id))
        for (const r of cliJson('analyze', db, '--lineage', id, '--json').requests)
          if (r.cacheMiss && !missAt.has(r.cacheMiss.class)) missAt.set(r.cacheMiss.class, { lineage: id, index: r.index });
      assert.deepEqual([...missAt.keys()].sort(), [...CLASSES].sort(), 'examples/billed holds a miss of every class');
      const crops: { cls: string; png: Buffer; width: number }[] = [];
      for (const cls of CLASSES) {
        const { lineage, index } = missAt.get(cls) as { lineage: string; index: number };
        await frame.locator('summary-header button.back').click();
        await eventually(
          () => overviewShown(frame),
          (v) => v.onOverview && v.rows.length > 0,
        );
        await openRow(frame, lineage);
        const timeline = frame.locator('token-timeline svg[tabindex]').first();
        await timeline.waitFor({ state: 'visible', timeout: 15_000 });
        await timeline.focus();
        await p.keyboard.press('Home');
        for (let k = 0; k < index; k++) await p.keyboard.press('ArrowRight');
        const shown = await eventually(
          () =>
            panel
              .locator('[data-cache-miss]')
              .getAttribute('data-cache-miss', { timeout: 1000 })
              .catch(() => null),
          (v) => v === cls,
        );
        assert.equal(shown, cls, `${cls}: request #${index} of ${lineage}`);
        // The panel scrolls in the side pane: its lines from sent to the miss brought into view.
        await panel.locator('[data-sent]').scrollIntoViewIfNeeded();
        await panel.locator('[data-cache-miss]').scrollIntoViewIfNeeded();
        const list = await panel.locator('dl').boundingBox();
        const top = await panel.locator('[data-sent]').boundingBox();
        const end = await panel.locator('[data-cache-miss]').boundingBox();
        assert.ok(list && top && end);
        const clip = { x: list.x, y: top.y - 4, width: list.width, height: end.y + end.height - top.y + 8 };
        crops.push({ cls, png: await p.screenshot({ clip }), width: Math.ceil(clip.width) });
      }
      const sheet = await p.context().newPage();
      try {
        // Side by side, in the order the classes are decided in.
        const width = crops.reduce((n, c) => n + c.width + 10, 0) + 24;
        await sheet.setViewportSize({ width, height: 200 });
        await sheet.setContent(
          `<body style="margin:12px;background:#fff;display:flex;gap:10px;align-items:flex-start">${crops.map((c) => `<img alt="${c.cls}" src="data:image/png;base64,${c.png.toString('base64')}" style="display:block;border:1px solid #ccc">`).join('')}</body>`,
        );
        await sheet.waitForFunction(() => Array.from((globalThis as any).document.images).every((i: any) => i.complete));
        const height = await sheet.evaluate(
          () => Math.max(...Array.from((globalThis as any).document.images).map((i: any) => i.getBoundingClientRect().bottom)) + 12,
        );
        await sheet.setViewportSize({ width, height: Math.ceil(height) });
        await shot(sheet, 'billed-miss-classes-light');
      } finally {
        await sheet.close();
      }
    } finally {
      await runCommand(p, 'View: Close All Editors');
      await runCommand(p, 'View: Toggle Primary Side Bar Visibility');
      await p.setViewportSize({ width: 1400, height: 900 });
      rmSync(join(workspace, 'billed'), { recursive: true, force: true });
    }
  });

  scenario(
    'a 2,000-session home being read holds up no other file: keys in a small one answer while it is read, within 5× their idle time',
    async () => {
      const p = page as Page;
      const [first, second] = await (bigHomes as Promise<string[]>);
      await runCommand(p, 'View: Close All Editors');
      // The default read-whole limit again (an earlier scenario set 0 MB): the home is read whole.
      await reloadWithSettings(p, 'light');
      const home = join(workspace, 'big/state.db');
      mkdirSync(dirname(home));
      cpSync(first, home);
      const homeReadSince = (logged: number): boolean =>
        extensionLog()
          .slice(logged)
          .some((l) => l.includes('big/state.db: '));
      let logged = extensionLog().length;
      // Every key measured below lands on a request this view has not shown: a request shown before is
      // drawn from the page's own cache and would say nothing about the worker (nine idle keys and up
      // to three times twenty keys while the home is read: the trace has 16 requests and 80 more here).
      const smallName = 'keys/agent.trace.jsonl';
      writeLongTrace(join(workspace, smallName), 40);
      await openFromPalette(smallName);
      await inspectorFor(smallName);
      await openFromPalette('big/state.db');
      // The home in a group of its own, so both webviews stay alive (the move gives the small
      // file's panel a new frame); its first read done before the measured one starts.
      await runCommand(p, 'View: Move Editor into Right Group');
      await eventually(async () => homeReadSince(logged), Boolean, 180_000);
      // The move may read it once more: wait until its reads have been quiet for 3 s, so that the
      // read measured below is the replaced home's and not a late one of this home.
      const homeLines = (): number => extensionLog().filter((l) => l.includes('big/state.db: ')).length;
      for (let seen = -1; seen !== homeLines();) {
        seen = homeLines();
        await p.waitForTimeout(3_000);
      }
      const lineagesOf = (frame: Frame): Promise<string[]> =>
        frame.evaluate(() => ((globalThis as any).document.querySelector('prompt-inspector-app').overview?.lineages ?? []).map((l: { id: string }) => l.id));
      const before = await lineagesOf(await overviewFor('big/state.db', 60_000));
      assert.ok(before.length > 100, `the first home's lineages (${before.length})`);
      // Under `npm test` the other tests run beside these scenarios (scripts/run-full.mjs): this one
      // measures key latency, so it waits until they have ended (it is the last for that reason). What
      // is above, the home's first read most of it, needs no quiet machine and is done before.
      const quiet = process.env.PROMPT_INSPECTOR_E2E_QUIET;
      if (quiet) {
        const since = Date.now();
        await eventually(async () => existsSync(quiet), Boolean, QUIET_WAIT_MS);
        process.stderr.write(`[e2e] waited ${Date.now() - since} ms for the other tests to end\n`);
      }
      const small = await inspectorFor(smallName);
      // Keys with the home idle (requests 1-9, none shown before): what this machine, as loaded as it
      // is now, takes anyway.
      await small.locator('turn-stepper #turn-0').click();
      const idle: number[] = [];
      for (let i = 0; i < 9; i++) idle.push(await keyAnswered(small, 'n'));
      process.stderr.write(`[e2e] keys answered with the home idle: ${idle.map((ms) => ms.toFixed(0)).join(', ')} ms\n`);
      assert.ok(
        idle.every((ms) => ms >= 0),
        `every key answered with the home idle: ${idle.join(', ')}`,
      );

      // Another home put in its place (a rename, as an editor saves): the worker reads it whole again
      // while the keys are pressed in the small file, which never left the screen or the focus. A
      // read too quick to press two keys in shows nothing: the homes are swapped again (at most 3 times).
      let homeRead = (): boolean => false;
      let during: number[] = [];
      let placed = first;
      for (let attempt = 0; attempt < 3 && during.length < 2; attempt++) {
        if (attempt > 0) {
          await eventually(async () => homeRead(), Boolean, 180_000);
        }
        const since = extensionLog().length;
        logged = since;
        placed = attempt % 2 === 0 ? second : first;
        cpSync(placed, `${home}.new`);
        // On disk before the rename, as SQLite and an editor's safe save leave a file: otherwise the
        // kernel writes the copy's 124 MB back while the keys are timed.
        const copy = openSync(`${home}.new`, 'r+');
        fsyncSync(copy);
        closeSync(copy);
        renameSync(`${home}.new`, home);
        homeRead = () => homeReadSince(since);
        // Forward one request at a time: each lands on a request whose messages come from the engine.
        during = [];
        for (let i = 0; i < 20 && !homeRead(); i++) {
          const ms = await keyAnswered(small, 'n');
          if (!homeRead()) during.push(ms);
        }
        process.stderr.write(`[e2e] keys answered while the home was read: ${during.map((ms) => ms.toFixed(0)).join(', ')} ms\n`);
      }
      assert.ok(during.length >= 2, `at least two keys while the home was read (${during.length}): the home was read too fast to show anything, three times`);
      // Held up, a key would wait for the rest of the home's read (7-8 s here) and not be counted
      // above: every key within 3 s (one took 1,992 ms in a CI run), and the median within five
      // times the idle one plus 100 ms. The read competes with the keys for this machine's two cores
      // (perf: mostly the home worker's garbage collection, on V8's shared threads; the extension
      // host's own thread was idle 95% of the time): the median of keys on requests not shown before
      // measured 2.7-4.1 times the idle one (eight runs, six read back from CI logs; nine idle keys
      // and up to twenty, for steadier medians than five and twelve gave). The bench measures the
      // host's own latency.
      const median = (ms: number[]): number => [...ms].sort((a, b) => a - b)[Math.floor(ms.length / 2)];
      const bound = 5 * median(idle) + 100;
      assert.ok(
        during.every((ms) => ms >= 0 && ms <= 3_000) && median(during) <= bound,
        `every key answered within 3 s, the median within ${bound.toFixed(0)} ms (idle: ${idle.join(', ')}): ${during.join(', ')}`,
      );

      // The other home was read meanwhile, and shows.
      await eventually(async () => homeRead(), Boolean, 180_000);
      // (The last one put in place: the second home, or the first again after a retry.)
      const shows = (ids: string[]): boolean => ids.length > 100 && (ids.join() === before.join()) === (placed === first);
      const after = await eventually(async () => lineagesOf(await overviewFor('big/state.db', 60_000)), shows, 60_000);
      assert.ok(shows(after), 'the home last put in place is shown');
      process.stderr.write(
        `[e2e] the home read again: ${extensionLog()
          .slice(logged)
          .find((l) => l.includes('big/state.db: '))}\n`,
      );
      await screenshot(p, 'big-home-beside-small-light');
      await runCommand(p, 'View: Close All Editors');
    },
    8 * 60_000 + QUIET_WAIT_MS,
  );
});
