// The CLI on a Claude Code session log (issue 24): `analyze` prints its sessions, turns, compaction
// and each miss with its class, and says what the format does not record; `--json` is the recorded
// report; `check` prints parse errors and unexplained misses and exits as for Hermes files. Run on
// the real files (../shared/fixtures/foreign), where they are kept, and on damaged copies of them.

import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, it } from 'node:test';
import type { RecordedReport } from '../../src/shared/recordedReportTypes';
import { FOREIGN_FILES } from '../support/foreignFixtures';
import { runMain, tempDirsRemovedAfter } from './support';

const { claudeCode: CLAUDE, spotter: SPOTTER, codexRollout: ROLLOUT, cassetteCaching: CASSETTE } = FOREIGN_FILES;

describe('the CLI on Claude Code session logs', { skip: !existsSync(CLAUDE) && `${CLAUDE} is not there` }, () => {
  const tempDir = tempDirsRemovedAfter();

  it('analyze: the sessions, the compaction, the miss classed, and what is not recorded', async () => {
    const r = await runMain(['analyze', SPOTTER]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n');
    assert.match(lines[0], /: a Claude Code session log \(Claude Code 2\.1\.39\)$/);
    assert.equal(
      lines[1],
      'not recorded in this format: the system prompt, the tool schemas, the request bytes; a miss is located by call and time, not by byte',
    );
    assert.match(lines[2], /^3 sessions: 221 calls, prompts 16,981,021 tokens, 97\.8% read from the cache, 377,624 written to it, output 49,482, \$\d+\.\d\d$/);
    assert.ok(lines.includes('  compaction (manual) at line 1481: 142,431 tokens before, its summary at line 1482'), r.stdout);
    assert.match(
      r.stdout,
      /\n {4}miss at line 1511 \(claude-opus-4-6\), answering the prompt at line 1491: 11,011 tokens billed again, 2,359 s after the previous call \(line 73\): expired \(the cache keeps an idle prefix 300 s\), \$0\.\d+ more than a hit\n/,
    );
    assert.match(
      r.stdout,
      /\nsession ae4a77f8-aedd-4bc1-888f-c94edc91af04\/acompact-946d2b \(compaction of ae4a77f8-aedd-4bc1-888f-c94edc91af04\): 1 turn; 1 call, prompts 139,534 tokens/,
    );
    // A prompt's control characters (the /compact echo's newlines) are shown escaped, never raw.
    assert.match(r.stdout, /turn 1 \(line 1484\) "<command-name>\/compact<\/command-name>\\n {12}<command-m…": 0 calls/);
  });

  it('analyze --json: the recorded report, a call per response id with its cost', async () => {
    const r = await runMain(['analyze', SPOTTER, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as RecordedReport;
    assert.equal(report.kind, 'recorded');
    assert.equal(report.calls.length, 221);
    assert.equal(new Set(report.calls.map((c) => c.id)).size, 221);
    const summarize = report.calls.find((c) => c.session.endsWith('/acompact-946d2b'));
    assert.deepEqual(summarize?.usage, { input: 139534, cacheRead: 17842, cacheWrite: 121689, cacheWrite5m: 121689, cacheWrite1h: 0, output: 8 });
    assert.ok(summarize?.cost && summarize.cost.usd > 0 && summarize.cost.model.includes('opus'), JSON.stringify(summarize?.cost));
    const priced = report.calls.filter((c) => c.cost);
    assert.equal(priced.length, 221, 'opus 4.6 and haiku 4.5 are in the catalogue');
    assert.ok(Math.abs((report.usage.costUsd ?? 0) - priced.reduce((a, c) => a + (c.cost?.usd ?? 0), 0)) < 1e-9);
    assert.deepEqual(report.diagnostics, []);
  });

  it('check: a clean log passes; a damaged one fails at the broken line, its other calls still read', async () => {
    assert.deepEqual(await runMain(['check', SPOTTER]), { code: 0, stdout: '', stderr: '' });
    const dir = tempDir();
    const damaged = join(dir, 'damaged.jsonl');
    const lines = readFileSync(SPOTTER, 'utf8').split('\n');
    lines[99] = lines[99].slice(0, 40);
    writeFileSync(damaged, lines.join('\n'));
    const r = await runMain(['check', damaged]);
    assert.equal(r.code, 1);
    assert.match(r.stdout, new RegExp(`^${damaged.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:100: error parse-error `));
    assert.equal(r.stdout.trim().split('\n').length, 1, r.stdout);
    const report = JSON.parse((await runMain(['analyze', damaged, '--json'])).stdout) as RecordedReport;
    // The main file's 217 calls still (line 100 is a progress line); the subagents are not beside the copy.
    assert.equal(report.calls.length, 217);
    const gh = await runMain(['check', damaged, '--format', 'github']);
    assert.match(gh.stdout, /^::error file=.*damaged\.jsonl,line=100,title=parse-error::parse-error /);
  });

  it('a Codex rollout: its system prompt byte-stable, its misses classed; check warns of the unexplained ones', async () => {
    const r = await runMain(['analyze', ROLLOUT]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n');
    assert.match(lines[0], /: a Codex rollout \(codex-tui 0\.125\.0\)$/);
    assert.equal(lines[1], 'not recorded in this format: the tool schemas, the request bytes; a miss is located by call and time, not by byte');
    assert.ok(lines.includes('  system prompt byte-stable in every turn (sha256 c2a980bc28af…)'), r.stdout);
    assert.match(r.stdout, /\n {4}miss at line 28 \(gpt-5\.5\): 20,292 tokens billed again, 330 s after the previous call \(line 18\): expired/);
    const check = await runMain(['check', ROLLOUT]);
    assert.equal(check.code, 0, 'warnings only');
    assert.equal(check.stdout.trim().split('\n').length, 17);
    assert.ok(
      check.stdout
        .trim()
        .split('\n')
        .every((l) => / warning cache-miss-unexplained call 019e162b-0011-7240-abbc-f7b732e49728#\d+ \(gpt-5\.5\) read /.test(l)),
      check.stdout,
    );
  });

  it('a cassette: its calls with their bytes; check passes a write then its read', async () => {
    const r = await runMain(['analyze', CASSETTE]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n');
    assert.match(lines[0], /: recorded API traffic \(a VCR cassette\)$/);
    assert.equal(lines[1], 'not recorded in this format: compactions');
    assert.match(lines[2], /^1 session: 2 calls, prompts 2,334 tokens, 49\.8% read from the cache, 1,163 written to it, output 389, \$0\.\d+$/);
    assert.deepEqual(await runMain(['check', CASSETTE]), { code: 0, stdout: '', stderr: '' });
    const report = JSON.parse((await runMain(['analyze', CASSETTE, '--json'])).stdout) as RecordedReport;
    assert.deepEqual(
      report.calls.map((c) => [c.line, c.usage?.cacheWrite, c.usage?.cacheRead, c.prefixBreak, c.cacheMiss]),
      [
        [2, 1163, 0, null, null],
        [182, 0, 1163, null, null],
      ],
    );
  });

  it('a HAR whose request rewrote the history: check fails at it with message and byte', async () => {
    const dir = tempDir();
    const har = join(dir, 'capture.har');
    const request = (messages: unknown[]) => ({ model: 'claude-sonnet-4-5', system: 'S', messages });
    const response = (id: string, read: number, write: number) => ({
      id,
      model: 'claude-sonnet-4-5',
      usage: { input_tokens: 2, cache_read_input_tokens: read, cache_creation_input_tokens: write, output_tokens: 1 },
    });
    const entry = (body: unknown, answer: unknown) => ({
      startedDateTime: '2026-01-01T00:00:00.000Z',
      request: { method: 'POST', url: 'https://api.anthropic.com/v1/messages', postData: { text: JSON.stringify(body) } },
      response: { status: 200, content: { text: JSON.stringify(answer) } },
    });
    const q = { role: 'user', content: 'question' };
    const a = { role: 'assistant', content: 'answer' };
    writeFileSync(
      har,
      JSON.stringify({
        log: {
          entries: [
            entry(request([q]), response('msg_1', 0, 4000)),
            entry(request([{ ...q, content: 'Question' }, a, { role: 'user', content: 'more' }]), response('msg_2', 0, 4100)),
          ],
        },
      }),
    );
    const r = await runMain(['check', har]);
    assert.equal(r.code, 1);
    assert.equal(
      r.stdout,
      `${har}:1: error prefix-break call msg_2 (claude-sonnet-4-5) does not extend the previous request of its conversation, msg_1's: history-rewritten at message 0, byte 26 (cache markers taken off)\n`,
    );
    const text = (await runMain(['analyze', har])).stdout;
    assert.match(
      text,
      /\n {4}break at log\.entries\[1\]: history-rewritten at message 0, byte 26\n {4}miss at log\.entries\[1\] \(claude-sonnet-4-5\): 4,000 tokens billed again, 0 s after the previous call: after the history was rewritten, \$0\.\d+ more than a hit\n/,
    );
  });

  it("sessions refuses another agent's transcript and points to analyze", async () => {
    const r = await runMain(['sessions', ROLLOUT]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^prompt-inspector: sessions: not for .*rollout-.*\.jsonl, another agent's transcript; `analyze` lists its sessions/);
  });

  it("sessions on an agent's own folder: its projects, sessions newest first with their figures", async () => {
    const root = tempDir();
    const project = join(root, '-home-USER-projects-spotter');
    mkdirSync(project);
    cpSync(SPOTTER, join(project, basename(SPOTTER)));
    cpSync(SPOTTER.replace(/\.jsonl$/, ''), join(project, basename(SPOTTER).replace(/\.jsonl$/, '')), { recursive: true });
    const r = await runMain(['sessions', root]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stdout.trimEnd().split('\n'), [
      `Claude Code sessions in ${root}: 1 project, 1 session`,
      '',
      `/home/USER/projects/spotter-worktrees/spotter-4te: 1 session (${project})`,
      '  2026-02-12 14:11  Work on bead spotter-4te. Run bd show spotter-4…  5 turns  221 calls  97.8% from cache  $6.17  1 miss (0 unexplained)  1 compaction  2 subagents',
    ]);
    const json = await runMain(['sessions', root, '--json']);
    const listed = JSON.parse(json.stdout);
    assert.equal(listed.kind, 'agent-sessions');
    const [row] = listed.projects[0].sessions;
    assert.deepEqual([row.figures.usage.calls, row.figures.misses, row.figures.compactions, row.problem], [221, 1, 1, null]);
    // Codex's folder is told by its rollouts, not its name.
    const codex = tempDir();
    mkdirSync(join(codex, '2026', '05', '11'), { recursive: true });
    cpSync(ROLLOUT, join(codex, '2026', '05', '11', basename(ROLLOUT)));
    const c = await runMain(['sessions', codex]);
    assert.equal(c.code, 0, c.stderr);
    assert.match(
      c.stdout,
      /^Codex sessions in .*: 1 project, 1 session\n\n\/Users\/Sample_User\/repos\/codemie-ai\/codemie-code: 1 session\n {2}2026-05-11 08:26 {2}show tools +2 turns {2}66 calls {2}81\.4% from cache {2}\$\d+\.\d\d {2}18 misses \(17 unexplained\)\n$/,
    );
    const refused = await runMain(['sessions', root, '--sort', 'turns']);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /--sort: not for a folder of another agent's sessions/);
  });

  it('an unexplained miss is a warning check prints; the Hermes-only options are refused', async () => {
    const dir = tempDir();
    const log = join(dir, 's.jsonl');
    const line = (id: string, read: number, write: number, at: string): string =>
      JSON.stringify({
        type: 'assistant',
        sessionId: 's',
        uuid: id,
        timestamp: at,
        message: {
          id,
          model: 'claude-sonnet-4-5',
          role: 'assistant',
          content: [],
          usage: { input_tokens: 3, cache_read_input_tokens: read, cache_creation_input_tokens: write, output_tokens: 1 },
        },
      });
    writeFileSync(log, [line('msg_1', 0, 9000, '2026-01-01T00:00:00Z'), line('msg_2', 0, 9100, '2026-01-01T00:00:20Z'), ''].join('\n'));
    const r = await runMain(['check', log]);
    assert.equal(r.code, 0, 'a warning does not fail check');
    assert.match(
      r.stdout,
      /s\.jsonl:2: warning cache-miss-unexplained call msg_2 \(claude-sonnet-4-5\) read 0 tokens from the cache where the previous call of its model left 9000 \(9000 billed again\) after 20 s idle/,
    );
    for (const option of [
      ['--session', 's'],
      ['--lineage', 's'],
      ['--turn', '0'],
    ]) {
      const refused = await runMain(['analyze', log, ...option]);
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, new RegExp(`^prompt-inspector: ${option[0]}: not for a Claude Code session log`));
    }
  });
});
