// The status bar's words (src/extension/statusText.ts): never "cache-stable" for a file with errors
// or without a request; compactions and rewinds told apart from breaks; counts with separators.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { statusOf, statusOfOverview, statusOfRecorded } from '../../src/extension/statusText';
import type { OverviewLineage, SessionOverview } from '../../src/shared/overviewTypes';
import { recordedReport } from '../../src/analysis/recordedReport';
import { loadRecorded } from '../../src/transcripts/recordedFiles';
import { FOREIGN_FILES } from '../support/foreignFixtures';
import type { InspectorIndex } from '../../src/shared/messages';

const index = (requestCount: number, breaks: Record<string, number>, errors = 0): InspectorIndex =>
  ({ requestCount, summary: { breaks, compactions: breaks.compression ?? 0, findings: { error: errors, warning: 0, info: 0 } } }) as unknown as InspectorIndex;

describe('the status bar', () => {
  it('says cache-stable only for a file with requests, no break to look into and no error', () => {
    assert.equal(statusOf(index(3, {})).text, '$(pass) cache-stable');
    assert.equal(statusOf(index(0, {})).text, '$(info) no requests');
    assert.equal(statusOf(index(0, {}, 2385)).text, '$(error) 2,385 errors');
    assert.equal(statusOf(index(5, {}, 1)).text, '$(error) 1 error');
  });

  it('counts breaks to look into, not the re-billing of compactions and rewinds, which the tooltip names apart', () => {
    const s = statusOf(index(60000, { compression: 3, rewind: 1, 'sidecar-dropped': 2, 'system-changed': 1 }));
    assert.equal(s.text, '$(warning) 3 cache breaks');
    assert.equal(
      s.tooltip,
      'Prompt Inspector: 60,000 requests, 3 cache breaks to look into (1 system-prompt change); 3 compactions and 1 rewind re-billed by design. Click to jump to the next break.',
    );
    const calm = statusOf(index(12, { compression: 3 }));
    assert.equal(calm.text, '$(pass) cache-stable');
    assert.equal(calm.tooltip, 'Prompt Inspector: 12 requests, 0 cache breaks to look into; 3 compactions re-billed by design.');
  });
});

describe('the status bar on a file only listed, its rows filled in', () => {
  const row = (requests: number | null, cacheBreaks: number | null, errors: number | null, children: OverviewLineage[] = []): OverviewLineage =>
    ({ requests, cacheBreaks, errors, compactions: requests === null ? null : 1, children }) as OverviewLineage;
  const overview = (...lineages: OverviewLineage[]) => ({ read: false, lineages }) as SessionOverview;

  it("sums the filled rows' figures, forks included, and says how many of the lineages were read", () => {
    const all = statusOfOverview(overview(row(40000, 2, 0, [row(10, 1, 0)]), row(5, 0, 3)));
    assert.equal(all.text, '$(warning) 3 cache breaks');
    assert.equal(
      all.tooltip,
      'Prompt Inspector: all 3 lineages read, 40,015 requests, 3 cache breaks to look into; 3 compactions re-billed by design; 3 errors in the findings. Open a lineage to step through its breaks.',
    );
    assert.equal(statusOfOverview(overview(row(4, 0, 2), row(1, 0, 0))).text, '$(error) 2 errors');
    assert.equal(statusOfOverview(overview(row(4, 0, 0), row(1, 0, 0))).text, '$(pass) cache-stable');
  });

  it('counts only the rows filled in when the filling was cancelled, and then never says cache-stable', () => {
    const some = statusOfOverview(overview(row(7, 0, 0), row(null, null, null)));
    assert.equal(some.text, '$(info) 1 of 2 lineages read');
    assert.match(some.tooltip, /^Prompt Inspector: 1 of 2 lineages read, 7 requests,/);
    assert.equal(statusOfOverview(overview(row(7, 1, 0), row(null, null, null))).text, '$(warning) 1 cache break');
    assert.equal(statusOfOverview(overview(row(null, null, null))).text, '$(info) 0 of 1 lineage read');
  });
});

describe("the status bar on another agent's transcript", { skip: !FOREIGN_FILES.present && 'the foreign fixtures are not there' }, () => {
  const status = (path: string) => statusOfRecorded(recordedReport(loadRecorded(path)!));
  it("names the unexplained misses first, else the calls and the cache's share, never cache-stable", () => {
    assert.equal(status(FOREIGN_FILES.codexRollout).text, '$(warning) 17 unexplained misses');
    const spotter = status(FOREIGN_FILES.spotter);
    assert.equal(spotter.text, '$(info) 221 calls, 98% from the cache');
    assert.equal(spotter.tooltip, 'Prompt Inspector: 221 recorded calls, 1 cache miss (0 unexplained), 0 cache breaks.');
  });
});
