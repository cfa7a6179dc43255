// Hostile input, round two (issue 12), through the built CLI: it never writes over what it reads,
// reads only regular files and never blocks on one, has no crash path, and prints no control
// character from a transcript or a path. Every CLI run here has a timeout, so a hang fails the test.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  existsSync,
  ftruncateSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe } from 'node:test';
import { githubData, githubProperty, visible } from '../../src/cli/terminalText';
import { WHOLE_FILE_LIMIT } from '../../src/transcripts/load';
import { requestDump, sessionJson } from '../support/badFixtures';
import { assertNoStack, CLI, example, ROOT, tempDir, type Run } from './support';
import { countedBadInputs } from '../robustness/tally';
import { sqliteExec } from '../support/sqliteExec';

// Each hostile input counts toward the robustness summary line (test/robustness/tally.ts).
const it = countedBadInputs('hostile-cli');

/** The built CLI with a time limit: a run that blocks is killed and fails its test. */
function run(args: string[], options: { timeoutMs?: number; node?: string[] } = {}): Run {
  const r = spawnSync(process.execPath, [...(options.node ?? []), CLI, ...args], {
    encoding: 'utf8',
    cwd: ROOT,
    timeout: options.timeoutMs ?? 30_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  assert.equal(r.error, undefined, `prompt-inspector ${args.join(' ')} did not finish: ${r.error?.message}`);
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const ID = '20260918_101500_a1b2c3';
const MESSAGES = [
  { role: 'user', content: 'read notes.md' },
  { role: 'assistant', content: 'done' },
];

/** A folder with a session snapshot and one request dump beside it, as Hermes leaves them. */
function sessionFolder(): { dir: string; session: string; dump: string } {
  const dir = tempDir();
  const session = join(dir, `session_${ID}.json`);
  const dump = join(dir, `request_dump_${ID}_20260918_102255_523000.json`);
  writeFileSync(session, sessionJson(ID, MESSAGES));
  writeFileSync(dump, requestDump(ID, [{ role: 'system', content: 'x' }, MESSAGES[0]]));
  return { dir, session, dump };
}

/** A copy of a bundled state.db left with a live WAL (the writer exits without checkpointing). */
function liveStateDb(): { dir: string; db: string } {
  const dir = tempDir();
  const db = join(dir, 'state.db');
  copyFileSync(example('rotation/state.db'), db);
  sqliteExec(db, ['UPDATE sessions SET title = title;'], { wal: true, exitOpen: true });
  assert.ok(existsSync(`${db}-wal`), 'the writer left a WAL');
  return { dir, db };
}

const mkfifo = (path: string): void => {
  const r = spawnSync('mkfifo', [path]);
  assert.equal(r.status, 0, `mkfifo ${path}`);
};

/** Every entry of a folder: a file by its bytes, a symlink or folder by its kind. */
function listing(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const st = lstatSync(join(dir, name));
    out.set(name, st.isFile() ? readFileSync(join(dir, name)).toString('base64') : st.isSymbolicLink() ? 'symlink' : st.isDirectory() ? 'dir' : 'other');
  }
  return out;
}

/** `report … -o out` is refused (exit 2, a one-line reason, no stack) and nothing in `dir` changed. */
function assertRefused(input: string, output: string, dir: string, reason: RegExp): void {
  const before = listing(dir);
  const r = run(['report', input, '-o', output]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /^prompt-inspector: not writing the report: /);
  assert.match(r.stderr, reason);
  assertNoStack(r.stderr);
  assert.equal(r.stdout, '');
  assert.deepEqual(listing(dir), before, 'nothing written, created or removed');
}

describe('never writes over what it reads (report -o)', () => {
  it('-o the transcript itself: refused, the file keeps its bytes', () => {
    const { dir, session } = sessionFolder();
    assertRefused(session, session, dir, /is the transcript/);
    assertRefused(session, join(dir, '.', `session_${ID}.json`), dir, /is the transcript/);
  });

  it('-o a symlink to the transcript, or a path through a symlinked folder: refused', () => {
    const { dir, session } = sessionFolder();
    symlinkSync(session, join(dir, 'report.html'));
    assertRefused(session, join(dir, 'report.html'), dir, /is the transcript/);
    const other = tempDir();
    symlinkSync(dir, join(other, 'via'));
    assertRefused(session, join(other, 'via', `session_${ID}.json`), dir, /is the transcript/);
  });

  it('-o a hard link to the transcript: refused (same device and inode)', () => {
    const { dir, session } = sessionFolder();
    linkSync(session, join(dir, 'report.html'));
    assertRefused(session, join(dir, 'report.html'), dir, /is the transcript/);
  });

  it('-o the live WAL of a state.db, its -shm or -journal (existing or not): refused', () => {
    const { dir, db } = liveStateDb();
    assertRefused(db, `${db}-wal`, dir, /its SQLite WAL/);
    assertRefused(db, `${db}-shm`, dir, /shared-memory/);
    assertRefused(db, `${db}-journal`, dir, /rollback journal/);
  });

  it('-o through a dangling symlink whose target would be the WAL: refused, no WAL created', () => {
    const dir = tempDir();
    const db = join(dir, 'state.db');
    copyFileSync(example('rotation/state.db'), db);
    symlinkSync(`${db}-wal`, join(dir, 'report.html'));
    assertRefused(db, join(dir, 'report.html'), dir, /its SQLite WAL/);
    assert.equal(existsSync(`${db}-wal`), false);
  });

  it('-o the WAL beside the file a symlinked input points at: refused', () => {
    const { dir, db } = liveStateDb();
    const links = tempDir();
    symlinkSync(db, join(links, 'link.db'));
    assertRefused(join(links, 'link.db'), `${db}-wal`, dir, /its SQLite WAL/);
  });

  it('-o a request dump beside the session, or in sessions/ beside a state.db: refused', () => {
    const { dir, session, dump } = sessionFolder();
    assertRefused(session, dump, dir, /a request dump read beside it/);
    const home = tempDir();
    copyFileSync(example('rotation/state.db'), join(home, 'state.db'));
    mkdirSync(join(home, 'sessions'));
    writeFileSync(join(home, 'sessions', 'request_dump_x_1.json'), requestDump('x', []));
    assertRefused(join(home, 'state.db'), join(home, 'sessions', 'request_dump_x_1.json'), home, /a request dump/);
  });

  it('-o a new file beside the transcript is still written', () => {
    const { dir, session } = sessionFolder();
    const r = run(['report', session, '-o', join(dir, 'report.html')]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(readFileSync(join(dir, 'report.html'), 'utf8'), /^<!DOCTYPE html>/i);
  });
});

describe('reads only regular files, and never blocks on one', () => {
  for (const command of [['analyze'], ['check'], ['report', '-o', '/dev/null']]) {
    it(`${command[0]}: a FIFO, a character device, a directory or a socket as the file is a usage error (exit 2)`, async () => {
      const dir = tempDir();
      mkfifo(join(dir, 'session_fifo.json'));
      const socketPath = join(dir, 'state.db');
      const server = createServer();
      await new Promise<void>((done) => server.listen(socketPath, done));
      try {
        for (const [path, kind] of [
          [join(dir, 'session_fifo.json'), 'a FIFO'],
          ['/dev/zero', 'a character device'],
          [dir, 'a directory'],
          [socketPath, 'a socket'],
        ]) {
          const r = run([command[0], path, ...command.slice(1)], { timeoutMs: 15_000 });
          assert.equal(r.code, 2, `${path}: ${r.stderr}`);
          assert.equal(r.stderr.trim(), `prompt-inspector: ${path}: not a regular file (${kind})`);
        }
      } finally {
        server.close();
      }
    });
  }

  it('check goes on past a FIFO to the next file, and exits 2', () => {
    const dir = tempDir();
    mkfifo(join(dir, 'fifo.jsonl'));
    const r = run(['check', join(dir, 'fifo.jsonl'), example('rotation-prompt-changed/state.db')]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /fifo\.jsonl: not a regular file \(a FIFO\)/);
    assert.match(r.stdout, /state\.db:\d+: error system-prompt-changed/);
  });

  it('a FIFO, /dev/zero or a directory named like a request dump is skipped with a warning naming it', () => {
    const { dir, session } = sessionFolder();
    const fifo = join(dir, `request_dump_${ID}_1.json`);
    const zero = join(dir, `request_dump_${ID}_2.json`);
    mkfifo(fifo);
    symlinkSync('/dev/zero', zero);
    const r = run(['analyze', session, '--json'], { timeoutMs: 15_000 });
    assert.equal(r.code, 0, r.stderr);
    const findings = JSON.parse(r.stdout).diagnostics.filter((d: any) => /skipped/.test(d.message));
    assert.deepEqual(
      findings.map((d: any) => [d.severity, d.code, d.message]),
      [
        ['warning', 'file-skipped', `${fifo}: skipped, not a regular file (a FIFO)`],
        ['warning', 'file-skipped', `${zero}: skipped, not a regular file (a character device)`],
      ],
    );
    const c = run(['check', session], { timeoutMs: 15_000 });
    assert.equal(c.code, 0);
    assert.equal(c.stdout.split('\n').filter((l) => l.includes('skipped')).length, 2);
  });

  it('a FIFO as state.db-wal is skipped with a warning; the database is still read', () => {
    const dir = tempDir();
    const db = join(dir, 'state.db');
    copyFileSync(example('rotation/state.db'), db);
    mkfifo(`${db}-wal`);
    const r = run(['analyze', db, '--json'], { timeoutMs: 15_000 });
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.ok(report.turns.length > 0, 'the rows of the database are read');
    assert.ok(report.diagnostics.some((d: any) => d.severity === 'warning' && d.message === `${db}-wal: skipped, not a regular file (a FIFO)`));
  });

  it(`a JSON file above ${WHOLE_FILE_LIMIT / 2 ** 30} GiB is refused before it is read (sparse, under a 128 MB heap)`, () => {
    const dir = tempDir();
    const big = join(dir, `session_${ID}.json`);
    const fd = openSync(big, 'w');
    ftruncateSync(fd, WHOLE_FILE_LIMIT + 1);
    closeSync(fd);
    const r = run(['check', big], { timeoutMs: 15_000, node: ['--max-old-space-size=128'] });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr.trim(), `prompt-inspector: ${big}: 1024 MB, above the 1024 MB limit for a file read whole (only a state.db is read page by page)`);
  });

  it('a request dump above the limit is skipped with a warning, not read', () => {
    const { dir, session } = sessionFolder();
    const big = join(dir, `request_dump_${ID}_3.json`);
    const fd = openSync(big, 'w');
    ftruncateSync(fd, WHOLE_FILE_LIMIT + 1);
    closeSync(fd);
    const r = run(['analyze', session, '--json'], { timeoutMs: 15_000, node: ['--max-old-space-size=128'] });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(
      JSON.parse(r.stdout).diagnostics.some(
        (d: any) => d.severity === 'warning' && d.message === `${big}: skipped, 1024 MB, above the 1024 MB limit for a file read whole`,
      ),
    );
  });
});

describe('no crash path', () => {
  it('a directory or a dangling symlink named like a request dump: a warning each, exit 0', () => {
    const { dir, session } = sessionFolder();
    mkdirSync(join(dir, `request_dump_${ID}_1.json`));
    symlinkSync(join(dir, 'gone'), join(dir, `request_dump_${ID}_2.json`));
    for (const command of [['analyze'], ['check'], ['report', '-o', join(tempDir(), 'r.html')]]) {
      const r = run([command[0], session, ...command.slice(1)]);
      assert.equal(r.code, 0, r.stderr);
      assertNoStack(r.stdout + r.stderr);
    }
    const report = JSON.parse(run(['analyze', session, '--json']).stdout);
    assert.deepEqual(
      report.diagnostics.filter((d: any) => /skipped/.test(d.message)).map((d: any) => d.message),
      [
        `${join(dir, `request_dump_${ID}_1.json`)}: skipped, not a regular file (a directory)`,
        `${join(dir, `request_dump_${ID}_2.json`)}: skipped, a dangling symbolic link`,
      ],
    );
    assert.equal(
      report.diagnostics.filter((d: any) => d.code === 'replay-mismatch' || /request_dump_.*_20260918/.test(d.message)).length,
      1,
      'the real dump is still compared',
    );
  });

  it('a directory or a dangling symlink as state.db-wal: a warning, exit 0', () => {
    for (const make of [(p: string) => mkdirSync(p), (p: string) => symlinkSync('/nonexistent/wal', p)]) {
      const dir = tempDir();
      const db = join(dir, 'state.db');
      copyFileSync(example('rotation/state.db'), db);
      make(`${db}-wal`);
      const r = run(['analyze', db, '--json']);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(JSON.parse(r.stdout).diagnostics.some((d: any) => d.severity === 'warning' && d.message.startsWith(`${db}-wal: skipped, `)));
      assert.equal(run(['check', db]).code, 0);
    }
  });

  it('report -o into a missing folder, or onto a folder: exit 2 with the reason, nothing created', () => {
    const { session } = sessionFolder();
    const out = tempDir();
    const missing = run(['report', session, '-o', join(out, 'no', 'such', 'r.html')]);
    assert.equal(missing.code, 2);
    assert.equal(missing.stderr.trim(), `prompt-inspector: not writing the report: there is no folder ${join(out, 'no', 'such')} to write it in`);
    assert.deepEqual(readdirSync(out), []);
    const folder = run(['report', session, '-o', out]);
    assert.equal(folder.code, 2);
    assert.equal(folder.stderr.trim(), `prompt-inspector: not writing the report: ${out} is a directory`);
  });

  const OBJECTS: [string, unknown[]][] = [
    [
      'a text part whose text is an object with a toString key',
      [
        { role: 'user', content: [{ type: 'text', text: { toString: 1 } }] },
        { role: 'assistant', content: 'ok' },
      ],
    ],
    [
      'a part whose type is an object with a toString key',
      [
        { role: 'user', content: [{ type: { toString: 1 } }] },
        { role: 'assistant', content: 'ok' },
      ],
    ],
    [
      'a tool call whose name is an object with a toString key',
      [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: { toString: 'x' }, arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'r' },
        { role: 'assistant', content: 'done' },
      ],
    ],
  ];
  for (const [what, messages] of OBJECTS) {
    it(`${what}: analyze, check and report finish (no internal error)`, () => {
      const dir = tempDir();
      const session = join(dir, 'session_obj.json');
      writeFileSync(session, sessionJson('obj', messages));
      for (const command of [['analyze'], ['analyze', '--json'], ['check'], ['report', '-o', join(dir, 'r.html')]]) {
        const r = run([command[0], session, ...command.slice(1)]);
        assert.ok(r.code === 0 || r.code === 1, `${command.join(' ')} exited ${r.code}: ${r.stderr}`);
        assert.doesNotMatch(r.stderr, /internal error/);
      }
      assert.ok(existsSync(join(dir, 'r.html')));
    });
  }

  it('a reader that goes away (analyze | head) ends the output quietly: no EPIPE, the usual exit code', () => {
    const dir = tempDir();
    const session = join(dir, 'session_long.json');
    const messages = Array.from({ length: 3000 }, (_, i) => [
      { role: 'user', content: `question ${i}` },
      { role: 'assistant', content: `answer ${i}` },
    ]).flat();
    writeFileSync(session, sessionJson('long', messages));
    for (const args of [
      ['analyze', session],
      ['analyze', session, '--json'],
    ]) {
      const sh = spawnSync('bash', ['-c', `"$0" "$1" "\${@:2}" | head -c 100 > /dev/null; echo "exit \${PIPESTATUS[0]}"`, process.execPath, CLI, ...args], {
        encoding: 'utf8',
        timeout: 60_000,
      });
      assert.equal(sh.error, undefined);
      assert.equal(sh.stdout.trim(), 'exit 0');
      assert.doesNotMatch(sh.stderr, /EPIPE|Error/);
      assertNoStack(sh.stderr);
    }
  });
});

describe('output that cannot be written, input that cannot be read', () => {
  /** The built CLI with its standard output on /dev/full: every write fails with ENOSPC. */
  function toFullDisk(args: string[]): { code: number | null; stderr: string } {
    const fd = openSync('/dev/full', 'w');
    try {
      const r = spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ['ignore', fd, 'pipe'], encoding: 'utf8', timeout: 30_000 });
      assert.equal(r.error, undefined, `prompt-inspector ${args.join(' ')} did not finish: ${r.error?.message}`);
      return { code: r.status, stderr: r.stderr };
    } finally {
      closeSync(fd);
    }
  }

  it('standard output on a full disk (/dev/full): one line on stderr and exit 2, for every command and --help', () => {
    const { session } = sessionFolder();
    const db = example('rotation/state.db');
    for (const args of [
      ['analyze', db],
      ['analyze', db, '--json'],
      ['analyze', session, '--json', '--messages'],
      ['sessions', db],
      ['sessions', db, '--json'],
      ['check', example('rotation-prompt-changed/state.db')],
      ['check', example('rotation-prompt-changed/state.db'), '--format', 'github'],
      ['report', session, '-o', join(tempDir(), 'r.html')],
      ['--help'],
      ['analyze', '--help'],
      [],
    ]) {
      const r = toFullDisk(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr, 'prompt-inspector: cannot write to standard output (ENOSPC)\n', args.join(' '));
    }
  });

  it('standard error on a full disk as well: exit 2, no stack (there is nowhere to say it)', () => {
    const fd = openSync('/dev/full', 'w');
    try {
      for (const args of [
        ['analyze', example('rotation/state.db')],
        ['analyze', '/nonexistent/session_x.json'],
      ]) {
        const r = spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ['ignore', fd, fd], timeout: 30_000 });
        assert.equal(r.error, undefined);
        assert.equal(r.status, 2, args.join(' '));
      }
    } finally {
      closeSync(fd);
    }
  });

  it('a reader that goes away from sessions, check or --help: no EPIPE, no stack, the usual exit code', () => {
    for (const [args, code] of [
      [['sessions', example('rotation/state.db'), '--json'], 0],
      [['check', example('rotation-prompt-changed/state.db')], 1],
      [['--help'], 0],
    ] as const) {
      const sh = spawnSync('bash', ['-c', `"$0" "$1" "\${@:2}" | head -c 10 > /dev/null; echo "exit \${PIPESTATUS[0]}"`, process.execPath, CLI, ...args], {
        encoding: 'utf8',
        timeout: 60_000,
      });
      assert.equal(sh.error, undefined);
      assert.equal(sh.stdout.trim(), `exit ${code}`, args.join(' '));
      assert.doesNotMatch(sh.stderr, /EPIPE|Error/);
      assertNoStack(sh.stderr);
    }
  });

  it('/proc/self/mem (stat says 0 bytes, a read fails with EIO) is a path that cannot be read: exit 2, not an empty file', (t) => {
    if (!existsSync('/proc/self/mem')) return t.skip('no /proc');
    for (const args of [['analyze'], ['analyze', '--json'], ['check'], ['sessions'], ['report', '-o', join(tempDir(), 'r.html')]]) {
      const r = run([args[0], '/proc/self/mem', ...args.slice(1)]);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.equal(r.stderr, 'prompt-inspector: /proc/self/mem: cannot read (EIO)\n');
      assert.equal(r.stdout, '');
    }
    // A file that is empty is still read as one: a finding, not a path that cannot be read.
    const empty = join(tempDir(), 'session_empty.json');
    writeFileSync(empty, '');
    assert.equal(run(['check', empty]).code, 1);
  });
});

describe('safe text output', () => {
  const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

  it('visible(), githubData() and githubProperty() escape exactly what they must', () => {
    assert.equal(visible('a\x1b[31mb\x07c\rd\ne\tf\x7f\x85\x9b'), 'a\\x1b[31mb\\x07c\\rd\\ne\\tf\\x7f\\x85\\x9b');
    assert.equal(visible('\u202ecod.exe\u2066\u2069\u200e\u200f\u061c\u2028'), '\\u202ecod.exe\\u2066\\u2069\\u200e\\u200f\\u061c\\u2028');
    assert.equal(visible('plain C:\\path, ümlaut 100% ⇆'), 'plain C:\\path, ümlaut 100% ⇆');
    assert.equal(githubData('50% a:b,c\r\n::error::x\x1b'), '50%25 a:b,c%0D%0A::error::x\\x1b');
    assert.equal(githubProperty('a\n::error file=x,line=9::y%\u202e'), 'a%0A%3A%3Aerror file=x%2Cline=9%3A%3Ay%25%E2%80%AE');
    assert.equal(githubProperty('a\x1b[31m\x00\x7f\x85\t\u2066b'), 'a%1B[31m%00%7F%C2%85%09%E2%81%A6b');
    // Reversible: % itself is encoded, so decoding every %XX gives the value back.
    for (const v of ['a\x1b\u202e%1B:,\r\n\\x1b ü', '100%0A']) assert.equal(decodeURIComponent(githubProperty(v)), v);
  });

  /** A session whose id carries an escape sequence, a bell, a line of its own and a bidi override. */
  const HOSTILE_ID = 'x\x1b]0;pwned\x07\x1b[2J\r\nfindings: none\u202e';

  it('analyze prints a hostile session id escaped, on its own line only', () => {
    const dir = tempDir();
    const session = join(dir, 'session_hostile.json');
    writeFileSync(session, sessionJson(HOSTILE_ID, MESSAGES));
    const r = run(['analyze', session]);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, CONTROLS);
    assert.equal(r.stdout.split('\n').filter((l) => l.startsWith('findings:')).length, 1, 'no forged findings line');
    assert.match(r.stdout, /session x\\x1b\]0;pwned\\x07\\x1b\[2J\\r\\nfindings: none\\u202e {2}user row 0/);
  });

  it('a hostile file name in analyze, check (text and github) and report lines, and on stderr', () => {
    const dir = tempDir();
    const name = join(dir, 'a\x1b[31m\nb\u202e.json');
    writeFileSync(name, ''); // empty: one error finding naming the file
    const a = run(['analyze', name]);
    assert.equal(a.code, 0);
    assert.doesNotMatch(a.stdout, CONTROLS);
    const c = run(['check', name]);
    assert.equal(c.code, 1);
    assert.doesNotMatch(c.stdout, CONTROLS);
    assert.deepEqual(c.stdout.trim().split('\n'), [`${visible(name)}:1: error parse-error ${visible(name)}: empty file`]);
    const missing = run(['check', `${name}.gone`]);
    assert.equal(missing.code, 2);
    assert.doesNotMatch(missing.stderr, CONTROLS);
    assert.ok(missing.stderr.includes('a\\x1b[31m\\nb\\u202e.json.gone: cannot open'));
    const s = join(dir, 'session_\x1b[1m.json');
    writeFileSync(s, sessionJson('s', MESSAGES));
    const rep = run(['report', s, '-o', join(dir, 'out\x1b[5m.html')]);
    assert.equal(rep.code, 0, rep.stderr);
    assert.doesNotMatch(rep.stdout, CONTROLS);
    assert.match(rep.stdout, /^wrote .*out\\x1b\[5m\.html /);
  });

  /** Parses `::level props::data` workflow commands as GitHub does, decoding every property. */
  function annotations(stdout: string): { level: string; props: Record<string, string>; data: string }[] {
    const decode = (s: string, property: boolean): string =>
      s.replace(property ? /%(25|0D|0A|3A|2C)/g : /%(25|0D|0A)/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
    return stdout
      .trim()
      .split('\n')
      .map((line) => {
        const m = /^::(error|warning) ([^:]*)::(.*)$/.exec(line);
        assert.ok(m, `not one workflow command: ${JSON.stringify(line)}`);
        const props = Object.fromEntries(
          m[2].split(',').map((p) => {
            const i = p.indexOf('=');
            return [p.slice(0, i), decode(p.slice(i + 1), true)];
          }),
        );
        return { level: m[1], props, data: decode(m[3], false) };
      });
  }

  it('--format github: a file name with a newline emits no second command, one with ",line=999,title=…" injects no property', () => {
    const dir = tempDir();
    for (const base of ['x\n::error file=forged.ts,line=1::forged', 'x,line=999,title=pwned:y.json', '100%0A\r.json']) {
      const path = join(dir, base);
      writeFileSync(path, '');
      const r = run(['check', path, '--format', 'github']);
      assert.equal(r.code, 1);
      const got = annotations(r.stdout);
      assert.equal(got.length, 1, r.stdout);
      assert.deepEqual(got[0].props, { file: path, line: '1', title: 'parse-error' });
      assert.equal(got[0].data, `parse-error ${path}: empty file`);
    }
  });

  it('--format github: an ESC or a bidi control in a file name is percent-encoded in file= as its UTF-8 bytes', () => {
    const dir = tempDir();
    const path = join(dir, 'a\x1b[31m\u202egnp.exe,b.json');
    writeFileSync(path, '');
    const r = run(['check', path, '--format', 'github']);
    assert.equal(r.code, 1);
    assert.doesNotMatch(r.stdout, CONTROLS);
    const [got] = annotations(r.stdout);
    // What GitHub decodes (%2C back to ","), and the %XX it keeps as written.
    assert.equal(got.props.file, join(dir, 'a%1B[31m%E2%80%AEgnp.exe,b.json'));
    const raw = /^::error file=([^,]*),/.exec(r.stdout)?.[1] ?? '';
    assert.equal(decodeURIComponent(raw), path, 'decoding every %XX gives the path back');
    assert.equal(got.data, `parse-error ${visible(path)}: empty file`, 'the message shows them as the text lines do');
  });

  it('stderr: a hostile --session, option or profile is printed escaped', () => {
    const { session } = sessionFolder();
    for (const args of [
      [session, '--session', HOSTILE_ID],
      [session, '--profile', '\x1b[31mv9'],
      [session, `--\x1b]0;x\x07`],
    ]) {
      const r = run(['analyze', ...args]);
      assert.equal(r.code, 2);
      assert.doesNotMatch(r.stderr, CONTROLS);
      assert.match(r.stderr, /\\(x1b|u001b)/, 'the escape is shown');
    }
  });

  it('a JSON parse error that quotes a bidi control prints it escaped', () => {
    const dir = tempDir();
    const session = join(dir, 'session_bidi.json');
    writeFileSync(session, `{"session_id":"b","messages":[{"role":"user","content":"hi"}\u202e]}`);
    const r = run(['check', session]);
    assert.equal(r.code, 1);
    assert.doesNotMatch(r.stdout, CONTROLS);
    assert.match(r.stdout, /parse-error .*unexpected '\\u202e'/);
  });
});
