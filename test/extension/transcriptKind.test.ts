// The palette's description of a transcript (src/extension/transcriptKind.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sizeText, transcriptKind } from '../../src/extension/transcriptKind';

describe("the palette's description of a transcript", () => {
  it('names its kind by name and its size', () => {
    assert.equal(transcriptKind('/w/home/state.db'), 'Hermes state.db');
    assert.equal(transcriptKind('/w/sessions/session_20260918_101500_a1b2c3.json'), 'session snapshot');
    assert.equal(transcriptKind('/w/sessions/request_dump_x_20260918_102255_523000.json'), 'request dump');
    assert.equal(transcriptKind('/w/agent.trace.jsonl'), 'JSONL (turn trace)');
    assert.equal(transcriptKind('/w/other.db'), 'SQLite database');
    assert.deepEqual([0, 1023, 1024, 2_899_968, 307 * 1024 * 1024].map(sizeText), ['0 B', '1023 B', '1.0 KB', '2.8 MB', '307 MB']);
  });
});
