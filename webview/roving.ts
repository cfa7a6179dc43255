// Arrow keys through an ordered set, as a listbox, a tab list and a slider take them: one step
// along the set's axis either way, Home and End to its ends. Written once for every such part.

const STEPS: Record<'vertical' | 'horizontal', Partial<Record<string, number>>> = {
  vertical: { ArrowUp: -1, ArrowDown: 1 },
  horizontal: { ArrowLeft: -1, ArrowRight: 1 },
};

/**
 * The position (0 ≤ p < count) a key moves to from `at`, or undefined when it moves nowhere. The
 * set's keys are taken (their default prevented) even at an end, so the page does not scroll.
 */
export function roveTo(e: KeyboardEvent, axis: keyof typeof STEPS, count: number, at: number): number | undefined {
  const step = STEPS[axis][e.key];
  const to = step !== undefined ? at + step : e.key === 'Home' ? 0 : e.key === 'End' ? count - 1 : undefined;
  if (to === undefined) return undefined;
  e.preventDefault();
  return to >= 0 && to < count && to !== at ? to : undefined;
}
