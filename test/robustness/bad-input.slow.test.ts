// Broken and hostile input: every file of test/fixtures/bad/ (scripts/make-bad-fixtures.ts), plus
// inputs too big to store (10,000-level nesting, a 200 MB single line) written at test time and a
// state.db held open by a live writer in WAL mode. Each is driven through the real CLI (`check` and
// `analyze --json`) and through the readers for every profile. What must hold:
// - no crash: exit code 0 or 1 (never 2 or 3), no stack trace, output that parses;
// - bad input gets a finding naming the file with a position (line/column, byte offset, or
//   session and row);
// - the valid part still shows (complete messages of a cut file, the other lines of a trace, the
//   other rows of a database);
// - the --json report validates against schemas/report.schema.json and its counts are consistent.

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import initSqlJs from 'sql.js';
import { analyze } from '../../src/analysis/report';
import type { Report } from '../../src/shared/reportTypes';
import { createTokenCounter } from '../../src/analysis/tokenizer';
import { PROFILES } from '../../src/engine/profile';
import { loadRemembering, loadTranscript } from '../../src/transcripts/load';
import { badCorpus, BAD_FIXTURES_DIR, WAL_WRITER_PY, writeDeepCases, writeHugeSingleLine, type HugeKind } from '../support/badFixtures';
import { assertNoStack, CLI, cli, runMain, tempDir } from '../cli/support';
import { assertNoDuplicateDiagnostics, assertReportInvariants, assertSchemaValid, hasPosition, snapshot } from './invariants';
import { countedBadInputs } from './tally';
import { PROFILE_NAMES } from '../../src/shared/settingNames';
import { PYTHON } from '../support/python';

/** A test of one bad input: counted, and counted as a failure when it throws. */
const badInput = countedBadInputs('bad-input');

type Diagnostic = Report['diagnostics'][number];
type Position = 'line' | 'offset' | 'row' | 'session';

interface Expect {
  /** Why this input is here. */
  why: string;
  /**
   * true: bad input, at least one finding of `code` (parse-error by default) with a position is
   * required. false: readable input, no parse-error allowed. 'either': hostile but valid input that
   * may be read or refused; a refusal must still be a finding with a position.
   */
  bad: boolean | 'either';
  code?: Diagnostic['code'];
  /** The required finding's message matches this. */
  message?: RegExp;
  /** The kind of position the required finding carries. */
  at?: Position;
  /** How many findings of `code` at least (default 1 when bad). */
  findings?: number;
  /** The required finding says the input ends inside it (a writer may still be writing). */
  atEnd?: boolean;
  /** The valid part that must still show, and anything else specific to the file. */
  valid?: (r: Report, text: string) => void;
}

const counter = createTokenCounter('o200k_base');
const lineCount = (text: string): number => text.split('\n').length;
const shapeOf = (r: Report): { turns: number; requests: number } => ({ turns: r.turns.length, requests: r.requests.length });
const sha256 = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');
const HEX64 = /^[0-9a-f]{64}$/;

/** [line, column] (1-based) of the character `skip` past the `nth` occurrence of `marker`. */
function posOf(text: string, marker: string, skip = 0, nth = 1): [number, number] {
  let offset = -1;
  for (let k = 0; k < nth; k++) offset = text.indexOf(marker, offset + 1);
  assert.ok(offset >= 0, `marker ${JSON.stringify(marker)} not found`);
  const before = text.slice(0, offset + skip).split('\n');
  return [before.length, before[before.length - 1].length + 1];
}

/** The only parse-error of the report, with its line and column. */
function onlyParseError(r: Report): Diagnostic {
  const found = r.diagnostics.filter((d) => d.code === 'parse-error');
  assert.equal(found.length, 1, `one parse-error: ${JSON.stringify(found.map((d) => d.message))}`);
  return found[0];
}

/** Every turn starts at a message (a line holding `{`) after `line`: in the list that is read, not an earlier one. */
function turnsInListAfter(r: Report, text: string, line: number): void {
  const lines = text.split('\n');
  for (const t of r.turns) {
    assert.ok((t.line as number) > line, `turn ${t.index} is at line ${t.line}, in the list before line ${line} that Python discards`);
    assert.equal(lines[(t.line as number) - 1].trim(), '{', `turn ${t.index} starts at a message`);
  }
}

function positioned(d: Diagnostic, at: Position | undefined): boolean {
  switch (at) {
    case 'line':
      return Number.isInteger(d.line) && (d.line as number) >= 1;
    case 'offset':
      return Number.isInteger(d.offset) && (d.offset as number) >= 0;
    case 'row':
      return typeof d.sessionId === 'string' && Number.isInteger(d.rowId);
    case 'session':
      return typeof d.sessionId === 'string' && d.sessionId.length > 0;
    default:
      return hasPosition(d);
  }
}

/** Every wire message's role is known and each turn's anchor lies inside its first request's input. */
function anchorsInsideInput(r: Report): void {
  for (const t of r.turns) {
    if (!t.requests.length || t.compression || t.laterCompressions.length) continue;
    const first = r.requests[t.requests[0]];
    assert.ok(
      t.userMessageIndex < first.messageCount - 1,
      `turn ${t.index} is anchored at row ${t.userMessageIndex}, which is not part of its first request's input (${first.messageCount - 1} rows)`,
    );
  }
  const bySession = new Map<string, number[]>();
  for (const t of r.turns) {
    if (t.userMessageIndex < 0 || t.compression || t.laterCompressions.length) continue;
    const key = `${t.sessionId}#${t.userMessageIndex}`;
    bySession.set(key, [...(bySession.get(key) ?? []), t.index]);
  }
  for (const [key, turns] of bySession) assert.equal(turns.length, 1, `row ${key} is the user row of turns ${turns.join(', ')}`);
}

const EXPECT: Record<string, Expect> = {
  // --- session JSON cut at several points --------------------------------------------------------
  'session_trunc_in_header.json': {
    why: 'cut inside the system prompt, before "messages"',
    bad: true,
    atEnd: true,
    at: 'line',
    valid: (r, text) => {
      assert.equal(r.sessions[0]?.id, 'trunc_in_header', 'the session id before the cut is kept');
      assert.deepEqual(shapeOf(r), { turns: 0, requests: 0 });
      assert.equal(r.diagnostics.find((d) => d.code === 'parse-error')?.line, lineCount(text), 'the finding names the line of the cut');
    },
  },
  'session_trunc_after_bracket.json': {
    why: 'cut right after "messages": [',
    bad: true,
    atEnd: true,
    at: 'line',
    valid: (r, text) => {
      assert.match(r.sessions[0]?.systemPromptSha256 ?? '', HEX64, 'the header before the cut is kept');
      assert.deepEqual(shapeOf(r), { turns: 0, requests: 0 });
      assert.equal(r.diagnostics.find((d) => d.code === 'parse-error')?.line, lineCount(text));
    },
  },
  'session_trunc_mid_message.json': {
    why: 'cut inside the 4th message',
    bad: true,
    atEnd: true,
    at: 'line',
    message: /3 complete messages/,
    valid: (r, text) => {
      assert.deepEqual(shapeOf(r), { turns: 2, requests: 1 }, 'q1, a1 and q2 are complete; the cut answer is not invented');
      assert.equal(r.diagnostics.find((d) => d.code === 'parse-error')?.line, lineCount(text));
    },
  },
  'session_trunc_between_messages.json': {
    why: 'cut after the comma that follows the 4th message',
    bad: true,
    atEnd: true,
    at: 'line',
    valid: (r) => assert.deepEqual(shapeOf(r), { turns: 2, requests: 2 }),
  },
  'session_trunc_after_backslash.json': {
    why: 'cut right after a backslash inside a string',
    bad: true,
    atEnd: true,
    at: 'line',
    valid: (r) => assert.deepEqual(shapeOf(r), { turns: 2, requests: 1 }),
  },
  'session_trunc_before_close.json': {
    why: 'every message complete, the closing "]}" missing',
    bad: true,
    atEnd: true,
    at: 'line',
    message: /4 complete messages/,
    valid: (r) => assert.deepEqual(shapeOf(r), { turns: 2, requests: 2 }),
  },
  'session_trunc_brackets_in_strings.json': {
    why: 'strings full of brackets, braces, quotes and "messages": [, cut inside the last message',
    bad: true,
    atEnd: true,
    at: 'line',
    valid: (r) => assert.deepEqual(shapeOf(r), { turns: 2, requests: 2 }),
  },

  // --- request dumps --------------------------------------------------------------------------------
  'request_dump_dumptrunca_20260918_102255_523000.json': {
    why: 'a dump cut inside its 6th body message',
    bad: true,
    atEnd: true,
    at: 'line',
    valid: (r, text) => {
      assert.equal(r.source.format, 'hermes-request-dump');
      assert.equal(r.diagnostics.find((d) => d.code === 'parse-error')?.line, lineCount(text));
      assert.ok(
        r.turns.length >= 2 && r.requests.length >= 2,
        `the 5 complete body messages (q1, a1, q2, a2) still show as turns and requests: ${JSON.stringify(shapeOf(r))}`,
      );
    },
  },
  'request_dump_dumptruncb_20260918_102255_523000.json': {
    why: 'a dump cut in its headers, before "body"',
    bad: true,
    atEnd: true,
    at: 'line',
    valid: (r) => {
      assert.equal(r.source.format, 'hermes-request-dump', 'a damaged request_dump_*.json is read as a request dump (the name breaks the tie)');
      assert.deepEqual(shapeOf(r), { turns: 0, requests: 0 });
    },
  },
  'request_dump_dumptruncc_20260918_102255_523000.json': {
    why: 'a dump cut inside "tools", after all six body messages',
    bad: true,
    atEnd: true,
    at: 'line',
    valid: (r) => {
      assert.equal(r.source.format, 'hermes-request-dump');
      assert.ok(r.turns.length === 3 && r.requests.length >= 2, `all 6 body messages are complete and still show: ${JSON.stringify(shapeOf(r))}`);
    },
  },
  'request_dump_dumpshape_20260918_102255_523000.json': {
    why: 'body.messages is an object',
    bad: true,
    at: 'line',
    message: /no request\.body\.messages list/,
    valid: (r) => assert.deepEqual(shapeOf(r), { turns: 0, requests: 0 }),
  },
  'request_dump_dumppair_20260918_102300_000000.json': {
    why: 'a dump cut in its "error" object, every body message complete',
    bad: true,
    atEnd: true,
    at: 'line',
    valid: (r) => assert.ok(r.turns.length === 2 && r.requests.length >= 1, `the complete body messages still show: ${JSON.stringify(shapeOf(r))}`),
  },
  'session_dumppair.json': {
    why: 'a good session beside a cut dump of it: the dump is a finding, the session is whole',
    bad: true,
    at: 'line',
    message: /request_dump_dumppair_/,
    valid: (r) => assert.deepEqual(shapeOf(r), { turns: 2, requests: 2 }),
  },

  // --- turn-trace ------------------------------------------------------------------------------------
  'trace_half_written.trace.jsonl': {
    why: 'the last line is half-written',
    bad: true,
    atEnd: true,
    at: 'line',
    message: /incomplete/,
    valid: (r) => {
      assert.equal(r.diagnostics.find((d) => d.code === 'parse-error')?.line, 4);
      assert.deepEqual(shapeOf(r), { turns: 3, requests: 3 });
    },
  },
  'trace_broken_middle.trace.jsonl': {
    why: 'line 2 is not JSON',
    bad: true,
    at: 'line',
    valid: (r) => {
      assert.equal(r.diagnostics.find((d) => d.code === 'parse-error')?.line, 2);
      assert.deepEqual(shapeOf(r), { turns: 2, requests: 2 });
    },
  },
  'trace_compaction_null.trace.jsonl': {
    why: 'line 2 has "compaction": null',
    bad: true,
    at: 'line',
    valid: (r) => {
      assert.ok(
        r.diagnostics.some((d) => d.code === 'parse-error' && d.line === 2),
        'line 2 is named',
      );
      assert.ok(r.turns.length >= 2, 'lines 1 and 3 still replay');
    },
  },
  'trace_negative_history.trace.jsonl': {
    why: 'historyLength -1 on line 3 and 1.5 on line 4 (the schema says a non-negative integer)',
    bad: true,
    at: 'line',
    findings: 2,
    valid: (r) => {
      const lines = r.diagnostics.filter((d) => d.code === 'parse-error').map((d) => d.line);
      assert.ok(lines.includes(3) && lines.includes(4), `lines 3 and 4 are named: ${lines.join(', ')}`);
      assert.ok(r.turns.length >= 2, 'lines 1 and 2 still replay');
    },
  },
  'trace_compaction_without_user_row.trace.jsonl': {
    why: "a rotation line whose compaction.messages lack the turn's own user row (only a carried copy of an older ask)",
    bad: true,
    at: 'line',
    valid: (r) => {
      assert.ok(
        r.diagnostics.some((d) => d.code === 'parse-error' && d.line === 2),
        'line 2 is named',
      );
      assert.equal(r.requests.length, 2);
      assert.ok(
        r.turns.every((t) => t.injected.every((s) => s.text !== 'PLUGIN-NEW')),
        "line 2's plugin context is not pinned on the older row",
      );
    },
  },
  'trace_wrong_shapes.trace.jsonl': {
    why: 'lines that are null, a list, a number, a string, version 2, messages an object, userMessage a number, an empty sessionId, a null systemPrompt, unknown roles, a turn without its user row',
    bad: true,
    at: 'line',
    findings: 11,
    valid: (r) => {
      assert.equal(r.source.format, 'turn-trace', 'a .jsonl of turn-trace lines whose first line is damaged is still a turn trace');
      const lines = new Set(r.diagnostics.filter((d) => d.code === 'parse-error').map((d) => d.line));
      for (let n = 1; n <= 11; n++) assert.ok(lines.has(n), `line ${n} is named`);
      assert.deepEqual(shapeOf(r), { turns: 2, requests: 2 }, 'the readable rows of line 10 and all of line 12 replay');
    },
  },
  'trace_interleaved_sessions.trace.jsonl': {
    why: 'two sessions whose turns interleave (s1, s2, s1), as a gateway serving two chats writes them',
    bad: false,
    valid: (r) => {
      const ids = r.sessions.map((s) => s.id);
      assert.equal(new Set(ids).size, ids.length, `each session is reported once: ${ids.join(', ')}`);
      assert.equal(r.requests.length, 3);
      const ti1 = r.requests.filter((q) => q.sessionId === 'ti1');
      assert.equal(ti1.length, 2);
      assert.equal(ti1[1].messageCount, 4, "ti1's second turn is sent with its first turn's history");
      assert.equal(ti1[1].prefix.previousRequest, ti1[0].index);
      assert.equal(ti1[1].prefix.stable, true);
    },
  },
  'trace_special_tokens.trace.jsonl': {
    why: 'special-token strings in the prompt, user message, plugin context and answer',
    bad: false,
    valid: (r) => {
      assert.equal(r.requests.length, 1);
      assert.ok(r.requests[0].inputTokens > 20, 'special tokens count as plain text');
      assert.deepEqual(
        r.diagnostics.filter((d) => d.code === 'replay-mismatch'),
        [],
      );
    },
  },
  'trace_invalid_utf8.trace.jsonl': {
    why: 'invalid UTF-8 bytes (C3 28, FF) on line 2',
    bad: true,
    at: 'line',
    valid: (r) => {
      assert.ok(
        r.diagnostics.some((d) => d.code === 'parse-error' && d.line === 2),
        'line 2 is named',
      );
      assert.deepEqual(shapeOf(r), { turns: 3, requests: 3 });
    },
  },
  'trace_crlf.trace.jsonl': {
    why: 'CRLF line ends',
    bad: false,
    valid: (r) => {
      assert.deepEqual(shapeOf(r), { turns: 2, requests: 2 });
      assert.equal(r.requests[1].prefix.stable, true);
    },
  },

  // --- encoding --------------------------------------------------------------------------------------
  'session_invalid_utf8.json': {
    why: 'invalid UTF-8 (FF FE, overlong C0 AF, a cut E2 82) inside a message',
    bad: true,
    valid: (r) => assert.deepEqual(shapeOf(r), { turns: 2, requests: 2 }),
  },
  'session_lone_surrogate_raw.json': {
    why: 'a UTF-16 surrogate encoded as raw bytes ED A0 80 (invalid UTF-8)',
    bad: true,
    valid: (r) => assert.deepEqual(shapeOf(r), { turns: 2, requests: 2 }),
  },
  'session_lone_surrogate_escaped.json': {
    why: 'lone and reversed surrogates escaped in JSON (Python json.dumps writes them): valid JSON, counted as text',
    bad: false,
    valid: (r) => {
      assert.deepEqual(shapeOf(r), { turns: 2, requests: 2 });
      assert.match(r.sessions[0].systemPromptSha256 ?? '', HEX64);
      assert.ok(r.requests.every((q) => q.inputTokens > 0));
    },
  },
  'session_bom.json': {
    why: 'a UTF-8 byte-order mark before the JSON',
    bad: false,
    valid: (r) => {
      assert.equal(r.sessions[0]?.id, 'bom');
      assert.deepEqual(shapeOf(r), { turns: 2, requests: 2 });
    },
  },

  // --- NUL bytes: each costs its line or message, never the file ----------------------------------------
  'trace_nul_byte.trace.jsonl': {
    why: 'a NUL byte inside a string on line 3 of 6',
    bad: true,
    at: 'line',
    message: /raw control character U\+0000/,
    valid: (r, text) => {
      assert.equal(r.source.format, 'turn-trace', 'not "binary"');
      assert.deepEqual(shapeOf(r), { turns: 5, requests: 5 }, 'the five other lines replay');
      assert.deepEqual(
        r.turns.map((t) => t.line),
        [1, 2, 4, 5, 6],
      );
      const d = onlyParseError(r);
      assert.deepEqual([d.line, d.column], posOf(text, '\u0000'), 'at the NUL');
      assert.equal(d.atEnd, undefined);
    },
  },
  'trace_nul_padding.trace.jsonl': {
    why: 'three good lines, then 2,048 NUL bytes (what a crash can leave)',
    bad: true,
    at: 'line',
    valid: (r) => {
      assert.deepEqual(shapeOf(r), { turns: 3, requests: 3 });
      const d = onlyParseError(r);
      assert.deepEqual([d.line, d.column, d.atEnd], [4, 1, undefined], 'the padding is no line being written');
    },
  },
  'session_nul_in_string.json': {
    why: 'a NUL byte inside the 4th of 6 messages',
    bad: true,
    at: 'line',
    message: /message 3: raw control character U\+0000/,
    valid: (r, text) => {
      assert.equal(r.source.format, 'hermes-session-json');
      assert.deepEqual(shapeOf(r), { turns: 3, requests: 2 }, 'q1, a1, q2, q3 and a3 read');
      assert.equal(r.requests[1].messageCount, 5, 'the messages after the bad one are read');
      const d = onlyParseError(r);
      assert.deepEqual([d.line, d.column], posOf(text, '\u0000'));
      assert.equal(d.atEnd, undefined);
    },
  },
  'request_dump_dumpnul_20260918_102255_523000.json': {
    why: 'a NUL byte inside body message 2 of 6',
    bad: true,
    at: 'line',
    message: /body message 2: raw control character U\+0000/,
    valid: (r, text) => {
      assert.equal(r.source.format, 'hermes-request-dump');
      assert.deepEqual(shapeOf(r), { turns: 3, requests: 1 }, 'the five other body messages read (a damaged dump has no trailing request)');
      turnsInListAfter(r, text, 1);
      const d = onlyParseError(r);
      assert.deepEqual([d.line, d.column], posOf(text, '\u0000'));
    },
  },

  // --- NaN, Infinity, -Infinity: Python's json.dump writes them (allow_nan=True, its default) -------------
  'session_python_nan.json': {
    why: 'NaN in a message, Infinity in another, -Infinity in the header',
    bad: true,
    at: 'line',
    findings: 3,
    message: /holds (NaN|Infinity|-Infinity) \(not JSON/,
    valid: (r, text) => {
      assert.deepEqual(shapeOf(r), { turns: 2, requests: 2 }, 'all four messages read');
      const found = r.diagnostics.filter((d) => d.code === 'parse-error');
      assert.deepEqual(
        found.map((d) => d.severity),
        ['warning', 'warning', 'warning'],
        'read as Python reads them: warnings, no error',
      );
      assert.deepEqual(
        found.map((d) => [d.line, d.column]),
        [posOf(text, ': -Infinity', 2), posOf(text, ': NaN', 2), posOf(text, ': Infinity', 2)],
        'each at its token',
      );
      assert.ok(found.every((d) => d.atEnd === undefined));
    },
  },
  'trace_python_nan.trace.jsonl': {
    why: 'NaN in a message of line 2',
    bad: true,
    at: 'line',
    message: /the line holds NaN/,
    valid: (r, text) => {
      assert.deepEqual(shapeOf(r), { turns: 3, requests: 3 });
      const d = onlyParseError(r);
      assert.deepEqual([d.severity, d.line, d.column], ['warning', ...posOf(text, 'NaN')]);
    },
  },
  'request_dump_dumpnan_20260918_102255_523000.json': {
    why: 'NaN in body message 2',
    bad: true,
    at: 'line',
    message: /body message 2 holds NaN/,
    valid: (r, text) => {
      assert.deepEqual(shapeOf(r), { turns: 3, requests: 3 }, 'read whole: the trailing request is known');
      const d = onlyParseError(r);
      assert.deepEqual([d.severity, d.line, d.column], ['warning', ...posOf(text, 'NaN')]);
    },
  },

  // --- repeated keys: Python's json keeps the last --------------------------------------------------------
  'session_dup_messages.json': {
    why: 'two "messages" lists: the turns and their lines come from the last',
    bad: false,
    valid: (r, text) => {
      assert.deepEqual(shapeOf(r), { turns: 2, requests: 2 });
      turnsInListAfter(r, text, posOf(text, '"messages": [', 0, 2)[0]);
      assert.equal(r.requests[1].messageCount, 4, 'no stale row');
    },
  },
  'session_dup_header_keys.json': {
    why: 'session_id, system_prompt and tools repeated: the last wins',
    bad: false,
    valid: (r) => {
      assert.equal(r.sessions[0].id, 'dup_header_keys');
      assert.equal(
        r.sessions[0].systemPromptSha256,
        sha256('You are Hermes, an AI agent built by Nous Research.\n\nConversation started: Friday, September 18, 2026'),
      );
      assert.deepEqual(shapeOf(r), { turns: 2, requests: 2 });
    },
  },
  'request_dump_dumpdup_20260918_102255_523000.json': {
    why: 'two body "messages" lists: the last is the request',
    bad: false,
    valid: (r, text) => {
      assert.deepEqual(shapeOf(r), { turns: 3, requests: 3 });
      turnsInListAfter(r, text, posOf(text, '"messages": [', 0, 2)[0]);
    },
  },
  'trace_dup_keys.trace.jsonl': {
    why: 'a line with "sessionId" and "messages" twice: the last of each',
    bad: false,
    valid: (r) => {
      assert.deepEqual(
        r.sessions.map((s) => s.id),
        ['tk'],
      );
      assert.deepEqual(shapeOf(r), { turns: 2, requests: 2 });
      assert.equal(r.requests[1].messageCount, 4, 'system, q1, a1 and q2: nothing stale');
    },
  },

  // --- wrong shapes ------------------------------------------------------------------------------------
  'session_no_messages.json': {
    why: 'no "messages"',
    bad: true,
    at: 'line',
    message: /missing/,
    valid: (r) => assert.deepEqual(shapeOf(r), { turns: 0, requests: 0 }),
  },
  'session_messages_not_list.json': {
    why: '"messages" is an object',
    bad: true,
    at: 'line',
    message: /not a list/,
    valid: (r) => assert.deepEqual(shapeOf(r), { turns: 0, requests: 0 }),
  },
  'session_top_level_array.json': { why: 'the document is a list', bad: true, at: 'line', message: /must be a JSON object/ },
  'session_content_number.json': {
    why: 'content 42 and 3.14',
    bad: true,
    at: 'line',
    message: /content must be a string/,
    findings: 2,
    valid: (r, text) => {
      const lines = text.split('\n');
      for (const d of r.diagnostics.filter((x) => x.code === 'parse-error'))
        assert.equal(lines[(d.line as number) - 1].trim(), '{', `line ${d.line} is where the message starts`);
      assert.deepEqual(shapeOf(r), { turns: 2, requests: 2 });
    },
  },
  'session_content_object.json': {
    why: 'content that is an object',
    bad: true,
    at: 'line',
    message: /content must be a string/,
    findings: 2,
    valid: (r) => assert.deepEqual(shapeOf(r), { turns: 2, requests: 2 }),
  },
  'session_unknown_roles.json': {
    why: 'roles wizard, developer, 42, none; a string row; a null row',
    bad: true,
    at: 'line',
    message: /unknown role|must be an object/,
    findings: 6,
    valid: (r) => assert.deepEqual(shapeOf(r), { turns: 2, requests: 2 }),
  },
  'session_tool_without_id.json': {
    why: 'a tool result without tool_call_id (no provider accepts it)',
    bad: true,
    at: 'line',
    valid: (r) => assert.deepEqual(shapeOf(r), { turns: 2, requests: 3 }),
  },
  'session_bad_parts.json': {
    why: 'parts that are null, numbers, strings, lists, text parts without text; tool_calls not a list; sidecars that are numbers or empty; a timestamp of 1e308',
    bad: false,
    valid: (r) => assert.deepEqual(shapeOf(r), { turns: 4, requests: 5 }),
  },
  'session_null_system_prompt.json': {
    why: 'system_prompt null (upstream #45499)',
    bad: false,
    valid: (r) => {
      assert.equal(r.sessions[0].systemPromptSha256, null);
      assert.deepEqual(shapeOf(r), { turns: 2, requests: 2 });
      assert.equal(r.requests[0].systemPromptSha256, sha256(''), 'the missing prompt is sent as an empty system message');
    },
  },
  'session_special_tokens.json': {
    why: 'special-token strings everywhere',
    bad: false,
    valid: (r) => {
      assert.deepEqual(shapeOf(r), { turns: 2, requests: 2 });
      assert.ok(r.requests[0].inputTokens > 10);
    },
  },
  'session_answer_before_ask.json': {
    why: 'an assistant greeting before the first user row',
    bad: false,
    valid: (r) => {
      assert.deepEqual(shapeOf(r), { turns: 2, requests: 2 });
      anchorsInsideInput(r);
    },
  },
  'session_dup_unsorted_ids.json': {
    why: 'duplicated tool_call ids and timestamps out of order',
    bad: false,
    valid: (r) => assert.deepEqual(shapeOf(r), { turns: 2, requests: 3 }),
  },
  'session_carriers_only.json': {
    why: 'a summary carrier, a todo snapshot and a hidden handoff: no human ask at all',
    bad: true,
    code: 'reanchor-none',
    at: 'line',
    valid: (r) => {
      assert.equal(r.turns.length, 1);
      assert.equal(r.turns[0].userMessageIndex, -1);
      assert.equal(r.requests.length, 2);
    },
  },

  // --- empty and binary ---------------------------------------------------------------------------------
  'empty.json': { why: 'an empty file', bad: true, at: 'line' },
  'empty.trace.jsonl': { why: 'an empty turn trace', bad: true, at: 'line' },
  'binary.bin': { why: 'random bytes', bad: true, at: 'offset', message: /binary/ },
  'session_binary.json': { why: 'gzip bytes under a session name', bad: true, at: 'offset', message: /binary/ },

  // --- SQLite -------------------------------------------------------------------------------------------
  'other_schema.db': { why: 'an SQLite file with another schema', bad: true, at: 'offset', message: /without the Hermes schema/ },
  'state_truncated.db': { why: 'an SQLite file cut after 5,000 bytes', bad: true, at: 'offset', message: /malformed|not a database/ },
  'state_bad_json_content.db': {
    why: '\\x00json: content that is not JSON (rows 2 and 3)',
    bad: true,
    at: 'row',
    message: /\\x00json/,
    findings: 2,
    valid: (r) => {
      const rows = r.diagnostics.filter((d) => d.code === 'parse-error').map((d) => `${d.sessionId}/${d.rowId}`);
      assert.deepEqual(rows, ['bj/2', 'bj/3']);
      assert.deepEqual(shapeOf(r), { turns: 3, requests: 3 });
    },
  },
  'state_content_kinds.db': {
    why: 'BLOB, integer and real content; a NULL role and an unknown role; tool_calls and metadata that are not JSON',
    bad: true,
    at: 'row',
    findings: 2,
    valid: (r) => {
      const rows = r.diagnostics.filter((d) => d.code === 'parse-error').map((d) => d.rowId);
      assert.ok(rows.includes(4) && rows.includes(5), `rows 4 and 5 are named: ${rows.join(', ')}`);
      assert.ok(r.requests.length >= 2);
    },
  },
  'state_dup_ids.db': {
    why: 'a session id and a message id that appear twice (a database without keys)',
    bad: true,
    at: 'session',
    valid: (r) => assert.equal(r.requests.length, 2),
  },
  'state_unsorted_ids.db': {
    why: 'rows inserted out of id order with timestamps that disagree: the agent reads by id',
    bad: false,
    valid: (r) => {
      assert.deepEqual(
        r.turns.map((t) => t.userMessageIndex),
        [0, 2],
      );
      assert.deepEqual(
        r.requests.map((q) => q.messageCount),
        [2, 4],
      );
    },
  },
  'state_orphan_rows.db': {
    why: 'messages of a session that is not in the sessions table',
    bad: true,
    at: 'session',
    valid: (r) => {
      assert.ok(
        r.diagnostics.some((d) => d.code === 'parse-error' && d.sessionId === 'ghost'),
        'the unknown session is named',
      );
      assert.ok(
        r.turns.some((t) => t.sessionId === 'ghost'),
        "the orphan session's rows still show",
      );
      assert.ok(r.turns.some((t) => t.sessionId === 'known'));
    },
  },
  'state_self_parent.db': {
    why: 'a session that names itself as its compression parent',
    bad: true,
    at: 'session',
    valid: (r) => assert.deepEqual(shapeOf(r), { turns: 2, requests: 2 }, "the session's own turns are not treated as carried over"),
  },
  'state_null_system_prompt.db': {
    why: 'a NULL system prompt, and a prompt hash with no system_prompts row',
    bad: false,
    valid: (r) => {
      assert.deepEqual(
        r.sessions.map((s) => s.systemPromptSha256),
        [null, null],
      );
      assert.deepEqual(shapeOf(r), { turns: 2, requests: 2 });
    },
  },
  'state_garbage_wal.db': {
    why: 'a state.db-wal of garbage beside a good database',
    bad: true,
    at: 'offset',
    message: /-wal/,
    valid: (r) => assert.deepEqual(shapeOf(r), { turns: 1, requests: 1 }),
  },
  'state_garbage_wal.db-wal': { why: 'a WAL file opened on its own', bad: true, at: 'offset', message: /binary/ },
  'state_non_integer_ids.db': {
    why: 'message ids that are NULL, 1.5 and text, and unknown roles on two of them',
    bad: true,
    at: 'session',
    findings: 2,
    valid: (r) => assert.ok(r.requests.length >= 1),
  },
  'state_special_tokens.db': {
    why: 'special-token strings in rows',
    bad: false,
    valid: (r) => {
      assert.equal(r.requests.length, 1);
      assert.ok(r.requests[0].inputTokens > 5);
    },
  },
  'state_wal_writer.db': {
    why: 'the base of the live-writer test, read at rest',
    bad: false,
    valid: (r) => assert.deepEqual(shapeOf(r), { turns: 2, requests: 2 }),
  },
};

/** Everything that must hold for one input file, through the CLI and through the readers. */
async function examine(path: string, e: Expect, t: TestContext): Promise<Report> {
  const name = basename(path);
  const code = e.code ?? 'parse-error';

  // The CLI's own code in this process: one corpus file after another, no process each (the
  // bundle runs on bad input in cli/hostile.slow.test.ts).
  const check = await runMain(['check', path]);
  assertNoStack(check.stdout + check.stderr);
  assert.ok(check.code === 0 || check.code === 1, `check exited ${check.code}: ${check.stderr}`);

  const run = await runMain(['analyze', path, '--json']);
  assertNoStack(run.stdout + run.stderr);
  assert.equal(run.code, 0, `analyze exited ${run.code}: ${run.stderr}`);
  const report = JSON.parse(run.stdout) as Report;
  assertSchemaValid(run.stdout, name);
  assertReportInvariants(report, name);
  assertNoDuplicateDiagnostics(report, name);

  const errors = report.diagnostics.filter((d) => d.severity === 'error').length;
  assert.equal(check.code, errors ? 1 : 0, `check exit code ${check.code} with ${errors} error finding(s)`);
  const printed = check.stdout.split('\n').filter((l) => l.startsWith(`${path}:`));
  assert.equal(printed.length, report.diagnostics.filter((d) => d.severity !== 'info').length, 'check prints one line per error or warning');
  for (const l of printed) assert.match(l, /^.+:\d+: (error|warning) [a-z-]+ /, `check line: ${l}`);

  const relevant = report.diagnostics.filter((d) => d.code === code && (!e.message || e.message.test(d.message)));
  if (e.bad === true) {
    assert.ok(
      relevant.length >= (e.findings ?? 1),
      `${name} (${e.why}) needs ${e.findings ?? 1} ${code} finding(s)${e.message ? ` matching ${e.message}` : ''}; got: ${JSON.stringify(report.diagnostics.map((d) => [d.severity, d.code, d.message]))}`,
    );
    for (const d of relevant) assert.ok(positioned(d, e.at), `${code} finding without a ${e.at ?? 'position'}: ${JSON.stringify(d)}`);
    if (code === 'parse-error') {
      for (const d of relevant)
        assert.ok(d.message.includes(name.replace(/-wal$/, '')) || d.message.includes('request_dump_'), `the finding names the file: ${d.message}`);
      assert.ok(
        printed.some((l) => l.includes(' parse-error ')),
        'check prints the parse-error',
      );
    }
  } else if (e.bad === false) {
    assert.deepEqual(
      report.diagnostics.filter((d) => d.code === 'parse-error').map((d) => d.message),
      [],
      `${name} (${e.why}) is readable`,
    );
  }
  e.valid?.(report, existsSync(path) ? readFileSync(path, 'latin1') : '');
  if (e.atEnd)
    assert.ok(
      relevant.some((d) => d.atEnd === true),
      `the finding is flagged atEnd (the input ends inside it): ${JSON.stringify(relevant)}`,
    );

  // The readers and the analysis in-process, under every profile, with every wire message listed.
  const transcript = await loadTranscript(path);
  const before = snapshot(transcript);
  for (const profile of PROFILE_NAMES) {
    const { report: r } = analyze(transcript, { profile: PROFILES[profile], counter, messages: true });
    assertSchemaValid(r, `${name} under ${profile}`);
    assertReportInvariants(r, `${name} under ${profile}`);
  }
  assert.equal(snapshot(transcript), before, 'the analysis never changes the transcript it reads');
  // As the extension's worker reads it: remembering what it read, then reading the file again.
  const remembered = await loadRemembering(path);
  assert.equal(snapshot(remembered.transcript), before, 'a load that remembers reads what one that does not reads');
  assert.equal(snapshot((await loadRemembering(path, { earlier: remembered.memory })).transcript), before, 'the file read again reads as it did');
  t.diagnostic(`${name}: ${report.turns.length} turns, ${report.requests.length} requests, ${report.diagnostics.length} findings`);
  return report;
}

describe('bad-input corpus (test/fixtures/bad)', () => {
  const files = readdirSync(BAD_FIXTURES_DIR).sort();

  it('has at least 30 files, each with an expectation here, and is what scripts/make-bad-fixtures.ts writes', async () => {
    assert.ok(files.length >= 30, `${files.length} files`);
    assert.deepEqual(files, Object.keys(EXPECT).sort(), 'one expectation per corpus file');
    const fresh = await badCorpus();
    assert.deepEqual(fresh.map((f) => f.name).sort(), files);
    for (const f of fresh) {
      const stored = readFileSync(join(BAD_FIXTURES_DIR, f.name));
      assert.ok(stored.equals(Buffer.from(f.bytes)), `${f.name} differs from a fresh run of scripts/make-bad-fixtures.ts`);
      assert.ok(stored.length <= 64 * 1024, `${f.name} is small (${stored.length} bytes)`);
    }
  });

  for (const name of Object.keys(EXPECT).sort()) {
    const e = EXPECT[name];
    badInput(`${name}: ${e.why}`, (t) => examine(join(BAD_FIXTURES_DIR, name), e, t));
  }

  it('the built CLI checks the whole corpus in one run, printing what main() prints file by file', async () => {
    const paths = files.map((name) => join(BAD_FIXTURES_DIR, name));
    const bundle = cli('check', ...paths);
    assertNoStack(bundle.stdout + bundle.stderr);
    const each = await Promise.all(paths.map((path) => runMain(['check', path])));
    assert.equal(bundle.stdout, each.map((r) => r.stdout).join(''));
    assert.equal(bundle.stderr, each.map((r) => r.stderr).join(''));
    const codes = each.map((r) => r.code);
    assert.equal(bundle.code, codes.includes(2) ? 2 : codes.includes(1) ? 1 : 0);
  });
});

describe('nested 10,000 levels deep (written at test time)', () => {
  const dir = tempDir();
  let names: string[] = [];
  before(async () => {
    names = writeDeepCases(dir, await initSqlJs());
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const keepsOthers =
    (min: number) =>
    (r: Report): void => {
      assert.ok(r.requests.length >= min, `the messages around the deep one still show: ${JSON.stringify(shapeOf(r))}`);
    };
  const deep: Record<string, Expect> = {
    'deep_document.json': { why: '"messages" holds one list nested 10,000 deep', bad: true, at: 'line', message: /must be an object/ },
    'session_deep_document_array.json': { why: 'the document is a list nested 10,000 deep', bad: true, at: 'line', message: /must be a JSON object/ },
    'session_deep_content.json': { why: 'a text part with a key nested 10,000 deep', bad: 'either', valid: keepsOthers(2) },
    'session_deep_content_list.json': { why: 'content that is a list nested 10,000 deep', bad: 'either', valid: keepsOthers(2) },
    'session_deep_tool_args.json': { why: 'tool-call arguments nested 10,000 deep', bad: 'either', valid: keepsOthers(2) },
    'session_deep_extra_key.json': { why: 'a bookkeeping key nested 10,000 deep', bad: 'either', valid: keepsOthers(2) },
    'session_deep_truncated.json': {
      why: 'cut inside 10,000 open brackets',
      bad: true,
      at: 'line',
      valid: (r) => assert.deepEqual(shapeOf(r), { turns: 1, requests: 1 }),
    },
    'trace_deep_user_message.trace.jsonl': { why: 'a trace line whose userMessage nests 10,000 deep', bad: 'either', valid: keepsOthers(2) },
    'state_deep_json_content.db': { why: '\\x00json: content nested 10,000 deep', bad: 'either', valid: keepsOthers(2) },
  };
  it('writes every case', () => assert.deepEqual(names.sort(), Object.keys(deep).sort()));
  for (const name of Object.keys(deep).sort()) {
    // Deep but valid input may be read or refused; either way nothing crashes, the rest shows, and
    // a refusal is a finding with a position (checked by assertReportInvariants).
    badInput(`${name}: ${deep[name].why}`, (t) => examine(join(dir, name), deep[name], t));
  }
});

describe('a 200 MB single line (written at test time, run with --max-old-space-size=2048)', () => {
  const cases: { kind: HugeKind; file: string; why: string; valid: (r: Report) => void }[] = [
    {
      kind: 'session-last-message',
      file: 'session_huge.json',
      why: 'a one-line session snapshot cut inside a 200 MB answer',
      valid: (r) => assert.deepEqual(shapeOf(r), { turns: 2, requests: 1 }, 'q1, a1 and q2 still show'),
    },
    {
      kind: 'trace-last-line',
      file: 'huge.trace.jsonl',
      why: 'a turn trace whose second line is 200 MB and still being written',
      valid: (r) => {
        assert.ok(r.diagnostics.some((d) => d.code === 'parse-error' && d.line === 2));
        assert.deepEqual(shapeOf(r), { turns: 1, requests: 1 });
      },
    },
    {
      kind: 'session-system-prompt',
      file: 'session_huge_prompt.json',
      why: 'a one-line session snapshot cut inside a 200 MB system prompt',
      valid: (r) => {
        assert.equal(r.sessions[0]?.id, 'huge_prompt');
        assert.deepEqual(shapeOf(r), { turns: 0, requests: 0 });
      },
    },
  ];
  for (const c of cases) {
    badInput(`${c.file}: ${c.why}`, (t) => {
      const dir = tempDir();
      const path = join(dir, c.file);
      try {
        writeHugeSingleLine(path, c.kind);
        const started = process.hrtime.bigint();
        const r = spawnSync(process.execPath, ['--max-old-space-size=2048', CLI, 'analyze', path, '--json'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        t.diagnostic(`${c.file}: analyze --json took ${ms.toFixed(0)} ms`);
        console.log(`robustness timing: ${c.file} (200 MB single line) analyze --json ${ms.toFixed(0)} ms`);
        assert.equal(r.signal, null, `killed by ${r.signal}`);
        assert.doesNotMatch(r.stderr, /heap out of memory|Allocation failed/i, 'no out-of-memory');
        assertNoStack(r.stdout + r.stderr);
        assert.equal(r.status, 0, `analyze exited ${r.status}: ${r.stderr.slice(0, 500)}`);
        const report = JSON.parse(r.stdout) as Report;
        assertSchemaValid(r.stdout, c.file);
        assertReportInvariants(report, c.file);
        const finding = report.diagnostics.find((d) => d.code === 'parse-error');
        assert.ok(finding && positioned(finding, 'line') && finding.message.includes(c.file), `a parse-error naming ${c.file} with its line`);
        c.valid(report);
        const check = spawnSync(process.execPath, ['--max-old-space-size=2048', CLI, 'check', path], { encoding: 'utf8' });
        assertNoStack(check.stdout + check.stderr);
        assert.equal(check.status, 1, `check exited ${check.status}: ${check.stderr.slice(0, 500)}`);
        assert.match(check.stdout, new RegExp(`${c.file.replace(/\./g, '\\.')}:\\d+: error parse-error`));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe('a state.db held open by a writer in WAL mode', () => {
  badInput(
    'state_wal_writer.db + a python3 writer: committed frames are read, the uncommitted transaction is ignored with a warning, nothing is written',
    async () => {
      const dir = tempDir();
      const db = join(dir, 'state.db');
      copyFileSync(join(BAD_FIXTURES_DIR, 'state_wal_writer.db'), db);
      const writer = spawn(PYTHON, [WAL_WRITER_PY, db], { stdio: ['pipe', 'pipe', 'pipe'] });
      let stderr = '';
      writer.stderr.on('data', (d) => {
        stderr += d;
      });
      const exited = new Promise<number | null>((resolve) => writer.on('exit', resolve));
      try {
        await new Promise<void>((resolve, reject) => {
          let out = '';
          writer.stdout.on('data', (d) => {
            out += d;
            if (out.includes('ready')) resolve();
          });
          writer.on('exit', (code) => reject(new Error(`writer exited ${code} before it was ready: ${stderr}`)));
        });
        const hash = (p: string): string => createHash('sha256').update(readFileSync(p)).digest('hex');
        const before = { db: hash(db), wal: hash(`${db}-wal`), files: readdirSync(dir).sort() };
        assert.ok(readFileSync(`${db}-wal`).length > 100_000, 'the open transaction spilled frames into the WAL');

        const run = cli('analyze', db, '--json');
        assertNoStack(run.stdout + run.stderr);
        assert.equal(run.code, 0, run.stderr);
        assertSchemaValid(run.stdout, 'live state.db');
        const report = JSON.parse(run.stdout) as Report;
        assertReportInvariants(report, 'live state.db');
        assert.deepEqual(shapeOf(report), { turns: 3, requests: 3 }, 'the committed turn that lives only in the WAL is replayed');
        const warning = report.diagnostics.find((d) => d.code === 'parse-error' && /after the last commit|transaction in progress/.test(d.message));
        assert.ok(warning, `a finding about the transaction in progress: ${JSON.stringify(report.diagnostics)}`);
        assert.equal(warning.severity, 'warning');
        assert.ok(positioned(warning, 'offset') && warning.message.includes('state.db-wal'));
        const check = cli('check', db);
        assertNoStack(check.stdout + check.stderr);
        assert.equal(check.code, 0, 'warnings only');
        assert.match(check.stdout, /state\.db:1: warning parse-error .*state\.db-wal/);

        const transcript = await loadTranscript(db);
        const contents = transcript.sessions.flatMap((s) => s.generations.flatMap((g) => g.rows.map((row) => String(row.content))));
        assert.ok(contents.includes('committed answer'));
        assert.ok(!contents.some((c) => c.startsWith('uncommitted')), 'no uncommitted row is read');
        assert.deepEqual({ db: hash(db), wal: hash(`${db}-wal`), files: readdirSync(dir).sort() }, before, 'the reader wrote nothing');
      } finally {
        writer.stdin.end('\n');
        const code = await exited;
        rmSync(dir, { recursive: true, force: true });
        assert.equal(code, 0, `writer: ${stderr}`);
      }
    },
  );
});
