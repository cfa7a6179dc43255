// The current user row after a compaction inside its turn rewrote it and dropped its sidecar
// (src/hermes/droppedSidecar.ts), and what the replay makes of it (src/engine/replay.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyze } from '../../src/analysis/report';
import { createTokenCounter } from '../../src/analysis/tokenizer';
import { SUMMARY_END_MARKER, SUMMARY_PREFIX, TODO_SNAPSHOT_PREFIX } from '../../src/hermes/compactionMarkers';
import { composedLive, injectedBlock } from '../../src/hermes/droppedSidecar';
import { PROFILES } from '../../src/engine/profile';
import type { Row } from '../../src/shared/model/rows';
import type { Transcript } from '../../src/shared/model/transcript';

const BLOCK = '<memory-context>\nrecalled\n</memory-context>\n\n[Repo] branch main';
const TODO = `${TODO_SNAPSHOT_PREFIX}\n- [ ] 2. replace them (pending)`;

describe('dropped sidecar: the block the original carried', () => {
  const cases: { name: string; original: Row; block: string | null }[] = [
    { name: 'content, blank line, block', original: { role: 'user', content: 'Replace it.', api_content: `Replace it.\n\n${BLOCK}` }, block: BLOCK },
    { name: 'no sidecar', original: { role: 'user', content: 'Replace it.' }, block: null },
    {
      name: 'a sidecar that is not the words plus a block (an override)',
      original: { role: 'user', content: 'Replace it.', api_content: 'Something else' },
      block: null,
    },
    { name: 'a sidecar equal to the words and the separator only', original: { role: 'user', content: 'x', api_content: 'x\n\n' }, block: null },
    { name: 'part-list content', original: { role: 'user', content: [{ type: 'text', text: 'x' }], api_content: `x\n\n${BLOCK}` }, block: null },
  ];
  for (const c of cases) it(c.name, () => assert.equal(injectedBlock(c.original), c.block));
});

describe('dropped sidecar: the copy as its turn sent it', () => {
  const original: Row = { role: 'user', content: 'Replace it.', api_content: `Replace it.\n\n${BLOCK}` };
  const cases: { name: string; copy: Row; sent: string | null }[] = [
    {
      name: 'todo-merged copy without a sidecar: its words, then the block',
      copy: { role: 'user', content: `Replace it.\n\n${TODO}` },
      sent: `Replace it.\n\n${TODO}\n\n${BLOCK}`,
    },
    { name: 'a copy that kept its sidecar is sent as stamped', copy: { role: 'user', content: `Replace it.\n\n${TODO}`, api_content: 'stamped' }, sent: null },
    {
      name: 'a part-list copy gets no string sidecar (compose_user_api_content returns None)',
      copy: { role: 'user', content: [{ type: 'text', text: 'Replace it.' }] },
      sent: null,
    },
  ];
  for (const c of cases) it(c.name, () => assert.equal(composedLive(original, c.copy)?.api_content ?? null, c.sent));
});

describe('dropped sidecar in the replay', () => {
  // One session compacted in place before the second turn's first request: the turn's row had been
  // stamped and stored, the fold merged the todo list into its copy and dropped the sidecar.
  const carrier: Row = { role: 'user', content: `${SUMMARY_PREFIX}\nsummary\n\n${SUMMARY_END_MARKER}`, _compressed_summary: true, timestamp: 30 };
  const head: Row[] = [
    { role: 'user', content: 'Plan it.', timestamp: 1 },
    { role: 'assistant', content: 'Planned.', timestamp: 2 },
    { role: 'user', content: 'Go on.', timestamp: 3 },
  ];
  const ask: Row = { role: 'user', content: 'Replace it.', api_content: `Replace it.\n\n${BLOCK}`, timestamp: 20 };
  const before: Row[] = [...head, { role: 'assistant', content: 'Going.', timestamp: 4 }, ask];
  const after: Row[] = [
    ...head.map((r) => ({ ...r })),
    carrier,
    { role: 'user', content: `Replace it.\n\n${TODO}`, timestamp: 20 },
    { role: 'assistant', content: 'Replaced.', timestamp: 40 },
    { role: 'user', content: 'Anything else?', timestamp: 50 },
    { role: 'assistant', content: 'No.', timestamp: 51 },
  ];
  const transcript: Transcript = {
    path: 'mem',
    format: 'hermes-state-db',
    captured: [],
    findings: [],
    sessions: [
      {
        id: 's',
        parentId: null,
        endReason: null,
        systemPrompt: 'sys',
        pos: { sessionId: 's' },
        generations: [
          { rows: before, pos: before.map(() => ({ sessionId: 's' })) },
          {
            rows: after,
            pos: after.map(() => ({ sessionId: 's' })),
            compaction: { mode: 'in-place', before, beforePos: before.map(() => ({ sessionId: 's' })) },
          },
        ],
      },
    ],
  };
  const r = analyze(transcript, { profile: PROFILES['hermes-current'], counter: createTokenCounter('o200k_base'), messages: false }).report;

  it('the turn that lost its sidecar shows the context its requests still sent', () => {
    const turn = r.turns[r.turns.length - 2];
    assert.deepEqual(
      turn.injected.map((s) => s.kind),
      ['memory', 'plugin'],
    );
  });

  it('the next turn sends the row bare: a sidecar-dropped break where the block began', () => {
    const next = r.requests[r.requests.length - 1];
    assert.equal(next.prefix.stable, false);
    assert.equal(next.prefix.breakAt?.cause, 'sidecar-dropped');
    assert.equal(next.prefix.breakAt?.messageIndex, 5, 'system, three head copies, the carrier, then the rewritten row');
    assert.equal(next.prefix.breakAt?.byteOffset, Buffer.byteLength(`Replace it.\n\n${TODO}`));
  });
});
