// Plays the host side of the inspector protocol against the real webview bundle in Chromium: the
// page is rendered by renderInspectorHtml and served from 127.0.0.1, the transport is the
// window.__promptInspectorTransport hook (installed before the bundle runs), and the answers come
// from a real Inspection (or a synthetic host shaped like one); for a file of several lineages, from
// its overview and each lineage's own Inspection, switched by `openLineage` as the extension does.
// Every request the page makes that is not to our own origin is recorded and refused.

import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, extname, join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './chromium';
import type { SessionOverview } from '../../src/shared/overviewTypes';
import { analyze, withBilling } from '../../src/analysis/report';
import { billingLogOf } from '../../src/analysis/billing';
import { sessionOverview } from '../../src/analysis/sessionOverview';
import { Inspection } from '../../src/protocol/inspection';
import { createTokenCounter } from '../../src/analysis/tokenizer';
import { PROFILES } from '../../src/engine/profile';
import type {
  BreakContext,
  DiagnosticView,
  FromWebview,
  InspectorIndex,
  MessageView,
  PagedList,
  RequestMap,
  RequestView,
  ToWebview,
  TurnView,
  ViewState,
} from '../../src/shared/messages';
import { pageOf, PROTOCOL_VERSION } from '../../src/shared/messages';
import { serve } from '../../src/shared/rpc';
import { agentLogsBeside, readAgentLogs } from '../../src/transcripts/agentLogFiles';
import { loadTranscript } from '../../src/transcripts/load';
import { renderInspectorHtml } from '../../src/shared/webviewHtml';
import type { ProfileName } from '../../src/shared/settingNames';

export const ROOT = resolve(__dirname, '../..');
export const SHOTS = join(ROOT, 'test-results/webview');
export const example = (p: string): string => join(ROOT, 'examples', p);

/** What the harness answers from: Inspection has exactly this shape. */
export interface HostData {
  index: InspectorIndex;
  turns: TurnView[];
  requests: RequestView[];
  findings: DiagnosticView[];
  messages(request: number, start: number, count: number): MessageView[];
  breakContext(request: number): BreakContext | null;
}

/** The file's inspection as the extension's worker makes it: the agent.log files beside it matched too. */
export async function inspect(path: string, profile: ProfileName, title = path): Promise<Inspection> {
  const transcript = await loadTranscript(path);
  const analysis = analyze(transcript, { profile: PROFILES[profile], counter: createTokenCounter('o200k_base'), messages: false });
  const logs = agentLogsBeside(path, transcript.format);
  return new Inspection(withBilling(analysis, logs.length ? billingLogOf(readAgentLogs(logs)) : null), title);
}

/** A file of several lineages as the host serves it: the overview, and the data of each scope `openLineage` names. */
export interface HostScopes {
  overview: SessionOverview;
  /** The whole file (null) or one lineage, by its id. */
  scope(lineage: string | null): Promise<HostData>;
}

/**
 * The overview of a file by the real engine, and each lineage loaded alone (loadTranscript's
 * `lineage`, as `--lineage` and the extension load it) and analysed when first opened.
 * `readWholeLimit` below the file's size makes a state.db only listed, as a large one is.
 */
export async function inspectLineages(
  path: string,
  profile: ProfileName,
  load: { readWholeLimit?: number } = {},
): Promise<{ whole: Inspection; scopes: HostScopes }> {
  const options = { profile: PROFILES[profile], counter: createTokenCounter('o200k_base'), messages: false };
  const transcript = await loadTranscript(path, load);
  const analysis = analyze(transcript, options);
  const whole = new Inspection(analysis, basename(path));
  const overview = sessionOverview(transcript, analysis.report);
  const lineages = new Map<string, Promise<Inspection>>();
  const titleOf = (id: string): string => {
    const walk = (rows: SessionOverview['lineages']): string | undefined => {
      for (const l of rows) {
        const found = l.id === id ? (l.title ?? l.id) : walk(l.children);
        if (found !== undefined) return found;
      }
      return undefined;
    };
    return walk(overview.lineages) ?? id;
  };
  const scope = (lineage: string | null): Promise<HostData> => {
    if (lineage === null) return Promise.resolve(whole);
    let found = lineages.get(lineage);
    if (!found) {
      found = loadTranscript(path, { ...load, lineage }).then((t) => new Inspection(analyze(t, options), titleOf(lineage)));
      lineages.set(lineage, found);
    }
    return found;
  };
  return { whole, scopes: { overview, scope } };
}

export type Theme = 'light' | 'dark' | 'high-contrast';

/** A representative part of what VS Code sets on <html> for each theme kind (Modern themes, HC Black). */
const THEME_VARIABLES: Record<Theme, Record<string, string>> = {
  light: {
    'editor-background': '#ffffff',
    foreground: '#3b3b3b',
    descriptionForeground: '#717171',
    'sideBar-background': '#f8f8f8',
    'sideBarSectionHeader-background': '#f8f8f8',
    'sideBarSectionHeader-border': '#e5e5e5',
    'sideBarTitle-foreground': '#3b3b3b',
    'panel-border': '#e5e5e5',
    focusBorder: '#005fb8',
    'list-activeSelectionBackground': '#e8e8e8',
    'list-inactiveSelectionBackground': '#e4e6f1',
    'list-hoverBackground': '#f2f2f2',
    'button-background': '#005fb8',
    'button-foreground': '#ffffff',
    'button-secondaryBackground': '#e5e5e5',
    'button-secondaryForeground': '#3b3b3b',
    'badge-background': '#cccccc',
    'badge-foreground': '#3b3b3b',
    'textCodeBlock-background': '#f3f3f3',
    'textLink-foreground': '#005fb8',
    'editorError-foreground': '#e51400',
    'editorWarning-foreground': '#bf8803',
    'editorInfo-foreground': '#1a85ff',
    'testing-iconPassed': '#388a34',
    'charts-red': '#e51400',
    'charts-blue': '#1a85ff',
    'charts-yellow': '#bf8803',
    'charts-orange': '#d18616',
    'charts-green': '#388a34',
    'charts-purple': '#652d90',
    'diffEditor-insertedTextBackground': '#9ccc2c40',
    'diffEditor-removedTextBackground': '#ff000033',
    'icon-foreground': '#3b3b3b',
  },
  dark: {
    'editor-background': '#1f1f1f',
    foreground: '#cccccc',
    descriptionForeground: '#9d9d9d',
    'sideBar-background': '#181818',
    'sideBarSectionHeader-background': '#181818',
    'sideBarSectionHeader-border': '#2b2b2b',
    'sideBarTitle-foreground': '#cccccc',
    'panel-border': '#2b2b2b',
    focusBorder: '#0078d4',
    'list-activeSelectionBackground': '#04395e',
    'list-activeSelectionForeground': '#ffffff',
    'list-inactiveSelectionBackground': '#37373d',
    'list-hoverBackground': '#2a2d2e',
    'button-background': '#0078d4',
    'button-foreground': '#ffffff',
    'button-secondaryBackground': '#313131',
    'button-secondaryForeground': '#cccccc',
    'badge-background': '#616161',
    'badge-foreground': '#f8f8f8',
    'textCodeBlock-background': '#2b2b2b',
    'textLink-foreground': '#4daafc',
    'editorError-foreground': '#f85149',
    'editorWarning-foreground': '#cca700',
    'editorInfo-foreground': '#3794ff',
    'testing-iconPassed': '#73c991',
    'charts-red': '#f14c4c',
    'charts-blue': '#3794ff',
    'charts-yellow': '#cca700',
    'charts-orange': '#d18616',
    'charts-green': '#89d185',
    'charts-purple': '#b180d7',
    'diffEditor-insertedTextBackground': '#9ccc2c33',
    'diffEditor-removedTextBackground': '#ff000033',
    'icon-foreground': '#cccccc',
  },
  'high-contrast': {
    'editor-background': '#000000',
    foreground: '#ffffff',
    descriptionForeground: '#ffffff',
    'sideBar-background': '#000000',
    'sideBarSectionHeader-background': '#000000',
    'sideBarSectionHeader-border': '#6fc3df',
    'sideBarTitle-foreground': '#ffffff',
    'panel-border': '#6fc3df',
    focusBorder: '#f38518',
    contrastBorder: '#6fc3df',
    contrastActiveBorder: '#f38518',
    'list-hoverBackground': '#000000',
    'button-background': '#000000',
    'button-foreground': '#ffffff',
    'button-border': '#6fc3df',
    'button-secondaryBackground': '#000000',
    'button-secondaryForeground': '#ffffff',
    'badge-background': '#000000',
    'badge-foreground': '#ffffff',
    'textCodeBlock-background': '#000000',
    'textLink-foreground': '#21a6ff',
    'editorError-foreground': '#f48771',
    'editorWarning-foreground': '#ffd370',
    'editorInfo-foreground': '#3794ff',
    'testing-iconPassed': '#73c991',
    'charts-red': '#f48771',
    'charts-blue': '#3794ff',
    'charts-yellow': '#ffd370',
    'charts-orange': '#ffa657',
    'charts-green': '#89d185',
    'charts-purple': '#d2a8ff',
    'diffEditor-insertedTextBackground': '#33ff2e33',
    'diffEditor-removedTextBackground': '#ff000033',
    'icon-foreground': '#ffffff',
  },
};

const COMMON_VARIABLES: Record<string, string> = {
  'font-family': 'system-ui, "Ubuntu", "Droid Sans", sans-serif',
  'font-size': '13px',
  'font-weight': 'normal',
  'editor-font-family': '"Droid Sans Mono", "DejaVu Sans Mono", monospace',
  'editor-font-size': '12px',
};

/** Runs in the page before any of its scripts: the transport, the theme, a CSP violation log. */
function initScript(theme: Theme): string {
  const vars = Object.entries({ ...COMMON_VARIABLES, ...THEME_VARIABLES[theme] }).map(([k, v]) => [`--vscode-${k}`, v]);
  return `(() => {
    const handlers = [];
    globalThis.__promptInspectorTransport = {
      post(message) { globalThis.__piHostReceive(JSON.stringify(message)); },
      onMessage(handler) { handlers.push(handler); },
    };
    // When each host message reached the page, for the bench's timings (bench/webview.ts).
    globalThis.__piDelivered = [];
    globalThis.__piDeliver = (message) => {
      globalThis.__piDelivered.push({ type: message.type, at: performance.now() });
      for (const h of handlers) h(message);
      if (message.type === 'init') watchFirstPaint(performance.now());
    };
    // The first frame after init that shows the selected turn and a message body.
    const watchFirstPaint = (since) => {
      const shows = () => {
        const app = document.querySelector('prompt-inspector-app')?.shadowRoot;
        return !!app?.querySelector('turn-stepper')?.shadowRoot?.querySelector('[role=option][aria-selected=true]')
          && !!app.querySelector('message-list')?.shadowRoot?.querySelector('message-view');
      };
      const frame = () => {
        if (shows()) globalThis.__piFirstPaint = performance.now() - since;
        else if (performance.now() - since < 30000) requestAnimationFrame(frame);
      };
      requestAnimationFrame(frame);
    };
    globalThis.__piCsp = [];
    document.addEventListener('securitypolicyviolation', (e) => { globalThis.__piCsp.push(e.violatedDirective + ' ' + e.blockedURI); });
    // As VS Code does: theme variables inline on <html>, before the page renders.
    const vars = ${JSON.stringify(vars)};
    const apply = () => { for (const [k, v] of vars) document.documentElement.style.setProperty(k, v); };
    if (document.documentElement) apply();
    else new MutationObserver((_, o) => { if (document.documentElement) { apply(); o.disconnect(); } }).observe(document, { childList: true });
  })();`;
}

const TYPES: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css', '.ttf': 'font/ttf', '.html': 'text/html' };

/** Builds the bundles if this test runs before `npm run build`. */
function ensureBuilt(): void {
  if (existsSync(join(ROOT, 'dist/webview.js')) && existsSync(join(ROOT, 'dist/webview.css'))) return;
  const r = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`node esbuild.mjs failed:\n${r.stdout}\n${r.stderr}`);
}

export class Harness {
  private counter = 0;

  private constructor(
    private readonly browser: Browser,
    private readonly server: Server,
    /** The pages the server answers with, by path. */
    private readonly pages: Map<string, string>,
    readonly origin: string,
  ) {}

  static async start(): Promise<Harness> {
    ensureBuilt();
    const pages = new Map<string, string>();
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const page = pages.get(url.pathname);
      if (page !== undefined) {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
        return;
      }
      const m = /^\/dist\/([\w.-]+)$/.exec(url.pathname);
      const file = m ? join(ROOT, 'dist', m[1]) : '';
      if (file && existsSync(file)) {
        res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    let browser: Browser;
    try {
      browser = await launchChromium();
    } catch (e) {
      server.close();
      throw e;
    }
    return new Harness(browser, server, pages, origin);
  }

  /** Opens the inspector page on `data`, waits for the ready → init handshake. */
  async open(data: HostData, opts: { theme?: Theme; state?: ViewState | null; width?: number; scopes?: HostScopes } = {}): Promise<View> {
    const theme = opts.theme ?? 'light';
    const path = `/inspector-${++this.counter}`;
    const nonce = randomBytes(16).toString('base64');
    this.pages.set(
      path,
      renderInspectorHtml({
        title: 'Prompt Inspector',
        nonce,
        cspSource: this.origin,
        script: { uri: `${this.origin}/dist/webview.js` },
        style: { uri: `${this.origin}/dist/webview.css` },
        codicons: { uri: `${this.origin}/dist/codicon.css` },
        bodyClass: `vscode-${theme}`,
      }),
    );
    const context = await this.browser.newContext({ viewport: { width: opts.width ?? 1400, height: 900 } });
    const page = await context.newPage();
    const view = new View(page, data, opts.state ?? null, opts.scopes ?? null);
    await page.route('**/*', (route) => {
      const url = route.request().url();
      view.requests.push(url);
      if (url.startsWith(`${this.origin}/`)) return route.continue();
      view.foreignRequests.push(url);
      return route.abort();
    });
    await page.exposeFunction('__piHostReceive', (json: string) => view.receive(JSON.parse(json) as FromWebview));
    await page.addInitScript(initScript(theme));
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') view.console.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => view.console.push(`pageerror: ${e.message}`));
    await page.goto(`${this.origin}${path}`);
    // A bundle that never says ready must fail the test, not hang it.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const silent = new Promise<never>((_, fail) => {
      timer = setTimeout(() => fail(new Error(`no ready from the page: ${view.console.join('; ')}`)), 30_000);
    });
    try {
      await Promise.race([view.initialised, silent]);
    } finally {
      clearTimeout(timer);
    }
    return view;
  }

  async close(): Promise<void> {
    await this.browser.close();
    await new Promise((ok) => this.server.close(ok));
  }
}

/** One open page and the host side of its conversation. */
export class View {
  readonly received: FromWebview[] = [];
  /** Every URL the page asked for, and those not to our origin (refused). */
  readonly requests: string[] = [];
  readonly foreignRequests: string[] = [];
  readonly console: string[] = [];
  readonly initialised: Promise<void>;
  private resolveInit!: () => void;

  constructor(
    readonly page: Page,
    public data: HostData,
    private readonly state: ViewState | null,
    /** A file of several lineages; null: one, no overview. */
    readonly scopes: HostScopes | null,
  ) {
    this.initialised = new Promise((ok) => {
      this.resolveInit = ok;
    });
  }

  async receive(m: FromWebview): Promise<void> {
    this.received.push(m);
    if (m.type === 'ready') {
      // As the extension does: the index is the scope of the state's lineage.
      if (this.scopes && this.state?.lineage) this.data = await this.scopes.scope(this.state.lineage);
      await this.send({ type: 'init', version: PROTOCOL_VERSION, index: this.data.index, overview: this.scopes?.overview ?? null, state: this.state });
      this.resolveInit();
    } else if (m.type === 'request') {
      await this.send(await this.answer(m));
    }
  }

  /** Answers from `data` as it is when asked: a test may swap it for a live update. */
  private readonly answer = serve<RequestMap>({
    messages: ({ request, start, count }) => this.data.messages(request, start, count),
    turns: this.listPage('turns'),
    requests: this.listPage('requests'),
    findings: this.listPage('findings'),
    breakContext: ({ request }) => this.data.breakContext(request),
    openLineage: async ({ lineage }) => {
      if (!this.scopes) {
        if (lineage === null) return this.data.index;
        throw new Error(`no lineage ${lineage}: the file has one`);
      }
      this.data = await this.scopes.scope(lineage);
      return this.data.index;
    },
  });

  private listPage<L extends PagedList>(list: L) {
    return ({ start, count }: RequestMap[L]['params']) => pageOf<HostData[L][number]>(this.data[list], start, count);
  }

  send(m: ToWebview): Promise<void> {
    return this.page.evaluate((message) => (globalThis as unknown as { __piDeliver(x: unknown): void }).__piDeliver(message), m as unknown);
  }

  /** The messages of one type the page has posted so far. */
  sent<T extends FromWebview['type']>(type: T): Extract<FromWebview, { type: T }>[] {
    return this.received.filter((m): m is Extract<FromWebview, { type: T }> => m.type === type);
  }

  /** CSP violations the page reported to itself. */
  cspViolations(): Promise<string[]> {
    return this.page.evaluate<string[]>('globalThis.__piCsp');
  }

  async close(): Promise<void> {
    await this.page.context().close();
  }
}

/** Retries `check` (50 ms apart, 10 s in all) until it stops throwing; its last error otherwise. */
export async function eventually<T>(check: () => Promise<T> | T, what = 'condition'): Promise<T> {
  let last: unknown;
  for (let i = 0; i < 200; i++) {
    try {
      return await check();
    } catch (e) {
      last = e;
      await new Promise((ok) => setTimeout(ok, 50));
    }
  }
  throw new Error(`${what} never held: ${(last as Error)?.message ?? last}`);
}
