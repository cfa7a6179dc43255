// A transcript growing while it is open (issue 10, part 3): a 4,000-turn session gets one more
// turn the way each format grows (state.db: rows committed to the WAL by real SQLite; session JSON:
// the file rewritten; turn trace: one more line), and the shipped worker (dist/engine.js) is
// asked again, as the extension asks it when the file changes. Printed: the first analysis, the
// refresh, their ratio (target ≤ 5 %) and the refresh's latency (target ≤ 250 ms for the view).
// Run alone with `npx tsx bench/liveRefresh.ts` (after `npm run build`); also part of `npm run bench`.

import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import initSqlJs from 'sql.js';
import { EngineClient } from '../src/extension/engineProtocol';
import { synthesizeLongRun, toSessionJson, toStateDb, toTurnTraceJsonl, type SynthSession } from '../test/support/synthesize';

const ROOT = join(__dirname, '..');
const TURNS = 4000;
const RATIO_TARGET = 0.05;
const LATENCY_TARGET_MS = 250;

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;
const ms = (t: number): string => `${t.toFixed(0)} ms`;
const verdict = (ok: boolean): string => (ok ? 'PASS' : 'MISS');

/** The session without its last turn: rows up to (not including) the last user row. */
function withoutLastTurn(session: SynthSession): SynthSession {
  let cut = session.rows.length - 1;
  while (cut > 0 && session.rows[cut].role !== 'user') cut--;
  return { ...session, rows: session.rows.slice(0, cut) };
}

/** Commits the rows the full store has beyond the open one's, in WAL mode, as the agent's SQLite does. */
const APPEND_PY = `
import sqlite3, sys
live, full = sys.argv[1], sys.argv[2]
c = sqlite3.connect(live, isolation_level=None)
c.execute('PRAGMA journal_mode=WAL')
c.execute('PRAGMA wal_autocheckpoint=0')
c.execute("ATTACH DATABASE ? AS full", (full,))
c.execute('BEGIN')
c.execute('INSERT INTO messages SELECT * FROM full.messages WHERE id > (SELECT max(id) FROM main.messages)')
c.execute('UPDATE sessions SET message_count = (SELECT count(*) FROM messages WHERE session_id = sessions.id)')
c.execute('COMMIT')
c.execute('DETACH DATABASE full')
c.close()
`;

interface Grown {
  label: string;
  path: string;
  /** Makes the file one turn longer, as the format's writer does. */
  grow(): void;
}

async function inputs(dir: string): Promise<Grown[]> {
  const run = synthesizeLongRun(TURNS + 1, 42);
  const full = run.session;
  const open = withoutLastTurn(full);
  const SQL = await initSqlJs();
  const db = join(dir, 'state.db');
  const fullDb = join(dir, 'full.db');
  writeFileSync(db, toStateDb(SQL, open));
  writeFileSync(fullDb, toStateDb(SQL, full));
  // The open store is in WAL mode before the first read, as a running agent's is.
  execFileSync('python3', ['-c', "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA journal_mode=WAL'); c.close()", db]);
  const json = join(dir, `session_${open.id}.json`);
  writeFileSync(json, toSessionJson(open));
  const trace = join(dir, 'agent.trace.jsonl');
  writeFileSync(trace, toTurnTraceJsonl(run.trace.slice(0, -1)));
  return [
    { label: 'state.db (WAL)', path: db, grow: () => execFileSync('python3', ['-c', APPEND_PY, db, fullDb]) },
    { label: 'session JSON', path: json, grow: () => writeFileSync(json, toSessionJson(full)) },
    { label: 'turn trace', path: trace, grow: () => appendFileSync(trace, toTurnTraceJsonl(run.trace.slice(-1))) },
  ];
}

export async function benchLiveRefresh(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'pi-live-'));
  const lines = [`a turn appended to an open ${TURNS}-turn session, through the shipped worker (its first analysis vs the refresh, in one worker per format):`];
  try {
    const grown = await inputs(dir);
    // Another, small session: it loads the worker and the tokenizer's tables, and shares no text with the measured one.
    const warm = join(dir, 'session_warm.json');
    writeFileSync(warm, toSessionJson(synthesizeLongRun(2, 7).session));
    for (const g of grown) {
      const engine = new EngineClient(join(ROOT, 'dist', 'engine.js'));
      try {
        const params = { path: g.path, title: g.label, profile: 'hermes-current', tokenizer: 'o200k_base' } as const;
        await engine.call('analyze', { ...params, path: warm, key: 'warm' });
        await engine.call('drop', { key: 'warm' });
        const t0 = performance.now();
        const first = await engine.call('analyze', { ...params, key: 'first' });
        const fullMs = performance.now() - t0;
        const bytes = statSync(g.path).size;
        g.grow();
        // What the extension does on a change: the same file analysed again under the same key.
        const t1 = performance.now();
        const again = await engine.call('analyze', { ...params, key: 'first' });
        const refreshMs = performance.now() - t1;
        if (again.resumed?.turns !== 1) throw new Error(`${g.label}: the refresh did not resume with the one turn appended`);
        if (again.index.turnCount !== first.index.turnCount + 1) {
          throw new Error(`${g.label}: the refresh shows ${again.index.turnCount} turns, not ${first.index.turnCount + 1}`);
        }
        const ratio = refreshMs / fullMs;
        lines.push(
          `  ${g.label} ${mb(bytes)}, ${first.index.turnCount} → ${again.index.turnCount} turns: first analysis ${ms(fullMs)}, refresh ${ms(refreshMs)} = `
            + `${(ratio * 100).toFixed(0)} % of it (target ≤ ${RATIO_TARGET * 100} %: ${verdict(ratio <= RATIO_TARGET)}); `
            + `the view has the new turn ${ms(refreshMs)} after the write (target ≤ ${LATENCY_TARGET_MS} ms: ${verdict(refreshMs <= LATENCY_TARGET_MS)})`,
        );
      } finally {
        await engine.dispose();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return lines;
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
