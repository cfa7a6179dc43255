// agent.log files written by Python's own logging the way upstream Hermes sets it up
// (test/support/agent_log.py), with the records they should read as.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { PYTHON } from './python';

const AGENT_LOG_PY = join(__dirname, 'agent_log.py');

/** One record as the writer logged it: the fields the reader should give, `asctime` as written. */
export type LoggedTruth = Record<string, unknown> & { kind: string; asctime: string };

/** Writes PART (`small`, `first`, `second`) into HOME/logs/ and returns its truth. */
export function writeAgentLog(home: string, part: 'small' | 'first' | 'second', maxMb = 5): LoggedTruth[] {
  const r = spawnSync(PYTHON, [AGENT_LOG_PY, home, part, '--max-mb', String(maxMb)], { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`agent_log.py ${part} failed (${r.error?.message ?? `exit ${r.status}`}): ${r.stderr}`);
  return JSON.parse(r.stdout) as LoggedTruth[];
}

/** The record's fields the truth names (its time as `asctime`), to compare the two. */
export function asLogged(record: object, truth: LoggedTruth): Record<string, unknown> {
  const r = record as Record<string, unknown> & { time: { text: string } };
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(truth)) out[key] = key === 'asctime' ? r.time.text : r[key];
  return out;
}
