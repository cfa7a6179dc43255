// Copies at the head of a session JSON snapshot, told apart by their timestamps (src/hermes/snapshot.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SUMMARY_END_MARKER, SUMMARY_PREFIX } from '../../src/hermes/compactionMarkers';
import { leadingOlderThan, sessionStartSeconds, snapshotCopies } from '../../src/hermes/snapshot';
import { readHermesSessionJson } from '../../src/transcripts/hermesSessionJson';
import type { Row } from '../../src/shared/model/rows';

const carrier = (timestamp?: number): Row => ({
  role: 'user',
  content: `${SUMMARY_PREFIX} x\n\n${SUMMARY_END_MARKER}`,
  _compressed_summary: true,
  ...(timestamp ? { timestamp } : {}),
});
const u = (content: string, timestamp: number): Row => ({ role: 'user', content, timestamp });
const a = (content: string, timestamp: number): Row => ({ role: 'assistant', content, timestamp });

describe('snapshot copies', () => {
  // A rotated child's snapshot: head copies, carrier, tail copies, the flushed ask, its answer, a later turn.
  const child = (c: Row): Row[] => [u('q1', 10), a('a1', 11), c, u('q5', 50), a('a5', 51), u('ask', 60), a('answer', 70), u('next', 80), a('ok', 81)];

  it("by the carrier's timestamp: rows older than it are copies; the flushed ask is the turn", () => {
    const r = snapshotCopies(child(carrier(65)), null);
    assert.deepEqual(r, { carried: 5, evidence: 'carrier-timestamp', carrier: 2 });
  });

  it('by session_start where the carrier has none', () => {
    assert.deepEqual(snapshotCopies(child(carrier()), 65), { carried: 5, evidence: 'session-start', carrier: 2 });
  });

  it('without either the file cannot tell: only the rows up to the carrier', () => {
    assert.deepEqual(snapshotCopies(child(carrier()), null), { carried: 3, evidence: 'none', carrier: 2 });
  });

  it('a list without a carrier is no evidence of copies, whatever its start (a rotated id is minted after its rows)', () => {
    const rows = [u('p1', 10), a('r1', 11), u('new', 100), a('x', 101)];
    assert.equal(snapshotCopies(rows, 90).carried, 0);
    assert.equal(snapshotCopies(rows, 500).carried, 0, 'a start later than every row takes none of them');
    assert.equal(snapshotCopies(rows, 5).carried, 0);
    assert.equal(leadingOlderThan(rows, 90), 2, 'what a reader can still say: two rows are older than the start');
  });

  it('a snapshot whose last_updated and newest row disagree by more than any time zone cannot place its start', () => {
    const newest = Date.UTC(2026, 8, 18, 8, 20, 3) / 1000;
    assert.equal(sessionStartSeconds('2026-09-18T10:15:00', '2026-09-19T10:20:05', [u('q', newest)]), null, '+26 h');
    assert.equal(sessionStartSeconds('2026-09-18T10:15:00', '2026-09-17T19:20:05', [u('q', newest)]), null, '-13 h');
    assert.notEqual(sessionStartSeconds('2026-09-18T10:15:00', '2026-09-18T22:20:05', [u('q', newest)]), null, '+14 h is a zone (Kiribati)');
    assert.notEqual(sessionStartSeconds('2026-09-17T20:15:00', '2026-09-17T20:20:05', [u('q', newest)]), null, '-12 h is a zone');
  });

  it('places session_start in unix time through last_updated and the newest row (zone offset)', () => {
    // 2026-09-18T10:15:00 local at UTC+2 is 08:15:00Z.
    const newest = Date.UTC(2026, 8, 18, 8, 20, 3) / 1000;
    const start = sessionStartSeconds('2026-09-18T10:15:00.500000', '2026-09-18T10:20:05.000000', [u('q', newest)]);
    assert.equal(start, Date.UTC(2026, 8, 18, 8, 15, 0) / 1000 + 0.5);
    assert.equal(sessionStartSeconds('yesterday', '2026-09-18T10:20:05', [u('q', newest)]), null);
  });

  it('rows after the carrier that no ask drives are copies; a session start older than the tail says nothing', () => {
    const rows = [u('q1', 10), carrier(), a('tail reply', 40), u('ask', 50), a('answer', 60)];
    assert.deepEqual(snapshotCopies(rows, null), { carried: 3, evidence: 'none', carrier: 1 });
    assert.deepEqual(snapshotCopies(rows, 5), { carried: 3, evidence: 'none', carrier: 1 }, 'the session began before every row: no evidence about the tail');
    assert.deepEqual(snapshotCopies(rows, 55), { carried: 3, evidence: 'session-start', carrier: 1 }, 'the ask older than the session is the flushed turn');
    const noAsk = [carrier(), a('continuing', 40), a('ok', 41)];
    assert.equal(snapshotCopies(noAsk, null).carried, 1, 'with no human ask at all the answers are replayed (and reported, #80622)');
  });
});

describe('snapshot copies nothing in the file dates (upstream writes the carrier without a timestamp)', () => {
  // Each list: head copies, the carrier, a copied earlier ask and its answer, the compaction's own
  // turn, a later turn. Read alone, the copied ask may as well have opened a turn after the carrier.
  const noTime = (r: Row): Row => {
    const { timestamp: _, ...rest } = r;
    return rest;
  };
  const cases: { name: string; rows: Row[]; start: string; id: string }[] = [
    {
      name: 'in place: the session began before every row',
      rows: [u('q1', 10), a('a1', 11), carrier(), u('q5', 50), a('a5', 51), u('ask', 60), a('answer', 70), u('next', 80), a('ok', 81)],
      start: '1970-01-01T00:00:05',
      id: '19700101_000005_abcdef',
    },
    {
      name: 'a rotation child compacted again in place: the copied ask is younger than the child',
      rows: [u('q1', 10), a('a1', 11), carrier(), u('q5', 50), a('a5', 51), u('ask', 60), a('answer', 70), u('next', 80), a('ok', 81)],
      start: '1970-01-01T00:00:05',
      id: '19700101_000040_abcdef',
    },
    {
      name: 'older stores: no live row has a timestamp',
      rows: [u('q1', 10), a('a1', 11), carrier(), u('q5', 50), a('a5', 51), u('ask', 60), a('answer', 70)].map(noTime),
      start: '1970-01-01T00:00:05',
      id: '19700101_000040_abcdef',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const doc = { session_id: c.id, session_start: c.start, last_updated: '1970-01-01T00:01:21', messages: c.rows };
      const t = readHermesSessionJson(`session_${c.id}.json`, JSON.stringify(doc));
      assert.equal(t.sessions[0].generations[0].carried, 3, 'only the rows up to the carrier are known copies');
      const undecided = t.findings.filter((f) => f.code === 'snapshot-incomplete' && f.severity === 'info' && f.message.includes('cannot tell'));
      assert.equal(undecided.length, 1, 'one finding says what the file could not decide');
    });
  }
});
