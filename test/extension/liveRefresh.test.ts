// Live refresh's rules (src/extension/liveRefresh.ts): what a changed file stands for, the throttle
// that follows a busy writer, and the findings held back while a writer is mid-line.
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { heldBack, KeyedThrottle, refreshTargetPath } from '../../src/extension/liveRefresh';

describe('live refresh', () => {
  it('refreshes the database for its WAL, the home’s state.db for its agent.log and rotations, any other file itself', () => {
    assert.equal(refreshTargetPath('/w/home/state.db-wal'), '/w/home/state.db');
    assert.equal(refreshTargetPath('/w/home/logs/agent.log'), '/w/home/state.db');
    assert.equal(refreshTargetPath('/w/home/logs/agent.log.3'), '/w/home/state.db');
    assert.equal(refreshTargetPath('/w/home/sessions/session_x.json'), '/w/home/sessions/session_x.json');
    assert.equal(refreshTargetPath('/w/home/logs/agent.log.bak'), '/w/home/logs/agent.log.bak', 'not a rotation');
    assert.equal(refreshTargetPath('/w/home/agent.log'), '/w/home/agent.log', 'a log outside logs/ is no home’s');
  });

  it('fires once per key per burst, however often it is touched, and again for a later burst; nothing after dispose', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const fired: string[] = [];
      const throttle = new KeyedThrottle(250, (key) => fired.push(key));
      // A writer appending every 4 ms for 400 ms.
      for (let i = 0; i < 100; i++) {
        throttle.touch('a');
        mock.timers.tick(4);
      }
      assert.deepEqual(fired, ['a'], 'a: once, 250 ms after its first touch, while it was still being touched');
      throttle.touch('b');
      mock.timers.tick(250);
      assert.deepEqual(fired, ['a', 'a', 'b'], 'the touches after the first firing are a burst of their own');
      mock.timers.tick(1000);
      assert.deepEqual(fired, ['a', 'a', 'b'], 'quiet keys do not fire');
      throttle.touch('c');
      throttle.dispose();
      mock.timers.tick(1000);
      assert.deepEqual(fired, ['a', 'a', 'b']);
    } finally {
      mock.timers.reset();
    }
  });

  it('holds back findings where the file ends while the file changed within the quiet time, and says when to look again', () => {
    const findings = [{ code: 'parse-error', atEnd: true }, { code: 'notes-lost' }];
    assert.deepEqual(heldBack(findings, 10_000, 11_000, 2000), { shown: [findings[1]], recheckInMs: 2000 });
    assert.deepEqual(heldBack(findings, 10_000, 12_000, 2000), { shown: findings, recheckInMs: null }, 'quiet for 2 s: all shown');
    assert.deepEqual(heldBack([findings[1]], 10_000, 10_500, 2000), { shown: [findings[1]], recheckInMs: null }, 'nothing to hold');
  });
});
