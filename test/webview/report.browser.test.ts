// `prompt-inspector report`: one HTML file that opens in Chromium from disk, renders the same view
// as the extension, and makes no request at all (every request is intercepted and recorded).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/chromium';
import { cli, tempDir } from '../cli/support';
import { writeHermesDb, type MessageSpec, type SessionSpec } from '../support/hermesDb';
import { sqliteExec } from '../support/sqliteExec';
import { example, SHOTS } from '../support/webviewHarness';
import { FOREIGN_FILES } from '../support/foreignFixtures';

let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

async function openReport(file: string): Promise<{ page: Page; requests: string[]; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const requests: string[] = [];
  const problems: string[] = [];
  const url = pathToFileURL(file).href;
  await page.route('**/*', (route) => {
    const u = route.request().url();
    if (u === url) return route.continue();
    requests.push(u);
    return route.abort();
  });
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(url);
  return { page, requests, problems };
}

describe('standalone HTML report', () => {
  it('renders the compaction of a rotated state.db offline', async () => {
    const out = join(tempDir(), 'rotation.html');
    const r = cli('report', example('rotation/state.db'), '-o', out);
    assert.equal(r.code, 0, r.stderr);
    const { page, requests, problems } = await openReport(out);
    await page.locator('turn-stepper #turn-5').click();
    const panel = page.locator('compaction-panel');
    await panel.waitFor({ state: 'visible', timeout: 15_000 });
    assert.match(await panel.locator('table').innerText(), /1,189 → 703/);
    // Bodies come from the embedded data: the turn's user row with its memory fence.
    await page.locator('message-view mark[data-kind=memory]').first().waitFor({ state: 'visible', timeout: 15_000 });
    await page.screenshot({ path: join(SHOTS, 'report-rotation-light.png') });
    assert.deepEqual(requests, [], 'no request leaves the page');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it(
    "another agent's transcript: a Claude Code log's report shows it as recorded, offline",
    { skip: !FOREIGN_FILES.present && 'the foreign fixtures are not there' },
    async () => {
      const out = join(tempDir(), 'claude.html');
      const r = cli('report', FOREIGN_FILES.spotter, '-o', out);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /\(3 sessions, 221 calls\)/);
      const { page, requests, problems } = await openReport(out);
      const view = page.locator('recorded-view');
      await view.locator('tr.compaction').first().waitFor({ state: 'visible', timeout: 15_000 });
      assert.equal(await view.locator('tr.compaction').first().innerText(), 'compaction (manual) at line 1481: 142,431 tokens before');
      assert.match(await view.locator('tr.miss').innerText(), /miss: 11,011 tokens billed again, expired/);
      assert.deepEqual(requests, [], 'no request leaves the page');
      assert.deepEqual(problems, []);
      await page.close();
    },
  );

  it('shows an XSS corpus literally: nothing runs, nothing is requested', async () => {
    const corpus = [
      '</script><script>window.__pwned=1</script>',
      '<img src="http://evil.example/x.png" onerror="window.__pwned=2">',
      '<a href="javascript:window.__pwned=3">click me</a>',
      '<svg xmlns="http://www.w3.org/2000/svg" onload="window.__pwned=4"><script>window.__pwned=5</script></svg>',
      '<style>@import url(http://evil.example/a.css); body{background:url(http://evil.example/b.png)}</style>',
      '<div style="background-image:url(http://evil.example/c.png)">styled</div>',
      '<iframe src="http://evil.example/"></iframe><object data="http://evil.example/o"></object>',
      '{{constructor.constructor("window.__pwned=6")()}} ${window.__pwned=7} <%= 7*7 %>',
      '<meta http-equiv="refresh" content="0;url=http://evil.example/">',
      'bidi: \u202egnp.exe\u202c and \u2066isolate\u2069 <|endoftext|><|im_start|>',
    ];
    const dir = tempDir();
    const session = join(dir, 'session_xss.json');
    writeFileSync(
      session,
      JSON.stringify({
        session_id: 'xss',
        system_prompt: corpus.join('\n'),
        messages: corpus.flatMap((p, i) => [
          { role: 'user', content: `payload ${i}: ${p}`, api_content: `payload ${i}: ${p}\n\n<memory-context>\n${p}\n</memory-context>` },
          {
            role: 'assistant',
            content: p,
            tool_calls: [{ id: `c${i}`, type: 'function', function: { name: p.slice(0, 40), arguments: JSON.stringify({ p }) } }],
          },
          { role: 'tool', tool_call_id: `c${i}`, content: p },
        ]),
      }),
    );
    const out = join(dir, 'xss.html');
    assert.equal(cli('report', session, '-o', out).code, 0);
    const { page, requests, problems } = await openReport(out);
    for (let turn = 0; turn < corpus.length; turn++) {
      await page.locator(`turn-stepper #turn-${turn}`).click();
      const user = page.locator('message-view', { hasText: `payload ${turn}:` }).first();
      await user.waitFor({ state: 'visible', timeout: 15_000 });
      // Bidi controls are shown as a visible ⇆ instead of reordering the text around them.
      const literal = corpus[turn].replace(/[\u202a-\u202e\u2066-\u2069]/g, '\u21c6');
      assert.ok(((await user.locator('pre.stored').textContent()) ?? '').endsWith(literal), `payload ${turn} shown literally`);
    }
    // A string, so the test transpiler's helpers do not leak into the page.
    const dom = await page.evaluate<{ pwned?: number; tags: string[]; javascriptLinks: number; inlineHandlers: number }>(`(() => {
      const all = [];
      const walk = (root) => { for (const el of root.querySelectorAll('*')) { all.push(el); if (el.shadowRoot) walk(el.shadowRoot); } };
      walk(document);
      return {
        pwned: window.__pwned,
        tags: [...new Set(all.map((e) => e.tagName.toLowerCase()))],
        javascriptLinks: all.filter((e) => String(e.getAttribute('href') || '').startsWith('javascript:')).length,
        inlineHandlers: all.filter((e) => [...e.attributes].some((a) => a.name.startsWith('on'))).length,
      };
    })()`);
    assert.equal(dom.pwned, undefined, 'no payload ran');
    for (const tag of ['img', 'a', 'iframe', 'object']) assert.ok(!dom.tags.includes(tag), `no <${tag}> element from a payload`);
    assert.equal(dom.javascriptLinks, 0);
    assert.equal(dom.inlineHandlers, 0);
    assert.equal(await page.evaluate('document.querySelectorAll("script").length'), 2, "only the page's own data and bundle scripts");
    assert.equal(await page.evaluate('document.querySelectorAll("meta").length'), 3, "only the page's own meta elements");
    await page.screenshot({ path: join(SHOTS, 'report-xss-light.png') });
    assert.deepEqual(requests, [], 'no request leaves the page');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('shows hostile transcript text literally, in the dark theme, with no request', async () => {
    const dir = tempDir();
    const payload = '</script><img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script> <|endoftext|> <!-- ${7*7} {{7*7}}';
    const session = join(dir, 'session_x.json');
    writeFileSync(
      session,
      JSON.stringify({
        session_id: 'x',
        system_prompt: `SYS ${payload}`,
        messages: [
          { role: 'user', content: `look: ${payload}`, api_content: `look: ${payload}\n\nPLUGIN ${payload}` },
          { role: 'assistant', content: payload },
        ],
      }),
    );
    const out = join(dir, 'x.html');
    assert.equal(cli('report', session, '-o', out, '--theme', 'dark').code, 0);
    const { page, requests, problems } = await openReport(out);
    const user = page.locator('message-view', { hasText: 'look:' }).first();
    await user.waitFor({ state: 'visible', timeout: 15_000 });
    const shown = (await user.locator('pre.stored').textContent()) ?? '';
    assert.ok(shown.includes('</script><img src=x onerror="window.__pwned=1">'), shown);
    assert.equal(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned), undefined);
    assert.equal(await page.locator('img').count(), 0);
    assert.ok(
      await page.evaluate(() =>
        (globalThis as unknown as { document: { body: { classList: { contains(c: string): boolean } } } }).document.body.classList.contains('vscode-dark'),
      ),
    );
    await page.screenshot({ path: join(SHOTS, 'report-hostile-dark.png') });
    assert.deepEqual(requests, []);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('shows the overview of a Hermes home with its compact columns, the Columns menu and the title frozen, as the editor does', async () => {
    const out = join(tempDir(), 'home.html');
    const r = cli('report', example('home/state.db'), '-o', out);
    assert.equal(r.code, 0, r.stderr);
    const { page, requests, problems } = await openReport(out);
    await page.setViewportSize({ width: 1100, height: 900 });
    const overview = page.locator('session-overview');
    await overview.locator('[role=row][data-key]').first().waitFor({ state: 'visible', timeout: 15_000 });
    const headers = () => overview.locator('[role=columnheader]').evaluateAll((hs) => hs.map((h) => h.getAttribute('data-column')));
    const scroll = () => overview.locator('.scroller').evaluate((e: any) => ({ left: e.scrollLeft, width: e.scrollWidth, client: e.clientWidth }));
    assert.deepEqual(await headers(), ['title', 'source', 'start', 'turns', 'breaks', 'input', 'reused-pct']);
    const compact = await scroll();
    assert.ok(compact.width <= compact.client, JSON.stringify(compact));
    // Every column from the menu, by the keyboard: a check per column after the title, then the default set.
    await overview.locator('button.columns').focus();
    await page.keyboard.press('ArrowDown');
    const items = overview.locator('[role=menu] [role=menuitemcheckbox]');
    await items.first().waitFor({ state: 'visible', timeout: 5000 });
    const count = await items.count();
    for (let i = 1; i < count; i++) {
      await page.keyboard.press('ArrowDown');
      if ((await items.nth(i).getAttribute('aria-checked')) === 'false') await page.keyboard.press('Enter');
    }
    await page.keyboard.press('Escape');
    assert.equal((await headers()).length, count);
    const wide = await scroll();
    assert.ok(wide.width > wide.client, JSON.stringify(wide));
    await overview.locator('.scroller').evaluate((e: any) => {
      e.scrollLeft = e.scrollWidth;
    });
    // The title cell is what shows at the view's left edge, however far the table is scrolled.
    const frozen = await overview.evaluate((host: any) => {
      const root = host.shadowRoot;
      const cell = root.querySelector('.body [role=row] [data-column=title]');
      const view = root.querySelector('.scroller').getBoundingClientRect();
      const hit = root.elementFromPoint(view.left + 40, cell.getBoundingClientRect().top + 10);
      return { scrolled: root.querySelector('.scroller').scrollLeft, onTop: cell.contains(hit) };
    });
    assert.ok(frozen.scrolled > 0 && frozen.onTop, JSON.stringify(frozen));
    const warnings = overview.locator('[role=columnheader][data-column=warnings]');
    await warnings.locator('button').press('Enter');
    assert.equal(await warnings.getAttribute('aria-sort'), 'ascending');
    assert.equal(await overview.locator('[data-sorted]').getAttribute('data-sorted'), 'warnings ascending');
    assert.equal((await scroll()).left, frozen.scrolled, 'sorting kept the table where it was');
    await page.screenshot({ path: join(SHOTS, 'report-overview-columns.png') });
    assert.deepEqual(requests, []);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('shows bidi controls in the session overview as a visible ⇆, never applied: titles, ids, sources, models, end reasons', async () => {
    const dir = tempDir();
    const db = join(dir, 'state.db');
    const RLO = '\u202e';
    // A chain (its sessions listed when expanded) and a plain session, every text of them carrying a bidi control.
    const sessions: SessionSpec[] = [
      { id: `a1${RLO}`, startedAt: 1000, endReason: 'compression', title: `photo ${RLO}gnp.exe` },
      { id: `a2${RLO}`, parent: `a1${RLO}`, startedAt: 1010, title: `part two ${RLO}fdp.scr` },
      { id: `b\u2066x\u2069`, startedAt: 1020, endReason: `user${RLO}tixe`, title: `notes \u2067txt.bat\u2069` },
    ];
    const messages: MessageSpec[] = sessions.flatMap((x): MessageSpec[] => [
      [x.id, 'user', `question in ${x.id}`],
      [x.id, 'assistant', `answer in ${x.id}`],
    ]);
    writeHermesDb(db, sessions, messages);
    sqliteExec(db, [`UPDATE sessions SET source = 'cli' || char(8238) || 'evil', model = 'gpt' || char(8238) || '-5.5';`]);
    const out = join(dir, 'bidi.html');
    const r = cli('report', db, '-o', out);
    assert.equal(r.code, 0, r.stderr);
    const { page, requests, problems } = await openReport(out);
    const overview = page.locator('session-overview');
    await overview.locator('[role=row][data-key]').first().waitFor({ state: 'visible', timeout: 15_000 });
    // The chain's sessions too: expanded with the keyboard.
    await overview.locator(`[data-key="l:a1${RLO}"]`).focus();
    await page.keyboard.press('ArrowRight');
    await overview.locator(`[data-key="s:a1${RLO}:a2${RLO}"]`).waitFor({ state: 'visible', timeout: 15_000 });
    // Model and end reason are not in the default columns: chosen from the Columns menu.
    await overview.locator('button.columns').click();
    for (const key of ['model', 'end']) await overview.locator(`.menu [data-column=${key}]`).click();
    await page.keyboard.press('Escape');
    // Every text node and every shown attribute of the overview (tooltips, accessible names, options).
    const shown = await overview.evaluate((host: any) => {
      const root = host.shadowRoot;
      const attributes: string[] = [];
      for (const el of root.querySelectorAll('*')) for (const a of ['title', 'aria-label']) if (el.hasAttribute(a)) attributes.push(el.getAttribute(a));
      return {
        text: root.querySelector('.table').innerText as string,
        attributes,
        options: [...root.querySelectorAll('option')].map((o: any) => o.textContent as string),
      };
    });
    const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
    assert.doesNotMatch(shown.text, BIDI, 'no bidi control in the table text');
    for (const a of shown.attributes) assert.doesNotMatch(a, BIDI, `attribute ${JSON.stringify(a)}`);
    for (const o of shown.options) assert.doesNotMatch(o, BIDI, `option ${JSON.stringify(o)}`);
    for (const expected of [
      'photo \u21c6gnp.exe',
      'part two \u21c6fdp.scr',
      'notes \u21c6txt.bat\u21c6',
      'a1\u21c6',
      'a2\u21c6',
      'b\u21c6x\u21c6',
      'cli\u21c6evil',
      'gpt\u21c6-5.5',
      'user\u21c6tixe',
    ]) {
      assert.ok(shown.text.includes(expected), `${JSON.stringify(expected)} shown in ${JSON.stringify(shown.text)}`);
    }
    assert.ok(shown.attributes.includes('Open photo \u21c6gnp.exe'));
    assert.ok(shown.options.includes('cli\u21c6evil'));
    await page.screenshot({ path: join(SHOTS, 'report-overview-bidi.png') });
    // The values behind the view are the store's: the source filter still narrows to the lineages of that source.
    await overview.locator('select').selectOption({ label: 'cli\u21c6evil' });
    await overview.locator(`[data-key="l:b\u2066x\u2069"]`).waitFor({ state: 'visible', timeout: 15_000 });
    // And a row still opens its lineage (the embedded inspection is keyed by the real id).
    await overview.locator(`[data-key="l:b\u2066x\u2069"]`).dblclick();
    await page.locator('turn-stepper #turn-0').waitFor({ state: 'visible', timeout: 15_000 });
    assert.deepEqual(requests, []);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
