// The live refresh's three ways, decided by LiveAnalysis from the last analysis and a fresh read:
// rows appended resume the replay, a rewrite replays only the families that changed, anything else
// is analysed whole. Each result equals a whole analysis of the fresh read.

import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { billingLogOf } from '../../src/analysis/billing';
import { analyze, withBilling } from '../../src/analysis/report';
import { createTokenCounter } from '../../src/analysis/tokenizer';
import { PROFILES } from '../../src/engine/profile';
import { LiveAnalysis } from '../../src/live/liveAnalysis';
import type { Row } from '../../src/shared/model/rows';
import type { Transcript, TranscriptSession } from '../../src/shared/model/transcript';
import { Inspection } from '../../src/protocol/inspection';
import { agentLogsBeside, readAgentLogs } from '../../src/transcripts/agentLogFiles';
import { loadRemembering, loadTranscript } from '../../src/transcripts/load';
import { billedHomeWithLogCut, buildStore } from '../support/upstreamStores';

const OPTIONS = { profile: PROFILES['hermes-current'], counter: createTokenCounter('o200k_base'), messages: false };

/** A turn: an ask and its answer, at `t` and just after. */
const turn = (text: string, t: number): Row[] => [
  { role: 'user', content: `${text}?`, timestamp: t },
  { role: 'assistant', content: `${text}.`, timestamp: t + 1 },
];

function session(id: string, parentId: string | null, rows: Row[]): TranscriptSession {
  return {
    id,
    parentId,
    endReason: parentId === null ? null : 'compression',
    systemPrompt: 'SYS',
    generations: [{ rows, pos: rows.map((_, i) => ({ line: i + 1 })) }],
    pos: { sessionId: id },
  };
}

const transcript = (...sessions: TranscriptSession[]): Transcript => ({ path: 'mem', format: 'hermes-session-json', sessions, captured: [], findings: [] });

/** The report and the view's index: what a whole analysis of the same rows gives. */
function assertWhole(analysis: ReturnType<LiveAnalysis['refresh']>['analysis'], fresh: Transcript, label: string): void {
  const whole = analyze(structuredClone(fresh), OPTIONS);
  assert.equal(JSON.stringify(analysis.report), JSON.stringify(whole.report), label);
  assert.equal(JSON.stringify(new Inspection(analysis, 'T').index), JSON.stringify(new Inspection(whole, 'T').index), label);
}

describe('LiveAnalysis', () => {
  it('resumes on rows appended, replays the families a rewrite changed, else analyses whole; each equal to a whole analysis', () => {
    const live = new LiveAnalysis(OPTIONS);
    const a = [...turn('a1', 100), ...turn('a2', 110)];
    const b = turn('b1', 200);
    const states: { fresh: Transcript; how: string }[] = [
      { fresh: transcript(session('a', null, a), session('b', null, b)), how: 'whole' },
      // b's list grows by a turn: only that turn is replayed, reported and counted.
      { fresh: transcript(session('a', null, a), session('b', null, [...b, ...turn('b2', 210)])), how: 'resumed' },
      // An /undo in a: its family (a alone) is replayed, b's taken over.
      { fresh: transcript(session('a', null, turn('a1', 100)), session('b', null, [...b, ...turn('b2', 210)])), how: 'recomputed' },
      // Both rewritten: nothing to take over.
      { fresh: transcript(session('a', null, turn('x1', 100)), session('b', null, turn('y1', 200))), how: 'whole' },
    ];
    for (const [k, { fresh, how }] of states.entries()) {
      const result = live.refresh(structuredClone(fresh));
      assert.equal(result.how.kind, how, `step ${k}`);
      assertWhole(result.analysis, fresh, `step ${k}`);
      assert.equal(live.transcript, result.analysis.transcript, `step ${k}: the transcript held is the one analysed`);
    }
  });

  it('says what a resume replayed and what a rewrite replayed', () => {
    const live = new LiveAnalysis(OPTIONS);
    const a = turn('a1', 100);
    const b = turn('b1', 200);
    // Each read is a new transcript, as a load's is: the one held grows in place.
    live.refresh(structuredClone(transcript(session('a', null, a), session('b', null, b))));
    const held = live.transcript;
    const grown = live.refresh(structuredClone(transcript(session('a', null, a), session('b', null, [...b, ...turn('b2', 210), ...turn('b3', 220)]))));
    assert.deepEqual(grown.how, { kind: 'resumed', turns: 2, requests: 2, reported: 0 });
    assert.equal(live.transcript, held, 'the rows appended are grafted onto the transcript held');
    const rewound = live.refresh(structuredClone(transcript(session('a', null, a), session('b', null, b))));
    assert.deepEqual(rewound.how, { kind: 'recomputed', sessions: 1, of: 2 });
  });

  it('analyses whole a growth the replay cannot resume (a list another was compacted from)', () => {
    // A parent with two compaction children, and the earlier child grows: its list does not end the lineage.
    const of = (first: Row[]): Transcript =>
      transcript({ ...session('p', null, turn('p', 100)), endReason: 'compression' }, session('c1', 'p', first), session('c2', 'p', turn('c2', 300)));
    const live = new LiveAnalysis(OPTIONS);
    live.refresh(structuredClone(of(turn('c1', 200))));
    const fresh = of([...turn('c1', 200), ...turn('again', 400)]);
    const result = live.refresh(structuredClone(fresh));
    assert.equal(result.how.kind, 'whole');
    assertWhole(result.analysis, fresh, 'two children');
  });

  it('keeps what the load remembered for the next read of the file', async () => {
    const path = join(__dirname, '..', '..', 'examples', 'trace', 'agent.trace.jsonl');
    const live = new LiveAnalysis(OPTIONS);
    const first = await loadRemembering(path);
    live.refresh(first.transcript, first.memory);
    assert.equal(live.reading, first.memory);
    assert.ok(live.reading);
    const again = await loadRemembering(path, { earlier: live.reading });
    assert.equal(again.transcript, first.transcript, 'an unchanged trace is read into the transcript read before');
    const result = live.refresh(again.transcript, again.memory);
    assert.deepEqual(result.how, { kind: 'resumed', turns: 0, requests: 0, reported: 0 });
    assertWhole(result.analysis, await loadTranscript(path), 'read again');
  });

  it('reads a growing agent.log on from where it stopped, and matches the bill afresh', async () => {
    // The billed home's store whole, its current log cut mid-way: then the rest appended, as the agent writes it.
    const dir = mkdtempSync(join(tmpdir(), 'pi-live-log-'));
    try {
      // Cut before the sixth call line of the current log (its start is filler from other loggers).
      const { db, log, rest } = billedHomeWithLogCut(dir, 5);
      const transcript = await loadTranscript(db);
      const live = new LiveAnalysis(OPTIONS);
      const logs = agentLogsBeside(db, transcript.format);
      const first = live.refresh(transcript, null, { logs: readAgentLogs(logs), cacheTtl: null }).analysis.report;
      appendFileSync(log, rest);
      const reads = readAgentLogs(logs, { earlier: live.logReading });
      assert.deepEqual(
        reads.map((r) => r.continued),
        [true, true],
        'both files read on from the earlier reads',
      );
      assert.equal(reads[1].records.length > 0 && reads[1].records.length < readAgentLogs([logs[1]])[0].records.length, true, 'only the lines appended');
      const again = live.refresh(transcript, null, { logs: reads, cacheTtl: null }).analysis.report;
      const whole = withBilling(analyze(await loadTranscript(db), OPTIONS), billingLogOf(readAgentLogs(logs))).report;
      assert.ok(
        first.requests.filter((r) => r.billed).length < again.requests.filter((r) => r.billed).length,
        'more requests billed once the rest of the log is read',
      );
      assert.equal(JSON.stringify(again.requests), JSON.stringify(whole.requests));
      assert.equal(JSON.stringify(again.billing), JSON.stringify(whole.billing));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('analyses the same transcript objects twice alike (a mid-turn compaction that went on before it)', async () => {
    // The replay once kept what it found about such a compaction beside the transcript, and a
    // second analysis of the same objects read it back as the store's own copies.
    const mid = await loadTranscript(buildStore('mid-turn').stateDb);
    const first = JSON.stringify(analyze(mid, OPTIONS).report);
    assert.equal(JSON.stringify(analyze(mid, OPTIONS).report), first);
    assert.equal(JSON.stringify(new LiveAnalysis(OPTIONS).refresh(mid).analysis.report), first);
  });
});
