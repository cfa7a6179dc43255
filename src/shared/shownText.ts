// How every view shows numbers, counts and transcript text (the panels, the tree, the status bar,
// Problems): one wording, one thousands separator, one way of disarming bidi controls.

/** "12,345": by hand, as Intl.NumberFormat costs tens of microseconds a call and charts make thousands. */
export function num(n: number): string {
  // Up to three decimals, as Intl's default.
  const [digits, decimals] = String(Math.round(Math.abs(n) * 1000) / 1000).split('.');
  let out = '';
  for (let i = digits.length; i > 0; i -= 3) out = (i > 3 ? ',' : '') + digits.slice(Math.max(0, i - 3), i) + out;
  if (decimals) out += `.${decimals}`;
  return n < 0 && out !== '0' ? `-${out}` : out;
}

/** "1 turn", "1,024 turns". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${num(n)} ${n === 1 ? one : many}`;
}

const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Bidi controls (U+202E and friends) would reorder what a view shows, so a transcript could
 * disguise its own text: each is shown as a visible ⇆, one UTF-16 unit for one, so span offsets
 * hold. Applied where text is shown, never to the values filters and ids compare.
 */
export function revealBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, '\u21c6');
}

/** US dollars as the views print a cost: "$1.24", and below a cent to four places, "$0.0050". */
export function usd(n: number): string {
  return `$${n !== 0 && Math.abs(n) < 0.01 ? n.toFixed(4) : n.toFixed(2)}`;
}

/** A step of a long analysis: reading the file, the replay (one step), requests measured, lineages of a report, overview rows filled in. */
export type ProgressStep = 'read' | 'replay' | 'requests' | 'lineages' | 'rows';

/** How far a long analysis is, as the CLI's status line and VS Code's progress notification say it. */
export function progressText(step: ProgressStep, done: number, total: number): string {
  switch (step) {
    case 'read':
      return 'reading';
    case 'replay':
      return 'replaying';
    case 'requests':
      return `${num(done)} of ${num(total)} requests measured`;
    case 'lineages':
      return `lineage ${num(done + 1)} of ${num(total)} for the report`;
    case 'rows':
      return `${num(done)} of ${num(total)} rows filled in`;
  }
}
