// Arrow keys through an ordered set, as a listbox, a tab list, a slider and a grid take them: one
// step along the set's axis either way, Home and End to its ends, and for a set that scrolls a page
// of it with PageUp and PageDown. Written once for every such part.

const STEPS: Record<'vertical' | 'horizontal', Partial<Record<string, number>>> = {
  vertical: { ArrowUp: -1, ArrowDown: 1 },
  horizontal: { ArrowLeft: -1, ArrowRight: 1 },
};

/** What it reads of a keydown (a KeyboardEvent; no DOM type, so Node tests drive it too). */
interface KeyPress {
  key: string;
  preventDefault(): void;
}

/**
 * The position (0 ≤ p < count) a key moves to from `at`, or undefined when it moves nowhere. The
 * set's keys are taken (their default prevented) even at an end, so the page does not scroll.
 * `page` (rows on screen) makes PageUp and PageDown move that far, stopping at the ends.
 */
export function roveTo(e: KeyPress, axis: keyof typeof STEPS, count: number, at: number, page = 0): number | undefined {
  const pages: Partial<Record<string, number>> = page > 0 ? { PageUp: -page, PageDown: page } : {};
  const step = STEPS[axis][e.key] ?? pages[e.key];
  const to = step !== undefined ? Math.max(0, Math.min(count - 1, at + step)) : e.key === 'Home' ? 0 : e.key === 'End' ? count - 1 : undefined;
  if (to === undefined) return undefined;
  e.preventDefault();
  return to >= 0 && to < count && to !== at ? to : undefined;
}
