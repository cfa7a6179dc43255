import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Database, SqlJsStatic } from 'sql.js';
import { bytesSource } from '../../src/transcripts/byteSource';
import { SqliteFile } from '../../src/transcripts/sqliteFile';
import { readWalIndex } from '../../src/transcripts/sqliteWal';
import { applyWal, type WalApplyResult } from '../support/walImage';
import { sqliteExec } from '../support/sqliteExec';

const initSqlJs: () => Promise<SqlJsStatic> = require('sql.js');
const sqlJs = initSqlJs();

const WAL_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;

/**
 * Runs each SQL script on a real SQLite database in WAL mode (python3's sqlite3, no
 * auto-checkpoint) and copies `x.db` and `x.db-wal` while the connection is still
 * open, so closing it cannot checkpoint the WAL into the copies.
 */
function realWalDatabase(scripts: string[]): { db: Uint8Array; wal: Uint8Array } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-wal-test-'));
  try {
    sqliteExec(path.join(dir, 'x.db'), scripts, { wal: true, copy: path.join(dir, 'copy') });
    return {
      db: new Uint8Array(fs.readFileSync(path.join(dir, 'copy.db'))),
      wal: new Uint8Array(fs.readFileSync(path.join(dir, 'copy.db-wal'))),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** applyWal, also asserting that it left both inputs byte-identical. */
function applyChecked(db: Uint8Array, wal: Uint8Array): WalApplyResult {
  const dbBefore = db.slice();
  const walBefore = wal.slice();
  const result = applyWal(db, wal);
  assert.deepEqual(db, dbBefore, 'db input modified');
  assert.deepEqual(wal, walBefore, 'wal input modified');
  assert.notEqual(result.bytes.buffer, db.buffer, 'result must be a new buffer');
  return result;
}

async function query(image: Uint8Array, sql: string): Promise<unknown[][]> {
  const database: Database = new (await sqlJs).Database(image);
  try {
    return database.exec(sql)[0]?.values ?? [];
  } finally {
    database.close();
  }
}

function u32(bytes: Uint8Array, offset: number): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(offset, false);
}

function walPageSize(wal: Uint8Array): number {
  return u32(wal, 8);
}

/** Frame headers of a WAL file, read independently of the module under test. */
function walFrames(wal: Uint8Array): { offset: number; pageNumber: number; dbPagesAfterCommit: number; salt1: number }[] {
  const frameBytes = FRAME_HEADER_BYTES + walPageSize(wal);
  const frames = [];
  for (let offset = WAL_HEADER_BYTES; offset + frameBytes <= wal.length; offset += frameBytes) {
    frames.push({ offset, pageNumber: u32(wal, offset), dbPagesAfterCommit: u32(wal, offset + 4), salt1: u32(wal, offset + 8) });
  }
  return frames;
}

/** A WAL's frames, its header's salt-1, and how many frames from the start carry it (the current generation's). */
function generations(wal: Uint8Array): { frames: ReturnType<typeof walFrames>; headerSalt1: number; current: number } {
  const frames = walFrames(wal);
  const headerSalt1 = u32(wal, 16);
  return { frames, headerSalt1, current: frames.filter((frame) => frame.salt1 === headerSalt1).length };
}

/** A copy of `db` as applyWal must return it when the WAL is ignored: pages untouched, WAL marker cleared. */
function withRollbackMarker(db: Uint8Array): Uint8Array {
  const expected = db.slice();
  expected[18] = 1;
  expected[19] = 1;
  return expected;
}

/**
 * Re-encodes a WAL with the given checksum byte order (header magic and every
 * checksum), as SQLite on a machine of that endianness would have written it.
 */
function rewriteWalChecksums(wal: Uint8Array, bigEndian: boolean): Uint8Array {
  const out = wal.slice();
  const view = new DataView(out.buffer);
  const sum = (start: number, end: number, [s0, s1]: [number, number]): [number, number] => {
    for (let o = start; o < end; o += 8) {
      s0 = (s0 + view.getUint32(o, !bigEndian) + s1) >>> 0;
      s1 = (s1 + view.getUint32(o + 4, !bigEndian) + s0) >>> 0;
    }
    return [s0, s1];
  };
  view.setUint32(0, bigEndian ? 0x377f0683 : 0x377f0682);
  let checksum = sum(0, 24, [0, 0]);
  view.setUint32(24, checksum[0]);
  view.setUint32(28, checksum[1]);
  const pageSize = walPageSize(wal);
  for (const frame of walFrames(wal)) {
    checksum = sum(frame.offset + FRAME_HEADER_BYTES, frame.offset + FRAME_HEADER_BYTES + pageSize, sum(frame.offset, frame.offset + 8, checksum));
    view.setUint32(frame.offset + 16, checksum[0]);
    view.setUint32(frame.offset + 20, checksum[1]);
  }
  return out;
}

const CHECKPOINTED_BASE = `
  CREATE TABLE turns(id INTEGER PRIMARY KEY, text TEXT);
  INSERT INTO turns VALUES (1, 'base');
  PRAGMA wal_checkpoint(TRUNCATE);`;

/** 199 rows of 300 bytes: more frames than a one-row update writes after a restart, so a stale tail stays behind them. */
const MANY_FRAMES = `WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
  INSERT INTO turns SELECT i, printf('%.300c', 'y') FROM n;`;

describe('WAL overlay (applyWal) vs real SQLite', () => {
  it('rows, a table and an update committed only in the WAL become visible', async () => {
    const { db, wal } = realWalDatabase([
      CHECKPOINTED_BASE,
      `BEGIN;
     INSERT INTO turns VALUES (2, 'wal only');
     CREATE TABLE notes(turn INTEGER, note TEXT);
     INSERT INTO notes VALUES (2, 'created in the WAL');
     COMMIT;`,
      `BEGIN; UPDATE turns SET text = 'updated' WHERE id = 1; COMMIT;`,
    ]);
    // Without the WAL, sql.js only sees the checkpointed state.
    assert.deepEqual(await query(db, 'SELECT id, text FROM turns ORDER BY id'), [[1, 'base']]);
    assert.deepEqual(await query(db, "SELECT name FROM sqlite_master WHERE name = 'notes'"), []);

    const result = applyChecked(db, wal);

    assert.deepEqual(result.warnings, []);
    assert.equal(result.framesIgnored, 0);
    assert.equal(result.framesApplied, walFrames(wal).length);
    assert.deepEqual(await query(result.bytes, 'SELECT id, text FROM turns ORDER BY id'), [
      [1, 'updated'],
      [2, 'wal only'],
    ]);
    assert.deepEqual(await query(result.bytes, 'SELECT turn, note FROM notes'), [[2, 'created in the WAL']]);
    assert.deepEqual(await query(result.bytes, 'PRAGMA integrity_check'), [['ok']]);
    assert.deepEqual([result.bytes[18], result.bytes[19]], [1, 1], 'WAL-mode marker cleared for sql.js');
  });

  it('the latest committed frame for a page wins', async () => {
    const { db, wal } = realWalDatabase([
      CHECKPOINTED_BASE,
      `UPDATE turns SET text = 'first' WHERE id = 1;`,
      `UPDATE turns SET text = 'second' WHERE id = 1;`,
      `UPDATE turns SET text = 'third' WHERE id = 1;`,
    ]);
    const framesOfPage2 = walFrames(wal).filter((frame) => frame.pageNumber === 2);
    assert.ok(framesOfPage2.length >= 3, 'each update rewrote the same table page');

    const result = applyChecked(db, wal);

    assert.deepEqual(await query(result.bytes, 'SELECT text FROM turns WHERE id = 1'), [['third']]);
    assert.equal(result.framesApplied, walFrames(wal).length);
  });

  it('a torn last frame drops only the transaction it belongs to', async () => {
    const { db, wal } = realWalDatabase([CHECKPOINTED_BASE, `UPDATE turns SET text = 'first' WHERE id = 1;`, `UPDATE turns SET text = 'second' WHERE id = 1;`]);
    const lastFrame = walFrames(wal).at(-1)!;
    assert.notEqual(lastFrame.dbPagesAfterCommit, 0, 'a one-page update is a single commit frame');
    const torn = wal.slice(0, wal.length - walPageSize(wal) / 2);

    const result = applyChecked(db, torn);

    assert.deepEqual(await query(result.bytes, 'SELECT text FROM turns WHERE id = 1'), [['first']]);
    assert.equal(result.framesApplied, walFrames(wal).length - 1);
    assert.equal(result.framesIgnored, 1);
    assert.ok(
      result.warnings.some((w) => /partial frame/.test(w)),
      result.warnings.join('; '),
    );
  });

  it('frames of a transaction whose commit frame is missing are ignored', async () => {
    const { db, wal } = realWalDatabase([
      CHECKPOINTED_BASE,
      `INSERT INTO turns VALUES (2, 'committed');`,
      // A large text spills onto overflow pages: one transaction, several frames.
      `INSERT INTO turns VALUES (3, printf('%.20000c', 'x'));`,
    ]);
    const frames = walFrames(wal);
    const commits = frames.filter((frame) => frame.dbPagesAfterCommit !== 0);
    const lastTransactionStart = frames.indexOf(commits.at(-2)!) + 1;
    const lastTransactionFrames = frames.length - lastTransactionStart;
    assert.ok(lastTransactionFrames >= 3, `the big insert spans several frames (${lastTransactionFrames})`);
    // Cut exactly before the commit frame: the writer is still mid-transaction.
    const uncommitted = wal.slice(0, frames.at(-1)!.offset);

    const result = applyChecked(db, uncommitted);

    assert.deepEqual(await query(result.bytes, 'SELECT id, text FROM turns ORDER BY id'), [
      [1, 'base'],
      [2, 'committed'],
    ]);
    assert.equal(result.framesApplied, lastTransactionStart);
    assert.equal(result.framesIgnored, lastTransactionFrames - 1);
    assert.ok(
      result.warnings.some((w) => /after the last commit/.test(w)),
      result.warnings.join('; '),
    );
    assert.deepEqual(await query(result.bytes, 'PRAGMA integrity_check'), [['ok']]);
  });

  it('an appended frame with a corrupted checksum is ignored', async () => {
    const { db, wal } = realWalDatabase([CHECKPOINTED_BASE, `UPDATE turns SET text = 'first' WHERE id = 1;`, `UPDATE turns SET text = 'second' WHERE id = 1;`]);
    const frames = walFrames(wal);
    const frameBytes = FRAME_HEADER_BYTES + walPageSize(wal);
    // Replaying the 'first' commit frame again would roll the row back, were it trusted.
    const firstCommit = frames.find((frame) => frame.dbPagesAfterCommit !== 0)!;
    const replayed = wal.slice(firstCommit.offset, firstCommit.offset + frameBytes);
    replayed[16] ^= 0xff;
    const withBadFrame = new Uint8Array(wal.length + frameBytes);
    withBadFrame.set(wal);
    withBadFrame.set(replayed, wal.length);

    const result = applyChecked(db, withBadFrame);

    assert.deepEqual(await query(result.bytes, 'SELECT text FROM turns WHERE id = 1'), [['second']]);
    assert.equal(result.framesApplied, frames.length);
    assert.equal(result.framesIgnored, 1);
    assert.ok(
      result.warnings.some((w) => /checksum mismatch/.test(w)),
      result.warnings.join('; '),
    );
  });

  it('stale frames left from an earlier WAL generation are ignored', async () => {
    const { db, wal } = realWalDatabase([
      CHECKPOINTED_BASE,
      MANY_FRAMES,
      // A full checkpoint lets the next writer restart the WAL from its start with
      // new salts; the file keeps the older, longer tail behind the new frames.
      `PRAGMA wal_checkpoint(PASSIVE);`,
      `UPDATE turns SET text = 'after restart' WHERE id = 1;`,
    ]);
    const { frames, current } = generations(wal);
    assert.ok(current >= 1 && current < frames.length, 'the WAL has a stale tail');

    const result = applyChecked(db, wal);

    assert.deepEqual(await query(result.bytes, 'SELECT text FROM turns WHERE id = 1'), [['after restart']]);
    assert.deepEqual(await query(result.bytes, 'SELECT count(*) FROM turns'), [[200]]);
    assert.equal(result.framesApplied, current);
    assert.equal(result.framesIgnored, frames.length - current);
    assert.ok(
      result.warnings.some((w) => /salt/.test(w)),
      result.warnings.join('; '),
    );
    assert.deepEqual(await query(result.bytes, 'PRAGMA integrity_check'), [['ok']]);
  });

  it('the image takes the size of the last commit, shrinking when the database did', async () => {
    const { db, wal } = realWalDatabase([
      `CREATE TABLE turns(id INTEGER PRIMARY KEY, text TEXT);
     INSERT INTO turns VALUES (1, 'kept');
     CREATE TABLE scratch(blob BLOB);
     WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100)
     INSERT INTO scratch SELECT randomblob(3000) FROM n;
     PRAGMA wal_checkpoint(TRUNCATE);`,
      `DROP TABLE scratch;`,
      `VACUUM;`,
    ]);
    const lastCommit = walFrames(wal)
      .filter((frame) => frame.dbPagesAfterCommit !== 0)
      .at(-1)!;

    const result = applyChecked(db, wal);

    assert.equal(result.bytes.length, lastCommit.dbPagesAfterCommit * walPageSize(wal));
    assert.ok(result.bytes.length < db.length, `${result.bytes.length} < ${db.length}`);
    assert.deepEqual(await query(result.bytes, 'SELECT name FROM sqlite_master ORDER BY name'), [['turns']]);
    assert.deepEqual(await query(result.bytes, 'SELECT text FROM turns'), [['kept']]);
    assert.deepEqual(await query(result.bytes, 'PRAGMA integrity_check'), [['ok']]);
  });

  it('an empty database file with a valid WAL is built from the WAL alone', async () => {
    const { wal } = realWalDatabase([
      `CREATE TABLE turns(id INTEGER PRIMARY KEY, text TEXT);
     INSERT INTO turns VALUES (1, 'only in the WAL');`,
    ]);

    const result = applyChecked(new Uint8Array(0), wal);

    assert.deepEqual(result.warnings, []);
    assert.deepEqual(await query(result.bytes, 'SELECT id, text FROM turns'), [[1, 'only in the WAL']]);
    assert.deepEqual(await query(result.bytes, 'PRAGMA integrity_check'), [['ok']]);
  });

  it('big-endian checksums (magic 0x377f0683) are honoured like little-endian ones', async () => {
    const { db, wal } = realWalDatabase([CHECKPOINTED_BASE, `INSERT INTO turns VALUES (2, 'wal only');`]);
    const nativeBigEndian = u32(wal, 0) === 0x377f0683;
    // The test's own encoder reproduces SQLite's file exactly, so the foreign order is trustworthy too.
    assert.deepEqual(rewriteWalChecksums(wal, nativeBigEndian), wal);
    const foreign = rewriteWalChecksums(wal, !nativeBigEndian);
    assert.notDeepEqual(foreign.subarray(0, 32), wal.subarray(0, 32));

    const native = applyChecked(db, wal);
    const result = applyChecked(db, foreign);

    assert.deepEqual(result.warnings, []);
    assert.deepEqual(result.bytes, native.bytes);
    assert.deepEqual(await query(result.bytes, 'SELECT id, text FROM turns ORDER BY id'), [
      [1, 'base'],
      [2, 'wal only'],
    ]);
  });

  it('an empty, short or garbage WAL leaves the database unchanged, with a warning', async () => {
    const { db, wal } = realWalDatabase([CHECKPOINTED_BASE, `INSERT INTO turns VALUES (2, 'wal only');`]);
    const badHeaderChecksum = wal.slice();
    badHeaderChecksum[20] ^= 0x01; // salt-2, covered by the header checksum
    const garbage = new Uint8Array(3 * 4096 + 32).map((_, i) => (i * 7919 + 13) & 0xff);
    const cases: [string, Uint8Array, RegExp][] = [
      ['empty', new Uint8Array(0), /WAL is empty: WAL ignored/],
      ['short', wal.slice(0, 20), /shorter than its 32-byte header/],
      ['garbage', garbage, /not a SQLite WAL: WAL ignored/],
      ['bad header checksum', badHeaderChecksum, /^WAL header checksum mismatch: WAL ignored$/],
    ];
    for (const [name, badWal, warning] of cases) {
      const result = applyChecked(db, badWal);
      assert.deepEqual(result.bytes, withRollbackMarker(db), name);
      assert.equal(result.framesApplied, 0, name);
      assert.equal(result.warnings.length, 1, `${name}: ${result.warnings.join('; ')}`);
      assert.match(result.warnings[0], warning, name);
      assert.deepEqual(await query(result.bytes, 'SELECT id, text FROM turns'), [[1, 'base']], name);
    }
  });

  /** The rows of `turns` through the page reader with the WAL overlaid, beside sql.js's on the folded image. */
  async function turnsBothWays(db: Uint8Array, wal: Uint8Array): Promise<{ file: SqliteFile; mine: unknown[][]; theirs: unknown[][] }> {
    const file = new SqliteFile(bytesSource(db), { wal });
    const mine: unknown[][] = [];
    for (const row of file.rows('turns')) mine.push([row.get('id'), row.get('text')]);
    return { file, mine, theirs: await query(applyWal(db, wal).bytes, 'SELECT id, text FROM turns ORDER BY id') };
  }

  for (const mode of ['PASSIVE', 'RESTART', 'FULL']) {
    it(`a WAL restarted after a ${mode} checkpoint: the older frames behind the new ones are normal, not a warning`, async () => {
      const { db, wal } = realWalDatabase([
        CHECKPOINTED_BASE,
        MANY_FRAMES,
        `PRAGMA wal_checkpoint(${mode});`,
        `UPDATE turns SET text = 'after restart' WHERE id = 1;`,
      ]);
      const { frames, headerSalt1, current } = generations(wal);
      assert.ok(current >= 1 && current < frames.length, 'the WAL has a stale tail');
      assert.ok(u32(wal, 12) >= 1, 'the checkpoint sequence number counts the restart');
      assert.equal(frames[current].salt1, (headerSalt1 - 1) >>> 0, 'the tail carries the previous salt-1');

      const index = readWalIndex(wal, walPageSize(wal));
      assert.deepEqual(index.warnings, []);
      assert.equal(index.notes.length, 1);
      assert.match(index.notes[0], new RegExp(`^WAL frames ${current + 1}-${frames.length}: left from before the log restarted`));
      assert.equal(index.framesApplied, current);
      assert.equal(index.framesIgnored, frames.length - current);

      const { file, mine, theirs } = await turnsBothWays(db, wal);
      assert.deepEqual(file.walWarnings, []);
      assert.equal(mine.length, 200);
      assert.deepEqual(mine[0], [1, 'after restart']);
      assert.deepEqual(mine, theirs);
    });
  }

  it('a WAL restarted twice: a tail two generations old is normal too', async () => {
    const { db, wal } = realWalDatabase([
      CHECKPOINTED_BASE,
      MANY_FRAMES,
      `PRAGMA wal_checkpoint(PASSIVE);`,
      `UPDATE turns SET text = 'second generation' WHERE id = 1;`,
      `PRAGMA wal_checkpoint(PASSIVE);`,
      // More frames than the second generation wrote, fewer than the first: the frame after them is two restarts old.
      `UPDATE turns SET text = printf('%.300c', 'z') WHERE id BETWEEN 1 AND 40;`,
    ]);
    const { frames, headerSalt1, current } = generations(wal);
    assert.ok(current < frames.length);
    assert.equal(frames[current].salt1, (headerSalt1 - 2) >>> 0, 'the first stale frame is from the first generation');

    const index = readWalIndex(wal, walPageSize(wal));
    assert.deepEqual(index.warnings, []);
    assert.match(index.notes.join('; '), /2 restart\(s\) ago/);
    const { file, mine, theirs } = await turnsBothWays(db, wal);
    assert.deepEqual(file.walWarnings, []);
    assert.deepEqual(mine, theirs);
    assert.equal(mine[0][1], 'z'.repeat(300));
  });

  it('a restarted WAL whose stale frame carries a salt no generation had, or whose live frame is damaged, still warns', async () => {
    const { db, wal } = realWalDatabase([
      CHECKPOINTED_BASE,
      MANY_FRAMES,
      `PRAGMA wal_checkpoint(PASSIVE);`,
      `UPDATE turns SET text = 'after restart' WHERE id = 1;`,
    ]);
    const { frames, headerSalt1, current } = generations(wal);
    const reference = await turnsBothWays(db, wal);
    const cases: [string, (w: Uint8Array) => void, RegExp, number][] = [
      [
        'a salt-1 one ahead of the header',
        (w) => new DataView(w.buffer).setUint32(frames[current].offset + 8, (headerSalt1 + 1) >>> 0),
        /salt differs from the header and is no earlier generation's/,
        current,
      ],
      [
        'a salt-1 far from the header',
        (w) => new DataView(w.buffer).setUint32(frames[current].offset + 8, (headerSalt1 ^ 0x5a5a5a5a) >>> 0),
        /salt differs from the header and is no earlier generation's/,
        current,
      ],
      [
        'a live frame with a bad checksum',
        (w) => {
          w[frames[current - 1].offset + FRAME_HEADER_BYTES + 100] ^= 0xff;
        },
        /checksum mismatch/,
        0,
      ],
    ];
    for (const [what, damage, warning, applied] of cases) {
      const damaged = wal.slice();
      damage(damaged);
      const index = readWalIndex(damaged, walPageSize(wal));
      assert.equal(index.framesApplied, applied, what);
      assert.match(index.warnings.join('; '), warning, what);
      const { file, mine, theirs } = await turnsBothWays(db, damaged);
      assert.match(file.walWarnings.join('; '), warning, what);
      assert.deepEqual(mine, theirs, what);
      if (applied) assert.deepEqual(mine, reference.mine, `${what}: the live frames still apply`);
    }
  });

  it('a restarted WAL with a transaction in progress warns of the transaction, not of the stale tail', async () => {
    const { db, wal } = realWalDatabase([
      CHECKPOINTED_BASE,
      MANY_FRAMES,
      `PRAGMA wal_checkpoint(PASSIVE);`,
      `UPDATE turns SET text = 'committed' WHERE id = 1;`,
      `INSERT INTO turns VALUES (500, printf('%.20000c', 'u'));`,
    ]);
    const { frames, headerSalt1 } = generations(wal);
    const commits = frames.filter((frame) => frame.salt1 === headerSalt1 && frame.dbPagesAfterCommit !== 0);
    // Cut the last transaction's commit frame out: its other frames stay, then the older generation's.
    const lastCommit = commits.at(-1)!;
    const frameBytes = FRAME_HEADER_BYTES + walPageSize(wal);
    const cut = new Uint8Array(wal.length - frameBytes);
    cut.set(wal.subarray(0, lastCommit.offset));
    cut.set(wal.subarray(lastCommit.offset + frameBytes), lastCommit.offset);

    const { file, mine, theirs } = await turnsBothWays(db, cut);
    assert.equal(file.walWarnings.length, 1, file.walWarnings.join('; '));
    assert.match(file.walWarnings[0], /after the last commit ignored \(transaction in progress\)/);
    assert.deepEqual(mine, theirs);
    assert.deepEqual(mine[0], [1, 'committed']);
    assert.equal(mine.length, 200);
  });
});
