// Never silent (issue 18): whatever a reader sets aside is counted in a finding that says how many
// and why, a session that holds rows but yields no turn always says why, and so does a file that
// yields no turn at all. Walks every example, every bad-input fixture and other tools' files.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { analyze } from '../../src/analysis/report';
import { createTokenCounter } from '../../src/analysis/tokenizer';
import { PROFILES } from '../../src/engine/profile';
import { loadTranscript } from '../../src/transcripts/load';
import { example, ROOT } from '../cli/support';
import { BAD_FIXTURES_DIR, sessionJson } from '../support/badFixtures';

const counter = createTokenCounter('o200k_base');
const EXAMPLES = [
  'trace/agent.trace.jsonl',
  'in-place/state.db',
  'rotation/state.db',
  'rotation-prompt-changed/state.db',
  'home/state.db',
  'sidecars/session_20260918_101500_a1b2c3.json',
  'sidecars/request_dump_20260918_101500_a1b2c3_20260918_102255_523000.json',
].map(example);
const FIXTURES = readdirSync(BAD_FIXTURES_DIR).map((f) => join(BAD_FIXTURES_DIR, f));
// Other tools' files (another agent's log, recorded HTTP traffic), where they are kept.
const FOREIGN_DIR = join(ROOT, '..', 'shared', 'fixtures', 'foreign');
const FOREIGN = existsSync(FOREIGN_DIR)
  ? readdirSync(FOREIGN_DIR, { recursive: true, encoding: 'utf8' })
      .map((f) => join(FOREIGN_DIR, f))
      .filter((f) => !f.endsWith('.md') && statSync(f).isFile())
  : [];
// Files that hold rows and yield no turn, each for another reason.
const scratch = mkdtempSync(join(tmpdir(), 'pi-silent-'));
const SILENT = [
  ['session_20260918_101500_ask0001.json', [{ role: 'user', content: 'Run the tests.', timestamp: 1789726500 }]],
  [
    'session_20260918_101500_note001.json',
    [
      { role: 'user', content: '[Your active task list was preserved across context compression]\n- [ ] 1. ship', timestamp: 1789726500 },
      { role: 'user', content: '[Your active task list was preserved across context compression]\n- [ ] 2. tag', timestamp: 1789726501 },
    ],
  ],
].map(([name, messages]) => {
  const path = join(scratch, name as string);
  writeFileSync(path, sessionJson((name as string).slice(8, -5), messages as unknown[]));
  return path;
});

describe('never silent: every example and fixture', () => {
  after(() => rmSync(scratch, { recursive: true, force: true }));
  for (const file of [...EXAMPLES, ...FIXTURES, ...SILENT, ...FOREIGN]) {
    it(file.slice(file.lastIndexOf('/', file.lastIndexOf('/') - 1) + 1), async () => {
      const transcript = await loadTranscript(file);
      const { report } = analyze(transcript, { profile: PROFILES['hermes-current'], counter, messages: false });
      const withTurns = new Set(report.turns.map((t) => t.sessionId));
      for (const s of transcript.sessions) {
        const rows = s.generations.reduce((n, g) => n + g.rows.length, 0);
        if (rows === 0 || withTurns.has(s.id) || transcript.listedOnly) continue;
        assert.ok(
          report.diagnostics.some((d) => d.code === 'no-turns' && d.sessionId === s.id && d.message.includes(`${rows} row`)),
          `session ${s.id} holds ${rows} rows and no turn, and no finding says why:\n${report.diagnostics.map((d) => `  ${d.code}: ${d.message}`).join('\n')}`,
        );
      }
      if (SILENT.includes(file)) assert.equal(report.turns.length, 0, 'a file of this test that yields no turn');
      // A file that yields no turn at all, for whatever reason (empty, damaged, of another kind), says so.
      if (!report.turns.length) assert.ok(report.diagnostics.length > 0, 'a file with no turn and no finding');
      if (transcript.format === 'hermes-session-json') {
        const carried = transcript.sessions[0]?.generations[0]?.carried ?? 0;
        if (carried > 0) {
          assert.ok(
            report.diagnostics.some((d) => d.code === 'snapshot-incomplete' && d.message.includes(`the first ${carried} of`)),
            `${carried} rows set aside as copies with no finding counting them`,
          );
        }
      }
    });
  }
});
