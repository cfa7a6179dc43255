// The webview's pure parts in plain Node: stepping and restoring the selection, cutting text into
// highlighted runs, paging message bodies, and the roving keys.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MessageView } from '../../src/shared/messages';
import { restore, revealed, selectRequest, step } from '../../webview/navigation';
import { Pages } from '../../webview/pages';
import { roveTo } from '../../webview/roving';
import { changedRange, collapsePoint, segment } from '../../webview/segments';
import { index } from '../support/webviewIndex';

describe('webview selection', () => {
  const x = index([2, 3, 1], [2, 5]);

  it('steps turns to their first request, opened at the turn\u2019s user message, and stops at the ends', () => {
    const start = restore(x, null);
    assert.deepEqual(start, { turn: 0, request: 0, firstVisibleMessage: 1 });
    assert.deepEqual(step(x, start, 'nextTurn'), { turn: 1, request: 2, firstVisibleMessage: 3 });
    assert.equal(step(x, start, 'previousTurn'), start);
    const last = selectRequest(x, 5);
    assert.equal(step(x, last, 'nextRequest'), last);
    assert.deepEqual(step(x, last, 'previousRequest'), { turn: 1, request: 4, firstVisibleMessage: 3 });
  });

  it('reveals a tree click: a break at its differing message, a turn at its user message, else the first turn', () => {
    assert.deepEqual(revealed(x, 1, 2), { turn: 1, request: 2, firstVisibleMessage: 1 });
    assert.deepEqual(revealed(x, 2, null), { turn: 2, request: 5, firstVisibleMessage: 5 });
    assert.deepEqual(revealed(x, null, null), { turn: 0, request: 0, firstVisibleMessage: 1 });
    assert.deepEqual(revealed(x, 1, 99), { turn: 1, request: 2, firstVisibleMessage: 3 }, 'a request the scope lacks: the turn');
  });

  it('cycles through the breaks with nextBreak', () => {
    let at = restore(x, null);
    const seen: number[] = [];
    for (let i = 0; i < 3; i++) {
      at = step(x, at, 'nextBreak');
      seen.push(at.request);
    }
    assert.deepEqual(seen, [2, 5, 2]);
    assert.equal(at.firstVisibleMessage, 1, 'a break opens at the first message that differs, not at the user row');
    const calm = index([2]);
    const s = restore(calm, null);
    assert.equal(step(calm, s, 'nextBreak'), s);
  });

  it('does not count a compaction\u2019s re-billing as a cache break, nor stop there on nextBreak', () => {
    const m = index([2, 2, 2], [4], [2]);
    assert.equal(m.breakCount, 1);
    assert.deepEqual(
      [0, 1, 2].map((t) => m.broken(t)),
      [false, false, true],
    );
    assert.deepEqual(
      [1, 2, 4].map((r) => m.status(r)),
      ['stable', 'compaction', 'break'],
    );
    assert.equal(m.request(2)?.compaction, true);
    let at = restore(m, null);
    at = step(m, at, 'nextBreak');
    assert.equal(at.request, 4);
    assert.equal(step(m, at, 'nextBreak'), at, 'the only break: nowhere else to go');
  });

  it('keeps a saved place that still exists and moves one that does not', () => {
    assert.deepEqual(restore(x, { turn: 1, request: 3, firstVisibleMessage: 7 }), { turn: 1, request: 3, firstVisibleMessage: 7 });
    assert.deepEqual(restore(x, { turn: 1, request: 3, firstVisibleMessage: 999 }), { turn: 1, request: 3, firstVisibleMessage: 12 });
    assert.deepEqual(restore(x, { turn: 9, request: 99, firstVisibleMessage: 0 }), { turn: 2, request: 5, firstVisibleMessage: 5 });
    assert.deepEqual(restore(x, { turn: 0, request: 4, firstVisibleMessage: 0 }), { turn: 0, request: 0, firstVisibleMessage: 1 }, 'request of another turn');
    assert.deepEqual(restore(index([]), null), { turn: 0, request: -1, firstVisibleMessage: 0 });
  });

  it('finds the requests whose system prompt changed', () => {
    assert.deepEqual(x.systemChanges(), [3, 4]);
  });
});

describe('webview text runs', () => {
  it('marks spans with their kind and the chip at each span\u2019s start', () => {
    const text = 'hello\n\n<memory-context>m</memory-context>\n\nWorkspace: w';
    const mem = { kind: 'memory' as const, start: 7, end: 41 };
    const plug = { kind: 'plugin' as const, start: 43, end: text.length };
    const runs = segment(text, [plug, mem], changedRange('hello', text));
    assert.deepEqual(
      runs.map((r) => [r.text, r.kind, r.spanStart, r.changed]),
      [
        ['hello', null, false, false],
        ['\n\n', null, false, true],
        ['<memory-context>m</memory-context>', 'memory', true, true],
        ['\n\n', null, false, true],
        ['Workspace: w', 'plugin', true, true],
      ],
    );
    assert.equal(runs.map((r) => r.text).join(''), text);
  });

  it('cuts at a limit, inside a span too', () => {
    const runs = segment('abcdef', [{ kind: 'plugin', start: 2, end: 6 }], null, 4);
    assert.deepEqual(
      runs.map((r) => r.text),
      ['ab', 'cd'],
    );
    assert.equal(runs[1].spanStart, true);
  });

  it('finds what differs between stored and sent text', () => {
    assert.deepEqual(changedRange('abc', 'abc + notes'), [3, 11]);
    assert.deepEqual(changedRange('', '[interrupted]'), [0, 13]);
    assert.deepEqual(changedRange('a-x-b', 'a-yy-b'), [2, 4]);
    assert.equal(changedRange('same', 'same'), null);
    assert.deepEqual(changedRange('aa', 'aaa'), [2, 3], 'a repeated character is an append, not a change in the middle');
  });

  it('collapses after 20 lines or the character cap', () => {
    const lines = Array.from({ length: 30 }, (_, i) => `l${i}`).join('\n');
    assert.equal(lines.slice(0, collapsePoint(lines, 20, 10_000)).split('\n').length, 20);
    assert.equal(collapsePoint('short', 20, 10_000), 5);
    assert.equal(collapsePoint('x'.repeat(50), 20, 10), 10);
  });
});

describe('webview message pages', () => {
  const view = (i: number): MessageView => ({
    index: i,
    role: 'user',
    text: `m${i}`,
    tokens: 1,
    roughTokens: 1,
    substitution: null,
    storedText: null,
    injected: [],
    toolCalls: [],
    toolCallId: null,
  });

  it('asks each page once, serves it, and refetches after an update while showing the old copy', async () => {
    const asked: number[] = [];
    let changes = 0;
    const pages = new Pages<MessageView>(async (_r, start, count) => {
      asked.push(start);
      return Array.from({ length: count }, (_, k) => view(start + k));
    }, 10);
    pages.onChange(() => changes++);
    pages.ensure(0, 0, 25);
    pages.ensure(0, 5, 15);
    assert.deepEqual(asked, [0, 10, 20]);
    assert.equal(pages.get(0, 3), 'loading');
    await new Promise((ok) => setImmediate(ok));
    assert.equal((pages.get(0, 13) as MessageView).text, 'm13');
    assert.equal(changes, 3);
    pages.invalidate();
    assert.equal((pages.get(0, 13) as MessageView).text, 'm13', 'stale copy meanwhile');
    pages.ensure(0, 13, 13);
    assert.deepEqual(asked, [0, 10, 20, 10]);
  });

  it('keeps a failed page as an error until retried, and drops answers from before an update', async () => {
    let fail = true;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((ok) => {
      release = ok;
    });
    const pages = new Pages<MessageView>(async (r, start) => {
      if (r === 1) {
        await gate;
        return [view(99)];
      }
      if (fail) throw new Error('host went away');
      return [view(start)];
    }, 10);
    pages.ensure(0, 0, 0);
    await new Promise((ok) => setImmediate(ok));
    assert.equal((pages.get(0, 0) as Error).message, 'host went away');
    fail = false;
    pages.retry(0, 0);
    await new Promise((ok) => setImmediate(ok));
    assert.equal((pages.get(0, 0) as MessageView).text, 'm0');

    pages.ensure(1, 0, 0);
    pages.invalidate();
    release();
    await new Promise((ok) => setImmediate(ok));
    assert.equal(pages.get(1, 0), 'loading', 'an answer to a request made before the update is ignored');
  });
});

describe('roving keys', () => {
  it('moves a page with PageUp and PageDown when given one, stopping at the ends', () => {
    const key = (k: string) => {
      let prevented = false;
      const e = {
        key: k,
        preventDefault: () => {
          prevented = true;
        },
      };
      return { e, prevented: () => prevented };
    };
    assert.equal(roveTo(key('PageDown').e, 'vertical', 100, 10, 20), 30);
    assert.equal(roveTo(key('PageDown').e, 'vertical', 100, 90, 20), 99);
    assert.equal(roveTo(key('PageUp').e, 'vertical', 100, 10, 20), 0);
    const atTop = key('PageUp');
    assert.equal(roveTo(atTop.e, 'vertical', 100, 0, 20), undefined);
    assert.ok(atTop.prevented(), 'taken at the end too, so the page does not scroll');
    // Without a page size the keys are not the set's.
    const free = key('PageDown');
    assert.equal(roveTo(free.e, 'vertical', 100, 10), undefined);
    assert.ok(!free.prevented());
    assert.equal(roveTo(key('ArrowDown').e, 'vertical', 100, 99, 20), undefined);
  });
});
