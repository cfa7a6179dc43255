// Each lineage a report embeds against the lineage analysed by itself (src/protocol/reportData.ts):
// the check reportData's tests run on one transcript, shared by the quick cases and the corpus.

import assert from 'node:assert/strict';
import { analyze, lineageSlicer, type Analysis, type AnalyzeOptions } from '../../src/analysis/report';
import { createTokenCounter } from '../../src/analysis/tokenizer';
import { PROFILES } from '../../src/engine/profile';
import { TranscriptLineages } from '../../src/hermes/lineage';
import type { Transcript } from '../../src/shared/model/transcript';
import type { EmbeddedInspection } from '../../src/shared/messages';
import { Inspection } from '../../src/protocol/inspection';
import { reportData } from '../../src/protocol/reportData';
import { decompressInspection } from '../../src/shared/embedded';
import { loadTranscript } from '../../src/transcripts/load';
import { writeHermesDb } from './hermesDb';

/**
 * A state.db of two lineages, a and b, whose three turns take turns in time (rows are stamped in the
 * order written): numbered otherwise in the whole file than in each lineage. `ask` words each ask.
 */
export function writeInterleavedPair(path: string, ask: (who: 'a' | 'b', k: number) => string = (who, k) => `${who} asks ${k}`): void {
  writeHermesDb(
    path,
    [
      { id: 'a', startedAt: 900 },
      { id: 'b', startedAt: 901 },
    ],
    [0, 1, 2].flatMap((k) => [
      ['a', 'user', ask('a', k)],
      ['a', 'assistant', `a answered ${k}`],
      ['b', 'user', ask('b', k)],
      ['b', 'assistant', `b answered ${k}`],
    ]),
  );
}

export const OPTIONS: AnalyzeOptions = { profile: PROFILES['hermes-current'], counter: createTokenCounter('o200k_base'), messages: false };

const view = (a: Analysis): EmbeddedInspection => new Inspection(a, 'T').exportAll();

/**
 * The lineage analysed by itself, from a copy of its rows no replay has read: the replay keeps what
 * it learned of a list beside it, and a second replay of the same rows can differ (a turn that went
 * on before a compaction), where `--lineage` reads the file afresh.
 */
export const byItself = (transcript: Transcript, members: readonly string[]): Analysis =>
  analyze(structuredClone(new TranscriptLineages(transcript).narrow(members)), OPTIONS);

export interface Checked {
  /** Lineages whose rows were read, so the report embeds them. */
  lineages: number;
  /** Of them, taken from the whole file's analysis. */
  sliced: number;
}

/**
 * Every lineage of the file: the slice of the whole analysis (where it replays alone) and the
 * report's embedded inspection equal the lineage analysed by itself, and, for a file on disk,
 * what `--lineage` reads.
 */
export async function checkLineages(label: string, transcript: Transcript, path?: string): Promise<Checked> {
  const whole = analyze(transcript, OPTIONS);
  const data = reportData(whole, 'T', OPTIONS);
  const sliceOf = lineageSlicer(whole, OPTIONS);
  const loaded = new Set(transcript.listedOnly ? [] : transcript.sessions.map((s) => s.id));
  const embedded = data.overview ? data.lineages : {};
  // `--lineage` finds a session in the sessions table: rows of one it does not list are no lineage to ask it for.
  const named = transcript.catalog && new Set(transcript.catalog.map((c) => c.id));
  const out: Checked = { lineages: 0, sliced: 0 };
  const lineages = new TranscriptLineages(transcript);
  for (const id of lineages.listed.chains.keys()) {
    const members = lineages.members(id);
    if (!members.every((m) => loaded.has(m))) continue;
    out.lineages++;
    const at = `${label}, lineage ${id}`;
    const expected = byItself(transcript, members);
    const expectedView = view(expected);
    if (lineages.replaysAlone(members)) {
      const slice = sliceOf(lineages.narrow(members));
      assert.ok(slice, `${at}: not sliced`);
      out.sliced++;
      assert.deepEqual(slice.report, expected.report, at);
      assert.deepEqual(view(slice), expectedView, at);
    }
    if (data.overview) assert.deepEqual(await decompressInspection(embedded[id]), expectedView, at);
    if (path && (!named || named.has(id)))
      assert.deepEqual(view(analyze(await loadTranscript(path, { lineage: id }), OPTIONS)), expectedView, `${at} (--lineage)`);
  }
  if (data.overview) assert.equal(Object.keys(embedded).length, out.lineages, label);
  return out;
}
