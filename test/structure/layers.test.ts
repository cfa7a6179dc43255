// The source tree is layered and imports go only downwards (docs/architecture.md): types, then
// Hermes row semantics, then readers and engine side by side, analysis, live refresh, protocol, hosts.
// A file that imports upwards, or a reader that imports the engine (or the reverse), fails here.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const root = path.resolve(__dirname, '../..');

/** Each layer, lowest first; a module may import its own layer's modules and those of lower layers. */
const LAYERS: { name: string; dirs: string[] }[] = [
  { name: 'model', dirs: ['src/model'] },
  { name: 'hermes', dirs: ['src/hermes'] },
  { name: 'readers', dirs: ['src/transcripts'] },
  { name: 'engine', dirs: ['src/engine'] },
  { name: 'analysis', dirs: ['src/analysis'] },
  { name: 'live', dirs: ['src/live'] },
  { name: 'protocol', dirs: ['src/protocol'] },
  { name: 'cli', dirs: ['src/cli', 'src/webviewHtml.ts'] },
  { name: 'extension', dirs: ['src/extension', 'src/webviewHtml.ts'] },
  { name: 'webview', dirs: ['webview'] },
];
/** What each layer may import, besides itself. Readers and engine sit side by side: neither sees the other. */
const ALLOWED: Record<string, string[]> = {
  model: [],
  hermes: ['model'],
  readers: ['model', 'hermes'],
  engine: ['model', 'hermes'],
  analysis: ['model', 'hermes', 'engine', 'readers'],
  live: ['model', 'hermes', 'engine', 'readers', 'analysis'],
  protocol: ['model', 'hermes', 'engine', 'readers', 'analysis'],
  cli: ['model', 'hermes', 'engine', 'readers', 'analysis', 'protocol'],
  extension: ['model', 'hermes', 'engine', 'readers', 'analysis', 'live', 'protocol'],
  webview: [],
};
/**
 * Single files a layer may import beyond ALLOWED: the webview knows the messages, the RPC they ride
 * on, the report page's embedded host, the report's types and how counts are worded, nothing of the
 * engine.
 */
const ALLOWED_FILES: Record<string, string[]> = {
  webview: [
    'src/protocol/messages.ts',
    'src/protocol/rpc.ts',
    'src/protocol/embedded.ts',
    'src/protocol/shownText.ts',
    'src/analysis/reportTypes.ts',
    'src/analysis/overviewTypes.ts',
    'src/analysis/overviewColumns.ts',
    'src/model/injection.ts',
    'src/model/transcript.ts',
    'src/model/rows.ts',
  ],
};

function layerOf(file: string): string[] {
  const rel = path.relative(root, file);
  return LAYERS.filter((l) => l.dirs.some((d) => rel === d || rel.startsWith(d + '/') || rel === d.replace(/\.ts$/, '') + '.ts')).map((l) => l.name);
}

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sources(p));
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs: string[] = [];
  for (const m of text.matchAll(/(?:from\s+|import\(\s*|require\(\s*|^import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm)) specs.push(m[1]);
  return specs.map((s) => path.resolve(path.dirname(file), s) + (s.endsWith('.ts') ? '' : '.ts'));
}

describe('layers', () => {
  const files = [...sources(path.join(root, 'src')), ...sources(path.join(root, 'webview'))];

  it('every source file belongs to a layer', () => {
    const orphans = files.filter((f) => layerOf(f).length === 0).map((f) => path.relative(root, f));
    assert.deepEqual(orphans, []);
  });

  it('imports go only downwards', () => {
    const upward: string[] = [];
    for (const file of files) {
      const mine = layerOf(file);
      for (const target of importsOf(file)) {
        const theirs = layerOf(target);
        if (theirs.length === 0) continue; // outside the layered tree (node_modules never appear here)
        const rel = path.relative(root, target);
        const ok = theirs.some((t) => mine.includes(t) || mine.some((m) => ALLOWED[m].includes(t))) || mine.some((m) => ALLOWED_FILES[m]?.includes(rel));
        if (!ok) upward.push(`${path.relative(root, file)} (${mine.join('/')}) imports ${path.relative(root, target)} (${theirs.join('/')})`);
      }
    }
    assert.deepEqual(upward, []);
  });

  it('the check sees an upward import', () => {
    // The rule itself, on a known pair: a reader importing the engine is refused.
    const reader = path.join(root, 'src/transcripts/x.ts');
    const engine = path.join(root, 'src/engine/replay.ts');
    const ok = layerOf(engine).some((t) => layerOf(reader).some((m) => ALLOWED[m].includes(t)));
    assert.equal(ok, false);
  });
});
