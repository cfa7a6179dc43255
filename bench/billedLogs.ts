// The bill beside the replay at scale (issue 22, item 9): a 4,000-turn state.db in a Hermes home
// whose logs/ hold 20 MB of agent.log (four 5 MiB files, as the rotating handler leaves them), one
// `API call #N` line per replayed request among other loggers' lines, in upstream's record format on
// the writing machine's local clock (+05:30). Printed: the analysis alone against the analysis with
// its logs read, matched and priced (target ≤ 1.10×), and through the shipped worker, a call line
// appended to the live log: the refresh reads on from where it stopped (target ≤ 5 % of the first
// analysis). Run alone with `npx tsx bench/billedLogs.ts` (after `npm run build`).

import { appendFileSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import initSqlJs from 'sql.js';
import { billingLogOf } from '../src/analysis/billing';
import { analyze, withBilling } from '../src/analysis/report';
import type { Report } from '../src/shared/reportTypes';
import { createTokenCounter } from '../src/analysis/tokenizer';
import { PROFILES } from '../src/engine/profile';
import { EngineClient } from '../src/worker/engineProtocol';
import { agentLogsBeside, readAgentLogs } from '../src/transcripts/agentLogFiles';
import { loadTranscript } from '../src/transcripts/load';
import { synthesizeLongRun, toStateDb } from '../test/support/synthesize';
import { mb, median, verdict } from './figures';

const ROOT = join(__dirname, '..');
const TURNS = 4000;
const LOG_BYTES = 21e6;
const FILE_BYTES = 5 * 1024 * 1024;
const ZONE_SECONDS = 5.5 * 3600;
const RATIO_TARGET = 1.1;
const REFRESH_TARGET = 0.05;
const MODEL = 'anthropic/claude-sonnet-4.6';

const ms = (t: number): string => `${t.toFixed(0)} ms`;
const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** Python's default asctime for epoch seconds, on the writing machine's clock. */
function asctime(epoch: number): string {
  const d = new Date(Math.round((epoch + ZONE_SECONDS) * 1000));
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())},${pad(d.getUTCMilliseconds(), 3)}`;
}

/**
 * The call line record_response_usage logs when the response arrives (model-first, #104568 on),
 * before the session's next request goes out (`gap` seconds later).
 */
function callLine(n: number, sessionId: string, sentAt: number, prompt: number, read: number, gap = Infinity): string {
  const latency = Math.min(1.5 + (n % 7) * 0.3, Math.floor(gap * 8) / 10);
  const pct = prompt ? ((read / prompt) * 100).toFixed(0) : '0';
  const cache = read && prompt ? ` cache=${read}/${prompt} (${pct}%)` : '';
  return `${asctime(sentAt + latency)} INFO [${sessionId}] agent.conversation_loop: API call #${n}: model=${MODEL} provider=openrouter in=${prompt} out=${200 + (n % 50)} total=${prompt + 200 + (n % 50)} latency=${latency.toFixed(1)}s${cache}\n`;
}

/** Another logger's line, as tools write them between calls. */
function fillerLine(sessionId: string, at: number, k: number): string {
  return `${asctime(at)} INFO [${sessionId}] tools.terminal_tool: command finished in ${(k % 9) * 0.1 + 0.1}s: ${'output line of the tool, kept short by the formatter; '.repeat(3)}${k}\n`;
}

/**
 * The home's logs: every answered request's call line among filler, LOG_BYTES in all, cut into
 * FILE_BYTES files as the rotating handler cuts them; it keeps four (backupCount 3), so the oldest
 * calls are gone, as in a real home: their requests have no line.
 */
function writeLogs(dir: string, report: Report): { calls: number; bytes: number; last: { sessionId: string; sentAt: number; prompt: number } } {
  const requests = report.requests.filter((r) => r.sentAt !== undefined && !r.failed);
  const text: string[] = [];
  let bytes = 0;
  requests.forEach((r, i) => {
    const sentAt = r.sentAt as number;
    for (let k = 0; bytes < (LOG_BYTES * i) / requests.length; k++) {
      const line = fillerLine(r.sessionId, sentAt - 0.5, i * 31 + k);
      text.push(line);
      bytes += line.length;
    }
    const next = requests[i + 1];
    const gap = next?.sessionId === r.sessionId ? (next.sentAt as number) - sentAt : Infinity;
    const line = callLine(i + 1, r.sessionId, sentAt, r.inputTokens, r.prefix.reusedTokens, gap);
    text.push(line);
    bytes += line.length;
  });
  const all = Buffer.from(text.join(''));
  let kept = 0;
  let calls = 0;
  for (let at = all.length, k = 0; at > 0 && k < 4; k++) {
    let from = Math.max(0, at - FILE_BYTES);
    if (from > 0) from = all.indexOf(10, from) + 1;
    const file = all.subarray(from, at);
    writeFileSync(join(dir, k === 0 ? 'agent.log' : `agent.log.${k}`), file);
    kept += file.length;
    calls += file.toString('latin1').split('API call #').length - 1;
    at = from;
  }
  const lastRequest = requests[requests.length - 1];
  return { calls, bytes: kept, last: { sessionId: lastRequest.sessionId, sentAt: lastRequest.sentAt as number, prompt: lastRequest.inputTokens } };
}

export async function benchBilledLogs(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'pi-billed-'));
  try {
    const SQL = await initSqlJs();
    const db = join(dir, 'state.db');
    writeFileSync(db, toStateDb(SQL, synthesizeLongRun(TURNS, 11).session));
    const options = { profile: PROFILES['hermes-current'], counter: createTokenCounter('o200k_base'), messages: false };
    const plain = analyze(await loadTranscript(db), options);
    mkdirSync(join(dir, 'logs'));
    const written = writeLogs(join(dir, 'logs'), plain.report);

    // Interleaved, best of three, each with a fresh token counter (no cache carried between runs).
    const alone: number[] = [];
    const billed: number[] = [];
    let matched = 0;
    for (let k = 0; k < 3; k++) {
      const fresh = { ...options, counter: createTokenCounter('o200k_base') };
      let t = performance.now();
      analyze(await loadTranscript(db), fresh);
      alone.push(performance.now() - t);
      const again = { ...options, counter: createTokenCounter('o200k_base') };
      t = performance.now();
      const transcript = await loadTranscript(db);
      const log = billingLogOf(readAgentLogs(agentLogsBeside(db, transcript.format)));
      const report = withBilling(analyze(transcript, again), log).report;
      billed.push(performance.now() - t);
      matched = report.billing?.sessions.reduce((n, s) => n + s.matched, 0) ?? 0;
    }
    if (matched !== written.calls) throw new Error(`${matched} of ${written.calls} calls matched: the bench's log is not what it means to be`);
    const a = Math.min(...alone);
    const b = Math.min(...billed);
    const lines = [
      `the bill beside the replay: a ${TURNS}-turn state.db (${mb(statSync(db).size)}) with ${mb(written.bytes)} of agent.log in four files (as rotation keeps them), ${written.calls} call lines (best of 3, interleaved):`,
      `  analysis ${ms(a)}; with its logs read, matched (${matched} of ${written.calls}) and priced ${ms(b)} = ${(b / a).toFixed(2)}x (target ≤ ${RATIO_TARGET}x: ${verdict(b / a <= RATIO_TARGET)})`,
    ];

    // The live log grows by one call line: the worker reads on from where it stopped.
    const engine = new EngineClient(join(ROOT, 'dist', 'engine.js'));
    try {
      const params = { path: db, title: 'home', profile: 'hermes-current', tokenizer: 'o200k_base', key: 'home' } as const;
      let t = performance.now();
      await engine.call('analyze', params);
      const first = performance.now() - t;
      const refreshes: number[] = [];
      for (let k = 1; k <= 5; k++) {
        const { sessionId, sentAt, prompt } = written.last;
        appendFileSync(join(dir, 'logs', 'agent.log'), callLine(written.calls + k, sessionId, sentAt + 60 * k, prompt, prompt));
        t = performance.now();
        await engine.call('analyze', params);
        refreshes.push(performance.now() - t);
      }
      const typical = median(refreshes);
      lines.push(
        `  through the worker: first analysis ${ms(first)}; a call line appended to agent.log, 5 times: ${refreshes.map(ms).join(', ')}, median ${ms(typical)} = ${((typical / first) * 100).toFixed(1)} % (target ≤ ${REFRESH_TARGET * 100} %: ${verdict(typical / first <= REFRESH_TARGET)})`,
      );
    } finally {
      await engine.dispose();
    }
    return lines;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  void benchBilledLogs().then((lines) => {
    for (const line of lines) console.log(line);
  });
}
