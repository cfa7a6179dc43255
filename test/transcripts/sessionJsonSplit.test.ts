// A session snapshot is parsed one message at a time as it is read (parseSplitDocument, src/transcripts/jsonSplitDocument.ts),
// never decoded whole. That must give exactly what the whole-text reader gives, at any chunk
// size, or give up (null) so the whole-text reader decides: on anything not well-formed, not
// UTF-8, or not of the snapshot's shape.

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { synthesizeLongSession, toSessionJson } from '../support/synthesize';
import { readHermesSessionJson, readSplitSessionJson } from '../../src/transcripts/hermesSessionJson';
import { readJsonDocument } from '../../src/transcripts/jsonDocument';
import { parseSplitDocument } from '../../src/transcripts/jsonSplitDocument';
import { loadTranscript } from '../../src/transcripts/load';
import { readTranscript } from '../../src/transcripts/read';
import { bytesSource } from '../../src/transcripts/byteSource';
import { tempDir } from '../cli/support';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const CHUNKS = [1, 2, 3, 7, 64, undefined];

/** What reading the whole text gives: JSON.parse's value and the line of each message. */
function whole(text: string): { value: unknown; lines: number[] } {
  const body = text.replace(/^\uFEFF/, '');
  return { value: JSON.parse(body), lines: (readJsonDocument(body, ['messages']).list ?? []).map((e) => e.line) };
}

function split(bytes: Uint8Array, chunk?: number): ReturnType<typeof parseSplitDocument> {
  return parseSplitDocument(bytesSource(bytes), 'messages', { chunk });
}

const base = toSessionJson(synthesizeLongSession(3, 7));
const doc = JSON.parse(base) as Record<string, unknown>;
const { messages, ...header } = doc;

const wellFormed: Record<string, string> = {
  'as Hermes writes it': base,
  compact: JSON.stringify(doc),
  'CRLF line ends': base.replace(/\n/g, '\r\n'),
  'a byte-order mark': `\uFEFF${base}`,
  'messages first (nothing escaped after them)': JSON.stringify({ messages, session_id: 's', n: [1, { a: null }] }, null, 2),
  'an empty list': JSON.stringify({ ...header, messages: [] }),
  'any JSON value as a message': JSON.stringify({ ...header, messages: [1, 's', null, true, [], {}, -1.5e3, { role: 'user', content: 'q' }] }, null, 1),
  'quotes, backslashes and brackets in strings': JSON.stringify(
    {
      ...header,
      messages: [
        { role: 'user', content: 'a\\"b"c\\\\ [{' },
        { role: 'assistant', content: '}]"\\' },
      ],
    },
    null,
    2,
  ),
  'non-ASCII and astral text': JSON.stringify({ ...header, session_id: 'ü→', messages: [{ role: 'user', content: 'héllo → 😀 \u2028 \uFEFF' }] }, null, 2),
  'an earlier "messages" (the last one counts)': base.replace('{\n', '{\n  "messages": 5,\n'),
  'an earlier list of "messages" (the last one counts)': base.replace(
    '{\n',
    '{\n  "messages": [\n    {"role": "user", "content": "discarded"},\n    {"role": "assistant", "content": "[{\\"messages\\": []}]"}\n  ],\n',
  ),
  'a later "messages"': base.replace(/\n\}\s*$/, ',\n  "messages": []\n}\n'),
  'a later escaped "messages"': base.replace(/\n\}\s*$/, ',\n  "messag\\u0065s": []\n}\n'),
  'a later list of "messages" and repeated header keys': base.replace(
    /\n\}\s*$/,
    ',\n  "session_id": "later",\n  "system_prompt": "LATER",\n  "messages": [\n    {"role": "user", "content": "kept"},\n\n    {"role": "assistant", "content": "also kept"}\n  ],\n  "tools": []\n}\n',
  ),
  '"messages" nested deeper': JSON.stringify({ x: { messages: [1] }, messages: [{ role: 'user', content: 'q' }] }),
  'whitespace after the end': `${base}  \n\n`,
};

const notSplit: Record<string, string | Uint8Array> = {
  'cut short': base.slice(0, base.length / 2),
  'cut after the list': base.replace(/\}\s*$/, ''),
  'a trailing comma': base.replace(/\}\s*\]\s*\}\s*$/, '},\n]\n}\n'),
  'a missing comma': base.replace(/\},\n(\s*)\{/, '}\n$1{'),
  'two commas': base.replace(/\},\n(\s*)\{/, '},,\n$1{'),
  'a stray character between messages': base.replace(/\},\n(\s*)\{/, '}, x\n$1{'),
  'an extra closing brace': base.replace(/\},\n(\s*)\{/, '}},\n$1{'),
  'a later "messages" that is not a list': base.replace(/\n\}\s*$/, ',\n  "messages": 5\n}\n'),
  'a later escaped "messages" that is not a list': base.replace(/\n\}\s*$/, ',\n  "messag\\u0065s": {}\n}\n'),
  'NaN in a message (Python writes it)': base.replace('"content": "', '"score": NaN, "content": "'),
  'Infinity after the list': base.replace(/\n\}\s*$/, ',\n  "cost": -Infinity\n}\n'),
  'a NUL byte in a string': base.replace('"content": "', '"content": "\u0000'),
  'a byte-order mark inside': base.replace('"messages": [', '"messages": [\uFEFF'),
  'a raw newline in a string': base.replace('"content": "', '"content": "a\nb'),
  'text after the end': `${base}x`,
  'a list at the top': JSON.stringify([doc]),
  'no messages': JSON.stringify(header),
  'messages not a list': JSON.stringify({ ...header, messages: { a: 1 } }),
  'invalid UTF-8 in a message': Buffer.concat([
    Buffer.from(base.slice(0, base.indexOf('"content": "') + 12)),
    Buffer.from([0xff, 0xe2, 0x82]),
    Buffer.from(base.slice(base.indexOf('"content": "') + 12)),
  ]),
};

describe('session JSON parsed message by message', () => {
  for (const [name, text] of Object.entries(wellFormed)) {
    it(`${name}: the value and lines of the whole text, at any chunk size`, () => {
      const expected = whole(text);
      for (const chunk of CHUNKS) assert.deepEqual(split(enc(text), chunk), expected, `chunk ${chunk}`);
    });
  }

  for (const [name, input] of Object.entries(notSplit)) {
    it(`${name}: left to the whole-text reader`, () => {
      const bytes = typeof input === 'string' ? enc(input) : input;
      for (const chunk of CHUNKS) assert.equal(split(bytes, chunk), null, `chunk ${chunk}`);
    });
  }

  it("random documents: the whole text's value, at random chunk sizes", () => {
    const member = fc.tuple(fc.string(), fc.jsonValue());
    fc.assert(
      fc.property(
        fc.array(member, { maxLength: 3 }),
        fc.array(fc.jsonValue(), { maxLength: 6 }),
        fc.array(member, { maxLength: 3 }),
        fc.integer({ min: 1, max: 40 }),
        fc.boolean(),
        (before, list, after, chunk, pretty) => {
          const value = Object.fromEntries([...before.filter(([k]) => k !== 'messages'), ['messages', list], ...after.filter(([k]) => k !== 'messages')]);
          const text = JSON.stringify(value, null, pretty ? 2 : undefined);
          assert.deepEqual(split(enc(text), chunk), whole(text), 'never refused: escapes after the list are read, not feared');
        },
      ),
      { seed: 4, numRuns: 300 },
    );
  });

  it('repeated keys: the list read is the last member of "messages", with its own lines, or none when that member is not a list', () => {
    const key = fc.constantFrom('"messages"', '"messag\\u0065s"', '"session_id"', '"system_prompt"', '"x"');
    const member = fc.tuple(key, fc.oneof(fc.array(fc.jsonValue(), { maxLength: 4 }), fc.jsonValue()));
    fc.assert(
      fc.property(fc.array(member, { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 40 }), (members, chunk) => {
        // One element per line, so the lines of the last list are known without any parser.
        const out = ['{'];
        let lines: number[] | null = null;
        for (const [m, [k, v]] of members.entries()) {
          const comma = m < members.length - 1 ? ',' : '';
          const messages = JSON.parse(k) === 'messages';
          if (Array.isArray(v)) {
            out.push(`${k}: [`);
            const at: number[] = [];
            v.forEach((e, i) => {
              out.push(`${JSON.stringify(e)}${i < v.length - 1 ? ',' : ''}`);
              at.push(out.length);
            });
            out.push(`]${comma}`);
            if (messages) lines = at;
          } else {
            out.push(`${k}: ${JSON.stringify(v)}${comma}`);
            if (messages) lines = null;
          }
        }
        out.push('}');
        const text = out.join('\n');
        const value = JSON.parse(text) as Record<string, unknown>;
        const read = readJsonDocument(text, ['messages']);
        assert.deepEqual(read.value, value);
        assert.deepEqual(read.errors, []);
        assert.deepEqual(
          read.list?.map((e) => e.line),
          lines ?? undefined,
        );
        assert.deepEqual(split(enc(text), chunk), lines ? { value, lines } : null);
      }),
      { seed: 5, numRuns: 300 },
    );
  });

  it('a snapshot rewritten: the messages it starts with, unchanged and on the same line, are what the earlier parse gave; anything else is parsed anew', () => {
    const more = [
      { role: 'user', content: 'one more [{"x": "]"}]', timestamp: 2e9 },
      { role: 'assistant', content: 'é → 😀', timestamp: 2e9 + 1 },
    ];
    const write = (head: Record<string, unknown>, list: unknown[]): string => JSON.stringify({ ...head, messages: list }, null, 2);
    const first = write(header, messages as unknown[]);
    const rewrites: [string, string, boolean][] = [
      ['the same file again', first, true],
      [
        'messages appended, the header rewritten',
        write({ ...header, last_updated: '2033-05-18T03:33:20', message_count: 99 }, [...(messages as unknown[]), ...more]),
        true,
      ],
      ['messages appended, compact', JSON.stringify({ ...header, messages: [...(messages as unknown[]), ...more] }), false],
      ['an earlier message changed', write(header, [{ role: 'user', content: 'changed' }, ...(messages as unknown[]).slice(1), ...more]), false],
      ['the last message changed', write(header, [...(messages as unknown[]).slice(0, -1), { role: 'assistant', content: 'changed' }]), false],
      ['a message removed', write(header, (messages as unknown[]).slice(0, -1)), false],
      ['a header line more (the list opens a line later)', write({ extra: 1, ...header }, [...(messages as unknown[]), ...more]), false],
      ['appended, then cut short', write(header, [...(messages as unknown[]), ...more]).slice(0, -40), false],
    ];
    for (const chunk of CHUNKS) {
      const earlier = parseSplitDocument(bytesSource(enc(first)), 'messages', { chunk, keep: true })?.elements;
      assert.ok(earlier, 'the list is kept');
      for (const [name, text, reused] of rewrites) {
        const read = parseSplitDocument(bytesSource(enc(text)), 'messages', { chunk, keep: true, earlier });
        const fresh = parseSplitDocument(bytesSource(enc(text)), 'messages', { chunk });
        assert.deepEqual(read && { value: read.value, lines: read.lines }, fresh, `${name}, chunk ${chunk}`);
        if (!read) continue;
        const values = read.value.messages as unknown[];
        assert.equal(values[0] === earlier.values[0], reused, `${name}, chunk ${chunk}: reused`);
        // What this read keeps serves the next one just as well.
        const again = parseSplitDocument(bytesSource(enc(text)), 'messages', { chunk, earlier: read.elements });
        assert.deepEqual(again, fresh, `${name}, chunk ${chunk}: read a third time`);
        assert.equal((again?.value.messages as unknown[])[values.length - 1], values[values.length - 1], `${name}, chunk ${chunk}: all reused the third time`);
      }
    }
  });

  it("the transcript equals the whole-text reader's, through readTranscript and through a file", async () => {
    const dir = tempDir();
    // Larger than a chunk, so the file is read in several.
    const big = toSessionJson(synthesizeLongSession(200, 3));
    assert.ok(big.length > 1 << 20);
    for (const [i, text] of [...Object.values(wellFormed), big].entries()) {
      const path = join(dir, `session_${i}.json`);
      writeFileSync(path, text);
      const expected = readHermesSessionJson(path, text.replace(/^\uFEFF/, ''));
      assert.deepEqual(readSplitSessionJson(path, bytesSource(enc(text)))?.transcript, expected);
      assert.deepEqual(readTranscript({ path, bytes: enc(text) }), expected);
      assert.deepEqual(await loadTranscript(path), expected);
    }
  });

  it('what is left to the whole-text reader still reads as it did', async () => {
    const dir = tempDir();
    for (const [i, input] of Object.values(notSplit).entries()) {
      const path = join(dir, `session_${i}.json`);
      const bytes = typeof input === 'string' ? enc(input) : input;
      writeFileSync(path, bytes);
      const text = new TextDecoder().decode(bytes);
      const expected = readHermesSessionJson(path, text);
      const got = await loadTranscript(path);
      // Invalid UTF-8 adds its own finding first.
      assert.deepEqual(got.sessions, expected.sessions);
      assert.deepEqual(got.findings.slice(got.findings.length - expected.findings.length), expected.findings);
    }
  });
});
