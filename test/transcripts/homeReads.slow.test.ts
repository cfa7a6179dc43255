// How much of a large Hermes home the page reader reads (src/transcripts/sqlite/pager.ts). In a real
// home the sessions, system_prompts and session_model_usage rows are written between the messages of
// the same moment, so their pages lie scattered through the whole file: listing the sessions of a
// 300 MB home read 180 MB when every page miss read a 1 MiB block. A jump now reads one 8 KiB
// chunk and only a scan going forward reads blocks ahead. One lineage's messages are found through
// the index on session_id (SqliteFile.rowsWhere), not by a scan of the table. The home is written
// by hermes_home.py.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { bytesSource, type ByteSource } from '../../src/transcripts/byteSource';
import { SqliteFile } from '../../src/transcripts/sqliteFile';
import { usableIndexColumn } from '../../src/transcripts/sqlite/lookup';
import { tempDir } from '../cli/support';
import { PYTHON } from '../support/python';

const HOME_PY = resolve(__dirname, '../support/hermes_home.py');

function counting(inner: ByteSource): ByteSource & { bytes: number; reads: number } {
  const source = {
    size: inner.size,
    bytes: 0,
    reads: 0,
    read: (offset: number, length: number): Uint8Array => {
      const out = inner.read(offset, length);
      source.bytes += out.length;
      source.reads++;
      return out;
    },
    holds: (offset: number, bytes: Uint8Array): boolean => {
      source.bytes += bytes.length;
      source.reads++;
      return inner.holds(offset, bytes);
    },
  };
  return source;
}

describe('reading a large home through the page reader', () => {
  let dir = '';
  let db: Uint8Array;
  let sessions = 0;

  before(() => {
    dir = tempDir();
    const r = spawnSync(PYTHON, [HOME_PY, dir, '--sessions', '80', '--seed', '5', '--target-mb', '40'], { encoding: 'utf8', maxBuffer: 64 << 20 });
    assert.equal(r.status, 0, r.stderr);
    sessions = (JSON.parse(r.stdout) as { sessions: unknown[] }).sessions.length;
    db = readFileSync(join(dir, 'state.db'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('listing the scattered small tables reads a small part of the file', () => {
    assert.ok(db.length > 30e6, `${db.length} bytes`);
    const source = counting(bytesSource(db));
    const file = new SqliteFile(source);
    let rows = 0;
    for (const table of ['sessions', 'system_prompts', 'session_model_usage']) {
      const first = file.columns(table)[0];
      for (const r of file.rows(table)) if (r.get(first) !== undefined) rows++;
    }
    assert.ok(rows >= sessions);
    assert.ok(source.bytes < db.length / 5, `read ${source.bytes} bytes of ${db.length} in ${source.reads} reads`);
  });

  it('a full scan of messages still reads block by block, most bytes once', () => {
    const source = counting(bytesSource(db));
    const file = new SqliteFile(source);
    let chars = 0;
    for (const r of file.rows('messages')) chars += String(r.get('content') ?? '').length;
    assert.ok(chars > db.length / 4, `${chars} characters`);
    assert.ok(source.bytes <= db.length * 1.5, `read ${source.bytes} bytes of ${db.length}`);
    // not page by page: a 4 KiB page is read in far fewer reads than there are pages
    assert.ok(source.reads <= db.length / 4096 / 20, `${source.reads} reads for ${db.length} bytes`);
  });

  it('the messages of some sessions through the index: the same rows as a scan, a small part of the file read', () => {
    const scan = new SqliteFile(bytesSource(db));
    const all = new Map<string, unknown[][]>();
    for (const r of scan.rows('messages')) {
      const sid = r.get('session_id') as string;
      const list = all.get(sid) ?? [];
      list.push([r.rowid, r.get('role'), r.get('content'), r.get('active')]);
      all.set(sid, list);
    }
    const ids = [...all.keys()].sort();
    for (const pick of [[ids[0]], [ids[3], ids[7], ids[ids.length - 1]], ['no such session']]) {
      const source = counting(bytesSource(db));
      const file = new SqliteFile(source);
      const before = source.bytes;
      const rows = file.rowsWhere('messages', 'session_id', pick);
      assert.ok(rows, 'an index on session_id is used');
      const got: unknown[][] = [];
      for (const r of rows) got.push([r.rowid, r.get('role'), r.get('content'), r.get('active')]); // one TableRow, reused
      const want = pick.flatMap((id) => all.get(id) ?? []).sort((a, b) => Number(a[0]) - Number(b[0]));
      assert.deepEqual(got, want, pick.join(', '));
      assert.ok(source.bytes - before < db.length / 10, `read ${source.bytes - before} bytes of ${db.length} for ${want.length} rows`);
    }
  });

  it('only an index that holds every row in BINARY ascending order is used', () => {
    assert.equal(usableIndexColumn('CREATE INDEX idx_messages_session_id ON messages(session_id, id)', 'messages'), 'session_id');
    assert.equal(usableIndexColumn('CREATE INDEX IF NOT EXISTS i ON "messages" ("session_id" ASC)', 'messages'), 'session_id');
    assert.equal(usableIndexColumn("CREATE INDEX i ON messages(session_id) WHERE role = 'assistant'", 'messages'), null);
    assert.equal(usableIndexColumn('CREATE INDEX i ON messages(session_id DESC)', 'messages'), null);
    assert.equal(usableIndexColumn('CREATE INDEX i ON messages(session_id COLLATE NOCASE)', 'messages'), null);
    assert.equal(usableIndexColumn('CREATE INDEX i ON sessions(session_id)', 'messages'), null);
    const file = new SqliteFile(bytesSource(db));
    assert.equal(file.rowsWhere('messages', 'role', ['user']), undefined, 'no index starts with role');
  });
});
