// Copy recognition (src/hermes/copies.ts), each tier at the rows where it decides, and lineage.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SUMMARY_END_MARKER, SUMMARY_PREFIX, TODO_SNAPSHOT_PREFIX } from '../../src/hermes/compactionMarkers';
import { carriedPrefix, HeadCopies, matchCopies } from '../../src/hermes/copies';
import { forkKindOf, Lineages } from '../../src/hermes/lineage';
import { contentRelation } from '../../src/hermes/rowIdentity';
import type { Row } from '../../src/shared/model/rows';

const carrier: Row = { role: 'user', content: `${SUMMARY_PREFIX} Earlier turns were compacted.\n\n${SUMMARY_END_MARKER}`, _compressed_summary: true };
const u = (content: unknown, timestamp?: number): Row => ({ role: 'user', content, ...(timestamp === undefined ? {} : { timestamp }) });
const a = (content: string, timestamp?: number): Row => ({ role: 'assistant', content, ...(timestamp === undefined ? {} : { timestamp }) });

describe('copies', () => {
  it('message_uid wins over everything, even a changed timestamp and content', () => {
    const before = [u('q1', 1), a('a1', 2)];
    const after = [u('q1 edited', 99), a('other', 98)];
    const m = matchCopies({ rows: before, evidence: [{ uid: 'x' }, { uid: 'y' }] }, { rows: after, evidence: [{ uid: 'x' }, { uid: 'z' }] });
    assert.deepEqual([...m.source], [0, -1]);
  });

  it('display_identity matches where no uid is kept', () => {
    const before = [u('q', 1)];
    const after = [u('q', 1), u('q', 1)];
    const m = matchCopies({ rows: before, evidence: [{ identity: 'h' }] }, { rows: after, evidence: [{ identity: 'other' }, { identity: 'h' }] });
    assert.deepEqual([...m.source], [-1, 0], 'the identity column decides, not the equal fields of row 0');
  });

  it('role, tool fields and timestamp with equal content: a copy; the same words at another time: a new row', () => {
    const before = [u('yes', 1), a('ok', 2)];
    const m = matchCopies({ rows: before }, { rows: [carrier, u('yes', 1), u('yes', 5)] });
    assert.deepEqual([...m.source], [-1, 0, -1]);
    assert.equal(carriedPrefix([carrier, u('yes', 1), u('yes', 5)], m.source), 2);
  });

  it('the todo snapshot folded into a copy and a part list stored as text are copies whose content changed', () => {
    const todo = `${TODO_SNAPSHOT_PREFIX}\n- [ ] 1. ship it (pending)`;
    assert.equal(contentRelation('do the thing', `do the thing\n\n${todo}`), 'todo-merged');
    const parts = [
      { type: 'text', text: 'look at this' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
    ];
    assert.equal(contentRelation('look at this\n[screenshot]', parts), 'projected');
    assert.equal(contentRelation('look at that\n[screenshot]', parts), null);
    const m = matchCopies({ rows: [u('do the thing', 7)] }, { rows: [carrier, u(`do the thing\n\n${todo}`, 7)] });
    assert.deepEqual(m.relation, [null, 'todo-merged']);
  });

  it('re-stamped copies (older stores) are found by alignment: head prefix before the carrier, tail suffix after it', () => {
    const before = [u('first', 1), a('one', 2), u('second', 3), a('two', 4), u('third', 5), a('three', 6), u('ask', 7)];
    const after = [u('first', 50), a('one', 50), carrier, u('third', 50), a('three', 50), u('ask', 50), a('answer', 51)];
    const m = matchCopies({ rows: before }, { rows: after });
    assert.deepEqual([...m.source], [0, 1, -1, 4, 5, 6, -1]);
  });

  it('a fork without a carrier: its copied history is a prefix of the parent', () => {
    const parent = [u('p1', 1), a('r1', 2), u('p2', 3), a('r2', 4)];
    const child = [u('p1', 90), a('r1', 90), u('p2', 90), a('r2', 90), u('new', 91), a('x', 92)];
    const m = matchCopies({ rows: parent }, { rows: child });
    assert.equal(carriedPrefix(child, m.source), 4);
  });

  it('head copies before an in-place carrier: by timestamp, and by alignment when re-stamped', () => {
    const stamped = [u('q1', 1), a('a1', 2), u('q2', 3), a('a2', 4), u('q1', 1), a('a1', 2), carrier, u('q3', 9)];
    assert.equal(new HeadCopies({ rows: stamped }, 0).startBefore(6), 4);
    const restamped = [u('q1', 1), a('a1', 2), u('q2', 3), a('a2', 4), u('q1', 50), a('a1', 50), carrier];
    assert.equal(new HeadCopies({ rows: restamped }, 0).startBefore(6), 4);
    const none = [u('q1', 1), a('a1', 2), carrier];
    assert.equal(new HeadCopies({ rows: none }, 0).startBefore(2), 2);
  });
});

describe('lineage', () => {
  const s = (id: string, parentId: string | null, endReason: string | null = null, forkKind?: 'branch') => ({
    id,
    parentId,
    endReason,
    ...(forkKind ? { forkKind } : {}),
  });

  it('only an un-forked child of a compression-ended parent continues it', () => {
    const l = new Lineages([s('p', null, 'compression'), s('c', 'p'), s('b', 'p', null, 'branch'), s('q', null, 'branched'), s('d', 'q')]);
    assert.equal(l.root(l.get('c')!).id, 'p');
    assert.equal(l.root(l.get('b')!).id, 'b');
    assert.equal(l.root(l.get('d')!).id, 'd');
    assert.deepEqual([...l.around('c')].sort(), ['c', 'p']);
    assert.deepEqual([...l.around('p')].sort(), ['b', 'c', 'p'], 'a branch descends from its parent too');
    assert.equal(forkKindOf({ _branched_from: 'p' }), 'branch');
    assert.equal(forkKindOf({ _delegate_from: 'p' }), 'delegate');
    assert.equal(forkKindOf({ max_iterations: 90 }), undefined);
  });

  it('orders a chain 100,000 deep parents first without recursion, and stops at a loop', () => {
    const chain = Array.from({ length: 100_000 }, (_, i) => s(`s${i}`, i ? `s${i - 1}` : null, 'compression'));
    const ordered = new Lineages(chain.slice().reverse()).ordered();
    assert.equal(ordered.length, chain.length);
    assert.equal(ordered[0].id, 's0');
    assert.equal(ordered[99_999].id, 's99999');
    const l = new Lineages([s('x', 'y'), s('y', 'x')]);
    assert.deepEqual(l.cycleFrom(l.get('x')!), ['x', 'y', 'x']);
    assert.equal(l.ordered().length, 2);
  });
});
