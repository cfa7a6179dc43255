// Other agents' session folders listed for Agent Transcripts (issue 24, item 6): a Claude Code
// projects folder and a Codex sessions folder, laid out as the agents lay them out, in a temporary
// folder with the real files of ../shared/fixtures/foreign copied in at test time; each file told from
// its first lines, grouped by the working directory it records, newest first.

import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { listAgentFolder, typedPrompt } from '../../src/transcripts/agentFolders';
import { agentSessionRow } from '../../src/analysis/agentOverview';
import { loadRecorded } from '../../src/transcripts/recordedFiles';
import { FOREIGN_FILES } from '../support/foreignFixtures';

const dir = mkdtempSync(join(tmpdir(), 'pi-agent-folders-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Writes `text` at `path` under the temporary folder, last modified `daysAgo` days ago. */
function put(path: string, text: string, daysAgo: number): string {
  const full = join(dir, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, text);
  const t = Date.now() / 1000 - daysAgo * 86400;
  utimesSync(full, t, t);
  return full;
}

const line = (v: object): string => `${JSON.stringify(v)}\n`;

describe('a Claude Code projects folder', { skip: !FOREIGN_FILES.present && 'the foreign fixtures are not there' }, () => {
  const root = join(dir, 'claude');
  // The real session with its subagents, in a project folder named as Claude Code names it.
  const spotter = join(root, '-home-USER-projects-spotter', 'ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl');
  mkdirSync(dirname(spotter), { recursive: true });
  cpSync(FOREIGN_FILES.spotter, spotter);
  cpSync(FOREIGN_FILES.spotter.replace(/\.jsonl$/, ''), spotter.replace(/\.jsonl$/, ''), { recursive: true });
  utimesSync(spotter, Date.now() / 1000 - 5 * 86400, Date.now() / 1000 - 5 * 86400);
  const base = { cwd: '/home/me/app', sessionId: 's-1', timestamp: '2026-12-01T10:00:00.000Z' };
  const named = put(
    'claude/-home-me-app/s-1.jsonl',
    line({
      ...base,
      type: 'user',
      message: {
        role: 'user',
        content: [
          { type: 'text', text: '<system-reminder>\nctx\n</system-reminder>' },
          { type: 'text', text: 'fix the\n build' },
        ],
      },
    }) + line({ type: 'custom-title', customTitle: 'Build fix', sessionId: 's-1' }),
    1,
  );
  const typed = put(
    'claude/-home-me-app/s-2.jsonl',
    line({ ...base, sessionId: 's-2', type: 'user', isMeta: true, message: { role: 'user', content: 'Caveat: meta' } })
      + line({
        ...base,
        sessionId: 's-2',
        type: 'user',
        message: {
          role: 'user',
          content: '<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>PR 7</command-args>',
        },
      }),
    2,
  );
  const broken = put('claude/-home-me-app/s-3.jsonl', '{"cwd":"/home/me/app","type":"us', 3);
  put('claude/-home-me-empty/notes.txt', 'not a session', 0);

  it('lists each project by the working directory its sessions record, sessions newest first', () => {
    const listing = listAgentFolder('claude-code', root);
    assert.equal(listing.problem, null);
    assert.deepEqual(
      listing.projects.map((p) => [p.project, p.folder, p.sessions.map((s) => [s.path, s.id, s.title, s.subagents])]),
      [
        [
          '/home/me/app',
          join(root, '-home-me-app'),
          [
            [named, 's-1', 'Build fix', 0],
            [typed, 's-2', '/review PR 7', 0],
            [broken, null, null, 0],
          ],
        ],
        [
          '/home/USER/projects/spotter-worktrees/spotter-4te',
          join(root, '-home-USER-projects-spotter'),
          [
            [
              spotter,
              'ae4a77f8-aedd-4bc1-888f-c94edc91af04',
              'Work on bead spotter-4te. Run bd show spotter-4te to see the issue details and bd ready to find available subtasks. Start with the first ready task.',
              2,
            ],
          ],
        ],
      ],
    );
    // One project's folder given: its sessions.
    const one = listAgentFolder('claude-code', join(root, '-home-me-app'));
    assert.deepEqual(
      one.projects.map((p) => [p.project, p.folder, p.sessions.length]),
      [['/home/me/app', join(root, '-home-me-app'), 3]],
    );
    const [s1] = listing.projects[0].sessions;
    assert.equal(s1.startedAt, '2026-12-01T10:00:00.000Z');
    assert.ok(s1.bytes > 0 && s1.modifiedMs < Date.now());
  });
});

describe('a Codex sessions folder', { skip: !FOREIGN_FILES.present && 'the foreign fixtures are not there' }, () => {
  const root = join(dir, 'codex');
  const real = join(root, '2026', '05', '11', 'rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl');
  mkdirSync(dirname(real), { recursive: true });
  cpSync(FOREIGN_FILES.codexRollout, real);
  utimesSync(real, Date.now() / 1000 - 9 * 86400, Date.now() / 1000 - 9 * 86400);
  const meta = (id: string, cwd: string): string =>
    line({ timestamp: '2026-12-02T09:00:00Z', type: 'session_meta', payload: { id, timestamp: '2026-12-02T09:00:00Z', cwd } });
  const other = put(
    'codex/2026/12/02/rollout-2026-12-02T09-00-00-b.jsonl',
    meta('b', '/srv/other') + line({ type: 'event_msg', payload: { type: 'user_message', message: '  rename\tthe module ' } }),
    1,
  );
  const sameProject = put('codex/2026/12/01/rollout-2026-12-01T09-00-00-c.jsonl', meta('c', '/Users/Sample_User/repos/codemie-ai/codemie-code'), 2);
  const unrecorded = put('codex/2026/12/03/rollout-2026-12-03T09-00-00-d.jsonl', 'not json\n', 0);
  put('codex/2026/12/03/history.jsonl', meta('x', '/nope'), 0);
  put('codex/2026/12/03/deeper/still/rollout-too-deep.jsonl', meta('y', '/nope'), 0);

  it('groups rollouts by the working directory session_meta records, titled by the first user message', () => {
    const listing = listAgentFolder('codex', root);
    assert.equal(listing.problem, null);
    assert.deepEqual(
      listing.projects.map((p) => [p.project, p.folder, p.sessions.map((s) => [s.path, s.id, s.title])]),
      [
        ['working directory not recorded', null, [[unrecorded, null, null]]],
        ['/srv/other', null, [[other, 'b', 'rename the module']]],
        [
          '/Users/Sample_User/repos/codemie-ai/codemie-code',
          null,
          [
            [sameProject, 'c', null],
            [real, '019e1625-789d-76c0-80ab-3724b5ddb799', 'show tools'],
          ],
        ],
      ],
    );
  });
});

describe('a folder that cannot be listed', () => {
  it('says why instead of listing nothing', () => {
    const missing = join(dir, 'no-such-folder');
    assert.deepEqual(listAgentFolder('codex', missing), {
      agent: 'codex',
      root: missing,
      projects: [],
      problem: `${missing} does not exist or cannot be read`,
    });
    const file = put('plain-file', 'x', 0);
    assert.equal(listAgentFolder('claude-code', file).problem, `${file} is not a folder`);
  });
});

describe('a Claude Code prompt as typed', () => {
  it('takes off the reminders and reads a slash command as typed', () => {
    assert.equal(typedPrompt('<system-reminder>a</system-reminder>hello'), 'hello');
    assert.equal(typedPrompt('<system-reminder>never closed'), '');
    assert.equal(typedPrompt('<command-message>init is…</command-message>\n<command-name>/init</command-name>'), '/init');
  });
});

describe("a session's row of the agents' overview", () => {
  const file = { path: '/x/s.jsonl', id: 's', title: null, startedAt: null, modifiedMs: 0, bytes: 1, subagents: 0 };

  it(
    'sums up the recorded report: sessions, turns, compactions, calls, misses by class, models',
    { skip: !FOREIGN_FILES.present && 'the foreign fixtures are not there' },
    () => {
      const row = agentSessionRow(file, () => loadRecorded(FOREIGN_FILES.spotter));
      assert.equal(row.problem, null);
      const f = row.figures!;
      assert.deepEqual(
        [f.sessions, f.turns, f.compactions, f.usage.calls, f.usage.cacheWrite, f.misses, f.unexplainedMisses, f.prefixBreaks, f.errors, f.warnings],
        [3, 5, 1, 221, 377_624, 1, 0, 0, 0, 0],
      );
      assert.deepEqual(f.models, ['claude-opus-4-6', 'claude-haiku-4-5-20251001', 'claude-sonnet-4-5-20250929']);
      assert.equal(f.lastAt, '2026-02-12T15:05:00.586Z');
    },
  );

  it('a file that cannot be read says why, never throws', () => {
    assert.deepEqual(
      agentSessionRow(file, () => {
        throw new Error('EACCES: permission denied');
      }),
      { ...file, figures: null, problem: 'EACCES: permission denied' },
    );
    assert.equal(agentSessionRow(file, () => null).problem, 'no longer a Claude Code log or Codex rollout');
  });
});
