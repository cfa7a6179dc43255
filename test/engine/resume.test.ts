// A transcript that grows while it is open: cut short and grown back in steps, the analysis
// extended at each step (graftGrowth + extendAnalysis) and checked against a whole analysis of the
// same rows: the report and what the view gets must be identical. The quick cases; every example,
// fixture and upstream-written store grown step by step is resume.slow.test.ts.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analyze, analyzeResumable, extendAnalysis } from '../../src/analysis/report';
import { createTokenCounter } from '../../src/analysis/tokenizer';
import { PROFILES } from '../../src/engine/profile';
import { graftGrowth, transcriptGrowth } from '../../src/engine/transcriptGrowth';
import type { Transcript } from '../../src/shared/model/transcript';
import type { Row } from '../../src/shared/model/rows';
import { loadRemembering, loadTranscript } from '../../src/transcripts/load';
import { Lineages, TranscriptLineages } from '../../src/hermes/lineage';
import { synthesizeLongRun, toSessionJson, toTurnTraceJsonl } from '../support/synthesize';
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { cut, grow, type Tally } from '../support/growth';

const ROOT = join(__dirname, '..', '..');
const counter = createTokenCounter('o200k_base');

/** The lineage of session `id` alone, its lineages worked out on the transcript as it is now. */
function lineageOf(transcript: Transcript, id: string): Transcript {
  const lineages = new TranscriptLineages(transcript);
  return lineages.narrow(lineages.members(id));
}

describe('an analysis extended as its transcript grows', () => {
  it('extends the lineages opened from a file with the rows grafted into it once, as the worker does', async () => {
    const home = await loadTranscript(join(ROOT, 'examples', 'home', 'state.db'));
    const opts = { profile: PROFILES['hermes-current'], counter, messages: false };
    const roots = [...new Lineages(home.sessions).chains().keys()].slice(0, 12);
    // Sessions nothing was compacted or forked from: what a running home's agents append to.
    const parents = new Set(home.sessions.map((s) => s.parentId));
    const leaf = (k: number): boolean => !parents.has(home.sessions[k].id);
    const states = [0.5, 0.7, 0.9, 1].map((f) => cut(home, (gen, k) => (leaf(k) ? Math.ceil(gen.rows.length * f) : Infinity)));
    const held = structuredClone(states[0]);
    const opened = new Map(roots.map((id) => [id, analyzeResumable(lineageOf(held, id), opts)]));
    let extended = 0;
    for (const state of states.slice(1)) {
      const growth = transcriptGrowth(held, structuredClone(state));
      assert.ok(growth, 'rows appended to every session are a growth');
      graftGrowth(held, structuredClone(state), growth);
      for (const [id, before] of opened) {
        const lineage = lineageOf(held, id);
        const next = extendAnalysis(before, lineage);
        if (next) extended++;
        const analysis = next ?? analyzeResumable(lineage, opts);
        const whole = analyze(lineageOf(structuredClone(state), id), opts);
        assert.equal(JSON.stringify(analysis.analysis.report), JSON.stringify(whole.report), `lineage ${id}`);
        opened.set(id, analysis);
      }
    }
    assert.ok(extended > 0, 'no lineage resumed');
  });

  it('reads only the lines appended to a turn trace, into the transcript read before', async () => {
    const run = synthesizeLongRun(30, 9);
    const dir = mkdtempSync(join(tmpdir(), 'pi-resume-'));
    const path = join(dir, 'live.trace.jsonl');
    const opts = { profile: PROFILES['hermes-current'], counter, messages: false };
    writeFileSync(path, toTurnTraceJsonl(run.trace.slice(0, 10)));
    let { transcript, memory } = await loadRemembering(path);
    let analysis = analyzeResumable(transcript, opts);
    let resumed = 0;
    for (let k = 10; k < run.trace.length; k += 4) {
      appendFileSync(path, toTurnTraceJsonl(run.trace.slice(k, k + 4)));
      const next = await loadRemembering(path, { earlier: memory });
      assert.equal(next.transcript, transcript, 'lines appended are read into the earlier transcript');
      const extended = extendAnalysis(analysis, next.transcript);
      if (extended) resumed++;
      analysis = extended ?? analyzeResumable(next.transcript, opts);
      assert.equal(JSON.stringify(analysis.analysis.report), JSON.stringify(analyze(await loadTranscript(path), opts).report));
      ({ transcript, memory } = next);
    }
    assert.ok(resumed > 0);
    // Half a line: read whole, with the finding that says so, and nothing kept; then a file written anew is read anew.
    appendFileSync(path, '{"kind":"turn-trace","vers');
    const partial = await loadRemembering(path, { earlier: memory });
    assert.notEqual(partial.transcript, transcript);
    assert.ok(partial.transcript.findings.some((f) => f.atEnd));
    assert.equal(partial.memory, null);
    writeFileSync(path, toTurnTraceJsonl(run.trace.slice(0, 3)));
    const anew = await loadRemembering(path, { earlier: memory });
    assert.notEqual(anew.transcript, transcript);
    assert.equal(JSON.stringify(anew.transcript), JSON.stringify(await loadTranscript(path)));
  });

  it('parses only the messages a rewritten session snapshot appends; what it held before stays the objects read then', async () => {
    const run = synthesizeLongRun(30, 13);
    const dir = mkdtempSync(join(tmpdir(), 'pi-resume-'));
    const path = join(dir, `session_${run.session.id}.json`);
    const asks = run.session.rows.flatMap((r, i) => (r.role === 'user' ? [i] : []));
    const upTo = (turns: number): string => toSessionJson({ ...run.session, rows: run.session.rows.slice(0, asks[turns] ?? run.session.rows.length) });
    const opts = { profile: PROFILES['hermes-current'], counter, messages: false };
    writeFileSync(path, upTo(10));
    const first = await loadRemembering(path);
    const held = first.transcript;
    let { memory } = first;
    let analysis = analyzeResumable(held, opts);
    let resumed = 0;
    for (let turns = 12; turns <= asks.length; turns += 2) {
      writeFileSync(path, upTo(turns));
      const again = await loadRemembering(path, { earlier: memory });
      const fresh = again.transcript;
      memory = again.memory;
      assert.equal(JSON.stringify(fresh), JSON.stringify(await loadTranscript(path)), `${turns} turns: as a whole read`);
      const before = held.sessions[0].generations[0].rows;
      assert.ok(
        fresh.sessions[0].generations[0].rows.slice(0, before.length).every((row, i) => row === before[i]),
        `${turns} turns: the earlier messages reused`,
      );
      const growth = transcriptGrowth(held, fresh);
      assert.ok(growth);
      graftGrowth(held, fresh, growth);
      const extended = extendAnalysis(analysis, held);
      if (extended) resumed++;
      analysis = extended ?? analyzeResumable(held, opts);
      assert.equal(JSON.stringify(analysis.analysis.report), JSON.stringify(analyze(await loadTranscript(path), opts).report));
    }
    assert.ok(resumed > 0);
    // An earlier message edited: parsed anew, and no growth.
    writeFileSync(path, upTo(asks.length).replace('"content": "', '"content": "edited '));
    const edited = (await loadRemembering(path, { earlier: memory })).transcript;
    assert.notEqual(edited.sessions[0].generations[0].rows[0], held.sessions[0].generations[0].rows[0]);
    assert.equal(transcriptGrowth(held, edited), null);
  });

  it('places a turn appended to a chain session before the last one where a whole replay does', () => {
    // One lineage whose parent has two compaction children, and the earlier child grows: a whole
    // replay puts its new turn before the later child's, and links its request to the child's
    // last. Its list does not end the lineage: it is analysed whole (timed turns or not).
    for (const timed of [true, false]) {
      const rows = (name: string, t: number): Row[] => [
        { role: 'user', content: `${name}?`, ...(timed ? { timestamp: t } : {}) },
        { role: 'assistant', content: `${name}.`, ...(timed ? { timestamp: t + 1 } : {}) },
      ];
      const session = (id: string, parentId: string | null, list: Row[]): Transcript['sessions'][number] => ({
        id,
        parentId,
        endReason: parentId === null ? 'compression' : null,
        systemPrompt: 'SYS',
        generations: [{ rows: list, pos: list.map((_, i) => ({ line: i + 1 })) }],
        pos: { sessionId: id },
      });
      const of = (first: Row[]): Transcript => ({
        path: 'mem',
        format: 'hermes-session-json',
        sessions: [session('p', null, rows('p', 100)), session('c1', 'p', first), session('c2', 'p', rows('c2', 300))],
        captured: [],
        findings: [],
      });
      const tally: Tally = { steps: 0, extended: 0 };
      grow(
        [of(rows('c1', 200)), of([...rows('c1', 200), ...rows('again', timed ? 400 : 0)])],
        'hermes-current',
        tally,
        `two children (${timed ? 'timed' : 'untimed'})`,
      );
      assert.deepEqual(tally, { steps: 1, extended: 0 });
    }
  });

  it('merges the turns by time again when an answer gives an old turn its first time', () => {
    const opts = { profile: PROFILES['hermes-current'], counter, messages: false };
    const session = (id: string, rows: Row[]): Transcript['sessions'][number] => ({
      id,
      parentId: null,
      endReason: null,
      systemPrompt: 'SYS',
      generations: [{ rows, pos: rows.map((_, i) => ({ line: i + 1 })) }],
      pos: { sessionId: id },
    });
    const of = (a: Row[]): Transcript => ({
      path: 'mem',
      format: 'hermes-session-json',
      sessions: [
        session('b', [
          { role: 'user', content: 'b?', timestamp: 150 },
          { role: 'assistant', content: 'b.', timestamp: 151 },
        ]),
        session('a', a),
      ],
      captured: [],
      findings: [],
    });
    const asked: Row[] = [
      { role: 'user', content: 'a?', timestamp: 100 },
      { role: 'assistant', content: 'a.', timestamp: 101 },
      { role: 'user', content: 'again?' },
    ];
    const held = of(asked);
    const first = analyzeResumable(held, opts);
    // Replayed in session order while a's last ask has no time; answered at 200, every turn has
    // one, and a's first turn (at 100) goes before b's (at 150).
    const fresh = of([...asked, { role: 'assistant', content: 'again.', timestamp: 200 }]);
    const growth = transcriptGrowth(held, fresh);
    assert.ok(growth);
    graftGrowth(held, fresh, growth);
    const extended = extendAnalysis(first, held)?.analysis;
    assert.ok(extended, 'every turn has a time and no two lineages share one: the turns are merged again');
    assert.deepEqual(
      extended.report.turns.map((t) => t.sessionId),
      ['a', 'b', 'a'],
    );
    assert.equal(JSON.stringify(extended.report), JSON.stringify(analyze(structuredClone(fresh), opts).report));
    assert.deepEqual(extended.kept, { turns: 0, requests: 0 }, 'every turn moved');
  });

  it('is no growth when a stored row changed', async () => {
    const run = synthesizeLongRun(8, 3);
    const dir = mkdtempSync(join(tmpdir(), 'pi-resume-'));
    const json = join(dir, `session_${run.session.id}.json`);
    writeFileSync(json, toSessionJson(run.session));
    const t = await loadTranscript(json);
    const changed = structuredClone(t);
    changed.sessions[0].generations[0].rows[1] = { ...changed.sessions[0].generations[0].rows[1], content: 'edited' };
    assert.equal(transcriptGrowth(t, changed), null);
    const shorter = cut(t, (gen) => gen.rows.length - 1);
    assert.equal(transcriptGrowth(t, shorter), null);
    assert.ok(transcriptGrowth(shorter, t));
  });
});
