// A state.db read again while its agent writes (LoadOptions.remember / earlier): the rows of every
// leaf page the WAL's later commits did not write are reused, and the result must be exactly what
// a whole read of the file gives, whatever real SQLite wrote in between: rows appended, rows
// flagged or deleted, a value changed only on its overflow page, checkpoints, a restarted or
// truncated log, a column added, a VACUUM, a log damaged before the last read's end.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import initSqlJs from 'sql.js';
import type { Transcript } from '../../src/shared/model/transcript';
import { loadRemembering, loadTranscript } from '../../src/transcripts/load';
import { sqliteExec } from '../support/sqliteExec';
import { PYTHON } from '../support/python';
import { analyze } from '../../src/analysis/report';
import { createTokenCounter } from '../../src/analysis/tokenizer';
import { PROFILES } from '../../src/engine/profile';
import { LiveAnalysis } from '../../src/live/liveAnalysis';
import { synthesizeLongRun, toStateDb, type SynthSession } from '../support/synthesize';

const firstTurns = (session: SynthSession, turns: number): SynthSession => {
  const asks = session.rows.flatMap((r, i) => (r.role === 'user' ? [i] : []));
  return { ...session, rows: session.rows.slice(0, asks[turns] ?? session.rows.length) };
};

/** Fails with where the two texts first differ, rather than with both whole. */
function sameText(actual: string, expected: string, what: string): void {
  if (actual === expected) return;
  let k = 0;
  while (actual[k] === expected[k]) k++;
  assert.fail(`${what}: differs at ${k}: …${actual.slice(Math.max(0, k - 80), k + 80)}… / …${expected.slice(Math.max(0, k - 80), k + 80)}…`);
}

const HOME_PY = join(__dirname, '../support/hermes_home.py');
const OPTIONS = { profile: PROFILES['hermes-current'], counter: createTokenCounter('o200k_base'), messages: false };

const rows = (t: Transcript): unknown[] => t.sessions.flatMap((s) => s.generations.flatMap((g) => g.rows));

describe('a state.db read again', () => {
  it('equals a whole read after every kind of write, and reuses the rows of pages nothing wrote', async () => {
    const SQL = await initSqlJs();
    const dir = mkdtempSync(join(tmpdir(), 'pi-reread-'));
    const run = synthesizeLongRun(60, 17).session;
    const db = join(dir, 'state.db');
    const full = join(dir, 'full.db');
    writeFileSync(db, toStateDb(SQL, firstTurns(run, 20)));
    writeFileSync(full, toStateDb(SQL, run));
    // The agent's connection: WAL mode, no automatic checkpoint, ended without closing (a closing
    // connection checkpoints the log and removes it), so each write appends to the same log.
    const write = (...scripts: string[]): void => sqliteExec(db, [`ATTACH DATABASE '${full}' AS full;`, ...scripts], { wal: true, exitOpen: true });
    const turnsUpTo = (turns: number): string =>
      `BEGIN; INSERT INTO messages SELECT * FROM full.messages WHERE id > (SELECT max(id) FROM main.messages) AND id <= ${firstTurns(run, turns).rows.length};`
      + ' UPDATE sessions SET message_count = (SELECT count(*) FROM messages WHERE session_id = sessions.id); COMMIT;';
    const appendTurns = (turns: number): void => write(turnsUpTo(turns));
    const longest = '(SELECT id FROM messages ORDER BY length(content) DESC LIMIT 1)';
    let turns = 20;
    const steps: [string, () => void, boolean][] = [
      ['the first commit to a log (nothing was kept of the store without one)', () => appendTurns(++turns), false],
      ['a turn appended', () => appendTurns(++turns), true],
      ['three turns appended in three commits', () => [1, 2, 3].forEach(() => appendTurns(++turns)), true],
      ['an old row rewound (active = 0)', () => write('UPDATE messages SET active = 0 WHERE id = 7;'), true],
      [
        'the longest content changed in its last byte only (its overflow page)',
        () => write(`UPDATE messages SET content = substr(content, 1, length(content) - 1) || 'Z' WHERE id = ${longest};`),
        true,
      ],
      ['a row deleted', () => write('DELETE FROM messages WHERE id = 11;'), true],
      ['a column added', () => write('ALTER TABLE messages ADD COLUMN note TEXT; ALTER TABLE full.messages ADD COLUMN note TEXT;'), true],
      // A writer that opens the log again recovers it without knowing it was copied back: it goes on.
      ['a passive checkpoint by another connection, then a turn', () => (write('PRAGMA wal_checkpoint(PASSIVE);'), appendTurns(++turns)), true],
      [
        'a passive checkpoint, then a turn by the same connection (the log restarts)',
        () => write('PRAGMA wal_checkpoint(PASSIVE);', turnsUpTo(++turns)),
        false,
      ],
      ['a turn appended after the restart', () => appendTurns(++turns), true],
      ['the log truncated by a checkpoint', () => write('PRAGMA wal_checkpoint(TRUNCATE);'), false],
      ['ten turns appended', () => [...Array(10)].forEach(() => appendTurns(++turns)), false],
      ['a turn appended', () => appendTurns(++turns), true],
      ['VACUUM (every page written again)', () => write('VACUUM;'), false],
      ['the rest appended', () => appendTurns(60), true],
    ];
    let held = await loadRemembering(db);
    for (const [name, step, reuses] of steps) {
      step();
      const fresh = await loadRemembering(db, { earlier: held.memory });
      sameText(JSON.stringify(fresh.transcript), JSON.stringify(await loadTranscript(db)), `${name}: as a whole read`);
      const before = new Set(rows(held.transcript));
      const reused = rows(fresh.transcript).filter((r) => before.has(r)).length;
      assert.equal(reused > 0, reuses, `${name}: ${reused} rows reused`);
      held = fresh;
    }
  });

  it('of a home equals a whole read after writes to parents, children and forks; its live analysis a whole analysis; only the sessions written split again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-reread-home-'));
    const r = spawnSync(PYTHON, [HOME_PY, dir, '--sessions', '40', '--seed', '11', '--target-mb', '2'], { encoding: 'utf8', maxBuffer: 64 << 20 });
    assert.equal(r.status, 0, r.stderr);
    const db = join(dir, 'state.db');
    const write = (sql: string): void => sqliteExec(db, [sql], { wal: true, exitOpen: true });
    write('CREATE TABLE reread_marker (x);');
    // A row like the session's last, one second later: what the agent appends.
    const append = (session: string): string =>
      `INSERT INTO messages (session_id, role, content, timestamp) SELECT session_id, role, content || ' again', timestamp + 1 FROM messages WHERE session_id = ${session} ORDER BY id DESC LIMIT 1;`;
    const newest = '(SELECT id FROM sessions ORDER BY started_at DESC, id DESC LIMIT 1)';
    const chainParent =
      "(SELECT parent_session_id FROM sessions WHERE parent_session_id IS NOT NULL AND parent_session_id IN (SELECT id FROM sessions WHERE end_reason = 'compression') LIMIT 1)";
    const forkParent =
      "(SELECT parent_session_id FROM sessions WHERE parent_session_id IN (SELECT id FROM sessions WHERE end_reason IS NOT 'compression') LIMIT 1)";
    // Each step with what it writes: message rows (some sessions split again), a sessions row (one page of that table read again).
    const steps: [string, string, { rows: boolean; sessionRow: boolean }][] = [
      ['a row appended to the newest session', append(newest), { rows: true, sessionRow: false }],
      ['a row appended to a compression chain parent (its child continues it)', append(chainParent), { rows: true, sessionRow: false }],
      ['a row appended to a session a fork was copied from', append(forkParent), { rows: true, sessionRow: false }],
      [
        'the newest session rewound a row (/undo)',
        `UPDATE messages SET active = 0 WHERE id = (SELECT max(id) FROM messages WHERE session_id = ${newest});`,
        { rows: true, sessionRow: false },
      ],
      [
        'a new session forked from the newest, its rows copied',
        `INSERT INTO sessions (id, source, parent_session_id, started_at) SELECT 'fork-of-newest', source, id, started_at + 5 FROM sessions WHERE id = ${newest};`
          + " INSERT INTO messages (session_id, role, content, timestamp) SELECT 'fork-of-newest', role, content, timestamp FROM messages"
          + ` WHERE session_id = (SELECT parent_session_id FROM sessions WHERE id = 'fork-of-newest') AND active = 1 ORDER BY id;`,
        { rows: true, sessionRow: true },
      ],
      ['a row appended to the fork', append("'fork-of-newest'"), { rows: true, sessionRow: false }],
      [
        "the fork's parent given another row",
        append("(SELECT parent_session_id FROM sessions WHERE id = 'fork-of-newest')"),
        { rows: true, sessionRow: false },
      ],
      // As upstream's agent does as its calls' tokens are written: the session's counters and title in its row, its usage rows.
      [
        "the newest session's counters and title updated, and the last usage row's",
        `UPDATE sessions SET message_count = message_count + 1, input_tokens = input_tokens + 900, title = 'renamed' WHERE id = ${newest};`
          + ' UPDATE session_model_usage SET api_call_count = api_call_count + 1, input_tokens = input_tokens + 900 WHERE rowid = (SELECT max(rowid) FROM session_model_usage);',
        { rows: false, sessionRow: true },
      ],
      // The fork's copy of that row no longer copies it: its carried rows end before it.
      [
        'a row the fork copied rewritten in its parent',
        "UPDATE messages SET content = 'rewritten' WHERE id = (SELECT min(id) FROM messages WHERE session_id = (SELECT parent_session_id FROM sessions WHERE id = 'fork-of-newest'));",
        { rows: true, sessionRow: false },
      ],
    ];
    let held = await loadRemembering(db);
    const live = new LiveAnalysis(OPTIONS);
    live.refresh(held.transcript, held.memory);
    const splits = (m: typeof held.memory) => (m?.format === 'hermes-state-db' ? m.store.sessions?.splits : undefined);
    const tablePages = (m: typeof held.memory) => [...((m?.format === 'hermes-state-db' ? m.store.sessionTable?.sessions.leaves.values() : undefined) ?? [])];
    for (const [name, sql, writes] of steps) {
      write(sql);
      const fresh = await loadRemembering(db, { earlier: held.memory });
      const whole = await loadTranscript(db);
      sameText(JSON.stringify(fresh.transcript), JSON.stringify(whole), `${name}: as a whole read`);
      const before = splits(held.memory);
      const now = splits(fresh.memory);
      assert.ok(before && now, `${name}: the splits kept`);
      const again = [...now].filter(([id, split]) => before.get(id) !== split).length;
      assert.ok(writes.rows ? again > 0 && again <= 4 : again === 0, `${name}: ${again} of ${now.size} sessions split again`);
      // The sessions table spans several leaf pages: a read again decodes only the one written.
      const pagesBefore = new Set(tablePages(held.memory));
      const pages = tablePages(fresh.memory);
      const readAgain = pages.filter((l) => !pagesBefore.has(l)).length;
      assert.ok(
        pages.length > 1 && readAgain === (writes.sessionRow ? 1 : 0),
        `${name}: ${readAgain} of ${pages.length} pages of the sessions table read again`,
      );
      const { analysis } = live.refresh(fresh.transcript, fresh.memory);
      assert.equal(JSON.stringify(analysis.report), JSON.stringify(analyze(whole, OPTIONS).report), `${name}: the live analysis as a whole one`);
      held = fresh;
    }
  });

  it('reads anew when the log before the last read ended was changed under the same header', async () => {
    const SQL = await initSqlJs();
    const dir = mkdtempSync(join(tmpdir(), 'pi-reread-'));
    const run = synthesizeLongRun(20, 5).session;
    const db = join(dir, 'state.db');
    writeFileSync(db, toStateDb(SQL, run));
    const edit = (sql: string): void => sqliteExec(db, [sql], { wal: true, exitOpen: true });
    const files = [db, `${db}-wal`, `${db}-shm`];
    edit("UPDATE messages SET content = 'both' WHERE id = 3;");
    const backup = files.map((f) => readFileSync(f));
    edit("UPDATE messages SET content = 'first history' WHERE id = 1;");
    const held = await loadRemembering(db);
    // The files put back as they were before that commit (the same files, rewritten), and another
    // history written from there: the same log header, as many commits, other frames; and not one
    // of them writes the page the first history changed.
    files.forEach((f, i) => writeFileSync(f, backup[i]));
    edit('UPDATE messages SET timestamp = timestamp + 1 WHERE id = (SELECT max(id) FROM messages);');
    edit('UPDATE messages SET timestamp = timestamp + 1 WHERE id = (SELECT max(id) FROM messages);');
    const fresh = await loadRemembering(db, { earlier: held.memory });
    sameText(JSON.stringify(fresh.transcript), JSON.stringify(await loadTranscript(db)), 'the other history, read again');
    assert.ok(!JSON.stringify(fresh.transcript).includes('first history'));
    // Damage within what was read: the log counts only up to it, and the read is whole.
    const wal = readFileSync(`${db}-wal`);
    wal[32 + 24 + 100] ^= 0xff;
    writeFileSync(`${db}-wal`, wal);
    const damaged = await loadRemembering(db, { earlier: fresh.memory });
    sameText(JSON.stringify(damaged.transcript), JSON.stringify(await loadTranscript(db)), 'the damaged log, read again');
  });
  it('keeps the rows read before damage, remembering or not, and read again', async () => {
    const SQL = await initSqlJs();
    const dir = mkdtempSync(join(tmpdir(), 'pi-reread-'));
    const bytes = toStateDb(SQL, synthesizeLongRun(30, 3).session);
    for (const share of [0.5, 0.7, 0.9]) {
      // Cut at a page boundary within the messages table: the rows on the pages before it read.
      const db = join(dir, `cut_${share}.db`);
      writeFileSync(db, bytes.subarray(0, Math.floor((bytes.length * share) / 4096) * 4096));
      const plain = JSON.stringify(await loadTranscript(db));
      assert.ok(rows(await loadTranscript(db)).length > 0, `${share}: rows before the damage`);
      const remembered = await loadRemembering(db);
      sameText(JSON.stringify(remembered.transcript), plain, `cut at ${share}, remembering`);
      sameText(JSON.stringify((await loadRemembering(db, { earlier: remembered.memory })).transcript), plain, `cut at ${share}, read again`);
    }
  });
});
