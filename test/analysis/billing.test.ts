// Billed against replayed (src/analysis/billing.ts), rule by rule, on agent.log lines in upstream's
// formats read by the product's own parser, against requests shaped as the report gives them. The
// whole path on a home and logs written by upstream's code paths is in billedHome.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { billingLogOf, matchBilling, type BillingLog } from '../../src/analysis/billing';
import { cacheRule } from '../../src/analysis/cacheRules';
import type { CacheTtlSetting } from '../../src/shared/model/transcript';
import type { Report } from '../../src/shared/reportTypes';
import { parseAgentLog } from '../../src/transcripts/agentLog';

/** The rows' clock: epoch seconds of 2026-09-18 10:00:00 UTC. */
const T0 = Date.UTC(2026, 8, 18, 10, 0, 0) / 1000;
/** The log's machine runs at +05:30: its local time is the rows' time plus this. */
const ZONE = 5.5 * 3600;

function localText(epoch: number): string {
  const d = new Date((epoch + ZONE) * 1000);
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())},${p(d.getUTCMilliseconds(), 3)}`;
}

interface CallSpec {
  session: string;
  /** Sent at this many seconds after T0 (rows' clock); logged `latency` later. */
  sent: number;
  input: number | null;
  read?: number;
  model?: string;
  latency?: number;
}

let counter = 0;
function callLine(c: CallSpec): string {
  const latency = c.latency ?? 2;
  const at = localText(T0 + c.sent + latency);
  const model = c.model ?? 'claude-sonnet-4.6';
  counter++;
  if (c.input === null)
    return `${at} INFO [${c.session}] agent.conversation_loop: API call #${counter}: model=${model} provider=anthropic in=? out=? total=? latency=${latency.toFixed(1)}s usage=unavailable`;
  const read = c.read ?? 0;
  const cache = read ? ` cache=${read}/${c.input} (${Math.round((100 * read) / c.input)}%)` : '';
  const write = c.input - read ? ` write=${c.input - read}` : '';
  return `${at} INFO [${c.session}] agent.conversation_loop: API call #${counter}: model=${model} provider=anthropic in=${c.input} out=50 total=${c.input + 50} latency=${latency.toFixed(1)}s${cache}${write} id=msg_${counter}`;
}

function nullPromptLine(session: string, at: number): string {
  return `${localText(T0 + at)} WARNING [${session}] agent.conversation_loop: Stored system prompt for session ${session} is null; rebuilding from scratch this turn. Prefix cache will miss until the rebuild persists. Investigate the previous turn's update_system_prompt write path.`;
}

function logOf(lines: string[], cacheTtl: CacheTtlSetting | null = null): BillingLog {
  const parsed = parseAgentLog('logs/agent.log', new TextEncoder().encode(`${lines.join('\n')}\n`));
  assert.deepEqual(parsed.findings, []);
  return billingLogOf([{ path: 'logs/agent.log', records: parsed.records, findings: [] } as never], cacheTtl);
}

type Req = Report['requests'][number];
interface ReqSpec {
  session: string;
  sent: number;
  tokens: number;
  /** The replay's break here, with its cause; reusable tokens then. */
  broke?: { cause: 'compression' | 'system-changed' | 'rewind'; reused: number };
  failed?: boolean;
}

function requestsOf(specs: ReqSpec[]): Pick<Report, 'requests' | 'sessions'> {
  const sessions = [...new Set(specs.map((s) => s.session))];
  const requests = specs.map((s, index): Req => ({
    index,
    turn: index,
    sessionId: s.session,
    systemPromptSha256: '',
    messageCount: 2,
    inputTokens: s.tokens,
    categories: { 'history/user': s.tokens },
    sentAt: T0 + s.sent,
    prefix: {
      previousRequest: index === 0 ? null : index - 1,
      stable: !s.broke,
      breakAt: s.broke ? { messageIndex: 1, byteOffset: 0, cause: s.broke.cause } : null,
      reusedTokens: s.broke ? s.broke.reused : index === 0 ? 0 : specs[index - 1].tokens,
    },
    ...(s.failed ? { failed: true as const } : {}),
    billed: null,
    cacheMiss: null,
    cost: null,
  }));
  return {
    requests,
    sessions: sessions.map((id, i) => ({
      id,
      parentId: i === 0 ? null : sessions[i - 1],
      systemPromptSha256: null,
      endReason: null,
      replayed: { requests: 0, failed: 0, rows: 0, inputTokens: 0, reusedTokens: 0 },
    })),
  };
}

describe('matching billed calls to replayed requests', () => {
  it('finds the log clock offset (+05:30) and pairs by session and time; a failed request gets no call', () => {
    const report = requestsOf([
      { session: 'A', sent: 0, tokens: 5000 },
      { session: 'A', sent: 30, tokens: 5200 },
      { session: 'A', sent: 60, tokens: 5400, failed: true },
      { session: 'A', sent: 70, tokens: 5400 },
    ]);
    const log = logOf([
      callLine({ session: 'A', sent: 0.4, input: 5100 }),
      callLine({ session: 'A', sent: 30.3, input: 5300, read: 5100 }),
      callLine({ session: 'A', sent: 70.2, input: 5500, read: 5300 }),
    ]);
    const m = matchBilling(report, log);
    assert.equal(m.billing.logClockOffsetSeconds, -ZONE);
    assert.deepEqual(
      m.requests.map((r) => r.billed?.input ?? null),
      [5100, 5300, null, 5500],
    );
    assert.deepEqual(m.billing.sessions, [
      { sessionId: 'A', calls: 3, usageCalls: 3, requests: 3, matched: 3, loggedPromptTokens: 15_900, loggedOutputTokens: 150, recorded: null },
    ]);
    // Beside the store's counters for the session: upstream's input excludes the cache, the bill's prompt does not.
    report.sessions[0].recorded = { apiCalls: 3, inputTokens: 1000, cacheReadTokens: 14_000, cacheWriteTokens: 900, outputTokens: 150 };
    assert.deepEqual(matchBilling(report, log).billing.sessions[0].recorded, { apiCalls: 3, promptTokens: 15_900, outputTokens: 150 });
    assert.deepEqual(m.billing.unmatchedCalls, []);
    assert.deepEqual(
      m.requests.map((r) => r.cacheMiss),
      [null, null, null, null],
    );
  });

  it('finds the offset when the log begins hours into the session (its first files rotated away)', () => {
    // Requests every 20 minutes for ten hours; only the last four hours' calls are still logged.
    const specs = Array.from({ length: 30 }, (_, k) => ({ session: 'A', sent: k * 1200, tokens: 5000 + 100 * k }));
    const report = requestsOf(specs);
    const log = logOf(specs.slice(18).map((q) => callLine({ session: 'A', sent: q.sent + 0.3, input: q.tokens + 50, read: q.tokens - 50 })));
    const m = matchBilling(report, log);
    assert.equal(m.billing.logClockOffsetSeconds, -ZONE);
    assert.deepEqual(m.billing.sessions, [
      { sessionId: 'A', calls: 12, usageCalls: 12, requests: 30, matched: 12, loggedPromptTokens: 88_800, loggedOutputTokens: 600, recorded: null },
    ]);
    assert.deepEqual(
      m.requests.map((r) => r.billed !== null),
      specs.map((_, k) => k >= 18),
    );
  });

  it('says what matched nothing: a call of a session not replayed, a call long before any request, a request with no call', () => {
    const report = requestsOf([
      { session: 'A', sent: 0, tokens: 5000 },
      { session: 'A', sent: 1000, tokens: 5200 },
      { session: 'A', sent: 1030, tokens: 5400 },
    ]);
    const log = logOf([
      callLine({ session: 'A', sent: 0.5, input: 5100 }),
      callLine({ session: 'A', sent: 500, input: 9000 }), // an aborted turn: no row stored
      callLine({ session: 'Z', sent: 600, input: 800 }), // another store's session
      callLine({ session: 'A', sent: 1030.5, input: 5500, read: 5100 }),
    ]);
    const m = matchBilling(report, log);
    assert.deepEqual(
      m.requests.map((r) => r.billed?.input ?? null),
      [5100, null, 5500],
    );
    assert.deepEqual(
      m.billing.unmatchedCalls.map((c) => [c.sessionTag, c.input]),
      [
        ['A', 9000],
        ['Z', 800],
      ],
    );
    assert.deepEqual(
      m.billing.sessions.find((s) => s.sessionId === 'A'),
      { sessionId: 'A', calls: 3, usageCalls: 3, requests: 3, matched: 2, loggedPromptTokens: 19_600, loggedOutputTokens: 150, recorded: null },
    );
  });

  it('pairs a call tagged with the parent with its request in the child, within one compaction chain', () => {
    // A compaction inside the turn: the replay puts the turn's requests in the child, the log tagged
    // the first one with the parent's id (the tag switches when the rotation happens).
    const report = requestsOf([
      { session: 'P', sent: 0, tokens: 5000 },
      { session: 'C', sent: 30, tokens: 5200 },
      { session: 'C', sent: 60, tokens: 2000, broke: { cause: 'compression', reused: 900 } },
    ]);
    const log = logOf([
      callLine({ session: 'P', sent: 0.5, input: 5100 }),
      callLine({ session: 'P', sent: 30.5, input: 5300, read: 5100 }),
      callLine({ session: 'C', sent: 60.5, input: 2100, read: 950 }),
    ]);
    const m = matchBilling(report, log);
    assert.deepEqual(
      m.requests.map((r) => r.billed?.input ?? null),
      [5100, 5300, 2100],
    );
    assert.deepEqual(m.billing.unmatchedCalls, []);
    assert.equal(m.requests[2].cacheMiss?.class, 'predicted');
    assert.equal(m.requests[2].cacheMiss?.cause, 'compression');
  });

  it('without times on the rows, pairs in order', () => {
    const report = requestsOf([
      { session: 'A', sent: 0, tokens: 5000 },
      { session: 'A', sent: 10, tokens: 5200 },
    ]);
    for (const r of report.requests) delete r.sentAt;
    const m = matchBilling(report, logOf([callLine({ session: 'A', sent: 0, input: 5100 }), callLine({ session: 'A', sent: 10, input: 5300, read: 5100 })]));
    assert.equal(m.billing.logClockOffsetSeconds, null);
    assert.deepEqual(
      m.requests.map((r) => r.billed?.input),
      [5100, 5300],
    );
  });
});

describe('classing a cache miss, first cause first', () => {
  const classOf = (specs: ReqSpec[], lines: string[]): (string | null)[] =>
    matchBilling(requestsOf(specs), logOf(lines)).requests.map((r) => r.cacheMiss?.class ?? null);

  it('cause-logged: a stored-prompt-null warning between the two calls, even with a break and a long idle', () => {
    const classes = classOf(
      [
        { session: 'A', sent: 0, tokens: 5000 },
        { session: 'A', sent: 900, tokens: 5200, broke: { cause: 'system-changed', reused: 0 } },
      ],
      [callLine({ session: 'A', sent: 0.5, input: 5100 }), nullPromptLine('A', 899), callLine({ session: 'A', sent: 900.5, input: 5300 })],
    );
    assert.deepEqual(classes, [null, 'cause-logged']);
  });

  it('expired: idle longer than five minutes with an unbroken prefix; not before', () => {
    const specs: ReqSpec[] = [
      { session: 'A', sent: 0, tokens: 5000 },
      { session: 'A', sent: 400, tokens: 5200 },
    ];
    assert.deepEqual(classOf(specs, [callLine({ session: 'A', sent: 0.5, input: 5100 }), callLine({ session: 'A', sent: 400.5, input: 5300 })]), [
      null,
      'expired',
    ]);
    const short: ReqSpec[] = [specs[0], { ...specs[1], sent: 200 }];
    assert.deepEqual(classOf(short, [callLine({ session: 'A', sent: 0.5, input: 5100 }), callLine({ session: 'A', sent: 200.5, input: 5300 })]), [
      null,
      'unexplained',
    ]);
  });

  it('expired against the lifetime the home asks for: 1 hour in config.yaml, none where caching is off', () => {
    const specs: ReqSpec[] = [
      { session: 'A', sent: 0, tokens: 5000 },
      { session: 'A', sent: 600, tokens: 5200 },
      { session: 'A', sent: 600 + 3700, tokens: 5400 },
    ];
    const lines = [
      callLine({ session: 'A', sent: 0.5, input: 5100 }),
      callLine({ session: 'A', sent: 600.5, input: 5300 }),
      callLine({ session: 'A', sent: 4300.5, input: 5500 }),
    ];
    const misses = (cacheTtl: CacheTtlSetting | null) =>
      matchBilling(requestsOf(specs), logOf(lines, cacheTtl)).requests.map((r) => r.cacheMiss && [r.cacheMiss.class, r.cacheMiss.lifetimeSeconds]);
    const at = (ttl: CacheTtlSetting['ttl']): CacheTtlSetting => ({ ttl, file: '/home/u/.hermes/config.yaml', line: 3 });
    // 10 idle minutes outlive the default 5, not an hour: the miss then has no other explanation.
    assert.deepEqual(misses(null), [null, ['expired', 300], ['expired', 300]]);
    assert.deepEqual(misses(at('5m')), [null, ['expired', 300], ['expired', 300]]);
    assert.deepEqual(misses(at('1h')), [null, ['unexplained', 3600], ['expired', 3600]]);
    // No markers sent, nothing cached: no call is judged against a cache it never asked for.
    assert.deepEqual(misses(at('off')), [null, null, null]);
    assert.deepEqual(matchBilling(requestsOf(specs), logOf(lines, at('1h'))).billing.cacheTtl, at('1h'));
  });

  it('too-short: a prompt under the model’s minimum (Haiku 4.5: 4,096)', () => {
    const classes = classOf(
      [
        { session: 'A', sent: 0, tokens: 3000 },
        { session: 'A', sent: 20, tokens: 3200 },
      ],
      [
        callLine({ session: 'A', sent: 0.5, input: 3100, model: 'claude-haiku-4.5' }),
        callLine({ session: 'A', sent: 20.5, input: 3300, model: 'claude-haiku-4.5' }),
      ],
    );
    assert.deepEqual(classes, [null, 'too-short']);
  });

  it('predicted: the replay broke the prefix there; unexplained without one', () => {
    const lines = [callLine({ session: 'A', sent: 0.5, input: 5100 }), callLine({ session: 'A', sent: 20.5, input: 5300, read: 400 })];
    assert.deepEqual(
      classOf(
        [
          { session: 'A', sent: 0, tokens: 5000 },
          { session: 'A', sent: 20, tokens: 5200, broke: { cause: 'rewind', reused: 380 } },
        ],
        lines,
      ),
      [null, 'predicted'],
    );
  });

  it('no miss within a twentieth or 256 tokens; a usage-less call is not judged', () => {
    const specs: ReqSpec[] = [
      { session: 'A', sent: 0, tokens: 50000 },
      { session: 'A', sent: 20, tokens: 52000 },
      { session: 'A', sent: 40, tokens: 54000 },
    ];
    const m = matchBilling(
      requestsOf(specs),
      logOf([
        callLine({ session: 'A', sent: 0.5, input: 51000 }),
        callLine({ session: 'A', sent: 20.5, input: 53000, read: 49000 }),
        callLine({ session: 'A', sent: 40.5, input: null }),
      ]),
    );
    assert.deepEqual(
      m.requests.map((r) => r.cacheMiss),
      [null, null, null],
    );
    assert.equal(m.requests[2].billed?.input, null);
    assert.equal(m.requests[2].billed?.cacheRead, null);
  });

  it('an unpredicted hit: the replay breaks early, the bill read the whole previous prompt', () => {
    const m = matchBilling(
      requestsOf([
        { session: 'A', sent: 0, tokens: 5000 },
        { session: 'A', sent: 20, tokens: 5200, broke: { cause: 'system-changed', reused: 0 } },
      ]),
      logOf([callLine({ session: 'A', sent: 0.5, input: 5100 }), callLine({ session: 'A', sent: 20.5, input: 5300, read: 5100 })]),
    );
    assert.equal(m.requests[1].cacheMiss, null);
    assert.equal(m.requests[1].unpredictedHit, true);
  });
});

describe('cache rules by model', () => {
  it('lifetimes and minimum lengths as the providers document them (docs/billing.md)', () => {
    assert.deepEqual(cacheRule('anthropic/claude-opus-4.6'), { family: 'anthropic', lifetimeSeconds: 300, minimumTokens: 4096 });
    assert.deepEqual(cacheRule('claude-opus-4-1'), { family: 'anthropic', lifetimeSeconds: 300, minimumTokens: 1024 });
    assert.deepEqual(cacheRule('claude-opus-5'), { family: 'anthropic', lifetimeSeconds: 300, minimumTokens: 512 });
    assert.deepEqual(cacheRule('claude-3-5-haiku'), { family: 'anthropic', lifetimeSeconds: 300, minimumTokens: 2048 });
    assert.deepEqual(cacheRule('anthropic/claude-sonnet-4.6'), { family: 'anthropic', lifetimeSeconds: 300, minimumTokens: 1024 });
    assert.deepEqual(cacheRule('openai/gpt-5.5'), { family: 'openai', lifetimeSeconds: 300, minimumTokens: 1024 });
    assert.deepEqual(cacheRule('google/gemini-3-pro'), { family: 'google', lifetimeSeconds: null, minimumTokens: 4096 });
    assert.deepEqual(cacheRule('qwen3-coder'), { family: 'other', lifetimeSeconds: null, minimumTokens: null });
    // A request's markers may ask Anthropic for an hour; other providers' lifetimes are their own.
    assert.deepEqual(cacheRule('anthropic/claude-sonnet-4.6', '1h'), { family: 'anthropic', lifetimeSeconds: 3600, minimumTokens: 1024 });
    assert.deepEqual(cacheRule('openai/gpt-5.5', '1h'), { family: 'openai', lifetimeSeconds: 300, minimumTokens: 1024 });
    assert.deepEqual(cacheRule('qwen3-coder', '1h'), { family: 'other', lifetimeSeconds: null, minimumTokens: null });
  });
});
