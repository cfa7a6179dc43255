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
import { example, SHOTS } from '../support/webviewHarness';

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
});
