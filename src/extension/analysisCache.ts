// One analysis per transcript file and settings, shared by the inspector views, the tree and the
// Problems panel, recomputed when the file changes. The analyses live in a worker thread; the host
// keeps each one's index and asks the worker for pages.

import { statSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { Diagnostic } from '../shared/reportTypes';
import type { RecordedReport } from '../shared/recordedReportTypes';
import type { AgentFolderListing, AgentSessionFile, AgentSessionRow } from '../shared/agentFolderTypes';
import type { BreakContext, InspectorIndex, MessageView, OverviewState, PagedList, RequestMap, SessionTurn } from '../shared/messages';
import type { SessionSummary } from '../shared/model/transcript';
import { withFilled } from '../shared/overviewColumns';
import type { OverviewLineage, SessionOverview } from '../shared/overviewTypes';
import { plural } from '../shared/shownText';
import { AnalysisCancelled, EngineClient, EnginePool, type EngineCalls, type EngineProgress } from '../worker/engineProtocol';
import { showAnalysisProgress } from './analysisProgress';
import { OnePerFile } from './onePerFile';
import { addFindings, filledAgain, fillOverview, type FilledRows, type Filler } from './overviewFill';
import { readSettings } from './settings';

/** A worker and the key it holds an analysis (or a listing) under. */
interface Lister {
  engine: EngineClient;
  key: string;
}

/** An analysis held by the worker, a file's or one lineage's: its index here, its pages on request. */
export class RemotePages {
  constructor(
    readonly index: InspectorIndex,
    protected readonly engine: EngineClient,
    protected readonly key: string,
  ) {}

  get lister(): Lister {
    return { engine: this.engine, key: this.key };
  }

  messages(request: number, start: number, count: number): Promise<MessageView[]> {
    return this.engine.call('messages', { key: this.key, request, start, count });
  }

  page<L extends PagedList>(list: L, start: number, count: number): Promise<RequestMap[L]['result']> {
    return this.engine.call('page', { key: this.key, list, start, count });
  }

  sessionTurns(sessionId: string): Promise<SessionTurn[]> {
    return this.engine.call('sessionTurns', { key: this.key, sessionId });
  }

  breakContext(request: number): Promise<BreakContext | null> {
    return this.engine.call('breakContext', { key: this.key, request });
  }

  requestJson(request: number): Promise<string> {
    return this.engine.call('requestJson', { key: this.key, request });
  }
}

/** One lineage of a file, analysed alone for the view that opened it, which disposes it when done: the worker frees it. */
export class LineageScope extends RemotePages implements vscode.Disposable {
  constructor(
    readonly lineage: string,
    index: InspectorIndex,
    engine: EngineClient,
    key: string,
  ) {
    super(index, engine, key);
  }

  dispose(): void {
    void this.engine.call('drop', { key: this.key });
  }
}

let scopes = 0;

/** Rows of `inspection`'s overview filled in (none: every row is). */
export interface RowsFilled {
  inspection: RemoteInspection;
  rows: readonly OverviewLineage[];
}

/** A whole file's analysis. */
export class RemoteInspection extends RemotePages {
  constructor(
    index: InspectorIndex,
    /** Its lineages, when there are several (forks counted); null otherwise. A listing's are filled in as the worker gets to them (fill). */
    private shownOverview: SessionOverview | null,
    private readonly found: Diagnostic[],
    /** A state.db's sessions, loaded or not, and whether it was too large to load any yet. */
    readonly catalog: SessionSummary[] | null,
    readonly listedOnly: boolean,
    /** Another agent's transcript, read as recorded: what the view shows instead of the index. */
    readonly recorded: RecordedReport | null,
    engine: EngineClient,
    key: string,
  ) {
    super(index, engine, key);
  }

  get overview(): SessionOverview | null {
    return this.shownOverview;
  }

  /** Its findings, and those of the rows filled in since (each once). */
  get diagnostics(): readonly Diagnostic[] {
    return this.found;
  }

  /**
   * The rows of these families filled in (EngineCalls.fill), each in place of its listed row: by its
   * own worker, or by another that listed the same file under `from.key`. With them, the findings
   * their read brought that were not known before (added to `diagnostics`).
   */
  async fill(lineages: string[], from: Lister = this.lister): Promise<{ rows: OverviewLineage[]; found: Diagnostic[] }> {
    const { rows, diagnostics } = await from.engine.call('fill', { key: from.key, lineages });
    if (this.shownOverview) this.shownOverview = withFilled(this.shownOverview, rows);
    return { rows, found: addFindings(this.found, diagnostics) };
  }

  /** Its index holds none of the file's requests (a file only listed, or a listing shown until the file is read whole): the status bar sums its rows. */
  get rowsOnly(): boolean {
    return this.listedOnly || this.key.endsWith(LISTING);
  }

  /** Every row of its overview filled in: it no longer says "reading". */
  doneReading(): void {
    if (this.shownOverview) this.shownOverview = { ...this.shownOverview, reading: false };
  }

  /** The lineage of the overview row `lineage` analysed alone; rejects for an id that names none. */
  async openLineage(lineage: string): Promise<LineageScope> {
    const scope = `${this.key}#lineage${++scopes}`;
    return new LineageScope(lineage, await this.engine.call('openLineage', { key: this.key, lineage, scope }), this.engine, scope);
  }
}

/**
 * Workers at most: one file's analysis then holds up no other of the first four a window shows
 * (a worker holds its own heap and the tokenizer's tables, ~7 MB a vocabulary, so not one per file).
 */
const WORKERS = 4;

/** What a listing's key and its worker's file name end with. */
const LISTING = '#listing';
/** What the key of the file's own worker's listing ends with: the one it fills rows from before it reads the file whole. */
const FILLING = '#filling';

/** A state.db at least this large is listed before it is read whole: its read takes seconds. */
const LISTED_FIRST_FROM = 8 * 1024 * 1024;

/** Whether the file is worth listing first: large, but not above the read-whole limit (then it is only listed anyway). */
function listsFirst(path: string, readWholeLimit: number): boolean {
  try {
    const { size } = statSync(path);
    return size >= LISTED_FIRST_FROM && size <= readWholeLimit;
  } catch {
    return false;
  }
}

/** The worker that lists the agents' folders and reads their sessions for the overview: one, as they are read one at a time. */
const AGENT_FOLDERS = 'agent-folders';

export class AnalysisCache implements vscode.Disposable {
  private readonly engines: EnginePool;
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  /** Fires after a transcript's analysis was dropped because the file or the settings changed. */
  readonly onDidChange = this.changed.event;
  private readonly filled = new vscode.EventEmitter<RowsFilled>();
  /** Fires with an analysis whose overview had rows filled in (a listing's, or a file's only listed), or all of them. */
  readonly onDidFill = this.filled.event;
  private readonly foundInRows = new vscode.EventEmitter<vscode.Uri>();
  /** Fires with a file whose rows filled in brought findings its analysis did not list. */
  readonly onDidFindInRows = this.foundInRows.event;
  // The worker keeps an outdated analysis until the new one replaces it, so pages asked for in
  // between still get answers; one replaced under other settings, or held by no view and not among
  // the last used, is freed.
  private readonly analyses = new OnePerFile<RemoteInspection>(
    (file) => this.changed.fire(vscode.Uri.parse(file)),
    (key, file) => void this.engines.for(file).call('drop', { key }),
  );

  /** A large state.db's listing, shown until its whole analysis (under `key`) is in; `served` once a view was given it. */
  private readonly listing = new Map<string, { key: string; shown: Promise<RemoteInspection | null>; served: boolean; drop: () => void }>();
  /** Files whose analysis the user cancelled: not analysed again until asked to (analyseAgain). */
  private readonly cancelled = new Set<string>();

  /** A file only listed: its rows as listed and filled in, under the key they were filled under (filledAgain). */
  private readonly filledBefore = new Map<string, { key: string; filled: FilledRows }>();

  /** Each file's session count as its last analysis found it (the palette shows it beside the path). */
  private readonly sessionCounts = new Map<string, number>();

  constructor(
    extensionUri: vscode.Uri,
    private readonly memory: vscode.Memento,
    /** Where each analysis says how it went: what a live refresh replayed, how long it took. */
    private readonly log: vscode.LogOutputChannel,
    /** How the view on a file shows its overview (sort, filters, scroll), if one does: a listing fills its rows in that order. */
    private readonly shownAs: (uri: vscode.Uri) => OverviewState | null = () => null,
  ) {
    this.engines = new EnginePool(join(extensionUri.fsPath, 'dist', 'engine.js'), WORKERS);
  }

  /** The session (lineage) chosen for a state.db, or undefined for all of them. */
  session(uri: vscode.Uri): string | undefined {
    return this.memory.get<string>(`promptInspector.session:${uri.toString()}`);
  }

  async chooseSession(uri: vscode.Uri, id: string | undefined): Promise<void> {
    await this.memory.update(`promptInspector.session:${uri.toString()}`, id);
    this.invalidate(uri);
  }

  get(uri: vscode.Uri): Promise<RemoteInspection> {
    const s = readSettings();
    const session = this.session(uri);
    const file = uri.toString();
    const key = `${file}|${s.profile}|${s.tokenizer}|${s.readWholeLimitMB}|${session ?? ''}|${JSON.stringify(s.prices)}`;
    const title = vscode.workspace.asRelativePath(uri);
    const engine = this.engines.for(file);
    // Cancelled by the user: no view, tree or Problems read starts it again, until Analyse again.
    if (this.cancelled.has(file)) return Promise.reject(new AnalysisCancelled());
    const earlierKey = this.analyses.keyOf(file);
    const whole = this.analyses.get(file, key, () => {
      const started = Date.now();
      for (const problem of s.priceProblems) this.log.warn(`promptInspector.prices: ${problem}; not used`);
      const params = {
        key,
        path: uri.fsPath,
        title,
        profile: s.profile,
        tokenizer: s.tokenizer,
        session,
        readWholeLimit: s.readWholeLimitMB * 1024 * 1024,
        prices: s.prices,
      };
      // A notification for a file's first analysis under these settings, not for each live refresh.
      const notify = earlierKey !== key;
      const cancel = (): void => this.cancel(file, engine);
      const listed =
        earlierKey === undefined && session === undefined && listsFirst(uri.fsPath, params.readWholeLimit)
          ? this.listFirst(file, params, engine, { title, notify, cancel, unchanged: () => this.analyses.current(file) === whole })
          : null;
      // Cancelled while the rows were filled in: the worker was stopped, and the file is not read.
      const analysed = Promise.resolve(listed).then(() =>
        this.cancelled.has(file) ? Promise.reject(new AnalysisCancelled()) : engine.call('analyze', params),
      );
      // Listed first, the rows had their notification: the whole read that follows has the window's spinner only.
      showAnalysisProgress({ title, running: analysed, onProgress: (listener) => engine.onProgress(key, listener), cancel, notify: notify && !listed });
      const done = (): void => this.listingDone(file, uri);
      return analysed.then(
        ({ index, overview, diagnostics, catalog, listedOnly, resumed, recomputed, recorded }) => {
          const how = resumed
            ? `resumed with the rows appended: ${plural(resumed.turns, 'turn')} and ${plural(resumed.requests, 'request')} replayed, ${plural(resumed.reported, 'earlier turn')} reported again`
            : recomputed
              ? `rewritten: ${plural(recomputed.sessions, 'session')} of ${recomputed.of} replayed, the rest kept`
              : 'analysed whole';
          this.log.info(`${title}: ${how} (${plural(index.turnCount, 'turn')}, ${Date.now() - started} ms)`);
          this.sessionCounts.set(file, (catalog ?? index.sessions).length);
          done();
          // Above the read-whole limit its rows are filled in from the file, family by family, while the file stays as it is;
          // after a change, those its session table lists as before are kept.
          const before = this.filledBefore.get(file);
          const kept = listedOnly && overview !== null ? filledAgain(before?.key === key ? before.filled : null, overview) : null;
          if (kept) this.filledBefore.set(file, { key, filled: kept });
          else this.filledBefore.delete(file);
          // The rows kept bring the findings they were filled in with.
          if (kept) addFindings(diagnostics, kept.findings);
          const inspection = new RemoteInspection(
            index,
            overview && kept ? withFilled({ ...overview, reading: true }, [...kept.rows.values()]) : overview,
            diagnostics,
            catalog,
            listedOnly,
            recorded,
            engine,
            key,
          );
          if (kept) {
            let cancelled = false;
            const unchanged = (): boolean => this.analyses.current(file) === whole;
            // Cancelled too, the overview stops saying "reading": the rows not filled in say "not read".
            void this.showFilling(file, inspection, { title, notify, cancel: () => (cancelled = true) }, (told) =>
              this.fillRows(file, inspection, [inspection.lister], { stillShown: unchanged, kept, told, cancelled: () => cancelled }).then(unchanged),
            );
          }
          return inspection;
        },
        (e: unknown) => {
          done();
          throw e;
        },
      );
    });
    const listing = this.listing.get(file);
    if (!listing || listing.key !== key) return whole;
    return listing.shown.then((shown) => {
      if (!shown || !this.listing.has(file)) return whole;
      listing.served = true;
      return shown;
    });
  }

  /**
   * A large state.db's sessions, listed from its session table before it is read whole (issue 23
   * item 1): the view shows its overview at once, each row "reading…" until its figures come. The
   * listing lives in a worker of its own; the file's worker lists it too, and both fill the rows in,
   * a few families a call, each on its core (item 4), before the file's worker reads the file whole
   * (filled beside the whole read, the last row came with the read itself). Once every row is in,
   * the overview and the status bar no longer say "reading"; the whole read brings the findings. A
   * lineage opened meanwhile is analysed by the listing's worker, between two of its calls.
   * Settles when the filling has ended.
   */
  private listFirst(
    file: string,
    params: EngineCalls['analyze']['params'],
    engine: EngineClient,
    shown: { title: string; notify: boolean; cancel: () => void; unchanged: () => boolean },
  ): Promise<void> {
    const lister = this.engines.for(`${file}${LISTING}`);
    const key = `${params.key}${LISTING}`;
    const listed = Promise.resolve(lister.call('list', { ...params, key }))
      .catch(() => null)
      .then((l) => (l?.overview ? new RemoteInspection(l.index, { ...l.overview, reading: true }, [], l.catalog, false, null, lister, key) : null));
    const listing = { key: params.key, shown: listed, served: false, drop: () => void lister.call('drop', { key }) };
    this.listing.set(file, listing);
    const own: Lister = { engine, key: `${params.key}${FILLING}` };
    const ownListed = Promise.resolve(engine.call('list', { ...params, key: own.key })).then(
      (l) => l?.overview != null && own,
      () => false as const,
    );
    // The whole analysis has the same figures: when it is in, the listing and what was filled in go.
    const stillShown = (): boolean => this.listing.get(file) === listing && shown.unchanged();
    return (
      listed
        .then((inspection) => {
          if (!inspection) return;
          return this.showFilling(file, inspection, shown, (told) => this.fillRows(file, inspection, [inspection.lister, ownListed], { stillShown, told }));
        })
        // The whole read follows whatever became of the filling.
        .catch(() => undefined)
        .finally(() => {
          // A cancelled worker was stopped with what it held: a call now would start it again.
          if (!this.cancelled.has(file)) void engine.call('drop', { key: own.key });
        })
    );
  }

  /**
   * `fill`, the rows of `inspection` being filled in, shown: past a second, a notification that
   * counts them, whose Cancel calls `cancel`. When it settles true the overview stops saying "reading".
   */
  private showFilling(
    file: string,
    inspection: RemoteInspection,
    shown: { title: string; notify: boolean; cancel: () => void },
    fill: (told: (done: number, total: number) => void) => Promise<boolean>,
  ): Promise<void> {
    let told: ((p: EngineProgress) => void) | undefined;
    const filling = fill((done, total) => told?.({ type: 'progress', key: file, step: 'rows', done, total }));
    showAnalysisProgress({
      title: shown.title,
      notify: shown.notify,
      running: filling,
      onProgress: (listener) => {
        told = listener;
        return () => (told = undefined);
      },
      cancel: shown.cancel,
    });
    return filling.then((done) => {
      if (!done) return;
      inspection.doneReading();
      this.filled.fire({ inspection, rows: [] });
    });
  }

  /**
   * Fills `inspection`'s overview rows in, a few families a call on each worker that has the file
   * listed (`from`: the inspection's own, or another's key), in the order the view shows them,
   * while it is `stillShown`; `kept` holds the rows filled in, and those it had are not asked for.
   */
  private fillRows(
    file: string,
    inspection: RemoteInspection,
    from: readonly (Lister | Promise<Lister | false>)[],
    f: { stillShown: () => boolean; kept?: FilledRows; told?: (done: number, total: number) => void; cancelled?: () => boolean },
  ): Promise<boolean> {
    const uri = vscode.Uri.parse(file);
    const filler =
      (worker: Lister): Filler =>
      (lineages) =>
        inspection.fill(lineages, worker).then(
          ({ rows, found }) => {
            this.filled.fire({ inspection, rows });
            for (const r of rows) f.kept?.rows.set(r.id, r);
            f.kept?.findings.push(...found);
            if (found.length) this.foundInRows.fire(uri);
            return true;
          },
          // A listing dropped meanwhile, or an analysis replaced, rejects.
          () => false,
        );
    return fillOverview({
      filled: new Set(f.kept?.rows.keys()),
      overview: () => inspection.overview,
      shownAs: () => this.shownAs(uri),
      fillers: from.map((worker) => Promise.resolve(worker).then((w) => (w ? filler(w) : null))),
      stillShown: f.stillShown,
      cancelled: () => f.cancelled?.() ?? false,
      filledIn: (done, total) => f.told?.(done, total),
    });
  }

  /** The whole analysis is in (or failed, or was cancelled): the listing goes, and the views it was shown in ask again. */
  private listingDone(file: string, uri: vscode.Uri): void {
    const listing = this.listing.get(file);
    if (!listing) return;
    this.listing.delete(file);
    listing.drop();
    if (listing.served) this.changed.fire(uri);
  }

  /** The other agents' session folders set in the settings, listed by the worker; [] when none is set. */
  agentSessions(): Promise<AgentFolderListing[]> {
    const { claudeCodeProjects, codexSessions } = readSettings();
    const folders = [
      ...(claudeCodeProjects ? [{ agent: 'claude-code' as const, root: claudeCodeProjects }] : []),
      ...(codexSessions ? [{ agent: 'codex' as const, root: codexSessions }] : []),
    ];
    return folders.length ? Promise.resolve(this.engines.for(AGENT_FOLDERS).call('agentSessions', { folders })) : Promise.resolve([]);
  }

  /** A listed session read whole by the worker, for its row of the project's overview. */
  agentSessionRow(file: AgentSessionFile): Promise<AgentSessionRow> {
    return Promise.resolve(this.engines.for(AGENT_FOLDERS).call('agentSessionRow', { file, prices: readSettings().prices }));
  }

  /** How many sessions the file held when it was last analysed; undefined before any analysis. */
  sessionCount(uri: vscode.Uri): number | undefined {
    return this.sessionCounts.get(uri.toString());
  }

  /** Keeps the file's analysis in the worker until disposed: a view (or a read through the tree) shows it. */
  hold(uri: vscode.Uri): vscode.Disposable {
    return this.analyses.hold(uri.toString());
  }

  /** Drops the cached analysis (the file changed) and tells the views to pull a new one. */
  invalidate(uri: vscode.Uri): void {
    this.analyses.invalidate(uri.toString());
  }

  /**
   * Stops the worker analysing `file`: its analysis rejects with AnalysisCancelled and is not kept,
   * and asking for it rejects so until Analyse again; the other files that worker held are analysed again.
   */
  private cancel(file: string, engine: EngineClient): void {
    this.cancelled.add(file);
    const others = this.engines.filesOf(engine).filter((f) => f !== file);
    void engine.cancel();
    this.analyses.forget(file);
    for (const other of others) this.analyses.invalidate(other);
  }

  /** A cancelled file asked for again: whoever shows it pulls a new analysis. */
  analyseAgain(uri: vscode.Uri): void {
    this.cancelled.delete(uri.toString());
    this.changed.fire(uri);
  }

  invalidateAll(): void {
    for (const file of this.analyses.files()) this.analyses.invalidate(file);
  }

  dispose(): void {
    this.changed.dispose();
    this.filled.dispose();
    this.foundInRows.dispose();
    void this.engines.dispose();
  }
}
