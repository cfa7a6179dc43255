// The session overview model on hand-built transcripts and reports: which sessions make one row,
// what hangs under what, what is summed, and that nothing the store does not hold is filled in.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { filterLineages, overviewCell, overviewColumn, sortLineages } from '../../src/shared/overviewColumns';
import type { OverviewLineage } from '../../src/shared/overviewTypes';
import { sessionOverview } from '../../src/analysis/sessionOverview';
import type { Diagnostic, Report, ReportCompaction } from '../../src/shared/reportTypes';
import type { ForkKind, RecordedCounters, SessionSummary, Transcript, TranscriptSession } from '../../src/shared/model/transcript';
import { analyze } from '../../src/analysis/report';
import { createTokenCounter } from '../../src/analysis/tokenizer';
import { PROFILES } from '../../src/engine/profile';
import { loadTranscript } from '../../src/transcripts/load';
import { buildStore } from '../support/upstreamStores';

interface SessionSpec {
  id: string;
  parent?: string;
  endReason?: string;
  fork?: ForkKind;
  title?: string;
  startedAt?: number;
  /** Timestamps of its stored rows. */
  rowTimes?: number[];
  recorded?: RecordedCounters;
  /** What the replay found: requests, and the tokens sent and reusable. */
  requests?: number;
  input?: number;
  reused?: number;
  source?: string;
  model?: string;
  endedAt?: number;
}

function session(s: SessionSpec): TranscriptSession {
  const rows = (s.rowTimes ?? []).map((t, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `row ${i}`, timestamp: t }));
  return {
    id: s.id,
    parentId: s.parent ?? null,
    endReason: s.endReason ?? null,
    systemPrompt: 'You are Hermes.',
    generations: [{ rows, pos: rows.map(() => ({ sessionId: s.id })) }],
    pos: { sessionId: s.id },
    ...(s.fork ? { forkKind: s.fork } : {}),
    ...(s.recorded ? { recorded: s.recorded } : {}),
  };
}

const compression: ReportCompaction = {
  mode: 'rotation',
  beforeMessages: 10,
  afterMessages: 4,
  beforeTokens: 900,
  afterTokens: 300,
  beforeRoughTokens: 950,
  afterRoughTokens: 320,
  madeProgress: true,
  gateBranch: null,
  reanchor: { before: 9, after: 3, rule: 'exact' },
};

interface Built {
  transcript: Transcript;
  report: Report;
}

/**
 * A transcript and a report that agree: `turns` are [sessionId, requests in it, compaction before
 * it, break cause of its first request]; the report's requests are numbered in that order.
 */
function build(
  specs: SessionSpec[],
  turns: [string, number, boolean?, string?][] = [],
  opts: { catalog?: boolean; diagnostics?: Diagnostic[]; loaded?: string[] } = {},
): Built {
  const loaded = opts.loaded ?? specs.map((s) => s.id);
  const sessions = specs.filter((s) => loaded.includes(s.id)).map(session);
  const catalog: SessionSummary[] | undefined =
    opts.catalog === false
      ? undefined
      : specs.map((s) => ({
          id: s.id,
          parentId: s.parent ?? null,
          startedAt: s.startedAt ?? null,
          endReason: s.endReason ?? null,
          messageCount: s.recorded?.messages ?? null,
          title: s.title ?? null,
          source: s.source ?? null,
          model: s.model ?? null,
          endedAt: s.endedAt ?? null,
          ...(s.fork ? { forkKind: s.fork } : {}),
        }));
  const report: Report = {
    schemaVersion: 2,
    source: { path: 'state.db', format: 'hermes-state-db' },
    profile: 'hermes-current',
    tokenizer: 'o200k_base',
    sessions: sessions.map((s) => {
      const spec = specs.find((x) => x.id === s.id) as SessionSpec;
      return {
        id: s.id,
        parentId: s.parentId,
        systemPromptSha256: null,
        endReason: s.endReason,
        replayed: { requests: spec.requests ?? 0, failed: 0, rows: 0, inputTokens: spec.input ?? 0, reusedTokens: spec.reused ?? 0 },
      };
    }),
    turns: [],
    requests: [],
    diagnostics: opts.diagnostics ?? [],
    billing: {
      sources: [],
      cacheTtl: null,
      logClockOffsetSeconds: null,
      sessions: [],
      models: [],
      cost: { usd: 0, priced: 0, unpriced: 0, catalogue: '', unmatchedUsd: 0 },
      unmatchedCalls: [],
    },
  };
  for (const [sessionId, n, compacted, cause] of turns) {
    const index = report.turns.length;
    const first = report.requests.length;
    report.turns.push({
      index,
      sessionId,
      userMessageIndex: 0,
      requests: Array.from({ length: n }, (_, k) => first + k),
      injected: [],
      compression: compacted ? compression : null,
      laterCompressions: [],
    });
    for (let k = 0; k < n; k++) {
      const broke = k === 0 && cause !== undefined;
      report.requests.push({
        index: first + k,
        turn: index,
        sessionId,
        systemPromptSha256: '0'.repeat(64),
        messageCount: 2,
        inputTokens: 10,
        categories: { 'history/user': 10 },
        billed: null,
        cacheMiss: null,
        cost: null,
        prefix: {
          previousRequest: first + k ? first + k - 1 : null,
          stable: !broke,
          breakAt: broke ? { messageIndex: 1, byteOffset: 0, cause: cause as never } : null,
          reusedTokens: 0,
        },
      });
    }
  }
  const transcript: Transcript = { path: 'state.db', format: 'hermes-state-db', sessions, captured: [], findings: [], ...(catalog ? { catalog } : {}) };
  return { transcript, report };
}

const overviewOf = (b: Built) => sessionOverview(b.transcript, b.report);
const ids = (rows: readonly OverviewLineage[]): string[] => rows.map((r) => r.id);

describe('session overview: lineages', () => {
  it("a compaction chain is one row listing its sessions; its figures are theirs summed, its end the last one's", () => {
    const o = overviewOf(
      build(
        [
          {
            id: 'a',
            endReason: 'compression',
            title: 'Dedupe imports',
            startedAt: 1000,
            rowTimes: [1000.5, 1400],
            requests: 3,
            input: 300,
            reused: 200,
            recorded: { apiCalls: 3, messages: 6, inputTokens: 50, estimatedCostUsd: 0.25 },
          },
          {
            id: 'b',
            parent: 'a',
            startedAt: 1500,
            rowTimes: [1200, 1500.25, 2200.125],
            requests: 2,
            input: 500,
            reused: 450,
            recorded: { apiCalls: 2, messages: 5, inputTokens: 70, estimatedCostUsd: 0.5 },
          },
        ],
        [
          ['a', 1],
          ['a', 2],
          ['b', 2, true],
        ],
      ),
    );
    assert.equal(o.lineages.length, 1);
    const [l] = o.lineages;
    assert.deepEqual(
      l.sessions.map((s) => s.id),
      ['a', 'b'],
    );
    assert.equal(l.kind, 'conversation');
    assert.equal(l.title, 'Dedupe imports', "the chain takes its first session's title");
    assert.equal(l.endReason, null, 'the last session is still open');
    assert.equal(l.sessions[0].endReason, 'compression');
    assert.deepEqual([l.turns, l.requests, l.compactions, l.cacheBreaks, l.inputTokens, l.reusedTokens], [3, 5, 1, 0, 800, 650]);
    assert.deepEqual([l.sessions[0].turns, l.sessions[1].turns, l.sessions[1].compactions], [2, 1, 1]);
    assert.equal(l.startedAt, 1000);
    assert.equal(l.durationSeconds, 1200.125, 'from the first start to the latest stored row of the chain');
    assert.equal(l.sessions[1].durationSeconds, 700.125);
    assert.deepEqual(l.recorded, {
      apiCalls: 5,
      messages: 11,
      inputTokens: 120,
      outputTokens: null,
      cacheReadTokens: null,
      cacheWriteTokens: null,
      estimatedCostUsd: 0.75,
    });
  });

  it('branches, delegates and resets are nested under the lineage of the session they came from, in start order', () => {
    const o = overviewOf(
      build([
        { id: 'root', endReason: 'compression', startedAt: 1 },
        { id: 'cont', parent: 'root', startedAt: 2 },
        // A delegate of a session that ended by compaction is still a fork, not a continuation.
        { id: 'deleg', parent: 'root', fork: 'delegate', startedAt: 3 },
        { id: 'br', parent: 'cont', fork: 'branch', startedAt: 4, endReason: 'branched' },
        { id: 'br-child', parent: 'br', fork: 'reset', startedAt: 5 },
        { id: 'unmarked', parent: 'cont', startedAt: 6 },
        { id: 'orphan', parent: 'gone', startedAt: 7 },
      ]),
    );
    assert.deepEqual(ids(o.lineages), ['root', 'orphan']);
    const [root, orphan] = o.lineages;
    assert.deepEqual(
      root.sessions.map((s) => s.id),
      ['root', 'cont'],
    );
    assert.deepEqual(
      root.children.map((c) => [c.id, c.kind, c.forkedFrom]),
      [
        ['deleg', 'delegate', 'root'],
        ['br', 'branch', 'cont'],
        ['unmarked', 'child', 'cont'],
      ],
    );
    assert.deepEqual(
      root.children[1].children.map((c) => [c.id, c.kind]),
      [['br-child', 'reset']],
    );
    assert.deepEqual([orphan.kind, orphan.forkedFrom, orphan.children], ['conversation', 'gone', []]);
  });

  it("counters a gateway wrote as running totals along the chain count once: the last session's", () => {
    const o = overviewOf(
      build([
        { id: 'a', endReason: 'compression', requests: 4, recorded: { apiCalls: 4, outputTokens: 40, estimatedCostUsd: 0.04 } },
        { id: 'b', parent: 'a', endReason: 'compression', requests: 3, recorded: { apiCalls: 7, outputTokens: 70, estimatedCostUsd: 0.07 } },
        { id: 'c', parent: 'b', requests: 2, recorded: { apiCalls: 9, outputTokens: 95, estimatedCostUsd: 0.095 } },
      ]),
    );
    assert.equal(o.lineages[0].requests, 9);
    assert.equal(o.lineages[0].recorded.apiCalls, 9);
    assert.equal(o.lineages[0].recorded.outputTokens, 95);
    assert.equal(o.lineages[0].recorded.estimatedCostUsd, 0.095, "Hermes' estimate, written as a running total too");
    assert.deepEqual(
      o.lineages[0].sessions.map((s) => s.recorded.apiCalls),
      [4, 7, 9],
      'each session keeps its own value',
    );
  });

  it("places each finding in its session (by session id, request or turn); info and whole-file findings are not a session's", () => {
    const diagnostics: Diagnostic[] = [
      { severity: 'error', code: 'prefix-break', message: '', turn: 1, request: 2 },
      { severity: 'warning', code: 'parse-error', message: '', turn: null, request: null, sessionId: 'x' },
      { severity: 'warning', code: 'notes-lost', message: '', turn: 0, request: null },
      { severity: 'info', code: 'prefix-break', message: '', turn: 1, request: 2 },
      { severity: 'error', code: 'parse-error', message: '', turn: null, request: null, offset: 0 },
    ];
    const o = overviewOf(
      build(
        [
          { id: 'x', requests: 2 },
          { id: 'y', requests: 1 },
        ],
        [
          ['x', 2],
          ['y', 1, false, 'history-rewritten'],
        ],
        { diagnostics },
      ),
    );
    const [x, y] = o.lineages;
    assert.deepEqual([x.errors, x.warnings, y.errors, y.warnings], [0, 2, 1, 0]);
    assert.deepEqual(o.unplaced, { errors: 1, warnings: 0 });
  });

  it('a break caused by a compaction is no cache break; any other cause is', () => {
    const o = overviewOf(
      build(
        [{ id: 'a', requests: 3 }],
        [
          ['a', 1],
          ['a', 1, true, 'compression'],
          ['a', 1, false, 'sidecar-dropped'],
        ],
      ),
    );
    assert.deepEqual([o.lineages[0].cacheBreaks, o.lineages[0].compactions], [1, 1]);
  });
});

describe('session overview: nothing invented', () => {
  it('source, model and end are null where the store records none; a file without a catalogue has no title or start', () => {
    const o = overviewOf(build([{ id: 's', rowTimes: [5, 9], requests: 1 }], [['s', 1]], { catalog: false }));
    const [l] = o.lineages;
    assert.deepEqual([l.source, l.model, l.title, l.startedAt, l.endedAt, l.durationSeconds], [null, null, null, null, null, null]);
    assert.equal(l.sessions[0].lastRowAt, 9, "the rows' times are still there");
    assert.deepEqual(l.recorded, {
      apiCalls: null,
      messages: null,
      inputTokens: null,
      outputTokens: null,
      cacheReadTokens: null,
      cacheWriteTokens: null,
      estimatedCostUsd: null,
    });
  });

  it("source, model and ended_at as stored: the duration ends at the last session's ended_at, the main loop's models fill or widen MODEL", () => {
    const usage = (model: string, task: string, apiCalls: number) => ({
      model,
      billingProvider: 'openrouter',
      task,
      apiCalls,
      inputTokens: 1,
      outputTokens: 1,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    const o = overviewOf(
      build(
        [
          {
            id: 'a',
            endReason: 'compression',
            startedAt: 1000,
            endedAt: 1500,
            rowTimes: [1001, 1400],
            source: 'telegram',
            model: 'm1',
            recorded: { apiCalls: 2, usage: [usage('m1', '', 2), usage('aux', 'compression', 1), usage('aux', 'title_generation', 1)] },
          },
          {
            id: 'b',
            parent: 'a',
            startedAt: 1500,
            endedAt: 2000.5,
            rowTimes: [1501, 1700],
            source: 'telegram',
            model: 'm1',
            recorded: { apiCalls: 1, usage: [usage('m2', '', 1)] },
          },
          // Listed only: its model and source come from the catalogue, its usage was not read.
          { id: 'c', startedAt: 3000, model: 'solo' },
          // No sessions.model: the main loop's usage rows name it ('unknown' is upstream's placeholder, not a model).
          { id: 'd', startedAt: 4000, rowTimes: [4010], recorded: { usage: [usage('unknown', '', 1), usage('m3', '', 1)] } },
        ],
        [
          ['a', 2],
          ['b', 1],
          ['d', 1],
        ],
        { loaded: ['a', 'b', 'd'] },
      ),
    );
    const [ab, c, d] = o.lineages;
    assert.deepEqual([ab.source, ab.model, ab.endedAt], ['telegram', 'm1, m2', 2000.5], 'two models ran in the main loop');
    assert.equal(ab.durationSeconds, 1000.5, "to the last session's ended_at, not its last row (1700)");
    assert.deepEqual([ab.sessions[0].durationSeconds, ab.sessions[0].endedAt, ab.sessions[0].model], [500, 1500, 'm1']);
    assert.deepEqual(
      [ab.recordedCompactionCalls, ab.sessions[0].recordedCompactionCalls, ab.sessions[1].recordedCompactionCalls],
      [1, 1, 0],
      'the compression rows of the chain, summed (billed to the session the turn started in)',
    );
    assert.equal(ab.compactions, 0, "beside the replay's compactions, never merged into them");
    assert.deepEqual([c.model, c.source, c.endedAt, c.durationSeconds, c.recordedCompactionCalls], ['solo', null, null, null, null]);
    assert.deepEqual([d.model, d.durationSeconds], ['m3', 10], 'no ended_at: to the latest row, as before');
    assert.equal(overviewColumn('compaction-calls')?.value(ab), 1);
    assert.equal(overviewColumn('model')?.value(ab), 'm1, m2');
  });

  it('a fork listed but not loaded still hangs under its parent: the catalogue carries the fork marker', () => {
    const o = overviewOf(
      build(
        [
          { id: 'p', endReason: 'compression', startedAt: 1 },
          { id: 'deleg', parent: 'p', fork: 'delegate', startedAt: 2 },
          { id: 'c', parent: 'p', startedAt: 3 },
        ],
        [],
        { loaded: ['c'] },
      ),
    );
    assert.deepEqual(
      o.lineages.map((l) => [l.id, l.sessions.map((s) => s.id), l.children.map((k) => [k.id, k.kind])]),
      [['p', ['p', 'c'], [['deleg', 'delegate']]]],
    );
  });

  it("sessions outside the loaded lineage are listed with the store's values and no replay figures; a chain partly read has no total", () => {
    const o = overviewOf(
      build(
        [
          { id: 'p', endReason: 'compression', title: 'Parent', startedAt: 10, requests: 2, recorded: { messages: 4 } },
          { id: 'c', parent: 'p', startedAt: 20, recorded: { messages: 7 } },
          { id: 'd', parent: 'p', fork: 'delegate', startedAt: 30, requests: 1, recorded: { apiCalls: 1, messages: 2 } },
        ],
        [
          ['p', 2],
          ['d', 1],
        ],
        { loaded: ['p', 'd'] },
      ),
    );
    const [l] = o.lineages;
    assert.deepEqual(
      l.sessions.map((s) => [s.id, s.read, s.requests]),
      [
        ['p', true, 2],
        ['c', false, null],
      ],
    );
    assert.equal(l.sessions[1].recorded.messages, 7, "the catalogue's message_count of a session not read");
    assert.equal(l.sessions[1].title, null);
    assert.deepEqual([l.turns, l.requests, l.inputTokens], [null, null, null]);
    assert.equal(l.recorded.messages, 11);
    assert.deepEqual([l.children[0].id, l.children[0].requests], ['d', 1]);
  });

  it('a file too large to read whole: every session listed from the store, none read, no replay figure', async () => {
    const store = buildStore('home');
    const transcript = await loadTranscript(store.stateDb, { readWholeLimit: 1 });
    assert.equal(transcript.listedOnly, true);
    const analysis = analyze(transcript, { profile: PROFILES['hermes-current'], counter: createTokenCounter('o200k_base'), messages: false });
    const o = sessionOverview(transcript, analysis.report);
    assert.equal(o.read, false);
    const all = (rows: OverviewLineage[]): OverviewLineage[] => rows.flatMap((r) => [r, ...all(r.children)]);
    const sessions = all(o.lineages).flatMap((l) => l.sessions);
    assert.deepEqual(sessions.map((s) => s.id).sort(), store.truth.sessions.map((s) => s.id).sort());
    for (const s of sessions) {
      const truth = store.truth.sessions.find((t) => t.id === s.id);
      assert.deepEqual([s.read, s.turns, s.requests, s.cacheBreaks], [false, null, null, null], s.id);
      // The agent's counters are read with the listing: they are the store's, not the replay's.
      assert.equal(s.recorded.messages, truth?.counters.message_count, s.id);
      assert.equal(s.recorded.apiCalls, truth?.counters.api_call_count, s.id);
    }
  });
});

describe('session overview: sort and filter', () => {
  const tree = (): OverviewLineage[] =>
    overviewOf(
      build(
        [
          { id: 'a', title: 'Alpha', startedAt: 1, requests: 5 },
          { id: 'a-d1', parent: 'a', fork: 'delegate', startedAt: 2, requests: 1 },
          { id: 'a-d2', parent: 'a', fork: 'delegate', startedAt: 3, requests: 4 },
          { id: 'b', title: 'Bravo', startedAt: 4, requests: 9 },
          { id: 'c', startedAt: 5, requests: 2 },
        ],
        [
          ['a', 5],
          ['a-d1', 1],
          ['a-d2', 4],
          ['b', 8],
          ['b', 1, false, 'tools-changed'],
          ['c', 2],
        ],
        {
          diagnostics: [{ severity: 'error', code: 'reanchor-none', message: '', turn: 1, request: null }],
        },
      ),
    ).lineages;

  it('sorts by any column at every level, descending on request, a null last either way', () => {
    const byRequests = sortLineages(tree(), overviewColumn('requests')!, true);
    assert.deepEqual(ids(byRequests), ['b', 'a', 'c']);
    assert.deepEqual(ids(byRequests[1].children), ['a-d2', 'a-d1']);
    assert.deepEqual(ids(sortLineages(tree(), overviewColumn('requests')!, false)), ['c', 'a', 'b']);
    for (const descending of [false, true]) {
      assert.equal(sortLineages(tree(), overviewColumn('title')!, descending).at(-1)?.id, 'c', 'no title sorts last');
    }
    assert.deepEqual(ids(sortLineages(tree(), overviewColumn('title')!, true)), ['b', 'a', 'c']);
  });

  it('gives the reused share of the tokens sent in percent, printed to one decimal, nothing for a lineage that sent none, and sorts by it', () => {
    const pct = overviewColumn('reused-pct')!;
    const lineages = overviewOf(
      build(
        [
          { id: 'x', startedAt: 1, requests: 2, input: 1000, reused: 950 },
          { id: 'y', startedAt: 2, requests: 1, input: 3, reused: 2 },
          { id: 'z', startedAt: 3 },
        ],
        [
          ['x', 2],
          ['y', 1],
        ],
      ),
    ).lineages;
    assert.deepEqual(
      lineages.map((l) => [l.id, pct.value(l), overviewCell(pct, l)]),
      [
        ['x', 95, { value: '95.0', missing: null }],
        ['y', (2 / 3) * 100, { value: '66.7', missing: null }],
        ['z', null, { value: null, missing: null }],
      ],
    );
    assert.deepEqual(ids(sortLineages(lineages, pct, false)), ['y', 'x', 'z']);
    assert.deepEqual(ids(sortLineages(lineages, pct, true)), ['x', 'y', 'z']);
  });

  it('filters by text in title or id, keeping a parent as the path to a matching child, and by breaks or errors', () => {
    assert.deepEqual(ids(filterLineages(tree(), { text: 'brav' })), ['b']);
    const path = filterLineages(tree(), { text: 'A-D2' });
    assert.deepEqual([ids(path), ids(path[0].children)], [['a'], ['a-d2']]);
    assert.deepEqual(ids(filterLineages(tree(), { text: 'alpha' })[0].children), ['a-d1', 'a-d2'], 'a match keeps its subtree');
    assert.deepEqual(ids(filterLineages(tree(), { has: ['breaks'] })), ['b']);
    const errors = filterLineages(tree(), { has: ['errors'] });
    assert.deepEqual([ids(errors), ids(errors[0].children)], [['a'], ['a-d1']], "turn 1 is a-d1's");
    assert.deepEqual(filterLineages(tree(), { has: ['breaks', 'errors'] }), []);
  });
});
