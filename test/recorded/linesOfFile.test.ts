// Large files stream (issue 24, item 7): a file of JSON lines is read a chunk at a time
// (`linesOfFile`), and must give the lines that reading it whole gives (`linesOfText` over
// `readFileSync(path, 'utf8')`) for any chunk size: lines across chunk boundaries, characters of
// several bytes cut by one, bytes that are not UTF-8, no final newline, empty lines.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { linesOfText } from '../../src/transcripts/jsonLines';
import { linesOfFile, loadRecorded, subagentFilesOf } from '../../src/transcripts/recordedFiles';
import { readClaudeCode } from '../../src/transcripts/claudeCode';
import { readCodex } from '../../src/transcripts/codex';
import { FOREIGN_FILES } from '../support/foreignFixtures';

const dir = mkdtempSync(join(tmpdir(), 'pi-lines-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, 'x.jsonl');

describe('a file of lines read a chunk at a time', () => {
  it('gives the lines of the whole text, for any chunk size', () => {
    const piece = fc.oneof(
      fc.constantFrom('\n', '\n\n', '{"a":1}', 'é', '😀', ' ', '\r\n'),
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.uint8Array({ maxLength: 6 }).map((b) => Buffer.from(b).toString('latin1')),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), fc.boolean(), fc.integer({ min: 1, max: 19 }), (pieces, raw, chunk) => {
        // Some pieces as bytes that need not be UTF-8 (latin1 gives each char one byte).
        const bytes = Buffer.concat(pieces.map((p, i) => Buffer.from(p, raw && i % 3 === 2 ? 'latin1' : 'utf8')));
        writeFileSync(file, bytes);
        assert.deepEqual([...linesOfFile(file, chunk)], [...linesOfText(readFileSync(file, 'utf8'))]);
      }),
      { seed: 17, numRuns: 300 },
    );
  });

  it('reads again from the start each time it is iterated', () => {
    writeFileSync(file, 'a\nb');
    const lines = linesOfFile(file, 1);
    assert.deepEqual(
      [...lines].map((l) => [l.text, l.line, l.terminated]),
      [
        ['a', 1, true],
        ['b', 2, false],
      ],
    );
    assert.equal([...lines].length, 2);
  });
});

describe('a real session log streamed', { skip: !FOREIGN_FILES.present && 'the foreign fixtures are not there' }, () => {
  it('reads as the same transcript as its whole text', () => {
    // loadRecorded streams in 1 MiB chunks: the 2.7 MB log spans three.
    const fromText = (path: string) => ({ path, lines: linesOfText(readFileSync(path, 'utf8')) });
    const whole = readClaudeCode(fromText(FOREIGN_FILES.spotter), subagentFilesOf(FOREIGN_FILES.spotter).map(fromText));
    const streamed = loadRecorded(FOREIGN_FILES.spotter);
    assert.equal(streamed?.sessions.length, 3);
    assert.deepEqual(streamed, whole);
    assert.deepEqual(loadRecorded(FOREIGN_FILES.codexRollout), readCodex(FOREIGN_FILES.codexRollout, fromText(FOREIGN_FILES.codexRollout).lines));
  });
});
