// Filling a listed overview (src/extension/overviewFill.ts): the rows the view shows from its first
// row on screen go first, in its order (sort, filters, expanded chains, forks), then those above,
// then those its filters hide, each once; small batches first (a screenful back soon), then larger;
// a filled row replaces its listed one and leaves the others as listed.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addFindings, batchSize, filledAgain, fillOverview, nextToFill, type Filling } from '../../src/extension/overviewFill';
import { withFilled } from '../../src/shared/overviewColumns';
import type { Diagnostic } from '../../src/shared/reportTypes';
import type { OverviewState } from '../../src/shared/messages';
import type { OverviewLineage, OverviewSession, SessionOverview } from '../../src/shared/overviewTypes';
import { EMPTY_OVERVIEW_STATE } from '../../webview/overview-model';

const session = (id: string): OverviewSession => ({ id, source: 'cli', title: null, read: false }) as OverviewSession;
const row = (id: string, startedAt: number, extra: Partial<OverviewLineage> = {}): OverviewLineage =>
  ({ id, startedAt, title: `title ${id}`, source: 'cli', turns: null, sessions: [session(id)], children: [], ...extra }) as OverviewLineage;
const overviewOf = (lineages: OverviewLineage[]): SessionOverview => ({ read: false, reading: true, lineages }) as SessionOverview;
const state = (s: Partial<OverviewState>): OverviewState => ({ ...EMPTY_OVERVIEW_STATE, ...s });

describe('filling a listed overview', () => {
  it('asks for 8 rows, then twice as many each time, up to 32', () => {
    const sizes = [batchSize(0)];
    while (sizes.length < 8) sizes.push(batchSize(sizes[sizes.length - 1]));
    assert.deepEqual(sizes, [8, 16, 32, 32, 32, 32, 32, 32]);
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

  it('fills every row in, each call the rows the view shows next, and says how far; stops when a call fails, the rows go or the user cancels', async () => {
    const rows = Array.from({ length: 30 }, (_, i) => row(`r${String(i).padStart(2, '0')}`, i));
    const run = async (over: Partial<Filling> = {}, views: (OverviewState | null)[] = []) => {
      let overview = overviewOf(rows);
      const asked: string[][] = [];
      const told: string[] = [];
      const done = await fillOverview({
        overview: () => overview,
        shownAs: () => views[asked.length] ?? null,
        fillers: [
          Promise.resolve(async (lineages: string[]) => {
            asked.push(lineages);
            overview = withFilled(
              overview,
              lineages.map((id) => row(id, 0, { turns: 1 })),
            );
            return true;
          }),
        ],
        stillShown: () => true,
        cancelled: () => false,
        filledIn: (n, of) => told.push(`${n}/${of}`),
        ...over,
      });
      return { done, asked, told, overview };
    };
    const whole = await run({}, [null, state({ firstVisibleRow: 20 })]);
    assert.equal(whole.done, true);
    assert.deepEqual(
      whole.asked.map((b) => b.length),
      [8, 16, 6],
    );
    assert.deepEqual(whole.asked[1].slice(0, 2), ['r20', 'r21'], 'the second call from where the view was scrolled to');
    assert.deepEqual(whole.told, ['8/30', '24/30', '30/30']);
    assert.ok(whole.overview.lineages.every((l) => l.turns === 1));
    // Each way of stopping: after the first call.
    assert.deepEqual((await run({ fillers: [Promise.resolve(async () => false)] })).told, [], 'a call that fails: nothing told');
    const gone = await run({ stillShown: () => false });
    assert.deepEqual([gone.done, gone.asked.length, gone.told], [false, 1, []]);
    const cancelled = await run({ cancelled: () => true });
    assert.deepEqual([cancelled.done, cancelled.asked.length, cancelled.told], [false, 1, ['8/30']]);
  });

  it('fills on every worker that listed the file at once, none asked for a row another has, and stops them all when one call fails', async () => {
    const rows = Array.from({ length: 40 }, (_, i) => row(`r${String(i).padStart(2, '0')}`, i));
    const run = async (second: 'ok' | 'fails' | 'unlisted') => {
      const asked: [string, string[]][] = [];
      const out: string[] = [];
      let release: () => void = () => undefined;
      const worker =
        (name: string, fails = false) =>
        async (lineages: string[]): Promise<boolean> => {
          asked.push([name, lineages]);
          // The first worker's first call is back only once the second worker has asked for its rows.
          if (name === 'a' && asked.length === 1 && second !== 'unlisted') await new Promise<void>((r) => (release = r));
          if (name === 'b') release();
          if (fails) return false;
          out.push(...lineages);
          return true;
        };
      const done = await fillOverview({
        overview: () => overviewOf(rows),
        shownAs: () => null,
        fillers: [Promise.resolve(worker('a')), Promise.resolve(second === 'unlisted' ? null : worker('b', second === 'fails'))],
        stillShown: () => true,
        cancelled: () => false,
        filledIn: () => undefined,
      });
      return { done, asked, out };
    };
    const both = await run('ok');
    assert.equal(both.done, true);
    assert.deepEqual(both.asked.slice(0, 2), [
      ['a', rows.slice(0, 8).map((r) => r.id)],
      ['b', rows.slice(8, 16).map((r) => r.id)],
    ]);
    assert.deepEqual(
      [...both.out].sort(),
      rows.map((r) => r.id),
      'every row once',
    );
    assert.equal(both.out.length, 40);
    const failing = await run('fails');
    assert.equal(failing.done, false);
    assert.deepEqual(
      failing.asked.map(([w, l]) => [w, l.length]),
      [
        ['a', 8],
        ['b', 8],
      ],
      'the first worker asks for nothing more once the other failed',
    );
    const alone = await run('unlisted');
    assert.deepEqual(
      [alone.done, new Set(alone.asked.map(([w]) => w)), alone.out.length],
      [true, new Set(['a']), 40],
      'a worker that could not list the file fills nothing',
    );
  });

  it('after a change, keeps the rows filled in that the session table lists as before, with their findings, and fills in only the others', async () => {
    const listed = overviewOf([row('a', 1), row('b', 2), row('c', 3)]);
    const first = filledAgain(null, listed);
    assert.equal(first.rows.size, 0, 'nothing filled before the first listing');
    for (const id of ['a', 'b']) first.rows.set(id, row(id, 0, { turns: 9 }));
    // b written to since (its counters moved), c never filled, d new.
    const again = overviewOf([row('a', 1), row('b', 2, { recorded: { messages: 12 } as OverviewLineage['recorded'] }), row('c', 3), row('d', 4)]);
    const finding = (sessionId: string | undefined): Diagnostic => ({
      severity: 'warning',
      code: 'parse-error',
      message: `in ${sessionId}`,
      turn: null,
      request: null,
      sessionId,
    });
    first.findings.push(finding('a'), finding('b'), finding(undefined));
    const kept = filledAgain(first, again);
    assert.deepEqual([...kept.rows.keys()], ['a']);
    assert.deepEqual(
      kept.findings.map((d) => d.sessionId),
      ['a'],
      'the findings of the rows kept (b is filled in again, with its own)',
    );
    const asked: string[] = [];
    await fillOverview({
      filled: new Set(kept.rows.keys()),
      overview: () => again,
      shownAs: () => null,
      fillers: [Promise.resolve(async (lineages: string[]) => (asked.push(...lineages), true))],
      stillShown: () => true,
      cancelled: () => false,
      filledIn: () => undefined,
    });
    assert.deepEqual(asked, ['b', 'c', 'd']);
  });

  it('adds the findings a call brings that are not listed yet, each once, and gives those it added', () => {
    const finding = (message: string, sessionId?: string): Diagnostic => ({
      severity: 'warning',
      code: 'parse-error',
      message,
      turn: null,
      request: null,
      ...(sessionId ? { sessionId } : {}),
    });
    const found = [finding('state.db-wal: a torn frame')];
    assert.deepEqual(addFindings(found, [finding('state.db-wal: a torn frame'), finding('row 7 is damaged', 'a'), finding('row 7 is damaged', 'a')]), [
      finding('row 7 is damaged', 'a'),
    ]);
    assert.deepEqual(
      found.map((d) => [d.message, d.sessionId]),
      [
        ['state.db-wal: a torn frame', undefined],
        ['row 7 is damaged', 'a'],
      ],
    );
    assert.deepEqual(addFindings(found, [finding('row 7 is damaged', 'a')]), [], 'nothing new');
    assert.deepEqual(addFindings(found, [finding('row 7 is damaged', 'b')]), [finding('row 7 is damaged', 'b')], 'the same words in another session');
    assert.equal(found.length, 3);
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
