// Calls from the extension host to its analysis worker (dist/engine.js), over the same RPC as the
// webview's (src/shared/rpc.ts). The worker owns every analysis; the host holds only indexes and
// asks for pages, so the extension host's event loop never runs a replay or a tokenizer.
// No vscode import: the bench drives the worker through this same client.

import { Worker } from 'node:worker_threads';
import type { Diagnostic } from '../shared/reportTypes';
import type { RecordedReport } from '../shared/recordedReportTypes';
import type { AgentFolderListing, AgentName, AgentSessionFile, AgentSessionRow } from '../shared/agentFolderTypes';
import type { BreakContext, InspectorIndex, MessageView, PagedList, RequestMap, SessionTurn } from '../shared/messages';
import { RpcClient, type RpcResponse } from '../shared/rpc';
import type { SessionSummary } from '../shared/model/transcript';
import type { OverviewLineage, SessionOverview } from '../shared/overviewTypes';
import type { PriceOverrides, ProfileName, TokenizerName } from '../shared/settingNames';
import type { ProgressStep } from '../shared/shownText';

/** How far the analysis under `key` is: the worker posts it between its steps, outside the RPC's answers. */
export interface EngineProgress {
  type: 'progress';
  key: string;
  step: ProgressStep;
  done: number;
  total: number;
}

/** What a call still waiting rejects with when its worker's work was cancelled (EngineClient.cancel). */
export class AnalysisCancelled extends Error {
  constructor() {
    super('the analysis was cancelled');
  }
}

/** The turns and requests added when an analysis resumed with rows appended to its transcript: all that was replayed. */
export interface Resumed {
  turns: number;
  requests: number;
  /** Earlier turns reported again: renumbered (a turn of another lineage came before them) or gone on to new requests. */
  reported: number;
}

/** A transcript read again that was rewritten (not only grown): the sessions replayed, of all; the rest were taken over unchanged. */
export interface Recomputed {
  sessions: number;
  of: number;
}

export interface EngineCalls {
  analyze: {
    params: {
      key: string;
      path: string;
      title: string;
      profile: ProfileName;
      tokenizer: TokenizerName;
      session?: string;
      readWholeLimit?: number;
      /** Prices the user set by model (docs/billing.md "Cost"). */
      prices?: PriceOverrides;
    };
    result: {
      index: InspectorIndex;
      /** null for a file of one lineage (forks counted). */
      overview: SessionOverview | null;
      diagnostics: Diagnostic[];
      catalog: SessionSummary[] | null;
      listedOnly: boolean;
      /** Asked again under the same key: what the earlier analysis was resumed with, when it was not made whole. */
      resumed: Resumed | null;
      /** Asked again after a rewrite: how many sessions were replayed, the families that did not change kept; null when analysed whole. */
      recomputed: Recomputed | null;
      /**
       * Another agent's transcript (docs/recorded.md), read as recorded rather than replayed: its
       * report, which the view shows instead of the index; `diagnostics` are then its findings.
       */
      recorded: RecordedReport | null;
    };
  };
  /**
   * A state.db's overview from its session table alone, none of its rows read (`overview.read` false),
   * kept under `key` for lineages to open from it: what the view shows while `analyze` reads the
   * whole file. Null where there is none to show first (no SQLite file, one lineage, a session chosen).
   */
  list: { params: EngineCalls['analyze']['params']; result: EngineCalls['analyze']['result'] | null };
  /**
   * The overview rows of the families named (top-level rows' ids, each row with the forks under it)
   * of the file listed under `key`, their sessions read alone from the file and analysed, billed
   * from the logs beside it, as a whole analysis finds them (issue 23 item 1): what a listed
   * overview is filled with, a few rows at a time (while the whole file is read, or for a file too
   * large to be). An id that is no top-level row gives no row. With them, the findings of reading
   * and analysing those families that are placed by session and row, not by turn or request (those
   * would index an analysis the host does not hold); a read that fails is one such finding.
   */
  fill: { params: { key: string; lineages: string[] }; result: { rows: OverviewLineage[]; diagnostics: Diagnostic[] } };
  /**
   * Analyses one lineage (an overview row's id) of the file analysed under `key`, kept under `scope`
   * for the page calls below until dropped; rejects for an id that names no lineage.
   */
  openLineage: { params: { key: string; lineage: string; scope: string }; result: InspectorIndex };
  messages: { params: { key: string; request: number; start: number; count: number }; result: MessageView[] };
  sessionTurns: { params: { key: string; sessionId: string }; result: SessionTurn[] };
  page: { params: { key: string; list: PagedList; start: number; count: number }; result: RequestMap[PagedList]['result'] };
  breakContext: { params: { key: string; request: number }; result: BreakContext | null };
  requestJson: { params: { key: string; request: number }; result: string };
  drop: { params: { key: string }; result: null };
  /** Other agents' session folders, each listed from its files' first lines (docs/recorded.md "Finding them"). */
  agentSessions: { params: { folders: { agent: AgentName; root: string }[] }; result: AgentFolderListing[] };
  /** A listed session read whole as recorded, for its row of the agents' overview. */
  agentSessionRow: { params: { file: AgentSessionFile; prices?: PriceOverrides }; result: AgentSessionRow };
}

/** Calls into the worker, which starts on the first one. */
export class EngineClient {
  private worker: Worker | undefined;
  private readonly rpc = new RpcClient<EngineCalls>((request) => this.start().postMessage(request));
  private readonly progress = new Map<string, (p: EngineProgress) => void>();

  constructor(private readonly script: string) {}

  call<K extends keyof EngineCalls>(method: K, params: EngineCalls[K]['params']): Promise<EngineCalls[K]['result']> {
    return this.rpc.call(method, params);
  }

  /** Tells `listener` how far the analysis under `key` is, until the returned function is called. */
  onProgress(key: string, listener: (p: EngineProgress) => void): () => void {
    this.progress.set(key, listener);
    return () => {
      if (this.progress.get(key) === listener) this.progress.delete(key);
    };
  }

  /**
   * Stops the worker in the middle of whatever it runs (a replay is not interrupted otherwise): every
   * call still waiting rejects with AnalysisCancelled, and what the worker held is gone; the next
   * call starts a new one.
   */
  cancel(): Promise<void> {
    return this.stop(new AnalysisCancelled());
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.script);
    worker.on('message', (m: RpcResponse | EngineProgress) => {
      if (m.type === 'progress') this.progress.get(m.key)?.(m);
      else this.rpc.settle(m);
    });
    // A crashed worker fails what was asked of it; the next call starts a new one. One already
    // replaced (cancelled, disposed) failed its calls then: the new worker's are not its own.
    const fail = (e: Error): void => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.rpc.failAll(e);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the analysis worker exited (${code})`)));
    this.worker = worker;
    return worker;
  }

  /** Stops the worker; settles once it has exited. */
  dispose(): Promise<void> {
    return this.stop(new Error('the analysis worker was stopped'));
  }

  /** Fails every call still waiting with `reason`, then ends the worker. */
  private async stop(reason: Error): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.rpc.failAll(reason);
    await worker?.terminate();
  }
}

/**
 * Workers by file, so that one file's long analysis never holds up another file's pages (issue 20,
 * item 5): each file is bound to a worker for its analyses and scopes; a new file gets a worker of
 * its own while there are fewer than `size`, and beyond that shares the one with the fewest files.
 * Workers start on their first call, so a window with one transcript runs one.
 */
export class EnginePool {
  private readonly workers: { client: EngineClient; files: number }[] = [];
  private readonly byFile = new Map<string, { client: EngineClient; files: number }>();

  constructor(
    private readonly script: string,
    private readonly size: number,
  ) {}

  for(file: string): EngineClient {
    let worker = this.byFile.get(file);
    if (!worker) {
      worker =
        this.workers.length < this.size ? { client: new EngineClient(this.script), files: 0 } : this.workers.reduce((a, b) => (b.files < a.files ? b : a));
      if (!this.workers.includes(worker)) this.workers.push(worker);
      worker.files++;
      this.byFile.set(file, worker);
    }
    return worker.client;
  }

  /** The files bound to the worker `client` (all that a cancel on it loses). */
  filesOf(client: EngineClient): string[] {
    return [...this.byFile].filter(([, w]) => w.client === client).map(([file]) => file);
  }

  async dispose(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.client.dispose()));
  }
}
