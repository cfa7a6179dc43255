// Writes the bad-input corpus of test/support/badFixtures.ts under test/fixtures/bad/ (run: npx tsx
// scripts/make-bad-fixtures.ts [--out DIR]); test/robustness/bad-input.slow.test.ts checks the committed
// corpus against a fresh run.

import { rmSync } from 'node:fs';
import { BAD_FIXTURES_DIR, writeBadCorpus } from '../test/support/badFixtures';

async function main(): Promise<void> {
  const outFlag = process.argv.indexOf('--out');
  const dir = outFlag >= 0 ? process.argv[outFlag + 1] : BAD_FIXTURES_DIR;
  if (outFlag < 0) rmSync(dir, { recursive: true, force: true });
  const names = await writeBadCorpus(dir);
  console.log(`wrote ${names.length} files to ${dir}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
