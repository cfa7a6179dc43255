// A bench child (a script run in its own process to read its peak memory) bundled like the shipped
// engine (the tokenizer's packed vocabularies too, their files beside it); sql.js stays external (its wasm sits beside it).

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';

const { packedVocabularies } = require('../scripts/packedVocabularies.cjs') as { packedVocabularies: (dir?: string) => Plugin };

/** bench/NAME.ts bundled into DIR once; its path. */
export async function childBundle(dir: string, name: 'memoryChild' | 'homeChild' | 'fillChild'): Promise<string> {
  const outfile = join(dir, `${name}.js`);
  if (!existsSync(outfile)) {
    await build({
      entryPoints: [join(__dirname, `${name}.ts`)],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      external: ['sql.js'],
      logLevel: 'silent',
      plugins: [packedVocabularies()],
    });
  }
  return outfile;
}

/** Runs a bench child in a fresh node process (the project's packages resolvable from it) and parses the JSON it prints. */
export function runChild<T>(bundle: string, ...args: string[]): T {
  const out = execFileSync(process.execPath, [bundle, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NODE_PATH: join(__dirname, '..', 'node_modules') },
    maxBuffer: 64 << 20,
  });
  return JSON.parse(out) as T;
}
