// The lineages a report embeds (src/protocol/reportData.ts): a lineage that replays alone is taken
// from the whole file's analysis (lineageSlicer), the others analysed by themselves. Either way
// each must be what that lineage analysed alone is, report and everything the view gets, as
// `analyze --lineage ID` shows it: on lineages whose turns interleave
// in time, and findings said once per file or placed in no session (each lineage says its own).
// Every example, bad fixture, upstream-written store and extreme shape: reportData.slow.test.ts.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { everyLineage } from '../../src/shared/overviewColumns';
import { analyze, lineageSlicer } from '../../src/analysis/report';
import { TranscriptLineages } from '../../src/hermes/lineage';
import type { InputFinding, Transcript } from '../../src/shared/model/transcript';
import { reportData } from '../../src/protocol/reportData';
import { decompressInspection } from '../../src/shared/embedded';
import { loadTranscript } from '../../src/transcripts/load';
import { tempDirsRemovedAfter } from '../cli/support';
import { byItself, checkLineages, OPTIONS, writeInterleavedPair } from '../support/embeddedLineages';
import { writeHermesDb } from '../support/hermesDb';
import { shapeId, writeLineageShape } from '../support/lineageShapes';
import { sqliteExec } from '../support/sqliteExec';

const newDir = tempDirsRemovedAfter();

describe('each lineage a report embeds, sliced from the whole analysis or analysed alone, is the lineage analysed by itself', () => {
  it('on lineages whose turns interleave in time, numbered otherwise in the whole file', async () => {
    const path = join(newDir(), 'state.db');
    writeInterleavedPair(path);
    const transcript = await loadTranscript(path);
    assert.deepEqual(
      analyze(transcript, OPTIONS).report.turns.map((t) => t.sessionId),
      ['a', 'b', 'a', 'b', 'a', 'b'],
    );
    assert.deepEqual(await checkLineages('interleaved', transcript, path), { lineages: 2, sliced: 2 });
    // Two lineages are no slice of one.
    assert.equal(lineageSlicer(analyze(transcript, OPTIONS), OPTIONS)(new TranscriptLineages(transcript).narrow(['a', 'b'])), null);
  });

  it('on a branch that answers its parent’s last ask: the two replay together, so each is analysed alone', async () => {
    const path = join(newDir(), 'state.db');
    writeHermesDb(
      path,
      [
        { id: 'p', startedAt: 900, endReason: 'branched' },
        { id: 'c', parent: 'p', startedAt: 950 },
      ],
      [
        ['p', 'user', 'first ask'],
        ['p', 'assistant', 'first answer'],
        ['p', 'user', 'second ask'],
        ['c', 'user', 'first ask'],
        ['c', 'assistant', 'first answer'],
        ['c', 'user', 'second ask'],
        ['c', 'assistant', 'second answer, in the branch'],
      ],
    );
    const transcript = await loadTranscript(path);
    const whole = analyze(transcript, OPTIONS);
    const lineages = new TranscriptLineages(transcript);
    for (const id of ['p', 'c']) {
      const members = lineages.members(id);
      assert.equal(lineages.replaysAlone(members), false, id);
      // Within the file the branch answers the parent's last ask; alone, the parent's list holds it unanswered.
      assert.notDeepEqual(lineageSlicer(whole, OPTIONS)(lineages.narrow(members))?.report, byItself(transcript, members).report, id);
    }
    assert.deepEqual(await checkLineages('branch', transcript, path), { lineages: 2, sliced: 0 });
  });

  it('on findings said once per file or placed in no session: each lineage says its own', async () => {
    const n = 8;
    const path = join(newDir(), 'state.db');
    writeLineageShape(path, 'flat', n);
    sqliteExec(path, [
      // Counters not kept in three sessions (one info per file naming them), one that disagrees,
      // and a session of one tool result and no ask.
      `UPDATE sessions SET api_call_count = 0 WHERE id IN ('${shapeId(0)}', '${shapeId(1)}', '${shapeId(2)}');`,
      `UPDATE sessions SET api_call_count = 4 WHERE id = '${shapeId(3)}';`,
      `INSERT INTO sessions (id, source, started_at, end_reason, message_count, api_call_count) VALUES ('${shapeId(n)}', 'cli', 1789800000, 'user_exit', 1, 0);`,
      `INSERT INTO messages (session_id, role, content, timestamp) VALUES ('${shapeId(n)}', 'tool', 'a tool result, and no ask', 1789800001);`,
    ]);
    const read = await loadTranscript(path);
    const finding = (message: string, sessionId?: string): InputFinding => ({
      severity: 'warning',
      code: 'parse-error',
      message,
      pos: sessionId === undefined ? { offset: 0 } : { sessionId },
    });
    const transcript: Transcript = { ...read, findings: [...read.findings, finding('the file as a whole'), finding('session 5 alone', shapeId(5))] };
    const whole = analyze(transcript, OPTIONS);
    const unkept = (d: { code: string }[]): number => d.filter((f) => f.code === 'counters-not-recorded').length;
    assert.equal(unkept(whole.report.diagnostics), 1);
    assert.match(whole.report.diagnostics.find((d) => d.code === 'counters-not-recorded')?.message ?? '', /for 3 sessions/);

    assert.deepEqual(await checkLineages('findings', transcript), { lineages: n + 1, sliced: n + 1 });
    const data = reportData(whole, 'T', OPTIONS);
    assert.ok(data.overview);
    assert.equal(everyLineage(data.overview.lineages).length, n + 1);
    for (let i = 0; i <= n; i++) {
      const id = shapeId(i);
      const { findings } = await decompressInspection(data.lineages[id]);
      const own = findings.map((f) => `${f.code}: ${f.message}`);
      assert.ok(own.includes('parse-error: the file as a whole'), id);
      assert.equal(own.includes('parse-error: session 5 alone'), i === 5, id);
      assert.equal(unkept(findings), i < 3 ? 1 : 0, id);
      if (i < 3)
        assert.ok(
          own.some((f) => f.startsWith('counters-not-recorded') && f.includes(`for 1 session `) && f.includes(id)),
          id,
        );
      assert.equal(
        own.some((f) => f.startsWith('replay-count-mismatch')),
        i === 3,
        id,
      );
      assert.equal(
        own.some((f) => f.startsWith('no-turns')),
        i === n,
        id,
      );
    }
  });
});
