// The "what it must show", run against the bundled examples through the built CLI.
import assert from 'node:assert/strict';
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Ajv2020 from 'ajv/dist/2020';
import type { Report } from '../../src/shared/reportTypes';
import { analyzeJson, assertNoStack, cli, example, ROOT, tempDir } from './support';

const SIDECARS = example('sidecars/session_20260918_101500_a1b2c3.json');
const ROTATION = example('rotation/state.db');
const PROMPT_CHANGED = example('rotation-prompt-changed/state.db');

describe('sidecar replay across profiles', () => {
  it('hermes-v0 breaks the first request of every later turn at the previous user row, where content and sidecar part', () => {
    const r = analyzeJson(SIDECARS, '--profile', 'hermes-v0');
    const session = JSON.parse(readFileSync(SIDECARS, 'utf8'));
    assert.ok(r.turns.length >= 4);
    for (const turn of r.turns.slice(1)) {
      const first = r.requests[turn.requests[0]];
      const prevTurn = r.turns[turn.index - 1];
      assert.equal(first.prefix.stable, false, `turn ${turn.index}`);
      assert.equal(first.prefix.breakAt.cause, 'sidecar-not-replayed');
      const prevRow = session.messages[prevTurn.userMessageIndex];
      assert.equal(first.prefix.breakAt.messageIndex, prevTurn.userMessageIndex + 1, 'wire index = row index + system');
      if (typeof prevRow.content === 'string') {
        // The sidecar is content + "\n\n" + injection: they part right after the content's bytes.
        assert.ok(prevRow.api_content.startsWith(prevRow.content));
        assert.equal(first.prefix.breakAt.byteOffset, Buffer.byteLength(prevRow.content, 'utf8'));
      }
      for (const q of turn.requests.slice(1)) assert.equal(r.requests[q].prefix.stable, true);
    }
    assert.ok(r.diagnostics.some((d: any) => d.code === 'prefix-break' && d.severity === 'error'));
  });

  for (const profile of ['hermes-v1', 'hermes-current']) {
    it(`${profile} reports no break and labels every injected span`, () => {
      const r = analyzeJson(SIDECARS, '--profile', profile);
      assert.equal(r.profile, profile);
      assert.deepEqual(
        r.requests.filter((q: any) => !q.prefix.stable),
        [],
      );
      assert.deepEqual(
        r.diagnostics.filter((d: any) => d.severity !== 'info'),
        [],
      );
      const kinds = new Set(r.turns.flatMap((t: any) => t.injected.map((s: any) => s.kind)));
      for (const k of ['memory', 'plugin', 'gateway-note', 'multimodal-note']) assert.ok(kinds.has(k), `${k} labelled`);
      for (const t of r.turns) assert.ok(t.injected.length > 0, `turn ${t.index} has its injection labelled`);
    });
  }

  it('checks itself against the captured request dump: equal under v1, differing under v0', () => {
    assert.ok(!analyzeJson(SIDECARS, '--profile', 'hermes-v1').diagnostics.some((d: any) => d.code === 'replay-mismatch'));
    assert.ok(analyzeJson(SIDECARS, '--profile', 'hermes-v0').diagnostics.some((d: any) => d.code === 'replay-mismatch'));
  });

  it('a dump whose bytes differ from the replay is reported with the first differing message', () => {
    const dir = tempDir();
    copyFileSync(SIDECARS, join(dir, 'session_20260918_101500_a1b2c3.json'));
    const dumpName = readdirSync(example('sidecars')).find((n) => n.startsWith('request_dump_')) as string;
    const original = JSON.parse(readFileSync(example(`sidecars/${dumpName}`), 'utf8'));
    original.request.body.messages[3].content += ' (edited)';
    writeFileSync(join(dir, dumpName), JSON.stringify(original));
    const r = analyzeJson(join(dir, 'session_20260918_101500_a1b2c3.json'), '--profile', 'hermes-v1');
    const d = r.diagnostics.find((x: any) => x.code === 'replay-mismatch');
    assert.ok(d, 'replay-mismatch reported');
    assert.match(d.message, /wire message 3/);
  });
});

describe('compaction by rotation in state.db', () => {
  const r = analyzeJson(ROTATION);
  it('reports the compaction on the child first turn', () => {
    const child = r.sessions.find((s: any) => s.parentId !== null);
    assert.ok(child, 'a child session');
    const first = r.turns.find((t: any) => t.sessionId === child.id);
    const c = first.compression;
    assert.ok(c, 'compression on the child first turn');
    assert.ok(c.beforeMessages > c.afterMessages);
    assert.ok(c.beforeTokens > c.afterTokens && c.afterTokens > 0);
    assert.ok(c.beforeRoughTokens > c.afterRoughTokens);
    assert.equal(c.madeProgress, true);
    assert.equal(c.reanchor.before, c.beforeMessages - 1);
    assert.equal(c.reanchor.after, first.userMessageIndex);
    assert.equal(c.reanchor.rule, 'exact');
    assert.equal(r.turns.filter((t: any) => t.compression).length, 1);
  });
  it('counts every turn and request once', () => {
    const requestsInTurns = r.turns.flatMap((t: any) => t.requests);
    assert.deepEqual(
      requestsInTurns,
      r.requests.map((q: any) => q.index),
    );
    const childFirst = r.requests.find((q: any) => q.sessionId !== r.sessions[0].id);
    assert.equal(childFirst.prefix.breakAt.cause, 'compression');
    assert.equal(childFirst.prefix.previousRequest, childFirst.index - 1);
  });
  it('check exits 0 when only the compaction broke the prefix', () => {
    const c = cli('check', ROTATION);
    assert.equal(c.code, 0, c.stdout + c.stderr);
  });
  it('a child with another system prompt: system-prompt-changed at the first differing byte, check exits 1', () => {
    const p = analyzeJson(PROMPT_CHANGED);
    const d = p.diagnostics.find((x: any) => x.code === 'system-prompt-changed');
    assert.ok(d);
    const req = p.requests[d.request];
    assert.equal(req.prefix.breakAt.cause, 'system-changed');
    assert.equal(req.prefix.breakAt.messageIndex, 0);
    assert.equal(typeof req.prefix.breakAt.byteOffset, 'number');
    assert.notEqual(req.systemPromptSha256, p.requests[req.prefix.previousRequest].systemPromptSha256);
    const c = cli('check', PROMPT_CHANGED);
    assert.equal(c.code, 1);
    assert.match(c.stdout, /state\.db:\d+: error system-prompt-changed /);
  });
});

describe('the report contract', () => {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  const validate = ajv.compile(JSON.parse(readFileSync(join(ROOT, 'schemas/report.schema.json'), 'utf8')));
  const files = [SIDECARS, ROTATION, PROMPT_CHANGED, example('in-place/state.db'), example('trace/agent.trace.jsonl')];
  for (const f of files) {
    for (const extra of [[], ['--messages'], ['--profile', 'hermes-v0', '--tokenizer', 'cl100k_base']]) {
      it(`validates ${f.slice(ROOT.length + 1)} ${extra.join(' ')}`, () => {
        const report: Report = analyzeJson(f, ...extra);
        const valid = validate(report);
        assert.ok(valid, ajv.errorsText(validate.errors));
        if (extra.includes('--messages')) {
          for (const q of report.requests) {
            assert.equal(q.messages?.length, q.messageCount);
            assert.equal(
              q.messages?.reduce((s, m) => s + m.tokens, 0),
              q.inputTokens,
            );
          }
        } else {
          assert.ok(report.requests.every((q) => q.messages === undefined));
        }
      });
    }
  }
});

describe('bad input and usage', () => {
  it('truncated JSON: parse-error with file and line, the complete messages still replayed, check exits 1', () => {
    const dir = tempDir();
    const text = readFileSync(SIDECARS, 'utf8');
    const cut = join(dir, 'session_cut.json');
    writeFileSync(cut, text.slice(0, Math.floor(text.length * 0.6)));
    const r = analyzeJson(cut);
    const d = r.diagnostics.find((x: any) => x.code === 'parse-error');
    assert.ok(d);
    assert.equal(d.severity, 'error');
    assert.ok(d.line > 1);
    assert.match(d.message, /session_cut\.json:\d+:\d+/);
    assert.ok(r.requests.length > 0, 'the valid part still shows');
    const c = cli('check', cut);
    assert.equal(c.code, 1);
    assert.match(c.stdout, /session_cut\.json:\d+: error parse-error /);
    assertNoStack(c.stdout + c.stderr);
  });
  it('a non-SQLite file named .db: parse-error at byte 0, check exits 1', () => {
    const dir = tempDir();
    const bad = join(dir, 'state.db');
    writeFileSync(bad, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 0xff, 0xfe]));
    const r = analyzeJson(bad);
    assert.equal(r.diagnostics[0].code, 'parse-error');
    assert.match(r.diagnostics[0].message, /state\.db/);
    const c = cli('check', bad);
    assert.equal(c.code, 1);
    assert.match(c.stdout, /state\.db:1: error parse-error /);
    assertNoStack(c.stdout + c.stderr);
  });
  it('a missing path exits 2 with no stack trace', () => {
    const c = cli('check', '/nonexistent/state.db');
    assert.equal(c.code, 2);
    assert.match(c.stderr, /cannot open/);
    assertNoStack(c.stderr);
    assert.equal(cli('analyze', '/nonexistent/x.json').code, 2);
  });
  it('usage errors exit 2; --help works on every command', () => {
    assert.equal(cli().code, 2);
    assert.equal(cli('frobnicate').code, 2);
    assert.equal(cli('analyze', SIDECARS, '--profile', 'hermes-v9').code, 2);
    assert.equal(cli('check').code, 2);
    for (const c of ['analyze', 'check']) {
      const h = cli(c, '--help');
      assert.equal(h.code, 0);
      assert.match(h.stdout, new RegExp(`prompt-inspector ${c}`));
    }
    assert.equal(cli('--help').code, 0);
  });
  it('check --format github prints workflow annotations', () => {
    const c = cli('check', PROMPT_CHANGED, '--format', 'github');
    assert.match(c.stdout, /^::error file=.*state\.db,line=\d+,title=system-prompt-changed::/m);
  });
});
