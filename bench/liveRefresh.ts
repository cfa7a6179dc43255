// A transcript growing while it is open (issue 10, part 3): a 4,000-turn session gets one more
// turn, five times, the way each format grows (state.db: rows committed to the WAL by real SQLite,
// through a connection open all along, as the agent's is; session JSON: the file rewritten; turn
// trace: one more line), and the shipped worker (dist/engine.js) is asked again each time, as the
// extension asks it when the file changes. Printed: the first analysis, each refresh, the median
// refresh's share of the analysis (target ≤ 5 %) and the slowest refresh (target ≤ 250 ms). Then
// an /undo in one lineage of a 300-session home: what replaying only that lineage costs.
// Run alone with `npx tsx bench/liveRefresh.ts` (after `npm run build`); also part of `npm run bench`.

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { appendFileSync, copyFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import initSqlJs from 'sql.js';
import { EngineClient } from '../src/worker/engineProtocol';
import { sqliteExec } from '../test/support/sqliteExec';
import { home } from './home';
import { synthesizeLongRun, toSessionJson, toStateDb, toTurnTraceJsonl, type SynthSession } from '../test/support/synthesize';

const ROOT = join(__dirname, '..');
const TURNS = 4000;
/** Turns appended one at a time, each refresh measured. */
const REFRESHES = 5;
const RATIO_TARGET = 0.05;
const LATENCY_TARGET_MS = 250;

const ms = (t: number): string => `${t.toFixed(0)} ms`;

/** The session's first `turns` turns: rows up to (not including) the next user row. */
function firstTurns(session: SynthSession, turns: number): SynthSession {
  const asks = session.rows.flatMap((r, i) => (r.role === 'user' ? [i] : []));
  return { ...session, rows: session.rows.slice(0, asks[turns] ?? session.rows.length) };
}

/**
 * The agent's connection to its store, open while it runs (so its WAL stays, as a running agent's
 * does; a connection closing checkpoints the log and removes it): each line read commits, as one
 * transaction, the full store's messages up to the id it names.
 */
const WRITER_PY = `
import sqlite3, sys
live, full = sys.argv[1], sys.argv[2]
c = sqlite3.connect(live, isolation_level=None)
c.execute('PRAGMA journal_mode=WAL')
c.execute("ATTACH DATABASE ? AS full", (full,))
for line in sys.stdin:
    c.execute('BEGIN')
    c.execute('INSERT INTO messages SELECT * FROM full.messages WHERE id > (SELECT max(id) FROM main.messages) AND id <= ?', (int(line),))
    c.execute('UPDATE sessions SET message_count = (SELECT count(*) FROM messages WHERE session_id = sessions.id)')
    c.execute('COMMIT')
    print('committed', flush=True)
`;
import { mb, median, verdict } from './figures';

class LiveWriter {
  private readonly process: ChildProcessWithoutNullStreams;
  private readonly answers: AsyncIterator<string>;

  constructor(db: string, full: string) {
    this.process = spawn('python3', ['-c', WRITER_PY, db, full]);
    this.answers = createInterface({ input: this.process.stdout })[Symbol.asyncIterator]();
  }

  /** Commits the messages up to id `last` (the synthetic store numbers them from 1, in order). */
  async commit(last: number): Promise<void> {
    this.process.stdin.write(`${last}\n`);
    const answer = await this.answers.next();
    if (answer.done || answer.value !== 'committed') throw new Error(`the writer did not commit: ${String(answer.value)}`);
  }

  close(): void {
    this.process.stdin.end();
  }
}

interface Grown {
  label: string;
  path: string;
  /** Makes the file one turn longer, as the format's writer does. */
  grow(): void | Promise<void>;
  close?(): void;
}

/**
 * A session of `turns` turns in each format, each growing a turn at a time up to `turns + more`:
 * the state.db through a connection that committed its last turn to the WAL before the first read.
 */
async function inputs(dir: string, turns: number, more: number, seed: number): Promise<Grown[]> {
  const run = synthesizeLongRun(turns + more, seed);
  const full = run.session;
  const at = (n: number): SynthSession => firstTurns(full, n);
  const SQL = await initSqlJs();
  const db = join(dir, `state_${seed}.db`);
  const fullDb = join(dir, `full_${seed}.db`);
  writeFileSync(db, toStateDb(SQL, at(turns - 1)));
  writeFileSync(fullDb, toStateDb(SQL, full));
  const writer = new LiveWriter(db, fullDb);
  await writer.commit(at(turns).rows.length);
  const json = join(dir, `session_${full.id}.json`);
  writeFileSync(json, toSessionJson(at(turns)));
  const trace = join(dir, `agent_${seed}.trace.jsonl`);
  writeFileSync(trace, toTurnTraceJsonl(run.trace.slice(0, turns)));
  let [inDb, inJson, inTrace] = [turns, turns, turns];
  return [
    { label: 'state.db (WAL)', path: db, grow: () => writer.commit(at(++inDb).rows.length), close: () => writer.close() },
    { label: 'session JSON', path: json, grow: () => writeFileSync(json, toSessionJson(at(++inJson))) },
    { label: 'turn trace', path: trace, grow: () => appendFileSync(trace, toTurnTraceJsonl(run.trace.slice(inTrace, ++inTrace))) },
  ];
}

export async function benchLiveRefresh(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'pi-live-'));
  const lines = [
    `a turn appended to an open ${TURNS}-turn session, ${REFRESHES} times, through the shipped worker (its first analysis vs each refresh; one worker per format, warmed by analysing and refreshing a 2-turn session of that format):`,
  ];
  const grown: Grown[] = [];
  try {
    const measured = await inputs(dir, TURNS, REFRESHES, 42);
    // Small sessions of another seed: they load the worker, the tokenizer's tables and the refresh's code, and share no text with the measured one.
    const warm = await inputs(dir, 2, 1, 7);
    grown.push(...measured, ...warm);
    for (const [f, g] of measured.entries()) {
      const engine = new EngineClient(join(ROOT, 'dist', 'engine.js'));
      try {
        const params = { path: g.path, title: g.label, profile: 'hermes-current', tokenizer: 'o200k_base' } as const;
        await engine.call('analyze', { ...params, path: warm[f].path, key: 'warm' });
        await warm[f].grow();
        await engine.call('analyze', { ...params, path: warm[f].path, key: 'warm' });
        await engine.call('drop', { key: 'warm' });
        const t0 = performance.now();
        const first = await engine.call('analyze', { ...params, key: 'first' });
        const fullMs = performance.now() - t0;
        const bytes = statSync(g.path).size;
        const refreshes: number[] = [];
        for (let k = 1; k <= REFRESHES; k++) {
          await g.grow();
          // What the extension does on a change: the same file analysed again under the same key.
          const t1 = performance.now();
          const again = await engine.call('analyze', { ...params, key: 'first' });
          refreshes.push(performance.now() - t1);
          if (again.resumed?.turns !== 1) throw new Error(`${g.label}: refresh ${k} did not resume with the one turn appended`);
          if (again.index.turnCount !== first.index.turnCount + k) {
            throw new Error(`${g.label}: refresh ${k} shows ${again.index.turnCount} turns, not ${first.index.turnCount + k}`);
          }
        }
        const typical = median(refreshes);
        const slowest = Math.max(...refreshes);
        const ratio = typical / fullMs;
        lines.push(
          `  ${g.label} ${mb(bytes)}, ${first.index.turnCount} turns: first analysis ${ms(fullMs)}; refreshes ${refreshes.map(ms).join(', ')}: median ${ms(typical)} = `
            + `${(ratio * 100).toFixed(1)} % of the analysis (target ≤ ${RATIO_TARGET * 100} %: ${verdict(ratio <= RATIO_TARGET)}); `
            + `the view has each new turn at most ${ms(slowest)} after the write (target ≤ ${LATENCY_TARGET_MS} ms: ${verdict(slowest <= LATENCY_TARGET_MS)})`,
        );
      } finally {
        await engine.dispose();
      }
    }
    lines.push(...(await rewoundHome(dir)), ...(await grownHome(dir)));
  } finally {
    for (const g of grown) g.close?.();
    rmSync(dir, { recursive: true, force: true });
  }
  return lines;
}

/**
 * An /undo in one lineage of a 300-session home (bench/home.ts's generator): the file is rewritten,
 * not grown, and only the family of sessions it changed is replayed again. Reported, no target.
 */
async function rewoundHome(dir: string): Promise<string[]> {
  const { db, commit, engine, params, first, fullMs } = await agentHome(join(dir, 'home-b.db'), home(300, 2, 12, 0).path, 'home B');
  try {
    // The last two rows of the session with the most messages set inactive, as /undo does.
    commit(
      'WITH big AS (SELECT session_id AS id FROM messages GROUP BY session_id ORDER BY count(*) DESC LIMIT 1) '
        + 'UPDATE messages SET active = 0 WHERE session_id = (SELECT id FROM big) AND id >= (SELECT max(id) - 1 FROM messages WHERE session_id = (SELECT id FROM big));',
    );
    const t1 = performance.now();
    const again = await engine.call('analyze', params);
    const refreshMs = performance.now() - t1;
    if (!again.recomputed) throw new Error('the rewound home was analysed whole');
    return [
      `an /undo in one lineage of a ${mb(statSync(db).size)} home of ${again.recomputed.of} sessions (${first.index.turnCount} turns): first analysis ${ms(fullMs)}; `
        + `refresh ${ms(refreshMs)} = ${((refreshMs / fullMs) * 100).toFixed(0)} %, ${again.recomputed.sessions} of ${again.recomputed.of} sessions replayed, the report assembled anew (reported, no target)`,
    ];
  } finally {
    await engine.dispose();
  }
}

/**
 * A bench home copied to `db`, its agent's connection to it open, and the shipped worker's first
 * analysis of it, timed. The connection: WAL mode, left open (so its log stays), and a commit in it
 * before the first read (a table: setting a value to itself writes no page). The caller disposes
 * the worker.
 */
async function agentHome(db: string, from: string, title: string) {
  copyFileSync(from, db);
  const commit = (sql: string): void => sqliteExec(db, [sql], { wal: true, exitOpen: true });
  commit('CREATE TABLE bench_marker (x);');
  const engine = new EngineClient(join(ROOT, 'dist', 'engine.js'));
  const params = { key: 'home', path: db, title, profile: 'hermes-current', tokenizer: 'o200k_base' } as const;
  try {
    const t0 = performance.now();
    const first = await engine.call('analyze', params);
    return { db, commit, engine, params, first, fullMs: performance.now() - t0 };
  } catch (e) {
    await engine.dispose();
    throw e;
  }
}

/**
 * A turn appended to the newest session of the 2,000-session 124 MB home (bench/home.ts's), through
 * the agent's open WAL connection, as a gateway bot writes all day (issue 23): each refresh against
 * the first analysis, on the targets of the single session above.
 */
async function grownHome(dir: string): Promise<string[]> {
  const { db, commit, engine, params, first, fullMs } = await agentHome(join(dir, 'home-c.db'), home(2000, 2, 124, 0).path, 'home C');
  const newest = '(SELECT id FROM sessions ORDER BY started_at DESC, id DESC LIMIT 1)';
  // The turn is the home's latest, as an agent writing now writes it (the generated home's clock runs past today's).
  const latest = '(SELECT max(timestamp) FROM messages)';
  try {
    const refreshes: number[] = [];
    for (let k = 1; k <= 3; k++) {
      commit(
        `INSERT INTO messages (session_id, role, content, timestamp) VALUES (${newest}, 'user', 'one more question ${k}', ${latest} + 1);`
          + `INSERT INTO messages (session_id, role, content, timestamp, finish_reason) VALUES (${newest}, 'assistant', 'one more answer ${k}', ${latest} + 1, 'stop');`,
      );
      const t1 = performance.now();
      const again = await engine.call('analyze', params);
      refreshes.push(performance.now() - t1);
      if (again.resumed?.turns !== 1) throw new Error(`home C: refresh ${k} did not resume with the one turn appended`);
    }
    const typical = median(refreshes);
    const ratio = typical / fullMs;
    return [
      `a turn appended to the newest session of a ${mb(statSync(db).size)} home of 2,000 sessions (${first.index.turnCount} turns), 3 times: first analysis ${ms(fullMs)}; `
        + `refreshes ${refreshes.map(ms).join(', ')}: median ${ms(typical)} = ${(ratio * 100).toFixed(1)} % of the analysis (target ≤ ${RATIO_TARGET * 100} %: ${verdict(ratio <= RATIO_TARGET)}); `
        + `the view has each new turn at most ${ms(Math.max(...refreshes))} after the write (target ≤ ${LATENCY_TARGET_MS} ms: ${verdict(Math.max(...refreshes) <= LATENCY_TARGET_MS)})`,
    ];
  } finally {
    await engine.dispose();
  }
}

if (require.main === module) {
  benchLiveRefresh().then(
    (lines) => console.log(lines.join('\n')),
    (e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    },
  );
}
