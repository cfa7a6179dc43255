// The examples' state.db files keep the agent's own counters as upstream does (each session's
// responses, a rotation child from 0): the replay agrees with every one, so no replay-count-mismatch.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyze } from '../../src/analysis/report';
import { createTokenCounter } from '../../src/analysis/tokenizer';
import { PROFILES } from '../../src/engine/profile';
import { loadTranscript } from '../../src/transcripts/load';
import { example } from '../cli/support';

const counter = createTokenCounter('o200k_base');

describe('the examples\' recorded counters', () => {
  for (const name of ['rotation/state.db', 'rotation-prompt-changed/state.db', 'in-place/state.db']) {
    it(`${name}: every session's api_call_count equals the requests replayed in it`, async () => {
      const r = analyze(await loadTranscript(example(name)), { profile: PROFILES['hermes-current'], counter, messages: false }).report;
      for (const s of r.sessions) {
        assert.equal(typeof s.recorded?.apiCalls, 'number', `${s.id} records its calls`);
        assert.equal(s.recorded?.apiCalls, s.replayed.requests, s.id);
      }
      assert.ok(!r.diagnostics.some((d) => d.code === 'replay-count-mismatch'));
    });

    it(`${name} only listed (above the read-whole limit): the counters are kept, no replay-count-mismatch for rows never read`, async () => {
      const t = await loadTranscript(example(name), { readWholeLimit: 0 });
      assert.equal(t.listedOnly, true);
      const r = analyze(t, { profile: PROFILES['hermes-current'], counter, messages: false }).report;
      assert.ok(r.sessions.some((s) => typeof s.recorded?.apiCalls === 'number' && s.recorded.apiCalls > 0), 'the listing has the recorded counters');
      assert.deepEqual(r.diagnostics.map((d) => d.code), ['session-list-only']);
    });
  }
});
