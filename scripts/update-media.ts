// Copies the README's pictures that the last e2e run took (test-results/e2e/media/, written by
// test/e2e/extension.test.ts) into media/ where their bytes differ, and lists them: the one way
// media/ changes, so that `npm test` itself leaves the work tree as it found it.

import { copyFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');
const TAKEN = join(ROOT, 'test-results', 'e2e', 'media');

if (!existsSync(TAKEN)) {
  console.error(`${TAKEN}: no pictures taken; run the e2e tests first (npm run test:e2e)`);
  process.exit(1);
}
let changed = 0;
for (const name of readdirSync(TAKEN)
  .filter((n) => n.endsWith('.png'))
  .sort()) {
  const target = join(ROOT, 'media', name);
  const bytes = readFileSync(join(TAKEN, name));
  if (existsSync(target) && readFileSync(target).equals(bytes)) continue;
  copyFileSync(join(TAKEN, name), target);
  console.log(`media/${name} updated (${bytes.length} bytes): look at it before committing`);
  changed++;
}
console.log(changed ? `${changed} picture(s) updated` : 'media/ is up to date');
