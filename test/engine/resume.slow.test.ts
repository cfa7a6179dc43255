// The resume of a growing transcript checked across the whole corpus (every example, fixture and
// upstream-written store): at every step of growth, and after a rewrite, equal to a whole analysis.
// The quick cases are in resume.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyze, analyzeResumable, extendAnalysis, reanalyzeChanged, type ResumableAnalysis } from '../../src/analysis/report';
import { createTokenCounter } from '../../src/analysis/tokenizer';
import { PROFILES } from '../../src/engine/profile';
import { graftGrowth, keepUnchanged, transcriptGrowth } from '../../src/engine/transcriptGrowth';
import { cut, grow, resumeCorpus, viewOf, type Tally } from '../support/growth';
import { createRng } from '../support/synthesize';

const counter = createTokenCounter('o200k_base');

describe('an analysis extended as its transcript grows, over the whole corpus', () => {
  it('equals a whole analysis at every step, for every example and fixture, and mostly resumes', async () => {
    const tally: Tally = { steps: 0, extended: 0 };
    const rng = createRng(5);
    for (const { label, transcript } of await resumeCorpus()) {
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

  it('after a rewrite, replays only the families that changed, equal to a whole analysis, and resumes from there', async () => {
    const opts = { profile: PROFILES['hermes-current'], counter, messages: false };
    let steps = 0;
    let keptSessions = 0;
    for (const { label, transcript } of await resumeCorpus()) {
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
});
