// Each lineage a report embeds is the lineage analysed by itself, over the whole corpus: every
// example, bad fixture and upstream-written store, and the extreme lineage shapes. The quick cases are in
// reportData.test.ts.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Transcript } from '../../src/shared/model/transcript';
import { loadTranscript } from '../../src/transcripts/load';
import { ROOT, tempDirsRemovedAfter } from '../cli/support';
import { writeLineageShape, type LineageShape } from '../support/lineageShapes';
import { checkLineages } from '../support/embeddedLineages';
import { filesUnder } from '../support/growth';
import { buildStore, scenarioNames } from '../support/upstreamStores';

const newDir = tempDirsRemovedAfter();

describe('each lineage a report embeds, sliced from the whole analysis or analysed alone, is the lineage analysed by itself', () => {
  const shapes: [LineageShape, number][] = [
    ['chain', 30],
    ['cycle', 20],
    ['branches', 30],
    ['flat', 40],
    ['children', 31],
    ['compacted-children', 31],
  ];
  for (const [shape, n] of shapes) {
    it(`on the ${shape} shape of ${n} sessions`, async () => {
      const path = join(newDir(), 'state.db');
      writeLineageShape(path, shape, n);
      const checked = await checkLineages(shape, await loadTranscript(path), path);
      // Sessions of their own are each a lineage of its own, all taken from the whole analysis.
      if (shape === 'flat') assert.deepEqual(checked, { lineages: n, sliced: n });
    });
  }

  it('on every example, bad fixture and upstream-written store', async () => {
    const paths = [
      ...filesUnder(join(ROOT, 'examples')),
      ...filesUnder(join(ROOT, 'test', 'fixtures')),
      ...scenarioNames().flatMap((name) => filesUnder(buildStore(name).dir)),
    ];
    let sliced = 0;
    let several = 0;
    for (const path of paths) {
      let transcript: Transcript;
      try {
        transcript = await loadTranscript(path);
      } catch {
        // A fixture refused whole (not a transcript at all) has no lineage.
        continue;
      }
      const label = path.startsWith(ROOT) ? path.slice(ROOT.length + 1) : path;
      const checked = await checkLineages(label, transcript, path);
      sliced += checked.sliced;
      if (checked.lineages > 1) several++;
    }
    assert.ok(sliced > 50, `only ${sliced} lineages sliced`);
    assert.ok(several > 5, `only ${several} files of several lineages`);
  });
});
