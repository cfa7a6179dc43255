// Live transcripts: analyses never pile up behind a writer. The scheduling the extension's
// AnalysisCache uses (src/extension/onePerFile.ts), driven in Node by a simulated writer and views
// on a mocked clock: the counts are exact, whatever the machine's load.

import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { OnePerFile } from '../../src/extension/onePerFile';

/** Every promise chain the due timers start runs to its next wait (setImmediate stays real). */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Moves the mocked clock on by `ms`, a millisecond at a time, letting what each tick wakes run. */
async function advance(ms: number): Promise<void> {
  for (let i = 0; i < ms; i++) {
    mock.timers.tick(1);
    await settle();
  }
}

describe('one analysis per file in flight', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout'] }));
  afterEach(() => mock.timers.reset());

  it('a writer changing the file every 5 ms for 1 s: never two analyses at once, one follow-up per run', async () => {
    const ANALYSIS_MS = 40;
    let running = 0;
    let mostAtOnce = 0;
    let started = 0;
    let finished = 0;
    const analyse = async (): Promise<number> => {
      started++;
      running++;
      mostAtOnce = Math.max(mostAtOnce, running);
      await sleep(ANALYSIS_MS);
      running--;
      return ++finished;
    };
    // As the extension wires it: a dropped result makes every view ask again at once.
    const views = 3;
    let shown = 0;
    const slots: OnePerFile<number> = new OnePerFile(
      (file) => {
        for (let v = 0; v < views; v++)
          void slots.get(file, 'k', analyse).then((n) => {
            shown = Math.max(shown, n);
          });
      },
      () => assert.fail('nothing was replaced'),
    );
    const first = slots.get('f', 'k', analyse);
    await advance(ANALYSIS_MS);
    await first;
    const changes = 200;
    const wrote = changes * 5;
    for (let i = 0; i < changes; i++) {
      slots.invalidate('f');
      await advance(5);
    }
    // The writer stopped: the last change is taken up, and then all is quiet.
    await advance(3 * ANALYSIS_MS);
    assert.equal(mostAtOnce, 1, 'never two analyses of the file at once');
    assert.equal(running, 0);
    // One analysis per ANALYSIS_MS of writing, plus the first and the final follow-up.
    const bound = Math.ceil(wrote / ANALYSIS_MS) + 2;
    assert.ok(started <= bound && started >= bound - 1, `${started} analyses for ${changes} changes (bound ${bound})`);
    assert.equal(shown, finished, 'the views end on the newest analysis');
    const last = await slots.get('f', 'k', analyse);
    assert.equal(last, finished, 'no analysis started once the file is quiet');
    process.stdout.write(`live: ${changes} changes in ${Math.round(wrote)} ms -> ${started} analyses, at most ${mostAtOnce} in flight\n`);
  });

  it('a change after the run ended drops the result at once; other settings replace it', async () => {
    const dropped: string[] = [];
    const replaced: string[] = [];
    const slots = new OnePerFile<string>(
      (f) => dropped.push(f),
      (k) => replaced.push(k),
    );
    assert.equal(await slots.get('a', 'k1', async () => 'one'), 'one');
    assert.equal(await slots.get('a', 'k1', async () => 'two'), 'one', 'cached');
    slots.invalidate('a');
    assert.deepEqual(dropped, ['a']);
    assert.equal(await slots.get('a', 'k1', async () => 'three'), 'three');
    assert.equal(await slots.get('a', 'k2', async () => 'four'), 'four');
    assert.deepEqual(replaced, ['k1']);
    slots.invalidate('unknown');
    assert.deepEqual(dropped, ['a']);
  });

  it('a failed analysis is dropped on the next change like any other', async () => {
    const dropped: string[] = [];
    const slots = new OnePerFile<string>(
      (f) => dropped.push(f),
      () => undefined,
    );
    const failing = slots.get('a', 'k', async () => {
      await sleep(10);
      throw new Error('unreadable');
    });
    slots.invalidate('a');
    await advance(10);
    await assert.rejects(failing, /unreadable/);
    await settle();
    assert.deepEqual(dropped, ['a'], 'the change during the failed run is taken up');
  });

  it('a cancelled analysis is forgotten without a word: the next get starts anew, a change meanwhile asks for nothing', async () => {
    const dropped: string[] = [];
    const slots = new OnePerFile<string>(
      (f) => dropped.push(f),
      () => undefined,
    );
    const cancelled = slots.get('a', 'k', async () => {
      await sleep(10);
      throw new Error('cancelled');
    });
    assert.equal(slots.keyOf('a'), 'k', 'a run in flight has its key');
    slots.forget('a');
    assert.equal(slots.keyOf('a'), undefined);
    slots.invalidate('a');
    await advance(10);
    await assert.rejects(cancelled, /cancelled/);
    await settle();
    assert.deepEqual(dropped, [], 'nobody told to ask again');
    assert.equal(await slots.get('a', 'k', async () => 'anew'), 'anew');
  });
});

describe("a file's current result (what fills a listed overview's rows in asks)", () => {
  it('is the one asked for until the file changes, while it runs or after; then the next one asked for', async () => {
    const slots = new OnePerFile<string>(
      () => undefined,
      () => undefined,
    );
    let finish: (v: string) => void = () => undefined;
    const first = slots.get('a', 'ka', () => new Promise((resolve) => (finish = resolve)));
    assert.equal(slots.current('a'), first, 'running');
    slots.invalidate('a');
    assert.equal(slots.current('a'), undefined, 'changed while it runs');
    finish('a1');
    await first;
    await settle();
    const second = slots.get('a', 'ka', async () => 'a2');
    assert.notEqual(second, first);
    await second;
    await settle();
    assert.equal(slots.current('a'), second, 'settled, the file unchanged');
    slots.invalidate('a');
    assert.equal(slots.current('a'), undefined, 'changed after it ended');
    assert.equal(slots.current('b'), undefined, 'a file never asked for');
  });
});

describe('an analysis lives as long as a view holds it', () => {
  it('closing the last view of a file frees its analysis once another file was used since', async () => {
    const freed: string[] = [];
    const slots = new OnePerFile<string>(
      () => undefined,
      (key) => freed.push(key),
    );
    const first = slots.hold('a');
    const second = slots.hold('a');
    await slots.get('a', 'ka', async () => 'a');
    first.dispose();
    first.dispose();
    await slots.get('b', 'kb', async () => 'b');
    assert.deepEqual(freed, [], 'a is still held by its second view');
    second.dispose();
    // The one last used is kept (the tree may read it again); a is older than b.
    assert.deepEqual(freed, ['ka']);
    assert.deepEqual(slots.files(), ['b']);
    await slots.get('c', 'kc', async () => 'c');
    assert.deepEqual(freed, ['ka', 'kb']);
    assert.equal(await slots.get('a', 'ka', async () => 'a again'), 'a again', 'a freed result is analysed anew');
  });

  it('a held file is never freed, however many others are used', async () => {
    const freed: string[] = [];
    const slots = new OnePerFile<string>(
      () => undefined,
      (key) => freed.push(key),
      0,
    );
    slots.hold('a');
    await slots.get('a', 'ka', async () => 'a');
    for (const f of ['b', 'c', 'd']) await slots.get(f, `k${f}`, async () => f);
    await settle();
    assert.deepEqual(freed, ['kb', 'kc', 'kd']);
    assert.deepEqual(slots.files(), ['a']);
  });

  it('a run in flight is freed only when it ends, and an outdated result nobody asks for again is freed too', async () => {
    const freed: string[] = [];
    const changed: string[] = [];
    const slots = new OnePerFile<string>(
      (f) => changed.push(f),
      (key) => freed.push(key),
      0,
    );
    let finish: (v: string) => void = () => undefined;
    const running = slots.get('a', 'ka', () => new Promise((resolve) => (finish = resolve)));
    await slots.get('b', 'kb', async () => 'b');
    await settle();
    assert.deepEqual(freed, ['kb'], 'a is running: the worker is still writing it');
    const held = slots.hold('b');
    await slots.get('b', 'kb', async () => 'b');
    slots.invalidate('b');
    assert.deepEqual(changed, ['b']);
    finish('a');
    await running;
    await settle();
    assert.deepEqual(freed, ['kb', 'ka']);
    held.dispose();
    // b's result is outdated and nobody asked again: the worker's copy goes all the same.
    assert.deepEqual(freed, ['kb', 'ka', 'kb']);
  });
});
