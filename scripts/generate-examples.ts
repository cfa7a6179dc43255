// Writes the example transcripts under examples/ (run: npx tsx scripts/generate-examples.ts [--out DIR]).
// Each scenario is scripted here and played through test/support/synthesize.ts, so the files hold what
// Hermes would have stored; each folder's README states what the inspector should find, computed
// from the same data. Deterministic: two runs give byte-identical files.

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import type { SqlJsStatic } from 'sql.js';
import {
  AgentRun,
  SUMMARY_HEADING,
  SUMMARY_PREFIX,
  TODO_SNAPSHOT_HEADER,
  TOOLS,
  buildSystemPrompt,
  isoTimestamp,
  sessionIdAt,
  sha256Hex,
  storedRows,
  toSessionJson,
  toStateDb,
  toTurnTraceJsonl,
  wireMessages,
} from '../test/support/synthesize';
import type { CallSpec, PromptSpec, SessionInit, SynthRow, SynthSession, TurnSpec, WireMessage } from '../test/support/synthesize';

// `--out DIR` writes elsewhere, so a test can check the committed examples are reproducible.
const outFlag = process.argv.indexOf('--out');
const ROOT = outFlag >= 0 ? process.argv[outFlag + 1] : join(__dirname, '..', 'examples');
const OPENROUTER = 'https://openrouter.ai/api/v1';
const CWD = '/home/alice/src/ledger-sync';

const utc = (y: number, mo: number, d: number, h: number, mi: number): number => Date.UTC(y, mo - 1, d, h, mi) / 1000;

function write(rel: string, data: string | Uint8Array): void {
  const path = join(ROOT, rel);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, data);
}

const json = (value: unknown): string => JSON.stringify(value);
const workspace = (branch: string, changes: string[]): string =>
  `Workspace: ~/src/ledger-sync (branch ${branch}, ${changes.length === 0 ? 'clean' : `${changes.length} uncommitted changes: ${changes.join(', ')}`})`;
const numbered = (text: string): string =>
  text
    .split('\n')
    .map((line, i) => `${String(i + 1).padStart(4, ' ')}|${line}`)
    .join('\n');
const readFile = (path: string, text: string): CallSpec => ({
  name: 'read_file',
  args: { path },
  result: json({ content: numbered(text), path, total_lines: text.split('\n').length }),
});
const terminal = (command: string, output: string, exitCode = 0): CallSpec => ({
  name: 'terminal',
  args: { command },
  result: json({ output, exit_code: exitCode }),
});
const patch = (path: string, oldString: string, newString: string): CallSpec => ({
  name: 'patch',
  args: { new_string: newString, old_string: oldString, path },
  result: json({ success: true, path, replacements: 1 }),
});
const writeFile = (path: string, content: string): CallSpec => ({
  name: 'write_file',
  args: { content, path },
  result: json({ success: true, path, bytes_written: Buffer.byteLength(content) }),
});

const ALICE_MEMORY = [
  'ledger-sync (~/src/ledger-sync) imports bank CSV exports into a local SQLite ledger.',
  'Tests: `make test` (all) and `make test-importer`.',
  'The homelab pi4 runs Hermes and the nightly restic backups to the NAS.',
];
const ALICE_PROFILE = [
  'Alice, Lisbon (Europe/Lisbon). Prefers short answers with the command that was run.',
  'Prefers SQLite for local tools; Postgres only for the shared reporting box.',
];

function prompt(spec: Omit<PromptSpec, 'memory' | 'userProfile'>): string {
  return buildSystemPrompt({ ...spec, memory: ALICE_MEMORY, userProfile: ALICE_PROFILE });
}

function session(init: Omit<SessionInit, 'tools' | 'baseUrl' | 'cwd'> & Partial<Pick<SessionInit, 'baseUrl' | 'cwd'>>): SessionInit {
  return { baseUrl: OPENROUTER, cwd: CWD, tools: TOOLS, ...init };
}

// ---------------------------------------------------------------------------------------------
// Helpers for the READMEs: where two requests stop sharing a prefix, and what each stored row is.

interface Break {
  index: number;
  role: string;
  /** UTF-8 byte offset inside the content, when both messages have the same role and string content. */
  byte: number | null;
}

/** First wire message where `next` stops extending `prev` (null: prev is a prefix of next). */
function firstBreak(prev: WireMessage[], next: WireMessage[]): Break | null {
  for (let i = 0; i < Math.min(prev.length, next.length); i++) {
    if (json(prev[i]) === json(next[i])) continue;
    const a = prev[i].content;
    const b = next[i].content;
    let byte: number | null = null;
    if (prev[i].role === next[i].role && typeof a === 'string' && typeof b === 'string') {
      let k = 0;
      while (k < a.length && k < b.length && a[k] === b[k]) k++;
      byte = Buffer.byteLength(a.slice(0, k));
    }
    return { index: i, role: next[i].role, byte };
  }
  return prev.length <= next.length ? null : { index: next.length, role: '(end)', byte: null };
}

function describeBreak(b: Break | null): string {
  if (b === null) return 'no break (the previous request is a prefix)';
  return `break at wire message ${b.index} (${b.role})${b.byte === null ? '' : `, content byte ${b.byte}`}`;
}

function injections(row: SynthRow): string {
  const api = row.api_content;
  if (typeof api !== 'string') return Array.isArray(row.content) ? 'list content' : 'no sidecar';
  const parts: string[] = [];
  if (api.includes('<memory-context>')) parts.push('memory');
  if (/\n\n(Workspace|Host): /.test(api)) parts.push('plugin');
  if (api.includes('\n\n[Voice channel now:') || api.includes("\n\n[System note: The user's previous session")) parts.push('gateway note');
  return `sidecar: ${parts.join(' + ')}`;
}

function describeRow(row: SynthRow): string {
  if (row._compressed_summary) return `summary carrier (${row.role}, _compressed_summary=1)`;
  if (row.display_kind) return `todo snapshot (user, display_kind=${row.display_kind})`;
  if (row.role === 'tool') return `tool result (${row.tool_name})`;
  if (row.role === 'assistant') {
    return row.tool_calls ? `assistant → ${row.tool_calls.map((c) => c.function.name).join(' + ')}` : 'assistant reply';
  }
  const text = typeof row.content === 'string' ? row.content : row.content.map((p) => (p.type === 'text' ? p.text : `[${p.type}]`)).join(' ');
  const short = text.length > 48 ? `${text.slice(0, 45)}…` : text;
  return `user "${short.replace(/\|/g, '\\|').replace(/\n/g, ' ')}" (${injections(row)})`;
}

/** A markdown table of every messages row of a state.db, with the id of the row each copy repeats. */
function rowTable(sessions: SynthSession[]): string {
  const stored = storedRows(sessions);
  const lines = ['| id | session | active | compacted | row | copy of |', '|---:|---|:-:|:-:|---|---|'];
  for (const s of stored) {
    const same = stored.find((o) => o.id < s.id && json(o.row) === json(s.row));
    lines.push(`| ${s.id} | ${s.sessionId} | ${s.active ? 1 : 0} | ${s.compacted ? 1 : 0} | ${describeRow(s.row)} | ${same ? `#${same.id}` : ''} |`);
  }
  return lines.join('\n');
}

function promptDifference(a: string, b: string): string {
  let k = 0;
  while (k < a.length && k < b.length && a[k] === b[k]) k++;
  const lineOf = (s: string): string => s.slice(s.lastIndexOf('\n', k - 1) + 1, s.indexOf('\n', k) < 0 ? s.length : s.indexOf('\n', k));
  const lineNo = a.slice(0, k).split('\n').length;
  return `UTF-8 byte ${Buffer.byteLength(a.slice(0, k))} (character ${k}), line ${lineNo}: \`${lineOf(a)}\` → \`${lineOf(b)}\``;
}

// ---------------------------------------------------------------------------------------------
// examples/sidecars: a Discord session where every string turn carries injected context.

function sidecarsExample(): void {
  const startedAt = utc(2026, 9, 18, 10, 15);
  const model = 'openai/gpt-5.5';
  const id = sessionIdAt(startedAt, 'a1b2c3');
  const systemPrompt = prompt({
    model,
    provider: 'openrouter',
    platform: 'discord',
    startedAt,
    cwd: CWD,
    sessionContext: ['**Source:** Discord (server: Nous Lab, channel: #ledger-sync)', '**User:** alice', '**Connected platforms:** discord, cli'],
  });
  const run = new AgentRun(
    session({ id, source: 'discord', model, provider: 'openrouter', title: 'Sync rewrite: what is left', systemPrompt, startedAt }),
    1801,
  );
  const ws = workspace('sync-rewrite', ['src/ledger_sync/importer.py', 'tests/test_importer.py']);
  const datesPy = [
    'from datetime import date, datetime',
    '',
    'DATE_FORMAT = "%m/%d/%Y"',
    '',
    '',
    'def parse_date(raw: str) -> date:',
    '    return datetime.strptime(raw.strip(), DATE_FORMAT).date()',
  ].join('\n');

  // Reasoning only appears on the last turn's rows: they come after the dumped request, so the
  // dump does not depend on whether a replay copies reasoning into reasoning_content (§1.7).
  const turns: TurnSpec[] = [
    {
      user: "read notes.md and tell me what's left for the sync rewrite",
      memory: '- The sync rewrite is tracked in notes.md at the repo root.\n- Alice asked to finish the rewrite before the October bank statements arrive.',
      plugin: ws,
      steps: [
        {
          text: "I'll read the notes first.",
          calls: [
            readFile(
              'notes.md',
              [
                '# Sync rewrite',
                '',
                '- [x] split importer into parse / normalize / write',
                '- [ ] Banco Azul exports: DD/MM/YYYY dates',
                '- [ ] dedupe on (account, date, amount, memo)',
                '- [ ] `ledger-sync watch`: debounce file events',
              ].join('\n'),
            ),
          ],
        },
      ],
      reply:
        'Three items are still open in notes.md:\n\n1. Date parsing for Banco Azul exports (DD/MM/YYYY).\n2. De-duplication on (account, date, amount, memo).\n3. Debouncing file events in `ledger-sync watch`.\n\nThe importer split is done.',
    },
    {
      user: 'run the importer tests',
      plugin: ws,
      gatewayNotes: '[Voice channel now: dev-vc (2 members)]',
      steps: [
        {
          text: 'Running the importer test module.',
          calls: [
            terminal(
              'make test-importer',
              'pytest tests/test_importer.py -q\n..F.\nFAILED tests/test_importer.py::test_parse_banco_azul_dates - ValueError: month must be in 1..12\n1 failed, 3 passed in 0.41s',
              2,
            ),
          ],
        },
      ],
      reply:
        '3 of 4 importer tests pass. `test_parse_banco_azul_dates` fails with `ValueError: month must be in 1..12`: the parser reads 13/09/2026 as month 13, so it still assumes MM/DD.',
    },
    {
      user: 'fix the date parsing bug you found',
      memory:
        '- Banco Azul exports use DD/MM/YYYY dates and a semicolon separator.\n- Alice wants bank-specific quirks kept in one table, not scattered if-branches.',
      steps: [
        { text: 'Let me look at the date parser.', calls: [readFile('src/ledger_sync/dates.py', datesPy)] },
        {
          text: 'The format is hard-coded to MM/DD. I will make it per bank and pass the bank from the importer.',
          calls: [
            patch(
              'src/ledger_sync/dates.py',
              'DATE_FORMAT = "%m/%d/%Y"\n\n\ndef parse_date(raw: str) -> date:\n    return datetime.strptime(raw.strip(), DATE_FORMAT).date()',
              'BANK_DATE_FORMATS = {"banco-azul": "%d/%m/%Y"}\nDEFAULT_DATE_FORMAT = "%m/%d/%Y"\n\n\ndef parse_date(raw: str, bank: str = "") -> date:\n    fmt = BANK_DATE_FORMATS.get(bank, DEFAULT_DATE_FORMAT)\n    return datetime.strptime(raw.strip(), fmt).date()',
            ),
            patch('src/ledger_sync/importer.py', 'date=parse_date(row["date"]),', 'date=parse_date(row["date"], bank=self.bank),'),
          ],
        },
        { text: 'Re-running the importer tests.', calls: [terminal('make test-importer', 'pytest tests/test_importer.py -q\n....\n4 passed in 0.38s')] },
      ],
      reply:
        'Fixed. `parse_date` now takes the format from `BANK_DATE_FORMATS` (Banco Azul: `%d/%m/%Y`, everything else keeps `%m/%d/%Y`), and the importer passes its bank through. All 4 importer tests pass.',
    },
    {
      user: 'what did we decide about the DB for the shared reports?',
      memory: '- 2026-09-02: keep SQLite for ledger-sync itself; only monthly aggregates go to the shared Postgres box (reports.lan) through a nightly export.',
      plugin: workspace('sync-rewrite', ['src/ledger_sync/dates.py', 'src/ledger_sync/importer.py', 'tests/test_importer.py']),
      reply:
        'On 2 September you decided to keep SQLite for ledger-sync itself and push only monthly aggregates to the Postgres box behind the shared reports (reports.lan), via a nightly export job. Nothing in the rewrite touches that yet.',
    },
    {
      user: [
        { type: 'text', text: "here's the dashboard after the fix. does the September total look right?" },
        { type: 'image_url', image_url: { url: 'https://cdn.discordapp.com/attachments/1187/2291/dashboard-sept.png' } },
      ],
      gatewayNotes: '[Voice channel now: dev-vc (3 members)]',
      steps: [
        {
          text: 'Checking the September sum in the ledger.',
          reasoning: 'The screenshot shows a September total of 4,212.37. Compare it with the ledger itself.',
          calls: [terminal(`sqlite3 ledger.db "SELECT printf('%.2f', SUM(amount)) FROM transactions WHERE date LIKE '2026-09-%'"`, '4212.37')],
        },
      ],
      replyReasoning: 'Ledger and dashboard agree; the earlier lower figure came from the dropped DD/MM rows.',
      reply:
        'Yes. The ledger sums September to €4,212.37, the same as the totals row in your screenshot. Before the fix, rows dated 13–30 September were rejected as invalid dates, which is why the total was lower before.',
    },
  ];
  for (const t of turns) run.turn(t);
  const s = run.session;
  write(`sidecars/session_${id}.json`, toSessionJson(s));

  // The dump: the first request of the last turn, which the provider rejected with a 429 before
  // the retry that produced the stored reply.
  const last = run.turns[run.turns.length - 1];
  const dumpAt = isoTimestamp(last.firstRequestAt);
  const dumpName = `request_dump_${id}_${dumpAt.replace(/[-:]/g, '').replace('T', '_').replace('.', '_')}.json`;
  write(
    `sidecars/${dumpName}`,
    JSON.stringify(
      {
        timestamp: dumpAt,
        session_id: id,
        reason: 'provider_error',
        request: {
          method: 'POST',
          url: `${OPENROUTER}/chat/completions`,
          headers: { Authorization: 'Bearer [REDACTED]', 'Content-Type': 'application/json' },
          body: { model, stream: true, messages: wireMessages(systemPrompt, last.firstRequestRows), tools: s.tools },
        },
        error: {
          type: 'RateLimitError',
          message: 'Error code: 429 - Rate limit exceeded: openai/gpt-5.5',
          status_code: 429,
          body: { error: { message: 'Rate limit exceeded: openai/gpt-5.5', code: 429 } },
        },
      },
      null,
      2,
    ),
  );

  const turnLines: string[] = [];
  const breakLines: string[] = [];
  run.turns.forEach((t, i) => {
    const end = i + 1 < run.turns.length ? run.turns[i + 1].userIndex : s.rows.length;
    turnLines.push(`| ${i + 1} | ${t.userIndex} | ${describeRow(s.rows[t.userIndex])} | ${end - t.userIndex - 1} |`);
    if (i === 0) return;
    const prev = run.turns[i - 1];
    const prevUser = s.rows[prev.userIndex];
    const v0 = firstBreak(wireMessages(systemPrompt, prev.lastRequestRows, prev.userIndex), wireMessages(systemPrompt, t.firstRequestRows, t.userIndex));
    const v1 = firstBreak(wireMessages(systemPrompt, prev.lastRequestRows), wireMessages(systemPrompt, t.firstRequestRows));
    breakLines.push(
      `| ${i + 1} | ${describeBreak(v0)}${v0 && v0.byte === Buffer.byteLength(prevUser.content as string) ? ' = where turn ' + i + "'s injected context began" : ''} | ${describeBreak(v1)} |`,
    );
  });

  write(
    'sidecars/README.md',
    `# sidecars: every historical sidecar is replayed

\`session_${id}.json\` is the JSON snapshot (§3.1) of a Discord gateway session with ${run.turns.length} turns,
${s.rows.length} rows, model \`${model}\` via OpenRouter. Every string user row carries an \`api_content\`
sidecar = content + "\\n\\n" + the injected context (memory fence, plugin context, gateway note, in that
order). Turn 5 is multimodal: its content is a list (text + image_url) and the gateway note was appended
as a durable text part, so that row has no sidecar.

| turn | row index | user row | rows after it in the turn |
|---:|---:|---|---:|
${turnLines.join('\n')}

## What the inspector should find

Comparing each turn's first request with the previous turn's last request (wire message 0 is the
system prompt; rows follow in order):

| turn | pre-sidecar replay (hermes-v0: only the current user row gets its sidecar) | sidecar replay (hermes-v1, hermes-current) |
|---:|---|---|
${breakLines.join('\n')}

So under the pre-sidecar rule every later turn's first request re-prefills from the previous turn's
user row on; with sidecars replayed nothing breaks, and the system prompt never changes.

\`${dumpName}\` is a request dump (§3.3) of the first request of turn 5 (rejected with a 429, then
retried). Its \`body.messages\` is exactly what the sidecar replay produces for that request: the
system message first, every historical sidecar substituted for \`content\`, the multimodal row as stored,
and no bookkeeping keys (assistant messages keep role, content, tool_calls; tool messages keep role,
content, tool_call_id; user messages keep role, content). No row before it has \`reasoning\`, so the dump
reads the same whether or not a replay copies reasoning into \`reasoning_content\`. The inspector should
report the captured request as matching its replay.
`,
  );
}

// ---------------------------------------------------------------------------------------------
// examples/rotation and examples/rotation-prompt-changed: a compaction that rotates into a child.

interface RotationVariant {
  dir: string;
  startedAt: number;
  parentSuffix: string;
  childSuffix: string;
  parentModel: string;
  childModel: string;
  seed: number;
}

function rotationScript(childSuffix: string, childModel: string, childPrompt: string): TurnSpec[] {
  const ws = (changes: string[]): string => workspace('dedupe', changes);
  const writerPy = [
    'class Writer:',
    '    def __init__(self, conn):',
    '        self.conn = conn',
    '',
    '    def write_rows(self, rows):',
    '        cur = self.conn.cursor()',
    '        for row in rows:',
    '            cur.execute("INSERT INTO transactions (account, date, amount, memo) VALUES (?, ?, ?, ?)", row)',
    '        self.conn.commit()',
    '        return len(rows)',
  ].join('\n');
  const watchPy = [
    'from watchdog.events import FileSystemEventHandler',
    '',
    'from .importer import import_file',
    '',
    '',
    'class ExportHandler(FileSystemEventHandler):',
    '    def on_modified(self, event):',
    '        if event.src_path.endswith(".csv"):',
    '            import_file(event.src_path)',
  ].join('\n');
  return [
    {
      user: "let's do the dedupe next. where do transactions get written?",
      memory: "- The sync rewrite's next open item after date parsing is de-duplication on (account, date, amount, memo).",
      plugin: ws([]),
      steps: [
        {
          text: 'Searching for the insert.',
          reasoning: 'Find every INSERT into transactions.',
          calls: [
            {
              name: 'search_files',
              args: { path: 'src', pattern: 'INSERT INTO transactions' },
              result: json({
                matches:
                  'src/ledger_sync/writer.py:8:            cur.execute("INSERT INTO transactions (account, date, amount, memo) VALUES (?, ?, ?, ?)", row)',
                total: 1,
              }),
            },
          ],
        },
      ],
      reply:
        'All writes go through `Writer.write_rows` in src/ledger_sync/writer.py (line 8): one plain `INSERT INTO transactions` per row with no uniqueness check, so importing the same export twice doubles it.',
    },
    {
      user: 'add a unique index on (account, date, amount, memo) and make the writer skip duplicates',
      plugin: ws([]),
      steps: [
        { text: 'Reading the writer.', calls: [readFile('src/ledger_sync/writer.py', writerPy)] },
        {
          text: 'Switching to INSERT OR IGNORE and counting what was skipped.',
          reasoning: 'rowcount is 0 for an ignored insert, so skipped = len(rows) - inserted.',
          calls: [
            patch(
              'src/ledger_sync/writer.py',
              '        for row in rows:\n            cur.execute("INSERT INTO transactions (account, date, amount, memo) VALUES (?, ?, ?, ?)", row)\n        self.conn.commit()\n        return len(rows)',
              '        inserted = 0\n        for row in rows:\n            cur.execute("INSERT OR IGNORE INTO transactions (account, date, amount, memo) VALUES (?, ?, ?, ?)", row)\n            inserted += cur.rowcount\n        self.conn.commit()\n        return inserted, len(rows) - inserted',
            ),
          ],
        },
      ],
      reply:
        '`write_rows` now uses `INSERT OR IGNORE` and returns `(inserted, skipped)`. The unique index itself has to come from a migration so existing ledgers get it too. Shall I write it?',
    },
    {
      user: 'yes, write the migration for existing ledgers',
      memory: '- Migrations live in migrations/ and are numbered; the last one is 0003_accounts_currency.sql.',
      plugin: ws(['src/ledger_sync/writer.py']),
      steps: [
        {
          text: 'Writing migration 0004.',
          calls: [
            writeFile(
              'migrations/0004_dedupe.sql',
              [
                '-- Remove existing duplicates (keep the oldest row), then enforce uniqueness.',
                'DELETE FROM transactions',
                'WHERE rowid NOT IN (',
                '  SELECT MIN(rowid) FROM transactions GROUP BY account, date, amount, memo',
                ');',
                'CREATE UNIQUE INDEX IF NOT EXISTS ux_transactions_dedupe',
                '  ON transactions (account, date, amount, memo);',
                '',
              ].join('\n'),
            ),
          ],
        },
      ],
      reply:
        'Added migrations/0004_dedupe.sql: it first deletes existing duplicates, keeping the lowest rowid of each group, then creates the unique index `ux_transactions_dedupe`. Without the delete, the index creation would fail on any ledger that already has duplicates.',
    },
    {
      user: 'run the full test suite',
      plugin: ws(['src/ledger_sync/writer.py', 'migrations/0004_dedupe.sql']),
      steps: [{ text: 'Running make test.', calls: [terminal('make test', 'pytest -q\n.........................................\n41 passed in 2.87s')] }],
      reply: 'All 41 tests pass.',
    },
    {
      user: "try it on last month's Banco Azul export",
      memory: '- Bank exports are downloaded to ~/Downloads as <bank>-<YYYY-MM>.csv.',
      plugin: ws(['src/ledger_sync/writer.py', 'migrations/0004_dedupe.sql']),
      gap: 420,
      steps: [
        {
          text: 'Importing the August export.',
          calls: [
            terminal(
              'ledger-sync import --bank banco-azul ~/Downloads/banco-azul-2026-08.csv',
              'applied migration 0004_dedupe.sql (removed 9 duplicate rows)\nimported 212 rows, skipped 9 duplicates',
            ),
          ],
        },
      ],
      reply:
        'The migration ran first and removed 9 duplicates left over from an earlier double import. The August export then imported 212 rows and skipped 9, the same 9 transactions, so re-imports are now harmless.',
    },
    {
      user: 'now the debounce for `ledger-sync watch`',
      memory: '- `ledger-sync watch` uses watchdog; editors that save through temp files fire 3-4 events per save.',
      plugin: ws(['src/ledger_sync/writer.py', 'migrations/0004_dedupe.sql']),
      gap: 1500,
      compaction: {
        mode: 'rotation',
        headCount: 3,
        tailStart: fromPreviousReply,
        summary: [
          SUMMARY_HEADING,
          '- Goal: stop re-imports from duplicating transactions in ledger-sync (branch dedupe).',
          '- src/ledger_sync/writer.py: `write_rows` uses INSERT OR IGNORE and returns (inserted, skipped).',
          '- migrations/0004_dedupe.sql deletes existing duplicates (keeps the lowest rowid), then adds UNIQUE index ux_transactions_dedupe on (account, date, amount, memo).',
          '- `make test`: 41 passed.',
          '',
          '## Historical Remaining Work',
          '- Debounce file events in `ledger-sync watch`.',
        ].join('\n'),
        seconds: 14.2,
        child: { suffix: childSuffix, model: childModel, systemPrompt: childPrompt },
      },
      steps: [{ text: 'Reading the watcher.', calls: [readFile('src/ledger_sync/watch.py', watchPy)] }],
      reply:
        '`ExportHandler.on_modified` calls `import_file` straight away, so one save triggers 3–4 imports. I would debounce per path: restart a short timer on every event and import once it fires. What delay do you want?',
    },
    {
      user: 'use 500 ms and coalesce by path',
      plugin: ws(['src/ledger_sync/writer.py', 'migrations/0004_dedupe.sql']),
      steps: [
        {
          text: 'Adding a per-path timer.',
          calls: [
            patch(
              'src/ledger_sync/watch.py',
              'class ExportHandler(FileSystemEventHandler):\n    def on_modified(self, event):\n        if event.src_path.endswith(".csv"):\n            import_file(event.src_path)',
              'class ExportHandler(FileSystemEventHandler):\n    DELAY = 0.5\n\n    def __init__(self):\n        self._timers = {}\n\n    def on_modified(self, event):\n        if not event.src_path.endswith(".csv"):\n            return\n        old = self._timers.pop(event.src_path, None)\n        if old:\n            old.cancel()\n        timer = threading.Timer(self.DELAY, import_file, [event.src_path])\n        self._timers[event.src_path] = timer\n        timer.start()',
            ),
          ],
        },
        { text: 'Running the tests again.', calls: [terminal('make test', 'pytest -q\n..........................................\n42 passed in 3.41s')] },
      ],
      reply:
        'Each CSV path now gets its own 500 ms `threading.Timer`; a new event for the same path cancels and restarts it, so a save imports once. I also added `import threading` at the top. 42 tests pass, including a new one that fires four events and expects one import.',
    },
    {
      user: 'commit all of it on the dedupe branch',
      plugin: ws(['src/ledger_sync/writer.py', 'src/ledger_sync/watch.py', 'migrations/0004_dedupe.sql', 'tests/test_watch.py']),
      steps: [
        {
          text: 'Committing.',
          calls: [
            terminal(
              'git add -A && git commit -m "Dedupe imports and debounce watch events"',
              '[dedupe 3f9c2a1] Dedupe imports and debounce watch events\n 4 files changed, 96 insertions(+), 11 deletions(-)\n create mode 100644 migrations/0004_dedupe.sql\n create mode 100644 tests/test_watch.py',
            ),
          ],
        },
      ],
      reply: 'Committed as 3f9c2a1 on `dedupe`: 4 files, including the new migration and tests/test_watch.py.',
    },
  ];
}

/**
 * Every compaction here keeps the previous turn verbatim, starting the tail at the reply before its
 * user row: that turn's sidecar survives, and the tail opens with an assistant row after the user
 * carrier, as the standalone-carrier rule needs.
 */
function fromPreviousReply(rows: readonly SynthRow[]): number {
  for (let i = rows.length - 1; i >= 0; i--) if (rows[i].role === 'user') return i - 1;
  throw new Error('no user row');
}

function rotationExample(SQL: SqlJsStatic, v: RotationVariant): void {
  const base = { provider: 'openrouter', platform: 'cli', startedAt: v.startedAt, cwd: CWD };
  const parentPrompt = prompt({ ...base, model: v.parentModel });
  const childPrompt = prompt({ ...base, model: v.childModel });
  const run = new AgentRun(
    session({
      id: sessionIdAt(v.startedAt, v.parentSuffix),
      source: 'cli',
      model: v.parentModel,
      provider: 'openrouter',
      title: 'Dedupe imports',
      systemPrompt: parentPrompt,
      startedAt: v.startedAt,
    }),
    v.seed,
  );
  for (const t of rotationScript(v.childSuffix, v.childModel, childPrompt)) run.turn(t);
  const [parent, child] = run.sessions;
  write(`${v.dir}/state.db`, toStateDb(SQL, parent, child));

  const t5 = run.turns[4];
  const t6 = run.turns[5];
  const brk = firstBreak(wireMessages(parentPrompt, t5.lastRequestRows), wireMessages(child.systemPrompt, t6.firstRequestRows));
  const changed = v.parentModel !== v.childModel;
  const parentTurns = run.turns.filter((t) => t.sessionId === parent.id).length;
  const childTurns = run.turns.length - parentTurns;
  const carrierId = storedRows([parent, child]).find((r) => r.row._compressed_summary)!.id;
  write(
    `${v.dir}/README.md`,
    `# ${v.dir}: compaction by rotation into a child session${changed ? ', with a changed system prompt' : ''}

\`state.db\` (schema v30, §3.2) holds two sessions:

- parent \`${parent.id}\`: ${parentTurns} turns, ${parent.rows.length} rows, model \`${parent.model}\`, ended with
  \`end_reason='compression'\` at ${isoTimestamp(parent.endedAt!)}. Its last row is turn 6's user row, flushed
  without its sidecar just before the compaction, as upstream's preflight does; no request answered it there.
- child \`${child.id}\`: \`parent_session_id\` = the parent; its rows are the compacted list (3 head copies, the
  summary carrier #${carrierId}, the tail copies with their sidecars and original timestamps, then the copy of turn 6's
  user row, with its sidecar: one turn with the parent's last row, counted here, where it was answered)
  followed by the rest of turn 6 and ${childTurns - 1} more turns (${childTurns} turns in all, ${child.rows.length} rows), model \`${child.model}\`.

${
  changed
    ? `The user switched models with /model before turn 6, and the smaller window triggered the preflight
compaction. The child's system prompt was rebuilt and differs from the parent's in one line, at
${promptDifference(parent.systemPrompt, child.systemPrompt)}. Each prompt is stored in \`system_prompts\`
under its own sha256 (parent \`${sha256Hex(parent.systemPrompt).slice(0, 16)}…\`, child \`${sha256Hex(child.systemPrompt).slice(0, 16)}…\`).`
    : `The child's system prompt is byte-identical to the parent's: both sessions reference the same
\`system_prompts\` row (hash \`${sha256Hex(parent.systemPrompt).slice(0, 16)}…\`). Only the compaction breaks the prefix.`
}

Every messages row (ids are the conversation order; "copy of" names the row a compacted copy repeats):

${rowTable([parent, child])}

## What the inspector should find

- The lineage parent → child (\`end_reason='compression'\`), shown as one conversation of ${run.turns.length} turns.
- Compared with the last request of turn 5 (in the parent), the first request of turn 6 (in the child):
  ${describeBreak(brk)}.${
    changed
      ? ' The system prompt is the first difference, so the whole request is re-prefilled; the carrier would break it again anyway.'
      : ' Wire messages 1-3 are the head copies and still match; message 4 is the summary carrier, which replaces what followed.'
  }
- Turns 7 and 8 extend the child's list: no breaks, every sidecar replayed.
- The carrier starts with \`${SUMMARY_PREFIX.slice(0, 39)}\`, contains \`## Historical Task Snapshot\` and ends with the END marker.
`,
  );
}

// ---------------------------------------------------------------------------------------------
// examples/in-place: one Telegram session compacted in place (legacy inline system prompt).

function inPlaceExample(SQL: SqlJsStatic): void {
  const startedAt = utc(2026, 9, 20, 8, 30);
  const model = 'anthropic/claude-opus-4.6';
  const id = sessionIdAt(startedAt, '9a8b7c');
  const systemPrompt = prompt({
    model,
    provider: 'openrouter',
    platform: 'telegram',
    startedAt,
    cwd: '/home/alice',
    sessionContext: ['**Source:** Telegram (private chat with Alice)', '**User:** alice'],
  });
  const run = new AgentRun(
    session({
      id,
      source: 'telegram',
      model,
      provider: 'openrouter',
      cwd: '/home/alice',
      title: 'Nightly restic backups failing',
      systemPrompt,
      startedAt,
      legacyInlinePrompt: true,
    }),
    2207,
  );
  const repo = 'sftp:nas:/volume1/restic';
  const host = (failed: string): string => `Host: pi4 (Debian 12, uptime 41 days, failed units: ${failed})`;
  const plan = [
    { id: '1', content: 'Remove the stale lock after checking no restic process is running', status: 'pending' },
    { id: '2', content: 'Make the unit clear stale locks before each run (ExecStartPre)', status: 'pending' },
    { id: '3', content: 'Add a prune policy: keep 7 daily, 4 weekly, 6 monthly', status: 'pending' },
    { id: '4', content: 'Alert on Telegram when a backup fails twice in a row', status: 'pending' },
  ];
  const script: TurnSpec[] = [
    {
      user: 'my restic backups to the NAS keep failing overnight, can you check why?',
      memory: `- Backups run via restic-backup.service/.timer on pi4 at 02:00, repository ${repo}.\n- Alice is asleep 23:00-07:00 Lisbon time; no night-time manual steps.`,
      plugin: host('restic-backup.service'),
      steps: [
        {
          text: 'Looking at the last three nights of the backup unit.',
          calls: [
            terminal(
              "journalctl -u restic-backup.service --since '3 days ago' --no-pager | tail -n 6",
              [
                'Sep 20 02:00:03 pi4 restic[40211]: Fatal: unable to create lock in backend: repository is already locked exclusively by PID 2231 on pi4 by alice (UID 1000, GID 1000)',
                'Sep 20 02:00:03 pi4 restic[40211]: lock was created at 2026-09-17 02:00:04 (78h0m ago)',
                'Sep 20 02:00:03 pi4 systemd[1]: restic-backup.service: Main process exited, code=exited, status=1/FAILURE',
                "Sep 20 02:00:03 pi4 systemd[1]: restic-backup.service: Failed with result 'exit-code'.",
                'Sep 19 02:00:02 pi4 restic[39877]: Fatal: unable to create lock in backend: repository is already locked exclusively by PID 2231 on pi4 by alice (UID 1000, GID 1000)',
                'Sep 18 02:00:03 pi4 restic[39540]: Fatal: unable to create lock in backend: repository is already locked exclusively by PID 2231 on pi4 by alice (UID 1000, GID 1000)',
              ].join('\n'),
            ),
          ],
        },
      ],
      reply:
        'A stale lock. The run on 17 September at 02:00 left an exclusive lock (PID 2231 no longer exists), and every run since fails at once with "repository is already locked". Nothing is lost, but there have been no new snapshots for three nights.',
    },
    {
      user: 'make a plan to fix it properly',
      memory: '- Alice wants Telegram alerts only for things that need her action.',
      steps: [
        {
          text: 'Writing the plan to the todo list.',
          calls: [{ name: 'todo', args: { todos: plan }, result: json({ todos: plan, summary: '4 pending' }) }],
        },
      ],
      reply:
        'Plan:\n1. Remove the stale lock (after checking no restic process is running).\n2. Make the unit clear stale locks before each run.\n3. Add a prune policy (7 daily, 4 weekly, 6 monthly).\n4. Alert you on Telegram only when a backup fails twice in a row.',
    },
    {
      user: 'ok do step 1',
      plugin: host('restic-backup.service'),
      steps: [
        {
          text: 'Checking for a live restic process, then unlocking.',
          calls: [terminal(`pgrep -a restic; restic -r ${repo} unlock`, 'successfully removed 1 locks')],
        },
      ],
      reply: 'No restic process was running, and `restic unlock` removed the one stale lock. The repository is usable again.',
    },
    {
      user: 'step 2 please',
      plugin: host('restic-backup.service'),
      steps: [
        {
          text: 'Adding a drop-in for the backup unit.',
          calls: [writeFile('/etc/systemd/system/restic-backup.service.d/unlock.conf', `[Service]\nExecStartPre=/usr/bin/restic -r ${repo} unlock\n`)],
        },
        {
          text: 'Reloading systemd and checking the merged unit.',
          calls: [
            terminal(
              'sudo systemctl daemon-reload && systemctl cat restic-backup.service | tail -n 3',
              `# /etc/systemd/system/restic-backup.service.d/unlock.conf\n[Service]\nExecStartPre=/usr/bin/restic -r ${repo} unlock`,
            ),
          ],
        },
      ],
      reply:
        "Done: a drop-in runs `restic unlock` before every backup. It only removes locks whose process is gone, so it cannot break a run in progress. Tonight's 02:00 run is the first real test.",
    },
    {
      user: "good morning, did last night's run work?",
      memory: '- restic-backup normally adds about 1 GiB per night.',
      plugin: host('none'),
      gap: 79000, // the next morning, after the 02:00 run
      steps: [
        {
          text: "Checking last night's run.",
          calls: [
            terminal(
              "journalctl -u restic-backup.service --since yesterday --no-pager | grep -E 'snapshot|Added'",
              'Sep 21 02:00:41 pi4 restic[41877]: Added to the repository: 1.204 GiB (812.503 MiB stored)\nSep 21 02:07:12 pi4 restic[41877]: snapshot 7c1e9a2f saved',
            ),
          ],
        },
      ],
      reply: 'Yes: snapshot 7c1e9a2f was saved at 02:07, adding 1.2 GiB (812 MiB after deduplication). Steps 1 and 2 are done.',
    },
    {
      user: 'now step 3, the prune policy',
      memory: '- The NAS volume1 is 78% full (1.6 TiB free).',
      plugin: host('none'),
      compaction: {
        mode: 'in-place',
        headCount: 3,
        tailStart: fromPreviousReply,
        summary: [
          SUMMARY_HEADING,
          `- Nightly restic backups (pi4 → ${repo}) failed for three nights on a stale exclusive lock from the 17 Sep 02:00 run.`,
          '- Step 1 done: stale lock removed with `restic unlock`.',
          '- Step 2 done: /etc/systemd/system/restic-backup.service.d/unlock.conf runs `restic unlock` before each backup; the 21 Sep run saved snapshot 7c1e9a2f.',
          '',
          '## Historical Remaining Work',
          '- 3. Prune policy (keep 7 daily, 4 weekly, 6 monthly).',
          '- 4. Telegram alert after two consecutive failures.',
        ].join('\n'),
        todo: [`- [ ] 3. ${plan[2].content} (pending)`, `- [ ] 4. ${plan[3].content} (pending)`],
        seconds: 11.8,
      },
      steps: [
        {
          text: 'Writing a prune service and a weekly timer.',
          calls: [
            writeFile(
              '/etc/systemd/system/restic-prune.service',
              `[Unit]\nDescription=Prune restic snapshots\nAfter=restic-backup.service\n\n[Service]\nType=oneshot\nExecStart=/usr/bin/restic -r ${repo} forget --keep-daily 7 --keep-weekly 4 --keep-monthly 6 --prune\n`,
            ),
            writeFile(
              '/etc/systemd/system/restic-prune.timer',
              '[Unit]\nDescription=Weekly restic prune\n\n[Timer]\nOnCalendar=Sun 04:00\nPersistent=true\n\n[Install]\nWantedBy=timers.target\n',
            ),
          ],
        },
        {
          text: 'Enabling the timer.',
          calls: [
            terminal(
              'sudo systemctl daemon-reload && sudo systemctl enable --now restic-prune.timer && systemctl list-timers restic-prune.timer --no-pager | head -n 2',
              'Created symlink /etc/systemd/system/timers.target.wants/restic-prune.timer → /etc/systemd/system/restic-prune.timer.\nNEXT                        LEFT     LAST PASSED UNIT                ACTIVATES\nSun 2026-09-27 04:00:00 WEST 5 days -    -      restic-prune.timer  restic-prune.service',
            ),
          ],
        },
      ],
      reply:
        'restic-prune.timer now runs every Sunday at 04:00 (first run 27 September) and keeps 7 daily, 4 weekly and 6 monthly snapshots. It runs two hours after the backup, so the two never compete for the lock.',
    },
    {
      // A photo from Telegram with nothing injected: list content, stored as "\x00json:" + JSON.
      user: [
        { type: 'text', text: 'how much space will that free? this is the NAS storage page right now' },
        { type: 'image_url', image_url: { url: 'https://files.example.net/telegram/photo_2026-09-21.jpg' } },
      ],
      steps: [
        {
          text: 'Dry run of the same policy.',
          calls: [
            terminal(
              `restic -r ${repo} forget --keep-daily 7 --keep-weekly 4 --keep-monthly 6 --prune --dry-run | tail -n 3`,
              'would remove 38 snapshots\nwould delete 1204 packs\nthis removes about 96.342 GiB of data',
            ),
          ],
        },
      ],
      reply: 'About 96 GiB: 38 snapshots would go on the first run. Your screenshot shows volume1 at 78% used; that brings it to roughly 73%.',
    },
    {
      user: 'great. mark 3 done, step 4 can wait until tomorrow',
      plugin: host('none'),
      steps: [
        {
          text: 'Updating the list.',
          calls: [
            {
              name: 'todo',
              args: { merge: true, todos: [{ id: '3', status: 'completed' }] },
              result: json({ todos: plan.map((p) => (p.id === '4' ? p : { ...p, status: 'completed' })), summary: '3 completed, 1 pending' }),
            },
          ],
        },
      ],
      reply: 'Marked step 3 done. Only step 4 (the Telegram alert after two failures) is left for tomorrow.',
    },
  ];
  for (const t of script) run.turn(t);
  const s = run.session;
  write('in-place/state.db', toStateDb(SQL, s));

  const stored = storedRows([s]);
  const firstNew = stored.find((r) => r.active)!.id;
  const carrierId = stored.find((r) => r.row._compressed_summary)!.id;
  const todoId = stored.find((r) => r.row.display_kind)!.id;
  const photoId = stored.find((r) => Array.isArray(r.row.content))!.id;
  const t5 = run.turns[4];
  const t6 = run.turns[5];
  const brk = firstBreak(wireMessages(systemPrompt, t5.lastRequestRows), wireMessages(systemPrompt, t6.firstRequestRows));
  write(
    'in-place/README.md',
    `# in-place: compaction inside one session

\`state.db\` holds one Telegram session \`${id}\` (${run.turns.length} turns, model \`${model}\`). It is a legacy row:
the system prompt is stored only inline in \`sessions.system_prompt\` (\`system_prompt_hash\` is NULL, and
\`system_prompts\` is empty).

At the start of turn 6 the session was compacted in place (§3.5). Turn 6's user row was flushed
first, without its sidecar (#${firstNew - 1}); then the ${s.archived.length - 1} rows of turns 1-5 (#1-#${firstNew - 2}) were set to
\`active=0, compacted=1\`, the flushed row, written after the compaction's watermark, to \`active=0, compacted=0\`,
and the compacted list was inserted after them as new \`active=1\` rows of the same session: 3 head copies, the
summary carrier #${carrierId}, the tail copies (turn 4's reply and all of turn 5, with their sidecars and original
timestamps), the copy of turn 6's user row with its sidecar, and
right after it the todo snapshot #${todoId} ("${TODO_SNAPSHOT_HEADER}…", \`display_kind='hidden'\`). Turns 6-8
continue in the same session. Turn 7's user row (#${photoId}) is a Telegram photo with nothing injected: list
content, stored as \`"\\x00json:" + json.dumps(content)\`, no sidecar.

${rowTable([s])}

## What the inspector should find

- Two generations of one session: #1-#${firstNew - 1} (archived) and #${firstNew}-#${stored.length} (live).
- Turn 6 is one turn, in the live list: its flushed row #${firstNew - 1} and its copy #${todoId - 1} are the same turn, and the
  compaction belongs to it.
- The current-turn anchor of turn 6 is its own user row (#${todoId - 1}), never the todo snapshot after it.
- Compared with the last request of turn 5, the first request of turn 6: ${describeBreak(brk)}, the summary
  carrier (wire messages 1-3 are the head copies and still match). The system prompt does not change.
- Turns 7 and 8: no breaks.
`,
  );
}

// ---------------------------------------------------------------------------------------------
// examples/trace: our own turn-trace JSONL of a Discord session.

function traceExample(): void {
  const startedAt = utc(2026, 9, 21, 16, 10);
  const model = 'nousresearch/hermes-4-405b';
  const baseUrl = 'https://inference-api.nousresearch.com/v1';
  const id = sessionIdAt(startedAt, 'd3e4f5');
  const systemPrompt = prompt({
    model,
    provider: 'nous',
    platform: 'discord',
    startedAt,
    cwd: CWD,
    sessionContext: ['**Source:** Discord (server: Nous Lab, channel: #docs)', '**User:** alice', '**Connected platforms:** discord, cli'],
  });
  const run = new AgentRun(
    session({
      id,
      source: 'discord',
      model,
      provider: 'nous',
      baseUrl,
      title: 'Docs site: Hugo to Zola',
      systemPrompt,
      startedAt,
    }),
    3313,
  );
  const ws = (changes: string[]): string => workspace('docs-zola', changes);
  const pages = ['docs/content/guide/import.md', 'docs/content/guide/watch.md', 'docs/content/faq.md', 'docs/content/reference/cli.md'];
  const script: TurnSpec[] = [
    {
      user: 'morning! can you pick up the docs site migration?',
      memory:
        '- The ledger-sync docs site is moving from Hugo to Zola; progress notes are in docs/MIGRATION.md.\n- Alice reviews docs previews in #docs on Discord.',
      plugin: ws([]),
      gatewayNotes: "[System note: The user's previous session expired due to inactivity. This is a fresh conversation with no prior context.]",
      steps: [
        {
          text: 'Reading the migration notes.',
          calls: [
            readFile(
              'docs/MIGRATION.md',
              '# Hugo → Zola\n\n- [x] config.toml ported\n- [x] base templates\n- [ ] shortcodes: {{< note >}} → {% note() %}\n- [ ] link check\n- [ ] preview deploy',
            ),
          ],
        },
        {
          text: 'Tracking the remaining items.',
          calls: [
            {
              name: 'todo',
              args: {
                todos: [
                  { content: 'Convert the remaining Hugo shortcodes', id: '1', status: 'pending' },
                  { content: 'Rebuild and run the link check', id: '2', status: 'pending' },
                  { content: 'Deploy a preview and post it in #docs', id: '3', status: 'pending' },
                ],
              },
              result: json({ summary: '3 pending' }),
            },
          ],
        },
      ],
      reply:
        'Picking it up. Config and base templates are ported; left are the shortcode conversion, a link check and a preview deploy. I have put those three on the todo list.',
    },
    {
      user: 'how many pages still use the old shortcode syntax?',
      plugin: ws([]),
      steps: [
        {
          text: 'Searching the content tree.',
          calls: [
            {
              name: 'search_files',
              args: { path: 'docs/content', pattern: '\\{\\{< /?note' },
              result: json({ matches: pages.map((p, i) => `${p}:${12 + i * 7}:{{< note >}}`).join('\n'), total: 7, files: 4 }),
            },
          ],
        },
      ],
      reply: `7 shortcodes in 4 pages: ${pages.map((p) => p.replace('docs/content/', '')).join(', ')}.`,
    },
    {
      user: [
        { type: 'text', text: 'this is what `zola build` prints now' },
        { type: 'image_url', image_url: { url: 'https://cdn.discordapp.com/attachments/1187/3302/zola-build.png' } },
      ],
      // Memory and plugin context on an image turn: the current agent appends them as a text part,
      // v2026.7.20 dropped them (#71998), which the inspector reports as notes-lost under hermes-v1.
      memory: '- The docs site build runs `zola build` from docs/; Tera templates reject Hugo shortcodes.',
      plugin: ws([]),
      gatewayNotes: '[Voice channel now: docs-vc (2 members)]',
      reply:
        'The build stops at `content/guide/import.md`: Tera cannot parse `{{< note >}}`. That is one of the 4 pages with the old syntax, so converting them fixes the build.',
    },
    {
      user: 'convert the remaining shortcodes',
      memory: '- Zola shortcodes live in templates/shortcodes/; note.html already exists.',
      plugin: ws([]),
      steps: [
        {
          text: 'Checking how the two guide pages use the shortcode.',
          calls: [
            readFile(pages[0], '+++\ntitle = "Importing"\n+++\n\n{{< note >}}\nBanco Azul exports use DD/MM dates.\n{{< /note >}}'),
            readFile(pages[1], '+++\ntitle = "Watching a folder"\n+++\n\n{{< note >}}\nSaves are debounced by 500 ms.\n{{< /note >}}'),
          ],
        },
        {
          text: 'Same block form everywhere, so a sed over the four pages is enough.',
          calls: [
            terminal(
              `sed -i -E 's/\\{\\{< note >\\}\\}/{% note() %}/; s/\\{\\{< \\/note >\\}\\}/{% end %}/' ${pages.join(' ')} && grep -c 'note()' ${pages.join(' ')}`,
              pages.map((p, i) => `${p}:${i === 0 ? 3 : i === 2 ? 2 : 1}`).join('\n'),
            ),
          ],
        },
      ],
      reply: 'Converted all 7: `{{< note >}}…{{< /note >}}` became `{% note() %}…{% end %}` in the 4 pages.',
    },
    {
      user: 'rebuild and check for broken links',
      memory: '- Link check: `zola check` (external links are slow; use --skip-external-links locally).',
      steps: [
        {
          text: 'Building and checking.',
          calls: [
            terminal(
              'cd docs && zola build && zola check --skip-external-links',
              'Building site...\nChecking all internal links with anchors.\n> Successfully checked 23 internal link(s) with anchors.\nDone in 412ms.\nChecking site...\nDone in 389ms.',
            ),
          ],
        },
        {
          text: 'Updating the list.',
          calls: [
            {
              name: 'todo',
              args: {
                merge: true,
                todos: [
                  { id: '1', status: 'completed' },
                  { id: '2', status: 'completed' },
                ],
              },
              result: json({ summary: '2 completed, 1 pending' }),
            },
          ],
        },
      ],
      reply: 'The site builds, and all 23 internal links (with anchors) resolve.',
    },
    {
      user: 'deploy a preview',
      memory: '- Docs previews deploy with `make docs-preview`, which prints the preview URL.',
      plugin: ws(pages),
      compaction: {
        mode: 'in-place',
        headCount: 3,
        tailStart: fromPreviousReply,
        summary: [
          SUMMARY_HEADING,
          '- Docs site migration Hugo → Zola on branch docs-zola.',
          '- 7 `{{< note >}}` shortcodes in 4 pages converted to `{% note() %}…{% end %}`; `zola build` and `zola check --skip-external-links` are clean (23 internal links).',
          '',
          '## Historical Remaining Work',
          '- Deploy a preview and post it in #docs.',
        ].join('\n'),
        todo: ['- [ ] 3. Deploy a preview and post it in #docs (pending)'],
        seconds: 9.4,
      },
      steps: [
        {
          text: 'Deploying.',
          calls: [
            terminal(
              'make docs-preview',
              'zola build --base-url https://docs-zola--ledger-sync.pages.example.net\nDeployed preview: https://docs-zola--ledger-sync.pages.example.net',
            ),
          ],
        },
      ],
      reply: 'Preview is up: https://docs-zola--ledger-sync.pages.example.net',
    },
    {
      user: 'post the preview link in #docs',
      plugin: ws(pages),
      gatewayNotes: '[Voice channel now: docs-vc (1 member)]',
      steps: [
        {
          text: 'Posting to #docs.',
          calls: [
            {
              name: 'send_message',
              args: {
                message: 'Docs preview (Zola): https://docs-zola--ledger-sync.pages.example.net (shortcodes converted, internal links clean)',
                target: 'discord:#docs',
              },
              result: json({ success: true, message_id: '1288331904417' }),
            },
          ],
        },
      ],
      reply: 'Posted in #docs.',
    },
  ];
  for (const t of script) run.turn(t);
  write('trace/agent.trace.jsonl', toTurnTraceJsonl(run.trace));

  const lines = run.trace.map((l, i) => {
    const inputs = [l.memoryPrefetch && 'memoryPrefetch', l.pluginContext && 'pluginContext', l.gatewayNotes && 'gatewayNotes'].filter(Boolean).join(', ');
    return `| ${i + 1} | ${l.historyLength} | ${l.currentTurnUserIdx} | ${Array.isArray(l.userMessage) ? 'list (text + image_url)' : 'string'} | ${inputs || '-'} | ${l.compaction ? `${l.compaction.mode}, ${l.compaction.messages.length} rows` : ''} | ${l.messages.length} |`;
  });
  write(
    'trace/README.md',
    `# trace: our turn-trace JSONL

\`agent.trace.jsonl\` follows \`schemas/turn-trace.schema.json\`: one line per turn of the Discord session
\`${id}\` (model \`${model}\` via the Nous API, ${run.trace.length} turns). Each line records the assembly inputs
(\`memoryPrefetch\`, \`pluginContext\`, \`gatewayNotes\`), the system prompt, the tools, \`historyLength\`,
the typed \`currentTurnUserIdx\` and the rows the turn produced.

| line | historyLength | currentTurnUserIdx | userMessage | inputs | compaction | messages |
|---:|---:|---:|---|---|---|---:|
${lines.join('\n')}

- For every string turn, the recorded user row's \`api_content\` equals the composition rule applied to the
  line's inputs: \`userMessage + "\\n\\n" + join("\\n\\n", [fence(memoryPrefetch), join("\\n\\n", [pluginContext, gatewayNotes])])\`,
  empty items left out (§1.1, §1.2, §2.1). Line 1 has all three; its gateway note is the idle auto-reset note.
- Line 3 is multimodal: \`userMessage\` is the list as received, and the stored row's content is that list plus
  the gateway note as a final text part; it has no sidecar and no memory or plugin input.
- Line 4 has a parallel tool-call step (one assistant row with two calls, then two tool rows).
- Line 6 carries an in-place compaction: \`compaction.messages\` is the whole list after it (3 head copies, the
  summary carrier, the tail copies, this turn's user row at index ${run.trace[5].currentTurnUserIdx}, then the todo snapshot with
  \`display_kind: "hidden"\`); the line's own \`messages\` hold only the rows after that.

What the inspector should find: every recomputed sidecar matches the recorded one; no prefix break except at
line 6's first request, where the summary carrier replaces the history after the 3 head rows.
`,
  );
}

// ---------------------------------------------------------------------------------------------
// examples/home: a whole Hermes home, written by test/support/hermes_home.py (upstream's write paths
// and full schema on real SQLite, python3 stdlib); its README and truth.json come from the truth it prints.

interface HomeTruthSession {
  id: string;
  parentId: string | null;
  source: string;
  model: string | null;
  kind: string;
  lineageRoot: string;
  endReason: string | null;
  turns: number;
  cacheBreaks: string[];
  compactions: number;
  rotations: number;
  inPlaceCompactions: number;
}

interface HomeTruth {
  generationSeconds?: number;
  bytes: number;
  rowCounts: Record<string, number>;
  schema: { tables: string[]; indexes: string[]; triggers: string[]; views: string[]; virtualTables: string[]; shadowTables: string[]; schemaVersion: number };
  sessions: HomeTruthSession[];
  lineages: { id: string; sessions: string[]; kind: string; forkedFrom: string | null; source: string; turns: number; compactions: number }[];
}

const HOME_SESSIONS = 48;
const HOME_SEED = 2026;

function homeExample(): void {
  const tmp = mkdtempSync(join(tmpdir(), 'examples-home-'));
  try {
    const py = join(__dirname, '..', 'test', 'support', 'hermes_home.py');
    const args = [py, tmp, '--sessions', String(HOME_SESSIONS), '--seed', String(HOME_SEED), '--target-mb', '3'];
    const r = spawnSync('python3', args, { encoding: 'utf8', maxBuffer: 64 << 20 });
    if (r.status !== 0) throw new Error(`hermes_home.py exited ${r.status}: ${r.stderr}`);
    const truth = JSON.parse(r.stdout) as HomeTruth;
    delete truth.generationSeconds; // the only figure that differs between runs
    write('home/state.db', readFileSync(join(tmp, 'state.db')));
    write('home/truth.json', `${JSON.stringify(truth, null, 1)}\n`);
    write('home/README.md', homeReadme(truth));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

// examples/billed: a home with its agent.log, written by test/support/hermes_store.py's `billed`
// scenario (upstream's write paths and logging on one clock, the log at +05:30 local time).
function billedExample(): void {
  const tmp = mkdtempSync(join(tmpdir(), 'examples-billed-'));
  try {
    const py = join(__dirname, '..', 'test', 'support', 'hermes_store.py');
    const r = spawnSync('python3', [py, 'billed', tmp], { encoding: 'utf8', maxBuffer: 64 << 20 });
    if (r.status !== 0) throw new Error(`hermes_store.py billed exited ${r.status}: ${r.stderr}`);
    const truth = JSON.parse(r.stdout) as { logs: string[] };
    write('billed/state.db', readFileSync(join(tmp, 'state.db')));
    for (const log of truth.logs) write(`billed/${log}`, readFileSync(join(tmp, log)));
    write('billed/README.md', BILLED_README);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

const BILLED_README = `# A Hermes home with its agent.log: what each request was billed

\`state.db\` and \`logs/agent.log*\` written by \`test/support/hermes_store.py billed\`: upstream Hermes' storage
and logging (record format, session tag, \`RotatingFileHandler\`) on one clock, the log in the local time of a
machine at +05:30. Try \`prompt-inspector analyze examples/billed/state.db\`: every \`API call #N\` line is matched
to the request it answered (or listed as unmatched), each request shows what the provider billed and cost, and
each cache miss its class (docs/billing.md).

What the inspector should find:

- The log clock placed at -05:30 from the rows'; 28 call lines, 2 of them unmatched (a process whose
  SessionDB could not open logged calls of a session this store does not hold, one with \`usage=unavailable\`).
- Three line layouts: before upstream #104568 (no \`write=\`, no \`id=\`: writes "not recorded"), after it, and
  the provider-first one; the log rolled over to \`agent.log.1\` in the middle of a turn.
- Cache misses of every class: \`unexplained\` (the provider dropped its cache: one \`cache-miss-unexplained\`
  warning), \`expired\` (12 idle minutes), \`predicted\` (two compactions by rotation), \`cause-logged\` (a branch
  whose stored system prompt was NULL, said by the agent's warning), \`too-short\` (a Haiku prompt under its 4,096
  minimum).
- Two compactions before a turn: one decided by the anchored estimate (the previous call's billed prompt and
  completion plus the new ask), one by the rough estimate (an \`/undo\` changed the rows the anchor priced), each
  beside the agent's own logged figure and threshold.
- The cost of every call at the catalogue's rates, equal to Hermes' own pricing rule.
`;

function homeReadme(truth: HomeTruth): string {
  const count = <T extends string>(xs: T[]): string =>
    [...xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<T, number>())]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
  const byId = new Map(truth.sessions.map((s) => [s.id, s]));
  const rows = truth.lineages.map((l) => {
    const first = byId.get(l.id);
    const last = byId.get(l.sessions[l.sessions.length - 1]);
    const breaks = l.sessions.reduce((n, id) => n + (byId.get(id)?.cacheBreaks.length ?? 0), 0);
    return `| \`${l.id}\` | ${l.kind}${l.forkedFrom ? ` of \`${l.forkedFrom}\`` : ''} | ${l.source} | ${first?.model ?? ''} | ${l.sessions.length} | ${l.turns} | ${l.compactions} | ${breaks} | ${last?.endReason ?? 'open'} |`;
  });
  const rotations = truth.sessions.reduce((n, s) => n + s.rotations, 0);
  const inPlace = truth.sessions.reduce((n, s) => n + s.inPlaceCompactions, 0);
  const broken = truth.sessions.filter((s) => s.cacheBreaks.length);
  return `# A Hermes home: ${truth.sessions.length} sessions in one state.db

\`state.db\` (${(truth.bytes / 1e6).toFixed(1)} MB) as a long-time user's \`~/.hermes/state.db\` looks, written by
\`test/support/hermes_home.py --sessions ${HOME_SESSIONS} --seed ${HOME_SEED} --target-mb 3\`: every row goes through
\`test/support/hermes_store.py\`, a reconstruction of upstream Hermes' write paths, on real SQLite (WAL, checkpointed).
\`truth.json\` is what really happened in it (the generator's ground truth); the tests compare the inspector with that.

- **Schema**: upstream's full fresh install, schema_version ${truth.schema.schemaVersion}: ${truth.schema.tables.length} tables
  (${truth.schema.virtualTables.map((t) => `\`${t}\``).join(' and ')} are external-content FTS5 tables, with the shadow tables
  ${truth.schema.shadowTables.map((t) => `\`${t}\``).join(', ')}), views ${truth.schema.views.map((t) => `\`${t}\``).join(', ')},
  ${truth.schema.triggers.length} triggers and ${truth.schema.indexes.length} indexes.
- **Sessions by source**: ${count(truth.sessions.map((s) => s.source))}.
- **By kind**: ${count(truth.sessions.map((s) => s.kind))} (compression: a rotation child, \`end_reason='compression'\` on
  its parent; branch: \`/branch\`, parent ended \`branched\`; delegate: a subagent, \`model_config._delegate_from\`;
  reset: a gateway \`/reset\`, parent ended \`session_reset\`, \`model_config._reset_from\`).
- **Models**: ${count(truth.sessions.map((s) => s.model ?? 'none'))}.
- **Compactions**: ${rotations} by rotation, ${inPlace} in place. **Rows**: ${Object.entries(truth.rowCounts)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}.
- **Real cache breaks** (not caused by a compaction or a rewind): ${broken.length ? broken.map((s) => `\`${s.id}\` (${s.cacheBreaks.join(', ')})`).join('; ') : 'none'}; the inspector should flag these and nothing else.

Try \`prompt-inspector sessions examples/home/state.db\` (the overview), then
\`prompt-inspector analyze examples/home/state.db --lineage ID\` for one row.

## Lineages (the overview's rows)

| lineage | kind | source | model | sessions | turns | compactions | cache breaks | end |
|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}
`;
}

async function main(): Promise<void> {
  const SQL = await initSqlJs();
  sidecarsExample();
  rotationExample(SQL, {
    dir: 'rotation',
    startedAt: utc(2026, 9, 18, 14, 0),
    parentSuffix: '5e6f7a',
    childSuffix: '8b9c0d',
    parentModel: 'anthropic/claude-sonnet-4.6',
    childModel: 'anthropic/claude-sonnet-4.6',
    seed: 1901,
  });
  rotationExample(SQL, {
    dir: 'rotation-prompt-changed',
    startedAt: utc(2026, 9, 19, 9, 0),
    parentSuffix: 'c1d2e3',
    childSuffix: 'f4a5b6',
    parentModel: 'openai/gpt-5.5',
    childModel: 'anthropic/claude-sonnet-4.6',
    seed: 1902,
  });
  inPlaceExample(SQL);
  traceExample();
  homeExample();
  billedExample();
  write(
    'README.md',
    `# Examples

Synthetic Hermes transcripts, generated by \`npx tsx scripts/generate-examples.ts\` (deterministic) from
\`test/support/synthesize.ts\`. They follow the on-disk formats of \`shared/design/hermes-reference.md\` (§3) and our
\`schemas/turn-trace.schema.json\`. Each folder's README lists what the inspector should find.

| folder | format | shows |
|---|---|---|
| [sidecars](sidecars/) | session JSON + request dump | every user row carries an \`api_content\` sidecar (memory fence, plugin context, a gateway note) plus one multimodal turn with a durable note part; pre-sidecar replay breaks every later turn's first request at the previous user row, sidecar replay breaks nothing; the dump is the exact wire body of the last turn's first request |
| [rotation](rotation/) | state.db | compaction by rotation: parent ended with \`end_reason='compression'\`, child holds head copies, the summary carrier, tail copies, then new turns; same system prompt |
| [rotation-prompt-changed](rotation-prompt-changed/) | state.db | the same, but the child's system prompt differs in its \`Model:\` line (stored under its own hash) |
| [in-place](in-place/) | state.db | compaction in place: archived rows \`active=0, compacted=1\`, the compacted set re-inserted in the same session with a todo snapshot after the current user row; legacy inline system prompt |
| [trace](trace/) | turn-trace JSONL | recorded assembly inputs whose sidecars follow the composition rule, a multimodal turn, and an in-place compaction line |
| [billed](billed/) | state.db + agent.log | a home with its \`logs/agent.log*\`: each request matched to its billed call, each cache miss classed (\`unexplained\`, \`expired\`, \`predicted\`, \`cause-logged\`, \`too-short\`), the estimate each compaction was decided by, the cost; written by \`test/support/hermes_store.py billed\` |
| [home](home/) | state.db (a whole home) | ${HOME_SESSIONS} sessions of every source (cli, gateways, cron, subagents) on upstream's full schema (FTS5 tables, triggers, views): compression chains, in-place compactions, branches, delegates, resets; written by \`test/support/hermes_home.py\`, with its ground truth in \`truth.json\` |
`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
