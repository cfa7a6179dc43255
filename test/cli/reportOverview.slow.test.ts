// `report` of a file of several lineages (issue 10): the page opens on the overview and embeds each
// lineage's inspection, which the embedded host switches to on openLineage; a file of one lineage
// embeds its inspection as before. A home's lineages are compressed: its data stays within 0.3× its input.
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { SqlJsStatic } from 'sql.js';
import { embeddedTransport } from '../../src/shared/embedded';
import type { EmbeddedReport, InspectorIndex, ToWebview } from '../../src/shared/messages';
import { RpcClient } from '../../src/shared/rpc';
import type { RequestMap } from '../../src/shared/messages';
import { synthesizeLongSession, toStateDb } from '../support/synthesize';
import { buildStore } from '../support/upstreamStores';
import { analyzeJson, cli, example, tempDir } from './support';

type Json = any;

const initSql = require('sql.js') as () => Promise<SqlJsStatic>;

/** The report of `file` and the data embedded in it. */
function report(file: string): { html: string; data: EmbeddedReport } {
  const out = join(tempDir(), 'report.html');
  const r = cli('report', file, '-o', out);
  assert.equal(r.code, 0, r.stderr);
  const html = readFileSync(out, 'utf8');
  const json = /<script type="application\/json" id="prompt-inspector-data">([\s\S]*?)<\/script>/.exec(html)?.[1];
  assert.ok(json, 'the page embeds its data');
  return { html, data: JSON.parse(json) as EmbeddedReport };
}

/** The embedded host, driven as the page's view drives it. */
function host(data: EmbeddedReport): { init: Promise<Extract<ToWebview, { type: 'init' }>>; rpc: RpcClient<RequestMap> } {
  const transport = embeddedTransport(data);
  let ready: (m: Extract<ToWebview, { type: 'init' }>) => void = () => undefined;
  const init = new Promise<Extract<ToWebview, { type: 'init' }>>((resolve) => (ready = resolve));
  const rpc = new RpcClient<RequestMap>((m) => transport.post(m));
  transport.onMessage((m) => {
    if (m.type === 'init') ready(m);
    else if (m.type === 'response') rpc.settle(m);
  });
  transport.post({ type: 'ready', version: data.version });
  return { init, rpc };
}

const ids = (lineages: Json[]): string[] => lineages.flatMap((l) => [l.id, ...ids(l.children)]);

describe('report of a file of several lineages', () => {
  const home = buildStore('home');
  const { data } = report(home.stateDb);
  const overview = JSON.parse(cli('sessions', home.stateDb, '--json').stdout);

  it('opens on the overview, with each lineage embedded once and the whole file not again', async () => {
    assert.ok(data.overview, 'a home of several lineages has an overview');
    assert.ok(!('inspection' in data), 'no whole-file inspection beside the lineages');
    assert.deepEqual(ids(data.overview.lineages), ids(overview.lineages));
    assert.deepEqual(Object.keys(data.lineages).sort(), ids(overview.lineages).sort());
    const { init } = host(data);
    const m = await init;
    assert.deepEqual(m.overview, data.overview);
    assert.equal(m.index?.requestCount, analyzeJson(home.stateDb).requests.length, 'init carries the whole file index');
  });

  it("openLineage answers each lineage's index and pages, as --lineage replays it", async () => {
    assert.ok(data.overview);
    const { rpc } = host(data);
    await assert.rejects(rpc.call('turns', { start: 0, count: 5 }), /no lineage is open/);
    for (const id of ids(data.overview.lineages)) {
      const alone = analyzeJson(home.stateDb, '--lineage', id);
      const index: InspectorIndex = await rpc.call('openLineage', { lineage: id });
      assert.equal(index.turnCount, alone.turns.length, id);
      const requests = await rpc.call('requests', { start: 0, count: 1000 });
      assert.deepEqual(
        requests.map((q) => [q.sessionId, q.inputTokens, q.reusedTokens, q.stable]),
        alone.requests.map((q: Json) => [q.sessionId, q.inputTokens, q.prefix.reusedTokens, q.prefix.stable]),
        id,
      );
      const last = requests[requests.length - 1];
      if (last) assert.equal((await rpc.call('messages', { request: last.index, start: 0, count: 10_000 })).length, last.messageCount);
    }
    const whole = await rpc.call('openLineage', { lineage: null });
    assert.equal(whole.requestCount, analyzeJson(home.stateDb).requests.length);
    await assert.rejects(rpc.call('openLineage', { lineage: 'no-such-lineage' }), /no lineage no-such-lineage/);
  });
});

describe('report size against its input', () => {
  /** The page's size and its embedded data's (the rest is the bundle, the same ~0.8 MB for every file), each over the input's. */
  const measure = (file: string): { page: number; data: number } => {
    const { html, data } = report(file);
    const input = statSync(file).size;
    const bytes = { page: Buffer.byteLength(html), data: Buffer.byteLength(JSON.stringify(data)) };
    const ratios = { page: bytes.page / input, data: bytes.data / input };
    console.log(
      `report size: ${file.replace(/.*\/(examples|tmp)\//, '$1/')}: ${input} B in; page ${bytes.page} B (${ratios.page.toFixed(2)}×), data ${bytes.data} B (${ratios.data.toFixed(2)}×)`,
    );
    return ratios;
  };

  it('a generated state.db of eight long sessions: the page at most 0.5× its input, its compressed data 0.3×', async () => {
    const SQL = await initSql();
    const db = join(tempDir(), 'state.db');
    writeFileSync(db, toStateDb(SQL, ...[1, 2, 3, 4, 5, 6, 7, 8].map((seed) => synthesizeLongSession(60, seed))));
    const { data } = report(db);
    assert.equal(Object.keys(data.overview ? data.lineages : {}).length, 8, 'eight lineages, each embedded');
    const ratios = measure(db);
    assert.ok(ratios.page <= 0.5 && ratios.data <= 0.3, JSON.stringify(ratios));
  });

  it("the bundled examples and a home written as upstream writes it: the home's data at most 0.3× its input", () => {
    for (const f of ['rotation/state.db', 'rotation-prompt-changed/state.db', 'in-place/state.db', 'sidecars/session_20260918_101500_a1b2c3.json'])
      measure(example(f));
    // A small file's page is mostly the bundle; what grows with the input is the data.
    assert.ok(measure(buildStore('home').stateDb).data <= 0.3);
  });
});
