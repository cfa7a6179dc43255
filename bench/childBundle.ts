// A bench child (a script run in its own process to read its peak memory) bundled like the shipped
// engine; sql.js stays external (its wasm sits beside it).

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync } from 'esbuild';

/** bench/NAME.ts bundled into DIR once; its path. */
export function childBundle(dir: string, name: 'memoryChild' | 'homeChild'): string {
  const outfile = join(dir, `${name}.js`);
  if (!existsSync(outfile)) {
    buildSync({
      entryPoints: [join(__dirname, `${name}.ts`)],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      external: ['sql.js'],
      logLevel: 'silent',
    });
  }
  return outfile;
}
