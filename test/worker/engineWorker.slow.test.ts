// The shipped analysis worker (dist/engine.js) driven as the extension host drives it: a file of
// several lineages comes with its overview, a lineage opens under a scope key of its own and
// answers as `--lineage` replays it (narrowed from the rows read, or loaded alone from a state.db
// only listed), and what cannot be answered rejects.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { AnalysisCancelled, EngineClient, EnginePool, type EngineProgress } from '../../src/worker/engineProtocol';
import { everyLineage } from '../../src/shared/overviewColumns';
import type { OverviewLineage, SessionOverview } from '../../src/shared/overviewTypes';
import { batchSize, nextToFill } from '../../src/extension/overviewFill';
import { withFilled } from '../../src/shared/overviewColumns';
import { sqliteExec } from '../support/sqliteExec';
import { billedHomeWithLogCut, buildStore } from '../support/upstreamStores';
import { analyzeJson, example, ROOT } from '../cli/support';
import { PYTHON } from '../support/python';

type Json = any;

const engine = new EngineClient(join(ROOT, 'dist', 'engine.js'));
after(() => engine.dispose());

const params = (key: string, path: string, readWholeLimit?: number) =>
  ({ key, path, title: 'state.db', profile: 'hermes-current', tokenizer: 'o200k_base', readWholeLimit }) as const;

describe('the analysis worker: lineage scopes', () => {
  const home = buildStore('home');

  it("a file of several lineages: its overview, and each lineage's index and pages as --lineage gives them", async () => {
    const { overview, index } = await engine.call('analyze', params('home', home.stateDb));
    assert.ok(overview, 'a home of several lineages has an overview');
    assert.equal(overview.read, true);
    const lineages = everyLineage(overview.lineages);
    assert.ok(lineages.length > 2 && lineages.some((l) => l.sessions.length > 1) && lineages.some((l) => l.kind !== 'conversation'));
    assert.equal(index.requestCount, analyzeJson(home.stateDb).requests.length);
    for (const [n, l] of lineages.entries()) {
      const alone = analyzeJson(home.stateDb, '--lineage', l.id);
      const scope = `home#${n}`;
      const scoped = await engine.call('openLineage', { key: 'home', lineage: l.id, scope });
      assert.equal(scoped.turnCount, alone.turns.length, l.id);
      assert.equal(scoped.turnCount, l.turns, `${l.id}: the overview row's turns`);
      const requests = await engine.call('page', { key: scope, list: 'requests', start: 0, count: 1000 });
      assert.deepEqual(
        requests.map((q: Json) => [q.sessionId, q.inputTokens, q.reusedTokens]),
        alone.requests.map((q: Json) => [q.sessionId, q.inputTokens, q.prefix.reusedTokens]),
      );
      const findings = await engine.call('page', { key: scope, list: 'findings', start: 0, count: 1000 });
      assert.deepEqual(
        findings.map((d: Json) => d.code),
        alone.diagnostics.map((d: Json) => d.code),
      );
    }
    // The file's own analysis is untouched by its scopes.
    const whole = await engine.call('page', { key: 'home', list: 'requests', start: 0, count: 10_000 });
    assert.equal(whole.length, index.requestCount);
  });

  it('a state.db only listed: rows not read in the overview, a lineage loaded alone from the file', async () => {
    const { overview, listedOnly, index } = await engine.call('analyze', params('listed', home.stateDb, 1024));
    assert.equal(listedOnly, true);
    assert.equal(index.requestCount, 0);
    assert.ok(overview);
    assert.equal(overview.read, false);
    const chain = everyLineage(overview.lineages).find((l) => l.sessions.length > 1);
    assert.ok(chain);
    assert.equal(chain.turns, null, 'not read');
    const alone = analyzeJson(home.stateDb, '--lineage', chain.id);
    const scoped = await engine.call('openLineage', { key: 'listed', lineage: chain.id, scope: 'listed#1' });
    assert.equal(scoped.requestCount, alone.requests.length);
    assert.ok(scoped.requestCount > 0);
    const last = alone.requests[alone.requests.length - 1];
    const messages = await engine.call('messages', { key: 'listed#1', request: last.index, start: 0, count: 10_000 });
    assert.equal(messages.length, last.messageCount);
  });

  it('an id that is no lineage rejects (a later session of a chain, an unknown id), and a dropped scope answers nothing', async () => {
    await engine.call('analyze', params('home', home.stateDb));
    const l = analyzeJson(home.stateDb).sessions as Json[];
    const continued = l.find((s) => s.parentId !== null && l.find((p) => p.id === s.parentId)?.endReason === 'compression');
    assert.ok(continued, 'the home has a compaction chain');
    await assert.rejects(engine.call('openLineage', { key: 'home', lineage: continued.id, scope: 'home#x' }), /no lineage/);
    await assert.rejects(engine.call('openLineage', { key: 'home', lineage: 'nope', scope: 'home#x' }), /no lineage nope/);
    await assert.rejects(engine.call('openLineage', { key: 'never-analysed', lineage: 'nope', scope: 'x' }), /no analysis for never-analysed/);
    await engine.call('openLineage', { key: 'home', lineage: l[0].id, scope: 'home#y' });
    await engine.call('drop', { key: 'home#y' });
    await assert.rejects(engine.call('page', { key: 'home#y', list: 'turns', start: 0, count: 1 }), /no analysis for home#y/);
  });

  it("a home rewritten in one lineage replays only that lineage's family, and answers as a fresh analysis", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-worker-'));
    const db = join(dir, 'state.db');
    copyFileSync(home.stateDb, db);
    const first = await engine.call('analyze', params('rw', db));
    assert.equal(first.recomputed, null);
    // An /undo in the session that started first: its last rows set inactive.
    sqliteExec(db, [
      'WITH first AS (SELECT id FROM sessions ORDER BY started_at, id LIMIT 1) '
        + 'UPDATE messages SET active = 0 WHERE session_id = (SELECT id FROM first) AND id >= (SELECT max(id) - 1 FROM messages WHERE session_id = (SELECT id FROM first));',
    ]);
    const again = await engine.call('analyze', params('rw', db));
    const fresh = await engine.call('analyze', params('rw-fresh', db));
    assert.ok(again.recomputed && again.recomputed.sessions > 0 && again.recomputed.sessions < again.recomputed.of, JSON.stringify(again.recomputed));
    assert.equal(again.resumed, null);
    assert.deepEqual(again.index, fresh.index);
    assert.deepEqual(again.overview, fresh.overview);
    for (const list of ['turns', 'requests', 'findings'] as const) {
      assert.deepEqual(
        await engine.call('page', { key: 'rw', list, start: 0, count: 10_000 }),
        await engine.call('page', { key: 'rw-fresh', list, start: 0, count: 10_000 }),
        list,
      );
    }
  });

  it('only its log grown: the file is not read again, the bill is, and it answers as a fresh analysis', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-worker-log-'));
    try {
      const { db, log, rest } = billedHomeWithLogCut(dir, 1);
      const first = await engine.call('analyze', params('log', db));
      appendFileSync(log, rest);
      const fresh = await engine.call('analyze', params('log-fresh', db));
      // Its bytes zeroed in place, its size and times kept: a read of it now would find no database.
      const st = statSync(db);
      writeFileSync(db, Buffer.alloc(st.size));
      utimesSync(db, st.atimeMs / 1000, st.mtimeMs / 1000);
      const again = await engine.call('analyze', params('log', db));
      assert.deepEqual(again.resumed, { turns: 0, requests: 0, reported: 0 });
      assert.deepEqual(again.index, fresh.index, 'state.db not read again, the log read on');
      assert.notDeepEqual(again.index, first.index, 'the bill read on shows');
      const requests = await engine.call('page', { key: 'log', list: 'requests', start: 0, count: 10_000 });
      assert.deepEqual(requests, await engine.call('page', { key: 'log-fresh', list: 'requests', start: 0, count: 10_000 }));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a file of one lineage has no overview; only listed, that lineage loads without being chosen', async () => {
    const rotation = example('rotation/state.db');
    const whole = await engine.call('analyze', params('rotation', rotation));
    assert.equal(whole.overview, null);
    const listed = await engine.call('analyze', params('rotation-listed', rotation, 1024));
    assert.equal(listed.overview, null);
    assert.equal(listed.listedOnly, false);
    assert.equal(listed.index.turnCount, whole.index.turnCount);
    assert.ok(listed.index.turnCount > 0);
    assert.equal(listed.catalog?.length, 2, 'both sessions of the chain');
  });
});

describe('the analysis workers: one file per worker', () => {
  const pool = new EnginePool(join(ROOT, 'dist', 'engine.js'), 4);
  after(() => pool.dispose());

  it("a small file's pages answer while a large home is still being analysed", async () => {
    // A home of 300 sessions written by upstream's write paths: a second or more to analyse here.
    const dir = mkdtempSync(join(tmpdir(), 'pi-pool-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const written = spawnSync(
      PYTHON,
      [join(ROOT, 'test/support/hermes_home.py'), dir, '--sessions', '300', '--seed', '7', '--target-mb', '12', '--long-lineage', '40'],
      {
        encoding: 'utf8',
        maxBuffer: 64 << 20,
      },
    );
    assert.equal(written.status, 0, written.stderr);
    const small = example('trace/agent.trace.jsonl');
    const smallClient = pool.for(small);
    await smallClient.call('analyze', params('small', small));

    let homeDone = false;
    const home = pool
      .for(join(dir, 'state.db'))
      .call('analyze', params('big', join(dir, 'state.db')))
      .finally(() => (homeDone = true));
    assert.notEqual(pool.for(join(dir, 'state.db')), smallClient, 'each file its own worker');
    const turns = await smallClient.call('page', { key: 'small', list: 'turns', start: 0, count: 10 });
    assert.ok(turns.length > 0);
    assert.equal(homeDone, false, 'answered before the home was done, not behind it');
    assert.ok((await home).overview);
  });

  /** A home of 300 sessions written by upstream's write paths (12 MB), once for the tests below. */
  let written300: string | undefined;
  const dir300 = mkdtempSync(join(tmpdir(), 'pi-progress-'));
  after(() => rmSync(dir300, { recursive: true, force: true }));
  const home300 = (): string => {
    if (written300) return written300;
    const dir = dir300;
    const written = spawnSync(PYTHON, [join(ROOT, 'test/support/hermes_home.py'), dir, '--sessions', '300', '--seed', '8', '--target-mb', '12'], {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
    assert.equal(written.status, 0, written.stderr);
    written300 = join(dir, 'state.db');
    return written300;
  };

  it('a state.db listed before it is read: the lineages of the whole analysis, none read; nothing to list first elsewhere', async () => {
    const path = home300();
    const client = new EngineClient(join(ROOT, 'dist', 'engine.js'));
    after(() => client.dispose());
    const listed = await client.call('list', params('listed', path));
    assert.ok(listed?.overview, 'an overview from the session table');
    assert.equal(listed.overview.read, false);
    const whole = await client.call('analyze', params('whole', path));
    assert.ok(whole.overview);
    const ids = (o: NonNullable<typeof whole.overview>): string[] => everyLineage(o.lineages).map((l) => l.id);
    assert.deepEqual(ids(listed.overview), ids(whole.overview), 'the rows the whole analysis fills in');
    assert.ok(
      everyLineage(listed.overview.lineages).every((l) => l.turns === null),
      'no figure of the replay yet',
    );
    // A lineage opens from the listing as from a file only listed: loaded alone.
    const first = ids(listed.overview)[0];
    assert.ok((await client.call('openLineage', { key: 'listed', lineage: first, scope: 'scope' })).turnCount > 0);
    assert.equal(await client.call('list', params('trace', example('trace/agent.trace.jsonl'))), null, 'a turn trace has nothing to list apart from its rows');
    assert.equal(await client.call('list', { ...params('one', path), session: first }), null, 'nor a file read for one session');
  });

  /** examples/home with one user row's content marked as JSON and not JSON: a finding of its session and row. */
  const damagedHome = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-damaged-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const db = join(dir, 'state.db');
    copyFileSync(example('home/state.db'), db);
    sqliteExec(db, ["UPDATE messages SET content = char(0) || 'json:{not json' WHERE id = (SELECT min(id) FROM messages WHERE role = 'user');"]);
    return db;
  };

  it("a listing fills its rows in, a few families at a time, exactly as the whole analysis finds them (billed from the logs beside), with their sessions' findings", async () => {
    const client = new EngineClient(join(ROOT, 'dist', 'engine.js'));
    after(() => client.dispose());
    const filledIn: string[] = [];
    const foundFilling = new Set<string>();
    for (const [name, path] of [
      ['generated, 300 sessions', home300()],
      ['upstream home', buildStore('home').stateDb],
      ['upstream billed home', buildStore('billed').stateDb],
      ['examples/home', example('home/state.db')],
      ['examples/billed', example('billed/state.db')],
      ['a damaged row', damagedHome()],
    ]) {
      const listed = await client.call('list', params(`${name}#listing`, path));
      const whole = await client.call('analyze', params(name, path));
      // Rows of sessions the session table does not hold (orphan rows) come with the whole analysis alone.
      if (!listed?.overview) continue;
      assert.ok(whole.overview, `${name}: an overview listed only where the whole analysis has one`);
      // As the host asks: the next rows in start order (no view), ever more at a time; then one family
      // a call, so that no family is filled beside the others (a small home's all fit in the first call).
      const wholeRows = new Map<string, OverviewLineage>(whole.overview.lineages.map((l) => [l.id, l]));
      // Each finding of a fill is one of the whole analysis's (those of no turn or request).
      const wholeFindings = new Set(whole.diagnostics.map((d) => JSON.stringify(d)));
      for (const next of [batchSize, () => 1]) {
        let filled: SessionOverview = listed.overview;
        const asked = new Set<string>();
        for (
          let size = next(0), lineages = nextToFill(filled, asked, null, size);
          lineages.length;
          size = next(size), lineages = nextToFill(filled, asked, null, size)
        ) {
          const { rows, diagnostics } = await client.call('fill', { key: `${name}#listing`, lineages });
          for (const d of diagnostics) {
            assert.ok(wholeFindings.has(JSON.stringify(d)), `${name}: ${d.code} "${d.message}" found filling, and by the whole analysis`);
            foundFilling.add(`${name}: ${d.code}`);
          }
          assert.deepEqual(rows.map((r) => r.id).sort(), [...lineages].sort(), `${name}: a row for each family asked for`);
          filled = withFilled(filled, rows);
          for (const id of lineages) asked.add(id);
        }
        assert.equal(asked.size, listed.overview.lineages.length, `${name}: every top-level row asked for once`);
        for (const row of filled.lineages)
          assert.deepEqual(row, wholeRows.get(row.id), `${name}: ${row.id} filled in as the whole analysis has it, forks, sessions and bill included`);
        if (name === 'upstream billed home')
          assert.ok(
            everyLineage(filled.lineages).some((l) => l.costUsd !== null && l.costUsd > 0),
            'billed figures filled',
          );
      }
      filledIn.push(name);
    }
    assert.deepEqual([...foundFilling], ['a damaged row: parse-error'], 'the findings of the rows read came with them');
    assert.deepEqual(
      filledIn,
      ['generated, 300 sessions', 'upstream home', 'upstream billed home', 'examples/home', 'examples/billed', 'a damaged row'],
      'the files of several lineages',
    );
    assert.deepEqual(
      await client.call('fill', { key: 'examples/home#listing', lineages: ['no such session'] }),
      { rows: [], diagnostics: [] },
      'an id that is no row gives none',
    );
    await assert.rejects(client.call('fill', { key: 'never listed', lineages: [] }), /no analysis for never listed/);
    // The file replaced by one that is no SQLite database after it was listed: the rows asked for say why they stay unread.
    const gone = damagedHome();
    const listedGone = await client.call('list', params('gone#listing', gone));
    const first = listedGone?.overview?.lineages[0].id as string;
    writeFileSync(gone, 'not a database any more\n');
    const unread = await client.call('fill', { key: 'gone#listing', lineages: [first] });
    assert.deepEqual(unread.rows, []);
    assert.deepEqual(
      unread.diagnostics.map((d) => [d.severity, d.code]),
      [['error', 'parse-error']],
    );
    assert.match(unread.diagnostics[0].message, new RegExp(`could not be read again for the figures of lineage ${first} .*its row says "not read"`));
  });

  it('a long analysis tells its steps as it goes, and a cancel stops it: the call rejects and the next one is answered', async () => {
    const path = home300();
    const client = new EngineClient(join(ROOT, 'dist', 'engine.js'));
    after(() => client.dispose());

    const steps: EngineProgress[] = [];
    const stop = client.onProgress('home', (p) => steps.push(p));
    const { index } = await client.call('analyze', params('home', path));
    stop();
    assert.deepEqual([...new Set(steps.map((p) => p.step))], ['read', 'replay', 'requests'], 'reading, the replay, then requests measured, in that order');
    const measured = steps.filter((p) => p.step === 'requests');
    assert.ok(measured.length >= 2, `several steps of requests (${measured.length})`);
    assert.ok(
      measured.every((p, i) => p.total === index.requestCount && (i === 0 || p.done > measured[i - 1].done)),
      'counted up towards the requests the index has',
    );
    assert.ok(
      steps.every((p) => p.key === 'home'),
      'told under the key it was asked with',
    );

    // Cancelled at its first step of requests measured: well inside the analysis.
    let cancelled = false;
    const stopAgain = client.onProgress('again', (p) => {
      if (p.step === 'requests' && !cancelled) {
        cancelled = true;
        void client.cancel();
      }
    });
    await assert.rejects(client.call('analyze', params('again', path)), AnalysisCancelled);
    stopAgain();
    assert.ok(cancelled);
    await assert.rejects(client.call('page', { key: 'home', list: 'turns', start: 0, count: 1 }), /no analysis for home/, 'what the worker held is gone');
    const small = example('trace/agent.trace.jsonl');
    assert.ok((await client.call('analyze', params('small', small))).index.turnCount > 0, 'a new worker answers the next call');
  });

  it('beyond its size a file shares the worker with the fewest files', () => {
    const two = new EnginePool(join(ROOT, 'dist', 'engine.js'), 2);
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((f) => two.for(f));
    assert.notEqual(a, b);
    assert.equal(c, a);
    assert.equal(d, b);
    assert.equal(two.for('a'), a, 'a file keeps its worker');
    assert.deepEqual(two.filesOf(a), ['a', 'c'], 'what a cancel on that worker loses');
    return two.dispose();
  });
});
