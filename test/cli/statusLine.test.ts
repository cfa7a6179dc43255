// The CLI's progress line (src/cli/statusLine.ts) with a fake clock and writer: nothing for quick
// work, then one line redrawn in place a few times a second, cut to the terminal, taken away.
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { StatusLine } from '../../src/cli/statusLine';

const ERASE = '\r\x1b[K';

describe('progress line', () => {
  it('nothing in the first 300 ms; then drawn in place, at most every 100 ms, the latest text', () => {
    let now = 1000;
    const written: string[] = [];
    const line = new StatusLine(
      (s) => written.push(s),
      80,
      () => now,
    );
    line.show('reading');
    now += 299;
    line.show('replaying');
    assert.deepEqual(written, []);
    now += 1;
    line.show('1 of 9 requests');
    assert.deepEqual(written, [`${ERASE}1 of 9 requests`]);
    now += 50;
    line.show('2 of 9 requests');
    assert.equal(written.length, 1, 'within 100 ms of the last draw');
    now += 50;
    line.show('3 of 9 requests');
    assert.deepEqual(written.slice(1), [`${ERASE}3 of 9 requests`]);
    line.clear();
    assert.deepEqual(written.slice(2), [ERASE]);
    line.clear();
    assert.equal(written.length, 3, 'nothing to take away twice');
  });

  it('a line never wraps: cut to the width in cells with an ellipsis', () => {
    let now = 0;
    const written: string[] = [];
    const line = new StatusLine(
      (s) => written.push(s),
      10,
      () => now,
    );
    now = 500;
    line.show('a'.repeat(30));
    assert.deepEqual(written, [`${ERASE}${'a'.repeat(8)}…`]);
    // Wide characters take two cells each: four of them and the ellipsis fill nine.
    now = 700;
    line.show('中'.repeat(10));
    assert.deepEqual(written.slice(1), [`${ERASE}${'中'.repeat(4)}…`]);
  });

  it('work that awaits (a file being read) is shown by a timer; quick work that ends first shows nothing', () => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'] });
    try {
      const written: string[] = [];
      const slow = new StatusLine((s) => written.push(s), 80);
      slow.show('big.db: reading');
      mock.timers.tick(299);
      assert.deepEqual(written, []);
      mock.timers.tick(1);
      assert.deepEqual(written, [`${ERASE}big.db: reading`]);
      slow.clear();

      const quick: string[] = [];
      const fast = new StatusLine((s) => quick.push(s), 80);
      fast.show('small.json: reading');
      mock.timers.tick(100);
      fast.clear();
      mock.timers.tick(1000);
      assert.deepEqual(quick, [], 'cleared before it was due: never drawn, nothing erased');
    } finally {
      mock.timers.reset();
    }
  });
});
