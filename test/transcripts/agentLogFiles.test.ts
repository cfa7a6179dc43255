// agent.log files beside a Hermes home's state.db, written by Python's logging as upstream sets it
// up (test/support/agent_log.py): found and ordered oldest first, read through a rotation in the
// middle of a turn (the session tag switching to the child there), read on after more lines and a
// further rotation, never written.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { AgentLogRecord } from '../../src/transcripts/agentLogRecords';
import { findAgentLogs, readAgentLog, readAgentLogs, type AgentLogRead } from '../../src/transcripts/agentLogFiles';
import { asLogged, writeAgentLog } from '../support/agentLogWriter';

const dir = mkdtempSync(join(tmpdir(), 'pi-agentlogs-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const home = join(dir, 'home');
const db = join(home, 'state.db');
mkdirSync(home, { recursive: true });
writeFileSync(db, '');
const first = writeAgentLog(home, 'first', 1);
const logs = join(home, 'logs');
const records = (reads: AgentLogRead[]): AgentLogRecord[] => reads.flatMap((r) => r.records);

function snapshot(): Map<string, { bytes: Buffer; mtimeMs: number }> {
  return new Map(readdirSync(logs).map((n) => [n, { bytes: readFileSync(join(logs, n)), mtimeMs: statSync(join(logs, n)).mtimeMs }]));
}

describe('the logs of a Hermes home', () => {
  const before = snapshot();
  const paths = findAgentLogs(db);
  const reads = readAgentLogs(paths);

  it('are found beside state.db, oldest first', () => {
    assert.deepEqual(paths, [join(logs, 'agent.log.1'), join(logs, 'agent.log')]);
  });

  it('read across the rotation as one log: every record logged, with its fields, and no finding', () => {
    const all = records(reads);
    assert.deepEqual(
      all.map((r, i) => asLogged(r, first[i])),
      first,
    );
    assert.deepEqual(
      reads.flatMap((r) => r.findings),
      [],
    );
    assert.ok(reads.every((r) => r.records.length > 0 && r.records.every((rec) => rec.file === r.path)));
  });

  it('read in chunks of any size, a line cut between two reads into the same buffer, as read whole', () => {
    // The files here fit one default chunk; these cuts put hundreds of lines across reads.
    for (const chunkBytes of [97, 1000, 4096]) {
      assert.deepEqual(records(paths.map((p) => readAgentLog(p, { chunkBytes }))), records(reads), `chunks of ${chunkBytes} bytes`);
    }
  });

  it('switch the session tag to the child in the middle of the turn, across the two files', () => {
    const all = records(reads);
    const started = all.findIndex((r) => r.kind === 'compaction-started');
    const done = all.findIndex((r) => r.kind === 'compaction-done');
    const turns = all.flatMap((r, i) => (r.kind === 'turn' ? [i] : []));
    assert.ok(turns.filter((t) => t < started).length === turns.filter((t) => t < done).length, 'no turn starts between them');
    assert.notEqual(all[started].sessionTag, all[done].sessionTag);
    assert.ok(all[done].kind === 'compaction-done' && all[done].sessionId === all[done].sessionTag);
    assert.equal(all[started].file, join(logs, 'agent.log.1'));
    assert.equal(all[done].file, join(logs, 'agent.log'));
  });

  it('keep a record from a thread without a session context untagged', () => {
    const untagged = records(reads).filter((r) => r.sessionTag === null);
    assert.deepEqual(
      untagged.map((r) => r.kind),
      first.filter((t) => t.sessionTag === null).map((t) => t.kind),
    );
    assert.ok(untagged.length > 0);
  });

  it('are left as they were', () => {
    const now = snapshot();
    assert.deepEqual([...now.keys()].sort(), [...before.keys()].sort());
    for (const [name, b] of before) {
      assert.ok(now.get(name)?.bytes.equals(b.bytes), name);
      assert.equal(now.get(name)?.mtimeMs, b.mtimeMs, name);
    }
  });

  it('are read on after more lines and another rotation, as a whole read gives them', () => {
    const second = writeAgentLog(home, 'second', 1);
    const again = findAgentLogs(db);
    assert.deepEqual(again, [join(logs, 'agent.log.2'), join(logs, 'agent.log.1'), join(logs, 'agent.log')]);
    const onward = readAgentLogs(again, { earlier: reads });
    // The file read as agent.log is agent.log.1 now: read on from where it stopped, as is the older one (nothing new).
    assert.deepEqual(
      onward.map((r) => [r.continued, r.records.length > 0]),
      [
        [true, false],
        [true, true],
        [false, true],
      ],
    );
    const fresh = readAgentLogs(again);
    const withoutFile = (rs: AgentLogRecord[]) => rs.map(({ file: _file, ...rest }) => rest);
    assert.deepEqual(withoutFile([...records(reads), ...records(onward)]), withoutFile(records(fresh)));
    const truth = [...first, ...second];
    assert.deepEqual(
      records(fresh).map((r, i) => asLogged(r, truth[i])),
      truth,
    );
    const calls = records(fresh).filter((r) => r.kind === 'call');
    assert.equal(calls.at(-2)?.kind === 'call' && calls.at(-2)?.n, 1, 'a new agent counts its calls from 1 again');
  });
});

describe('a log on its own', () => {
  it('is read without a state.db beside it', () => {
    const alone = join(dir, 'alone');
    writeAgentLog(alone, 'small');
    const r = readAgentLog(join(alone, 'logs', 'agent.log'));
    assert.ok(r.records.some((x) => x.kind === 'call'));
    assert.equal(r.ended, false, 'agent.log is the live file: its last line may still be written');
  });

  it('that cannot be read is skipped with a finding', () => {
    const r = readAgentLog(join(dir, 'no-such', 'agent.log'));
    assert.deepEqual(r.records, []);
    assert.match(r.findings[0]?.message ?? '', /skipped, cannot open \(ENOENT\)/);
    const folder = readAgentLog(dir);
    assert.match(folder.findings[0]?.message ?? '', /not a regular file/);
  });

  it('a home without logs has none', () => {
    assert.deepEqual(findAgentLogs(join(dir, 'empty-home', 'state.db')), []);
  });
});
