// The session overview in real Chromium, with the host side played by the real engine on a
// state.db of several lineages written by real SQLite (test/support/hermesDb.ts): rows, sorting,
// filters, expansion, the keyboard, opening a lineage's inspector scoped to it and coming back to
// the overview exactly as it was left; and a 2,000-lineage overview kept virtualised.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { OverviewLineage, SessionOverview } from '../../src/analysis/overviewTypes';
import type { Inspection } from '../../src/protocol/inspection';
import type { ViewState } from '../../src/protocol/messages';
import { writeHermesDb, type MessageSpec, type SessionSpec } from '../support/hermesDb';
import { eventually, Harness, inspectLineages, SHOTS, type HostScopes, type View } from '../support/webviewHarness';

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
      await v.send({ type: 'update', index: next.whole.index, overview: next.scopes.overview });
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
      await v.send({ type: 'update', index: v.data.index, overview: again.scopes.overview });
      await eventually(async () => assert.equal(await v.page.locator('session-overview [data-count]').innerText(), '6 lineages, 7 sessions (6 shown)'));
      assert.equal(await selectedTurn(), 'turn-2');
      assert.equal(await overviewShown(v), false);
      // b is gone: the host went back to the whole file, the view to the overview.
      rmSync(path);
      writeStore(path, [], ['b']);
      const gone = await inspectLineages(path, 'hermes-current');
      v.data = gone.whole;
      await v.send({ type: 'update', index: gone.whole.index, overview: gone.scopes.overview });
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
