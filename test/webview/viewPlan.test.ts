// The inspector page's decisions in plain Node (webview/view-plan.ts): what a key does, what the
// first view shows, what an update does to the open view, what a step announces.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SessionOverview } from '../../src/shared/overviewTypes';
import { firstView, keyAction, selectionAnnouncement, updatePlan, type KeyPlace, type KeyPress } from '../../webview/view-plan';
import { index } from '../support/webviewIndex';

const press = (key: string, mods: Partial<KeyPress> = {}): KeyPress => ({
  key,
  altKey: false,
  ctrlKey: false,
  metaKey: false,
  defaultPrevented: false,
  ...mods,
});
const inspecting: KeyPlace = { inTextField: false, idle: true, hasOverview: true, onOverview: false, inspecting: true };

/** An overview of lineage `a` with a child `b` (only ids and children matter to these decisions). */
const overview = { lineages: [{ id: 'a', children: [{ id: 'b', children: [] }] }] } as unknown as SessionOverview;

describe('view plan: keys', () => {
  it('letters step anywhere but in text fields; arrows only on the idle page', () => {
    assert.equal(keyAction(press('j'), inspecting), 'nextTurn');
    assert.equal(keyAction(press('K'), inspecting), 'previousRequest');
    assert.equal(keyAction(press('b'), { ...inspecting, idle: false }), 'nextBreak');
    assert.equal(keyAction(press('ArrowDown'), inspecting), 'nextTurn');
    assert.equal(keyAction(press('ArrowUp'), { ...inspecting, idle: false }), null, 'a focused list takes its own arrows');
    assert.equal(keyAction(press('j'), { ...inspecting, inTextField: true }), null);
    assert.equal(keyAction(press('x'), inspecting), null);
  });

  it('modifiers and handled keys are left alone; nothing steps on the overview or before an index', () => {
    for (const mods of [{ ctrlKey: true }, { metaKey: true }, { altKey: true }, { defaultPrevented: true }])
      assert.equal(keyAction(press('j', mods), inspecting), null);
    assert.equal(keyAction(press('j'), { ...inspecting, onOverview: true }), null);
    assert.equal(keyAction(press('j'), { ...inspecting, inspecting: false }), null);
  });

  it('Backspace and Alt+Left go back to the overview, only from a lineage of a file that has one', () => {
    assert.equal(keyAction(press('Backspace'), inspecting), 'back');
    assert.equal(keyAction(press('ArrowLeft', { altKey: true }), inspecting), 'back');
    assert.equal(keyAction(press('Backspace', { altKey: true }), inspecting), null);
    assert.equal(keyAction(press('Backspace'), { ...inspecting, hasOverview: false }), null);
    assert.equal(keyAction(press('Backspace'), { ...inspecting, onOverview: true }), null);
    assert.equal(keyAction(press('Backspace'), { ...inspecting, inTextField: true }), null, 'a text field deletes');
  });
});

describe('view plan: first view and updates', () => {
  const ui = { turn: 2, request: 3, firstVisibleMessage: 4 };
  it('a file of one lineage opens its inspector at the remembered place', () => {
    assert.deepEqual(firstView(null, null, { lineage: null, ui, overview: null }), { show: 'inspector', lineage: null, ui });
    assert.deepEqual(firstView(null, null, null), { show: 'inspector', lineage: null, ui: null });
  });

  it('a file of several: the remembered lineage if the file still has it (opened now unless the host has it open), else the overview', () => {
    assert.deepEqual(firstView(overview, null, null), { show: 'overview' });
    assert.deepEqual(firstView(overview, null, { lineage: 'gone', ui, overview: null }), { show: 'overview' });
    assert.deepEqual(firstView(overview, { lineage: 'b', ui: null, overview: null }, { lineage: 'b', ui, overview: null }), {
      show: 'inspector',
      lineage: 'b',
      ui,
    });
    assert.deepEqual(firstView(overview, null, { lineage: 'b', ui, overview: null }), { show: 'opening', lineage: 'b', ui });
  });

  it('an update keeps the overview, refreshes the open scope, and leaves a lineage the file lost', () => {
    const page = (onOverview: boolean, lineage: string | null, inspecting = true) => ({ onOverview, inspecting, lineage });
    assert.equal(updatePlan(overview, page(true, null)), 'keep');
    assert.equal(updatePlan(null, page(true, null)), 'whole-file', 'down to one lineage: no overview to stay on');
    assert.equal(updatePlan(overview, page(false, 'b')), 'refresh');
    assert.equal(updatePlan(overview, page(false, 'gone')), 'overview');
    assert.equal(updatePlan(null, page(false, 'b')), 'whole-file');
    assert.equal(updatePlan(null, page(false, null)), 'refresh');
    assert.equal(updatePlan(overview, page(false, 'b', false)), 'keep', 'nothing shown yet');
  });
});

describe('view plan: announcements', () => {
  it('says the turn and its title, the request and its status with the break cause', () => {
    const x = index([2, 3, 1], [2]);
    assert.equal(
      selectionAnnouncement(x, { turn: 0, request: 1, firstVisibleMessage: 0 }, 'turn 0', undefined),
      'Turn 0 of 3: turn 0. Request #1, stable prefix.',
    );
    assert.equal(
      selectionAnnouncement(x, { turn: 1, request: 2, firstVisibleMessage: 0 }, undefined, 'history-rewritten'),
      'Turn 1 of 3. Request #2, cache break, history-rewritten.',
    );
    assert.equal(selectionAnnouncement(x, { turn: 1, request: -1, firstVisibleMessage: 0 }, undefined, undefined), 'Turn 1 of 3. Request none, no request.');
  });
});
