// `prompt-inspector sessions` through the built CLI, on the bundled examples and on stores written
// the way upstream writes them (test/support/hermes_store.py). Expectations come from the stores
// themselves (their sessions table, read with python3's sqlite3) and from the scenarios' ground
// truth, never from the overview's own output.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Ajv2020 from 'ajv/dist/2020';
import { OVERVIEW_COLUMNS, sortLineages } from '../../src/shared/overviewColumns';
import type { OverviewLineage, SessionOverview } from '../../src/shared/overviewTypes';
import { buildStore, type Truth } from '../support/upstreamStores';
import { analyzeJson, assertNoStack, cli, example, ROOT, tempDir } from './support';
import { PYTHON } from '../support/python';

const ROTATION = example('rotation/state.db');

function overviewJson(...args: string[]): SessionOverview {
  const r = cli('sessions', ...args, '--json');
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as SessionOverview;
}

function python(script: string, ...args: string[]): string {
  const r = spawnSync(PYTHON, ['-c', script, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout;
}

/** The sessions table as SQLite itself reads it. */
function sessionsTable(
  db: string,
): { id: string; parent: string | null; title: string | null; started: number; end: string | null; apiCalls: number; messages: number }[] {
  return JSON.parse(
    python(
      `import sqlite3, json, sys
c = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)
print(json.dumps([dict(zip(['id','parent','title','started','end','apiCalls','messages'], r)) for r in c.execute(
  'SELECT id, parent_session_id, title, started_at, end_reason, api_call_count, message_count FROM sessions ORDER BY started_at, id')]))`,
      db,
    ),
  );
}

const flatten = (rows: readonly OverviewLineage[]): OverviewLineage[] => rows.flatMap((r) => [r, ...flatten(r.children)]);

/** What a scenario's truth says each lineage holds: its sessions, turns, requests, counters, breaks, and where it hangs. */
function expectedLineages(truth: Truth) {
  const byId = new Map(truth.sessions.map((s) => [s.id, s]));
  const forked = (s: Truth['sessions'][number]): boolean => ['_branched_from', '_delegate_from', '_reset_from'].some((k) => s.modelConfig?.[k] !== undefined);
  const continues = (s: Truth['sessions'][number]): boolean => s.parentId !== null && byId.get(s.parentId)?.endReason === 'compression' && !forked(s);
  const rootOf = (s: Truth['sessions'][number]): string => (continues(s) ? rootOf(byId.get(s.parentId as string)!) : s.id);
  const out = new Map<string, { sessions: string[]; turns: number; requests: number; apiCalls: number; breaks: number; under: string | null; kind: string }>();
  for (const s of truth.sessions) {
    const root = rootOf(s);
    const e = out.get(root) ?? { sessions: [], turns: 0, requests: 0, apiCalls: 0, breaks: 0, under: null, kind: 'conversation' };
    e.sessions.push(s.id);
    e.requests += s.requests;
    e.apiCalls += s.counters.api_call_count;
    e.turns += truth.turns.filter((t) => t.sessionId === s.id).length;
    e.breaks += truth.requests.filter((q) => q.sessionId === s.id && q.breakAt !== null && q.breakCause !== 'compression' && q.breakCause !== 'rewind').length;
    if (root === s.id && s.parentId !== null) {
      e.under = rootOf(byId.get(s.parentId)!);
      e.kind =
        s.modelConfig?._branched_from !== undefined
          ? 'branch'
          : s.modelConfig?._delegate_from !== undefined
            ? 'delegate'
            : s.modelConfig?._reset_from !== undefined
              ? 'reset'
              : 'child';
    }
    out.set(root, e);
  }
  return out;
}

describe('sessions on the bundled examples', () => {
  it('rotation/state.db: the parent and its rotated child are one lineage row, with both sessions listed under it', () => {
    const stored = sessionsTable(ROTATION);
    assert.equal(stored.length, 2);
    const report = analyzeJson(ROTATION);
    const o = overviewJson(ROTATION);
    assert.equal(o.lineages.length, 1);
    const [l] = o.lineages;
    assert.deepEqual(
      l.sessions.map((s) => s.id),
      stored.map((s) => s.id),
    );
    assert.equal(l.title, stored[0].title);
    assert.equal(l.startedAt, stored[0].started);
    assert.deepEqual(
      l.sessions.map((s) => s.endReason),
      stored.map((s) => s.end),
    );
    assert.equal(l.turns, report.turns.length);
    assert.equal(l.requests, report.requests.length);
    assert.equal(l.recorded.apiCalls, stored[0].apiCalls + stored[1].apiCalls);
    assert.deepEqual(
      l.sessions.map((s) => s.recorded.messages),
      stored.map((s) => s.messages),
    );
    assert.equal(l.compactions, 1, 'the rotation');
    assert.equal(l.cacheBreaks, 0, "the compaction's break is no cache break");
    // The store's own sessions.source and sessions.model (read here by SQLite itself).
    const [source, model] = JSON.parse(
      python(
        `import sqlite3, json, sys
c = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)
print(json.dumps(c.execute('SELECT source, model FROM sessions ORDER BY started_at, id LIMIT 1').fetchone()))`,
        ROTATION,
      ),
    ) as [string | null, string | null];
    assert.deepEqual([l.source, l.model], [source, model]);

    const text = cli('sessions', ROTATION);
    assert.equal(text.code, 0, text.stderr);
    const lines = text.stdout.trimEnd().split('\n');
    assert.match(lines[0], /1 lineage\(s\), 2 session\(s\)$/);
    assert.match(lines[1], /^LINEAGE\s+TITLE\s+SOURCE\s+MODEL\s+START \(UTC\)/);
    assert.ok(lines[2].startsWith(`${stored[0].id} `), 'the lineage row');
    assert.ok(lines[2].includes(stored[0].title as string));
    assert.equal(cellUnder(lines, 'SOURCE', 2), source ?? 'not recorded');
    assert.equal(cellUnder(lines, 'MODEL', 2), model ?? 'not recorded');
    assert.ok(lines[3].startsWith(`  · ${stored[0].id} `) && lines[4].startsWith(`  · ${stored[1].id} `), 'its sessions under it');
    assert.equal(new Date(stored[0].started * 1000).toISOString().slice(0, 16).replace('T', ' '), cellUnder(lines, 'START (UTC)', 2));
    assert.equal(cellUnder(lines, 'REQUESTS', 2), String(report.requests.length));
    assert.equal(cellUnder(lines, 'END', 3), 'compression');
  });

  it('a session JSON is one lineage; what it cannot say (title, counters) is "not recorded"', () => {
    const file = example('sidecars/session_20260918_101500_a1b2c3.json');
    const o = overviewJson(file);
    const report = analyzeJson(file);
    const snapshot = JSON.parse(readFileSync(file, 'utf8')) as { session_start: string };
    assert.equal(o.lineages.length, 1);
    assert.deepEqual([o.lineages[0].turns, o.lineages[0].requests], [report.turns.length, report.requests.length]);
    // session_start is a naive local time as the agent writes it; the file's own value, read as UTC.
    assert.equal(o.lineages[0].startedAt, Date.parse(`${snapshot.session_start}Z`) / 1000);
    assert.deepEqual([o.lineages[0].title, o.lineages[0].recorded.apiCalls], [null, null]);
    const lines = cli('sessions', file).stdout.trimEnd().split('\n');
    assert.equal(cellUnder(lines, 'TITLE', 2), 'not recorded');
    assert.equal(cellUnder(lines, 'API CALLS*', 2), 'not recorded');
  });
});

/**
 * The cell under a heading in line `row`. Cells hold single spaces at most ("not recorded") and
 * columns are two or more spaces apart, so a line splits into its cells; a chain's session lines
 * leave SESSIONS empty, so only the columns before it are read from those.
 */
function cellUnder(lines: string[], heading: string, row: number): string {
  const split = (l: string): string[] => l.trim().split(/ {2,}/);
  const at = split(lines[1]).indexOf(heading);
  assert.ok(at >= 0, heading);
  return split(lines[row])[at];
}

describe('sessions on a store written as upstream writes it (home: plain, rotation, undo, delegate, branch, a dropped sidecar)', () => {
  const store = buildStore('home');
  const expected = expectedLineages(store.truth);

  it("one row per lineage with the scenario's turns, requests, recorded calls and breaks; forks under their parent", () => {
    const o = overviewJson(store.stateDb);
    const rows = flatten(o.lineages);
    assert.deepEqual(rows.map((r) => r.id).sort(), [...expected.keys()].sort());
    assert.ok(
      [...expected.values()].some((e) => e.sessions.length > 1),
      'the scenario has a rotation chain',
    );
    assert.ok([...expected.values()].some((e) => e.kind === 'delegate') && [...expected.values()].some((e) => e.kind === 'branch'));
    for (const r of rows) {
      const e = expected.get(r.id)!;
      assert.deepEqual(
        { sessions: r.sessions.map((s) => s.id), turns: r.turns, requests: r.requests, apiCalls: r.recorded.apiCalls, breaks: r.cacheBreaks, kind: r.kind },
        { sessions: e.sessions, turns: e.turns, requests: e.requests, apiCalls: e.apiCalls, breaks: e.breaks, kind: e.kind },
        r.id,
      );
      const parent = rows.find((p) => p.children.includes(r));
      assert.equal(parent?.id ?? null, e.under, `${r.id} hangs under its parent's lineage`);
    }
    const undo = rows.find((r) => store.truth.requests.some((q) => q.breakCause === 'rewind' && r.sessions.some((s) => s.id === q.sessionId)));
    assert.ok(undo, 'the home has an /undo');
    assert.equal(undo.errors ?? 0, 0, 'the re-ask after /undo breaks the prefix as a rewind: info, not an error');
    assert.ok(
      rows.some((r) => (r.errors ?? 0) > 0),
      'the sidecar a rewrite dropped breaks the prefix: an error',
    );
  });

  it("the table: aligned columns, forks indented with their kind, every row's requests under its heading", () => {
    const r = cli('sessions', store.stateDb);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    const grid = lines.slice(
      1,
      lines.findIndex((l) => l.startsWith('* ')),
    );
    assert.ok(grid.length > expected.size);
    assert.ok(
      grid.every((l) => l.length === grid[0].length),
      'every row as wide as the heading',
    );
    for (const [id, e] of expected) {
      const at = lines.findIndex(
        (l) =>
          l
            .trimStart()
            .replace(/^└ \w+ /, '')
            .startsWith(`${id} `) && !l.includes('·'),
      );
      assert.ok(at > 1, id);
      if (e.kind !== 'conversation') assert.match(lines[at], new RegExp(`^ +└ ${e.kind} ${id} `));
      assert.equal(cellUnder(lines, 'REQUESTS', at), String(e.requests), id);
      assert.equal(cellUnder(lines, 'SESSIONS', at), String(e.sessions.length), id);
    }
  });

  it('--sort orders by every column, at every level, a missing value last; -COLUMN and --desc are descending', () => {
    // Every column both ways on the store's overview, sorted as `sessions --sort` sorts it; then each
    // way of asking through the CLI gives exactly that order (one process per way, not per column).
    const base = overviewJson(store.stateDb);
    for (const c of OVERVIEW_COLUMNS) {
      for (const descending of [false, true]) {
        const sorted = sortLineages(base.lineages, c, descending);
        for (const level of [sorted, ...flatten(sorted).map((l) => l.children)]) {
          const values = level.map((l) => c.value(l));
          const known = values.filter((v) => v !== null);
          assert.ok(
            values.slice(0, known.length).every((v) => v !== null),
            `${c.key}: nulls last`,
          );
          for (let i = 1; i < known.length; i++) {
            const [a, b] = [known[i - 1], known[i]] as (string | number)[];
            assert.ok(descending ? a >= b : a <= b, `${c.key}${descending ? ' descending' : ''}: ${a} then ${b}`);
          }
        }
      }
    }
    for (const [args, key, descending] of [
      [['title'], 'title', false],
      [['-turns'], 'turns', true],
      [['start', '--desc'], 'start', true],
      [['-reused-pct'], 'reused-pct', true],
      [['end'], 'end', false],
    ] as const) {
      const column = OVERVIEW_COLUMNS.find((c) => c.key === key)!;
      assert.deepEqual(overviewJson(store.stateDb, '--sort', ...args).lineages, sortLineages(base.lineages, column, descending), args.join(' '));
    }
    const byRequests = overviewJson(store.stateDb, '--sort', '-requests').lineages.map((l) => expected.get(l.id)!.requests);
    assert.deepEqual(
      byRequests,
      [...byRequests].sort((a, b) => b - a),
    );
  });

  it('--filter matches title, id or source, keeping the parent of a matching child; --has breaks and --has errors', () => {
    const delegate = [...expected].find(([, e]) => e.kind === 'delegate')![0];
    const o = overviewJson(store.stateDb, '--filter', delegate.slice(-6).toUpperCase());
    assert.deepEqual(
      o.lineages.map((l) => l.id),
      [expected.get(delegate)!.under],
    );
    assert.deepEqual(
      o.lineages[0].children.map((l) => l.id),
      [delegate],
    );
    const withBreaks = [...expected].filter(([, e]) => e.breaks > 0).map(([id]) => id);
    assert.ok(withBreaks.length > 0);
    assert.deepEqual(
      flatten(overviewJson(store.stateDb, '--has', 'breaks').lineages).map((l) => l.id),
      withBreaks,
    );
    const errors = flatten(overviewJson(store.stateDb, '--has', 'errors').lineages);
    assert.ok(errors.length > 0 && errors.every((l) => (l.errors ?? 0) > 0));
    const none = cli('sessions', store.stateDb, '--filter', 'no such session anywhere');
    assert.equal(none.code, 0);
    assert.match(none.stdout, /0 lineage\(s\), 0 session\(s\)\nno lineage matches\n/);
  });

  it('--session reads one lineage; the other sessions are listed from the store, their figures "not read"', () => {
    const delegate = [...expected].find(([, e]) => e.kind === 'delegate')![0];
    const o = overviewJson(store.stateDb, '--session', delegate);
    const rows = flatten(o.lineages);
    assert.equal(rows.length, expected.size, 'every lineage is still listed');
    for (const r of rows) {
      const wasRead = r.id === delegate || r.id === expected.get(delegate)!.under;
      assert.equal(
        r.sessions.every((s) => s.read),
        wasRead,
        r.id,
      );
      if (!wasRead) assert.deepEqual([r.turns, r.requests], [null, null]);
      else assert.equal(r.requests, expected.get(r.id)!.requests);
    }
    const lines = cli('sessions', store.stateDb, '--session', delegate).stdout.split('\n');
    const other = [...expected.keys()].find((id) => id !== delegate && id !== expected.get(delegate)!.under)!;
    assert.equal(
      cellUnder(
        lines,
        'TURNS',
        lines.findIndex((l) => l.startsWith(`${other} `)),
      ),
      'not read',
    );
  });

  it('a hostile session title is printed escaped: no control or bidi character reaches the terminal, no line is forged', () => {
    const dir = tempDir();
    const db = join(dir, 'state.db');
    const title = '\u001b[31mX\u202eY\nforged\r\u0007';
    const target = store.truth.sessions[0].id;
    // A clean copy through SQLite's backup, then the title set as upstream's set_session_title stores it.
    python(
      `import sqlite3, sys
src = sqlite3.connect(sys.argv[1]); dst = sqlite3.connect(sys.argv[2]); src.backup(dst)
dst.execute('UPDATE sessions SET title = ? WHERE id = ?', (sys.argv[3], sys.argv[4])); dst.commit(); dst.close()`,
      store.stateDb,
      db,
      title,
      target,
    );
    const r = cli('sessions', db);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /[\u0000-\u0009\u000b-\u001f\u007f\u202e]/, 'only newlines end lines');
    const row = r.stdout.split('\n').find((l) => l.startsWith(`${target} `)) as string;
    assert.ok(row.includes('\\x1b[31mX\\u202eY\\nforged\\r\\x07'), row);
    assert.equal(r.stdout.split('\n').filter((l) => l.includes('forged')).length, 1);
    assert.equal(overviewJson(db).lineages.find((l) => l.id === target)?.title, title, 'JSON keeps the title as stored');
  });
});

describe('sessions --json: the schema', () => {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  const validate = ajv.compile(JSON.parse(readFileSync(join(ROOT, 'schemas/sessions.schema.json'), 'utf8')));
  const files = [
    ROTATION,
    example('rotation-prompt-changed/state.db'),
    example('in-place/state.db'),
    example('sidecars/session_20260918_101500_a1b2c3.json'),
    example('trace/agent.trace.jsonl'),
  ];

  for (const f of files) {
    it(`validates ${f.slice(ROOT.length + 1)}`, () => {
      assert.ok(validate(overviewJson(f)), ajv.errorsText(validate.errors));
    });
  }

  it('validates upstream-written stores, sorted, filtered and read by one lineage', () => {
    const home = buildStore('home');
    for (const args of [[], ['--sort', '-breaks'], ['--has', 'errors'], ['--session', home.truth.sessions[0].id]]) {
      assert.ok(validate(overviewJson(home.stateDb, ...args)), `${args.join(' ')}: ${ajv.errorsText(validate.errors)}`);
    }
    for (const scenario of ['branch', 'delegate', 'rotation-in-place', 'older']) {
      assert.ok(validate(overviewJson(buildStore(scenario).stateDb)), `${scenario}: ${ajv.errorsText(validate.errors)}`);
    }
  });

  it('rejects what the contract forbids (the schema is no formality)', () => {
    const o = overviewJson(ROTATION) as unknown as { lineages: Record<string, unknown>[] };
    const { kind: _kind, ...noKind } = o.lineages[0];
    assert.equal(validate({ ...o, lineages: [noKind] }), false, 'a lineage without kind');
    assert.equal(validate({ ...o, lineages: [{ ...o.lineages[0], turns: -1 }] }), false, 'a negative count');
    assert.equal(validate({ ...o, lineages: [{ ...o.lineages[0], sessions: [] }] }), false, 'a lineage of no session');
  });
});

describe('sessions: usage and exit codes', () => {
  const cases: [string[], RegExp][] = [
    [['sessions'], /sessions takes exactly one file/],
    [['sessions', ROTATION, ROTATION], /sessions takes exactly one file/],
    [['sessions', ROTATION, '--sort', 'colour'], /--sort takes a column \(id, title, .*\), not "colour"/],
    [['sessions', ROTATION, '--sort'], /--sort needs a value/],
    [['sessions', ROTATION, '--has', 'warnings'], /--has is breaks or errors, not "warnings"/],
    [['sessions', ROTATION, '--desc'], /--desc needs --sort COLUMN/],
    [['analyze', ROTATION, '--sort', 'turns'], /--sort is an option of `sessions`, not of `analyze`/],
    [['check', ROTATION, '--has=breaks'], /--has is an option of `sessions`, not of `check`/],
  ];
  for (const [args, message] of cases) {
    it(`${
      args
        .slice(args[0] === 'sessions' ? 1 : 0)
        .map((a) => (a === ROTATION ? 'FILE' : a))
        .join(' ') || '(no file)'
    }: exit 2 with a message`, () => {
      const r = cli(...args);
      assert.equal(r.code, 2);
      assert.match(r.stderr, message);
      assert.equal(r.stdout, '');
      assertNoStack(r.stderr);
    });
  }

  it('a path that cannot be opened, or an unknown --session, exits 2; --help exits 0 and names every column', () => {
    assert.equal(cli('sessions', join(tempDir(), 'missing.db')).code, 2);
    assert.equal(cli('sessions', ROTATION, '--session', 'nope').code, 2);
    const help = cli('sessions', '--help');
    assert.equal(help.code, 0);
    for (const c of OVERVIEW_COLUMNS) assert.ok(help.stdout.includes(c.key), c.key);
  });
});
