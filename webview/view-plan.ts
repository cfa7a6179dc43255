// The inspector page's decisions, apart from the element that carries them out (app.ts): what a
// key does, what the first view shows, what an update does to the open view, and what a new
// selection announces. Pure functions, so they are tested in Node.

import type { Navigation, UiState, ViewState } from '../src/shared/messages';
import type { SessionOverview } from '../src/shared/overviewTypes';
import { PREFIX_STATUS_LABEL } from './format';
import type { IndexModel } from './index-model';
import { hasLineage } from './overview-model';

const LETTERS: Record<string, Navigation> = {
  j: 'nextTurn',
  k: 'previousTurn',
  J: 'nextRequest',
  K: 'previousRequest',
  n: 'nextRequest',
  p: 'previousRequest',
  b: 'nextBreak',
};
const ARROWS: Record<string, Navigation> = { ArrowDown: 'nextTurn', ArrowUp: 'previousTurn' };

/** A key as the page sees it. */
export interface KeyPress {
  key: string;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  defaultPrevented: boolean;
}

/** Where the key was pressed and what the page shows. */
export interface KeyPlace {
  /** In a text field or an editable element: its keys are its own. */
  inTextField: boolean;
  /** On the page itself, nothing focused that takes arrows. */
  idle: boolean;
  hasOverview: boolean;
  onOverview: boolean;
  /** An inspector is shown (an index is loaded). */
  inspecting: boolean;
}

/**
 * Letters work anywhere but in text fields; bare arrows only when nothing else takes them.
 * Backspace and Alt+Left go back to the overview, as a browser goes back.
 */
export function keyAction(e: KeyPress, at: KeyPlace): Navigation | 'back' | null {
  if (e.defaultPrevented || e.ctrlKey || e.metaKey || at.inTextField) return null;
  if (at.hasOverview && !at.onOverview && ((e.key === 'Backspace' && !e.altKey) || (e.key === 'ArrowLeft' && e.altKey))) return 'back';
  if (e.altKey || !at.inspecting || at.onOverview) return null;
  return LETTERS[e.key] ?? (at.idle ? ARROWS[e.key] : undefined) ?? null;
}

/** What the page shows first: an inspector (of a lineage, or of the whole file), the overview, or the overview while a lineage opens. */
export type FirstView =
  { show: 'inspector'; lineage: string | null; ui: UiState | null } | { show: 'overview' } | { show: 'opening'; lineage: string; ui: UiState | null };

/**
 * The first view: the remembered lineage when the file still has it, else the overview, or the
 * inspector of a one-lineage file. `given` is the host's state (its scope is the index it sent);
 * `wanted` what the page remembers, which may name another lineage.
 */
export function firstView(overview: SessionOverview | null, given: ViewState | null, wanted: ViewState | null): FirstView {
  const lineage = wanted?.lineage ?? null;
  const ui = wanted?.ui ?? null;
  if (!overview) return { show: 'inspector', lineage: null, ui };
  if (lineage === null || !hasLineage(overview, lineage)) return { show: 'overview' };
  if (given?.lineage === lineage) return { show: 'inspector', lineage, ui };
  return { show: 'opening', lineage, ui };
}

/** What a new analysis of the file does to the page. */
export type UpdatePlan =
  /** Nothing to re-render: the overview stays (its rows are the new ones). */
  | 'keep'
  /** The whole file's inspector: the file is down to one lineage. */
  | 'whole-file'
  /** Back to the overview: the open lineage is gone from the file. */
  | 'overview'
  /** The same scope with the new index, the selection kept where it still exists. */
  | 'refresh';

export function updatePlan(overview: SessionOverview | null, page: { onOverview: boolean; inspecting: boolean; lineage: string | null }): UpdatePlan {
  if (page.onOverview) return overview ? 'keep' : 'whole-file';
  if (!page.inspecting) return 'keep';
  if (page.lineage !== null && !(overview && hasLineage(overview, page.lineage))) return overview ? 'overview' : 'whole-file';
  return 'refresh';
}

/** What a screen reader hears after a step: the turn and its title, the request and its prefix status. */
export function selectionAnnouncement(model: IndexModel, sel: UiState, title: string | undefined, cause: string | undefined): string {
  const r = model.request(sel.request);
  const status = !r ? 'no request' : `${PREFIX_STATUS_LABEL[model.status(r.index)]}${cause ? `, ${cause}` : ''}`;
  return `Turn ${sel.turn} of ${model.turnCount}${title ? `: ${title}` : ''}. Request ${r ? `#${r.index}` : 'none'}, ${status}.`;
}
