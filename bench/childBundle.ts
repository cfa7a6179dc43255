// A bench child (a script run in its own process to read its peak memory) bundled like the shipped
// engine (the tokenizer's packed vocabularies too, their files beside it); sql.js stays external (its wasm sits beside it).

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
