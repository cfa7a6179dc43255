// A home's report compresses each lineage (src/protocol/compressedInspection.ts) and the page decompresses the one
// opened (src/shared/embedded.ts): the same inspection comes back, smaller on the page, and the
// lineage opened last is the one shown however the decompressing interleaves.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analyze } from '../../src/analysis/report';
import { compressInspection } from '../../src/protocol/compressedInspection';
import { reportData } from '../../src/protocol/reportData';
import { embeddedTransport, decompressInspection } from '../../src/shared/embedded';
import { RpcClient } from '../../src/shared/rpc';
import type { EmbeddedInspection, EmbeddedReport, RequestMap } from '../../src/shared/messages';
import { loadTranscript } from '../../src/transcripts/load';
import { tempDirsRemovedAfter } from '../cli/support';
import { OPTIONS, writeInterleavedPair } from '../support/embeddedLineages';

const newDir = tempDirsRemovedAfter();

/** Two lineages, a and b, whose text goes past ASCII: wide characters, an emoji. */
async function home(): Promise<EmbeddedReport> {
  const path = join(newDir(), 'state.db');
  writeInterleavedPair(path, (who, k) => (who === 'a' ? `a asks ${k}: 日本語 🧪 ${'the same words again '.repeat(40)}` : `b asks ${k}`));
  return reportData(analyze(await loadTranscript(path), OPTIONS), 'T', OPTIONS);
}

describe('compressed lineages', () => {
  it('decompress to the inspection compressed, in fewer bytes than its JSON', async () => {
    const data = await home();
    assert.ok(data.overview);
    assert.deepEqual(Object.keys(data.lineages).sort(), ['a', 'b']);
    const a = await decompressInspection(data.lineages.a);
    assert.equal(compressInspection(a), data.lineages.a, 'compressing is deterministic');
    const json = JSON.stringify(a);
    assert.ok(json.includes('日本語 🧪'), 'the wide text is in the inspection');
    assert.ok(data.lineages.a.length < json.length / 2, `${data.lineages.a.length} compressed against ${json.length}`);
    assert.match(data.lineages.a, /^[A-Za-z0-9+/]+=*$/, 'base64: nothing the page must escape');
  });

  it('a lineage nested deeper than JSON.stringify recurses is written in pieces and comes back whole', async () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 20_000; i++) deep = [deep];
    assert.throws(() => JSON.stringify(deep), RangeError, 'deep enough to need the pieces');
    const data = await home();
    assert.ok(data.overview);
    const inspection = { ...(await decompressInspection(data.lineages.a)), deep } as unknown as EmbeddedInspection;
    let back: unknown = ((await decompressInspection(compressInspection(inspection))) as unknown as { deep: unknown }).deep;
    let depth = 0;
    for (; Array.isArray(back); depth++) back = back[0];
    assert.deepEqual([depth, back], [20_000, 'bottom']);
  });

  it('the lineage opened last is shown, whichever decompresses first; one opened before comes back from memory', async () => {
    const data = await home();
    assert.ok(data.overview);
    const transport = embeddedTransport(data);
    const rpc = new RpcClient<RequestMap>((m) => transport.post(m));
    transport.onMessage((m) => {
      if (m.type === 'response') rpc.settle(m);
    });
    const firstAsk = async (): Promise<string> => (await rpc.call('turns', { start: 0, count: 1 }))[0].title;
    await rpc.call('openLineage', { lineage: 'b' });
    // b is then kept decompressed and a is not: a, asked first, finishes last.
    const [a, b] = await Promise.all([rpc.call('openLineage', { lineage: 'a' }), rpc.call('openLineage', { lineage: 'b' })]);
    assert.deepEqual([a.turnCount, b.turnCount], [3, 3]);
    assert.match(await firstAsk(), /^b asks 0/);
    await rpc.call('openLineage', { lineage: 'a' });
    assert.match(await firstAsk(), /^a asks 0/);
    await Promise.all([rpc.call('openLineage', { lineage: 'b' }), rpc.call('openLineage', { lineage: null })]);
    await assert.rejects(rpc.call('turns', { start: 0, count: 1 }), /no lineage is open/);
  });
});
