// An overview refreshed as the rows that changed (overviewChanges, withChanges in
// src/shared/overviewColumns.ts): what the host posts to a view that holds the one before, and how the
// view makes the new one of it. The new one, made so, is the new one, whatever changed.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { overviewChanges, withChanges } from '../../src/shared/overviewColumns';
import type { OverviewLineage, OverviewSession, SessionOverview } from '../../src/shared/overviewTypes';

const session = (id: string): OverviewSession => ({ id, title: null, read: true }) as OverviewSession;
const row = (id: string, turns: number | null, children: OverviewLineage[] = []): OverviewLineage =>
  ({ id, title: `title ${id}`, turns, sessions: [session(id)], children }) as OverviewLineage;
const overviewOf = (lineages: OverviewLineage[], extra: Partial<SessionOverview> = {}): SessionOverview =>
  ({ source: { path: 'state.db', format: 'hermes-state-db' }, read: true, lineages, unplaced: { errors: 0, warnings: 0 }, ...extra }) as SessionOverview;

describe('an overview refreshed as the rows that changed', () => {
  it('of a turn appended to one lineage: that row alone, the order as it was', () => {
    const before = overviewOf([row('a', 3), row('b', 5, [row('b-f', 1)]), row('c', 2)]);
    const after = overviewOf([row('a', 3), row('b', 6, [row('b-f', 1)]), row('c', 2)]);
    const changes = overviewChanges(before, after);
    assert.ok(changes);
    assert.deepEqual(changes.rows, [after.lineages[1]]);
    assert.equal(changes.order, null);
    assert.deepEqual(withChanges(before, changes), after);
  });

  it('of a fork changed under its lineage: the top-level row that holds it', () => {
    const before = overviewOf([row('a', 3), row('b', 5, [row('b-f', 1)])]);
    const after = overviewOf([row('a', 3), row('b', 5, [row('b-f', 2)])]);
    const changes = overviewChanges(before, after);
    assert.ok(changes);
    assert.deepEqual(
      changes.rows.map((l) => l.id),
      ['b'],
    );
    assert.deepEqual(withChanges(before, changes), after);
  });

  it('of rows added and gone: the new ones, and every id in its new order', () => {
    const before = overviewOf([row('a', 3), row('b', 5), row('c', 2)]);
    const after = overviewOf([row('d', 1), row('a', 3), row('c', 2)]);
    const changes = overviewChanges(before, after);
    assert.ok(changes);
    assert.deepEqual(
      changes.rows.map((l) => l.id),
      ['d'],
    );
    assert.deepEqual(changes.order, ['d', 'a', 'c']);
    assert.deepEqual(withChanges(before, changes), after);
  });

  it("takes the overview's own fields from the new one, a field it no longer has included", () => {
    const before = overviewOf([row('a', null)], { reading: true, read: false });
    const after = overviewOf([row('a', 4)], { unplaced: { errors: 1, warnings: 0 } });
    const changes = overviewChanges(before, after);
    assert.ok(changes);
    const made = withChanges(before, changes);
    assert.deepEqual(made, after);
    assert.ok(!('reading' in made));
  });

  it('unchanged: no rows', () => {
    const o = overviewOf([row('a', 3), row('b', 5)]);
    assert.deepEqual(overviewChanges(o, structuredClone(o))?.rows, []);
  });

  it('is none when top-level ids repeat: rows that cannot be told apart go whole', () => {
    assert.equal(overviewChanges(overviewOf([row('a', 1)]), overviewOf([row('a', 1), row('a', 2)])), null);
  });

  it('makes the new overview of the old, whatever rows changed, moved, came or went', () => {
    const ids = fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g'), { maxLength: 7 });
    const rowsOf = (list: string[]) =>
      fc.tuple(...list.map((id) => fc.option(fc.nat(3)).map((turns) => row(id, turns, turns === 2 ? [row(`${id}-f`, 1)] : []))));
    const overview = ids.chain(rowsOf).map((lineages) => overviewOf(lineages));
    fc.assert(
      fc.property(overview, overview, fc.boolean(), (before, after, reading) => {
        const fresh = reading ? { ...after, reading } : after;
        const changes = overviewChanges(before, fresh);
        assert.ok(changes);
        assert.deepEqual(withChanges(before, changes), fresh);
        // Only what differs goes: a row equal to the one held of its id is not sent again.
        for (const r of changes.rows)
          assert.notDeepEqual(
            before.lineages.find((l) => l.id === r.id),
            r,
          );
      }),
    );
  });
});
