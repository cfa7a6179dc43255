// The session overview (issue 10): one row per lineage of the file, its forks indented under it, a
// compaction chain's sessions under it when expanded. Sorted and filtered by the shared column
// rules (overview-model.ts); a row opens that lineage's inspector. It stays in the DOM while a
// lineage is open, so sort, filters, scroll and focus are as the user left them.

import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { property, state } from 'lit/decorators.js';
import { repeat } from 'lit/directives/repeat.js';
import '@vscode-elements/elements/dist/vscode-icon/index.js';
import { OVERVIEW_COLUMNS, type OverviewColumn } from '../src/analysis/overviewColumns';
import type { SessionOverview } from '../src/analysis/overviewTypes';
import type { OverviewState } from '../src/protocol/messages';
import { piEvent } from './events';
import { num, plural, revealBidiControls } from './format';
import {
  cellOf,
  EMPTY_OVERVIEW_STATE,
  isRecorded,
  MISSING,
  overviewCounts,
  overviewRows,
  overviewSources,
  rowWindow,
  shownLineages,
  type OverviewRow,
} from './overview-model';
import { roveTo } from './roving';
import { styleProps } from './style-props';
import { tokens } from './theme';

/** One height for every row: the window over thousands of rows is then arithmetic, and a scroll position restores exactly. */
const ROW = 26;
const HEAD = 30;
/** Rows rendered beyond the viewport either way, so a scroll rarely shows a gap. */
const OVERSCAN = 8;
/** Scroll positions reach the app at most this often: it persists each one. */
const SCROLL_REPORT_MS = 250;

/** The lineage id is in the title cell (under the title), not a column of its own. */
const COLUMNS = OVERVIEW_COLUMNS.filter((c) => c.key !== 'id');
const WIDTH: Partial<Record<string, number>> = { title: 320, source: 100, model: 190, start: 140, end: 110, 'compaction-calls': 140 };
const widthOf = (c: OverviewColumn): number => WIDTH[c.key] ?? Math.max(80, c.heading.length * 8 + 24);
const TEMPLATE = COLUMNS.map((c) => `${widthOf(c)}px`).join(' ');
const TABLE_WIDTH = COLUMNS.reduce((n, c) => n + widthOf(c), 0);

const HAS_LABEL = { breaks: 'Has breaks', errors: 'Has errors' } as const;

/** A row's key: its lineage id, or the lineage and session of a chain's session row. */
const keyOf = (r: OverviewRow): string => (r.kind === 'lineage' ? `l:${r.lineage.id}` : `s:${r.lineage.id}:${r.session.id}`);

export class SessionOverviewElement extends LitElement {
  @property({ attribute: false }) accessor overview: SessionOverview | null = null;
  /** Where the user left it; the element reports each change with pi-overview-state. */
  @property({ attribute: false }) accessor state: OverviewState = EMPTY_OVERVIEW_STATE;
  /** Shown (the app hides it, alive, while a lineage is open). */
  @property({ type: Boolean, reflect: true }) accessor active = false;
  @state() accessor scrollTop = 0;
  @state() accessor viewport = 600;
  @state() accessor focusKey: string | null = null;

  private rows: OverviewRow[] = [];
  private shown = 0;
  private rowsFor: unknown[] = [];
  private resize: ResizeObserver | null = null;
  private reportTimer: ReturnType<typeof setTimeout> | undefined;

  static styles = [
    tokens,
    css`
    :host { display: flex; flex-direction: column; min-height: 0; height: 100%; background: var(--pi-bg); }
    :host(:not([active])) { display: none; }
    .bar { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 10px; padding: 6px 12px; border-bottom: 1px solid var(--pi-border); }
    .bar h1 { margin: 0 6px 0 0; font-size: 13px; font-weight: 600; }
    .path { color: var(--pi-muted); overflow-wrap: anywhere; }
    .count { margin-left: auto; color: var(--pi-muted); }
    input, select {
      font: inherit; color: var(--pi-input-fg); background: var(--pi-input-bg);
      border: 1px solid var(--pi-input-border); border-radius: 2px; padding: 2px 6px; height: 24px;
    }
    input { width: 220px; }
    input:focus, select:focus { outline: 1px solid var(--pi-focus); outline-offset: -1px; }
    button.toggle {
      font: inherit; height: 24px; padding: 0 8px; border-radius: 2px; cursor: pointer;
      color: var(--pi-fg); background: transparent; border: 1px solid var(--pi-input-border);
    }
    button.toggle[aria-pressed='true'] { background: var(--pi-selected); color: var(--pi-selected-fg); border-color: var(--pi-focus); }
    button.toggle:focus-visible { outline: 1px solid var(--pi-focus); outline-offset: 1px; }
    .scroller { flex: 1; min-height: 0; overflow: auto; position: relative; }
    .table { position: relative; }
    .head, .row { display: grid; grid-template-columns: var(--cols); }
    .head {
      position: sticky; top: 0; z-index: 1; height: ${HEAD}px; background: var(--pi-side-bg);
      border-bottom: 1px solid var(--pi-border);
    }
    .head [role='columnheader'] { display: flex; align-items: stretch; min-width: 0; }
    .head button {
      flex: 1; display: flex; align-items: center; gap: 3px; padding: 0 8px; min-width: 0;
      font-size: 11px; font-weight: 700; letter-spacing: 0.03em; white-space: nowrap; overflow: hidden;
      color: var(--vscode-sideBarTitle-foreground, var(--pi-fg));
    }
    .head .num button { justify-content: flex-end; }
    .head button:hover { background: var(--pi-hover); }
    .head button:focus-visible { outline: 1px solid var(--pi-focus); outline-offset: -1px; }
    .arrow { color: var(--pi-focus); font-size: 10px; }
    .body { position: relative; }
    .row {
      position: absolute; left: 0; right: 0; height: ${ROW}px; align-items: center; cursor: default;
      border-bottom: 1px solid color-mix(in srgb, var(--pi-border) 60%, transparent);
    }
    .row:hover { background: var(--pi-hover); }
    .row:focus { background: var(--pi-selected); color: var(--pi-selected-fg); outline: 1px solid var(--pi-focus); outline-offset: -1px; }
    .row.session { color: var(--pi-muted); }
    [role='gridcell'] { padding: 0 8px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; min-width: 0; }
    [role='gridcell'].num { text-align: right; font-variant-numeric: tabular-nums; }
    .title { display: flex; align-items: center; gap: 4px; }
    .title .name { overflow: hidden; text-overflow: ellipsis; }
    /* The title opens the lineage, but a column of link-coloured titles would drown the figures. */
    .title button.name { color: inherit; }
    .title button.name:hover { color: var(--pi-link); }
    .title .id { color: var(--pi-muted); font-family: var(--pi-mono); font-size: 11px; overflow: hidden; text-overflow: ellipsis; }
    .expander { width: 16px; height: 16px; flex: none; display: inline-flex; align-items: center; justify-content: center; }
    .missing { color: var(--pi-muted); font-size: 11px; font-style: italic; }
    .hot { color: var(--pi-error); font-weight: 600; }
    .warn { color: var(--pi-warning); font-weight: 600; }
    .empty { padding: 16px 12px; color: var(--pi-muted); }
    .note { padding: 4px 12px; color: var(--pi-muted); font-size: 11px; border-top: 1px solid var(--pi-border); }
  `,
  ];

  connectedCallback(): void {
    super.connectedCallback();
    this.focusKey = this.state.focused === null ? null : `l:${this.state.focused}`;
  }

  disconnectedCallback(): void {
    clearTimeout(this.reportTimer);
    this.resize?.disconnect();
    this.resize = null;
    super.disconnectedCallback();
  }

  protected willUpdate(): void {
    const o = this.overview;
    const s = this.state;
    // Only what orders and narrows the rows: a scroll or a focus change keeps them.
    const inputs = [o, s.sort?.column, s.sort?.descending, s.filter, s.source, s.has.join(), s.expanded.join()];
    if (!o || inputs.every((v, i) => v === this.rowsFor[i])) return;
    this.rowsFor = inputs;
    const lineages = shownLineages(o, s);
    this.rows = overviewRows(lineages, new Set(s.expanded));
    this.shown = overviewCounts(o, lineages).shown;
    // The focused row filtered away (or none yet): the first row takes Tab.
    if (this.rows.length && !this.rows.some((r) => keyOf(r) === this.focusKey)) this.focusKey = keyOf(this.rows[0]);
  }

  protected firstUpdated(): void {
    const scroller = this.scroller();
    if (!scroller) return;
    this.resize = new ResizeObserver(() => {
      this.viewport = scroller.clientHeight - HEAD;
    });
    this.resize.observe(scroller);
  }

  protected updated(changed: PropertyValues<this>): void {
    if (changed.has('active') && this.active) void this.restorePlace();
  }

  /** Shown again (or the first time): the scroll and focus the state remembers. */
  private async restorePlace(): Promise<void> {
    const scroller = this.scroller();
    if (!scroller) return;
    scroller.scrollTop = this.state.firstVisibleRow * ROW;
    this.scrollTop = scroller.scrollTop;
    this.viewport = scroller.clientHeight - HEAD;
    await this.updateComplete;
    const at = this.rows.findIndex((r) => keyOf(r) === this.focusKey);
    if (at >= 0) this.focusRow(at);
  }

  private scroller(): HTMLElement | null {
    return this.renderRoot.querySelector<HTMLElement>('.scroller');
  }

  private change(patch: Partial<OverviewState>): void {
    this.state = { ...this.state, ...patch };
    this.dispatchEvent(piEvent('pi-overview-state', this.state));
  }

  /** A filter changed: the rows are others, so the table starts again at its top. */
  private narrow(patch: Partial<OverviewState>): void {
    const scroller = this.scroller();
    if (scroller) scroller.scrollTop = 0;
    this.scrollTop = 0;
    this.change({ ...patch, firstVisibleRow: 0 });
  }

  private onScroll(e: Event): void {
    const top = (e.target as HTMLElement).scrollTop;
    this.scrollTop = top;
    clearTimeout(this.reportTimer);
    this.reportTimer = setTimeout(() => {
      const first = Math.floor(top / ROW);
      if (first !== this.state.firstVisibleRow) this.change({ firstVisibleRow: first });
    }, SCROLL_REPORT_MS);
  }

  private sortBy(column: OverviewColumn): void {
    const s = this.state.sort;
    this.change({ sort: { column: column.key, descending: s?.column === column.key && !s.descending } });
  }

  private toggleHas(h: 'breaks' | 'errors'): void {
    const has = this.state.has.includes(h) ? this.state.has.filter((x) => x !== h) : [...this.state.has, h];
    this.narrow({ has });
  }

  private setExpanded(id: string, open: boolean): void {
    const expanded = this.state.expanded.filter((x) => x !== id);
    this.change({ expanded: open ? [...expanded, id] : expanded });
  }

  private open(r: OverviewRow): void {
    this.dispatchEvent(piEvent('pi-open-lineage', r.lineage.id));
  }

  /** Focuses row `at`, scrolling it into view first: it may be outside the rendered window. */
  private focusRow(at: number): void {
    const r = this.rows[at];
    const scroller = this.scroller();
    if (!r || !scroller) return;
    const key = keyOf(r);
    const view = scroller.clientHeight - HEAD;
    if (at * ROW < scroller.scrollTop) scroller.scrollTop = at * ROW;
    else if ((at + 1) * ROW > scroller.scrollTop + view) scroller.scrollTop = (at + 1) * ROW - view;
    this.scrollTop = scroller.scrollTop;
    this.setFocusKey(key);
    void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`)?.focus());
  }

  private setFocusKey(key: string): void {
    this.focusKey = key;
    const row = this.rows.find((r) => keyOf(r) === key);
    const focused = row?.lineage.id ?? null;
    if (focused !== this.state.focused) this.change({ focused });
  }

  private onFocusIn(e: FocusEvent): void {
    const key = (e.target as HTMLElement).dataset.key;
    if (key && key !== this.focusKey) this.setFocusKey(key);
  }

  private onKey(e: KeyboardEvent): void {
    const target = e.target as HTMLElement;
    if (target.getAttribute('role') !== 'row' || e.ctrlKey || e.metaKey || e.altKey) return;
    const at = this.rows.findIndex((r) => keyOf(r) === target.dataset.key);
    const r = this.rows[at];
    if (!r) return;
    if (e.key === 'Enter') {
      e.preventDefault();
      this.open(r);
      return;
    }
    if (e.key === 'ArrowRight' && r.kind === 'lineage' && r.expandable) {
      e.preventDefault();
      if (!r.expanded) this.setExpanded(r.lineage.id, true);
      else this.focusRow(at + 1);
      return;
    }
    if (e.key === 'ArrowLeft') {
      e.preventDefault();
      if (r.kind === 'lineage' && r.expanded) this.setExpanded(r.lineage.id, false);
      else if (r.depth > 0) {
        // To the row it hangs under: the nearest one above that is less deep.
        for (let i = at - 1; i >= 0; i--) {
          if (this.rows[i].depth < r.depth) {
            this.focusRow(i);
            break;
          }
        }
      }
      return;
    }
    const page = Math.max(1, Math.floor((this.scroller()?.clientHeight ?? ROW * 10) / ROW) - 2);
    const to = roveTo(e, 'vertical', this.rows.length, at, page);
    if (to !== undefined) this.focusRow(to);
  }

  private renderHead() {
    const sort = this.state.sort;
    return html`<div class="head" role="row" aria-rowindex="1">
      ${COLUMNS.map((c) => {
        const sorted = sort?.column === c.key ? (sort.descending ? 'descending' : 'ascending') : 'none';
        const tip = isRecorded(c) ? 'The agent’s own counter, from the store’s sessions columns; the others are the replay’s' : undefined;
        return html`<div role="columnheader" class=${c.text ? 'text' : 'num'} aria-sort=${sorted} data-column=${c.key}>
          <button class="plain" title=${tip ?? `Sort by ${c.heading.toLowerCase()}`} @click=${() => this.sortBy(c)}>
            ${c.heading}${sorted === 'none' ? nothing : html`<span class="arrow" aria-hidden="true">${sorted === 'ascending' ? '▲' : '▼'}</span>`}
          </button>
        </div>`;
      })}
    </div>`;
  }

  private renderTitle(r: OverviewRow) {
    const indent = styleProps({ 'padding-left': `${8 + r.depth * 16}px` });
    if (r.kind === 'session') {
      const s = r.session;
      return html`<div role="gridcell" class="title" ${indent}>
        <span class="expander" aria-hidden="true">·</span>
        <span class="id" title=${revealBidiControls(s.id)}>${revealBidiControls(s.id)}</span>
        ${s.title === null ? nothing : html`<span class="name" title=${revealBidiControls(s.title)}>${revealBidiControls(s.title)}</span>`}
      </div>`;
    }
    const l = r.lineage;
    const name = revealBidiControls(l.title ?? l.id);
    return html`<div role="gridcell" class="title" ${indent}>
      ${
        r.expandable
          ? html`<button class="plain expander" tabindex="-1" aria-label=${r.expanded ? 'Hide its sessions' : 'Show its sessions'}
            @click=${() => this.setExpanded(l.id, !r.expanded)}><vscode-icon name=${r.expanded ? 'chevron-down' : 'chevron-right'}></vscode-icon></button>`
          : html`<span class="expander"></span>`
      }
      ${l.kind === 'conversation' ? nothing : html`<span class="chip" data-kind=${l.kind}>${l.kind}</span>`}
      <button class="link name" tabindex="-1" title="Open ${name}" @click=${() => this.open(r)}>${name}</button>
      ${l.title === null ? nothing : html`<span class="id" title=${revealBidiControls(l.id)}>${revealBidiControls(l.id)}</span>`}
    </div>`;
  }

  private renderCell(c: OverviewColumn, r: OverviewRow, fileRead: boolean) {
    const cell = cellOf(c, r.kind === 'lineage' ? r.lineage : r.session, fileRead);
    const v = cell.missing ? null : c.value(r.kind === 'lineage' ? r.lineage : r.session);
    const tone = typeof v === 'number' && v > 0 ? (c.key === 'breaks' || c.key === 'errors' ? 'hot' : c.key === 'warnings' ? 'warn' : '') : '';
    return html`<div role="gridcell" class=${c.text ? 'text' : 'num'} data-column=${c.key}>${
      cell.missing
        ? html`<span class="missing" title=${MISSING[cell.missing]}>${cell.text}</span>`
        : html`<span class=${tone} title=${c.text ? cell.text : nothing}>${cell.text}</span>`
    }</div>`;
  }

  private renderRow(r: OverviewRow, i: number, fileRead: boolean) {
    const key = keyOf(r);
    const title = revealBidiControls(r.kind === 'lineage' ? (r.lineage.title ?? r.lineage.id) : r.session.id);
    return html`<div class="row ${r.kind}" role="row" ${styleProps({ top: `${i * ROW}px` })} data-key=${key} data-lineage=${r.lineage.id}
      data-session=${r.kind === 'session' ? r.session.id : nothing} aria-rowindex=${i + 2} aria-level=${r.depth + 1}
      aria-expanded=${r.kind === 'lineage' && r.expandable ? String(r.expanded) : nothing} aria-label=${title}
      tabindex=${key === this.focusKey ? 0 : -1} @dblclick=${() => this.open(r)}>
      ${COLUMNS.map((c) => (c.key === 'title' ? this.renderTitle(r) : this.renderCell(c, r, fileRead)))}
    </div>`;
  }

  render() {
    const o = this.overview;
    if (!o) return nothing;
    const s = this.state;
    const counts = overviewCounts(o, []);
    const sources = overviewSources(o);
    const { first, last } = rowWindow(this.rows.length, this.scrollTop, this.viewport, ROW, OVERSCAN);
    const visible: number[] = [];
    for (let i = first; i <= last; i++) visible.push(i);
    // The focused row stays in the DOM when scrolled away, so Tab still lands on it.
    const focusAt = this.rows.findIndex((r) => keyOf(r) === this.focusKey);
    if (focusAt >= 0 && (focusAt < first || focusAt > last)) visible.push(focusAt);
    return html`
      <div class="bar">
        <h1>Sessions</h1>
        <span class="path" title=${revealBidiControls(o.source.path)}>${revealBidiControls(o.source.path)}</span>
        <input type="search" placeholder="Filter by title, id or source" aria-label="Filter lineages" .value=${s.filter}
          @input=${(e: Event) => this.narrow({ filter: (e.target as HTMLInputElement).value })} />
        <select aria-label="Source" @change=${(e: Event) => this.narrow({ source: (e.target as HTMLSelectElement).value || null })}>
          <option value="" ?selected=${s.source === null}>All sources</option>
          ${sources.map((x) => html`<option value=${x} ?selected=${s.source === x}>${revealBidiControls(x)}</option>`)}
        </select>
        ${(['breaks', 'errors'] as const).map(
          (h) =>
            html`<button class="toggle" aria-pressed=${String(s.has.includes(h))} data-has=${h} @click=${() => this.toggleHas(h)}>${HAS_LABEL[h]}</button>`,
        )}
        <span class="count" data-count>${plural(counts.lineages, 'lineage')}, ${plural(counts.sessions, 'session')} (${num(this.shown)} shown)</span>
      </div>
      <div class="scroller" @scroll=${this.onScroll}>
        <div class="table" role="treegrid" aria-label="Lineages" aria-rowcount=${this.rows.length + 1} aria-colcount=${COLUMNS.length}
          ${styleProps({ '--cols': TEMPLATE, width: `${TABLE_WIDTH}px` })} @keydown=${this.onKey} @focusin=${this.onFocusIn}>
          ${this.renderHead()}
          <div class="body" role="rowgroup" ${styleProps({ height: `${this.rows.length * ROW}px` })}>
            ${
              // Keyed: a row's element follows its lineage when rows move (a sort, a live update), so the focus stays on it.
              repeat(
                visible,
                (i) => keyOf(this.rows[i]),
                (i) => this.renderRow(this.rows[i], i, o.read),
              )
            }
          </div>
        </div>
        ${this.rows.length ? nothing : html`<div class="empty">No lineage matches the filters.</div>`}
      </div>
      <div class="note">* the agent’s own counters (the store’s sessions columns); the other figures are the replay’s. Enter or a double-click opens a lineage.</div>
    `;
  }
}
customElements.define('session-overview', SessionOverviewElement);
