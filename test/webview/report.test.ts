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
import { example, SHOTS } from './harness';

let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => { await browser?.close(); });

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
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
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
    assert.match(await panel.locator('table').innerText(), /1,292 → 703/);
    // Bodies come from the embedded data: the turn's user row with its memory fence.
    await page.locator('message-view mark[data-kind=memory]').first().waitFor({ state: 'visible', timeout: 15_000 });
    await page.screenshot({ path: join(SHOTS, 'report-rotation-light.png') });
    assert.deepEqual(requests, [], 'no request leaves the page');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('shows hostile transcript text literally, in the dark theme, with no request', async () => {
    const dir = tempDir();
    const payload = '</script><img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script> <|endoftext|> <!-- ${7*7} {{7*7}}';
    const session = join(dir, 'session_x.json');
    writeFileSync(session, JSON.stringify({ session_id: 'x', system_prompt: `SYS ${payload}`, messages: [
      { role: 'user', content: `look: ${payload}`, api_content: `look: ${payload}\n\nPLUGIN ${payload}` },
      { role: 'assistant', content: payload },
    ] }));
    const out = join(dir, 'x.html');
    assert.equal(cli('report', session, '-o', out, '--theme', 'dark').code, 0);
    const { page, requests, problems } = await openReport(out);
    const user = page.locator('message-view', { hasText: 'look:' }).first();
    await user.waitFor({ state: 'visible', timeout: 15_000 });
    const shown = (await user.locator('pre.stored').textContent()) ?? '';
    assert.ok(shown.includes('</script><img src=x onerror="window.__pwned=1">'), shown);
    assert.equal(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned), undefined);
    assert.equal(await page.locator('img').count(), 0);
    assert.ok(await page.evaluate(() => (globalThis as unknown as { document: { body: { classList: { contains(c: string): boolean } } } }).document.body.classList.contains('vscode-dark')));
    await page.screenshot({ path: join(SHOTS, 'report-hostile-dark.png') });
    assert.deepEqual(requests, []);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
