// The bad-input corpus under test/fixtures/bad/, which scripts/make-bad-fixtures.ts writes (run: npx
// tsx scripts/make-bad-fixtures.ts [--out DIR]). Every file is small and deterministic: two runs give byte-identical files, and
// test/robustness/bad-input.slow.test.ts checks the committed corpus against a fresh run.
//
// The inputs too big to commit (a 200 MB single line, JSON nested 10,000 levels deep) are not
// stored: the test writes them into a temp dir with writeHugeSingleLine() and writeDeepCases().
// The live-writer case (a state.db held open in WAL mode by another process) is driven by the test
// with WAL_WRITER_PY (test/support/wal_writer.py) on a temp copy of state_wal_writer.db.

import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import type { SqlJsStatic } from 'sql.js';

export const BAD_FIXTURES_DIR = join(__dirname, '..', 'fixtures', 'bad');

const CARRIER =
  '[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted into the summary below.\n## Historical Task Snapshot\n- imported the CSV\n\n--- END OF CONTEXT SUMMARY — respond to the message below, not the summary above ---';

type Msg = Record<string, unknown>;
const U = (content: unknown, more: Msg = {}): Msg => ({ role: 'user', content, ...more });
const A = (content: unknown, more: Msg = {}): Msg => ({ role: 'assistant', content, ...more });
const T = (id: string | undefined, content: unknown, more: Msg = {}): Msg => ({
  role: 'tool',
  ...(id === undefined ? {} : { tool_call_id: id }),
  content,
  ...more,
});
const call = (id: string, name: string, args: unknown): Msg => ({ id, type: 'function', function: { name, arguments: JSON.stringify(args) } });

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const concat = (...parts: (string | number[] | Uint8Array)[]): Uint8Array => {
  const chunks = parts.map((p) => (typeof p === 'string' ? utf8(p) : p instanceof Uint8Array ? p : Uint8Array.from(p)));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
};

/** A session snapshot as Hermes writes it (indented, so every message starts on its own line). */
export function sessionJson(id: string, messages: unknown[], extra: Msg = {}): string {
  return `${JSON.stringify(
    {
      session_id: id,
      model: 'anthropic/claude-sonnet-4.6',
      platform: 'cli',
      session_start: '2026-09-18T10:15:00.123456',
      system_prompt: 'You are Hermes, an AI agent built by Nous Research.\n\nConversation started: Friday, September 18, 2026',
      tools: [
        {
          type: 'function',
          function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
        },
      ],
      message_count: messages.length,
      ...extra,
      messages,
    },
    null,
    2,
  )}\n`;
}

/** A request dump (hermes-reference.md §3.3) whose body holds the given wire messages. */
export function requestDump(sessionId: string, messages: unknown[]): string {
  return `${JSON.stringify(
    {
      timestamp: '2026-09-18T10:22:55.523000',
      session_id: sessionId,
      reason: 'provider_error',
      request: {
        method: 'POST',
        url: 'https://openrouter.ai/api/v1/chat/completions',
        headers: { Authorization: 'Bearer [REDACTED]', 'Content-Type': 'application/json' },
        body: { model: 'openai/gpt-5.5', stream: true, messages, tools: [{ type: 'function', function: { name: 'read_file', parameters: {} } }] },
      },
      error: { type: 'BadRequestError', message: 'context length exceeded', status_code: 400 },
    },
    null,
    2,
  )}\n`;
}

/** One turn-trace line (schemas/turn-trace.schema.json). */
export function traceLine(sessionId: string, userMessage: unknown, messages: unknown[], extra: Msg = {}): string {
  return JSON.stringify({ kind: 'turn-trace', version: 1, sessionId, systemPrompt: 'You are Hermes.', userMessage, ...extra, messages });
}

/** The text before the first occurrence of `marker` (plus `extra` characters of it). */
function cutAt(text: string, marker: string, extra = 0, occurrence = 1): string {
  let at = -1;
  for (let k = 0; k < occurrence; k++) {
    at = text.indexOf(marker, at + 1);
    if (at < 0) throw new Error(`cut marker not found: ${marker}`);
  }
  return text.slice(0, at + extra);
}

const FOUR = [
  U('read notes.md', { timestamp: 1789726500.1 }),
  A('Your notes say: ship on Friday.', { timestamp: 1789726502.4 }),
  U('and the backlog?', { timestamp: 1789726600.0 }),
  A('Three open items, the oldest from June.', { timestamp: 1789726605.0 }),
];
const SIX_WIRE = [
  { role: 'system', content: 'You are Hermes.' },
  U('q1 read notes.md'),
  A('a1 ship on Friday'),
  U('q2 and the backlog?'),
  A('a2 three open items'),
  U('q3 which one first?'),
];

// ---------------------------------------------------------------------------------------------
// SQLite files, built in memory with sql.js (deterministic bytes).

export const HERMES_SCHEMA = `
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE system_prompts (hash TEXT PRIMARY KEY, prompt TEXT NOT NULL);
CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT, model TEXT, system_prompt TEXT, system_prompt_hash TEXT,
  parent_session_id TEXT, started_at REAL, ended_at REAL, end_reason TEXT, tool_names TEXT);
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT,
  tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL, finish_reason TEXT, reasoning TEXT,
  _compressed_summary INTEGER DEFAULT 0, active INTEGER DEFAULT 1, compacted INTEGER DEFAULT 0, api_content TEXT,
  display_kind TEXT, display_metadata TEXT);
INSERT INTO schema_version VALUES (30);
`;

/** The same columns without keys or constraints: a hostile database can hold anything. */
const LOOSE_SCHEMA = `
CREATE TABLE system_prompts (hash TEXT, prompt TEXT);
CREATE TABLE sessions (id, source, system_prompt, system_prompt_hash, parent_session_id, started_at, end_reason, tool_names);
CREATE TABLE messages (id, session_id, role, content, tool_call_id, tool_calls, timestamp, _compressed_summary DEFAULT 0,
  active DEFAULT 1, compacted DEFAULT 0, api_content, display_kind, display_metadata);
`;

function sqliteFile(SQL: SqlJsStatic, sql: string): Uint8Array {
  const db = new SQL.Database();
  try {
    db.run('PRAGMA page_size = 1024');
    db.run(sql);
    return db.export();
  } finally {
    db.close();
  }
}

const session = (id: string, startedAt: number, extra = ''): string =>
  `INSERT INTO sessions (id, source, model, system_prompt, started_at${extra ? ', parent_session_id, end_reason' : ''}) VALUES ('${id}', 'cli', 'openai/gpt-5.5', 'You are Hermes.', ${startedAt}${extra});`;
const message = (id: number, sessionId: string, role: string, content: string, ts: number): string =>
  `INSERT INTO messages (id, session_id, role, content, timestamp) VALUES (${id}, '${sessionId}', '${role}', ${content}, ${ts});`;
const sq = (s: string): string => `'${s.replace(/'/g, "''")}'`;

// ---------------------------------------------------------------------------------------------

export interface CorpusFile {
  name: string;
  bytes: Uint8Array;
}

export async function badCorpus(): Promise<CorpusFile[]> {
  const SQL = await initSqlJs();
  const files: CorpusFile[] = [];
  const add = (name: string, data: string | Uint8Array): void => {
    files.push({ name, bytes: typeof data === 'string' ? utf8(data) : data });
  };

  // --- Session JSON cut at several points -------------------------------------------------------
  const headerCut = sessionJson('trunc_in_header', FOUR);
  add('session_trunc_in_header.json', cutAt(headerCut, 'Conversation started'));
  const afterBracket = sessionJson('trunc_after_bracket', FOUR);
  add('session_trunc_after_bracket.json', cutAt(afterBracket, '"messages": [', '"messages": ['.length));
  add('session_trunc_mid_message.json', cutAt(sessionJson('trunc_mid_message', FOUR), 'oldest from June'));
  const between = sessionJson('trunc_between', [...FOUR, U('one more thing'), A('sure')]);
  const fifth = between.indexOf('"one more thing"');
  add('session_trunc_between_messages.json', between.slice(0, between.lastIndexOf('},', fifth) + 3));
  const escaped = sessionJson('trunc_after_backslash', [...FOUR.slice(0, 3), A('She said "ship it" and C:\\temp\\x is [the] {path}')]);
  add('session_trunc_after_backslash.json', cutAt(escaped, '\\"ship', 1));
  add('session_trunc_before_close.json', cutAt(sessionJson('trunc_before_close', FOUR), '\n  ]\n}'));
  const brackets = sessionJson('trunc_brackets', [
    U('parse "[1, {2}]" and \\"}]'),
    A(']}]} done {[{['),
    U('"messages": ['),
    A('ok'),
    U('last {"role": "user"'),
  ]);
  add('session_trunc_brackets_in_strings.json', cutAt(brackets, 'last {'));

  // --- Request dumps cut at several points -----------------------------------------------------
  const dumpA = requestDump('dumptrunca', SIX_WIRE);
  add('request_dump_dumptrunca_20260918_102255_523000.json', cutAt(dumpA, 'which one first'));
  const dumpB = requestDump('dumptruncb', SIX_WIRE);
  add('request_dump_dumptruncb_20260918_102255_523000.json', cutAt(dumpB, 'Bearer'));
  const dumpC = requestDump('dumptruncc', SIX_WIRE);
  add('request_dump_dumptruncc_20260918_102255_523000.json', cutAt(dumpC, '"name": "read_file"'));
  add(
    'request_dump_dumpshape_20260918_102255_523000.json',
    JSON.stringify({ session_id: 'dumpshape', request: { body: { messages: { 0: SIX_WIRE[0], 1: SIX_WIRE[1] } } } }, null, 2),
  );
  // A complete session beside a dump of it that was cut while being written.
  add('session_dumppair.json', sessionJson('dumppair', FOUR));
  add(
    'request_dump_dumppair_20260918_102300_000000.json',
    cutAt(
      requestDump('dumppair', [{ role: 'system', content: 'You are Hermes.' }, ...FOUR.slice(0, 3).map(({ role, content }) => ({ role, content }))]),
      'context length',
    ),
  );

  // --- Turn-trace JSONL ----------------------------------------------------------------------------
  const t = (sid: string, n: number, more: Msg = {}): string => traceLine(sid, `q${n}`, [U(`q${n}`), A(`a${n}`)], more);
  const fourLines = [t('tr', 1), t('tr', 2), t('tr', 3), t('tr', 4)];
  add('trace_half_written.trace.jsonl', `${fourLines.slice(0, 3).join('\n')}\n${fourLines[3].slice(0, 60)}`);
  add('trace_broken_middle.trace.jsonl', `${t('tb', 1)}\n{"kind":"turn-trace","version":1,"sessionId":"tb","messa\n${t('tb', 2)}\n`);
  add('trace_compaction_null.trace.jsonl', `${t('tn', 1)}\n${t('tn', 2, { compaction: null })}\n${t('tn', 3)}\n`);
  add('trace_negative_history.trace.jsonl', `${t('th', 1)}\n${t('th', 2)}\n${t('th', 3, { historyLength: -1 })}\n${t('th', 4, { historyLength: 1.5 })}\n`);
  add(
    'trace_wrong_shapes.trace.jsonl',
    [
      'null',
      '[]',
      '5',
      '"turn-trace"',
      JSON.stringify({ kind: 'turn-trace', version: 2, sessionId: 'tw', systemPrompt: 'S', userMessage: 'q', messages: [] }),
      JSON.stringify({ kind: 'turn-trace', version: 1, sessionId: 'tw', systemPrompt: 'S', userMessage: 'q', messages: {} }),
      JSON.stringify({ kind: 'turn-trace', version: 1, sessionId: 'tw', systemPrompt: 'S', userMessage: 7, messages: [] }),
      JSON.stringify({ kind: 'turn-trace', version: 1, sessionId: '', systemPrompt: 'S', userMessage: 'q', messages: [] }),
      JSON.stringify({ kind: 'turn-trace', version: 1, sessionId: 'tw', systemPrompt: null, userMessage: 'q', messages: [] }),
      traceLine('tw', 'q', [U('q'), { role: 'wizard', content: 'x' }, A(42), A('a')]),
      traceLine('tw', 'q2', [A('no user row first')]),
      traceLine('tw', 'q3', [U('q3'), A('a3')]),
    ].join('\n') + '\n',
  );
  add(
    'trace_compaction_without_user_row.trace.jsonl',
    `${traceLine('tp', 'old ask', [U('old ask'), A('old answer')])}\n${traceLine('tc2', 'new ask', [A('new answer')], {
      pluginContext: 'PLUGIN-NEW',
      compaction: { mode: 'rotation', messages: [U(CARRIER, { _compressed_summary: true }), U('old ask')] },
    })}\n`,
  );
  add('trace_interleaved_sessions.trace.jsonl', `${t('ti1', 1)}\n${t('ti2', 1)}\n${traceLine('ti1', 'q2', [U('q2'), A('a2')])}\n`);
  add(
    'trace_special_tokens.trace.jsonl',
    `${traceLine('tt', 'say <|endoftext|> then <|im_start|>user', [U('say <|endoftext|> then <|im_start|>user', { api_content: 'say <|endoftext|> then <|im_start|>user\n\n<|fim_prefix|>PLUGIN<|im_end|>' }), A('<|endofprompt|> ok')], { pluginContext: '<|fim_prefix|>PLUGIN<|im_end|>', systemPrompt: '<|endoftext|>You are Hermes.<|im_sep|>' })}\n`,
  );
  const [u0, u1, u2] = traceLine('tu', 'q2 BYTES', [U('q2 BYTES'), A('a2')]).split('BYTES');
  const bad = [0xc3, 0x28, 0xff];
  add('trace_invalid_utf8.trace.jsonl', concat(`${t('tu', 1)}\n`, u0, bad, u1, bad, u2, `\n${t('tu', 3)}\n`));
  add('trace_crlf.trace.jsonl', `${t('tc', 1)}\r\n${t('tc', 2)}\r\n`);

  // --- Encoding ------------------------------------------------------------------------------------
  const withBytes = (id: string, bytes: number[]): Uint8Array => {
    const doc = sessionJson(id, [U('before BYTES after'), A('fine'), U('q2'), A('a2')]);
    const [head, tail] = doc.split('BYTES');
    return concat(head, bytes, tail);
  };
  add('session_invalid_utf8.json', withBytes('invalid_utf8', [0xff, 0xfe, 0x20, 0xc0, 0xaf, 0x20, 0xe2, 0x82]));
  add('session_lone_surrogate_raw.json', withBytes('lone_surrogate_raw', [0xed, 0xa0, 0x80]));
  add(
    'session_lone_surrogate_escaped.json',
    sessionJson(
      'lone_surrogate_escaped',
      [
        U('high \ud800 alone', { api_content: 'high \ud800 alone\n\nPLUGIN \udfff' }),
        A('low \udc00 then reversed \udc00\ud800'),
        U('emoji \ud83d\ude00 ok'),
        A('\ud83d'),
      ],
      { system_prompt: 'You are Hermes \udbff.' },
    ),
  );
  add('session_bom.json', concat([0xef, 0xbb, 0xbf], sessionJson('bom', FOUR)));

  // --- Wrong shapes --------------------------------------------------------------------------------
  add('session_no_messages.json', JSON.stringify({ session_id: 'no_messages', system_prompt: 'S', message_count: 3 }, null, 2));
  add('session_messages_not_list.json', JSON.stringify({ session_id: 'messages_not_list', system_prompt: 'S', messages: { 0: U('q') } }, null, 2));
  add('session_content_number.json', sessionJson('content_number', [U('q1'), A('a1'), U(42), A(3.14), U('q3'), A('a3')]));
  add('session_content_object.json', sessionJson('content_object', [U('q1'), A('a1'), U({ text: 'q2' }), A({ type: 'text', text: 'a2' }), U('q3'), A('a3')]));
  add(
    'session_unknown_roles.json',
    sessionJson('unknown_roles', [
      U('q1'),
      { role: 'wizard', content: 'x' },
      A('a1'),
      { role: 'developer', content: 'y' },
      { role: 42, content: 'z' },
      { content: 'no role' },
      'a string row',
      null,
      U('q2'),
      A('a2'),
    ]),
  );
  add(
    'session_tool_without_id.json',
    sessionJson('tool_without_id', [
      U('read it'),
      A('', { tool_calls: [call('call_1', 'read_file', { path: 'a.md' })] }),
      T(undefined, '{"content":"# a"}', { tool_name: 'read_file' }),
      A('done'),
      U('q2'),
      A('a2'),
    ]),
  );
  add('session_top_level_array.json', JSON.stringify([U('q'), A('a')], null, 2));
  add(
    'session_bad_parts.json',
    sessionJson('bad_parts', [
      U([null, 1, 'str', { type: 'text' }, { type: 'text', text: 5 }, [1], { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }], {
        timestamp: 1e308,
      }),
      A([null]),
      U([]),
      A('x', { tool_calls: 'not a list' }),
      U('y', { api_content: 5 }),
      A('z', { tool_calls: [null, 1, { function: null }, { function: { name: 5, arguments: { a: [1, 2] } } }] }),
      U('w', { api_content: '', display_kind: 7 }),
      A(null),
      U('v', { _compressed_summary: 'yes' }),
      A('end'),
    ]),
  );
  add('session_null_system_prompt.json', sessionJson('null_system_prompt', FOUR, { system_prompt: null }));
  add(
    'session_special_tokens.json',
    sessionJson(
      'special_tokens',
      [
        U('what is <|endoftext|>?'),
        A('<|im_start|>assistant\nIt ends a document.<|im_end|>'),
        U('<|fim_prefix|><|fim_middle|><|fim_suffix|><|endofprompt|>'),
        A('ok'),
      ],
      { system_prompt: '<|im_start|>system\nYou are Hermes.<|im_end|>' },
    ),
  );
  add(
    'session_answer_before_ask.json',
    sessionJson('answer_before_ask', [A('Welcome back! What shall we do?'), U('read notes.md'), A('Your notes say: ship on Friday.')]),
  );
  add(
    'session_dup_unsorted_ids.json',
    sessionJson('dup_unsorted_ids', [
      U('read both', { timestamp: 30 }),
      A('', { timestamp: 10, tool_calls: [call('call_1', 'read_file', { path: 'a' }), call('call_1', 'read_file', { path: 'b' })] }),
      T('call_1', 'A', { timestamp: 20 }),
      T('call_1', 'B', { timestamp: 5 }),
      A('both read', { timestamp: 1 }),
      U('again', { timestamp: 30 }),
      A('ok', { timestamp: 30 }),
    ]),
  );
  add(
    'session_carriers_only.json',
    sessionJson('carriers_only', [
      U(CARRIER, { _compressed_summary: true }),
      U('[Your active task list was preserved across context compression]\n- [ ] x'),
      A('continuing'),
      U('hidden handoff', { display_kind: 'hidden' }),
      A('ok'),
    ]),
  );

  // --- NUL bytes: each costs its line or message, never the file ---------------------------------
  const SIX = [...FOUR, U('q3'), A('a3')];
  /** The first `marker` in `text` becomes one NUL byte. */
  const withNul = (text: string, marker: string): Uint8Array => {
    const at = text.indexOf(marker);
    return concat(text.slice(0, at), [0x00], text.slice(at + marker.length));
  };
  const sixLines = [1, 2, 3, 4, 5, 6].map((n) => traceLine('tz', n === 3 ? 'q3 NUL' : `q${n}`, [U(n === 3 ? 'q3 NUL' : `q${n}`), A(`a${n}`)]));
  add('trace_nul_byte.trace.jsonl', withNul(`${sixLines.join('\n')}\n`, 'NUL'));
  add('trace_nul_padding.trace.jsonl', concat(`${t('tp0', 1)}\n${t('tp0', 2)}\n${t('tp0', 3)}\n`, new Uint8Array(2048)));
  add(
    'session_nul_in_string.json',
    withNul(
      sessionJson(
        'nul_in_string',
        SIX.map((m) => (m.content === 'Three open items, the oldest from June.' ? { ...m, content: 'Three NUL open items.' } : m)),
      ),
      'NUL',
    ),
  );
  add(
    'request_dump_dumpnul_20260918_102255_523000.json',
    withNul(
      requestDump(
        'dumpnul',
        SIX_WIRE.map((m) => (m.content === 'a1 ship on Friday' ? { ...m, content: 'a1 ship NUL on Friday' } : m)),
      ),
      'NUL',
    ),
  );

  // --- NaN, Infinity, -Infinity as Python's json.dump writes them (allow_nan=True, its default) ----
  // JSON.stringify cannot write them: a placeholder string is replaced by the bare token.
  const bare = (text: string): string => text.replace(/"@(NaN|Infinity|-Infinity)@"/g, '$1');
  add(
    'session_python_nan.json',
    bare(
      sessionJson(
        'python_nan',
        [U('read notes.md', { timestamp: '@NaN@' }), A('Your notes say: ship on Friday.', { timestamp: 1789726502.4, cost: '@Infinity@' }), FOUR[2], FOUR[3]],
        { estimated_cost_usd: '@-Infinity@' },
      ),
    ),
  );
  add('trace_python_nan.trace.jsonl', bare(`${t('tq', 1)}\n${traceLine('tq', 'q2', [U('q2', { timestamp: '@NaN@' }), A('a2')])}\n${t('tq', 3)}\n`));
  add(
    'request_dump_dumpnan_20260918_102255_523000.json',
    bare(
      requestDump(
        'dumpnan',
        SIX_WIRE.map((m, i) => (i === 2 ? { ...m, score: '@NaN@' } : m)),
      ),
    ),
  );

  // --- Repeated keys: Python's json keeps the last ---------------------------------------------------
  const stale = '  "messages": [\n    {\n      "role": "user",\n      "content": "stale ask from a list that is replaced"\n    }\n  ],\n';
  add('session_dup_messages.json', sessionJson('dup_messages', FOUR).replace('{\n', `{\n${stale}`));
  add(
    'session_dup_header_keys.json',
    sessionJson('dup_header_keys', FOUR).replace('{\n', '{\n  "session_id": "dup_header_keys_stale",\n  "system_prompt": "a stale prompt",\n  "tools": [],\n'),
  );
  add(
    'request_dump_dumpdup_20260918_102255_523000.json',
    requestDump('dumpdup', SIX_WIRE).replace('"stream": true,\n', `"stream": true,\n${stale.replace(/^ {2}/gm, '      ')}`),
  );
  add(
    'trace_dup_keys.trace.jsonl',
    `${t('tk', 1)}\n${traceLine('tk', 'q2', [U('q2'), A('a2')]).replace('{"kind"', '{"sessionId":"tk-stale","messages":[{"role":"user","content":"stale"}],"kind"')}\n`,
  );

  // --- Empty and binary ----------------------------------------------------------------------------
  add('empty.json', '');
  add('empty.trace.jsonl', '');
  add(
    'binary.bin',
    Uint8Array.from({ length: 512 }, (_, i) => (i * 131 + 7) & 0xff),
  );
  add(
    'session_binary.json',
    concat(
      [0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00],
      Uint8Array.from({ length: 200 }, (_, i) => (i * 31) & 0xff),
    ),
  );

  // --- SQLite ----------------------------------------------------------------------------------------
  add('other_schema.db', sqliteFile(SQL, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('not hermes');"));
  add(
    'state_bad_json_content.db',
    sqliteFile(
      SQL,
      HERMES_SCHEMA
        + session('bj', 1)
        + [
          message(1, 'bj', 'user', sq('q1'), 1),
          message(2, 'bj', 'assistant', 'char(0) || \'json:[{"type": "text", "te\'', 2),
          message(3, 'bj', 'user', "char(0) || 'json:'", 3),
          message(4, 'bj', 'assistant', sq('a2'), 4),
          message(5, 'bj', 'user', 'char(0) || \'json:[{"type": "text", "text": "q3"}]\'', 5),
          message(6, 'bj', 'assistant', sq('a3'), 6),
        ].join('\n'),
    ),
  );
  add(
    'state_dup_ids.db',
    sqliteFile(
      SQL,
      LOOSE_SCHEMA
        + `
    INSERT INTO sessions VALUES ('dup', 'cli', 'You are Hermes.', NULL, NULL, 1, NULL, NULL);
    INSERT INTO sessions VALUES ('dup', 'cli', 'You are a different Hermes.', NULL, NULL, 2, NULL, NULL);
    INSERT INTO messages (id, session_id, role, content, timestamp) VALUES (1, 'dup', 'user', 'q1', 1), (2, 'dup', 'assistant', 'a1', 2),
      (2, 'dup', 'user', 'q2', 3), (3, 'dup', 'assistant', 'a2', 4);`,
    ),
  );
  add(
    'state_unsorted_ids.db',
    sqliteFile(
      SQL,
      HERMES_SCHEMA
        + session('uns', 1)
        + [
          message(3, 'uns', 'user', sq('q2'), 10),
          message(1, 'uns', 'user', sq('q1'), 40),
          message(4, 'uns', 'assistant', sq('a2'), 20),
          message(2, 'uns', 'assistant', sq('a1'), 30),
        ].join('\n'),
    ),
  );
  const good = sqliteFile(
    SQL,
    HERMES_SCHEMA + session('trunc', 1) + [message(1, 'trunc', 'user', sq('q1'), 1), message(2, 'trunc', 'assistant', sq('a1'), 2)].join('\n'),
  );
  add('state_truncated.db', good.slice(0, 5000));
  add(
    'state_orphan_rows.db',
    sqliteFile(
      SQL,
      HERMES_SCHEMA
        + session('known', 1)
        + [
          message(1, 'known', 'user', sq('q1'), 1),
          message(2, 'known', 'assistant', sq('a1'), 2),
          message(3, 'ghost', 'user', sq('orphan question'), 3),
          message(4, 'ghost', 'assistant', sq('orphan answer'), 4),
        ].join('\n'),
    ),
  );
  add(
    'state_self_parent.db',
    sqliteFile(
      SQL,
      HERMES_SCHEMA
        + session('loop', 1, ", 'loop', 'compression'")
        + [
          message(1, 'loop', 'user', sq('q1'), 1),
          message(2, 'loop', 'assistant', sq('a1'), 2),
          message(3, 'loop', 'user', sq('q2'), 3),
          message(4, 'loop', 'assistant', sq('a2'), 4),
        ].join('\n'),
    ),
  );
  add(
    'state_null_system_prompt.db',
    sqliteFile(
      SQL,
      HERMES_SCHEMA
        + `
    INSERT INTO sessions (id, source, system_prompt, system_prompt_hash, started_at) VALUES ('nosp', 'cli', NULL, NULL, 1), ('missinghash', 'cli', NULL, 'feedface', 2);`
        + [
          message(1, 'nosp', 'user', sq('q1'), 1),
          message(2, 'nosp', 'assistant', sq('a1'), 2),
          message(3, 'missinghash', 'user', sq('q1'), 3),
          message(4, 'missinghash', 'assistant', sq('a1'), 4),
        ].join('\n'),
    ),
  );
  const walBase = sqliteFile(
    SQL,
    HERMES_SCHEMA + session('gw', 1) + [message(1, 'gw', 'user', sq('q1'), 1), message(2, 'gw', 'assistant', sq('a1'), 2)].join('\n'),
  );
  add('state_garbage_wal.db', walBase);
  add(
    'state_garbage_wal.db-wal',
    concat(
      [0x37, 0x7f, 0x06, 0x82, 0x00, 0x2d, 0xe2, 0x18, 0x00, 0x00, 0x10, 0x00],
      Uint8Array.from({ length: 4200 }, (_, i) => (i * 97 + 13) & 0xff),
    ),
  );
  add(
    'state_non_integer_ids.db',
    sqliteFile(
      SQL,
      LOOSE_SCHEMA
        + `
    INSERT INTO sessions VALUES ('nonint', 'cli', 'You are Hermes.', NULL, NULL, 1, NULL, NULL);
    INSERT INTO messages (id, session_id, role, content, timestamp) VALUES (1, 'nonint', 'user', 'q1', 1), (1.5, 'nonint', 'assistant', 'a1', 2),
      (2, 'nonint', 'wizard', 'x', 3), ('abc', 'nonint', 'oracle', 'y', 4), (NULL, 'nonint', 'user', 'q2', 5);`,
    ),
  );
  add(
    'state_content_kinds.db',
    sqliteFile(
      SQL,
      LOOSE_SCHEMA
        + `
    INSERT INTO sessions VALUES ('kinds', 'cli', 'You are Hermes.', NULL, NULL, 1, NULL, '{"not": "a list"}');
    INSERT INTO messages (id, session_id, role, content, timestamp, tool_calls, display_metadata, api_content) VALUES
      (1, 'kinds', 'user', x'00ff10', 1, NULL, '{bad', 5), (2, 'kinds', 'assistant', 42, 2, '[{"function": {"name": 1}}]', NULL, x'00'),
      (3, 'kinds', 'user', 4.5, 3, NULL, NULL, NULL), (4, 'kinds', NULL, 'null role', 4, NULL, NULL, NULL), (5, 'kinds', 'wizard', 'x', 5, NULL, NULL, NULL),
      (6, 'kinds', 'user', 'q', 6, 'null', NULL, NULL), (7, 'kinds', 'assistant', 'ok', 7, '{"function": null}', NULL, NULL);`,
    ),
  );
  add(
    'state_special_tokens.db',
    sqliteFile(
      SQL,
      HERMES_SCHEMA
        + session('sptok', 1)
        + [message(1, 'sptok', 'user', sq('<|endoftext|><|im_start|>user'), 1), message(2, 'sptok', 'assistant', sq('<|im_end|>'), 2)].join('\n'),
    ),
  );
  add(
    'state_wal_writer.db',
    sqliteFile(
      SQL,
      HERMES_SCHEMA
        + session('live', 1)
        + [
          message(1, 'live', 'user', sq('read notes.md'), 1),
          message(2, 'live', 'assistant', sq('Your notes say: ship on Friday.'), 2),
          message(3, 'live', 'user', sq('and the backlog?'), 3),
          message(4, 'live', 'assistant', sq('Three open items.'), 4),
        ].join('\n'),
    ),
  );
  return files;
}

export async function writeBadCorpus(dir: string): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const files = await badCorpus();
  for (const f of files) writeFileSync(join(dir, f.name), f.bytes);
  return files.map((f) => f.name);
}

// ---------------------------------------------------------------------------------------------
// Generated at test time, never stored.

export const deepArray = (depth: number, inner = ''): string => '['.repeat(depth) + inner + ']'.repeat(depth);
export const deepObject = (depth: number, inner = '1'): string => '{"a":'.repeat(depth) + inner + '}'.repeat(depth);

/** Inputs nested `depth` levels deep (10,000 by default), written into `dir`; returns their names. */
export function writeDeepCases(dir: string, SQL: SqlJsStatic, depth = 10_000): string[] {
  const names: string[] = [];
  const put = (name: string, data: string | Uint8Array): void => {
    writeFileSync(join(dir, name), data);
    names.push(name);
  };
  const head =
    '{"session_id": "%ID%", "system_prompt": "You are Hermes.", "messages": [\n{"role": "user", "content": "q1"},\n{"role": "assistant", "content": "a1"},\n';
  const tail = ',\n{"role": "assistant", "content": "a2"},\n{"role": "user", "content": "q3"},\n{"role": "assistant", "content": "a3"}\n]}\n';
  put('deep_document.json', `{"session_id": "deep_document", "messages": ${deepArray(depth)}}`);
  put('session_deep_document_array.json', deepArray(depth));
  put(
    'session_deep_content.json',
    head.replace('%ID%', 'deep_content') + `{"role": "user", "content": [{"type": "text", "text": "q2", "extra": ${deepArray(depth)}}]}` + tail,
  );
  put(
    'session_deep_content_list.json',
    head.replace('%ID%', 'deep_content_list') + `{"role": "user", "content": [${deepArray(depth, '{"type": "text", "text": "q2"}')}]}` + tail,
  );
  put(
    'session_deep_tool_args.json',
    head.replace('%ID%', 'deep_tool_args')
      + `{"role": "user", "content": "q2"},\n{"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": ${deepObject(depth)}}}]},\n{"role": "tool", "tool_call_id": "c1", "content": "r"}`
      + tail,
  );
  put(
    'session_deep_extra_key.json',
    head.replace('%ID%', 'deep_extra_key') + `{"role": "user", "content": "q2", "display_metadata": ${deepObject(depth)}}` + tail,
  );
  put('session_deep_truncated.json', head.replace('%ID%', 'deep_truncated') + `{"role": "user", "content": ${deepArray(depth).slice(0, depth + depth / 2)}`);
  put(
    'trace_deep_user_message.trace.jsonl',
    `${traceLine('td', 'q1', [U('q1'), A('a1')])}\n{"kind": "turn-trace", "version": 1, "sessionId": "td", "systemPrompt": "S", "userMessage": [{"type": "text", "text": "q2", "x": ${deepArray(depth)}}], "messages": [{"role": "user", "content": "q2"}, {"role": "assistant", "content": "a2"}]}\n${traceLine('td', 'q3', [U('q3'), A('a3')])}\n`,
  );
  const deepJson = `char(0) || 'json:' || '${'['.repeat(depth)}{"type": "text", "text": "q2"}${']'.repeat(depth)}'`;
  put(
    'state_deep_json_content.db',
    sqliteFile(
      SQL,
      HERMES_SCHEMA
        + session('deepdb', 1)
        + [
          message(1, 'deepdb', 'user', sq('q1'), 1),
          message(2, 'deepdb', 'assistant', sq('a1'), 2),
          message(3, 'deepdb', 'user', deepJson, 3),
          message(4, 'deepdb', 'assistant', sq('a2'), 4),
          message(5, 'deepdb', 'user', sq('q3'), 5),
          message(6, 'deepdb', 'assistant', sq('a3'), 6),
        ].join('\n'),
    ),
  );
  return names;
}

export type HugeKind = 'session-last-message' | 'session-system-prompt' | 'trace-last-line';

/**
 * Writes one file whose single line is `bytes` long (200 MB by default), streamed so the writer
 * never holds it in memory: a session snapshot cut inside its last message or inside its system
 * prompt, or a turn trace whose second line is cut while being written.
 */
export function writeHugeSingleLine(path: string, kind: HugeKind, bytes = 200 * 1024 * 1024): void {
  const head =
    kind === 'session-last-message'
      ? '{"session_id": "huge", "system_prompt": "You are Hermes.", "messages": [{"role": "user", "content": "q1"}, {"role": "assistant", "content": "a1"}, {"role": "user", "content": "q2"}, {"role": "assistant", "content": "'
      : kind === 'session-system-prompt'
        ? '{"session_id": "huge_prompt", "system_prompt": "'
        : `${traceLine('huge', 'q1', [U('q1'), A('a1')])}\n{"kind": "turn-trace", "version": 1, "sessionId": "huge", "systemPrompt": "You are Hermes.", "userMessage": "q2", "messages": [{"role": "user", "content": "`;
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, head);
    let written = Buffer.byteLength(head);
    const chunk = Buffer.from('Lorem ipsum \\"dolor\\" sit amet, <|endoftext|> \\u00e9 \\\\ '.repeat(20_000));
    while (written + chunk.length <= bytes) {
      writeSync(fd, chunk);
      written += chunk.length;
    }
    if (written < bytes) writeSync(fd, Buffer.alloc(bytes - written, 0x61));
  } finally {
    closeSync(fd);
  }
}

/** A writer that keeps a state.db open in WAL mode (its path the argument): see the file's docstring. */
export const WAL_WRITER_PY = join(__dirname, 'wal_writer.py');
