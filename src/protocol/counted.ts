// Counts as every view words them (the panels, the tree, the status bar): one wording, one
// thousands separator, wherever a number of things is shown.

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
