// Performance targets of the engine, every figure a ratio within this one run (these machines are
// noisy, so absolute times are printed for context only and nothing is asserted on time).
// Run alone with `npx tsx bench/perf.ts`; also part of `npm run bench`.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { childBundle } from './childBundle';
import { Tiktoken } from 'js-tiktoken/lite';
import type { SqlJsStatic } from 'sql.js';
import { synthesizeLongSession, toSessionJson, toStateDb } from '../test/support/synthesize';
import { analyze, type Analysis } from '../src/analysis/report';
import { createTokenCounter, type TokenCounter } from '../src/analysis/tokenizer';
import { wireTextPieces } from '../src/analysis/wireText';
import type { WireMessage } from '../src/engine/apiMessages';
import type { Row } from '../src/shared/model/rows';
import { PROFILES } from '../src/engine/profile';
import { readTranscript } from '../src/transcripts/read';
import { mb, median, verdict } from './figures';

const ROOT = join(__dirname, '..');
const SIZES = [250, 1000, 4000];
/** Repeats per size (median taken): small inputs are noisier and cheap to repeat. */
const REPEATS: Record<number, number> = { 250: 9, 1000: 5, 4000: 5 };
const NAIVE_SAMPLE = 6;

type Format = 'json' | 'db';
export interface Input {
  turns: number;
  format: Format;
  path: string;
  bytes: number;
}

export const initSql = require('sql.js') as () => Promise<SqlJsStatic>;

const ms = (t: number): string => `${t.toFixed(t < 10 ? 1 : 0)} ms`;

/** Counters keep their caches to themselves, so a fresh counter per run keeps one run from warming the next. */
function time(fn: () => unknown): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

/** What the extension and CLI do: read the bytes, pick the reader, replay, count, compare prefixes. */
export function fullAnalysis(input: Input, counter: TokenCounter = createTokenCounter('o200k_base')): Analysis {
  const transcript = readTranscript({ path: input.path, bytes: readFileSync(input.path) });
  return analyze(transcript, { profile: PROFILES['hermes-current'], counter, messages: false });
}

/** The floor: read, parse (every row), count each distinct wire text once; nothing else. */
export function floor(input: Input, SQL: SqlJsStatic, texts: string[]): void {
  if (input.format === 'json') {
    JSON.parse(readFileSync(input.path, 'utf8'));
  } else {
    const db = new SQL.Database(readFileSync(input.path));
    for (const table of ['system_prompts', 'sessions', 'messages']) {
      const stmt = db.prepare(`SELECT * FROM ${table}`);
      while (stmt.step()) stmt.get();
      stmt.free();
    }
    db.close();
  }
  const counter = createTokenCounter('o200k_base');
  for (const text of texts) counter.count(text);
}

/**
 * Every distinct text sent on the wire by any request: the system prompts, each row in the
 * historical mode of the requests that resend it, and each request's current-user and final rows.
 * Linear: a row's historical copy is taken once per generation (the first request that sends it so).
 */
export function distinctWireTexts(a: Analysis): Set<string> {
  const texts = new Set<string>();
  const add = (m: WireMessage): void => {
    for (const p of wireTextPieces(m.message)) texts.add(p);
  };
  const scanned = new Map<Row[], { upTo: number; pending: Set<number> }>();
  for (const r of a.replay.requests) {
    add(a.wire.message(r, 0));
    const special = new Set([r.currentUserIdx, r.end - 1]);
    for (const row of special) if (row >= 0) add(a.wire.message(r, row + 1));
    let s = scanned.get(r.rows);
    if (!s) scanned.set(r.rows, (s = { upTo: 0, pending: new Set() }));
    for (; s.upTo < r.end; s.upTo++) s.pending.add(s.upTo);
    for (const row of s.pending) {
      if (row < r.end && !special.has(row)) {
        add(a.wire.copyOf(r.rows, row, false, false));
        s.pending.delete(row);
      }
    }
  }
  return texts;
}

function buildInputs(dir: string, SQL: SqlJsStatic): Input[] {
  const inputs: Input[] = [];
  for (const turns of SIZES) {
    const session = synthesizeLongSession(turns, 42);
    const json = join(dir, `session_bench_${turns}.json`);
    writeFileSync(json, toSessionJson(session));
    const db = join(dir, `state_${turns}.db`);
    writeFileSync(db, toStateDb(SQL, session));
    for (const [format, path] of [
      ['json', json],
      ['db', db],
    ] as const)
      inputs.push({ turns, format, path, bytes: readFileSync(path).length });
  }
  return inputs;
}

interface Measured {
  input: Input;
  fullMs: number;
  floorMs: number;
  reportBytes: number;
}

function measure(input: Input, SQL: SqlJsStatic): { m: Measured; analysis: Analysis; line: string } {
  // Untimed pass: the texts the floor counts, and what the analysis itself asked the counter.
  const asked = new Set<string>();
  const inner = createTokenCounter('o200k_base');
  const recording: TokenCounter = {
    name: inner.name,
    isApproximate: (t) => inner.isApproximate(t),
    count: (t) => {
      asked.add(t);
      return inner.count(t);
    },
  };
  const analysis = fullAnalysis(input, recording);
  const texts = [...distinctWireTexts(analysis)];
  const textChars = texts.reduce((n, t) => n + t.length, 0);
  const fulls: number[] = [];
  const floors: number[] = [];
  for (let i = 0; i < REPEATS[input.turns]; i++) {
    // Alternate the order so neither side always runs on a freshly collected heap.
    if (i % 2 === 0) {
      floors.push(time(() => floor(input, SQL, texts)));
      fulls.push(time(() => fullAnalysis(input)));
    } else {
      fulls.push(time(() => fullAnalysis(input)));
      floors.push(time(() => floor(input, SQL, texts)));
    }
  }
  const fullMs = median(fulls);
  const floorMs = median(floors);
  const reportBytes = Buffer.byteLength(JSON.stringify(analysis.report, null, 2)); // as `analyze --json` prints it
  const ratio = fullMs / floorMs;
  const line =
    `  ${input.turns} turns, ${input.format === 'json' ? 'session JSON' : 'state.db'} ${mb(input.bytes)}, `
    + `${analysis.report.requests.length} requests, ${texts.length} distinct wire texts (${mb(textChars)} chars; the analysis counted ${asked.size} distinct): `
    + `full ${ms(fullMs)}, floor ${ms(floorMs)} (median of ${fulls.length}) = ${ratio.toFixed(2)}x floor [target <= 1.5x: ${verdict(ratio <= 1.5)}]`;
  return { m: { input, fullMs, floorMs, reportBytes }, analysis, line };
}

/** The simple script: every request's whole input re-tokenised with js-tiktoken, on an even sample. */
function naive(m: Measured, analysis: Analysis): string[] {
  const js = new Tiktoken(require('js-tiktoken/ranks/o200k_base') as ConstructorParameters<typeof Tiktoken>[0]);
  const { replay, wire, report } = analysis;
  const n = replay.requests.length;
  let sampleMs = 0;
  let sampleTokens = 0;
  let agree = true;
  for (let k = 0; k < NAIVE_SAMPLE; k++) {
    const req = replay.requests[Math.floor(((k + 0.5) * n) / NAIVE_SAMPLE)];
    const t0 = performance.now();
    let tokens = 0;
    for (const w of wire.messages(req)) for (const p of wireTextPieces(w.message)) tokens += js.encode(p, [], []).length;
    sampleMs += performance.now() - t0;
    sampleTokens += tokens;
    agree &&= tokens === report.requests[req.index].inputTokens;
  }
  const totalTokens = report.requests.reduce((s, r) => s + r.inputTokens, 0);
  const estimateMs = (sampleMs / sampleTokens) * totalTokens;
  const speedup = estimateMs / m.fullMs;
  return [
    `  naive (js-tiktoken on every request's full input), ${m.input.turns}-turn session JSON: ${NAIVE_SAMPLE} of ${n} requests sampled evenly, `
      + `${sampleTokens.toLocaleString('en')} tokens in ${ms(sampleMs)} (counts ${agree ? 'equal' : 'DIFFER from'} the report's)`,
    `    extrapolated by tokens to all ${totalTokens.toLocaleString('en')} tokens sent: ~${(estimateMs / 60000).toFixed(0)} min (an estimate, not run; `
      + `the messages come ready-built from the analysis and js-tiktoken's construction is left out, both in the naive script's favour)`,
    `    full analysis ${ms(m.fullMs)} is ~${Math.round(speedup).toLocaleString('en')}x faster [target >= 50x: ${verdict(speedup >= 50)}]`,
  ];
}

/** Peak RSS of a fresh process that only loads, analyses and inspects the file as the engine worker
 * does (this process holds too much else).
 * The peak depends on when the collector runs, so the child runs three times and the worst counts. */
async function memory(input: Input, dir: string): Promise<string> {
  const bundle = await childBundle(dir, 'memoryChild');
  const runs = [0, 1, 2].map(() => {
    const out = execFileSync(process.execPath, [bundle, input.path], {
      encoding: 'utf8',
      env: { ...process.env, NODE_PATH: join(ROOT, 'node_modules') },
    });
    return JSON.parse(out) as { baseKb: number; peakKb: number };
  });
  const peak = Math.max(...runs.map((r) => r.peakKb)) * 1024;
  const low = Math.min(...runs.map((r) => r.peakKb)) * 1024;
  const base = Math.max(...runs.map((r) => r.baseKb)) * 1024;
  const limit = 3 * input.bytes + 200e6;
  return (
    `  peak RSS analysing the ${input.turns}-turn ${input.format === 'json' ? 'session JSON' : 'state.db'} (${mb(input.bytes)}) in a child (VmHWM), worst of 3: `
    + `${mb(peak)} (best ${mb(low)}; ${mb(base)} before reading: node, code, encoding) [target <= 3 x file + 200 MB = ${mb(limit)}: ${verdict(peak <= limit)}]`
  );
}

function stalls(): string[] {
  const run = time(() => createTokenCounter('o200k_base').count('a'.repeat(1_000_000)));
  let seed = 1; // the LCG of bench/tokenizers.ts: no repeated chunk for the guard to reuse
  const letters = Array.from({ length: 1_000_000 }, () =>
    String.fromCharCode(97 + Math.floor(((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) * 26)),
  ).join('');
  const random = time(() => createTokenCounter('o200k_base').count(letters));
  return [
    `  1,000,000 x 'a' (one single-class run): ${ms(run)} [target <= 500 ms: ${verdict(run <= 500)}]`,
    `  1,000,000 pseudo-random lowercase letters (one piece, no repeated chunk): ${ms(random)} [target <= 500 ms: ${verdict(random <= 500)}]; the worst shapes a fuzz search finds are in the tokenizer figures`,
  ];
}

export async function benchPerformance(): Promise<string[]> {
  const SQL = await initSql();
  const dir = mkdtempSync(join(tmpdir(), 'prompt-inspector-perf-'));
  const lines: string[] = ['performance targets (generated Hermes sessions, seed 42; ratios within this run, nothing asserted on time)'];
  try {
    const inputs = buildInputs(dir, SQL);
    fullAnalysis(inputs[0]); // warm the JIT and load the encoding before anything is timed
    fullAnalysis(inputs[1]);

    lines.push(' cost vs floor (floor = read + JSON.parse / sql.js SELECT of every row + count() of each distinct wire text once):');
    const measured: Measured[] = [];
    // Analyses are dropped as soon as their figures are taken, so a big retained heap does not slow
    // the later timings down.
    const naiveLines: string[] = [];
    for (const input of inputs) {
      const { m, analysis, line } = measure(input, SQL);
      measured.push(m);
      lines.push(line);
      if (input.turns === 1000 && input.format === 'json') naiveLines.push(...naive(m, analysis));
    }

    lines.push(' linearity (time and --json report bytes per turn, 4,000 vs 250 turns):');
    for (const format of ['json', 'db'] as const) {
      const of = measured.filter((m) => m.input.format === format);
      const perTurn = of.map((m) => m.fullMs / m.input.turns);
      const bytesPerTurn = of.map((m) => m.reportBytes / m.input.turns);
      const t = perTurn[perTurn.length - 1] / perTurn[0];
      const b = bytesPerTurn[bytesPerTurn.length - 1] / bytesPerTurn[0];
      const label = format === 'json' ? 'session JSON' : 'state.db';
      lines.push(
        `  ${label} time per turn: ${of.map((m, i) => `${m.input.turns}: ${perTurn[i].toFixed(3)} ms`).join(', ')} → ${t.toFixed(2)}x [target <= 1.2x: ${verdict(t <= 1.2)}]`,
        `  ${label} --json report per turn: ${of.map((m, i) => `${m.input.turns}: ${Math.round(bytesPerTurn[i])} B (${mb(m.reportBytes)}, ${((m.reportBytes / m.input.bytes) * 100).toFixed(1)} % of the file)`).join(', ')} → ${b.toFixed(2)}x [target <= 1.2x, the time bar: ${verdict(b <= 1.2)}]`,
      );
    }

    lines.push(' against the naive approach:');
    lines.push(...naiveLines);

    const largest = measured.filter((m) => m.input.turns === SIZES[SIZES.length - 1]);
    lines.push(' memory:');
    for (const m of largest) lines.push(await memory(m.input, dir));

    lines.push(' stalls (fresh counter):');
    lines.push(...stalls());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return lines;
}

if (require.main === module) {
  benchPerformance()
    .then((lines) => console.log(lines.join('\n')))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
