// One build script for every bundle: the CLI, the extension host and the engine worker as CommonJS
// for Node, the webview and the report page's host as browser IIFEs.
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync, chmodSync } from 'node:fs';
import { packedVocabularies } from './scripts/packedVocabularies.cjs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/** Prints esbuild errors as file:line:column so editor problem matchers pick them up. */
const problemMatcher = {
  name: 'problem-matcher',
  setup(build) {
    build.onStart(() => {
      if (watch) console.log('[watch] build started');
    });
    build.onEnd((result) => {
      for (const { text, location } of result.errors) {
        console.error(`✘ [ERROR] ${text}`);
        if (location) console.error(`    ${location.file}:${location.line}:${location.column}:`);
      }
      if (watch) console.log('[watch] build finished');
    });
  },
};

const common = {
  bundle: true,
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
  logLevel: 'silent',
  plugins: [problemMatcher, packedVocabularies()],
};

const contexts = await Promise.all([
  esbuild.context({
    ...common,
    entryPoints: ['src/extension/extension.ts'],
    outfile: 'dist/extension.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
  }),
  esbuild.context({
    ...common,
    entryPoints: ['src/worker/engineWorker.ts'],
    outfile: 'dist/engine.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  }),
  esbuild.context({
    ...common,
    entryPoints: ['src/cli/bin.ts'],
    outfile: 'dist/cli.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
  }),
  esbuild.context({
    ...common,
    entryPoints: ['webview/main.ts'],
    outfile: 'dist/webview.js',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    sourcemap: production ? false : 'inline',
  }),
  esbuild.context({
    ...common,
    entryPoints: ['webview/reportHost.ts'],
    outfile: 'dist/reportHost.js',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    sourcemap: false,
  }),
]);

mkdirSync('dist', { recursive: true });
for (const f of ['codicon.css', 'codicon.ttf']) copyFileSync(`node_modules/@vscode/codicons/dist/${f}`, `dist/${f}`);

if (watch) {
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  const results = await Promise.allSettled(contexts.map((c) => c.rebuild()));
  await Promise.all(contexts.map((c) => c.dispose()));
  if (results.some((r) => r.status === 'rejected')) process.exit(1);
  chmodSync('dist/cli.js', 0o755);
}
