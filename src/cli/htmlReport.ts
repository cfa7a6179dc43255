// prompt-inspector report: one self-contained HTML file, rendered by the inspector's own webview
// bundle with the inspection embedded (reportData.ts), that opens offline in any browser.
//
// The page is written a piece at a time: the embedded data of a home of 50,000 lineages is over
// 100 MB of JSON, and held as one string (then as the page, then as its bytes) it would cost several
// times that; an overview nested 10,000 forks deep is also past the depth JSON.stringify can recurse to.

import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
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

/** About this many UTF-16 code units of JSON are handed on at a time. */
const CHUNK = 1 << 20;

/** Values this deep are handed to JSON.stringify whole (the first levels are walked here, so the text comes in pieces). */
const NATIVE_DEPTH = 3;
/** After JSON.stringify ran out of stack in a value, how many levels below it are walked here before it is tried again. */
const WALKED_LEVELS = 1000;

type Frame = ({ object: object; keys: string[]; next: number; first: boolean } | { array: readonly unknown[]; next: number }) & {
  depth: number;
  nativeFrom: number;
};

/** A value as JSON.stringify sees it under `key`: after its toJSON, and unboxed. */
function resolved(key: string, raw: unknown): unknown {
  let v = raw;
  if (v !== null && (typeof v === 'object' || typeof v === 'bigint') && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
    v = (v as { toJSON(key: string): unknown }).toJSON(key);
  }
  return v instanceof Number || v instanceof String || v instanceof Boolean ? v.valueOf() : v;
}

/** A value JSON has: the others are left out of an object, and null in an array. */
const hasJson = (v: unknown): boolean => v !== undefined && typeof v !== 'function' && typeof v !== 'symbol';

/**
 * JSON.stringify(value)'s text (no replacer, no indentation), handed to `write` in pieces of about
 * `chunk` code units (or one value's text, when longer), the same text at any depth. The first
 * levels are walked here, by JSON.stringify's rules (toJSON, own enumerable keys in order, values
 * without JSON left out of objects and null in arrays), and each value below them is
 * JSON.stringify's own text; a value nested deeper than JSON.stringify can recurse (a RangeError)
 * is walked here level by level instead, down to where it can again.
 */
export function writeJson(value: unknown, write: (chunk: string) => void, chunk = CHUNK): void {
  let parts: string[] = [];
  let size = 0;
  const put = (s: string): void => {
    parts.push(s);
    size += s.length;
    if (size >= chunk) {
      write(parts.join(''));
      parts = [];
      size = 0;
    }
  };
  const stack: Frame[] = [];
  const open = new Set<object>();
  /** A resolved value at `depth`: its text, or opened as a frame to walk. */
  const emit = (v: unknown, depth: number, nativeFrom: number): void => {
    if (v === null || typeof v !== 'object') {
      put(hasJson(v) ? JSON.stringify(v) : 'null');
      return;
    }
    let from = nativeFrom;
    if (depth >= from) {
      try {
        put(JSON.stringify(v));
        return;
      } catch (e) {
        if (!(e instanceof RangeError)) throw e;
        from = depth + WALKED_LEVELS;
      }
    }
    if (open.has(v)) throw new TypeError('Converting circular structure to JSON');
    open.add(v);
    if (Array.isArray(v)) {
      put('[');
      stack.push({ array: v, next: 0, depth, nativeFrom: from });
    } else {
      put('{');
      stack.push({ object: v, keys: Object.keys(v), next: 0, first: true, depth, nativeFrom: from });
    }
  };
  const top = resolved('', value);
  if (!hasJson(top)) return;
  emit(top, 0, NATIVE_DEPTH);
  while (stack.length) {
    const f = stack[stack.length - 1];
    if ('array' in f) {
      if (f.next === f.array.length) {
        stack.pop();
        open.delete(f.array);
        put(']');
        continue;
      }
      const i = f.next++;
      if (i) put(',');
      emit(resolved(String(i), f.array[i]), f.depth + 1, f.nativeFrom);
      continue;
    }
    let v: unknown;
    let key: string | undefined;
    while (f.next < f.keys.length && key === undefined) {
      const k = f.keys[f.next++];
      v = resolved(k, (f.object as Record<string, unknown>)[k]);
      if (hasJson(v)) key = k;
    }
    if (key === undefined) {
      stack.pop();
      open.delete(f.object);
      put('}');
      continue;
    }
    put(`${f.first ? '' : ','}${JSON.stringify(key)}:`);
    f.first = false;
    emit(v, f.depth + 1, f.nativeFrom);
  }
  if (parts.length) write(parts.join(''));
}

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
