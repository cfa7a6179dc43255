// prompt-inspector report: one self-contained HTML file, rendered by the inspector's own webview
// bundle with the inspection embedded (reportData.ts), that opens offline in any browser.

import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EmbeddedReport } from '../protocol/messages';
import { renderInspectorHtml } from '../webviewHtml';

/** The built bundles: beside the CLI bundle in dist/, or in dist/ when run from source. */
function distDir(): string {
  for (const dir of [__dirname, join(__dirname, '..', '..', 'dist')]) {
    if (existsSync(join(dir, 'webview.js'))) return dir;
  }
  throw new Error('the webview bundle is missing: run npm run build first');
}

export function renderHtmlReport(data: EmbeddedReport, title: string, theme: 'light' | 'dark'): string {
  const dist = distDir();
  const read = (f: string): string => readFileSync(join(dist, f), 'utf8');
  // The icon font goes inline too (the page must not load anything), as the stylesheet link that
  // vscode-elements looks up by id to share it with its shadow roots.
  const font = readFileSync(join(dist, 'codicon.ttf')).toString('base64');
  const codicons = read('codicon.css').replace(/url\([^)]*codicon\.ttf[^)]*\)/g, `url(data:font/ttf;base64,${font})`);
  return renderInspectorHtml({
    title,
    nonce: randomBytes(16).toString('base64'),
    script: { inline: `${read('reportHost.js')}\n${read('webview.js')}` },
    style: { inline: existsSync(join(dist, 'webview.css')) ? read('webview.css') : '' },
    codicons: { uri: `data:text/css;base64,${Buffer.from(codicons).toString('base64')}` },
    embeddedData: JSON.stringify(data),
    bodyClass: theme === 'dark' ? 'vscode-dark standalone' : 'vscode-light standalone',
  });
}
