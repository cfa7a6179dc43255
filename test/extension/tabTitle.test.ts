// An inspector tab's title (src/extension/tabTitle.ts): the open lineage and the file.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SessionOverview } from '../../src/shared/overviewTypes';
import { shortPath, tabTitle } from '../../src/extension/tabTitle';

const overview = {
  lineages: [
    { id: 'a', title: 'task 0 cron', children: [{ id: 'a-branch', title: null, children: [] }] },
    { id: 'b\u202egnp.exe', title: null, children: [] },
  ],
} as unknown as SessionOverview;

describe('the tab title', () => {
  it('names the file by its folder and name, and the open lineage by its title, else its id (bidi shown)', () => {
    assert.equal(shortPath('/home/u/.hermes/state.db'), '.hermes/state.db');
    assert.equal(tabTitle('/w/home/state.db', overview, null), 'home/state.db');
    assert.equal(tabTitle('/w/home/state.db', overview, 'a'), 'task 0 cron — home/state.db');
    assert.equal(tabTitle('/w/home/state.db', overview, 'a-branch'), 'a-branch — home/state.db');
    assert.doesNotMatch(tabTitle('/w/home/state.db', overview, 'b\u202egnp.exe'), /\u202e/);
  });
});
