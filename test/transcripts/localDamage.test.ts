// Damage to a state.db's messages table costs only what it touches (issue 19, item 4): a damaged
// cell its row, a damaged page its rows, a damaged subtree its subtree, each with a finding; the
// b-tree walk goes on past it. Stores written by real SQLite, damaged byte by byte.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe } from 'node:test';
import { analyze } from '../../src/analysis/report';
import { createTokenCounter } from '../../src/analysis/tokenizer';
import { PROFILES } from '../../src/engine/profile';
import { bytesSource } from '../../src/transcripts/byteSource';
import { SqliteFile } from '../../src/transcripts/sqliteFile';
import { readHermesStateDb } from '../../src/transcripts/hermesStateDb';
import { writeHermesDb, type MessageSpec, type SessionSpec } from '../support/hermesDb';
import { sqliteExec } from '../support/sqliteExec';
import { countedBadInputs } from '../robustness/tally';

// Each case counts toward the robustness summary line (test/robustness/tally.ts).
const it = countedBadInputs('store-damage');
const dir = mkdtempSync(join(tmpdir(), 'pi-damage-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const counter = createTokenCounter('o200k_base');

// 12 sessions of 5 turns; every fourth ask is long enough to spill onto overflow pages.
const sessions: SessionSpec[] = Array.from({ length: 12 }, (_, i) => ({ id: `s${String(i).padStart(2, '0')}`, startedAt: 1789726500 + i * 600 }));
const messages: MessageSpec[] = sessions.flatMap((s, i) =>
  Array.from({ length: 5 }, (_, t): MessageSpec[] => [
    [s.id, 'user', (t + i) % 4 === 0 ? `Read the log, part ${t}.\n${'a long line of the log\n'.repeat(400)}` : `Question ${t} of ${s.id}?`],
    [s.id, 'assistant', `Answer ${t} of ${s.id}.`],
  ]).flat(),
);
const path = join(dir, 'state.db');
writeHermesDb(path, sessions, messages);
const intact = new Uint8Array(readFileSync(path));

function read(bytes: Uint8Array) {
  const t = readHermesStateDb('state.db', bytesSource(bytes));
  const r = analyze(t, { profile: PROFILES['hermes-current'], counter, messages: false }).report;
  return { rows: t.sessions.reduce((n, s) => n + s.generations.reduce((k, g) => k + g.rows.length, 0), 0), turns: r.turns.length, report: r };
}

/** The messages table's pages as the intact file has them: its root, and each leaf with the rowids on it. */
function layout() {
  const file = new SqliteFile(bytesSource(intact));
  const root = file.table('messages')?.rootPage as number;
  const leaves = new Map<number, number[]>();
  for (const row of file.rows('messages')) {
    const list = leaves.get(row.page) ?? [];
    list.push(Number(row.rowid));
    leaves.set(row.page, list);
  }
  const overflowFirst = new Map<number, { page: number; pointerAt: number }>();
  for (const [page, ids] of leaves) {
    const at = (page - 1) * file.pageSize;
    const cells = (intact[at + 3] << 8) | intact[at + 4];
    for (let c = 0; c < cells; c++) {
      let p = at + ((intact[at + 8 + 2 * c] << 8) | intact[at + 9 + 2 * c]);
      // payload size, rowid (varints), then the local payload and, when it spills, a 4-byte overflow page number
      const varint = (): number => {
        let v = 0;
        for (let k = 0; k < 9; k++) {
          const b = intact[p++];
          v = v * 128 + (b & 0x7f);
          if (b < 0x80) break;
        }
        return v;
      };
      const size = varint();
      varint();
      const usable = file.usableSize;
      const maxLocal = usable - 35;
      if (size <= maxLocal) continue;
      const minLocal = Math.floor(((usable - 12) * 32) / 255) - 23;
      const k = minLocal + ((size - minLocal) % (usable - 4));
      const local = k <= maxLocal ? k : minLocal;
      overflowFirst.set(ids[c], { page, pointerAt: p + local });
    }
  }
  return { file, root, pageSize: file.pageSize, leaves, overflowFirst };
}

const u32 = (b: Uint8Array, at: number): number => ((b[at] << 24) >>> 0) + (b[at + 1] << 16) + (b[at + 2] << 8) + b[at + 3];
const setU32 = (b: Uint8Array, at: number, v: number): void => new DataView(b.buffer, b.byteOffset).setUint32(at, v);

describe('local damage to the messages table costs only itself', () => {
  const whole = read(intact);
  const L = layout();
  const findings = (r: ReturnType<typeof read>) => r.report.diagnostics.filter((d) => d.code === 'parse-error');

  it('the intact store: 60 turns, no finding', () => {
    assert.equal(whole.turns, 60);
    assert.deepEqual(findings(whole), []);
    assert.ok(L.leaves.size >= 5 && L.overflowFirst.size >= 10, `${L.leaves.size} leaves, ${L.overflowFirst.size} rows with overflow`);
  });

  it("one row's overflow chain ends early: that row alone is lost", () => {
    const [, at] = [...L.overflowFirst][3];
    const bytes = intact.slice();
    const first = u32(bytes, at.pointerAt);
    setU32(bytes, (first - 1) * L.pageSize, 0); // the chain's first page says it is the last
    const r = read(bytes);
    assert.equal(r.rows, whole.rows - 1);
    assert.equal(r.turns, whole.turns - 1, 'the lost row was an ask: its turn alone is gone');
    assert.equal(findings(r).length, 1);
    assert.match(findings(r)[0].message, /overflow chain that ends/);
    assert.ok(!r.report.diagnostics.some((d) => d.code === 'replay-count-mismatch'));
  });

  it("an overflow pointer far past the file's end: that row alone is lost", () => {
    const [, at] = [...L.overflowFirst][5];
    const bytes = intact.slice();
    setU32(bytes, at.pointerAt, 0x7fffffff);
    const r = read(bytes);
    assert.equal(r.rows, whole.rows - 1);
    assert.equal(findings(r).length, 1);
    assert.match(findings(r)[0].message, /does not exist/);
  });

  it('three leaves with a bad cell pointer: those cells alone are lost', () => {
    const bytes = intact.slice();
    const pages = [...L.leaves.keys()].slice(1, 4);
    for (const page of pages) {
      const at = (page - 1) * L.pageSize;
      bytes[at + 8] = 0xff; // the first cell pointer, past the page
      bytes[at + 9] = 0xff;
    }
    const r = read(bytes);
    assert.equal(r.rows, whole.rows - 3);
    assert.equal(findings(r).length, 3);
  });

  it('interior children at page 16,777,215 and page 0: the rows under every sound child are read', () => {
    const bytes = intact.slice();
    const at = (L.root - 1) * L.pageSize;
    assert.equal(bytes[at], 0x05, 'the root is an interior page');
    const cells = (bytes[at + 3] << 8) | bytes[at + 4];
    assert.ok(cells >= 3);
    const cellAt = (c: number): number => at + ((bytes[at + 12 + 2 * c] << 8) | bytes[at + 13 + 2 * c]);
    const lost = [u32(bytes, cellAt(0)), u32(bytes, cellAt(2))].reduce((n, p) => n + (L.leaves.get(p)?.length ?? 0), 0);
    assert.ok(lost > 0, 'the damaged children are leaves holding rows');
    setU32(bytes, cellAt(0), 16_777_215);
    setU32(bytes, cellAt(2), 0);
    const r = read(bytes);
    assert.equal(r.rows, whole.rows - lost);
    assert.equal(findings(r).length, 2);
  });

  it('a leaf reached twice: every row once', () => {
    const bytes = intact.slice();
    const at = (L.root - 1) * L.pageSize;
    const cellAt = (c: number): number => at + ((bytes[at + 12 + 2 * c] << 8) | bytes[at + 13 + 2 * c]);
    const second = u32(bytes, cellAt(1));
    const replaced = L.leaves.get(second)?.length ?? 0;
    setU32(bytes, cellAt(1), u32(bytes, cellAt(0))); // child 1 now points at child 0's leaf
    const r = read(bytes);
    assert.equal(r.rows, whole.rows - replaced, 'the leaf pointed at twice is read once; the one no longer pointed at is gone');
    assert.equal(findings(r).length, 1);
    assert.match(findings(r)[0].message, /reached twice/);
  });

  it('a sessions VIEW beside a real messages table: the messages show, with a finding', () => {
    const viewPath = join(dir, 'view.db');
    writeHermesDb(
      viewPath,
      sessions.slice(0, 1),
      messages.filter(([s]) => s === 's00'),
    );
    sqliteExec(viewPath, ['ALTER TABLE sessions RENAME TO sessions_real; CREATE VIEW sessions AS SELECT * FROM sessions_real;']);
    const r = read(new Uint8Array(readFileSync(viewPath)));
    assert.equal(r.turns, 5);
    assert.ok(findings(r).some((d) => /no sessions table/.test(d.message)));
  });
});
