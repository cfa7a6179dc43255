// Hermes' prompt_caching.cache_ttl in a home's config.yaml (src/transcripts/hermesConfig.ts): the
// shapes a config takes for it, upstream's reading of its values, and where a transcript's home is.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { cacheTtlBeside, cacheTtlOf, hermesHomeOf } from '../../src/transcripts/hermesConfig';
import { tempDir } from '../cli/support';

describe('prompt_caching.cache_ttl in config.yaml', () => {
  it('reads the block and the flow shape, quoted or not, with comments, CRLF, the last setting winning', () => {
    assert.deepEqual(cacheTtlOf('model:\n  default: claude-sonnet-4-6\nprompt_caching:\n  cache_ttl: 1h\n'), { ttl: '1h', line: 4 });
    assert.deepEqual(cacheTtlOf('prompt_caching:\n  # longer for long sessions\n\n  cache_ttl: "1h"   # see docs\nterminal:\n  backend: local\n'), {
      ttl: '1h',
      line: 4,
    });
    assert.deepEqual(cacheTtlOf("prompt_caching:\r\n    cache_ttl: '5m'\r\n"), { ttl: '5m', line: 2 });
    assert.deepEqual(cacheTtlOf('prompt_caching: {cache_ttl: 1h}\n'), { ttl: '1h', line: 1 });
    assert.deepEqual(cacheTtlOf('prompt_caching: {enabled: true, "cache_ttl": "1h"}  # flow\n'), { ttl: '1h', line: 1 });
    assert.deepEqual(cacheTtlOf('prompt_caching:\n  cache_ttl: 1h\nprompt_caching:\n  cache_ttl: 5m\n'), { ttl: '5m', line: 4 });
  });

  it('takes values as upstream does: false-like turns caching off, anything else but 5m and 1h is ignored (5m)', () => {
    for (const off of ['false', 'off', 'no', 'null', '~', '', '"disabled"', 'None', 'OFF'])
      assert.deepEqual(cacheTtlOf(`prompt_caching:\n  cache_ttl: ${off}\n`), { ttl: 'off', line: 2 }, off);
    for (const ignored of ['2h', '60', 'true', '"10m"'])
      assert.deepEqual(cacheTtlOf(`prompt_caching:\n  cache_ttl: ${ignored}\n`), { ttl: '5m', line: 2 }, ignored);
  });

  it('finds nothing where it is not set: another key, a deeper level, a commented line, another section', () => {
    assert.equal(cacheTtlOf(''), null);
    assert.equal(cacheTtlOf('model: claude-sonnet-4-6\n'), null);
    assert.equal(cacheTtlOf('prompt_caching:\n  enabled: true\n'), null);
    assert.equal(cacheTtlOf('prompt_caching:\n  policy:\n    x: 1\n  other:\n      cache_ttl: 1h\n'), null);
    assert.equal(cacheTtlOf('prompt_caching:\n  # cache_ttl: 1h\n'), null);
    assert.equal(cacheTtlOf('compression:\n  cache_ttl: 1h\n'), null);
    assert.equal(cacheTtlOf('  prompt_caching:\n    cache_ttl: 1h\n'), null, 'not a top-level key');
  });

  it('finds the config of the home a transcript was read from, and reads none too large to be one', () => {
    const home = tempDir();
    try {
      mkdirSync(join(home, 'sessions'));
      mkdirSync(join(home, 'logs'));
      const config = join(home, 'config.yaml');
      assert.equal(hermesHomeOf(join(home, 'state.db'), 'hermes-state-db'), home);
      assert.equal(hermesHomeOf(join(home, 'sessions', 'session_x.json'), 'hermes-session-json'), home);
      assert.equal(hermesHomeOf(join(home, 'sessions', 'request_dump_x.json'), 'hermes-request-dump'), home);
      assert.equal(hermesHomeOf(join(home, 'logs', 'agent.log.1'), 'hermes-agent-log'), home);
      assert.equal(hermesHomeOf(join(home, 'agent.log'), 'hermes-agent-log'), null, 'a log outside logs/ names no home');
      assert.equal(hermesHomeOf(join(home, 'trace.jsonl'), 'turn-trace'), null);

      assert.equal(cacheTtlBeside(join(home, 'state.db'), 'hermes-state-db'), null, 'no config.yaml');
      writeFileSync(config, 'prompt_caching:\n  cache_ttl: 1h\n');
      assert.deepEqual(cacheTtlBeside(join(home, 'state.db'), 'hermes-state-db'), { ttl: '1h', file: config, line: 2 });
      assert.deepEqual(cacheTtlBeside(join(home, 'logs', 'agent.log'), 'hermes-agent-log'), { ttl: '1h', file: config, line: 2 });
      writeFileSync(config, `prompt_caching:\n  cache_ttl: 1h\n${'#'.repeat(1 << 20)}\n`);
      assert.equal(cacheTtlBeside(join(home, 'state.db'), 'hermes-state-db'), null, 'over 1 MB: no config');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
