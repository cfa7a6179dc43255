// prompt-inspector report: one self-contained HTML file, rendered by the inspector's own webview
// bundle with the inspection embedded (reportData.ts), that opens offline in any browser.
//
// The page is written a piece at a time (src/shared/jsonPieces.ts); a home's lineages come compressed
// (src/protocol/compressedInspection.ts) and are decompressed by the page when opened.

import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { writeJson } from '../shared/jsonPieces';
import type { EmbeddedPage } from '../shared/messages';
import { embedJson, renderInspectorHtml } from '../shared/webviewHtml';

/** The built bundles: beside the CLI bundle in dist/, or in dist/ when run from source. */
function distDir(): string {
  for (const dir of [__dirname, join(__dirname, '..', '..', 'dist')]) {
    if (existsSync(join(dir, 'webview.js'))) return dir;
  }
  throw new Error('the webview bundle is missing: run npm run build first');
}

/** The report file could not be opened or written: the message names it and the system's code. */
export class ReportNotWritten extends Error {}

/** The report page: what comes before the embedded data and what comes after it. */
function page(title: string, theme: 'light' | 'dark'): { head: string; tail: string } {
  const dist = distDir();
  const read = (f: string): string => readFileSync(join(dist, f), 'utf8');
  // The icon font goes inline too (the page must not load anything), as the stylesheet link that
  // vscode-elements looks up by id to share it with its shadow roots.
  const font = readFileSync(join(dist, 'codicon.ttf')).toString('base64');
  const codicons = read('codicon.css').replace(/url\([^)]*codicon\.ttf[^)]*\)/g, `url(data:font/ttf;base64,${font})`);
  // The data goes where this mark is: letters and digits only, so embedJson leaves it as it is.
  const mark = `PROMPTINSPECTORDATA${randomBytes(16).toString('hex')}`;
  const html = renderInspectorHtml({
    title,
    nonce: randomBytes(16).toString('base64'),
    script: { inline: `${read('reportHost.js')}\n${read('webview.js')}` },
    style: { inline: existsSync(join(dist, 'webview.css')) ? read('webview.css') : '' },
    codicons: { uri: `data:text/css;base64,${Buffer.from(codicons).toString('base64')}` },
    embeddedData: mark,
    bodyClass: theme === 'dark' ? 'vscode-dark standalone' : 'vscode-light standalone',
  });
  const at = html.indexOf(mark);
  return { head: html.slice(0, at), tail: html.slice(at + mark.length) };
}

/**
 * Writes the report page to `path`: the page as renderInspectorHtml makes it, its embedded data
 * serialized and escaped (embedJson, which escapes single code units, so piece by piece is the
 * same) a piece at a time. A file that cannot be opened or written throws ReportNotWritten.
 */
export function writeHtmlReport(path: string, data: EmbeddedPage, title: string, theme: 'light' | 'dark'): void {
  const { head, tail } = page(title, theme);
  const failed = (e: unknown): ReportNotWritten => new ReportNotWritten(`cannot write ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  let fd: number;
  try {
    fd = openSync(path, 'w');
  } catch (e) {
    throw failed(e);
  }
  try {
    const write = (text: string): void => {
      const bytes = Buffer.from(text);
      try {
        for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at);
      } catch (e) {
        throw failed(e);
      }
    };
    write(head);
    writeJson(data, (json) => write(embedJson(json)));
    write(tail);
  } finally {
    try {
      closeSync(fd);
    } catch {
      // Closing fails only where a write already did, and that is what is said.
    }
  }
}
