// `sessions` as a table (src/cli/sessions.ts): every column for a pipe or --wide, and in a terminal
// the most wanted columns that fit its width, the title clipped first, the rest named.

import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { analyze } from '../../src/analysis/report';
import { sessionOverview } from '../../src/analysis/sessionOverview';
import { createTokenCounter } from '../../src/analysis/tokenizer';
import { sessionsTable } from '../../src/cli/sessions';
import { PROFILES } from '../../src/engine/profile';
import { OVERVIEW_COLUMNS } from '../../src/shared/overviewColumns';
import type { SessionOverview } from '../../src/shared/overviewTypes';
import { loadTranscript } from '../../src/transcripts/load';
import { example, runMain } from './support';

/** The terminal cells of a printed line (these are ASCII apart from the ellipsis and tree marks). */
const cells = (line: string): number => [...line].length;
/** The headings of the heading line: columns are two cells apart, a heading holds single spaces only. */
const headings = (line: string): string[] => line.trim().split(/ {2,}/);

describe('sessions table', () => {
  let overview: SessionOverview;
  before(async () => {
    const transcript = await loadTranscript(example('home/state.db'));
    overview = sessionOverview(
      transcript,
      analyze(transcript, { profile: PROFILES['hermes-current'], counter: createTokenCounter('o200k_base'), messages: false }).report,
    );
  });

  it('without a width, every column and nothing left out', () => {
    const lines = sessionsTable(overview, overview.lineages);
    assert.equal(headings(lines[1]).length, OVERVIEW_COLUMNS.length);
    assert.ok(!lines.some((l) => l.includes('left out')));
  });

  for (const fit of [80, 120, 160]) {
    it(`in ${fit} cells: every row fits, the most wanted columns first, the others named`, () => {
      const lines = sessionsTable(overview, overview.lineages, fit);
      const shown = headings(lines[1]);
      const rows = lines.slice(
        1,
        lines.findIndex((l) => l.includes('left out')),
      );
      assert.ok(rows.length > overview.lineages.length);
      for (const row of rows) assert.ok(cells(row) <= fit, `${cells(row)} cells: ${row}`);
      assert.deepEqual(shown.slice(0, 2), ['LINEAGE', 'TITLE']);
      for (const wanted of ['TURNS', 'BREAKS', 'ERRORS']) assert.ok(shown.includes(wanted), `${wanted} in ${fit} cells`);
      const left = lines.find((l) => l.includes('left out')) as string;
      assert.match(left, new RegExp(`^${OVERVIEW_COLUMNS.length - shown.length} column\\(s\\) left out to fit ${fit} cells: `));
      const named = left.slice(left.indexOf(': ') + 2, left.lastIndexOf(' (--wide')).split(', ');
      assert.deepEqual([...shown, ...named].sort(), OVERVIEW_COLUMNS.map((c) => c.heading).sort());
    });
  }

  it('a wider terminal keeps every column a narrower one keeps', () => {
    const kept = (fit: number) => headings(sessionsTable(overview, overview.lineages, fit)[1]);
    assert.ok(kept(120).length > kept(80).length);
    for (const h of kept(80)) assert.ok(kept(120).includes(h), h);
  });

  it('too narrow for even the lineage and its title: those two, the title clipped, never dropped', () => {
    const lines = sessionsTable(overview, overview.lineages, 20);
    assert.deepEqual(headings(lines[1]), ['LINEAGE', 'TITLE']);
    assert.ok(lines.some((l) => l.includes('…')));
  });

  it('the command fits a terminal, not a pipe or --wide; --wide is an option of sessions only', async () => {
    const run = async (args: string[], columns?: number): Promise<{ code: number | null; out: string[]; err: string[] }> => {
      const r = await runMain(args, { columns });
      return { code: r.code, out: r.stdout.split('\n'), err: r.stderr.split('\n') };
    };
    const file = example('home/state.db');
    const terminal = await run(['sessions', file], 100);
    assert.equal(terminal.code, 0);
    assert.ok(terminal.out.some((l) => l.includes('left out to fit 100 cells')));
    for (const args of [
      ['sessions', file, '--wide'],
      ['sessions', file],
    ]) {
      const whole = await run(args, args.includes('--wide') ? 100 : undefined);
      assert.equal(headings(whole.out[1]).length, OVERVIEW_COLUMNS.length, args.join(' '));
    }
    const refused = await run(['analyze', file, '--wide'], 100);
    assert.equal(refused.code, 2);
    assert.match(refused.err[0], /--wide is an option of `sessions`, not of `analyze`/);
  });
});
