// The webview with the largest generated session open, in real Chromium (the test harness: the
// real bundle, the strict CSP, a host answering from a real Inspection over the same protocol):
// the size of the first host-to-webview message, first paint, jumps to turns across the session,
// and a 5,000-message request that must render only the rows in view.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildIndex, Inspection } from '../src/protocol/inspection';
import { analyze } from '../src/analysis/report';
import { createTokenCounter } from '../src/analysis/tokenizer';
import { PROFILES } from '../src/engine/profile';
import { PROTOCOL_VERSION, type MessageView, type RequestView, type TurnView } from '../src/shared/messages';
import { loadTranscript } from '../src/transcripts/load';
import { synthesizeLongSession, toSessionJson } from '../test/support/synthesize';
import { Harness, type View } from '../test/support/webviewHarness';
import { verdict } from './figures';

const TURNS = 4000;
const JUMPS = 25;
const LONG_REQUEST = 5000;
const SETTLED_MS = 300;

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KB`;
const ms = (t: number): string => `${t.toFixed(0)} ms`;

function percentile(xs: number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

/**
 * Selects a turn as a click in the turn list does (a pi-select event), then times, in the page, the
 * first frame that shows it selected in the list, the chart and the request tabs, and the first
 * frame that also shows the message the request opens at (its page pulled from the host).
 */
function jump(v: View, turn: number, request: number, openAt: number): Promise<{ view: number; body: number }> {
  // Page-side code as text: this file is compiled without the DOM's types.
  return v.page.evaluate(`new Promise((done, fail) => {
    const [t, r, at] = ${JSON.stringify([turn, request, openAt])};
    const app = document.querySelector('prompt-inspector-app')?.shadowRoot;
    const stepper = app?.querySelector('turn-stepper');
    if (!app || !stepper) { fail(new Error('no inspector')); return; }
    const t0 = performance.now();
    let view = -1;
    stepper.dispatchEvent(new CustomEvent('pi-select', { detail: { turn: t }, bubbles: true, composed: true }));
    const frame = () => {
      const now = performance.now() - t0;
      if (view < 0
        && stepper.shadowRoot?.querySelector('#turn-' + t + '[aria-selected=true]')
        && app.querySelector('token-timeline')?.shadowRoot?.querySelector('svg[aria-valuenow="' + r + '"] .outline')
        && app.querySelector('request-bar')?.shadowRoot?.querySelector('[data-request="' + r + '"][aria-selected=true]')) view = now;
      const rows = [...(app.querySelector('message-list')?.shadowRoot?.querySelectorAll('message-view') ?? [])];
      if (view >= 0 && rows.some((m) => m.shadowRoot?.querySelector('.idx')?.textContent === '#' + at)) done({ view, body: now });
      else if (now > 10000) fail(new Error('turn ' + t + ' never showed'));
      else requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  })`);
}

/** Until the page has asked the host for nothing for SETTLED_MS. */
async function settled(v: View): Promise<void> {
  let seen = -1;
  while (seen !== v.received.length) {
    seen = v.received.length;
    await new Promise((ok) => setTimeout(ok, SETTLED_MS));
  }
}

/** One request of LONG_REQUEST messages, bodies made on demand, pages counted. */
function longRequest(): { data: Parameters<Harness['open']>[0]; asked: { start: number; count: number }[] } {
  const asked: { start: number; count: number }[] = [];
  const body = (i: number): MessageView => ({
    index: i,
    role: i === 0 ? 'system' : i % 2 ? 'user' : 'assistant',
    text: `message ${i}\n${'line of text\n'.repeat(i % 5)}`,
    tokens: 10,
    roughTokens: 12,
    substitution: null,
    storedText: null,
    injected: [],
    toolCalls: [],
    toolCallId: null,
  });
  const turns: TurnView[] = [
    { index: 0, sessionId: 's', userMessageIndex: 0, title: 'long', requests: [0], injectedKinds: [], compression: null, costUsd: null },
  ];
  const requests: RequestView[] = [
    {
      index: 0,
      turn: 0,
      sessionId: 's',
      systemPromptSha256: 'a'.repeat(64),
      messageCount: LONG_REQUEST,
      inputTokens: LONG_REQUEST * 10,
      categories: { 'history/user': LONG_REQUEST * 10 },
      reusedTokens: 0,
      previousRequest: null,
      stable: true,
      breakAt: null,
      failed: false,
      sentAt: null,
      gapSeconds: null,
      userWireIndex: 1,
      captured: null,
      billed: null,
      cacheMiss: null,
      cost: null,
    },
  ];
  const header = { title: 'long', source: { path: 'long.jsonl', format: 'synthetic' }, profile: 'hermes-v1', tokenizer: 'o200k_base', sessions: [] };
  return {
    asked,
    data: {
      index: buildIndex(header, turns, requests, []),
      turns,
      requests,
      findings: [],
      messages(_r, start, count) {
        asked.push({ start, count });
        return Array.from({ length: Math.max(0, Math.min(LONG_REQUEST, start + count) - start) }, (_, k) => body(start + k));
      },
      breakContext: () => null,
    },
  };
}

function scrollRows(v: View, to: number | 'end'): Promise<number> {
  return v.page.evaluate(`(async () => {
    const list = document.querySelector('prompt-inspector-app')?.shadowRoot?.querySelector('message-list')?.shadowRoot;
    const scroller = list?.querySelector('lit-virtualizer');
    if (!list || !scroller) return -1;
    scroller.scrollTop = ${to === 'end' ? '1e9' : to};
    for (let i = 0; i < 10; i++) await new Promise((ok) => requestAnimationFrame(ok));
    return list.querySelectorAll('message-view, [data-placeholder]').length;
  })()`);
}

export async function benchWebview(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'prompt-inspector-webview-bench-'));
  const lines = [` webview in real Chromium (the test harness: the real bundle and CSP, the host answering from an Inspection), ${TURNS}-turn session JSON:`];
  let h: Harness | undefined;
  try {
    const path = join(dir, `session_bench_${TURNS}.json`);
    writeFileSync(path, toSessionJson(synthesizeLongSession(TURNS, 42)));
    const analysis = analyze(await loadTranscript(path), { profile: PROFILES['hermes-current'], counter: createTokenCounter('o200k_base'), messages: false });
    const ins = new Inspection(analysis, `sessions/session_bench_${TURNS}.json`);
    const { index } = ins;
    const init = Buffer.byteLength(JSON.stringify({ type: 'init', version: PROTOCOL_VERSION, index, state: null }));
    const part = (v: unknown): string => kb(Buffer.byteLength(JSON.stringify(v)));
    lines.push(
      `  first host-to-webview message (${index.turnCount} turns, ${index.requestCount} requests): ${kb(init)} [target < 256 KB: ${verdict(init < 256 * 1024)}]`,
      `    turn columns ${part(index.turns)}, request columns ${part(index.requests)}, sessions ${part(index.sessions)}; `
        + `the same as whole lists would be ${kb(Buffer.byteLength(JSON.stringify({ turns: ins.turns, requests: ins.requests, findings: ins.findings })))} (titles, hashes, causes and findings now come in pages)`,
    );

    h = await Harness.start();
    const v = await h.open(ins);
    const paint = await v.page.waitForFunction(() => (globalThis as { __piFirstPaint?: number }).__piFirstPaint, undefined, { timeout: 30_000 });
    const firstPaint = Number(await paint.jsonValue());
    lines.push(
      `  first paint (init delivered → first frame with the selected turn and a message body): ${ms(firstPaint)} [target <= 1,000 ms: ${verdict(firstPaint <= 1000)}]`,
    );
    // Turns spread over the whole session, visited out of order, so each is a real jump.
    const targets = Array.from({ length: JUMPS }, (_, k) => Math.floor((((k * 7919) % JUMPS) + 0.5) * (index.turnCount / JUMPS)));
    const jumps = async (settle: boolean): Promise<{ views: number[]; bodies: number[] }> => {
      const views: number[] = [];
      const bodies: number[] = [];
      for (const t of targets) {
        const request = ins.turns[t].requests[0];
        const r = ins.requests[request];
        const openAt = r.userWireIndex !== null && r.userWireIndex < r.messageCount ? r.userWireIndex : 0;
        if (settle) await settled(v);
        const took = await jump(v, t, request, openAt);
        views.push(took.view);
        bodies.push(took.body);
      }
      return { views, bodies };
    };
    // The target's case: each jump from a settled view, as a user's is (what the previous screen
    // asked for has arrived). Then the same jumps back to back, reported without a target.
    const { views, bodies } = await jumps(true);
    const rapid = await jumps(false);
    const worst = Math.max(...bodies);
    lines.push(
      `  jump to a turn (${JUMPS} turns across the session, out of order, each from a settled view): selection shown in the list, chart and tabs in median ${ms(percentile(views, 0.5))}, worst ${ms(Math.max(...views))}; `
        + `with the opened message's body pulled from the host: median ${ms(percentile(bodies, 0.5))}, worst ${ms(worst)} [target <= 100 ms: ${verdict(worst <= 100)}]`,
      `    the first jump after opening ${ms(bodies[0])}; the same ${JUMPS} jumps back to back (each while the previous one's pages still arrive): median ${ms(percentile(rapid.bodies, 0.5))}, worst ${ms(Math.max(...rapid.bodies))} (reported, no target)`,
    );
    const dom: { turns: number; bars: number } = await v.page.evaluate(`(() => {
      const app = document.querySelector('prompt-inspector-app')?.shadowRoot;
      return {
        turns: app?.querySelector('turn-stepper')?.shadowRoot?.querySelectorAll('[role=option]').length ?? -1,
        bars: (app?.querySelector('token-timeline')?.shadowRoot?.querySelector('path.reused')?.getAttribute('d') ?? '').split('M').length - 1,
      };
    })()`);
    lines.push(`    in the DOM meanwhile: ${dom.turns} of ${index.turnCount} turn rows, ${dom.bars} of ${index.requestCount} chart bars drawn`);
    await v.close();

    const long = longRequest();
    const lv = await h.open(long.data);
    await lv.page.waitForFunction(() => (globalThis as { __piFirstPaint?: number }).__piFirstPaint, undefined, { timeout: 30_000 });
    const top = await scrollRows(lv, 0);
    const middle = await scrollRows(lv, 200_000);
    const end = await scrollRows(lv, 'end');
    const pages = long.asked.length;
    const most = Math.max(top, middle, end);
    lines.push(
      `  ${LONG_REQUEST.toLocaleString('en')}-message request: message rows in the DOM at the top ${top}, mid-way ${middle}, at the end ${end}; `
        + `${pages} pages of bodies asked for in all [target: only visible rows rendered (under 2 % of the messages): ${verdict(most > 0 && most < LONG_REQUEST * 0.02)}]`,
    );
    await lv.close();
  } finally {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return lines;
}
