// The session overview's table model in plain Node: which rows a tree of lineages makes with some
// chains expanded, what the filters and sorting let through, the count line, the window of rows on
// screen, each cell's text, and which columns the table shows.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileReadOf, OVERVIEW_COLUMNS, overviewColumn, overviewRows, shownLineages, type OverviewRow } from '../../src/shared/overviewColumns';
import type { OverviewLineage, OverviewSession, SessionOverview } from '../../src/shared/overviewTypes';
import {
  cellOf,
  DEFAULT_COLUMNS,
  EMPTY_OVERVIEW_STATE,
  overviewCounts,
  overviewSources,
  rowWindow,
  BILLED_COLUMNS,
  shownColumns,
  TABLE_COLUMNS,
  withColumn,
} from '../../webview/overview-model';
import { revealBidiControls } from '../../webview/format';

const recorded = {
  apiCalls: null,
  messages: null,
  inputTokens: null,
  outputTokens: null,
  cacheReadTokens: null,
  cacheWriteTokens: null,
  estimatedCostUsd: null,
};

function session(id: string, o: Partial<OverviewSession> = {}): OverviewSession {
  return {
    id,
    parentId: null,
    title: null,
    startedAt: 1000,
    lastRowAt: 1060,
    endedAt: null,
    durationSeconds: 60,
    source: 'cli',
    model: null,
    mainLoopModels: [],
    endReason: null,
    read: true,
    recorded,
    recordedCompactionCalls: null,
    turns: 1,
    requests: 1,
    compactions: 0,
    cacheBreaks: 0,
    inputTokens: 100,
    reusedTokens: 50,
    errors: 0,
    warnings: 0,
    billedInputTokens: null,
    billedCacheReadTokens: null,
    costUsd: null,
    unexplainedMisses: null,
    ...o,
  };
}

function lineage(id: string, o: Partial<OverviewLineage> = {}): OverviewLineage {
  const sessions = o.sessions ?? [session(id, { source: o.source ?? 'cli' })];
  return {
    ...session(id),
    kind: 'conversation',
    forkedFrom: null,
    source: 'cli',
    recordedCompactionCalls: null,
    children: [],
    ...o,
    sessions,
  };
}

const file = (lineages: OverviewLineage[], read = true): SessionOverview => ({
  source: { path: 'state.db', format: 'hermes-state-db' },
  profile: 'hermes-current',
  tokenizer: 'o200k_base',
  read,
  lineages,
  unplaced: { errors: 0, warnings: 0 },
});

/** A row as a short label: "a", "a/a2" for a session row, indented by depth. */
const label = (r: OverviewRow): string => `${'  '.repeat(r.depth)}${r.kind === 'lineage' ? r.lineage.id : `${r.lineage.id}/${r.session.id}`}`;

// a: a chain of two sessions with a branch forked off a2 and a delegate of that branch; b and c plain.
const branch = lineage('br', { kind: 'branch', forkedFrom: 'a2', turns: 7, source: 'telegram', children: [lineage('dl', { kind: 'delegate', turns: 1 })] });
const chain = lineage('a', { turns: 5, cacheBreaks: 2, sessions: [session('a'), session('a2')], children: [branch] });
const b = lineage('b', { turns: 9, errors: 1, title: 'Deploy the site' });
const c = lineage('c', { turns: null, title: 'Refactor' });
const overview = file([chain, b, c]);

describe('overview rows', () => {
  it('lists a chain as one row, its sessions under it only when expanded, and forks one level deeper each', () => {
    assert.deepEqual(overviewRows(overview.lineages, new Set()).map(label), ['a', '  br', '    dl', 'b', 'c']);
    const open = overviewRows(overview.lineages, new Set(['a']));
    assert.deepEqual(open.map(label), ['a', '  a/a', '  a/a2', '  br', '    dl', 'b', 'c']);
    assert.deepEqual(
      open.filter((r) => r.kind === 'lineage').map((r) => [r.lineage.id, r.expandable, r.expanded]),
      [
        ['a', true, true],
        ['br', false, false],
        ['dl', false, false],
        ['b', false, false],
        ['c', false, false],
      ],
    );
    // A lineage of one session has nothing to expand, whatever the state says.
    assert.deepEqual(overviewRows(overview.lineages, new Set(['b'])).map(label), ['a', '  br', '    dl', 'b', 'c']);
  });

  it('sorts by a column at every level, a second direction reversing it, the value not recorded last', () => {
    const turns = (descending: boolean) =>
      overviewRows(shownLineages(overview, { ...EMPTY_OVERVIEW_STATE, sort: { column: 'turns', descending } }), new Set()).map(label);
    assert.deepEqual(turns(false), ['a', '  br', '    dl', 'b', 'c']);
    assert.deepEqual(turns(true), ['b', 'a', '  br', '    dl', 'c']);
    const title = shownLineages(overview, { ...EMPTY_OVERVIEW_STATE, sort: { column: 'title', descending: false } });
    assert.deepEqual(
      title.map((l) => l.id),
      ['b', 'c', 'a'],
    );
  });

  it('filters by text, by has-breaks and has-errors, and by source, keeping the path to a fork that matches', () => {
    const ids = (s: Partial<typeof EMPTY_OVERVIEW_STATE>) => overviewRows(shownLineages(overview, { ...EMPTY_OVERVIEW_STATE, ...s }), new Set()).map(label);
    assert.deepEqual(ids({ filter: 'DEPLOY' }), ['b']);
    assert.deepEqual(ids({ has: ['breaks'] }), ['a', '  br', '    dl']);
    assert.deepEqual(ids({ has: ['errors'] }), ['b']);
    assert.deepEqual(ids({ has: ['breaks', 'errors'] }), []);
    // The branch is the only telegram lineage: its parent stays as the path to it and, as
    // filterLineages keeps a match, its subtree with it (the delegate runs on cli).
    assert.deepEqual(ids({ source: 'telegram' }), ['a', '  br', '    dl']);
    assert.deepEqual(ids({ source: 'telegram', filter: 'deploy' }), []);
    assert.deepEqual(ids({ source: 'cli' }), ['a', '  br', '    dl', 'b', 'c']);
    assert.deepEqual(overviewSources(overview), ['cli', 'telegram']);
  });

  it('counts the file’s lineages (forks included) and sessions, and the lineages shown', () => {
    assert.deepEqual(overviewCounts(overview, overview.lineages), { lineages: 5, sessions: 6, shown: 5 });
    assert.deepEqual(overviewCounts(overview, shownLineages(overview, { ...EMPTY_OVERVIEW_STATE, filter: 'deploy' })), { lineages: 5, sessions: 6, shown: 1 });
  });
});

describe('overview window and cells', () => {
  it('puts the rows on screen and an overscan either side in the DOM, none past the ends', () => {
    assert.deepEqual(rowWindow(2000, 0, 260, 26, 8), { first: 0, last: 18 });
    assert.deepEqual(rowWindow(2000, 26 * 1000 + 13, 260, 26, 8), { first: 992, last: 1018 });
    assert.deepEqual(rowWindow(2000, 26 * 1995, 260, 26, 8), { first: 1987, last: 1999 });
    const none = rowWindow(0, 0, 260, 26, 8);
    assert.ok(none.last < none.first);
  });

  it('says "not recorded" where the store holds nothing and "not read" where the rows were not read', () => {
    const apiCalls = overviewColumn('api-calls');
    const turns = overviewColumn('turns');
    const start = overviewColumn('start');
    const duration = overviewColumn('duration');
    const sessions = overviewColumn('sessions');
    assert.ok(apiCalls && turns && start && duration && sessions);
    assert.deepEqual(cellOf(apiCalls, b, 'read'), { text: 'not recorded', missing: 'not recorded' });
    assert.deepEqual(cellOf(turns, c, 'read'), { text: 'not recorded', missing: 'not recorded' });
    const unread = lineage('u', { turns: null, durationSeconds: null, sessions: [session('u', { read: false, turns: null })] });
    assert.deepEqual(cellOf(turns, unread, 'read'), { text: 'not read', missing: 'not read' });
    assert.deepEqual(cellOf(duration, unread, 'read'), { text: 'not read', missing: 'not read' });
    assert.deepEqual(cellOf(turns, session('s', { read: false, turns: null }), 'read'), { text: 'not read', missing: 'not read' });
    // A file only listed: every replay figure of a row not read is not read, the recorded counters
    // still not recorded; a row filled in has its figures, and what it lacks is not recorded.
    assert.deepEqual(cellOf(turns, unread, 'listed'), { text: 'not read', missing: 'not read' });
    assert.deepEqual(cellOf(apiCalls, unread, 'listed'), { text: 'not recorded', missing: 'not recorded' });
    assert.deepEqual(cellOf(turns, c, 'listed'), { text: 'not recorded', missing: 'not recorded' });
    // Listed while the whole file is read: a row not filled in yet has its replay figures on their way;
    // one filled in (its sessions read) has them, and what it lacks is not recorded.
    assert.deepEqual(cellOf(turns, unread, 'reading'), { text: 'reading…', missing: 'reading…' });
    assert.deepEqual(cellOf(apiCalls, unread, 'reading'), { text: 'not recorded', missing: 'not recorded' });
    assert.deepEqual(cellOf(turns, c, 'reading'), { text: 'not recorded', missing: 'not recorded' });
    assert.deepEqual(cellOf(turns, lineage('t', { turns: 7 }), 'reading'), { text: '7', missing: null });
    assert.deepEqual([fileReadOf({ read: true }), fileReadOf({ read: false }), fileReadOf({ read: false, reading: true })], ['read', 'listed', 'reading']);
    assert.deepEqual(cellOf(start, lineage('t', { startedAt: 1789725600 }), 'read'), { text: '2026-09-18 10:00', missing: null });
    assert.deepEqual(cellOf(duration, lineage('t', { durationSeconds: 2930 }), 'read'), { text: '48m50s', missing: null });
    assert.deepEqual(cellOf(duration, lineage('t', { durationSeconds: 79740 }), 'read'), { text: '22h09m', missing: null });
    assert.deepEqual(cellOf(turns, lineage('t', { turns: 12345 }), 'read'), { text: '12,345', missing: null });
    // A session row leaves the chain's session count to its lineage row.
    assert.deepEqual(cellOf(sessions, session('a2'), 'read'), { text: '', missing: null });
    assert.deepEqual(cellOf(sessions, chain, 'read'), { text: '2', missing: null });
  });

  it('gives the reused share of the tokens sent to one decimal, nothing for a row that sent none', () => {
    const pct = overviewColumn('reused-pct');
    assert.ok(pct);
    assert.deepEqual(cellOf(pct, lineage('t', { inputTokens: 3, reusedTokens: 2 }), 'read'), { text: '66.7', missing: null });
    assert.deepEqual(cellOf(pct, lineage('t', { inputTokens: 200, reusedTokens: 192 }), 'read'), { text: '96.0', missing: null });
    assert.deepEqual(cellOf(pct, session('s', { inputTokens: 0, reusedTokens: 0, requests: 0 }), 'read'), { text: '', missing: null });
    assert.deepEqual(cellOf(pct, session('s', { read: false, inputTokens: null, reusedTokens: null }), 'read'), { text: 'not read', missing: 'not read' });
    // Sorted by the share, not by its text.
    const shares = [
      lineage('x', { inputTokens: 1000, reusedTokens: 95 }),
      lineage('y', { inputTokens: 10, reusedTokens: 9 }),
      lineage('z', { inputTokens: 0, reusedTokens: 0 }),
    ];
    const sorted = shownLineages(file(shares), { ...EMPTY_OVERVIEW_STATE, sort: { column: 'reused-pct', descending: true } });
    assert.deepEqual(
      sorted.map((l) => l.id),
      ['y', 'x', 'z'],
    );
  });
});

describe('overview columns shown', () => {
  const keys = (columns: readonly string[] | null | undefined): string[] => shownColumns(columns).map((c) => c.key);

  it('starts from the compact set: title, source, start, turns, breaks, tokens sent, reused %', () => {
    assert.deepEqual(keys(null), ['title', 'source', 'start', 'turns', 'breaks', 'input', 'reused-pct']);
    assert.deepEqual(keys(null), [...DEFAULT_COLUMNS]);
    assert.equal(EMPTY_OVERVIEW_STATE.columns, null);
    // A state stored before columns could be chosen has no such field: the default set.
    const { columns: _, ...stored } = EMPTY_OVERVIEW_STATE;
    assert.equal('columns' in stored, false);
    assert.deepEqual(keys((stored as typeof EMPTY_OVERVIEW_STATE).columns), [...DEFAULT_COLUMNS]);
    // Every column is on offer but the lineage id, which the title cell shows.
    assert.deepEqual(
      TABLE_COLUMNS.map((c) => c.key),
      OVERVIEW_COLUMNS.map((c) => c.key).filter((k) => k !== 'id'),
    );
  });

  it('adds the bill’s columns to the starting set where a log was read, and keeps a choice as made', () => {
    const billed = (columns: readonly string[] | null | undefined): string[] => shownColumns(columns, true).map((c) => c.key);
    assert.deepEqual(billed(null), ['title', 'source', 'start', 'turns', 'breaks', 'input', 'reused-pct', 'hit-pct', 'cost', 'rec-cost', 'unexplained']);
    assert.deepEqual(billed(null), [...BILLED_COLUMNS]);
    assert.deepEqual(billed(['model']), ['title', 'model'], 'a choice is the choice, billed or not');
    // Back to the billed starting set is null again, so a later default reaches it.
    assert.deepEqual(withColumn(null, 'cost', false, true), [
      'title',
      'source',
      'start',
      'turns',
      'breaks',
      'input',
      'reused-pct',
      'hit-pct',
      'rec-cost',
      'unexplained',
    ]);
    assert.equal(withColumn(withColumn(null, 'cost', false, true), 'cost', true, true), null);
  });

  it('shows the columns chosen in the table’s order, the title always, and ignores keys no column has', () => {
    assert.deepEqual(keys(['warnings', 'model', 'title']), ['title', 'model', 'warnings']);
    assert.deepEqual(keys(['model']), ['title', 'model'], 'the title, chosen or not');
    assert.deepEqual(keys(['title']), ['title'], 'every other column hidden');
    assert.deepEqual(
      keys(['hit-rate', 'model', 'id', 'TURNS']),
      ['title', 'model'],
      'unknown keys (a later or an earlier version’s), the id and other cases ignored',
    );
    // Nothing it knows (a list of another version's keys, an empty one): the default set, not an empty table.
    assert.deepEqual(keys(['hit-rate']), [...DEFAULT_COLUMNS]);
    assert.deepEqual(keys([]), [...DEFAULT_COLUMNS]);
  });

  it('keeps a choice as the keys shown, null once it is the default set again; the title cannot be hidden', () => {
    assert.deepEqual(withColumn(null, 'model', true), ['title', 'source', 'model', 'start', 'turns', 'breaks', 'input', 'reused-pct']);
    assert.deepEqual(withColumn(null, 'turns', false), ['title', 'source', 'start', 'breaks', 'input', 'reused-pct']);
    assert.equal(withColumn(withColumn(null, 'model', true), 'model', false), null);
    assert.equal(withColumn(['title', 'source', 'start', 'turns', 'breaks', 'input'], 'reused-pct', true), null);
    assert.equal(withColumn(null, 'title', false), null);
    assert.deepEqual(withColumn(['title', 'model'], 'title', false), ['title', 'model']);
    // Hiding the last column but the title leaves the title alone, kept as such.
    assert.deepEqual(withColumn(['title', 'model'], 'model', false), ['title']);
    assert.deepEqual(keys(withColumn(['title', 'model'], 'model', false)), ['title']);
    // Unknown keys are dropped on the next change; showing one twice keeps it once.
    assert.deepEqual(withColumn(['hit-rate', 'model'], 'errors', true), ['title', 'model', 'errors']);
    assert.deepEqual(withColumn(['title', 'model'], 'model', true), ['title', 'model']);
  });
});

describe('bidi controls in the overview', () => {
  it('shows them as ⇆ in text cells (title, source, model, end reason), as the inspector does', () => {
    const l = lineage('x', {
      title: 'photo \u202egnp.exe',
      source: 'cli\u202e',
      endReason: 'user\u202eexit',
      model: '\u2066m\u2069',
      sessions: [session('x', { source: 'cli\u202e', model: '\u2066m\u2069' })],
    });
    const text = (key: string): string => {
      const column = overviewColumn(key);
      assert.ok(column, key);
      return cellOf(column, l, 'read').text;
    };
    assert.equal(text('title'), 'photo \u21c6gnp.exe');
    assert.equal(text('source'), 'cli\u21c6');
    assert.equal(text('model'), '\u21c6m\u21c6');
    assert.equal(text('end'), 'user\u21c6exit');
    assert.equal(text('id'), 'x');
    // Only what is shown: filters and sources compare the store's own values.
    assert.deepEqual(overviewSources(file([l])), ['cli\u202e']);
  });

  it('reveals bidi controls as ⇆, one UTF-16 unit for one, and leaves every other character', () => {
    const controls = new Set([0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]);
    for (let c = 0; c <= 0xffff; c++) {
      const s = `a${String.fromCharCode(c)}b`;
      assert.equal(revealBidiControls(s), controls.has(c) ? 'a\u21c6b' : s, `U+${c.toString(16).padStart(4, '0')}`);
    }
    assert.equal(revealBidiControls('\u202egnp.exe\u202c \u2066i\u2069 \u200e\u200f\u061c'), '\u21c6gnp.exe\u21c6 \u21c6i\u21c6 \u21c6\u21c6\u21c6');
  });
});

describe('an overview of forks nested 20,000 deep', () => {
  it('gives its rows, filters and sorts without recursion', () => {
    const N = 20_000;
    const nest = (id: number): OverviewLineage =>
      ({ id: `s${id}`, title: null, source: 'cli', sessions: [{ id: `s${id}`, title: null, source: 'cli' }], children: [] }) as unknown as OverviewLineage;
    const top = nest(0);
    let at = top;
    for (let i = 1; i < N; i++) {
      const c = nest(i);
      at.children.push(c);
      at = c;
    }
    const rows = overviewRows([top], new Set());
    assert.equal(rows.length, N);
    assert.equal(rows[N - 1].depth, N - 1);
    const overview = { lineages: [top] } as unknown as SessionOverview;
    const shown = shownLineages(overview, { ...EMPTY_OVERVIEW_STATE, filter: `s${N - 1}`, sort: { column: 'title', descending: true } });
    assert.equal(overviewRows(shown, new Set()).length, N, 'the path to the deepest fork, kept');
  });
});
