// Billed against replayed on a Hermes home and its agent.log written the way upstream writes them
// (hermes_store.py's `billed` scenario: both call-line layouts and the provider-first one, a
// process restart, a rotation mid-turn that switches the session tag, a log rolled over to
// agent.log.1, a retried call, an idle gap past the cache lifetime, a stored-prompt-null warning
// before a branch whose prompt was rebuilt, a provider that dropped its cache, a prompt too short to
// cache, a `usage=unavailable` line and calls of a session the store does not hold). Every
// expectation is read from the scenario's truth: what the simulated provider counted and why.
import assert from 'node:assert/strict';
import { cpSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { billingLogFor, billingLogOf } from '../../src/analysis/billing';
import { analyze, withBilling } from '../../src/analysis/report';
import { createTokenCounter } from '../../src/analysis/tokenizer';
import { PROFILES } from '../../src/engine/profile';
import { agentLogsBeside, readAgentLogs } from '../../src/transcripts/agentLogFiles';
import { loadTranscript } from '../../src/transcripts/load';
import { cacheTtlBeside } from '../../src/transcripts/hermesConfig';
import { Inspection } from '../../src/protocol/inspection';
import { tempDir } from '../cli/support';
import { everyLineage } from '../../src/shared/overviewColumns';
import { sessionOverview } from '../../src/analysis/sessionOverview';
import { billedHomeWithLogCut, buildStore } from '../support/upstreamStores';
import { TranscriptLineages } from '../../src/hermes/lineage';

const store = buildStore('billed');
const { truth } = store;

// agent/usage_pricing.py's official-docs snapshot for these models (shared/design/hermes-usage.md
// §3.3): input, output, cache read, cache write, USD per million tokens.
const HERMES_RATES: Record<string, [number, number, number, number]> = {
  'claude-sonnet-4-6': [3, 15, 0.3, 3.75],
  'claude-haiku-4-5': [1, 5, 0.1, 1.25],
};

async function billedReport() {
  const transcript = await loadTranscript(store.stateDb);
  const analysis = analyze(transcript, { profile: PROFILES['hermes-current'], counter: createTokenCounter('o200k_base'), messages: false });
  return withBilling(analysis, billingLogOf(readAgentLogs(agentLogsBeside(store.stateDb, transcript.format)))).report;
}

describe('billed against replayed, on a home and logs written as upstream writes them', async () => {
  const report = await billedReport();
  const calls = truth.calls ?? [];

  it('finds the logs beside the store, oldest first, and the log clock’s zone', () => {
    assert.deepEqual(
      report.billing.sources.map((s) => relative(store.dir, s.path)),
      truth.logs,
    );
    assert.equal(
      report.billing.sources.reduce((n, s) => n + s.calls, 0),
      calls.length,
    );
    assert.equal(report.billing.logClockOffsetSeconds, -(truth.logTimezoneOffsetSeconds as number));
  });

  it('matches every call to the request it answered, by file and line', () => {
    const expected = truth.requests.map((r) => {
      const c = r.billed ? calls[r.billed.call] : undefined;
      return c ? `${c.file}:${c.line}` : null;
    });
    const got = report.requests.map((r) => (r.billed ? `${relative(store.dir, r.billed.source.file)}:${r.billed.source.line}` : null));
    assert.deepEqual(got, expected);
    assert.ok(
      truth.requests.some((r) => r.failed && r.billed === null),
      'a failed request in the scenario',
    );
  });

  it('says which calls matched nothing: the ones that answer no replayed request', () => {
    const unmatched = calls.filter((c) => c.request === null).map((c) => `${c.file}:${c.line}`);
    assert.ok(unmatched.length >= 2);
    assert.deepEqual(
      report.billing.unmatchedCalls.map((c) => `${relative(store.dir, c.file)}:${c.line}`),
      unmatched,
    );
    const perSession = new Map(report.billing.sessions.map((s) => [s.sessionId, s]));
    for (const s of truth.sessions) {
      const answered = truth.requests.filter((r) => r.sessionId === s.id && !r.failed);
      const row = perSession.get(s.id);
      assert.equal(row?.requests, answered.length, s.id);
      assert.equal(row?.matched, answered.filter((r) => r.billed).length, s.id);
    }
  });

  it('reads each matched call’s figures as the line printed them (a write figure only from #104568 on, none at all without usage)', () => {
    for (const r of truth.requests) {
      const got = report.requests[r.index].billed;
      if (!r.billed) continue;
      const c = calls[r.billed.call];
      assert.deepEqual(
        got && { input: got.input, output: got.output, cacheRead: got.cacheRead, cacheWrite: got.cacheWrite, responseId: got.responseId },
        c.usageUnavailable
          ? { input: null, output: null, cacheRead: null, cacheWrite: null, responseId: c.responseId }
          : {
              input: c.input,
              output: c.output,
              cacheRead: c.cacheRead,
              cacheWrite: c.version === '#104568' ? c.cacheWrite : null,
              responseId: c.responseId,
            },
        `request ${r.index}`,
      );
    }
  });

  it('classes each miss as the provider’s reason was, first cause first; a shortfall within a twentieth is none', () => {
    const classes = new Set<string>();
    for (const r of truth.requests) {
      const got = report.requests[r.index].cacheMiss;
      const decision = r.providerCache;
      // The scenario's provider counts any read short of the previous prompt; the report only what
      // exceeds the cache's own granularity (docs/billing.md): a rewind's re-asked tail of 4 %.
      const shortfall = decision?.previousPrompt != null && r.missClass ? decision.previousPrompt - decision.read : 0;
      const expected = r.missClass && shortfall > Math.max(256, (decision?.previousPrompt ?? 0) / 20) ? r.missClass : null;
      assert.equal(got?.class ?? null, expected, `request ${r.index}`);
      if (got) {
        classes.add(got.class);
        assert.equal(got.rebilledTokens, shortfall, `request ${r.index}`);
      }
    }
    assert.deepEqual([...classes].sort(), ['cause-logged', 'expired', 'predicted', 'too-short', 'unexplained']);
  });

  it('names the logged cause and the replayed break', () => {
    const logged = report.requests.find((r) => r.cacheMiss?.class === 'cause-logged');
    assert.equal(logged?.cacheMiss?.cause, 'stored-prompt-null');
    const predicted = report.requests.filter((r) => r.cacheMiss?.class === 'predicted').map((r) => r.cacheMiss?.cause);
    assert.ok(predicted.includes('compression'), predicted.join());
  });

  it('replays the estimate each compaction was decided by, as the agent computed and logged it', () => {
    const withPreflight = truth.turns.filter((t) => t.preflight);
    assert.deepEqual(withPreflight.map((t) => t.preflight?.method).sort(), ['anchored', 'rough'], 'one of each in the scenario');
    for (const t of withPreflight) {
      const p = t.preflight as NonNullable<typeof t.preflight>;
      const c = report.turns[t.index].compression;
      assert.ok(c?.estimate, `turn ${t.index}`);
      assert.deepEqual(
        {
          method: c.estimate.method,
          anchor: c.estimate.anchor,
          logged: c.estimate.logged && { tokens: c.estimate.logged.tokens, threshold: c.estimate.logged.threshold },
          gateBranch: c.gateBranch,
        },
        {
          method: p.method,
          anchor: p.anchorRequest === null ? null : { request: p.anchorRequest, input: p.anchorInput, output: p.anchorOutput },
          logged: { tokens: p.tokens, threshold: p.threshold },
          // The gate is `count or chars`, the count tried first; here never both.
          gateBranch: p.gateBranch,
        },
        `turn ${t.index}`,
      );
      // The anchored figure is the bill plus the rows since, priced exactly as the agent prices them.
      // The rough one prices every row, and the agent's live rows carry its `_db_persisted` marker,
      // which no store keeps: ours is below the agent's by about that much (a few tokens a row).
      if (p.method === 'anchored') assert.equal(c.estimate.tokens, p.tokens, `turn ${t.index}`);
      else
        assert.ok(
          (c.estimate.tokens as number) <= p.tokens && (c.estimate.tokens as number) >= p.tokens - 20 * p.messages,
          `turn ${t.index}: ${c.estimate.tokens} vs ${p.tokens}`,
        );
    }
  });

  it('says per model how far the bill’s prompt tokens run from ours', () => {
    for (const m of report.billing.models) {
      const matched = report.requests.filter((r) => r.billed?.model === m.model && r.billed.input !== null);
      assert.equal(m.requests, matched.length);
      assert.equal(
        m.billedInput,
        matched.reduce((n, r) => n + (r.billed?.input ?? 0), 0),
      );
      assert.equal(
        m.replayedInput,
        matched.reduce((n, r) => n + r.inputTokens, 0),
      );
      assert.ok(m.ratio > 1 && m.ratio < 2, `${m.model} ${m.ratio}`);
    }
    assert.deepEqual(report.billing.models.map((m) => m.model).sort(), ['claude-haiku-4-5', 'claude-sonnet-4-6']);
  });

  it('prices each call as Hermes’ own rule does: absolute rates per bucket over the whole prompt split', () => {
    let total = 0;
    for (const r of report.requests) {
      const b = r.billed;
      if (!b || b.input === null || b.output === null) {
        assert.equal(r.cost, null, `request ${r.index}`);
        continue;
      }
      const [input, output, read, write] = HERMES_RATES[b.model];
      const cacheRead = b.cacheRead ?? 0;
      const cacheWrite = b.cacheWrite ?? 0;
      const hermes = ((b.input - cacheRead - cacheWrite) * input + cacheRead * read + cacheWrite * write + b.output * output) / 1e6;
      assert.ok(r.cost && Math.abs(r.cost.usd - hermes) < 1e-12, `request ${r.index}: ${r.cost?.usd} vs ${hermes}`);
      assert.deepEqual(r.cost.rates, { input, cacheRead: read, cacheWrite: write, output });
      assert.equal(r.cost.notes.length > 0, b.cacheWrite === null, `request ${r.index}: a note exactly where writes were not logged`);
      total += r.cost.usd;
      if (r.cacheMiss) {
        const billedAt = b.cacheWrite === null ? input : write;
        assert.ok(Math.abs((r.cacheMiss.extraUsd as number) - (r.cacheMiss.rebilledTokens * (billedAt - read)) / 1e6) < 1e-12, `request ${r.index}`);
      }
    }
    assert.ok(Math.abs(report.billing.cost.usd - total) < 1e-9);
    assert.equal(report.billing.cost.priced, report.requests.filter((r) => r.cost).length);
    assert.equal(report.billing.cost.unpriced, 0);
  });

  it('bills each lineage opened alone as the whole file: a branch’s first miss judged against its parent’s last call', async () => {
    const transcript = await loadTranscript(store.stateDb);
    const log = billingLogOf(readAgentLogs(agentLogsBeside(store.stateDb, transcript.format)));
    const lineages = new TranscriptLineages(transcript);
    const missesBySession = (r: typeof report): Map<string, (string | null)[]> => {
      const out = new Map<string, (string | null)[]>();
      for (const q of r.requests.filter((x) => !x.failed)) out.set(q.sessionId, [...(out.get(q.sessionId) ?? []), q.cacheMiss?.class ?? null]);
      return out;
    };
    const whole = missesBySession(report);
    let branchFirst = 0;
    for (const id of lineages.listed.chains.keys()) {
      const members = lineages.members(id);
      const narrowed = lineages.narrow(members);
      const parents = narrowed.sessions.flatMap((s) => (s.parentId === null ? [] : [s.parentId]));
      const alone = withBilling(
        analyze(structuredClone(narrowed), { profile: PROFILES['hermes-current'], counter: createTokenCounter('o200k_base'), messages: false }),
        billingLogFor(log, members, parents),
      ).report;
      for (const [session, classes] of missesBySession(alone)) {
        assert.deepEqual(classes, whole.get(session), `${id}: session ${session}`);
        if (narrowed.sessions.find((s) => s.id === session)?.forkKind === 'branch' && classes[0] !== null) branchFirst++;
      }
    }
    assert.equal(branchFirst, 1, 'the branch’s first request, classed alone as within the file');
  });

  it('reconciles each session’s logged calls with the store’s totals: equal where every line was kept', () => {
    let compared = 0;
    for (const s of report.billing.sessions) {
      if (!s.recorded) continue;
      compared++;
      assert.deepEqual(
        [s.usageCalls, s.loggedPromptTokens, s.loggedOutputTokens],
        [s.recorded.apiCalls, s.recorded.promptTokens, s.recorded.outputTokens],
        s.sessionId,
      );
    }
    assert.ok(compared >= 4, `sessions with counters: ${compared}`);
    // The session only the log names (its SessionDB could not open) has no counters to compare.
    assert.ok(report.billing.sessions.some((s) => s.recorded === null && s.usageCalls > 0));
    assert.deepEqual(
      report.diagnostics.filter((d) => d.code === 'bill-incomplete'),
      [],
    );
  });

  it('says which sessions the logs read lack calls of, against the store’s count, when a log file is gone', async () => {
    const dir = tempDir();
    try {
      // The current log cut after its fifth call line: what a home whose newest file was lost keeps.
      const { db } = billedHomeWithLogCut(dir, 5);
      const transcript = await loadTranscript(db);
      const analysis = analyze(transcript, { profile: PROFILES['hermes-current'], counter: createTokenCounter('o200k_base'), messages: false });
      const cut = withBilling(analysis, billingLogOf(readAgentLogs(agentLogsBeside(db, transcript.format)))).report;
      const current = calls.filter((c) => c.file === 'logs/agent.log');
      const lost = current.slice(5).filter((c) => !c.usageUnavailable && c.request !== null);
      assert.ok(lost.length > 0);
      const missing = new Map<string, number>();
      for (const c of lost) missing.set(c.sessionTag as string, (missing.get(c.sessionTag as string) ?? 0) + 1);
      const found = cut.diagnostics.filter((d) => d.code === 'bill-incomplete');
      assert.deepEqual(found.map((d) => d.sessionId).sort(), [...missing.keys()].sort());
      for (const d of found) {
        const s = cut.billing.sessions.find((x) => x.sessionId === d.sessionId);
        assert.ok(s?.recorded);
        assert.equal(s.recorded.apiCalls - s.usageCalls, missing.get(d.sessionId as string), d.sessionId);
        assert.equal(d.severity, 'info');
        assert.match(d.message, new RegExp(`the store counted ${s.recorded.apiCalls} API calls .*the logs read hold ${s.usageCalls} with usage`));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads Hermes’ own estimate beside ours: each session’s estimated_cost_usd, its calls priced by Hermes’ rule', async () => {
    const transcript = await loadTranscript(store.stateDb);
    const hermesCost = (c: (typeof calls)[number]): number => {
      const [input, output, read, write] = HERMES_RATES[c.model];
      const cacheRead = c.providerCacheRead ?? 0;
      const cacheWrite = c.providerCacheWrite ?? 0;
      return (((c.input ?? 0) - cacheRead - cacheWrite) * input + cacheRead * read + cacheWrite * write + (c.output ?? 0) * output) / 1e6;
    };
    let priced = 0;
    for (const s of transcript.sessions) {
      // The store adds each call's estimate to the session current when its answer came: the one its line is tagged with.
      const own = calls.filter((c) => c.sessionTag === s.id && !c.usageUnavailable);
      const expected = own.reduce((sum, c) => sum + hermesCost(c), 0);
      const recorded = s.recorded?.estimatedCostUsd;
      assert.ok(recorded !== undefined && Math.abs(recorded - expected) < 1e-9, `${s.id}: ${recorded} vs ${expected}`);
      if (own.length) priced++;
    }
    assert.ok(priced >= 3, `sessions with priced calls: ${priced}`);
    // The overview sets it per lineage beside the cost of the calls matched to its requests.
    const overview = sessionOverview(transcript, report);
    for (const l of everyLineage(overview.lineages)) {
      const sum = l.sessions.reduce((a, s) => a + (s.recorded.estimatedCostUsd as number), 0);
      assert.ok(l.recorded.estimatedCostUsd !== null && Math.abs(l.recorded.estimatedCostUsd - sum) < 1e-12, l.id);
    }
  });

  it('reads the current log opened alone, with its rotation: no session, every call listed with its cost', async () => {
    const path = store.path('logs/agent.log');
    const alone = await loadTranscript(path);
    assert.deepEqual(
      { format: alone.format, sessions: alone.sessions.length, findings: alone.findings },
      { format: 'hermes-agent-log', sessions: 0, findings: [] },
    );
    const logs = agentLogsBeside(path, alone.format);
    assert.deepEqual(
      logs.map((l) => relative(store.dir, l)),
      truth.logs,
    );
    const r = withBilling(
      analyze(alone, { profile: PROFILES['hermes-current'], counter: createTokenCounter('o200k_base'), messages: false }),
      billingLogOf(readAgentLogs(logs)),
    ).report;
    assert.deepEqual(
      r.billing.unmatchedCalls.map((c) => `${relative(store.dir, c.file)}:${c.line}`),
      calls.map((c) => `${c.file}:${c.line}`),
    );
    // Hermes' rule on each call with usage, as the matched requests are priced above; a log read
    // alone places no clock, so the catalogue's latest prices (these models' have not changed).
    const RATES: Record<string, [number, number, number, number]> = { 'claude-sonnet-4-6': [3, 15, 0.3, 3.75], 'claude-haiku-4-5': [1, 5, 0.1, 1.25] };
    let total = 0;
    r.billing.unmatchedCalls.forEach((c, i) => {
      const t = calls[i];
      if (t.usageUnavailable || t.input === null || t.output === null) return assert.equal(c.usd, null, `${t.file}:${t.line}`);
      const [input, output, read, write] = RATES[c.model];
      const hermes = ((t.input - t.cacheRead - t.cacheWrite) * input + t.cacheRead * read + t.cacheWrite * write + t.output * output) / 1e6;
      assert.ok(c.usd !== null && Math.abs(c.usd - hermes) < 1e-12, `${t.file}:${t.line}: ${c.usd} vs ${hermes}`);
      total += hermes;
    });
    assert.ok(Math.abs(r.billing.cost.unmatchedUsd - total) < 1e-9);
    assert.equal(r.billing.logClockOffsetSeconds, null);
  });

  it('gives each session of the overview its billed tokens, cost and unexplained misses', async () => {
    const overview = sessionOverview(await loadTranscript(store.stateDb), report);
    const sessions = everyLineage(overview.lineages).flatMap((l) => l.sessions);
    assert.equal(sessions.length, truth.sessions.length);
    for (const s of sessions) {
      const mine = report.requests.filter((r) => r.sessionId === s.id);
      assert.equal(
        s.billedInputTokens,
        mine.reduce((n, r) => n + (r.billed?.input ?? 0), 0),
        s.id,
      );
      assert.equal(
        s.billedCacheReadTokens,
        mine.reduce((n, r) => n + (r.billed?.input === null ? 0 : (r.billed?.cacheRead ?? 0)), 0),
        s.id,
      );
      assert.ok(Math.abs((s.costUsd as number) - mine.reduce((n, r) => n + (r.cost?.usd ?? 0), 0)) < 1e-12, s.id);
      assert.equal(s.unexplainedMisses, mine.filter((r) => r.cacheMiss?.class === 'unexplained').length, s.id);
    }
    assert.equal(
      everyLineage(overview.lineages).reduce((n, l) => n + (l.unexplainedMisses ?? 0), 0),
      1,
    );
  });

  it('warns once per unexplained miss, naming the log line; nothing else of the bill is a finding', () => {
    const found = report.diagnostics.filter((d) => d.code === 'cache-miss-unexplained' || d.code === 'cache-hit-unpredicted');
    const unexplained = report.requests.filter((r) => r.cacheMiss?.class === 'unexplained');
    assert.deepEqual(
      found.map((d) => [d.code, d.request]),
      unexplained.map((r) => ['cache-miss-unexplained', r.index]),
    );
    for (const d of found) assert.match(d.message, /agent\.log(\.1)?:\d+/);
  });
});

describe('the cache lifetime a home’s config.yaml asks for (hermes_store.py’s `billed-1h`)', async () => {
  const home = buildStore('billed-1h');
  const billedWith = async (stateDb: string) => {
    const transcript = await loadTranscript(stateDb);
    const analysis = analyze(transcript, { profile: PROFILES['hermes-current'], counter: createTokenCounter('o200k_base'), messages: false });
    return withBilling(analysis, billingLogOf(readAgentLogs(agentLogsBeside(stateDb, transcript.format)), cacheTtlBeside(stateDb, transcript.format)));
  };
  const analysis = await billedWith(home.stateDb);
  const { report } = analysis;

  it('reads prompt_caching.cache_ttl beside the store and judges each idle gap against an hour', () => {
    assert.deepEqual(report.billing.cacheTtl, { ttl: '1h', file: home.path('config.yaml'), line: 5 });
    assert.deepEqual(
      report.requests.map((r) => r.cacheMiss?.class ?? null),
      home.truth.requests.map((r) => r.missClass ?? null),
    );
    assert.deepEqual([...new Set(report.requests.flatMap((r) => (r.cacheMiss ? [r.cacheMiss.lifetimeSeconds] : [])))], [3600]);
    // Twenty idle minutes, and the whole previous prompt read: an hour's cache held it.
    const held = report.requests.find((r) => (r.gapSeconds ?? 0) > 1000 && (r.gapSeconds ?? 0) < 3600);
    assert.ok(held?.billed && !held.cacheMiss && held.billed.cacheRead === report.requests[held.index - 1].billed?.input, 'a gap past 5 minutes with a hit');
    assert.equal(new Inspection(analysis, 'billed-1h').index.summary.cacheLifetimeSeconds, 3600);
  });

  it('without the config, the same calls are judged against upstream’s default 5 minutes', async () => {
    const dir = tempDir();
    try {
      cpSync(home.stateDb, join(dir, 'state.db'));
      cpSync(home.path('logs'), join(dir, 'logs'), { recursive: true });
      const bare = (await billedWith(join(dir, 'state.db'))).report;
      assert.equal(bare.billing.cacheTtl, null);
      const classes = (r: typeof report) => r.requests.map((q) => q.cacheMiss?.class ?? null);
      const changed = classes(report).flatMap((c, i) => (c === classes(bare)[i] ? [] : [[i, c, classes(bare)[i]]]));
      assert.deepEqual(
        changed.map(([, was, now]) => [was, now]),
        [['unexplained', 'expired']],
        'ten idle minutes: unexplained within an hour, expired past five',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
