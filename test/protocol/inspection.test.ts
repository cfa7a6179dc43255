import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Inspection } from '../../src/protocol/inspection';
import { billingLogOf } from '../../src/analysis/billing';
import { analyze, withBilling } from '../../src/analysis/report';
import { createTokenCounter } from '../../src/analysis/tokenizer';
import { PROFILES } from '../../src/engine/profile';
import { agentLogsBeside, readAgentLogs } from '../../src/transcripts/agentLogFiles';
import { loadTranscript } from '../../src/transcripts/load';
import { packInts, unpackInts, type MessageView, type RequestMap } from '../../src/shared/messages';
import { RpcClient, serve, type RpcRequest } from '../../src/shared/rpc';
import { bodyIdAt } from '../../src/shared/embedded';
import fc from 'fast-check';
import { IndexModel } from '../../webview/index-model';
import { embedJson, renderInspectorHtml } from '../../src/shared/webviewHtml';
import { example } from '../cli/support';

/** The file's inspection, billed from the agent.log beside it where there is one (as the worker does). */
async function inspect(path: string, profile: keyof typeof PROFILES = 'hermes-current'): Promise<Inspection> {
  const transcript = await loadTranscript(path);
  const analysis = analyze(transcript, { profile: PROFILES[profile], counter: createTokenCounter('o200k_base'), messages: false });
  const logs = agentLogsBeside(path, transcript.format);
  return new Inspection(logs.length ? withBilling(analysis, billingLogOf(readAgentLogs(logs))) : analysis, path);
}

describe('inspection model', () => {
  it("the request a dump captured carries the dump's API mode and cache breakpoints; the others none", async () => {
    const ins = await inspect(example('sidecars/session_20260918_101500_a1b2c3.json'));
    const captured = ins.requests.filter((r) => r.captured !== null);
    assert.equal(captured.length, 1);
    assert.equal(captured[0].index, 9);
    assert.deepEqual({ ...captured[0].captured, path: undefined }, { path: undefined, apiMode: 'chat-completions', breakpoints: [] });
  });

  it('pages bodies with tokens that add up to the request and spans that point into the text', async () => {
    const ins = await inspect(example('sidecars/session_20260918_101500_a1b2c3.json'));
    for (const r of ins.requests) {
      const page = ins.messages(r.index, 0, 1000);
      assert.equal(page.length, r.messageCount);
      assert.equal(
        page.reduce((s, m) => s + m.tokens, 0),
        r.inputTokens,
      );
      assert.equal(page[0].role, 'system');
      for (const m of page) for (const s of m.injected) assert.ok(s.start >= 0 && s.end <= m.text.length && s.start < s.end);
    }
    const fenced = ins.messages(0, 1, 1)[0];
    assert.equal(fenced.substitution, 'sidecar');
    assert.ok(fenced.storedText && fenced.text.startsWith(fenced.storedText));
    const memory = fenced.injected.find((s) => s.kind === 'memory');
    assert.ok(memory);
    assert.ok(fenced.text.slice(memory.start, memory.end).startsWith('<memory-context>'));
    assert.deepEqual(ins.messages(0, 5, 10), []);
    assert.equal(
      ins
        .messages(3, 2, 3)
        .map((m) => m.index)
        .join(),
      '2,3,4',
    );
  });

  it('multimodal note parts map to offsets in the joined text', async () => {
    const ins = await inspect(example('sidecars/session_20260918_101500_a1b2c3.json'));
    const last = ins.requests[ins.requests.length - 1];
    const turn = ins.turns[last.turn];
    const row = ins.messages(last.index, turn.userMessageIndex + 1, 1)[0];
    assert.ok(row.text.includes('[image_url]'));
    const note = row.injected.find((s) => s.kind === 'multimodal-note');
    assert.ok(note);
    assert.match(row.text.slice(note.start, note.end), /^\[Voice channel now/);
    assert.doesNotMatch(turn.title, /Voice channel/, 'the turn title is what the user wrote, without the appended note');
    assert.match(turn.title, /September total look right\? \[image/);
  });

  it('break context shows both sides of the first difference', async () => {
    const ins = await inspect(example('sidecars/session_20260918_101500_a1b2c3.json'), 'hermes-v0');
    const broken = ins.requests.find((r) => !r.stable);
    assert.ok(broken);
    const ctx = ins.breakContext(broken.index);
    assert.ok(ctx);
    assert.equal(ctx.cause, 'sidecar-not-replayed');
    assert.equal(ctx.currentAfter, '');
    assert.ok(ctx.previousAfter.startsWith('\n\n'));
    assert.equal(ins.breakContext(0), null);
  });

  it('compaction view names the carrier and the dropped rows', async () => {
    const ins = await inspect(example('rotation/state.db'));
    const c = ins.turns.find((t) => t.compression)?.compression;
    assert.ok(c);
    assert.match(c.carrier ?? '', /CONTEXT COMPACTION/);
    assert.equal(c.dropped.length, c.beforeMessages - (c.afterMessages - 1), 'every row but the kept ones (all of the list after except the carrier)');
  });

  it('the embedded export rebuilds every request exactly, linearly', async () => {
    for (const [file, profile] of [
      ['sidecars/session_20260918_101500_a1b2c3.json', 'hermes-v0'],
      ['rotation-prompt-changed/state.db', 'hermes-current'],
      ['in-place/state.db', 'hermes-v1'],
    ] as const) {
      const ins = await inspect(example(file), profile);
      const data = ins.exportAll();
      const total = ins.requests.reduce((s, r) => s + r.messageCount, 0);
      assert.ok(data.bodies.length < total / 2, `${data.bodies.length} bodies for ${total} wire messages`);
      for (const r of ins.requests) {
        assert.deepEqual(
          Array.from({ length: r.messageCount }, (_, i) => data.bodies[bodyIdAt(data, r.index, i) ?? -1]?.text),
          ins.messages(r.index, 0, r.messageCount).map((m) => m.text),
          `${file} request ${r.index}`,
        );
      }
    }
  });

  it('copy as JSON gives the wire messages', async () => {
    const ins = await inspect(example('sidecars/session_20260918_101500_a1b2c3.json'));
    const json = JSON.parse(ins.requestJson(2));
    assert.equal(json.messages.length, ins.requests[2].messageCount);
    assert.equal(json.messages[0].role, 'system');
    assert.equal('timestamp' in json.messages[1], false);
  });
});

describe('the index the view gets first', () => {
  it('packs integer columns losslessly: negatives, zeros, and totals past 2^31', () => {
    const cases = [[], [0], [-1, -1, 5, 0], [2 ** 31 + 5, 3, 2 ** 40, -(2 ** 33)], Array.from({ length: 5000 }, (_, i) => ((i * 37) % 101) - 50)];
    for (const c of cases) assert.deepEqual([...unpackInts(packInts(c), c.length)], c);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -(2 ** 45), max: 2 ** 45 })), (xs) => {
        assert.deepEqual([...unpackInts(packInts(xs), xs.length)], xs);
      }),
      { numRuns: 300 },
    );
    assert.ok(packInts(Array.from({ length: 10000 }, (_, i) => i)).length < 14000, 'a counting column costs about a byte and a third an item');
  });

  it('gives the view every number it steps and draws with, equal to the paged details', async () => {
    for (const [file, profile] of [
      ['sidecars/session_20260918_101500_a1b2c3.json', 'hermes-v0'],
      ['rotation-prompt-changed/state.db', 'hermes-current'],
      ['rotation/state.db', 'hermes-current'],
      ['billed/state.db', 'hermes-current'],
    ] as const) {
      const ins = await inspect(example(file), profile);
      const model = new IndexModel(JSON.parse(JSON.stringify(ins.index)));
      assert.equal(model.turnCount, ins.turns.length);
      assert.equal(model.requestCount, ins.requests.length);
      for (const t of ins.page('turns', 0, 1e9)) {
        assert.deepEqual(model.requestsOf(t.index), t.requests, `${file} turn ${t.index}`);
        assert.deepEqual(model.injectedKinds(t.index).sort(), [...t.injectedKinds].sort());
        assert.equal(model.compacted(t.index), t.compression !== null);
        // A break to look into: not the re-billing a compaction or the user's rewind causes.
        assert.equal(
          model.broken(t.index),
          t.requests.some((r) => !ins.requests[r].stable && !['compression', 'rewind'].includes(ins.requests[r].breakAt?.cause ?? '')),
        );
      }
      for (const r of ins.page('requests', 0, 1e9)) {
        const prev = r.previousRequest === null ? undefined : ins.requests[r.previousRequest];
        assert.deepEqual(model.request(r.index), {
          index: r.index,
          turn: r.turn,
          inputTokens: r.inputTokens,
          reusedTokens: r.reusedTokens,
          messageCount: r.messageCount,
          userWireIndex: r.userWireIndex ?? -1,
          previousRequest: r.previousRequest ?? -1,
          breakMessage: r.breakAt?.messageIndex ?? -1,
          stable: r.stable,
          compaction: r.breakAt?.cause === 'compression',
          rewind: r.breakAt?.cause === 'rewind',
          failed: r.failed,
          gapSeconds: r.gapSeconds === null ? -1 : Math.min(Math.round(r.gapSeconds), 2 ** 31),
          systemChanged: prev !== undefined && prev.systemPromptSha256 !== r.systemPromptSha256,
          billedRead: r.billed?.input && r.billed.cacheRead !== null ? Math.round((r.billed.cacheRead * r.inputTokens) / r.billed.input) : -1,
          missClass: r.cacheMiss?.class ?? null,
        });
      }
      const breaks = Object.values(ins.index.summary.breaks).reduce((a, b) => a + b, 0);
      assert.equal(breaks, ins.requests.filter((r) => !r.stable).length);
      assert.equal(model.breakCount, breaks - (ins.index.summary.breaks.compression ?? 0) - (ins.index.summary.breaks.rewind ?? 0));
      assert.deepEqual(ins.page('findings', 0, 1e9), ins.findings);
    }
    const changed = await inspect(example('rotation-prompt-changed/state.db'));
    assert.deepEqual(new IndexModel(changed.index).systemChanges(), [11], 'request #11 sends another system prompt than #10');
  });

  it('lists a session\u2019s turns for the tree, counting breaks but not the re-billing a compaction causes', async () => {
    const ins = await inspect(example('rotation/state.db'));
    const listed = ins.index.sessions.flatMap((s) => ins.sessionTurns(s.id));
    assert.deepEqual(
      listed.map((t) => t.index),
      ins.turns.map((t) => t.index),
      'every turn once, in order',
    );
    const compacted = listed.find((t) => t.compacted);
    assert.ok(compacted);
    const own = ins.turns[compacted.index].requests.map((r) => ins.requests[r]);
    assert.ok(
      own.some((r) => r.breakAt?.cause === 'compression'),
      'the compaction re-bills the prefix',
    );
    assert.equal(compacted.breaks, own.filter((r) => !r.stable && r.breakAt?.cause !== 'compression').length);
    assert.equal(compacted.firstBreak, null, 'a compaction alone leaves nothing for a click to land on');
    assert.deepEqual(ins.sessionTurns('no such session'), []);

    // The changed system prompt: the tree's break badge lands on the request that broke.
    const changed = await inspect(example('rotation-prompt-changed/state.db'));
    const broken = changed.index.sessions.flatMap((s) => changed.sessionTurns(s.id)).filter((t) => t.breaks > 0);
    assert.ok(broken.length > 0);
    for (const t of broken) {
      assert.ok(t.firstBreak !== null && changed.turns[t.index].requests.includes(t.firstBreak));
      assert.equal(changed.requests[t.firstBreak].stable, false);
    }
  });

  it('pages are slices, empty past the end', async () => {
    const ins = await inspect(example('rotation/state.db'));
    assert.deepEqual(
      ins.page('turns', 2, 3).map((t) => t.index),
      [2, 3, 4],
    );
    assert.deepEqual(ins.page('requests', ins.requests.length, 5), []);
    assert.deepEqual(
      ins.page('requests', -5, 2).map((r) => r.index),
      [0, 1],
    );
  });
});

describe('protocol and page', () => {
  it('RpcClient matches responses to calls by id', async () => {
    const sent: RpcRequest<RequestMap>[] = [];
    const client = new RpcClient<RequestMap>((m) => sent.push(m));
    const a = client.call('messages', { request: 1, start: 0, count: 5 });
    const b = client.call('breakContext', { request: 2 });
    const [ra, rb] = sent;
    assert.equal(client.settle({ type: 'response', inReplyTo: rb.id, result: null }), true);
    assert.equal(client.settle({ type: 'response', inReplyTo: ra.id, error: 'boom' }), true);
    assert.equal(client.settle({ type: 'response', inReplyTo: 999, result: 1 }), false);
    assert.equal(await b, null);
    await assert.rejects(a, /boom/);
  });

  it('serve answers each method with its handler, and what it throws rejects the call', async () => {
    const answer = serve<RequestMap>({
      messages: ({ request, start, count }) => [request, start, count].map((n) => ({ index: n }) as MessageView),
      turns: async () => {
        throw new Error('no turns here');
      },
      requests: () => [],
      findings: () => [],
      breakContext: () => null,
      openLineage: () => {
        throw new Error('no lineages here');
      },
    });
    const client: RpcClient<RequestMap> = new RpcClient((m) => void answer(m).then((r) => client.settle(r)));
    assert.deepEqual(
      (await client.call('messages', { request: 3, start: 4, count: 5 })).map((m) => m.index),
      [3, 4, 5],
    );
    assert.equal(await client.call('breakContext', { request: 0 }), null);
    await assert.rejects(client.call('turns', { start: 0, count: 1 }), (e: unknown) => e instanceof Error && e.message === 'no turns here');
    const unknown = await answer({ type: 'request', id: 7, method: 'nothing', params: {} } as unknown as RpcRequest<RequestMap>);
    assert.deepEqual(unknown, { type: 'response', inReplyTo: 7, error: 'unknown method nothing' });
  });

  it('a client whose other side is gone fails every waiting call', async () => {
    const client = new RpcClient<RequestMap>(() => undefined);
    const calls = [client.call('findings', { start: 0, count: 1 }), client.call('breakContext', { request: 1 })];
    client.failAll(new Error('the worker exited'));
    for (const c of calls) await assert.rejects(c, /the worker exited/);
    assert.equal(client.settle({ type: 'response', inReplyTo: 1, result: [] }), false, 'a failed call is no longer waiting');
  });

  it('the page has a strict CSP and embedded data cannot close its element', () => {
    const html = renderInspectorHtml({
      title: '</title><script>x</script>',
      nonce: 'N0NCE',
      script: { inline: 'var s="</script>";' },
      style: { inline: '' },
      embeddedData: JSON.stringify({ t: '</script><img src=x onerror=alert(1)><!--' }),
    });
    assert.match(html, /default-src 'none'/);
    assert.match(html, /script-src 'nonce-N0NCE'/);
    assert.doesNotMatch(html, /unsafe-(inline|eval)/);
    assert.equal((html.match(/<\/script>/g) ?? []).length, 2, 'only the two real script elements close');
    assert.doesNotMatch(html, /<img/);
    assert.equal(
      JSON.parse(
        embedJson('{"a":"<\\/script>"}')
          .replace(/\\u003c/g, '<')
          .replace(/\\u003e/g, '>'),
      ).a,
      '</script>',
    );
  });
});
