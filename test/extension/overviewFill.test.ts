// Filling a listed overview (src/extension/overviewFill.ts): the rows the view shows from its first
// row on screen go first, in its order (sort, filters, expanded chains, forks), then those above,
// then those its filters hide, each once; small batches first (a screenful back soon), then larger;
// a filled row replaces its listed one and leaves the others as listed.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { batchSize, nextToFill, withFilled } from '../../src/extension/overviewFill';
import type { OverviewState } from '../../src/shared/messages';
import type { OverviewLineage, OverviewSession, SessionOverview } from '../../src/shared/overviewTypes';
import { EMPTY_OVERVIEW_STATE } from '../../webview/overview-model';

const session = (id: string): OverviewSession => ({ id, source: 'cli', title: null, read: false }) as OverviewSession;
const row = (id: string, startedAt: number, extra: Partial<OverviewLineage> = {}): OverviewLineage =>
  ({ id, startedAt, title: `title ${id}`, source: 'cli', turns: null, sessions: [session(id)], children: [], ...extra }) as OverviewLineage;
const overviewOf = (lineages: OverviewLineage[]): SessionOverview => ({ read: false, reading: true, lineages }) as SessionOverview;
const state = (s: Partial<OverviewState>): OverviewState => ({ ...EMPTY_OVERVIEW_STATE, ...s });

describe('filling a listed overview', () => {
  it('asks for 8 rows, then twice as many each time, up to 128', () => {
    const sizes = [batchSize(0)];
    while (sizes.length < 8) sizes.push(batchSize(sizes[sizes.length - 1]));
    assert.deepEqual(sizes, [8, 16, 32, 64, 128, 128, 128, 128]);
  });

  it('without a view, the rows in start order from the top, each once', () => {
    const o = overviewOf(['a', 'b', 'c', 'd', 'e'].map((id, i) => row(id, i)));
    assert.deepEqual(nextToFill(o, new Set(), null, 2), ['a', 'b']);
    assert.deepEqual(nextToFill(o, new Set(['a', 'c']), null, 2), ['b', 'd']);
    assert.deepEqual(nextToFill(o, new Set(['a', 'b', 'c', 'd', 'e']), null, 8), []);
  });

  it('from the top-level row the screen starts in, counting forks and expanded sessions, then the rows above', () => {
    // Rows on screen: a, its fork a-f, b, its two sessions (expanded), c, d, e.
    const o = overviewOf([
      row('a', 0, { children: [row('a-f', 1)] }),
      row('b', 2, { sessions: [session('b1'), session('b2')] }),
      row('c', 3),
      row('d', 4),
      row('e', 5),
    ]);
    const at = (firstVisibleRow: number): OverviewState => state({ expanded: ['b'], firstVisibleRow });
    assert.deepEqual(nextToFill(o, new Set(), at(0), 9), ['a', 'b', 'c', 'd', 'e']);
    assert.deepEqual(nextToFill(o, new Set(), at(1), 2), ['a', 'b'], 'the fork is a row of its lineage a');
    assert.deepEqual(nextToFill(o, new Set(), at(4), 9), ['b', 'c', 'd', 'e', 'a'], "b's second session");
    assert.deepEqual(nextToFill(o, new Set(), at(5), 9), ['c', 'd', 'e', 'a', 'b']);
    assert.deepEqual(nextToFill(o, new Set(), at(99), 2), ['e', 'a'], 'scrolled past the end: from the last');
  });

  it("in the view's sort, then the rows its filters hide", () => {
    const o = overviewOf([row('a', 0, { title: 'deploy' }), row('b', 1), row('c', 2, { title: 'deploy again' }), row('d', 3)]);
    assert.deepEqual(nextToFill(o, new Set(), state({ sort: { column: 'start', descending: true } }), 9), ['d', 'c', 'b', 'a']);
    assert.deepEqual(nextToFill(o, new Set(), state({ filter: 'deploy' }), 9), ['a', 'c', 'b', 'd']);
    assert.deepEqual(nextToFill(o, new Set(['c']), state({ filter: 'deploy', sort: { column: 'start', descending: true } }), 2), ['a', 'b']);
  });

  it('puts each row filled in in place of its listed row, the others as listed', () => {
    const listed = overviewOf([row('a', 1), row('b', 2), row('c', 3)]);
    const filled = withFilled(listed, [row('c', 3, { turns: 5 }), row('a', 1, { turns: 2 }), row('zz', 9, { turns: 1 })]);
    assert.deepEqual(
      filled.lineages.map((l) => [l.id, l.turns]),
      [
        ['a', 2],
        ['b', null],
        ['c', 5],
      ],
    );
    assert.equal(filled.reading, true, 'still read whole meanwhile');
    assert.deepEqual(
      listed.lineages.map((l) => l.turns),
      [null, null, null],
      'the listing itself unchanged',
    );
  });
});
