// The one summary line of the robustness run. bad-input.slow.test.ts, fuzz.slow.test.ts, cli/hostile.slow.test.ts and the state.db
// damage cases (transcripts/localDamage, hotJournal, sessionIds) and hermes/deepLineages run in separate
// processes under one `node --test` runner; each records its counts in a part file keyed by the
// runner's pid, and whichever finishes last prints the combined line (a file run alone prints its
// own counts).

import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it, type TestContext } from 'node:test';

export interface Counts {
  bad: number;
  fuzz: number;
  failures: number;
}

/** Each part and the test file that reports it. */
const FILES = {
  'bad-input': 'robustness/bad-input.slow.test.ts',
  fuzz: 'robustness/fuzz.slow.test.ts',
  'hostile-cli': 'cli/hostile.slow.test.ts',
  'store-damage': 'transcripts/localDamage.test.ts',
  'hot-journal': 'transcripts/hotJournal.slow.test.ts',
  'session-ids': 'transcripts/sessionIds.test.ts',
  'deep-lineages': 'hermes/deepLineages.slow.test.ts',
} as const;
type Part = keyof typeof FILES;
const PARTS = Object.keys(FILES) as Part[];

function runnerKey(): string {
  let started = '';
  try {
    started = readFileSync(`/proc/${process.ppid}/stat`, 'utf8').split(') ')[1]?.split(' ')[19] ?? '';
  } catch {
    /* not Linux */
  }
  return `${process.ppid}-${started}`;
}

/** The parts the runner was asked to run, read from its command line (only this part when unknown). */
function expectedParts(own: Part): Part[] {
  try {
    const argv = readFileSync(`/proc/${process.ppid}/cmdline`, 'utf8');
    const wanted = PARTS.filter((p) => argv.includes(FILES[p]));
    return wanted.includes(own) ? wanted : [own];
  } catch {
    return [own];
  }
}

const partFile = (key: string, part: Part): string => join(tmpdir(), `prompt-inspector-robustness-${key}-${part}.json`);

/**
 * The `it` of a file of bad inputs: each test counts as one input tried toward `part`'s share of the
 * summary line, and as a failure when it throws.
 */
export function countedBadInputs(part: Part): (name: string, fn: (t: TestContext) => unknown) => void {
  const counts: Counts = { bad: 0, fuzz: 0, failures: 0 };
  after(() => reportCounts(part, counts));
  return (name, fn) => {
    it(name, async (t) => {
      counts.bad++;
      try {
        await fn(t);
      } catch (e) {
        counts.failures++;
        throw e;
      }
    });
  };
}

export function reportCounts(own: Part, counts: Counts): void {
  const key = runnerKey();
  writeFileSync(partFile(key, own), JSON.stringify(counts));
  const parts = expectedParts(own);
  const found = parts.filter((p) => existsSync(partFile(key, p)));
  if (found.length < parts.length) return; // the other part prints when it finishes
  const total: Counts = { bad: 0, fuzz: 0, failures: 0 };
  for (const p of found) {
    try {
      const c = JSON.parse(readFileSync(partFile(key, p), 'utf8')) as Counts;
      total.bad += c.bad;
      total.fuzz += c.fuzz;
      total.failures += c.failures;
    } catch {
      /* removed by the other part after it printed */
    }
  }
  console.log(`robustness: ${total.bad} bad inputs tried, ${total.fuzz} fuzz cases, ${total.failures} failures`);
  for (const p of found) rmSync(partFile(key, p), { force: true });
}
