// A transcript that grows while it is open: each example and fixture is cut short and grown back
// in steps, the analysis extended at each step (graftGrowth + extendAnalysis) and checked against
// a whole analysis of the same rows: the report and what the view gets must be identical.

import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analyze, analyzeResumable, extendAnalysis, reanalyzeChanged, type Analysis, type ResumableAnalysis } from '../../src/analysis/report';
import { createTokenCounter } from '../../src/analysis/tokenizer';
import { PROFILES } from '../../src/engine/profile';
import { graftGrowth, keepUnchanged, transcriptGrowth } from '../../src/engine/transcriptGrowth';
import type { Generation, Transcript } from '../../src/shared/model/transcript';
import type { Row } from '../../src/shared/model/rows';
import { Inspection } from '../../src/protocol/inspection';
import { loadRemembering, loadTranscript } from '../../src/transcripts/load';
import { Lineages, TranscriptLineages } from '../../src/hermes/lineage';
import { unansweredAsk } from '../../src/hermes/snapshot';
import { createRng, synthesizeLongRun, toSessionJson, toTurnTraceJsonl } from '../support/synthesize';
import { buildStore, scenarioNames } from '../support/upstreamStores';
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { ProfileName } from '../../src/shared/settingNames';

const ROOT = join(__dirname, '..', '..');
const counter = createTokenCounter('o200k_base');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return filesUnder(path);
    return /\.(json|jsonl|db)$/.test(name) ? [path] : [];
  });
}

/** The transcript with the last list of each chosen session cut to `keep` of its rows. */
/** The lineage of session `id` alone, its lineages worked out on the transcript as it is now. */
function lineageOf(transcript: Transcript, id: string): Transcript {
  const lineages = new TranscriptLineages(transcript);
  return lineages.narrow(lineages.members(id));
}

function cut(full: Transcript, keep: (gen: Generation, session: number) => number): Transcript {
  const t = structuredClone(full);
  t.sessions.forEach((s, k) => {
    const gen = s.generations[s.generations.length - 1];
    if (!gen) return;
    const n = Math.min(gen.rows.length, keep(gen, k));
    gen.rows.length = n;
    gen.pos.length = n;
    if (gen.turnInputs) for (const key of [...gen.turnInputs.keys()]) if (key >= n) gen.turnInputs.delete(key);
    if (gen.trailingRequest && n < full.sessions[k].generations[s.generations.length - 1].rows.length) gen.trailingRequest = false;
    if (gen.failedAt) gen.failedAt = gen.failedAt.filter((f) => f <= n);
    // A snapshot cut short may end on an ask, as the file written at that moment did.
    if (t.format === 'hermes-session-json') {
      const ask = unansweredAsk(gen.rows, gen.carried ?? 0);
      if (ask === undefined) delete gen.unansweredAsk;
      else gen.unansweredAsk = ask;
    }
    const copies = gen.compaction?.copies;
    if (copies && gen.compaction) gen.compaction.copies = { source: copies.source.slice(0, n), relation: copies.relation.slice(0, n) };
  });
  return t;
}

function viewOf(a: Analysis, earlier?: Inspection): { inspection: Inspection; json: string } {
  const inspection = new Inspection(a, 'title', earlier);
  const json = JSON.stringify({
    report: a.report,
    index: inspection.index,
    turns: inspection.turns,
    requests: inspection.requests,
    findings: inspection.findings,
  });
  return { inspection, json };
}

interface Tally {
  steps: number;
  extended: number;
}

/** Grows `full` from `steps[0]` through each later state, checking every step against a whole analysis. */
function grow(states: Transcript[], profile: ProfileName, tally: Tally, label: string): void {
  const opts = { profile: PROFILES[profile], counter, messages: false };
  let held = structuredClone(states[0]);
  let analysis = analyzeResumable(held, opts);
  let view = viewOf(analysis.analysis);
  for (const state of states.slice(1)) {
    tally.steps++;
    const fresh = structuredClone(state);
    const growth = transcriptGrowth(held, fresh);
    let next: ResumableAnalysis | null = null;
    if (growth) {
      graftGrowth(held, fresh, growth);
      next = extendAnalysis(analysis, held);
    }
    if (next) tally.extended++;
    else held = fresh;
    analysis = next ?? analyzeResumable(held, opts);
    view = viewOf(analysis.analysis, next ? view.inspection : undefined);
    const whole = viewOf(analyze(structuredClone(state), opts));
    if (view.json !== whole.json) {
      let k = 0;
      while (view.json[k] === whole.json[k]) k++;
      assert.fail(
        `${label}: the extended analysis differs from the whole one at ${k}: ${view.json.slice(k - 200, k + 100)} / ${whole.json.slice(k - 200, k + 100)}`,
      );
    }
  }
}

async function corpus(): Promise<{ label: string; transcript: Transcript }[]> {
  const dir = mkdtempSync(join(tmpdir(), 'pi-resume-'));
  const run = synthesizeLongRun(60, 11);
  const json = join(dir, `session_${run.session.id}.json`);
  writeFileSync(json, toSessionJson(run.session));
  const trace = join(dir, 'run.trace.jsonl');
  writeFileSync(trace, toTurnTraceJsonl(run.trace));
  // Stores written the way upstream's storage code writes them, every scenario (hermes_store.py).
  const upstream = scenarioNames().flatMap((name) => filesUnder(buildStore(name).dir));
  const paths = [...filesUnder(join(ROOT, 'examples')), ...filesUnder(join(ROOT, 'test', 'fixtures')), ...upstream, json, trace];
  const out: { label: string; transcript: Transcript }[] = [];
  for (const path of paths) {
    try {
      out.push({ label: path.startsWith(ROOT) ? path.slice(ROOT.length + 1) : path, transcript: await loadTranscript(path) });
    } catch {
      // A fixture refused whole (not a transcript at all) has nothing to grow.
    }
  }
  return out;
}

describe('an analysis extended as its transcript grows', () => {
  it('equals a whole analysis at every step, for every example and fixture, and mostly resumes', async () => {
    const tally: Tally = { steps: 0, extended: 0 };
    const rng = createRng(5);
    for (const { label, transcript } of await corpus()) {
      const last = transcript.sessions.length - 1;
      for (const profile of ['hermes-current', 'hermes-v1'] as const) {
        // The last session growing row by row near its end, as a live agent's does.
        const lengths = transcript.sessions[last]?.generations.at(-1)?.rows.length ?? 0;
        const tail = Array.from({ length: Math.min(6, lengths) + 1 }, (_, k) => lengths - Math.min(6, lengths) + k);
        grow(
          tail.map((n) => cut(transcript, (_, s) => (s === last ? n : Infinity))),
          profile,
          tally,
          `${label} (${profile}, last session)`,
        );
        // Every session growing at once, in random steps.
        const fractions = [0.3, 0.3 + rng.next() * 0.3, 0.8, 1].sort();
        grow(
          fractions.map((f) => cut(transcript, (gen) => Math.ceil(gen.rows.length * f))),
          profile,
          tally,
          `${label} (${profile}, every session)`,
        );
      }
    }
    console.log(`resume tally ${tally.extended}/${tally.steps}`);
    assert.ok(tally.steps > 200, `only ${tally.steps} steps`);
    // Most steps append to a list nothing was copied from: those must resume, not start again.
    assert.ok(tally.extended > tally.steps / 2, `${tally.extended} of ${tally.steps} steps resumed`);
  });

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

  it('after a rewrite, replays only the families that changed, equal to a whole analysis, and resumes from there', async () => {
    const opts = { profile: PROFILES['hermes-current'], counter, messages: false };
    let steps = 0;
    let keptSessions = 0;
    for (const { label, transcript } of await corpus()) {
      const n = transcript.sessions.length;
      if (n < 2) continue;
      for (const k of [...new Set([0, Math.floor(n / 2), n - 1])]) {
        const rows = transcript.sessions[k].generations.at(-1)?.rows.length ?? 0;
        if (rows < 3) continue;
        // Session k's last list loses its last two rows (an /undo), then gets them back, then
        // another session's list loses one.
        const rewound = cut(transcript, (_, s) => (s === k ? rows - 2 : Infinity));
        const other = (k + 1) % n;
        const again = cut(transcript, (gen, s) => (s === other ? gen.rows.length - 1 : Infinity));
        // A child gone (its parent's replay reads what it took over), when there is one.
        const ids = new Set(transcript.sessions.map((s) => s.id));
        const child = [...transcript.sessions].reverse().find((s) => s.parentId !== null && ids.has(s.parentId));
        const orphaned = structuredClone(transcript);
        orphaned.sessions = orphaned.sessions.filter((s) => s.id !== child?.id);
        let held = structuredClone(transcript);
        let analysis = analyzeResumable(held, opts);
        for (const [step, state] of [
          ['rewound', rewound],
          ['grown back', transcript],
          ['another rewound', again],
          ...(child ? [['a child removed', orphaned] as const] : []),
        ] as const) {
          steps++;
          const fresh = structuredClone(state);
          const growth = transcriptGrowth(held, fresh);
          let next: ResumableAnalysis | null;
          if (growth) {
            graftGrowth(held, fresh, growth);
            next = extendAnalysis(analysis, held);
          } else {
            const kept = keepUnchanged(held, fresh);
            keptSessions += kept.size;
            next = reanalyzeChanged(analysis, fresh, kept);
            held = fresh;
          }
          analysis = next ?? analyzeResumable(held, opts);
          const whole = viewOf(analyze(structuredClone(state), opts)).json;
          const view = viewOf(analysis.analysis).json;
          if (view !== whole) {
            let at = 0;
            while (view[at] === whole[at]) at++;
            assert.fail(`${label}, session ${k}, ${step}: differs at ${at}: ${view.slice(at - 150, at + 100)} / ${whole.slice(at - 150, at + 100)}`);
          }
        }
      }
    }
    console.log(`reanalysed ${steps} steps, ${keptSessions} sessions taken over`);
    assert.ok(steps > 50 && keptSessions > steps, `${steps} steps, ${keptSessions} sessions kept`);
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
