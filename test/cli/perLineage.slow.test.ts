// analyze, check and report per lineage (`--lineage ID`) or for the whole file, and `check` naming
// the session and lineage of each finding (issue 10, item 2), through the built CLI. Lineages are
// worked out here from the stores themselves (the scenario's truth: parents, end reasons, fork
// markers), and every per-lineage figure is compared with the full analysis of the same file.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { buildStore, type Truth } from '../support/upstreamStores';
import { sqliteExec } from '../support/sqliteExec';
import { visible } from '../../src/cli/terminalText';
import { analyzeJson, assertNoStack, cli, example, tempDir } from './support';

const ROTATION = example('rotation/state.db');
const PROMPT_CHANGED = example('rotation-prompt-changed/state.db');

type Json = any;

/** The session a finding is in, as docs/report.md places it: its sessionId, else its request's or turn's session. */
function sessionOf(report: Json, d: Json): string | undefined {
  return (
    d.sessionId ?? (d.request !== null ? report.requests[d.request]?.sessionId : undefined) ?? (d.turn !== null ? report.turns[d.turn]?.sessionId : undefined)
  );
}

/** Each session's lineage (its compaction chain's first session), from the truth of the store. */
function chainsOf(truth: Truth): Map<string, string> {
  const byId = new Map(truth.sessions.map((s) => [s.id, s]));
  const forked = (s: Truth['sessions'][number]): boolean => ['_branched_from', '_delegate_from', '_reset_from'].some((k) => s.modelConfig?.[k] !== undefined);
  const rootOf = (s: Truth['sessions'][number]): string => {
    const parent = s.parentId === null ? undefined : byId.get(s.parentId);
    return parent && parent.endReason === 'compression' && !forked(s) ? rootOf(parent) : s.id;
  };
  return new Map(truth.sessions.map((s) => [s.id, rootOf(s)]));
}

/** A request without its numbers (which start from 0 in every report), its previous request as that request's own fields. */
function requestKey(report: Json, q: Json): string {
  const prev = q.prefix.previousRequest === null ? null : report.requests[q.prefix.previousRequest];
  return JSON.stringify({
    sessionId: q.sessionId,
    systemPromptSha256: q.systemPromptSha256,
    messageCount: q.messageCount,
    inputTokens: q.inputTokens,
    stable: q.prefix.stable,
    breakAt: q.prefix.breakAt,
    reusedTokens: q.prefix.reusedTokens,
    previous: prev && { sessionId: prev.sessionId, inputTokens: prev.inputTokens, messageCount: prev.messageCount },
  });
}

function turnKey(t: Json): string {
  return JSON.stringify({
    sessionId: t.sessionId,
    userMessageIndex: t.userMessageIndex,
    injected: t.injected,
    requests: t.requests.length,
    compression: t.compression,
  });
}

/** What check must append to a finding: the session, and the lineage when it starts in another session. */
function suffix(session: string | undefined, lineage: string | undefined, rowId: number | undefined): string {
  const bits = [
    ...(session ? [`session ${session}`] : []),
    ...(lineage && lineage !== session ? [`lineage ${lineage}`] : []),
    ...(rowId !== undefined ? [`message id ${rowId}`] : []),
  ];
  return bits.length ? ` (${bits.join(', ')})` : '';
}

describe('--lineage on examples/rotation/state.db (one lineage of two sessions)', () => {
  const full = analyzeJson(ROTATION);
  const [parent, child] = full.sessions.map((s: Json) => s.id);

  it('by either session id, the report is the whole file: the same sessions, turns, requests and findings', () => {
    for (const id of [parent, child]) {
      const one = analyzeJson(ROTATION, '--lineage', id);
      assert.deepEqual(one.sessions, full.sessions, id);
      assert.deepEqual(one.turns, full.turns, id);
      assert.deepEqual(one.requests, full.requests, id);
      assert.deepEqual(one.diagnostics, full.diagnostics, id);
    }
  });

  it('analyze text of a single-lineage file has no lineage blocks; its findings name session and lineage (two sessions)', () => {
    const r = cli('analyze', ROTATION);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!r.stdout.split('\n').some((l) => l.startsWith('lineage ')), r.stdout);
    const findings = r.stdout
      .trimEnd()
      .split('\n')
      .slice(r.stdout.split('\n').indexOf('findings:') + 1);
    assert.equal(findings.length, full.diagnostics.length);
    full.diagnostics.forEach((d: Json, i: number) => {
      const s = sessionOf(full, d);
      assert.ok(findings[i].endsWith(suffix(s, parent, d.rowId)), `${findings[i]} names ${s} of lineage ${parent}`);
    });
  });

  it('report --lineage writes the lineage: its turns and requests', () => {
    const out = join(tempDir(), 'r.html');
    const r = cli('report', ROTATION, '--lineage', child, '-o', out);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), `wrote ${out} (${full.turns.length} turns, ${full.requests.length} requests)`);
    assert.ok(existsSync(out));
  });
});

describe('check names the session and lineage of each finding', () => {
  it('rotation-prompt-changed: the findings in the rotated child name it and the lineage it continues (text and github)', () => {
    const full = analyzeJson(PROMPT_CHANGED);
    const [parent] = full.sessions.map((s: Json) => s.id);
    const shown = full.diagnostics.filter((d: Json) => d.severity !== 'info');
    assert.ok(shown.length >= 2);
    const text = cli('check', PROMPT_CHANGED);
    assert.equal(text.code, 1, text.stderr);
    const lines = text.stdout.trim().split('\n');
    assert.equal(lines.length, shown.length);
    shown.forEach((d: Json, i: number) => {
      const s = sessionOf(full, d) as string;
      assert.notEqual(s, parent, 'the findings are in the child');
      assert.equal(lines[i], `${PROMPT_CHANGED}:${d.line ?? 1}: ${d.severity} ${d.code} ${d.message}${suffix(s, parent, d.rowId)}`);
    });
    const gh = cli('check', '--format', 'github', PROMPT_CHANGED);
    assert.equal(gh.code, 1, gh.stderr);
    gh.stdout
      .trim()
      .split('\n')
      .forEach((l, i) => assert.ok(l.includes(`(session ${sessionOf(full, shown[i])}, lineage ${parent}`), l));
  });

  it('a single-session file: no lineage named, no lineage blocks (a state.db finding keeps its session and row, as before)', () => {
    const file = example('in-place/state.db');
    const full = analyzeJson(file);
    const a = cli('analyze', file);
    assert.ok(!/lineage/.test(cli('check', file).stdout + a.stdout), a.stdout);
    const findings = a.stdout
      .trimEnd()
      .split('\n')
      .slice(a.stdout.split('\n').indexOf('findings:') + 1);
    full.diagnostics.forEach((d: Json, i: number) => assert.ok(findings[i].endsWith(suffix(d.sessionId, undefined, d.rowId)), findings[i]));
  });
});

describe('per lineage on a home written as upstream writes it (plain, rotation, undo, delegate, branch)', () => {
  const home = buildStore('home');
  const chains = chainsOf(home.truth);
  const roots = [...new Set(chains.values())];
  const full = analyzeJson(home.stateDb);

  it('the home holds several lineages, one of two sessions, and forks', () => {
    assert.ok(roots.length >= 5, `${roots.length} lineages`);
    assert.ok(
      [...chains].some(([s, r]) => s !== r),
      'a compaction chain',
    );
  });

  it("--lineage ID, for every session ID: just its lineage, whose requests, turns and findings are the full analysis's of those sessions", () => {
    for (const [id, root] of chains) {
      const members = [...chains].filter(([, r]) => r === root).map(([s]) => s);
      const one = analyzeJson(home.stateDb, '--lineage', id);
      assert.deepEqual(
        one.sessions.map((s: Json) => s.id),
        members,
        id,
      );
      const ofChain = (x: Json): boolean => members.includes(x.sessionId);
      assert.deepEqual(
        one.requests.map((q: Json) => requestKey(one, q)),
        full.requests.filter(ofChain).map((q: Json) => requestKey(full, q)),
        `${id}: requests`,
      );
      assert.equal(
        one.requests.length,
        home.truth.sessions.filter((s) => members.includes(s.id)).reduce((n, s) => n + s.requests, 0),
        `${id}: the truth's requests`,
      );
      assert.deepEqual(one.turns.map(turnKey), full.turns.filter(ofChain).map(turnKey), `${id}: turns`);
      const findings = (r: Json): string[] => r.diagnostics.map((d: Json) => `${d.severity} ${d.code} ${sessionOf(r, d)}`);
      assert.deepEqual(
        findings(one),
        findings(full).filter((f) => members.includes(f.split(' ')[2])),
        `${id}: findings`,
      );
    }
  });

  it('check: each finding names its session; --lineage checks one lineage, with the exit code of its own findings', () => {
    const r = cli('check', home.stateDb);
    const shown = full.diagnostics.filter((d: Json) => d.severity !== 'info');
    assert.equal(r.code, shown.some((d: Json) => d.severity === 'error') ? 1 : 0, r.stderr);
    const lines = r.stdout.trim().split('\n').filter(Boolean);
    assert.equal(lines.length, shown.length);
    shown.forEach((d: Json, i: number) => {
      const s = sessionOf(full, d) as string;
      assert.ok(lines[i].endsWith(suffix(s, chains.get(s), d.rowId)), lines[i]);
    });
    for (const root of roots) {
      const members = [...chains].filter(([, x]) => x === root).map(([s]) => s);
      const errors = full.diagnostics.filter((d: Json) => d.severity === 'error' && members.includes(sessionOf(full, d) as string)).length;
      const c = cli('check', home.stateDb, '--lineage', members[members.length - 1]);
      assert.equal(c.code, errors ? 1 : 0, `${root}: ${c.stdout}${c.stderr}`);
    }
  });

  it('a counter mismatch in a rotated child: check names the child and the lineage it continues', () => {
    const dir = tempDir();
    const db = join(dir, 'state.db');
    copyFileSync(home.stateDb, db);
    const [child, root] = [...chains].find(([s, x]) => s !== x) as [string, string];
    sqliteExec(db, [`UPDATE sessions SET api_call_count = 99 WHERE id = '${child}';`]);
    const r = cli('check', db);
    const line = r.stdout.split('\n').find((l) => l.includes('replay-count-mismatch'));
    assert.ok(line, r.stdout);
    assert.ok(line.endsWith(`(session ${child}, lineage ${root})`), line);
    const gh = cli('check', '--format', 'github', db);
    assert.ok(gh.stdout.includes(`(session ${child}, lineage ${root})`), gh.stdout);
  });

  it('analyze text: one block per lineage, headed by its id, holding exactly its turns and findings', () => {
    const r = cli('analyze', home.stateDb);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n');
    const headers = lines.filter((l) => l.startsWith('lineage '));
    assert.deepEqual(headers.map((l) => l.split(/[ :]/)[1]).sort(), [...roots].sort());
    let current: string | undefined;
    let turns = 0;
    for (const l of lines) {
      if (l.startsWith('lineage ')) current = l.split(/[ :]/)[1];
      const m = /^ {2}turn (\d+) {2}session (\S+)/.exec(l);
      if (!m) continue;
      turns++;
      assert.equal(full.turns[Number(m[1])].sessionId, m[2]);
      assert.equal(chains.get(m[2]), current, `turn ${m[1]} under its lineage's header`);
    }
    assert.equal(turns, full.turns.length);
    for (const root of roots) {
      const header = headers.find((h) => h.startsWith(`lineage ${root}`)) as string;
      const members = [...chains].filter(([, x]) => x === root).map(([s]) => s);
      const turnCount = full.turns.filter((t: Json) => members.includes(t.sessionId)).length;
      const requestCount = full.requests.filter((q: Json) => members.includes(q.sessionId)).length;
      assert.ok(header.endsWith(`${turnCount} turn(s), ${requestCount} request(s)`), header);
    }
    const fork = home.truth.sessions.find((s) => s.modelConfig?._delegate_from !== undefined);
    assert.ok(fork && headers.includes(headers.find((h) => h.startsWith(`lineage ${fork.id} (delegate of ${fork.parentId}):`)) as string), headers.join('\n'));
  });

  it("report --lineage: the lineage's turns and requests", () => {
    const root = roots.find((x) => [...chains].filter(([, y]) => y === x).length > 1) as string;
    const members = [...chains].filter(([, x]) => x === root).map(([s]) => s);
    const out = join(tempDir(), 'lineage.html');
    const r = cli('report', home.stateDb, '--lineage', members[1], '-o', out);
    assert.equal(r.code, 0, r.stderr);
    const turns = full.turns.filter((t: Json) => members.includes(t.sessionId)).length;
    const requests = full.requests.filter((q: Json) => members.includes(q.sessionId)).length;
    assert.equal(r.stdout.trim(), `wrote ${out} (${turns} turns, ${requests} requests)`);
    assert.ok(readFileSync(out, 'utf8').length > 0);
  });

  it('usage errors exit 2: --lineage with --session, without a value, an unknown id, or given to sessions', () => {
    const id = home.truth.sessions[0].id;
    for (const args of [
      ['analyze', home.stateDb, '--lineage', id, '--session', id],
      ['check', home.stateDb, '--lineage'],
      ['analyze', home.stateDb, '--lineage', 'no-such-session'],
      ['check', home.stateDb, '--lineage', 'no-such-session'],
      ['report', home.stateDb, '--lineage', 'no-such-session', '-o', join(tempDir(), 'x.html')],
      ['sessions', home.stateDb, '--lineage', id],
    ]) {
      const r = cli(...args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.ok(r.stderr.startsWith('prompt-inspector: '), r.stderr);
      assertNoStack(r.stderr);
    }
  });
});

describe('hostile session ids are printed escaped', () => {
  const HOSTILE_ID = 'x\x1b]0;pwned\x07\x1b[2J\r\nlineage forged: 0 session(s)\u202e';
  const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

  it("in analyze's lineage headers and in check's finding lines (text and github), and --lineage takes it", () => {
    const home = buildStore('home');
    const dir = tempDir();
    const db = join(dir, 'state.db');
    copyFileSync(home.stateDb, db);
    const full = analyzeJson(home.stateDb);
    const err = full.diagnostics.find((d: Json) => d.severity === 'error');
    const victim = sessionOf(full, err) as string;
    const sql = `'x' || char(27) || ']0;pwned' || char(7) || char(27) || '[2J' || char(13) || char(10) || 'lineage forged: 0 session(s)' || char(8238)`;
    sqliteExec(db, [`UPDATE messages SET session_id = ${sql} WHERE session_id = '${victim}'; UPDATE sessions SET id = ${sql} WHERE id = '${victim}';`]);
    const a = cli('analyze', db);
    assert.equal(a.code, 0, a.stderr);
    assert.doesNotMatch(a.stdout, CONTROLS);
    assert.ok(
      a.stdout
        .split('\n')
        .includes(
          `lineage ${visible(HOSTILE_ID)}: 1 session(s), ${full.turns.filter((t: Json) => t.sessionId === victim).length} turn(s), ${full.requests.filter((q: Json) => q.sessionId === victim).length} request(s)`,
        ),
      a.stdout,
    );
    assert.equal(a.stdout.split('\n').filter((l) => l.startsWith('lineage forged')).length, 0);
    const c = cli('check', db);
    assert.equal(c.code, 1, c.stderr);
    assert.doesNotMatch(c.stdout, CONTROLS);
    assert.ok(c.stdout.trim().endsWith(`(session ${visible(HOSTILE_ID)}, message id ${err.rowId})`), c.stdout);
    const gh = cli('check', '--format', 'github', db);
    assert.doesNotMatch(gh.stdout, CONTROLS);
    assert.equal(gh.stdout.trim().split('\n').length, 1, 'one annotation, none forged');
    const one = cli('analyze', db, '--lineage', HOSTILE_ID, '--json');
    assert.equal(one.code, 0, one.stderr);
    assert.deepEqual(
      JSON.parse(one.stdout).sessions.map((s: Json) => s.id),
      [HOSTILE_ID],
    );
  });
});
