// The inspector webview in real Chromium, with the host side of the protocol played by the real
// engine on the bundled examples (see test/support/webviewHarness.ts). DOM reads go through Playwright's CSS engine,
// which pierces the components' open shadow roots.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildIndex, type Inspection } from '../../src/protocol/inspection';
import { PROTOCOL_VERSION, type MessageView, type RequestView, type TurnView, type UiState, type ViewState } from '../../src/shared/messages';
import { usd } from '../../src/shared/shownText';
import { buildStore } from '../support/upstreamStores';
import { eventually, example, Harness, inspect, SHOTS, type HostData, type Theme, type View } from '../support/webviewHarness';

const SIDECARS = example('sidecars/session_20260918_101500_a1b2c3.json');
const ROTATION = example('rotation/state.db');
const TRACE = example('trace/agent.trace.jsonl');

/** A selection in a file of one lineage, as the host hands it back. */
const at = (ui: UiState): ViewState => ({ lineage: null, ui, overview: null });

const selectedTurn = (v: View): Promise<string | null> => v.page.locator('turn-stepper [role=option][aria-selected=true]').getAttribute('id', { timeout: 500 });
const selectedRequest = (v: View): Promise<string | null> =>
  v.page.locator('request-bar [role=tab][aria-selected=true]').getAttribute('data-request', { timeout: 500 });

async function expectSelection(v: View, turn: number, request: number): Promise<void> {
  // The turn list renders only the rows in view: in the narrow layout the page may have scrolled it away.
  await v.page.locator('turn-stepper').scrollIntoViewIfNeeded();
  await eventually(async () => {
    assert.equal(await selectedTurn(v), `turn-${turn}`);
    assert.equal(await selectedRequest(v), String(request));
    const last = v.sent('selected').at(-1)?.state.ui;
    assert.equal(last?.turn, turn);
    assert.equal(last?.request, request);
  }, `selection turn ${turn} request ${request}`);
}

/** Nothing went wrong in the page: no errors or warnings, no CSP violation, no outside request. */
async function assertClean(v: View): Promise<void> {
  assert.deepEqual(v.console, [], 'console errors or warnings');
  assert.deepEqual(await v.cspViolations(), [], 'CSP violations');
  assert.deepEqual(v.foreignRequests, [], 'requests outside the local origin');
}

/** Waits until the page has posted nothing new for a while (debounced scroll reports included). */
async function quiet(v: View): Promise<void> {
  let seen = -1;
  while (seen !== v.received.length) {
    seen = v.received.length;
    await new Promise((ok) => setTimeout(ok, 600));
  }
}

/** A message row by wire index. */
const row = (v: View, index: number) => v.page.locator('message-view').filter({ has: v.page.locator(`.idx:text-is("#${index}")`) });

describe('inspector webview (Chromium, real engine as host)', () => {
  let h: Harness;
  let v0: Inspection;

  before(async () => {
    h = await Harness.start();
    v0 = await inspect(SIDECARS, 'hermes-v0', 'session_20260918_101500_a1b2c3.json');
  });
  after(async () => {
    await h?.close();
  });

  it('handshakes once, then steps through turns and requests by keyboard, clicks and host commands', async () => {
    const v = await h.open(v0);
    try {
      assert.deepEqual(v.sent('ready'), [{ type: 'ready', version: PROTOCOL_VERSION }]);
      await expectSelection(v, 0, 0);
      // The header names the file once; its full path is the title's tooltip, not a second line.
      const h1 = v.page.locator('summary-header h1');
      assert.equal(await h1.getAttribute('title'), v0.index.source.path);
      assert.ok(!(await v.page.locator('summary-header').innerText()).includes(v0.index.source.path));
      // A file of one lineage has no overview: no way back to one, and Backspace asks the host nothing.
      assert.equal(await v.page.locator('session-overview, summary-header button.back').count(), 0);
      await v.page.keyboard.press('Backspace');
      assert.deepEqual(
        v.sent('request').filter((m) => m.method === 'openLineage'),
        [],
      );

      await v.page.keyboard.press('j');
      await expectSelection(v, 1, 2);
      await v.page.keyboard.press('n');
      await expectSelection(v, 1, 3);
      await v.page.keyboard.press('Shift+K');
      await expectSelection(v, 1, 2);
      await v.page.keyboard.press('Shift+J');
      await v.page.keyboard.press('Shift+J');
      await expectSelection(v, 2, 4);
      await v.page.keyboard.press('k');
      await expectSelection(v, 1, 2);
      await v.page.keyboard.press('p');
      await expectSelection(v, 0, 1);
      // Bare arrows step turns while nothing else has focus.
      await v.page.keyboard.press('ArrowDown');
      await expectSelection(v, 1, 2);

      // b cycles through the cache breaks of hermes-v0: requests 2, 4, 8, 9, then 2 again.
      const breaks = v0.requests.filter((r) => !r.stable).map((r) => r.index);
      assert.deepEqual(breaks, [2, 4, 8, 9]);
      for (const r of [4, 8, 9, 2]) {
        await v.page.keyboard.press('b');
        await expectSelection(v, v0.requests[r].turn, r);
      }

      // The host's own keybindings arrive as navigate messages.
      await v.send({ type: 'navigate', to: 'nextTurn' });
      await expectSelection(v, 2, 4);
      await v.send({ type: 'navigate', to: 'nextBreak' });
      await expectSelection(v, 3, 8);
      await v.send({ type: 'navigate', to: 'previousRequest' });
      await expectSelection(v, 2, 7);
      await v.send({ type: 'navigate', to: 'previousTurn' });
      await expectSelection(v, 1, 2);
      await v.send({ type: 'navigate', to: 'nextRequest' });
      await expectSelection(v, 1, 3);
      assert.match(await v.page.locator('[data-announcement]').innerText(), /Turn 1 of 5: run the importer tests\. Request #3, stable prefix\./);

      // Arrow keys inside the turn listbox move the selection and focus together.
      await v.page.locator('turn-stepper #turn-1').focus();
      await v.page.keyboard.press('ArrowDown');
      await expectSelection(v, 2, 4);
      assert.equal(
        await v.page.locator('turn-stepper #turn-2').evaluate((e) => e === (e.getRootNode() as unknown as { activeElement: unknown }).activeElement),
        true,
      );
      await v.page.keyboard.press('End');
      await expectSelection(v, 4, 9);
      // The token chart is a slider over requests: arrows move along it, and it says where it is.
      const chart = v.page.locator('token-timeline svg');
      await chart.focus();
      await v.page.keyboard.press('ArrowRight');
      await expectSelection(v, 4, 10);
      await v.page.keyboard.press('Home');
      await expectSelection(v, 0, 0);
      assert.equal(await chart.getAttribute('role'), 'slider');
      assert.equal(await chart.getAttribute('aria-valuenow'), '0');
      assert.match((await chart.getAttribute('aria-valuetext')) ?? '', /^Request 0, turn 0: [\d,]+ input tokens, 0 reused/);

      // A bar of the token chart, a finding (Enter on it), a cell of the cache strip.
      const slot = Number(await chart.getAttribute('width')) / v.data.requests.length;
      await chart.click({ position: { x: 5 * slot + slot / 2, y: 60 } });
      await expectSelection(v, 2, 5);
      const finding = v.page.locator('findings-list li button').first();
      await finding.focus();
      await v.page.keyboard.press('Enter');
      await expectSelection(v, 1, 2);
      const strip = v.page.locator('cache-panel svg.cells');
      const perRow = Math.floor(Number(await strip.getAttribute('width')) / 12);
      await strip.click({ position: { x: (10 % perRow) * 12 + 6, y: Math.floor(10 / perRow) * 12 + 6 } });
      await expectSelection(v, 4, 10);

      await v.page.locator('request-bar vscode-button').click();
      await eventually(() => assert.deepEqual(v.sent('copyRequest'), [{ type: 'copyRequest', request: 10 }]));
      assert.equal(v.sent('ready').length, 1, 'ready is posted once');
      await assertClean(v);
    } finally {
      await v.close();
    }
  });

  it('highlights every injected span with its kind and shows stored vs sent for a sidecar row', async () => {
    const v1 = await inspect(SIDECARS, 'hermes-v1');
    const [, user] = v1.messages(0, 0, 2);
    const memory = user.injected.find((s) => s.kind === 'memory');
    assert.ok(memory && user.substitution === 'sidecar' && user.storedText);
    const v = await h.open(v1);
    try {
      const msg = row(v, 1);
      await msg.waitFor();
      const mark = msg.locator('mark[data-kind=memory]');
      assert.equal(await mark.count(), 1);
      const fence = user.text.slice(memory.start, memory.end);
      assert.ok(fence.startsWith('<memory-context>') && fence.trimEnd().endsWith('</memory-context>'));
      assert.equal(await mark.textContent(), fence);
      assert.equal(await msg.locator('.chip[data-kind=memory]').textContent(), 'memory');
      assert.equal(await msg.locator('mark[data-kind=plugin]').count(), 1);
      // The label chip sits right before its span.
      assert.equal(await mark.evaluate((m) => (m.previousElementSibling as unknown as { dataset: { kind: string } }).dataset.kind), 'memory');

      const sub = msg.locator('[data-substitution=sidecar]');
      assert.equal(await sub.locator('pre.stored').textContent(), user.storedText);
      assert.equal(await sub.locator('pre.sent mark[data-kind=memory]').count(), 1);
      assert.match(await sub.innerText(), /api_content sidecar: \d+ chars added/);
      assert.equal(await msg.locator('[data-badge=substitution]').textContent(), 'sidecar substituted');
      // The stored row is exactly where the sent text starts, unmarked.
      assert.ok((await sub.locator('pre.sent').textContent())?.startsWith(`${user.storedText}`));

      // A long message starts collapsed to 20 lines and opens in place.
      const [system] = v1.messages(0, 0, 1);
      const body = row(v, 0).locator('pre.text');
      const collapsed = (await body.textContent()) ?? '';
      assert.equal(collapsed, `${system.text.split('\n').slice(0, 20).join('\n')}…`);
      await row(v, 0).locator('button.more').click();
      await eventually(async () => assert.equal(await body.textContent(), system.text));
      assert.equal(await row(v, 0).locator('button.more').textContent(), 'Show less');
      await assertClean(v);
    } finally {
      await v.close();
    }
  });

  it('shows the rotation compaction: before → after, progress and its rule, gate branch, re-anchored index', async () => {
    const rot = await inspect(ROTATION, 'hermes-v1');
    const turn = rot.turns.find((t) => t.compression);
    assert.ok(turn?.compression);
    const c = turn.compression;
    const v = await h.open(rot);
    try {
      assert.equal(await v.page.locator('compaction-panel').count(), 0, 'no panel for a turn without compaction');
      assert.equal(await v.page.locator(`turn-stepper #turn-${turn.index} [data-badge=compaction]`).count(), 1);
      for (let i = 0; i < turn.index; i++) await v.page.keyboard.press('j');
      await expectSelection(v, turn.index, turn.requests[0]);
      const panel = v.page.locator('compaction-panel');
      const table = await panel.locator('table').innerText();
      assert.match(table, new RegExp(`rows\\s+${c.beforeMessages} → ${c.afterMessages}`));
      assert.match(table, /tokens\s+1,189 → 703\s+−486 \(−40\.9 %\)/);
      assert.equal(c.beforeTokens, 1189);
      assert.equal(await panel.locator('[data-progress]').getAttribute('data-progress'), c.madeProgress ? 'yes' : 'no');
      assert.match(await panel.locator('.rule').innerText(), /fewer rows, or rough tokens below 95 %/);
      assert.match(await panel.locator('[data-token-kinds]').innerText(), /Exact: counted with the tokenizer\. Rough: the agent’s own estimate/);
      assert.match(await panel.locator('dl').innerText(), new RegExp(`gate branch\\s+${c.gateBranch ?? 'not recorded'}`));
      const reanchor = await panel.locator('[data-reanchor]').innerText();
      assert.match(reanchor, new RegExp(`${c.reanchor.before} → ${c.reanchor.after} · rule ${c.reanchor.rule}`));
      assert.equal(`${c.reanchor.before} → ${c.reanchor.after} ${c.reanchor.rule}`, '22 → 9 exact');
      assert.match(reanchor, /content equals this turn’s user message/);
      assert.equal(await panel.locator('pre.carrier').textContent(), c.carrier);
      assert.equal(await panel.locator('ol li').count(), c.dropped.length);
      // The first request after the compaction re-bills by design: marked as the compaction's, not
      // as a cache break (REPORT.md: a prefix-break of cause compression is info).
      const status = v.page.locator('cache-panel [data-status]');
      assert.equal(await status.getAttribute('data-status'), 'compaction');
      assert.match(await status.innerText(), /a compaction replaced the history.*not a break to fix/);
      assert.equal(await v.page.locator(`turn-stepper #turn-${turn.index} [data-badge=break]`).count(), 0);
      assert.match(await v.page.locator('summary-header').evaluate((e) => (e.shadowRoot as unknown as { textContent: string }).textContent), /no cache breaks/);

      // The token chart's axis: request numbers under the bars, and a mark before each request
      // that came after a cache lifetime of idle (here #9 and #11, 7 and 25 minutes after the one before).
      const chart = v.page.locator('token-timeline svg');
      const slot = Number(await chart.getAttribute('width')) / rot.requests.length;
      const idle = rot.requests.filter((r) => r.previousRequest !== null && r.gapSeconds !== null && r.gapSeconds >= 300).map((r) => r.index);
      assert.deepEqual(idle, [9, 11]);
      const marks = [...((await chart.locator('path[data-long-gaps]').getAttribute('d')) ?? '').matchAll(/M([\d.]+) /g)].map((m) => Number(m[1]));
      assert.deepEqual(
        marks,
        idle.map((i) => i * slot + 0.5),
      );
      const ticks = await chart.locator('text.tick').allTextContents();
      assert.equal(ticks[0], '0');
      assert.ok(ticks.length >= 2, `request numbers along the axis: ${ticks.join(' ')}`);
      const step = Number(ticks[1]);
      assert.deepEqual(
        ticks.map(Number),
        Array.from({ length: ticks.length }, (_, i) => i * step),
      );
      assert.ok(step * slot >= 44, 'labels at least 44 px apart');
      assert.match(await v.page.locator('token-timeline .legend').innerText(), /5\+ min idle before it/);
      await assertClean(v);
    } finally {
      await v.close();
    }
  });

  it('shows where the selected request’s tokens go and where every request’s went, by category', async () => {
    const insp = await inspect(SIDECARS, 'hermes-current');
    const [first] = insp.page('requests', 0, 1);
    const total = insp.index.summary.categories;
    assert.ok(first.categories['tools/builtin'] > 0 && first.categories['notes/memory'] > 0);
    const v = await h.open(insp);
    try {
      const where = v.page.locator('cache-panel [data-where] category-bar');
      await where.locator('[data-categories] tr[data-category]').first().waitFor();
      // One row per category of the request, in the report's order, with its count.
      const rows = await where
        .locator('[data-categories] tr[data-category]')
        .evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-category'), tr.children[1].textContent]));
      assert.deepEqual(
        rows,
        Object.entries(first.categories).map(([k, n]) => [k, n.toLocaleString('en-US')]),
      );
      // Two stacked bars: this request's segments, then every request's together; widths follow the counts.
      const bars = where.locator('.bar');
      assert.equal(await bars.count(), 2);
      assert.equal(await bars.nth(0).locator('span').count(), Object.keys(first.categories).length);
      assert.equal(await bars.nth(1).locator('span').count(), Object.keys(total).length);
      const widths = await bars
        .nth(0)
        .locator('span')
        .evaluateAll((ss) => ss.map((s) => s.getBoundingClientRect().width));
      const sum = Object.values(first.categories).reduce((a, b) => a + b, 0);
      const barWidth = widths.reduce((a, b) => a + b, 0);
      const tools = Object.keys(first.categories).indexOf('tools/builtin');
      assert.ok(
        Math.abs(widths[tools] / barWidth - first.categories['tools/builtin'] / sum) < 0.02,
        `tool schemas take their share of the bar: ${widths.join(', ')}`,
      );
      assert.match(
        await where.locator('.label').first().innerText(),
        /^this request: [\d,]+ tokens by our count, [\d,]+ of them tool schemas \(not in its input count\)$/,
      );
      await assertClean(v);
    } finally {
      await v.close();
    }
  });

  it('says so when b has no cache break to go to, and stays where it was', async () => {
    const current = await inspect(SIDECARS, 'hermes-current', 'session_20260918_101500_a1b2c3.json');
    assert.equal(current.requests.filter((r) => !r.stable).length, 0, 'sidecar replay breaks nothing');
    const v = await h.open(current);
    try {
      await expectSelection(v, 0, 0);
      await v.page.keyboard.press('b');
      await v.page.locator('[data-notice]').waitFor();
      assert.match(await v.page.locator('[data-notice]').innerText(), /No cache breaks/);
      await expectSelection(v, 0, 0);
      await v.page.keyboard.press('j');
      await expectSelection(v, 1, current.turns[1].requests[0]);
      assert.equal(await v.page.locator('[data-notice]').count(), 0, 'gone with the next move');
      await assertClean(v);
    } finally {
      await v.close();
    }
  });

  it('never cuts a turn chip mid-word: one that does not fit is hidden whole, and the row names them all', async () => {
    const current = await inspect(SIDECARS, 'hermes-current', 'session_20260918_101500_a1b2c3.json');
    const v = await h.open(current);
    try {
      const stepper = v.page.locator('turn-stepper');
      await stepper.locator('.turn .meta').first().waitFor();
      // The turn list as wide as a side column squeezed by a narrow window, down to where chips no longer fit.
      for (const width of [250, 170, 140]) {
        await stepper.evaluate((e: any, w) => (e.style.width = `${w}px`), width);
        const rows = await stepper.locator('.turn .meta').evaluateAll((metas) =>
          metas.map((meta) => {
            const box = meta.getBoundingClientRect();
            const chips = [...meta.querySelectorAll('.chip')].map((c) => {
              const r = c.getBoundingClientRect();
              return { text: c.textContent ?? '', shown: r.top < box.bottom, whole: r.right <= box.right + 0.5 };
            });
            return { title: meta.getAttribute('title') ?? '', chips };
          }),
        );
        assert.ok(
          rows.some((r) => r.chips.length > 0),
          'some turn has chips',
        );
        for (const r of rows) {
          for (const c of r.chips) {
            assert.ok(!c.shown || c.whole, `${width} px: "${c.text}" is cut`);
            assert.ok(r.title.includes(c.text), `${width} px: the row's title names "${c.text}"`);
          }
        }
        if (width === 140)
          assert.ok(
            rows.some((r) => r.chips.some((c) => !c.shown)),
            'at 140 px a chip does not fit and is hidden whole',
          );
      }
      await assertClean(v);
    } finally {
      await v.close();
    }
  });

  it('names the first differing byte of a hermes-v0 break and shows both sides of it', async () => {
    const ctx = v0.breakContext(2);
    assert.ok(ctx && ctx.byteOffset === 58);
    const v = await h.open(v0);
    try {
      await v.page.keyboard.press('b');
      await expectSelection(v, 1, 2);
      const panel = v.page.locator('cache-panel');
      assert.equal(await panel.locator('[data-status]').getAttribute('data-status'), 'break');
      assert.match(await panel.locator('[data-status]').innerText(), /sidecar-not-replayed/);
      assert.equal((await panel.locator('[data-first-difference]').innerText()).replace(/\s+/g, ' '), 'message #1, byte 58 (UTF-8)');
      assert.equal(await panel.locator('[data-system]').getAttribute('data-system'), 'same');
      const prev = panel.locator('pre[data-side=prev]');
      await prev.waitFor();
      assert.equal(await prev.locator('.common').textContent(), ctx.before);
      // Whitespace in the difference is made visible: "\n" shows as "↵" + newline.
      assert.equal((await prev.locator('mark').textContent())?.replace(/\u21b5/g, ''), ctx.previousAfter);
      assert.equal(await panel.locator('pre[data-side=cur] .ends').textContent(), '(message ends here)');
      assert.match(await panel.locator('dl').innerText(), /396 reused \(63\.9 %\) · 224 re-billed · 620 input/);
      // When it went out, and how long after the previous request (the rows' times).
      assert.match(await panel.locator('[data-sent]').innerText(), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC · (\d+s|\d+m\d\ds) after request #1$/);
      // The message list marks the row where the prefix broke.
      await eventually(async () => assert.equal(await row(v, 1).getAttribute('break-here'), 'break'));
      await assertClean(v);
    } finally {
      await v.close();
    }
  });

  it('shows a system-prompt change: the hash differs from the previous request’s, marked in the strip', async () => {
    const changed = await inspect(example('rotation-prompt-changed/state.db'), 'hermes-v1');
    const r = changed.requests.find((q) => q.breakAt?.cause === 'system-changed');
    assert.ok(r?.breakAt && r.previousRequest !== null);
    const prevHash = changed.requests[r.previousRequest].systemPromptSha256;
    const v = await h.open(changed);
    try {
      await v.page.keyboard.press('b');
      await expectSelection(v, r.turn, r.index);
      const panel = v.page.locator('cache-panel');
      assert.equal(await panel.locator('[data-system]').getAttribute('data-system'), 'changed');
      assert.match(await panel.locator('[data-system]').innerText(), new RegExp(`≠ request #${r.previousRequest} \\(${prevHash.slice(0, 12)}\\)`));
      assert.equal(
        (await panel.locator('[data-first-difference]').innerText()).replace(/\s+/g, ' '),
        `message #0, byte ${r.breakAt.byteOffset?.toLocaleString('en-US')} (UTF-8)`,
      );
      assert.equal(await panel.locator('svg.cells').getAttribute('data-system-changes'), String(r.index), 'one mark, on this request');
      assert.equal(await panel.locator('path.hashmark').count(), 1);
      await panel.locator('pre[data-side=cur] mark').waitFor();
      await assertClean(v);
    } finally {
      await v.close();
    }
  });

  it('sets the bill beside the replay: billed figures, each miss with its class, the summary of both', async () => {
    // A home and its agent.log written as upstream writes them (hermes_store.py `billed`).
    const store = buildStore('billed');
    const billed = await inspect(store.stateDb, 'hermes-current');
    const summary = billed.index.summary.billing;
    assert.ok(summary && summary.logs === 2 && summary.matched > 10);
    const expired = billed.requests.find((q) => q.cacheMiss?.class === 'expired');
    const unexplained = billed.requests.find((q) => q.cacheMiss?.class === 'unexplained');
    const plain = billed.requests.find((q) => q.billed && !q.cacheMiss && q.previousRequest !== null && q.billed.cacheWrite !== null);
    assert.ok(expired?.billed && unexplained?.billed && plain?.billed);
    const v = await h.open(billed, { state: at({ turn: expired.turn, request: expired.index, firstVisibleMessage: 0 }) });
    try {
      await expectSelection(v, expired.turn, expired.index);
      const panel = v.page.locator('cache-panel');
      const b = expired.billed;
      assert.equal(
        await panel.locator('[data-billed]').innerText(),
        `${b.input?.toLocaleString('en-US')} prompt · ${b.cacheRead} read from the cache (0.0 %) · writes not logged · ${b.output} out`,
      );
      assert.equal(
        await panel
          .locator('[data-billed] > span')
          .getAttribute('title')
          .then((t) => t?.startsWith(`${b.source.file}:${b.source.line} · `)),
        true,
      );
      assert.equal(await panel.locator('[data-cache-miss]').getAttribute('data-cache-miss'), 'expired');
      const cost = expired.cost;
      assert.ok(cost && expired.cacheMiss?.extraUsd);
      assert.match(
        await panel.locator('[data-cost]').innerText(),
        new RegExp(`^\\${usd(cost.usd).replace('.', '\\.')} at input \\$3 · cache read \\$0\\.3 · cache write \\$3\\.75 · output \\$15 per million tokens`),
      );
      assert.ok((await panel.locator('[data-cache-miss]').innerText()).includes(`(${usd(expired.cacheMiss.extraUsd)} more than reading them)`));
      assert.match(
        await panel.locator('[data-cache-miss]').innerText(),
        /^expired [\d,]+ tokens of the previous prompt billed again \(\$0\.\d{4} more than reading them\) · idle \d+m\d\ds: longer than the cache's 5m00s lifetime$/,
      );
      const head = v.page.locator('summary-header [data-billing]');
      const misses = Object.values(summary.misses).reduce((n, k) => n + (k ?? 0), 0);
      assert.equal(
        await head.innerText(),
        `billed: ${summary.matched} of ${billed.index.requestCount} requests · ${usd(summary.usd)} · ${misses} cache misses (${summary.misses.unexplained} unexplained), ${usd(summary.missUsd)} more than hits`,
      );
      // The turn's cost in the stepper: its billed requests' costs summed.
      const turnCost = billed.turns[expired.turn].costUsd;
      assert.ok(turnCost !== null && turnCost >= cost.usd);
      assert.equal(await v.page.locator(`turn-stepper #turn-${expired.turn} [data-turn-cost]`).innerText(), usd(turnCost));
      // The timeline: each billed read drawn on its bar, coloured by the class of its miss, each
      // class in the legend; the selected request's label says its read and class.
      const chart = v.page.locator('token-timeline');
      const drawn = await chart
        .locator('[data-billed-read]')
        .evaluateAll((ps) => Object.fromEntries(ps.map((p) => [p.getAttribute('data-billed-read'), (p.getAttribute('d')?.match(/M/g) ?? []).length])));
      const byClass: Record<string, number> = {};
      for (const q of billed.requests)
        if (q.billed && q.billed.input && q.billed.cacheRead !== null) byClass[q.cacheMiss?.class ?? 'hit'] = (byClass[q.cacheMiss?.class ?? 'hit'] ?? 0) + 1;
      assert.deepEqual(drawn, byClass, 'one mark per billed request, by class');
      for (const c of Object.keys(summary.misses)) assert.equal(await chart.locator(`.legend .sw.${c}`).count(), 1, `legend: ${c}`);
      assert.match((await chart.locator('svg').getAttribute('aria-valuetext')) ?? '', /; billed cache read [\d,]+ in our tokens, a cache miss \(expired\)$/);
      await v.page.screenshot({ path: join(SHOTS, 'billed-expired-light.png') });

      // A request the provider read whole: its figures, no miss.
      await v.close();
      const w = await h.open(billed, { state: at({ turn: plain.turn, request: plain.index, firstVisibleMessage: 0 }) });
      try {
        await expectSelection(w, plain.turn, plain.index);
        const p = w.page.locator('cache-panel');
        assert.match(
          await p.locator('[data-billed]').innerText(),
          new RegExp(`^${plain.billed.input?.toLocaleString('en-US')} prompt · [\\d,]+ read from the cache \\([\\d.]+ %\\) · [\\d,]+ written · \\d+ out$`),
        );
        assert.equal(await p.locator('[data-cache-miss]').count(), 0);
        // Where the tokens go, set against the bill: our split scaled to the billed prompt, summing to it.
        const where = p.locator('[data-where] category-bar');
        await where.locator('[data-billed-share]').first().waitFor();
        const shares = await where.locator('[data-billed-share]').allInnerTexts();
        assert.equal(shares.length, Object.keys(plain.categories).length);
        assert.equal(
          shares.reduce((n, t) => n + Number(t.replace(/,/g, '')), 0),
          plain.billed.input,
        );
        assert.match(await where.locator('.label').first().innerText(), /tokens by our count.*; billed [\d,]+: each share scaled to the bill/);
        await assertClean(w);
      } finally {
        await w.close();
      }
    } finally {
      await v.close().catch(() => undefined);
    }
  });

  it('names the estimate a compaction was decided by, from the bill and the agent’s own preflight line', async () => {
    const store = buildStore('billed');
    const billed = await inspect(store.stateDb, 'hermes-current');
    const t = billed.turns.find((x) => x.compression?.estimate?.method === 'anchored');
    const e = t?.compression?.estimate;
    assert.ok(t && e?.anchor && e.logged && e.tokens !== null);
    const v = await h.open(billed, { state: at({ turn: t.index, request: t.requests[0], firstVisibleMessage: 0 }) });
    try {
      await expectSelection(v, t.index, t.requests[0]);
      const panel = v.page.locator('compaction-panel');
      await panel.waitFor({ state: 'visible' });
      assert.equal(
        (await panel.locator('[data-estimate]').innerText()).replace(/\s+/g, ' '),
        `anchored ~${e.tokens.toLocaleString('en-US')} — request #${e.anchor.request}’s billed ${e.anchor.input.toLocaleString('en-US')} prompt + ${e.anchor.output} completion tokens, plus the rough rows since · the agent logged ~${e.logged.tokens.toLocaleString('en-US')} ≥ ${e.logged.threshold.toLocaleString('en-US')} threshold`,
      );
      assert.match(await panel.locator('[data-gate]').innerText(), /^(count|chars) — /);
      await assertClean(v);
    } finally {
      await v.close();
    }
  });

  it('says the bill is not recorded where no agent.log was read', async () => {
    const ins = await inspect(example('rotation/state.db'), 'hermes-current');
    assert.equal(ins.index.summary.billing, null);
    const v = await h.open(ins);
    try {
      assert.equal(await v.page.locator('cache-panel [data-billed]').innerText(), 'not recorded: no agent.log read beside this transcript');
      assert.equal(await v.page.locator('summary-header [data-billing]').count(), 0);
      await assertClean(v);
    } finally {
      await v.close();
    }
  });

  it('marks the messages a request dump put a cache breakpoint on, naming the dump, and no others', async () => {
    // An Anthropic messages dump as upstream writes it: cache_control on the system block and on
    // the last block of the last three messages.
    const store = buildStore('dumps');
    const ins = await inspect(store.stateDb, 'hermes-current', 'state.db');
    const r = ins.requests.find((q) => q.captured?.apiMode === 'anthropic-messages');
    assert.ok(r?.captured, 'the dumps store captures an anthropic request');
    const { breakpoints, path } = r.captured;
    const dump = basename(path);
    assert.ok(dump.startsWith('request_dump_') && breakpoints.length > 0 && breakpoints.length < r.messageCount, `${dump}: ${breakpoints.join()}`);
    const label = `cache breakpoint (cache_control in ${dump})`;
    /** The wire indices of the rendered rows, and of those carrying the marker. */
    const marked = async (v: View) => {
      const rows = v.page.locator('message-list message-view');
      const all = (await rows.locator('.idx').allTextContents()).map((t) => Number(t.slice(1)));
      const withMark = rows.filter({ has: v.page.locator('[data-badge=cache-breakpoint]') });
      return { all, marked: (await withMark.locator('.idx').allTextContents()).map((t) => Number(t.slice(1))) };
    };
    mkdirSync(SHOTS, { recursive: true });
    for (const theme of ['light', 'dark', 'high-contrast'] as const) {
      const v = await h.open(ins, { theme, state: at({ turn: r.turn, request: r.index, firstVisibleMessage: 0 }) });
      try {
        await expectSelection(v, r.turn, r.index);
        // Every row of the request is rendered (it is short); the marks wait for its details page.
        await eventually(async () => {
          const seen = await marked(v);
          assert.deepEqual(
            seen.all,
            Array.from({ length: r.messageCount }, (_, i) => i),
          );
          assert.deepEqual(seen.marked, breakpoints);
        }, 'the breakpoint marks');
        // The cache panel lists the same ones.
        assert.match(
          await v.page.locator('cache-panel [data-captured]').innerText(),
          new RegExp(`cache breakpoints on messages ${breakpoints.map((b) => `#${b}`).join(', ')}`),
        );
        const chip = row(v, breakpoints[0]).locator('[data-badge=cache-breakpoint]');
        assert.equal(await chip.getAttribute('aria-label'), label);
        assert.equal(await chip.getAttribute('title'), label);
        assert.equal(await chip.getAttribute('role'), 'img');
        assert.equal(await chip.innerText(), 'cache breakpoint');
        assert.match((await row(v, breakpoints[0]).locator('article').getAttribute('aria-label')) ?? '', new RegExp(`, ${label.replace(/[()]/g, '\\$&')}$`));
        const unmarked = Array.from({ length: r.messageCount }, (_, i) => i).find((i) => !breakpoints.includes(i));
        assert.ok(unmarked !== undefined);
        assert.doesNotMatch((await row(v, unmarked).locator('article').getAttribute('aria-label')) ?? '', /cache breakpoint/);
        // The codicon rendered (the font loaded, the glyph has a size) and in the badge's colour.
        const glyph = chip.locator('vscode-icon .codicon-bookmark');
        type Css = { getComputedStyle(e: unknown, pseudo: string): { fontFamily: string } };
        assert.equal(await glyph.evaluate((e) => (globalThis as unknown as Css).getComputedStyle(e, '::before').fontFamily), 'codicon');
        assert.ok(((await glyph.boundingBox())?.width ?? 0) >= 8);
        const shot = join(SHOTS, `cache-breakpoint-${theme}.png`);
        await v.page.screenshot({ path: shot });
        await row(v, breakpoints.at(-1) as number).screenshot({ path: join(SHOTS, `cache-breakpoint-row-${theme}.png`) });
        if (theme === 'light') {
          // The request before it was not captured: no row of it is marked.
          await v.page.keyboard.press('p');
          await expectSelection(v, ins.requests[r.index - 1].turn, r.index - 1);
          assert.equal(ins.requests[r.index - 1].captured, null);
          await eventually(async () => {
            const seen = await marked(v);
            assert.ok(seen.all.length > 0);
            assert.deepEqual(seen.marked, []);
          }, 'no marks on an uncaptured request');
        }
        await assertClean(v);
      } finally {
        await v.close();
      }
    }
  });

  it('virtualises a 5,000-message request: bounded rows in the DOM, bodies paged on demand', async () => {
    const N = 5000;
    const pagesAsked: { start: number; count: number }[] = [];
    const body = (i: number): MessageView => ({
      index: i,
      role: i === 0 ? 'system' : i % 2 ? 'user' : 'assistant',
      text: `message ${i}\n${'line of text\n'.repeat(i % 5)}`,
      tokens: 10 + (i % 5) * 3,
      roughTokens: 12,
      substitution: null,
      storedText: null,
      injected: [],
      toolCalls: [],
      toolCallId: null,
    });
    const turns: TurnView[] = [
      { index: 0, sessionId: 's', userMessageIndex: 0, title: 'a long one', requests: [0], injectedKinds: [], compression: null, costUsd: null },
    ];
    const requests: RequestView[] = [
      {
        index: 0,
        turn: 0,
        sessionId: 's',
        systemPromptSha256: 'a'.repeat(64),
        messageCount: N,
        inputTokens: 80_000,
        categories: { 'history/user': 80_000 },
        reusedTokens: 0,
        previousRequest: null,
        stable: true,
        breakAt: null,
        failed: false,
        sentAt: null,
        gapSeconds: null,
        userWireIndex: 1,
        captured: null,
        billed: null,
        cacheMiss: null,
        cost: null,
      },
    ];
    const header = {
      title: 'synthetic',
      source: { path: 'synthetic.jsonl', format: 'synthetic' },
      profile: 'hermes-v1',
      tokenizer: 'o200k_base',
      sessions: [{ id: 's', parentId: null, systemPromptSha256: 'a'.repeat(64), replayedRequests: requests.length, recordedApiCalls: null }],
    };
    const host: HostData = {
      index: buildIndex(header, turns, requests, []),
      turns,
      requests,
      findings: [],
      messages(_r, start, count) {
        pagesAsked.push({ start, count });
        return Array.from({ length: Math.max(0, Math.min(N, start + count) - start) }, (_, k) => body(start + k));
      },
      breakContext: () => null,
    };
    const v = await h.open(host);
    try {
      const rows = v.page.locator('message-list message-view, message-list [data-placeholder]');
      await row(v, 1).waitFor();
      const first = await rows.count();
      assert.ok(first > 5 && first < 120, `${first} rows rendered`);
      assert.ok(
        pagesAsked.every((p) => p.count <= 50),
        'pages of at most 50',
      );
      const asked = pagesAsked.reduce((n, p) => n + p.count, 0);
      assert.ok(asked <= 150, `asked for ${asked} bodies up front`);

      // Scroll to the end until the last row shows: the list's height is an estimate until the rows
      // near the end have been measured, so one jump may land short of it.
      const list = v.page.locator('message-list lit-virtualizer');
      await eventually(async () => {
        await list.evaluate((el) => {
          (el as unknown as { scrollTop: number }).scrollTop = 1e9;
        });
        assert.match(
          await row(v, N - 1)
            .locator('pre')
            .innerText({ timeout: 250 }),
          /message 4999/,
        );
      }, 'the last message');
      const atEnd = await rows.count();
      assert.ok(atEnd < 120, `${atEnd} rows rendered at the end`);
      assert.ok(
        pagesAsked.some((p) => p.start === 4950),
        'the last page was fetched',
      );
      assert.ok(pagesAsked.length < 12, `${pagesAsked.length} pages fetched in all`);
      // The scroll position reaches the host (debounced), so a reopened panel comes back there.
      await eventually(() => assert.ok((v.sent('selected').at(-1)?.state.ui?.firstVisibleMessage ?? 0) > 4900));
      await assertClean(v);
    } finally {
      await v.close();
    }
  });

  it('keeps the selection and scroll place across a live update, and shows what was added', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prompt-inspector-webview-'));
    const session = JSON.parse(readFileSync(SIDECARS, 'utf8'));
    const partial = join(dir, 'session_partial.json');
    writeFileSync(partial, JSON.stringify({ ...session, messages: session.messages.slice(0, 17), message_count: 17 }));
    const before = await inspect(partial, 'hermes-v0');
    assert.equal(before.turns.length, 3);
    const v = await h.open(before);
    try {
      await v.page.locator('turn-stepper #turn-2').click();
      await v.page.locator('request-bar [data-request="5"]').click();
      await expectSelection(v, 2, 5);
      await quiet(v);
      const placed: ViewState | undefined = v.sent('selected').at(-1)?.state;

      const pagesBefore = v.sent('request').filter((m) => m.method === 'messages').length;
      writeFileSync(partial, JSON.stringify(session));
      v.data = await inspect(partial, 'hermes-v0');
      assert.equal(v.data.turns.length, 5);
      await v.send({ type: 'update', index: v.data.index, overview: { whole: null } });
      await eventually(async () => assert.equal(await v.page.locator('turn-stepper [role=option]').count(), 5));
      await expectSelection(v, 2, 5);
      await quiet(v);
      assert.deepEqual(v.sent('selected').at(-1)?.state, placed, 'same place, scroll included');
      assert.match(await v.page.locator('summary-header').evaluate((e) => (e.shadowRoot as unknown as { textContent: string }).textContent), /11 requests/);
      // Bodies were asked for again (they may have changed), and the rows show.
      await eventually(() => assert.ok(v.sent('request').filter((m) => m.method === 'messages').length > pagesBefore));
      await row(v, 9).waitFor();
      // The new turns are reachable.
      await v.page.keyboard.press('j');
      await v.page.keyboard.press('j');
      await expectSelection(v, 4, 9);
      assert.equal(v.sent('ready').length, 1);
      await assertClean(v);
    } finally {
      await v.close();
    }
  });

  it('renders hostile transcript text literally and runs none of it', async () => {
    const payload = '</script><img src=x onerror=window.__pwned=1><script>window.__pwned=2</script> <|endoftext|>';
    const dir = mkdtempSync(join(tmpdir(), 'prompt-inspector-webview-'));
    const session = JSON.parse(readFileSync(SIDECARS, 'utf8'));
    const [u, a, t] = session.messages;
    u.content = `${payload} ${u.content}`;
    u.api_content = `${payload} ${u.api_content}`;
    a.content = `${payload}\n${a.content}`;
    t.content = `${t.content}${payload}`;
    const path = join(dir, 'session_hostile.json');
    writeFileSync(path, JSON.stringify(session));
    const ins = await inspect(path, 'hermes-v1');
    const v = await h.open(ins);
    try {
      await v.page.keyboard.press('n');
      await expectSelection(v, 0, 1);
      await row(v, 3).waitFor();
      assert.ok((await v.page.locator('turn-stepper #turn-0 .title').textContent())?.startsWith('</script><img src=x onerror=window.__pwned=1>'));
      assert.ok((await row(v, 1).locator('pre.stored').textContent())?.startsWith(payload));
      assert.ok((await row(v, 2).locator('pre').first().textContent())?.startsWith(payload));
      assert.match((await row(v, 3).locator('pre').first().textContent()) ?? '', /<\|endoftext\|>$/);
      assert.equal(await v.page.locator('message-view img, message-view script, turn-stepper img').count(), 0);
      assert.equal(await v.page.evaluate('window.__pwned'), undefined);
      assert.ok(!v.requests.some((u) => new URL(u).pathname === '/x'), 'the img was never created');
      await assertClean(v);
    } finally {
      await v.close();
    }
  });

  it('looks right in light, dark and high-contrast themes (screenshots)', async () => {
    mkdirSync(SHOTS, { recursive: true });
    const rot = await inspect(ROTATION, 'hermes-v1', 'rotation/state.db');
    const trace = await inspect(TRACE, 'hermes-v1', 'agent.trace.jsonl');
    const compacted = rot.turns.find((t) => t.compression);
    assert.ok(compacted);
    const shots: { name: string; data: Inspection; theme: Theme; state: UiState; background: string; width?: number }[] = [
      { name: 'break-light', data: v0, theme: 'light', state: { turn: 1, request: 2, firstVisibleMessage: 1 }, background: 'rgb(255, 255, 255)' },
      { name: 'break-dark', data: v0, theme: 'dark', state: { turn: 1, request: 2, firstVisibleMessage: 1 }, background: 'rgb(31, 31, 31)' },
      { name: 'break-high-contrast', data: v0, theme: 'high-contrast', state: { turn: 1, request: 2, firstVisibleMessage: 1 }, background: 'rgb(0, 0, 0)' },
      {
        name: 'compaction-light',
        data: rot,
        theme: 'light',
        state: { turn: compacted.index, request: compacted.requests[0], firstVisibleMessage: 1 },
        background: 'rgb(255, 255, 255)',
      },
      {
        name: 'compaction-dark',
        data: rot,
        theme: 'dark',
        state: { turn: compacted.index, request: compacted.requests[0], firstVisibleMessage: 1 },
        background: 'rgb(31, 31, 31)',
      },
      {
        name: 'narrow-dark',
        data: rot,
        theme: 'dark',
        state: { turn: compacted.index, request: compacted.requests[0], firstVisibleMessage: 4 },
        background: 'rgb(31, 31, 31)',
        width: 760,
      },
      {
        name: 'trace-multimodal-light',
        data: trace,
        theme: 'light',
        state: { turn: 2, request: 5, firstVisibleMessage: 11 },
        background: 'rgb(255, 255, 255)',
      },
    ];
    for (const s of shots) {
      const v = await h.open(s.data, { theme: s.theme, state: at(s.state), width: s.width });
      try {
        await expectSelection(v, s.state.turn, s.state.request);
        await row(v, s.state.firstVisibleMessage).waitFor();
        assert.equal(await v.page.locator('body').getAttribute('class'), `vscode-${s.theme}`);
        assert.equal(await v.page.evaluate("getComputedStyle(document.querySelector('prompt-inspector-app')).backgroundColor"), s.background);
        const file = join(SHOTS, `${s.name}.png`);
        // The narrow layout is one column that the page scrolls: take all of it.
        await v.page.screenshot({ path: file, fullPage: s.width !== undefined });
        assert.ok(statSync(file).size > 20_000, `${file} has content`);
        await assertClean(v);
      } finally {
        await v.close();
      }
    }
  });
});
