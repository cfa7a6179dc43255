// The words a long analysis is told in, the same on the CLI's status line and in VS Code's notification.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { progressText } from '../../src/shared/shownText';

it('says each step of a long analysis, counts with thousands separators, lineages from 1, rows filled in', () => {
  assert.deepEqual(
    [
      progressText('read', 0, 1),
      progressText('replay', 0, 1),
      progressText('requests', 1024, 20000),
      progressText('lineages', 0, 2000),
      progressText('rows', 1016, 7334),
    ],
    ['reading', 'replaying', '1,024 of 20,000 requests measured', 'lineage 1 of 2,000 for the report', '1,016 of 7,334 rows filled in'],
  );
});
