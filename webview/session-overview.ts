// The session overview (issue 10): one row per lineage of the file, its forks indented under it, a
// compaction chain's sessions under it when expanded. Sorted and filtered by the shared column
// rules (overview-model.ts); a row opens that lineage's inspector. It stays in the DOM while a
// lineage is open, so sort, filters, columns, scroll and focus are as the user left them. It shows a
// compact set of columns until the user chooses others (the Columns menu), the title frozen at the
// left while the figures scroll under it (issue 20).

import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { property, state } from 'lit/decorators.js';
import { repeat } from 'lit/directives/repeat.js';
import '@vscode-elements/elements/dist/vscode-icon/index.js';
import { fileReadOf, overviewColumn, overviewRows, shownLineages, type FileRead, type OverviewColumn, type OverviewRow } from '../src/shared/overviewColumns';
import type { SessionOverview } from '../src/shared/overviewTypes';
import type { OverviewState } from '../src/shared/messages';
import { piEvent } from './events';
import { num, plural, revealBidiControls } from './format';
import {
  cellOf,
  EMPTY_OVERVIEW_STATE,
  isRecorded,
  MISSING,
  overviewCounts,
  overviewSources,
  rowWindow,
  overviewBilled,
  shownColumns,
  TABLE_COLUMNS,
  TITLE_COLUMN,
  withColumn,
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

/** The title's least width; it takes whatever the other columns leave of the view. */
const TITLE_WIDTH = 320;
/** Widths for what the cells hold: names, models, times, and token sums that run to hundreds of millions. */
const WIDTH: Partial<Record<string, number>> = { source: 100, model: 190, start: 140, end: 110, input: 110, reused: 110, 'rec-input': 110, 'rec-output': 110 };
/** A heading's 11 px capitals, the cell's padding, and room for the sort arrow, so neither is ever cut. */
const widthOf = (c: OverviewColumn): number => WIDTH[c.key] ?? Math.max(80, c.heading.length * 9 + 32);

const HAS_LABEL = { breaks: 'Has breaks', errors: 'Has errors' } as const;
const ARROW = { ascending: '▲', descending: '▼' } as const;
const RECORDED_TIP =
  'The agent’s own figure, from the store’s sessions columns (COST $* is Hermes’ estimate, not the bill); the others are the replay’s or the bill’s';

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
  /** The Columns menu is open; `menuAt` is its item holding the focus. */
  @state() accessor menuOpen = false;
  @state() accessor menuAt = 0;

  private rows: OverviewRow[] = [];
  private shown = 0;
  private rowsFor: unknown[] = [];
  /** Whether any lineage was billed (an agent.log read): the columns then start from the bill's set. Worked out with the rows. */
  private billed = false;
  private resize: ResizeObserver | null = null;
  private reportTimer: ReturnType<typeof setTimeout> | undefined;

  static styles = [
    tokens,
    css`
    :host {
      display: flex; flex-direction: column; min-height: 0; height: 100%; background: var(--pi-bg);
      /* VS Code's menu colours; where a theme leaves them unset, the list's. */
      --pi-menu-bg: var(--vscode-menu-background, var(--pi-bg));
      --pi-menu-fg: var(--vscode-menu-foreground, var(--pi-fg));
      --pi-menu-border: var(--vscode-menu-border, var(--pi-border));
      --pi-menu-selected: var(--vscode-menu-selectionBackground, var(--pi-selected));
      --pi-menu-selected-fg: var(--vscode-menu-selectionForeground, var(--pi-selected-fg));
      --pi-menu-selected-border: var(--vscode-menu-selectionBorder, transparent);
      --pi-menu-separator: var(--vscode-menu-separatorBackground, var(--pi-border));
      --pi-shadow: var(--vscode-widget-shadow, rgba(0, 0, 0, 0.16));
    }
    :host(:not([active])) { display: none; }
    .bar { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 10px; padding: 6px 12px; border-bottom: 1px solid var(--pi-border); }
    .bar h1 { margin: 0 6px 0 0; font-size: 13px; font-weight: 600; }
    .path { color: var(--pi-muted); overflow-wrap: anywhere; }
    .sorted { display: inline-flex; align-items: center; gap: 4px; color: var(--pi-muted); white-space: nowrap; }
    .sorted b { font-weight: 600; color: var(--pi-fg); }
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
      display: inline-flex; align-items: center; gap: 4px;
    }
    button.toggle[aria-pressed='true'], button.toggle[aria-expanded='true'] { background: var(--pi-selected); color: var(--pi-selected-fg); border-color: var(--pi-focus); }
    button.toggle:focus-visible { outline: 1px solid var(--pi-focus); outline-offset: 1px; }
    button.icon { display: inline-flex; align-items: center; justify-content: center; width: 20px; height: 20px; border-radius: 3px; }
    button.icon:hover { background: var(--vscode-toolbar-hoverBackground, var(--pi-hover)); }
    .anchor { position: relative; }
    .menu {
      position: absolute; top: calc(100% + 2px); right: 0; z-index: 10; min-width: 200px; max-height: 70vh; overflow-y: auto;
      padding: 4px 0; color: var(--pi-menu-fg); background: var(--pi-menu-bg); border: 1px solid var(--pi-menu-border);
      border-radius: 5px; box-shadow: 0 2px 8px var(--pi-shadow);
    }
    .menu [role^='menuitem'] {
      display: flex; align-items: center; gap: 6px; height: 24px; margin: 0 4px; padding: 0 10px 0 4px;
      border-radius: 3px; border: 1px solid transparent; white-space: nowrap; cursor: pointer; user-select: none;
    }
    .menu [role^='menuitem']:hover, .menu [role^='menuitem']:focus {
      outline: none; color: var(--pi-menu-selected-fg); background: var(--pi-menu-selected); border-color: var(--pi-menu-selected-border);
    }
    .menu [aria-disabled='true'] { opacity: 0.6; cursor: default; }
    .menu .check { width: 16px; flex: none; }
    .menu [aria-checked='false'] .check { visibility: hidden; }
    .menu [role='separator'] { height: 1px; margin: 4px 0; background: var(--pi-menu-separator); }
    /* The title's width is kept clear on the left when the keyboard scrolls a cell into view: it is frozen over them. */
    .scroller { flex: 1; min-height: 0; overflow: auto; position: relative; scroll-padding-left: ${TITLE_WIDTH}px; }
    .table { position: relative; }
    .head, .row { display: grid; grid-template-columns: var(--cols); }
    .head {
      position: sticky; top: 0; z-index: 2; height: ${HEAD}px; background: var(--pi-side-bg);
      border-bottom: 1px solid var(--pi-border);
    }
    .head [role='columnheader'] { display: flex; align-items: stretch; min-width: 0; }
    .head button {
      flex: 1; display: flex; align-items: center; gap: 3px; padding: 0 8px; min-width: 0;
      font-size: 11px; font-weight: 700; letter-spacing: 0.03em; white-space: nowrap;
      color: var(--vscode-sideBarTitle-foreground, var(--pi-fg));
    }
    /* The arrow sits on the side away from the figures, so a numeric heading stays over its numbers. */
    .head .num button { flex-direction: row-reverse; }
    .head .label { min-width: 0; overflow: hidden; text-overflow: ellipsis; }
    .head button:hover { background: var(--pi-hover); }
    .head button:focus-visible { outline: 1px solid var(--pi-focus); outline-offset: -1px; }
    /* Always there, empty when unsorted: sorting moves no heading. */
    .arrow { flex: none; width: 10px; color: var(--pi-focus); font-size: 10px; text-align: center; }
    .body { position: relative; }
    .row {
      --tint: transparent;
      position: absolute; left: 0; right: 0; height: ${ROW}px; align-items: center; cursor: default; background: var(--tint);
      border-bottom: 1px solid color-mix(in srgb, var(--pi-border) 60%, transparent);
    }
    .row:hover { --tint: var(--pi-hover); }
    .row:focus { --tint: var(--pi-selected); color: var(--pi-selected-fg); outline: 1px solid var(--pi-focus); outline-offset: -1px; }
    .row.session { color: var(--pi-muted); }
    /* The title stays at the left while the figures scroll under it: opaque, the row's tint over the page's. */
    .head [data-column='title'], .row [data-column='title'] { position: sticky; left: 0; z-index: 1; border-right: 1px solid var(--pi-border); }
    .head [data-column='title'] { background: var(--pi-side-bg); }
    .row [data-column='title'] { align-self: stretch; background: linear-gradient(var(--tint), var(--tint)), var(--pi-bg); }
    /* It covers the row's outline: the focus ring goes on around it. */
    .row:focus [data-column='title'] { box-shadow: inset 1px 0 var(--pi-focus), inset 0 1px var(--pi-focus), inset 0 -1px var(--pi-focus); }
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
    /* At the view's left however far the table is scrolled, so it is never cut. */
    .empty { position: sticky; left: 0; width: max-content; max-width: 100%; padding: 16px 12px; color: var(--pi-muted); }
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
    this.billed = overviewBilled(o);
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

  /** Opens the Columns menu on its first item, as VS Code's menus open. */
  private openMenu(): void {
    this.menuOpen = true;
    void this.focusMenuItem(0);
  }

  private closeMenu(): void {
    this.menuOpen = false;
    this.renderRoot.querySelector<HTMLElement>('button.columns')?.focus();
  }

  private menuItems(): HTMLElement[] {
    return [...this.renderRoot.querySelectorAll<HTMLElement>('.menu [role^="menuitem"]')];
  }

  private async focusMenuItem(at: number): Promise<void> {
    this.menuAt = at;
    await this.updateComplete;
    this.menuItems()[at]?.focus();
  }

  private onMenuKey(e: KeyboardEvent): void {
    const items = this.menuItems();
    const at = items.indexOf(e.target as HTMLElement);
    if (e.key === 'Escape' || e.key === 'Tab') {
      // Tab too: the focus goes back to the button rather than off a menu that is about to go.
      e.preventDefault();
      this.closeMenu();
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      items[at]?.click();
    } else {
      const to = roveTo(e, 'vertical', items.length, at);
      if (to !== undefined) void this.focusMenuItem(to);
    }
  }

  /** The focus left the button and its menu (a click elsewhere, another window): the menu goes. */
  private onMenuFocusOut(e: FocusEvent): void {
    const to = e.relatedTarget as Node | null;
    if (!to || !this.renderRoot.querySelector('.anchor')?.contains(to)) this.menuOpen = false;
  }

  private toggleColumn(c: OverviewColumn, show: boolean): void {
    this.change({ columns: withColumn(this.state.columns, c.key, show, this.billed) });
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

  private renderHead(columns: readonly OverviewColumn[]) {
    const sort = this.state.sort;
    return html`<div class="head" role="row" aria-rowindex="1">
      ${columns.map((c) => {
        const sorted = sort?.column === c.key ? (sort.descending ? 'descending' : 'ascending') : 'none';
        return html`<div role="columnheader" class=${c.text ? 'text' : 'num'} aria-sort=${sorted} data-column=${c.key}>
          <button class="plain" title=${isRecorded(c) ? RECORDED_TIP : `Sort by ${c.heading.toLowerCase()}`} @click=${() => this.sortBy(c)}>
            <span class="label">${c.heading}</span><span class="arrow" aria-hidden="true">${sorted === 'none' ? '' : ARROW[sorted]}</span>
          </button>
        </div>`;
      })}
    </div>`;
  }

  /** The sort in effect, said beside the filters: its column may be hidden or scrolled out of view. */
  private renderSorted() {
    const sort = this.state.sort;
    const column = sort ? overviewColumn(sort.column) : undefined;
    if (!sort || !column) return nothing;
    const order = sort.descending ? 'descending' : 'ascending';
    return html`<span class="sorted" data-sorted=${`${column.key} ${order}`}>
      Sorted by <b>${column.heading}</b><span aria-hidden="true">${ARROW[order]}</span><span class="sr-only">${order}</span>
      <button class="plain icon" title="Clear the sort (start order)" aria-label="Clear the sort (start order)" @click=${() => this.change({ sort: null })}>
        <vscode-icon name="close"></vscode-icon>
      </button>
    </span>`;
  }

  /** The Columns button and its menu: a check per column (the title always shown), then the default set again. */
  private renderColumnsMenu(columns: readonly OverviewColumn[]) {
    const shown = new Set(columns.map((c) => c.key));
    const item = (c: OverviewColumn, i: number) => {
      const always = c.key === TITLE_COLUMN;
      const on = shown.has(c.key);
      return html`<div role="menuitemcheckbox" aria-checked=${String(on)} aria-disabled=${always ? 'true' : nothing} data-column=${c.key}
        tabindex=${i === this.menuAt ? 0 : -1} title=${always ? 'Always shown: it names the row' : isRecorded(c) ? RECORDED_TIP : nothing}
        @click=${() => (always ? undefined : this.toggleColumn(c, !on))}>
        <vscode-icon class="check" name="check"></vscode-icon>${c.heading}
      </div>`;
    };
    return html`<span class="anchor" @focusout=${this.onMenuFocusOut}>
      <button class="toggle columns" aria-haspopup="menu" aria-expanded=${String(this.menuOpen)} aria-controls=${this.menuOpen ? 'columns-menu' : nothing}
        @click=${() => (this.menuOpen ? this.closeMenu() : this.openMenu())}
        @keydown=${(e: KeyboardEvent) => {
          if (e.key === 'ArrowDown' && !this.menuOpen) {
            e.preventDefault();
            this.openMenu();
          }
        }}>Columns <vscode-icon name="chevron-down"></vscode-icon></button>
      ${
        this.menuOpen
          ? html`<div class="menu" id="columns-menu" role="menu" aria-label="Columns shown" @keydown=${this.onMenuKey}
            @focusin=${(e: FocusEvent) => {
              this.menuAt = this.menuItems().indexOf(e.target as HTMLElement);
            }}>
            ${TABLE_COLUMNS.map(item)}
            <div role="separator"></div>
            <div role="menuitem" data-reset tabindex=${this.menuAt === TABLE_COLUMNS.length ? 0 : -1} @click=${() => this.change({ columns: null })}>
              <span class="check"></span>Default columns
            </div>
          </div>`
          : nothing
      }
    </span>`;
  }

  private renderTitle(r: OverviewRow) {
    const indent = styleProps({ 'padding-left': `${8 + r.depth * 16}px` });
    if (r.kind === 'session') {
      const s = r.session;
      return html`<div role="gridcell" class="title" data-column="title" ${indent}>
        <span class="expander" aria-hidden="true">·</span>
        <span class="id" title=${revealBidiControls(s.id)}>${revealBidiControls(s.id)}</span>
        ${s.title === null ? nothing : html`<span class="name" title=${revealBidiControls(s.title)}>${revealBidiControls(s.title)}</span>`}
      </div>`;
    }
    const l = r.lineage;
    const name = revealBidiControls(l.title ?? l.id);
    return html`<div role="gridcell" class="title" data-column="title" ${indent}>
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

  private renderCell(c: OverviewColumn, r: OverviewRow, file: FileRead) {
    const cell = cellOf(c, r.kind === 'lineage' ? r.lineage : r.session, file);
    const v = cell.missing ? null : c.value(r.kind === 'lineage' ? r.lineage : r.session);
    const tone = typeof v === 'number' && v > 0 ? (c.key === 'breaks' || c.key === 'errors' ? 'hot' : c.key === 'warnings' ? 'warn' : '') : '';
    return html`<div role="gridcell" class=${c.text ? 'text' : 'num'} data-column=${c.key}>${
      cell.missing
        ? html`<span class="missing" title=${MISSING[cell.missing]}>${cell.text}</span>`
        : html`<span class=${tone} title=${c.text ? cell.text : nothing}>${cell.text}</span>`
    }</div>`;
  }

  private renderRow(r: OverviewRow, i: number, file: FileRead, columns: readonly OverviewColumn[]) {
    const key = keyOf(r);
    const title = revealBidiControls(r.kind === 'lineage' ? (r.lineage.title ?? r.lineage.id) : r.session.id);
    return html`<div class="row ${r.kind}" role="row" ${styleProps({ top: `${i * ROW}px` })} data-key=${key} data-lineage=${r.lineage.id}
      data-session=${r.kind === 'session' ? r.session.id : nothing} aria-rowindex=${i + 2} aria-level=${r.depth + 1}
      aria-expanded=${r.kind === 'lineage' && r.expandable ? String(r.expanded) : nothing} aria-label=${title}
      tabindex=${key === this.focusKey ? 0 : -1} @dblclick=${() => this.open(r)}>
      ${columns.map((c) => (c.key === TITLE_COLUMN ? this.renderTitle(r) : this.renderCell(c, r, file)))}
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
    const columns = shownColumns(s.columns, this.billed);
    // The title takes what the other columns leave; past the view's width the table scrolls under it.
    const template = columns.map((c) => (c.key === TITLE_COLUMN ? `minmax(${TITLE_WIDTH}px, 1fr)` : `${widthOf(c)}px`)).join(' ');
    const width = columns.reduce((n, c) => n + (c.key === TITLE_COLUMN ? TITLE_WIDTH : widthOf(c)), 0);
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
        ${this.renderSorted()}
        <span class="count" data-count>${plural(counts.lineages, 'lineage')}, ${plural(counts.sessions, 'session')} (${num(this.shown)} shown)</span>
        ${this.renderColumnsMenu(columns)}
      </div>
      <div class="scroller" @scroll=${this.onScroll}>
        <div class="table" role="treegrid" aria-label="Lineages" aria-rowcount=${this.rows.length + 1} aria-colcount=${columns.length}
          ${styleProps({ '--cols': template, width: `max(100%, ${width}px)` })} @keydown=${this.onKey} @focusin=${this.onFocusIn}>
          ${this.renderHead(columns)}
          <div class="body" role="rowgroup" ${styleProps({ height: `${this.rows.length * ROW}px` })}>
            ${
              // Keyed: a row's element follows its lineage when rows move (a sort, a live update), so the focus stays on it.
              repeat(
                visible,
                (i) => keyOf(this.rows[i]),
                (i) => this.renderRow(this.rows[i], i, fileReadOf(o), columns),
              )
            }
          </div>
        </div>
        ${this.rows.length ? nothing : html`<div class="empty" role="status">No lineage matches the filters.</div>`}
      </div>
      <div class="note">* the agent’s own figures (the store’s sessions columns; COST $* is Hermes’ estimate, not the bill); the others are the replay’s, or the bill’s where a log was read. Enter or a double-click opens a lineage.</div>
    `;
  }
}
customElements.define('session-overview', SessionOverviewElement);
