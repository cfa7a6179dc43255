// Deep, cyclic and many lineages (issue 19, items 1 and 2): the lineage walker against the plain
// walks it replaces, on random parent graphs (loops, duplicate ids, forks, unknown parents), and
// `sessions`, `analyze` and the report's data on stores of each extreme shape written by real
// SQLite at test time (test/support/lineageShapes.ts). Correctness only: the time and memory of
// the full-sized shapes are measured by `npm run bench` (bench/deepLineages.ts).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe } from 'node:test';
import fc from 'fast-check';
import { everyLineage } from '../../src/shared/overviewColumns';
import { analyze, type Analysis, type AnalyzeOptions } from '../../src/analysis/report';
import { sessionOverview } from '../../src/analysis/sessionOverview';
import { createTokenCounter } from '../../src/analysis/tokenizer';
import { decompressInspection } from '../../src/shared/embedded';
import { writeJson } from '../../src/shared/jsonPieces';
import { main } from '../../src/cli/main';
import { PROFILES } from '../../src/engine/profile';
import { continuesParent, Lineages, listedSessions, type LineageNode, TranscriptLineages } from '../../src/hermes/lineage';
import type { Transcript } from '../../src/shared/model/transcript';
import { Inspection } from '../../src/protocol/inspection';
import { reportData } from '../../src/protocol/reportData';
import { loadTranscript } from '../../src/transcripts/load';
import { tempDirsRemovedAfter } from '../cli/support';
import { writeHermesDb } from '../support/hermesDb';
import { shapeId, writeLineageShape, type LineageShape } from '../support/lineageShapes';
import { countedBadInputs } from '../robustness/tally';

// Each shape counts toward the robustness summary line (test/robustness/tally.ts).
const it = countedBadInputs('deep-lineages');

const OPTIONS: AnalyzeOptions = { profile: PROFILES['hermes-current'], counter: createTokenCounter('o200k_base'), messages: false };
const ids = (n: number, from = 0): string[] => Array.from({ length: n }, (_, i) => shapeId(from + i));

// ---------------------------------------------------------------------------------------------
// The plain walks (what src/hermes/lineage.ts did before): the reference each fast one must equal.

/** root() as one walk up per call. */
function plainRoot<T extends LineageNode>(l: Lineages<T>, s: T): T {
  let cur = s;
  const seen = new Set<string>([s.id]);
  for (let p = l.parentOf(cur); p && continuesParent(cur, p) && !seen.has(p.id); p = l.parentOf(cur)) {
    seen.add(p.id);
    cur = p;
  }
  return cur;
}

/** Every parent loop once, from its first session in the given order: found by walking up from every session. */
function plainCycles<T extends LineageNode>(l: Lineages<T>): string[][] {
  const out: string[][] = [];
  const reps = l.sessions.filter((s, i) => l.get(s.id) === s && l.sessions.indexOf(s) === i);
  const onLoop = (s: T): string[] | null => {
    const walk = [s.id];
    for (let p = l.parentOf(s), k = 0; p && k <= reps.length; p = l.parentOf(p), k++) {
      if (p === s) return [...walk, s.id];
      walk.push(p.id);
    }
    return null;
  };
  const covered = new Set<string>();
  for (const s of reps) {
    const loop = onLoop(s);
    if (!loop || covered.has(s.id)) continue;
    for (const id of loop) covered.add(id);
    out.push(loop);
  }
  return out;
}

function plainMembers(transcript: Transcript, id: string): string[] {
  const l = new Lineages(listedSessions(transcript));
  const start = l.get(id);
  if (!start) return [];
  const root = plainRoot(l, start).id;
  return l
    .ordered()
    .filter((n) => plainRoot(l, n).id === root)
    .map((n) => n.id);
}

function plainNarrow(transcript: Transcript, members: readonly string[]): Transcript {
  const keep = new Set(members);
  return {
    ...transcript,
    sessions: transcript.sessions.filter((s) => keep.has(s.id)),
    ...(transcript.catalog ? { catalog: transcript.catalog.filter((s) => keep.has(s.id)) } : {}),
    captured: transcript.captured.filter((c) => keep.has(c.sessionId)),
    findings: transcript.findings.filter((f) => f.pos.sessionId === undefined || keep.has(f.pos.sessionId)),
  };
}

// ---------------------------------------------------------------------------------------------
// Random parent graphs: few ids so that loops, duplicates and shared parents are common.

const POOL = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
const node = fc.record({
  id: fc.constantFrom(...POOL),
  parentId: fc.option(fc.constantFrom(...POOL, 'unknown'), { nil: null }),
  endReason: fc.constantFrom('compression', 'compression', null, 'branched'),
  fork: fc.boolean(),
});
const graph = fc.array(node, { minLength: 1, maxLength: 12 }).map((ns) => ns.map(({ fork, ...n }) => (fork ? { ...n, forkKind: 'branch' as const } : n)));

describe('Lineages on random parent graphs: the same answers as the plain walks', () => {
  it('root() of every session in any order of asking, chains(), ordered() and cycles()', () => {
    fc.assert(
      fc.property(graph, fc.array(fc.nat(), { maxLength: 24 }), (sessions, asks) => {
        const expected = new Lineages(sessions);
        const want = sessions.map((s) => plainRoot(expected, s));
        const l = new Lineages(sessions);
        // Ask in a random order first (each answer is kept for the sessions on the way), then all.
        for (const k of asks) assert.equal(l.root(sessions[k % sessions.length]), want[k % sessions.length]);
        sessions.forEach((s, i) => assert.equal(l.root(s), want[i], `root of #${i} ${s.id}`));
        const chains = new Map<string, string[]>();
        for (const s of expected.ordered()) {
          const r = plainRoot(expected, s).id;
          chains.set(r, [...(chains.get(r) ?? []), s.id]);
        }
        assert.deepEqual(new Map([...new Lineages(sessions).chains()].map(([r, c]) => [r, c.map((s) => s.id)])), chains);
        assert.deepEqual(
          new Lineages(sessions).cycles().map((c) => c.map((s) => s.id)),
          plainCycles(expected),
        );
      }),
      { numRuns: 3000 },
    );
  });

  it('cycleFrom() still names the loop a session leads into', () => {
    const l = new Lineages([
      { id: 't', parentId: 'a', endReason: null },
      { id: 'a', parentId: 'b', endReason: 'compression' },
      { id: 'b', parentId: 'a', endReason: 'compression' },
    ]);
    assert.deepEqual(l.cycleFrom(l.get('t')!), ['t', 'a', 'b', 'a']);
    assert.deepEqual(
      l.cycles().map((c) => c.map((s) => s.id)),
      [['a', 'b', 'a']],
    );
  });

  it('members and narrow, asked for every lineage in turn (twice: once worked out, once kept), and after the lists change', () => {
    fc.assert(
      fc.property(graph, fc.boolean(), (sessions, withCatalog) => {
        const transcript = {
          path: 'x',
          format: 'hermes-state-db',
          sessions: sessions.map((s) => ({ ...s, systemPrompt: null, generations: [], pos: { sessionId: s.id } })),
          ...(withCatalog
            ? {
                catalog: sessions
                  .slice(0, 3)
                  .map((s) => ({ ...s, startedAt: null, messageCount: null, title: null, source: null, model: null, endedAt: null })),
              }
            : {}),
          captured: sessions.map((s) => ({ sessionId: s.id, path: `dump-${s.id}`, messages: [] })),
          findings: [
            ...sessions.map((s) => ({ severity: 'warning' as const, code: 'parse-error' as const, message: s.id, pos: { sessionId: s.id } })),
            { severity: 'warning' as const, code: 'parse-error' as const, message: 'nowhere', pos: {} },
          ],
        } as unknown as Transcript;
        const check = (): void => {
          const lineages = new TranscriptLineages(transcript);
          for (const pass of [1, 2]) {
            for (const id of [...POOL, 'unknown']) {
              const members = lineages.members(id);
              assert.deepEqual(members, plainMembers(transcript, id), `${id}, pass ${pass}`);
              assert.deepEqual(lineages.narrow(members), plainNarrow(transcript, members), `${id}, pass ${pass}`);
            }
          }
        };
        check();
        // A list grown and a list replaced: the lineages worked out again follow.
        transcript.sessions.push({ id: 'z', parentId: 'a', endReason: null, systemPrompt: null, generations: [], pos: { sessionId: 'z' } });
        check();
        transcript.findings = transcript.findings.slice(1);
        check();
      }),
      { numRuns: 500 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Stores of each shape, through the readers, the replay, the overview, the CLI and the report's data.

const newDir = tempDirsRemovedAfter();

function store(shape: LineageShape, n: number): string {
  const dir = newDir();
  const path = join(dir, 'state.db');
  writeLineageShape(path, shape, n);
  return path;
}

async function run(...argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    argv,
    (s) => out.push(s),
    (s) => err.push(s),
  );
  return { code, out: out.join('\n').split('\n'), err };
}

async function analysed(path: string): Promise<Analysis> {
  return analyze(await loadTranscript(path), OPTIONS);
}

const loopFindings = (a: Analysis): string[] => a.transcript.findings.map((f) => f.message).filter((m) => m.includes('loops back'));

/** What --lineage ID replays: the report must embed the same for that lineage. */
async function lineageInspection(path: string, id: string): Promise<unknown> {
  return new Inspection(analyze(await loadTranscript(path, { lineage: id }), OPTIONS), 'T').exportAll();
}

describe('one compaction chain 3,000 deep', () => {
  const N = 3000;
  let path: string;
  let a: Analysis;
  before(async () => {
    path = store('chain', N);
    a = await analysed(path);
  });

  it('is read parents first, as one lineage of every session, without a loop', () => {
    assert.deepEqual(
      a.transcript.sessions.map((s) => s.id),
      ids(N),
    );
    assert.deepEqual(new TranscriptLineages(a.transcript).members(shapeId(N - 1)), ids(N));
    assert.deepEqual(loopFindings(a), []);
    assert.equal(a.report.turns.length, N);
    const overview = sessionOverview(a.transcript, a.report);
    assert.equal(overview.lineages.length, 1);
    assert.deepEqual(
      overview.lineages[0].sessions.map((s) => s.id),
      ids(N),
    );
    assert.equal(overview.lineages[0].turns, N);
  });

  it('`analyze` and `sessions` print it as one lineage', async () => {
    const text = await run('analyze', path);
    assert.equal(text.code, 0);
    assert.equal(text.out[1], `${N} session(s), ${N} turn(s), ${N} request(s)`);
    assert.equal(text.out.filter((l) => l.startsWith('turn ')).length, N);
    const table = await run('sessions', path);
    assert.match(table.out[0], new RegExp(`: 1 lineage\\(s\\), ${N} session\\(s\\)$`));
    assert.equal(table.out.filter((l) => /^ {2}· s\d{5}/.test(l)).length, N);
  });
});

describe('a parent_session_id cycle through 1,000 sessions', () => {
  const N = 1000;
  let path: string;
  let a: Analysis;
  before(async () => {
    path = store('cycle', N);
    a = await analysed(path);
  });

  it('gives one finding naming the whole loop, and the first session is read without a parent', () => {
    const loop = [shapeId(0), ...ids(N - 1, 1).reverse(), shapeId(0)];
    assert.deepEqual(loopFindings(a), [
      `${path}: session ${shapeId(0)}'s parent_session_id chain loops back (${loop.join(' -> ')}); it is read without a parent`,
    ]);
    assert.equal(a.transcript.sessions[0].parentId, null);
    assert.deepEqual(
      a.transcript.sessions.map((s) => s.id),
      ids(N),
    );
    assert.deepEqual(new TranscriptLineages(a.transcript).members(shapeId(500)), ids(N));
    assert.equal(a.report.turns.length, N);
  });

  it('`check` prints that one finding, `sessions` one lineage', async () => {
    const check = await run('check', path);
    assert.equal(check.out.filter((l) => l.includes('loops back')).length, 1);
    const table = await run('sessions', path);
    assert.match(table.out[0], new RegExp(`: 1 lineage\\(s\\), ${N} session\\(s\\)$`));
  });
});

describe('a loop that other sessions lead into, and a session that is its own parent', () => {
  let a: Analysis;
  before(async () => {
    const dir = newDir();
    const path = join(dir, 'state.db');
    writeHermesDb(
      path,
      [
        { id: 't', parent: 'a', startedAt: 1 },
        { id: 'a', parent: 'b', endReason: 'compression', startedAt: 2 },
        { id: 'b', parent: 'a', endReason: 'compression', startedAt: 3 },
        { id: 'u', parent: 'b', startedAt: 4 },
        { id: 'x', parent: 'x', endReason: 'compression', startedAt: 5 },
      ],
      [
        ['t', 'user', 'q t'],
        ['a', 'user', 'q a'],
        ['b', 'user', 'q b'],
        ['u', 'user', 'q u'],
        ['x', 'user', 'q x'],
      ],
    );
    a = await analysed(path);
  });

  it('one finding per loop, at its first session; the sessions leading into it keep their parents', () => {
    assert.deepEqual(
      loopFindings(a).map((m) => m.slice(m.indexOf('session '))),
      [
        "session a's parent_session_id chain loops back (a -> b -> a); it is read without a parent",
        "session x's parent_session_id chain loops back (x -> x); it is read without a parent",
      ],
    );
    const parents = Object.fromEntries(a.transcript.sessions.map((s) => [s.id, s.parentId]));
    assert.deepEqual(parents, { t: 'a', a: null, b: 'a', u: 'b', x: null });
    assert.deepEqual(
      a.transcript.sessions.map((s) => s.id),
      ['a', 't', 'b', 'u', 'x'],
    );
  });
});

describe('600 sessions, each a branch of the one before', () => {
  const N = 600;
  let path: string;
  let a: Analysis;
  before(async () => {
    path = store('branches', N);
    a = await analysed(path);
  });

  it('are 600 lineages nested 599 deep, in start order', () => {
    const overview = sessionOverview(a.transcript, a.report);
    assert.equal(overview.lineages.length, 1);
    const all = everyLineage(overview.lineages);
    assert.deepEqual(
      all.map((l) => l.id),
      ids(N),
    );
    all.slice(1).forEach((l, i) => {
      assert.equal(l.kind, 'branch');
      assert.equal(l.forkedFrom, shapeId(i));
      assert.deepEqual(
        l.children.map((c) => c.id),
        i + 2 < N ? [shapeId(i + 2)] : [],
      );
    });
    for (const id of [shapeId(0), shapeId(300), shapeId(N - 1)]) assert.deepEqual(new TranscriptLineages(a.transcript).members(id), [id]);
  });

  it('`sessions` indents ten levels, then writes the level out', async () => {
    const table = await run('sessions', path);
    const rows = table.out.slice(2, 2 + N);
    assert.equal(rows[0].split(' ')[0], shapeId(0));
    assert.match(rows[9], new RegExp(`^ {18}└ branch ${shapeId(9)} `));
    assert.match(rows[10], new RegExp(`^ {20}└ \\[10\\] branch ${shapeId(10)} `));
    assert.match(rows[N - 1], new RegExp(`^ {20}└ \\[${N - 1}\\] branch ${shapeId(N - 1)} `));
    // Every row as wide as the heading: the LINEAGE column is that of the widest level, not 1,200 cells.
    assert.ok(Math.max(...rows.map((r) => r.indexOf('conversation'))) < 50);
  });

  it('`analyze` prints one block per lineage, each with its own turn', async () => {
    const text = await run('analyze', path);
    const heads = text.out.filter((l) => l.startsWith('lineage '));
    assert.deepEqual(heads, [
      `lineage ${shapeId(0)}: 1 session(s), 1 turn(s), 1 request(s)`,
      ...ids(N - 1, 1).map((id, i) => `lineage ${id} (branch of ${shapeId(i)}): 1 session(s), 1 turn(s), 1 request(s)`),
    ]);
    for (let i = 0; i < N; i += 97) {
      const at = text.out.indexOf(heads[i]);
      assert.match(text.out[at + 1], new RegExp(`^ {2}turn ${i} {2}session ${shapeId(i)} `));
    }
  });

  it('the report embeds each lineage as --lineage replays it, and its data is JSON.stringify’s text', async () => {
    const data = reportData(a, 'T', OPTIONS);
    assert.ok(data.overview);
    assert.deepEqual(Object.keys(data.lineages), ids(N));
    for (const id of [shapeId(0), shapeId(1), shapeId(N - 1)])
      assert.deepEqual(await decompressInspection(data.lineages[id]), await lineageInspection(path, id));
    let text = '';
    writeJson(data, (s) => (text += s), 4096);
    assert.equal(text, JSON.stringify(data));
  });
});

describe('3,000 sessions of their own, and one session with 2,000 children', () => {
  it('3,000 lineages: `analyze` prints each with its own turn, and the report embeds each', async () => {
    const N = 3000;
    const path = store('flat', N);
    const a = await analysed(path);
    const text = await run('analyze', path);
    const heads = text.out.filter((l) => l.startsWith('lineage '));
    assert.deepEqual(
      heads,
      ids(N).map((id) => `lineage ${id}: 1 session(s), 1 turn(s), 1 request(s)`),
    );
    assert.equal(text.out.filter((l) => l === '  findings: none').length, N);
    const data = reportData(a, 'T', OPTIONS);
    assert.ok(data.overview);
    assert.equal(Object.keys(data.lineages).length, N);
    for (const id of [shapeId(0), shapeId(1234), shapeId(N - 1)])
      assert.deepEqual(await decompressInspection(data.lineages[id]), await lineageInspection(path, id));
  });

  it('2,000 children, each a lineage under the parent; and the same children continuing it by compaction', async () => {
    const N = 2001;
    const path = store('children', N);
    const a = await analysed(path);
    const overview = sessionOverview(a.transcript, a.report);
    assert.deepEqual(
      overview.lineages.map((l) => l.id),
      [shapeId(0)],
    );
    assert.deepEqual(
      overview.lineages[0].children.map((l) => [l.id, l.kind, l.forkedFrom]),
      ids(N - 1, 1).map((id) => [id, 'child', shapeId(0)]),
    );
    const text = await run('analyze', path);
    assert.equal(text.out.filter((l) => l.startsWith('lineage ')).length, N);
    assert.ok(text.out.includes(`lineage ${shapeId(1999)} (child of ${shapeId(0)}): 1 session(s), 1 turn(s), 1 request(s)`));

    const compacted = await analysed(store('compacted-children', N));
    const one = sessionOverview(compacted.transcript, compacted.report);
    assert.equal(everyLineage(one.lineages).length, 1);
    assert.deepEqual(
      one.lineages[0].sessions.map((s) => s.id),
      ids(N),
    );
    assert.deepEqual(new TranscriptLineages(compacted.transcript).members(shapeId(1500)), ids(N));
  });
});

describe('writeJson: JSON.stringify’s text, in pieces, at any depth', () => {
  it('equals JSON.stringify on anything it serializes, and throws where it throws', () => {
    fc.assert(
      fc.property(
        fc.anything({
          maxDepth: 6,
          withBoxedValues: true,
          withMap: true,
          withSet: true,
          withDate: true,
          withSparseArray: true,
          withNullPrototype: true,
          withTypedArray: true,
          withBigInt: true,
        }),
        fc.integer({ min: 1, max: 64 }),
        (value, chunk) => {
          let native: string | undefined;
          let nativeError: unknown;
          try {
            native = JSON.stringify(value);
          } catch (e) {
            nativeError = e;
          }
          const pieces: string[] = [];
          let error: unknown;
          try {
            writeJson(value, (s) => pieces.push(s), chunk);
          } catch (e) {
            error = e;
          }
          if (nativeError) assert.ok(error instanceof TypeError);
          else {
            assert.equal(error, undefined);
            assert.equal(pieces.length ? pieces.join('') : undefined, native);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('writes a value nested 100,000 deep, past JSON.stringify’s stack', () => {
    const n = 100_000;
    let deep: unknown = { id: 'leaf', children: [] };
    for (let i = 0; i < n; i++) deep = { id: i, children: [deep] };
    assert.throws(() => JSON.stringify({ overview: deep }), RangeError);
    let text = '';
    writeJson({ overview: deep }, (s) => (text += s));
    let expected = '{"id":"leaf","children":[]}';
    for (let i = 0; i < n; i++) expected = `{"id":${i},"children":[${expected}]}`;
    assert.equal(text, `{"overview":${expected}}`);
  });

  it('refuses a cycle as JSON.stringify does', () => {
    const a: Record<string, unknown> = { b: [1, 2] };
    (a.b as unknown[]).push({ a });
    assert.throws(() => writeJson(a, () => undefined), TypeError);
  });
});

describe('10,000 nested branches: every sessions option', () => {
  const N = 10_000;
  let path: string;
  before(() => {
    path = store('branches', N);
  });

  it('--sort, --has, --filter and --json walk the tree without recursion', async () => {
    const sorted = await run('sessions', path, '--sort', 'turns');
    assert.equal(sorted.code, 0, sorted.err.join('\n'));
    const has = await run('sessions', path, '--has', 'breaks');
    assert.equal(has.code, 0, has.err.join('\n'));
    const filtered = await run('sessions', path, '--filter', shapeId(N - 1));
    assert.equal(filtered.code, 0, filtered.err.join('\n'));
    assert.ok(
      filtered.out.some((l) => l.includes(shapeId(N - 1))),
      'the deepest branch, under the path to it',
    );
    const json = await run('sessions', path, '--json', '--sort', '-turns');
    assert.equal(json.code, 0, json.err.join('\n'));
    let depth = 0;
    for (let l = (JSON.parse(json.out.join('\n')) as { lineages: { children: unknown[] }[] }).lineages[0]; l; l = l.children[0] as typeof l) depth++;
    assert.equal(depth, N, 'every branch nested under the one before');
  });
});
