// The session overview in real Chromium, with the host side played by the real engine on a
// state.db of several lineages written by real SQLite (test/support/hermesDb.ts): rows, sorting,
// filters, expansion, the keyboard, opening a lineage's inspector scoped to it and coming back to
// the overview exactly as it was left; a 2,000-lineage overview kept virtualised; and on a real Hermes
// home at 1440 and 1100 px, the columns: the compact default set, the frozen title, the Columns menu,
// sorting that never scrolls the table sideways.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { OverviewLineage, SessionOverview } from '../../src/shared/overviewTypes';
import type { Inspection } from '../../src/protocol/inspection';
import type { ViewState } from '../../src/shared/messages';
import { overviewChanges } from '../../src/shared/overviewColumns';
import { DEFAULT_COLUMNS, EMPTY_OVERVIEW_STATE, TABLE_COLUMNS } from '../../webview/overview-model';
import { writeHermesDb, type MessageSpec, type SessionSpec } from '../support/hermesDb';
import { eventually, example, Harness, inspectLineages, SHOTS, type HostScopes, type View } from '../support/webviewHarness';

/** A chain (a1 → a2, the second with another system prompt: a cache break), a plain session, one with an unmarked child, and another. */
const SESSIONS: SessionSpec[] = [
  { id: 'a1', startedAt: 1000, endReason: 'compression', title: 'Refactor the parser' },
  { id: 'a2', parent: 'a1', startedAt: 1010, title: 'Refactor the parser' },
  { id: 'b', startedAt: 1020, title: 'Fix flaky tests', hashedPrompt: true },
  { id: 'c', startedAt: 1030, title: 'Write release notes', hashedPrompt: true },
  { id: 'c-child', parent: 'c', startedAt: 1040, title: 'Release notes: changelog', hashedPrompt: true },
  { id: 'd', startedAt: 1050, title: 'Deploy the site', hashedPrompt: true },
];
const TURNS: Record<string, number> = { a1: 3, a2: 2, b: 4, c: 1, 'c-child': 2, d: 2 };

/** The store with `extra` sessions added and the `omit` ones left out. */
function writeStore(path: string, extra: SessionSpec[] = [], omit: string[] = []): void {
  const sessions = [...SESSIONS, ...extra].filter((s) => !omit.includes(s.id));
  const messages: MessageSpec[] = [];
  for (const s of sessions) {
    for (let i = 0; i < (TURNS[s.id] ?? 1); i++) messages.push([s.id, 'user', `question ${i} in ${s.id}`], [s.id, 'assistant', `answer ${i} in ${s.id}`]);
  }
  writeHermesDb(path, sessions, messages);
}

const flatten = (rows: readonly OverviewLineage[]): OverviewLineage[] => rows.flatMap((r) => [r, ...flatten(r.children)]);

/** The rows in the DOM in table order, as their keys ("l:ID" lineage, "s:ID:SESSION" session). */
const rowKeys = (v: View): Promise<string[]> =>
  v.page.locator('session-overview [role=row][data-key]').evaluateAll((rows) =>
    rows
      .map((r) => [Number(r.getAttribute('aria-rowindex')), r.getAttribute('data-key') as string] as const)
      .sort((x, y) => x[0] - y[0])
      .map((x) => x[1]),
  );
const lineageKeys = async (v: View): Promise<string[]> => (await rowKeys(v)).filter((k) => k.startsWith('l:')).map((k) => k.slice(2));

/** The key of the row holding the focus inside the overview, or null. */
const focusedKey = (v: View): Promise<string | null> =>
  v.page
    .locator('session-overview')
    .evaluate(
      (e) => (e.shadowRoot as unknown as { activeElement: { getAttribute(n: string): string | null } | null }).activeElement?.getAttribute('data-key') ?? null,
    );

/** The columns shown, by their headers' keys, in order. */
const headerKeys = (v: View): Promise<string[]> =>
  v.page.locator('session-overview [role=columnheader]').evaluateAll((hs) => hs.map((h) => h.getAttribute('data-column') as string));

const overviewShown = (v: View): Promise<boolean> =>
  v.page.locator('session-overview').evaluate((e) => (e as unknown as { checkVisibility(): boolean }).checkVisibility());
const scrollerTop = (v: View): Promise<number> =>
  v.page.locator('session-overview .scroller').evaluate((e) => (e as unknown as { scrollTop: number }).scrollTop);
const lastState = (v: View): ViewState | undefined => v.sent('selected').at(-1)?.state;
const opened = (v: View): (string | null)[] =>
  v
    .sent('request')
    .filter((m) => m.method === 'openLineage')
    .map((m) => m.params.lineage);

async function assertClean(v: View): Promise<void> {
  assert.deepEqual(v.console, [], 'console errors or warnings');
  assert.deepEqual(await v.cspViolations(), [], 'CSP violations');
  assert.deepEqual(v.foreignRequests, [], 'requests outside the local origin');
}

describe('session overview (Chromium, real engine as host)', () => {
  let h: Harness;
  let dir: string;
  let db: string;
  let whole: Inspection;
  let scopes: HostScopes;
  let overview: SessionOverview;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'prompt-inspector-overview-'));
    db = join(dir, 'state.db');
    writeStore(db);
    ({ whole, scopes } = await inspectLineages(db, 'hermes-current'));
    overview = scopes.overview;
    h = await Harness.start();
  });
  after(async () => {
    await h?.close();
  });

  it('opens on a row per lineage, forks indented under their parent, with the replay’s figures and the count line', async () => {
    // What the engine made of the store, checked against the store itself before the view is.
    const every = flatten(overview.lineages);
    assert.deepEqual(
      every.map((l) => [l.id, l.sessions.map((s) => s.id), l.turns]),
      [
        ['a1', ['a1', 'a2'], 5],
        ['b', ['b'], 4],
        ['c', ['c'], 1],
        ['c-child', ['c-child'], 2],
        ['d', ['d'], 2],
      ],
    );
    const v = await h.open(whole, { scopes });
    try {
      await eventually(async () => assert.deepEqual(await lineageKeys(v), ['a1', 'b', 'c', 'c-child', 'd']));
      assert.equal(await v.page.locator('session-overview [data-key="l:c-child"]').getAttribute('aria-level'), '2');
      assert.equal(await v.page.locator('session-overview [data-key="l:c"]').getAttribute('aria-level'), '1');
      assert.equal(await v.page.locator('session-overview [data-key="l:c-child"] .chip').textContent(), 'child');
      // The agent's counters are a choice away (not in the default set).
      await v.page.locator('session-overview button.columns').click();
      await v.page.locator('session-overview .menu [data-column=api-calls]').click();
      await v.page.keyboard.press('Escape');
      for (const l of every) {
        const row = v.page.locator(`session-overview [data-key="l:${l.id}"]`);
        assert.equal(await row.locator('[data-column=turns]').innerText(), String(l.turns));
        assert.equal(await row.locator('[data-column=breaks]').innerText(), String(l.cacheBreaks));
        // The store has no api_call_count column: recorded, not there.
        const calls = row.locator('[data-column=api-calls] .missing');
        assert.equal(await calls.innerText(), 'not recorded');
        assert.match((await calls.getAttribute('title')) ?? '', /does not hold/);
      }
      assert.equal(await v.page.locator('session-overview [data-count]').innerText(), '5 lineages, 6 sessions (5 shown)');
      assert.equal(await v.page.locator('session-overview [role=columnheader][data-column=api-calls]').innerText(), 'API CALLS*');
      // Nothing is opened until asked; the state says the overview is shown.
      assert.deepEqual(opened(v), []);
      await eventually(() => assert.deepEqual(lastState(v), { lineage: null, ui: null, overview: lastState(v)?.overview }));
      assert.equal(await v.page.locator('turn-stepper').count(), 0);
      await assertClean(v);
    } finally {
      await v.close();
    }
  });

  it('sorts by a column header (twice: descending), filters by text, source and has-breaks, expands a chain', async () => {
    const v = await h.open(whole, { scopes });
    try {
      const turnsHead = v.page.locator('session-overview [role=columnheader][data-column=turns]');
      await turnsHead.locator('button').click();
      assert.equal(await turnsHead.getAttribute('aria-sort'), 'ascending');
      // Top-level rows by turns, the child under its parent: c 1 (c-child), d 2, b 4, a1 5.
      await eventually(async () => assert.deepEqual(await lineageKeys(v), ['c', 'c-child', 'd', 'b', 'a1']));
      await turnsHead.locator('button').click();
      assert.equal(await turnsHead.getAttribute('aria-sort'), 'descending');
      await eventually(async () => assert.deepEqual(await lineageKeys(v), ['a1', 'b', 'd', 'c', 'c-child']));
      assert.equal(await v.page.locator('session-overview [role=columnheader][data-column=title]').getAttribute('aria-sort'), 'none');
      await eventually(() => assert.deepEqual(lastState(v)?.overview?.sort, { column: 'turns', descending: true }));

      const filter = v.page.locator('session-overview input[type=search]');
      await filter.fill('changelog');
      // The child matches; its parent stays as the path to it.
      await eventually(async () => assert.deepEqual(await lineageKeys(v), ['c', 'c-child']));
      assert.equal(await v.page.locator('session-overview [data-count]').innerText(), '5 lineages, 6 sessions (2 shown)');
      await filter.fill('');
      await eventually(async () => assert.equal((await lineageKeys(v)).length, 5));

      const breaks = v.page.locator('session-overview button[data-has=breaks]');
      await breaks.click();
      assert.equal(await breaks.getAttribute('aria-pressed'), 'true');
      const broken = flatten(overview.lineages).filter((l) => (l.cacheBreaks ?? 0) > 0);
      assert.deepEqual(
        broken.map((l) => l.id),
        ['a1'],
        'the chain’s second prompt differs: its one cache break',
      );
      await eventually(async () => assert.deepEqual(await lineageKeys(v), ['a1']));
      await breaks.click();

      // Every session of the store has source cli: one choice besides all.
      assert.deepEqual(await v.page.locator('session-overview select option').allInnerTexts(), ['All sources', 'cli']);
      await v.page.locator('session-overview select').selectOption('cli');
      await eventually(async () => assert.equal((await lineageKeys(v)).length, 5));

      // The chain expands to its sessions, by its chevron and by the keyboard.
      await v.page.locator('session-overview [data-key="l:a1"] button.expander').click();
      await eventually(async () => assert.deepEqual((await rowKeys(v)).slice(0, 3), ['l:a1', 's:a1:a1', 's:a1:a2']));
      assert.equal(await v.page.locator('session-overview [data-key="l:a1"]').getAttribute('aria-expanded'), 'true');
      await v.page.locator('session-overview [data-key="l:a1"]').focus();
      await v.page.keyboard.press('ArrowLeft');
      await eventually(async () => assert.equal((await rowKeys(v)).filter((k) => k.startsWith('s:')).length, 0));
      await v.page.keyboard.press('ArrowRight');
      await eventually(async () => assert.deepEqual((await rowKeys(v)).slice(1, 3), ['s:a1:a1', 's:a1:a2']));
      await v.page.keyboard.press('ArrowDown');
      assert.equal(await focusedKey(v), 's:a1:a1');
      // Left on a session row goes up to its chain's row.
      await v.page.keyboard.press('ArrowLeft');
      assert.equal(await focusedKey(v), 'l:a1');
      await v.page.keyboard.press('End');
      assert.equal(await focusedKey(v), 'l:c-child');
      await v.page.keyboard.press('Home');
      assert.equal(await focusedKey(v), 'l:a1');
      await eventually(() => assert.deepEqual(lastState(v)?.overview?.expanded, ['a1']));
      await assertClean(v);
    } finally {
      await v.close();
    }
  });

  it('opens a lineage by the keyboard, scoped to its turns, and comes back to the same overview (Backspace, Alt+Left, the button)', async () => {
    const v = await h.open(whole, { scopes });
    try {
      const el = v.page.locator('session-overview');
      await el.evaluate((e) => {
        (e as unknown as { marked: boolean }).marked = true;
      });
      await v.page.locator('session-overview [role=columnheader][data-column=title] button').click();
      await v.page.locator('session-overview [data-key="l:a1"] button.expander').click();
      // By title: Deploy, Fix flaky, Refactor (a1, its sessions), Write release notes, its child.
      await eventually(async () => assert.deepEqual(await lineageKeys(v), ['d', 'b', 'a1', 'c', 'c-child']));
      await v.page.locator('session-overview [data-key="l:d"]').focus();
      await v.page.keyboard.press('ArrowDown');
      assert.equal(await focusedKey(v), 'l:b');
      await v.page.keyboard.press('Enter');

      await eventually(() => assert.deepEqual(opened(v), ['b']));
      const b = await scopes.scope('b');
      assert.equal(b.index.turnCount, 4);
      // Only that lineage's turns: the whole file has 14.
      assert.equal(whole.index.turnCount, 14);
      await eventually(async () => assert.equal(await v.page.locator('turn-stepper [role=option]').count(), b.index.turnCount));
      assert.equal(await overviewShown(v), false, 'the overview is hidden, not shown beside the inspector');
      const backButton = v.page.locator('summary-header button.back');
      assert.equal(await backButton.innerText(), '← Sessions');
      // The header names the open lineage (its title), then the file.
      assert.equal(await v.page.locator('summary-header h1 [data-lineage]').innerText(), 'Fix flaky tests');
      await eventually(() => assert.equal(lastState(v)?.lineage, 'b'));
      assert.deepEqual([lastState(v)?.ui?.turn, lastState(v)?.ui?.request], [0, 0]);
      await v.page.keyboard.press('j');
      await eventually(() => assert.equal(lastState(v)?.ui?.turn, 1));

      await v.page.keyboard.press('Backspace');
      await eventually(async () => assert.equal(await overviewShown(v), true));
      await eventually(() => assert.deepEqual(opened(v), ['b', null]));
      assert.equal(await el.evaluate((e) => (e as unknown as { marked?: boolean }).marked), true, 'the same element, not a new one');
      assert.equal(await v.page.locator('turn-stepper').count(), 0);
      assert.equal(await v.page.locator('session-overview [role=columnheader][data-column=title]').getAttribute('aria-sort'), 'ascending');
      assert.deepEqual((await rowKeys(v)).slice(2, 5), ['l:a1', 's:a1:a1', 's:a1:a2']);
      await eventually(async () => assert.equal(await focusedKey(v), 'l:b'));
      await eventually(() => assert.deepEqual(lastState(v), { lineage: null, ui: null, overview: lastState(v)?.overview }));

      // Alt+Left and the header's button go back too; each open asks the host again.
      await v.page.keyboard.press('ArrowDown');
      await v.page.keyboard.press('Enter');
      await eventually(async () => assert.equal(await v.page.locator('turn-stepper [role=option]').count(), 5));
      await v.page.keyboard.press('Alt+ArrowLeft');
      await eventually(async () => assert.equal(await focusedKey(v), 'l:a1'));
      await v.page.keyboard.press('ArrowDown');
      assert.equal(await focusedKey(v), 's:a1:a1');
      // A session row opens its chain.
      await v.page.keyboard.press('Enter');
      await eventually(async () => assert.equal(await v.page.locator('turn-stepper [role=option]').count(), 5));
      await backButton.click();
      await eventually(async () => assert.equal(await overviewShown(v), true));
      assert.deepEqual(opened(v), ['b', null, 'a1', null, 'a1', null]);
      await assertClean(v);
    } finally {
      await v.close();
    }
  });

  it('reopens where the state says: the lineage’s inspector at its selection, then back to the overview as it was', async () => {
    const state: ViewState = {
      lineage: 'c-child',
      ui: { turn: 1, request: 1, firstVisibleMessage: 0 },
      overview: { sort: { column: 'turns', descending: true }, filter: 'release', source: null, has: [], expanded: [], firstVisibleRow: 0, focused: 'c-child' },
    };
    const v = await h.open(whole, { scopes, state });
    try {
      await eventually(async () => assert.equal(await v.page.locator('turn-stepper [role=option][aria-selected=true]').getAttribute('id'), 'turn-1'));
      // Stored before columns could be chosen (no columns field): the default set.
      assert.deepEqual(await headerKeys(v), [...DEFAULT_COLUMNS]);
      // The host's init index already was the lineage's: no second open.
      assert.deepEqual(opened(v), []);
      assert.equal(await v.page.locator('turn-stepper [role=option]').count(), 2);
      await v.page.keyboard.press('Backspace');
      await eventually(async () => assert.deepEqual(await lineageKeys(v), ['c', 'c-child']));
      assert.equal(await v.page.locator('session-overview input[type=search]').inputValue(), 'release');
      await eventually(async () => assert.equal(await focusedKey(v), 'l:c-child'));
      await assertClean(v);
    } finally {
      await v.close();
    }
  });

  it('refreshes the rows in place on a live update, keeping sort, filter and focus', async () => {
    const path = join(dir, 'live.db');
    writeStore(path);
    const first = await inspectLineages(path, 'hermes-current');
    const v = await h.open(first.whole, { scopes: first.scopes });
    try {
      await v.page.locator('session-overview [role=columnheader][data-column=start] button').click();
      await v.page.locator('session-overview [role=columnheader][data-column=start] button').click();
      await v.page.locator('session-overview input[type=search]').fill('e');
      await v.page.locator('session-overview [data-key="l:b"]').focus();
      const before = await lineageKeys(v);
      assert.deepEqual(before, ['d', 'c', 'c-child', 'b', 'a1']);

      rmSync(path);
      writeStore(path, [{ id: 'e', startedAt: 1060, title: 'Rewrite the editor', hashedPrompt: true }]);
      const next = await inspectLineages(path, 'hermes-current');
      // On the overview the host sends no index, and the rows that changed of those the view holds.
      const changes = overviewChanges(first.scopes.overview, next.scopes.overview);
      assert.ok(changes);
      assert.deepEqual([changes.rows.map((l) => l.id), changes.order?.length], [['e'], 5], 'only the new row, and every top-level id in its order');
      await v.send({ type: 'update', index: null, overview: { changes } });
      await eventually(async () => assert.deepEqual(await lineageKeys(v), ['e', ...before]));
      assert.equal(await v.page.locator('session-overview [data-count]').innerText(), '6 lineages, 7 sessions (6 shown)');
      assert.equal(await v.page.locator('session-overview [role=columnheader][data-column=start]').getAttribute('aria-sort'), 'descending');
      assert.equal(await focusedKey(v), 'l:b');
      await assertClean(v);
    } finally {
      await v.close();
    }
  });

  it('follows a live update inside a lineage, and goes back to the overview when the update has no such lineage', async () => {
    const path = join(dir, 'gone.db');
    writeStore(path);
    const first = await inspectLineages(path, 'hermes-current');
    const state: ViewState = { lineage: 'b', ui: { turn: 2, request: 2, firstVisibleMessage: 0 }, overview: null };
    const v = await h.open(first.whole, { scopes: first.scopes, state });
    try {
      const selectedTurn = () => v.page.locator('turn-stepper [role=option][aria-selected=true]').getAttribute('id', { timeout: 500 });
      await eventually(async () => assert.equal(await selectedTurn(), 'turn-2'));
      // The file changed but b is still a lineage of it: its index again, the place kept.
      rmSync(path);
      writeStore(path, [{ id: 'e', startedAt: 1060, title: 'Rewrite the editor', hashedPrompt: true }]);
      const again = await inspectLineages(path, 'hermes-current');
      v.data = await again.scopes.scope('b');
      const changes = overviewChanges(first.scopes.overview, again.scopes.overview);
      assert.ok(changes);
      await v.send({ type: 'update', index: v.data.index, overview: { changes } });
      await eventually(async () => assert.equal(await v.page.locator('session-overview [data-count]').innerText(), '6 lineages, 7 sessions (6 shown)'));
      assert.equal(await selectedTurn(), 'turn-2');
      assert.equal(await overviewShown(v), false);
      // b is gone: the host went back to the whole file, the view to the overview.
      rmSync(path);
      writeStore(path, [], ['b']);
      const gone = await inspectLineages(path, 'hermes-current');
      v.data = gone.whole;
      await v.send({ type: 'update', index: null, overview: { whole: gone.scopes.overview } });
      await eventually(async () => assert.equal(await overviewShown(v), true));
      assert.deepEqual(await lineageKeys(v), ['a1', 'c', 'c-child', 'd']);
      assert.equal(await v.page.locator('turn-stepper').count(), 0);
      await eventually(() => assert.deepEqual([lastState(v)?.lineage, lastState(v)?.ui], [null, null]));
      await assertClean(v);
    } finally {
      await v.close();
    }
  });

  it('shows a state.db only listed with its replay figures not read, and opening a row reads just that lineage', async () => {
    const listed = await inspectLineages(db, 'hermes-current', { readWholeLimit: 1 });
    assert.equal(listed.scopes.overview.read, false);
    const v = await h.open(listed.whole, { scopes: listed.scopes });
    try {
      await eventually(async () => assert.deepEqual(await lineageKeys(v), ['a1', 'b', 'c', 'c-child', 'd']));
      const turns = v.page.locator('session-overview [data-key="l:b"] [data-column=turns] .missing');
      assert.equal(await turns.innerText(), 'not read');
      assert.match((await turns.getAttribute('title')) ?? '', /not read/);
      // What the store records is there all the same.
      assert.equal(await v.page.locator('session-overview [data-key="l:b"] button.name').innerText(), 'Fix flaky tests');
      assert.equal(await v.page.locator('session-overview [data-key="l:b"] [data-column=start]').innerText(), '1970-01-01 00:17');
      // Rows filled in come alone (the host's `overviewFilled`), each in place of its listed row: b's
      // figures from the whole read, d still not read, the count line and the rest as they were.
      const filled = overview.lineages.find((l) => l.id === 'b');
      assert.ok(filled?.turns);
      await v.send({ type: 'overviewFilled', rows: [filled], reading: false });
      await eventually(async () =>
        assert.equal(await v.page.locator('session-overview [data-key="l:b"] [data-column=turns]').innerText(), String(filled.turns)),
      );
      assert.equal(await v.page.locator('session-overview [data-key="l:d"] [data-column=turns] .missing').innerText(), 'not read');
      assert.deepEqual(await lineageKeys(v), ['a1', 'b', 'c', 'c-child', 'd']);
      await v.page.locator('session-overview [data-key="l:b"]').focus();
      await v.page.keyboard.press('Enter');
      await eventually(async () => assert.equal(await v.page.locator('turn-stepper [role=option]').count(), 4));
      await assertClean(v);
    } finally {
      await v.close();
    }
  });

  it('stays on the overview and says why when a lineage cannot be opened', async () => {
    const failing: HostScopes = {
      overview,
      scope: async (id) => {
        if (id === 'b') throw new Error('the file moved');
        return id === null ? whole : scopes.scope(id);
      },
    };
    const v = await h.open(whole, { scopes: failing });
    try {
      await v.page.locator('session-overview [data-key="l:b"]').dblclick();
      const alert = v.page.locator('prompt-inspector-app [role=alert]');
      await eventually(async () => assert.match(await alert.innerText({ timeout: 500 }), /^Could not open lineage b: .*the file moved/));
      assert.equal(await overviewShown(v), true);
      assert.equal(await v.page.locator('turn-stepper').count(), 0);
      // Another row still opens, and the message goes.
      await v.page.locator('session-overview [data-key="l:d"] button.name').click();
      await eventually(async () => assert.equal(await v.page.locator('turn-stepper [role=option]').count(), 2));
      assert.equal(await alert.count(), 0);
      await assertClean(v);
    } finally {
      await v.close();
    }
  });

  it('keeps 2,000 lineages virtualised: few rows in the DOM, the end reachable, scroll and focus kept across an open', async () => {
    const N = 2000;
    const template = overview.lineages[1];
    const lineages: OverviewLineage[] = Array.from({ length: N }, (_, i) => ({
      ...template,
      id: `s${String(i).padStart(4, '0')}`,
      title: `session number ${i}`,
      turns: (i * 7919) % 1000,
      startedAt: 1_789_000_000 + i * 60,
      sessions: [{ ...template.sessions[0], id: `s${String(i).padStart(4, '0')}` }],
    }));
    const big: SessionOverview = { ...overview, lineages };
    const b = await scopes.scope('b');
    const synthetic: HostScopes = { overview: big, scope: async (id) => (id === null ? whole : b) };
    const v = await h.open(whole, { scopes: synthetic });
    try {
      await eventually(async () => assert.ok((await rowKeys(v)).length > 10));
      const rendered = await v.page.locator('session-overview [role=row][data-key]').count();
      assert.ok(rendered < 80, `${rendered} rows in the DOM`);
      assert.equal(await v.page.locator('session-overview [role=treegrid]').getAttribute('aria-rowcount'), String(N + 1));
      assert.equal(await v.page.locator('session-overview [data-count]').innerText(), '2,000 lineages, 2,000 sessions (2,000 shown)');

      // Sort by turns descending, then go a long way down by the keyboard.
      const turns = v.page.locator('session-overview [role=columnheader][data-column=turns] button');
      await turns.click();
      await turns.click();
      const expected = [...lineages].sort((x, y) => (y.turns as number) - (x.turns as number) || lineages.indexOf(x) - lineages.indexOf(y)).map((l) => l.id);
      await eventually(async () => assert.deepEqual((await lineageKeys(v)).slice(0, 5), expected.slice(0, 5)));
      await v.page.locator(`session-overview [data-key="l:${expected[0]}"]`).focus();
      for (let i = 0; i < 30; i++) await v.page.keyboard.press('PageDown');
      const far = await focusedKey(v);
      assert.ok(far && expected.indexOf(far.slice(2)) > 500, `focused ${far}`);
      await v.page.keyboard.press('ArrowDown');
      const target = (await focusedKey(v)) as string;
      assert.equal(target, `l:${expected[expected.indexOf(far.slice(2)) + 1]}`);
      const top = await scrollerTop(v);
      assert.ok(top > 10_000, `scrolled to ${top}`);
      assert.ok((await v.page.locator('session-overview [role=row][data-key]').count()) < 80);

      await v.page.keyboard.press('Enter');
      await eventually(async () => assert.equal(await v.page.locator('turn-stepper [role=option]').count(), 4));
      await v.page.keyboard.press('Backspace');
      await eventually(async () => assert.equal(await focusedKey(v), target));
      assert.equal(await scrollerTop(v), top, 'scrolled as it was left');

      await v.page.keyboard.press('End');
      assert.equal(await focusedKey(v), `l:${expected[N - 1]}`);
      assert.ok((await v.page.locator('session-overview [role=row][data-key]').count()) < 80);
      // A filter shows other rows: the table starts again at its top.
      await v.page.locator('session-overview input[type=search]').fill('number 1');
      await eventually(async () =>
        assert.equal(await v.page.locator('session-overview [data-count]').innerText(), '2,000 lineages, 2,000 sessions (1,111 shown)'),
      );
      assert.equal(await scrollerTop(v), 0);
      await eventually(() => assert.equal(lastState(v)?.overview?.firstVisibleRow, 0));
      await assertClean(v);
    } finally {
      await v.close();
    }
  });

  it('renders in light, dark and high-contrast themes (screenshots)', async () => {
    mkdirSync(SHOTS, { recursive: true });
    const backgrounds = { light: 'rgb(255, 255, 255)', dark: 'rgb(31, 31, 31)', 'high-contrast': 'rgb(0, 0, 0)' };
    for (const theme of ['light', 'dark', 'high-contrast'] as const) {
      const v = await h.open(whole, { scopes, theme });
      try {
        await eventually(async () => assert.equal((await lineageKeys(v)).length, 5));
        await v.page.locator('session-overview [data-key="l:a1"] button.expander').click();
        await v.page.locator('session-overview [data-key="l:b"]').focus();
        const background = await v.page.evaluate(
          "getComputedStyle(document.querySelector('prompt-inspector-app').shadowRoot.querySelector('session-overview')).backgroundColor",
        );
        assert.equal(background, backgrounds[theme]);
        const file = join(SHOTS, `overview-${theme}.png`);
        await v.page.screenshot({ path: file });
        assert.ok(statSync(file).size > 20_000, `${file} has content`);
        await v.page.keyboard.press('Enter');
        await eventually(async () => assert.equal(await v.page.locator('turn-stepper [role=option]').count(), 4));
        await v.page.screenshot({ path: join(SHOTS, `overview-open-${theme}.png`) });
        await assertClean(v);
      } finally {
        await v.close();
      }
    }
  });
});

/** The table's horizontal scroll: how far, how wide, how much shows. */
const scrollX = (v: View): Promise<{ left: number; width: number; client: number }> =>
  v.page.locator('session-overview .scroller').evaluate((e: any) => ({ left: e.scrollLeft, width: e.scrollWidth, client: e.clientWidth }));
const scrollTo = (v: View, left: number): Promise<void> =>
  v.page.locator('session-overview .scroller').evaluate((e: any, x) => {
    e.scrollLeft = x;
  }, left);

/**
 * Where an element of the overview (a selector in its shadow root) is against the table's view: its
 * box, the view's, its position, and whether it is what shows at the point `dx` px inside its left edge.
 */
const place = (v: View, selector: string, dx = 4) =>
  v.page.locator('session-overview').evaluate(
    (host: any, [sel, inset]) => {
      const root = host.shadowRoot;
      const el = root.querySelector(sel);
      const r = el.getBoundingClientRect();
      const view = root.querySelector('.scroller').getBoundingClientRect();
      const hit = root.elementFromPoint(r.left + inset, r.top + r.height / 2);
      return {
        left: r.left,
        right: r.right,
        viewLeft: view.left,
        viewRight: view.right,
        onTop: !!hit && el.contains(hit),
        position: (globalThis as any).getComputedStyle(el).position,
      };
    },
    [selector, dx] as const,
  );

/** Each header whose heading or sort arrow does not fit in it: heading cut, or the arrow outside the button. */
const cutHeadings = (v: View): Promise<string[]> =>
  v.page.locator('session-overview').evaluate((host: any) =>
    [...host.shadowRoot.querySelectorAll('[role=columnheader]')]
      .filter((h: any) => {
        const label = h.querySelector('.label');
        const button = h.querySelector('button').getBoundingClientRect();
        const arrow = h.querySelector('.arrow').getBoundingClientRect();
        return label.scrollWidth > label.clientWidth || arrow.left < button.left || arrow.right > button.right || arrow.width === 0;
      })
      .map((h: any) => h.dataset.column as string),
  );

const sortedLabel = (v: View): Promise<string | null> => v.page.locator('session-overview [data-sorted]').getAttribute('data-sorted', { timeout: 1000 });

describe('session overview columns (Chromium, examples/home: 42 lineages)', () => {
  let h: Harness;
  let home: { whole: Inspection; scopes: HostScopes };
  const ALL = TABLE_COLUMNS.map((c) => c.key);
  /** Every column shown, as a state stored with that choice. */
  const everyColumn: ViewState = { lineage: null, ui: null, overview: { ...EMPTY_OVERVIEW_STATE, columns: ALL } };

  before(async () => {
    home = await inspectLineages(example('home/state.db'), 'hermes-current');
    h = await Harness.start();
  });
  after(async () => {
    await h?.close();
  });

  for (const width of [1440, 1100]) {
    it(`at ${width} px: the compact default set fits without a horizontal scroll; with every column the title stays frozen as the table scrolls`, async () => {
      const v = await h.open(home.whole, { scopes: home.scopes, width });
      try {
        await eventually(async () => assert.ok((await lineageKeys(v)).length > 20));
        assert.deepEqual(await headerKeys(v), ['title', 'source', 'start', 'turns', 'breaks', 'input', 'reused-pct']);
        const compact = await scrollX(v);
        assert.ok(compact.width <= compact.client, `${compact.width} px of table in ${compact.client} px`);
        assert.deepEqual(await cutHeadings(v), []);
        await v.page.screenshot({ path: join(SHOTS, `overview-columns-${width}.png`) });

        // Every column, chosen with the mouse: now the table is wider than the view.
        await v.page.locator('session-overview button.columns').click();
        for (const key of ALL.filter((k) => !DEFAULT_COLUMNS.includes(k))) await v.page.locator(`session-overview .menu [data-column="${key}"]`).click();
        await v.page.keyboard.press('Escape');
        assert.deepEqual(await headerKeys(v), ALL);
        const wide = await scrollX(v);
        assert.ok(wide.width > wide.client + 500, `${wide.width} px of table in ${wide.client} px`);
        await scrollTo(v, wide.width);
        assert.ok((await scrollX(v)).left > 500);
        const first = (await lineageKeys(v))[0];
        for (const sel of ['[role=columnheader][data-column=title]', `[data-key="l:${first}"] [data-column=title]`, `[data-key="l:${first}"] button.name`]) {
          const p = await place(v, sel);
          assert.ok(Math.abs(p.left - p.viewLeft) < 30, `${sel} at ${p.left}, the view at ${p.viewLeft}`);
          assert.ok(p.onTop, `${sel} shows, not covered by the cells scrolled under it`);
        }
        assert.equal((await place(v, `[data-key="l:${first}"] [data-column=title]`)).position, 'sticky');
        // The last column is reached, beside the title.
        const last = await place(v, `[data-key="l:${first}"] [data-column=warnings]`);
        assert.ok(last.right <= last.viewRight + 1 && last.onTop, JSON.stringify(last));
        assert.deepEqual(await cutHeadings(v), []);
        await v.page.screenshot({ path: join(SHOTS, `overview-columns-scrolled-${width}.png`) });
        await assertClean(v);
      } finally {
        await v.close();
      }
    });
  }

  it('sorting by a header (mouse or keyboard, partly shown or not) never scrolls the table sideways; the arrow, aria-sort and the sorted-by label show it', async () => {
    const v = await h.open(home.whole, { scopes: home.scopes, width: 1100, state: everyColumn });
    try {
      await eventually(async () => assert.deepEqual(await headerKeys(v), ALL));
      // Scrolled so that the view's right edge cuts COMPACTION CALLS*, 40 px of it out of view.
      const calls = v.page.locator('session-overview [role=columnheader][data-column=compaction-calls]');
      const [offset, width] = await calls.evaluate((e: any) => [e.offsetLeft, e.offsetWidth]);
      await scrollTo(v, offset + width - 40 - (await scrollX(v)).client);
      const left = (await scrollX(v)).left;
      assert.ok(left > 0);
      const cutBox = await place(v, '[role=columnheader][data-column=compaction-calls]');
      assert.ok(cutBox.left < cutBox.viewRight - 30 && cutBox.right > cutBox.viewRight, JSON.stringify(cutBox));
      // Clicked where it shows.
      const cut = { key: 'compaction-calls', x: cutBox.left + 12, y: (await calls.boundingBox())!.y + 10 };
      await v.page.mouse.click(cut.x, cut.y);
      const cutHead = v.page.locator(`session-overview [role=columnheader][data-column="${cut.key}"]`);
      await eventually(async () => assert.equal(await cutHead.getAttribute('aria-sort'), 'ascending'));
      assert.equal((await scrollX(v)).left, left, 'not scrolled sideways');
      assert.equal(await sortedLabel(v), `${cut.key} ascending`);

      // A header in full view, by the mouse twice and then by the keyboard.
      const turns = v.page.locator('session-overview [role=columnheader][data-column=turns]');
      const p = await place(v, '[role=columnheader][data-column=turns]');
      assert.ok(p.left > p.viewLeft + 320 && p.right < p.viewRight, `TURNS in full view right of the title: ${JSON.stringify(p)}`);
      const box = await turns.boundingBox();
      assert.ok(box);
      await v.page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
      await eventually(async () => assert.equal(await turns.getAttribute('aria-sort'), 'ascending'));
      assert.equal(await cutHead.getAttribute('aria-sort'), 'none');
      await v.page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
      await eventually(async () => assert.equal(await turns.getAttribute('aria-sort'), 'descending'));
      assert.equal((await scrollX(v)).left, left);
      assert.equal(await turns.locator('.arrow').innerText(), '▼');
      const arrow = await place(v, '[role=columnheader][data-column=turns] .arrow', 4);
      assert.ok(arrow.left >= p.left && arrow.right <= p.right && arrow.onTop, `the arrow in view: ${JSON.stringify(arrow)}`);
      assert.equal(await sortedLabel(v), 'turns descending');
      await turns.locator('button').press('Enter');
      await eventually(async () => assert.equal(await turns.getAttribute('aria-sort'), 'ascending'));
      assert.equal((await scrollX(v)).left, left);

      // Sorted by each column in turn: its heading and arrow whole, the table where it was.
      for (const key of ALL) {
        await v.page.locator(`session-overview [role=columnheader][data-column="${key}"] button`).evaluate((b: any) => b.click());
        await eventually(async () =>
          assert.equal(await v.page.locator(`session-overview [role=columnheader][data-column="${key}"]`).getAttribute('aria-sort'), 'ascending'),
        );
        assert.deepEqual(await cutHeadings(v), [], key);
        assert.equal((await scrollX(v)).left, left, key);
      }
      // A header the keyboard reaches under the frozen title is scrolled out from under it.
      await scrollTo(v, 300);
      await v.page.locator('session-overview [role=columnheader][data-column=source] button').evaluate((b: any) => b.focus());
      const source = await place(v, '[role=columnheader][data-column=source]');
      assert.ok(source.left >= source.viewLeft + 320 && source.onTop, JSON.stringify(source));
      await assertClean(v);
    } finally {
      await v.close();
    }
  });

  it('chooses columns from a keyboard menu, kept in the state across a lineage open and back and a reload; a hidden sort column stays said', async () => {
    const v = await h.open(home.whole, { scopes: home.scopes, width: 1100 });
    try {
      await eventually(async () => assert.ok((await lineageKeys(v)).length > 20));
      const turns = v.page.locator('session-overview [role=columnheader][data-column=turns] button');
      await turns.click();
      await turns.click();
      await eventually(async () => assert.equal(await sortedLabel(v), 'turns descending'));
      const order = await lineageKeys(v);

      const button = v.page.locator('session-overview button.columns');
      assert.equal(await button.getAttribute('aria-haspopup'), 'menu');
      assert.equal(await button.getAttribute('aria-expanded'), 'false');
      await button.focus();
      await v.page.keyboard.press('Enter');
      const menu = v.page.locator('session-overview [role=menu]');
      await menu.waitFor({ state: 'visible', timeout: 5000 });
      assert.equal(await button.getAttribute('aria-expanded'), 'true');
      const focusedItem = (): Promise<string | null> =>
        v.page
          .locator('session-overview')
          .evaluate(
            (e: any) => e.shadowRoot.activeElement?.getAttribute('data-column') ?? (e.shadowRoot.activeElement?.hasAttribute('data-reset') ? 'reset' : null),
          );
      // It opens on its first item: the title, always shown.
      await eventually(async () => assert.equal(await focusedItem(), 'title'));
      const item = (key: string) => menu.locator(`[data-column="${key}"]`);
      assert.equal(await item('title').getAttribute('aria-disabled'), 'true');
      assert.equal(await item('title').getAttribute('aria-checked'), 'true');
      assert.equal(await item('model').getAttribute('role'), 'menuitemcheckbox');
      assert.equal(await item('model').getAttribute('aria-checked'), 'false');
      await v.page.keyboard.press('Space');
      assert.deepEqual(await headerKeys(v), [...DEFAULT_COLUMNS], 'the title cannot be hidden');
      await v.page.keyboard.press('ArrowDown');
      await v.page.keyboard.press('ArrowDown');
      assert.equal(await focusedItem(), 'model');
      await v.page.keyboard.press('Space');
      await eventually(async () => assert.equal(await item('model').getAttribute('aria-checked'), 'true'));
      await v.page.keyboard.press('End');
      assert.equal(await focusedItem(), 'reset');
      await v.page.keyboard.press('Home');
      assert.equal(await focusedItem(), 'title');
      for (let i = 0; i < ALL.length && (await focusedItem()) !== 'turns'; i++) await v.page.keyboard.press('ArrowDown');
      await v.page.keyboard.press('Enter');
      await eventually(async () => assert.equal(await item('turns').getAttribute('aria-checked'), 'false'));
      await v.page.keyboard.press('Escape');
      await eventually(async () => assert.equal(await menu.count(), 0));
      assert.equal(await button.getAttribute('aria-expanded'), 'false');
      assert.equal(await button.evaluate((b: any) => b.getRootNode().activeElement === b), true, 'the focus back on the button');

      const chosen = ['title', 'source', 'model', 'start', 'breaks', 'input', 'reused-pct'];
      assert.deepEqual(await headerKeys(v), chosen);
      // Sorted by a column no longer shown: the order stays, and says so.
      assert.equal(await sortedLabel(v), 'turns descending');
      assert.match(await v.page.locator('session-overview [data-sorted]').innerText(), /^Sorted by\s+TURNS\s+▼/);
      assert.deepEqual(await lineageKeys(v), order);
      await eventually(() => assert.deepEqual(lastState(v)?.overview?.columns, chosen));
      assert.deepEqual(lastState(v)?.overview?.sort, { column: 'turns', descending: true });
      await v.page.screenshot({ path: join(SHOTS, 'overview-columns-chosen.png') });

      // A lineage opened and closed: the same columns.
      await v.page.locator(`session-overview [data-key="l:${order[0]}"]`).focus();
      await v.page.keyboard.press('Enter');
      await eventually(async () => assert.equal(await overviewShown(v), false));
      await v.page.locator('turn-stepper [role=option]').first().waitFor({ timeout: 10_000 });
      await v.page.keyboard.press('Backspace');
      await eventually(async () => assert.equal(await overviewShown(v), true));
      assert.deepEqual(await headerKeys(v), chosen);
      assert.equal(await sortedLabel(v), 'turns descending');
      const stored = lastState(v);
      assert.ok(stored);

      // A reload, as the host hands the stored state back.
      const again = await h.open(home.whole, { scopes: home.scopes, width: 1100, state: stored });
      try {
        await eventually(async () => assert.deepEqual(await headerKeys(again), chosen));
        assert.equal(await sortedLabel(again), 'turns descending');
        // Tab leaves the menu, which closes, the focus on its button.
        const againButton = again.page.locator('session-overview button.columns');
        await againButton.click();
        await again.page.locator('session-overview [role=menu]').waitFor({ state: 'visible', timeout: 5000 });
        await again.page.keyboard.press('Tab');
        await eventually(async () => assert.equal(await again.page.locator('session-overview [role=menu]').count(), 0));
        assert.equal(await againButton.evaluate((b: any) => b.getRootNode().activeElement === b), true);
        // A click elsewhere closes it too; its last item brings the default set back (stored as null).
        await againButton.click();
        await again.page.locator('session-overview h1').click();
        await eventually(async () => assert.equal(await again.page.locator('session-overview [role=menu]').count(), 0));
        await againButton.click();
        await again.page.locator('session-overview [role=menu] [data-reset]').click();
        await eventually(async () => assert.deepEqual(await headerKeys(again), [...DEFAULT_COLUMNS]));
        await eventually(() => assert.equal(lastState(again)?.overview?.columns, null));
        // The sort cleared from its label.
        await again.page.locator('session-overview [data-sorted] button').click();
        await eventually(async () => assert.equal(await again.page.locator('session-overview [data-sorted]').count(), 0));
        await eventually(() => assert.equal(lastState(again)?.overview?.sort, null));
        await assertClean(again);
      } finally {
        await again.close();
      }
      await assertClean(v);
    } finally {
      await v.close();
    }
  });

  it('a state naming unknown columns shows the ones it knows; the empty-state text stays in view however far the table is scrolled', async () => {
    const state: ViewState = { lineage: null, ui: null, overview: { ...EMPTY_OVERVIEW_STATE, columns: ['hit-rate', 'model', ...ALL.slice(8)] } };
    const v = await h.open(home.whole, { scopes: home.scopes, width: 1100, state });
    try {
      await eventually(async () => assert.deepEqual(await headerKeys(v), ['title', 'model', ...ALL.slice(8)]));
      const wide = await scrollX(v);
      assert.ok(wide.width > wide.client);
      await scrollTo(v, wide.width);
      await v.page.locator('session-overview input[type=search]').fill('no such lineage');
      const empty = v.page.locator('session-overview .empty');
      await eventually(async () => assert.equal(await empty.innerText({ timeout: 500 }), 'No lineage matches the filters.'));
      assert.ok((await scrollX(v)).left > 0, 'still scrolled: the header is as wide');
      const p = await place(v, '.empty');
      assert.ok(p.left >= p.viewLeft && p.right <= p.viewRight, `the text in view: ${JSON.stringify(p)}`);
      assert.ok(p.onTop);
      await v.page.screenshot({ path: join(SHOTS, 'overview-columns-empty.png') });
      await assertClean(v);
    } finally {
      await v.close();
    }
  });
});
