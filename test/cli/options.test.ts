// The command line's options read in-process (src/cli/options.ts); the same refusals through the
// built CLI, with their exit codes, are in acceptance.slow.test.ts.

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { checkOptions, isCommand, parseArgs, UsageError } from '../../src/cli/options';
import { tempDir } from './support';

const refused = (fn: () => unknown, message: string | RegExp): void => {
  assert.throws(fn, (e: unknown) => e instanceof UsageError && (typeof message === 'string' ? e.message === message : message.test(e.message)));
};

describe('command-line options', () => {
  it('defaults: one file, the current profile, o200k_base, the logs beside the transcript', () => {
    const o = parseArgs(['a.jsonl']);
    assert.deepEqual(o.files, ['a.jsonl']);
    assert.equal(o.profile, 'hermes-current');
    assert.equal(o.tokenizer, 'o200k_base');
    assert.equal(o.logs, null);
    assert.deepEqual([o.json, o.messages, o.help, o.desc], [false, false, false, false]);
    assert.deepEqual([o.turn, o.output, o.sort, o.format, o.theme], [null, null, null, 'text', 'light']);
  });

  it('a value after the flag or after `=`, the same either way; `-` is a file', () => {
    const spaced = parseArgs(['--profile', 'hermes-v1', '--turn', '3', '--format', 'github', '-o', 'out.html', '--session', 's1', '--theme', 'dark', '-']);
    const inline = parseArgs(['--profile=hermes-v1', '--turn=3', '--format=github', '--output=out.html', '--session=s1', '--theme=dark', '-']);
    assert.deepEqual(spaced, inline);
    assert.deepEqual(
      [spaced.profile, spaced.turn, spaced.format, spaced.output, spaced.session, spaced.theme, spaced.files],
      ['hermes-v1', 3, 'github', 'out.html', 's1', 'dark', ['-']],
    );
    // An inline value may itself hold `=`.
    assert.equal(parseArgs(['--filter=a=b']).filter.text, 'a=b');
  });

  it('logs: each --log adds one, --no-logs reads none; --has adds, --sort -COL sorts descending', () => {
    assert.deepEqual(parseArgs(['--log', 'a.log', '--log=b.log']).logs, ['a.log', 'b.log']);
    assert.deepEqual(parseArgs(['--no-logs']).logs, []);
    assert.deepEqual(parseArgs(['--has', 'breaks', '--has', 'errors', '--filter', 'x']).filter, { has: ['breaks', 'errors'], text: 'x' });
    const o = parseArgs(['--sort', '-input']);
    assert.deepEqual([o.sort, o.desc], ['input', true]);
  });

  it('refuses unknown options, missing values and values out of their set, naming them', () => {
    refused(() => parseArgs(['--nope']), 'unknown option --nope');
    refused(() => parseArgs(['--nope=1']), 'unknown option --nope=1');
    refused(() => parseArgs(['--profile']), '--profile needs a value');
    refused(() => parseArgs(['--session', '--json']), '--session needs a value');
    refused(() => parseArgs(['--profile', 'hermes-v9']), /^unknown profile "hermes-v9" \(hermes-v0, /);
    refused(() => parseArgs(['--tokenizer', 'p50k']), /^unknown tokenizer "p50k"/);
    refused(() => parseArgs(['--turn', '-1']), '--turn takes a turn number, not "-1"');
    refused(() => parseArgs(['--turn=1.5']), '--turn takes a turn number, not "1.5"');
    refused(() => parseArgs(['--format=xml']), '--format is text or github, not "xml"');
    refused(() => parseArgs(['--has=warnings']), '--has is breaks or errors, not "warnings"');
    refused(() => parseArgs(['--theme=blue']), '--theme is light or dark, not "blue"');
    refused(() => parseArgs(['--sort=nonsense']), /^--sort takes a column \(.*\), not "nonsense"$/);
    // A name of Object.prototype is no flag.
    refused(() => parseArgs(['--constructor']), 'unknown option --constructor');
  });

  it('--prices reads a file of prices by model; a file it cannot read or use is refused with its path', () => {
    const dir = tempDir();
    const good = join(dir, 'prices.json');
    writeFileSync(good, JSON.stringify({ 'my-model': { input: 1, output: 2 } }));
    assert.ok(parseArgs(['--prices', good]).prices?.['my-model']);
    refused(() => parseArgs(['--prices', join(dir, 'none.json')]), new RegExp(`^--prices ${join(dir, 'none.json')}: `));
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{');
    refused(() => parseArgs([`--prices=${bad}`]), new RegExp(`^--prices ${bad}: `));
  });

  it('checks what a command asks of its options together', () => {
    const check = (command: string, args: string[]): void => {
      assert.ok(isCommand(command));
      checkOptions(command, parseArgs(args), args);
    };
    assert.equal(isCommand('lint'), false);
    check('analyze', ['a']);
    check('check', ['a', 'b']);
    check('report', ['a', '-o', 'r.html']);
    check('sessions', ['a', '--sort', 'input', '--desc']);
    refused(() => check('analyze', []), 'analyze takes exactly one file');
    refused(() => check('analyze', ['a', 'b']), 'analyze takes exactly one file');
    refused(() => check('check', []), 'check takes at least one file');
    refused(() => check('report', ['a']), 'report needs -o <out.html>');
    refused(() => check('sessions', ['a', '--desc']), '--desc needs --sort COLUMN');
    refused(() => check('analyze', ['a', '--sort=input']), '--sort is an option of `sessions`, not of `analyze`');
    refused(() => check('check', ['a', '--has', 'breaks']), '--has is an option of `sessions`, not of `check`');
    refused(() => check('report', ['a', '--lineage', 'x', '--session', 'y', '-o', 'r.html']), '--lineage and --session: give one of them');
    refused(() => check('sessions', ['a', '--lineage', 'x']), /^--lineage is an option of `analyze`, `check` and `report`/);
  });
});
