// The source tree is layered by folder and imports go only downwards (docs/architecture.md): what
// crosses a runtime boundary (`src/shared`), then Hermes row semantics, readers and engine side by
// side, analysis, live refresh, protocol, and the four runtimes on top: the CLI, the worker, the
// host and the webview. A file that imports upwards, a reader that imports the engine (or the
// reverse), a host file that reaches past the worker's protocol, or a webview file that reaches
// past `shared` fails here.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const root = path.resolve(__dirname, '../..');

/** Each layer is one folder; every source file sits in exactly one. */
const LAYERS: Record<string, string> = {
  shared: 'src/shared',
  hermes: 'src/hermes',
  readers: 'src/transcripts',
  engine: 'src/engine',
  analysis: 'src/analysis',
  live: 'src/live',
  protocol: 'src/protocol',
  cli: 'src/cli',
  worker: 'src/worker',
  host: 'src/extension',
  webview: 'webview',
};
/** What each layer may import, besides itself. Readers and engine sit side by side: neither sees the other. */
const ALLOWED: Record<string, string[]> = {
  shared: [],
  hermes: ['shared'],
  readers: ['shared', 'hermes'],
  engine: ['shared', 'hermes'],
  analysis: ['shared', 'hermes', 'engine', 'readers'],
  live: ['shared', 'hermes', 'engine', 'readers', 'analysis'],
  protocol: ['shared', 'hermes', 'engine', 'readers', 'analysis'],
  cli: ['shared', 'hermes', 'engine', 'readers', 'analysis', 'protocol'],
  worker: ['shared', 'hermes', 'engine', 'readers', 'analysis', 'live', 'protocol'],
  // The host runs no analysis: it starts the worker through its protocol file and nothing else of it.
  host: ['shared'],
  webview: ['shared'],
};
/** The one file a layer may import from a layer it otherwise may not. */
const ALLOWED_FILES: Record<string, string[]> = {
  host: ['src/worker/engineProtocol.ts'],
};

function layerOf(file: string): string | undefined {
  const rel = path.relative(root, file);
  return Object.keys(LAYERS).find((name) => rel.startsWith(LAYERS[name] + '/'));
}

function mayImport(file: string, target: string): boolean {
  const mine = layerOf(file);
  const theirs = layerOf(target);
  if (theirs === undefined) return true; // outside the layered tree (node_modules never appear here)
  if (mine === undefined) return false;
  return mine === theirs || ALLOWED[mine].includes(theirs) || (ALLOWED_FILES[mine] ?? []).includes(path.relative(root, target));
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
    const orphans = files.filter((f) => layerOf(f) === undefined).map((f) => path.relative(root, f));
    assert.deepEqual(orphans, []);
  });

  it('imports go only downwards', () => {
    const upward: string[] = [];
    for (const file of files) {
      for (const target of importsOf(file)) {
        if (!mayImport(file, target))
          upward.push(`${path.relative(root, file)} (${layerOf(file)}) imports ${path.relative(root, target)} (${layerOf(target)})`);
      }
    }
    assert.deepEqual(upward, []);
  });

  it('the check sees an upward import', () => {
    // The rule itself, on known pairs: a reader importing the engine, the host importing the engine
    // or the worker's entry, and the webview importing the protocol are refused; the host's one
    // door into the worker is not.
    const at = (rel: string): string => path.join(root, rel);
    assert.equal(mayImport(at('src/transcripts/x.ts'), at('src/engine/replay.ts')), false);
    assert.equal(mayImport(at('src/extension/x.ts'), at('src/engine/profile.ts')), false);
    assert.equal(mayImport(at('src/extension/x.ts'), at('src/worker/engineWorker.ts')), false);
    assert.equal(mayImport(at('webview/x.ts'), at('src/protocol/inspection.ts')), false);
    assert.equal(mayImport(at('src/extension/x.ts'), at('src/worker/engineProtocol.ts')), true);
    assert.equal(mayImport(at('src/shared/x.ts'), at('src/hermes/lineage.ts')), false);
  });
});
