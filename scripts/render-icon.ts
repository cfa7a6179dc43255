// Renders media/icon.svg to media/icon.png (128×128, the marketplace icon) in the repo's Chromium
// (run: npx tsx scripts/render-icon.ts). The SVG is the source; the PNG is committed beside it.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium } from '../test/support/chromium';

const MEDIA = join(__dirname, '..', 'media');

async function main(): Promise<void> {
  const svg = readFileSync(join(MEDIA, 'icon.svg'), 'utf8');
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 128, height: 128 }, deviceScaleFactor: 1 });
    await page.setContent(`<!doctype html><style>html,body{margin:0;background:transparent}svg{display:block}</style>${svg}`);
    const png = await page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: 128, height: 128 } });
    writeFileSync(join(MEDIA, 'icon.png'), png);
    console.log(`media/icon.png: ${png.length} bytes`);
  } finally {
    await browser.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
