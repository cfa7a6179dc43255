// Numbers and labels as the panels print them.

import type { InjectionKind } from '../src/shared/model/injection';
import { num } from '../src/shared/shownText';

export { num, plural, revealBidiControls, usd } from '../src/shared/shownText';

/** A signed difference: "+12", "−589" (a real minus sign, so columns of deltas line up). */
export function delta(n: number): string {
  return n > 0 ? `+${num(n)}` : n < 0 ? `\u2212${num(-n)}` : '0';
}

/** after as a percentage of before, one decimal: "54.4 %". */
/**
 * Counts scaled to add up to `total` exactly (largest remainders): our categories set against the
 * provider's billed prompt. Their split is ours; only the sum is the bill's.
 */
export function scaledTo(counts: Record<string, number>, total: number): Record<string, number> {
  const entries = Object.entries(counts);
  const sum = entries.reduce((n, [, v]) => n + v, 0);
  if (sum <= 0 || total < 0) return Object.fromEntries(entries.map(([k]) => [k, 0]));
  const exact = entries.map(([k, v]) => ({ k, x: (v * total) / sum }));
  const out = exact.map(({ k, x }) => ({ k, n: Math.floor(x), r: x - Math.floor(x) }));
  let left = total - out.reduce((n, e) => n + e.n, 0);
  for (const e of [...out].sort((a, b) => b.r - a.r)) {
    if (left <= 0) break;
    e.n++;
    left--;
  }
  return Object.fromEntries(out.map((e) => [e.k, e.n]));
}

export function percentOf(after: number, before: number): string {
  return before > 0 ? `${((after / before) * 100).toFixed(1)} %` : '—';
}

/**
 * Whether an idle gap outlived the cache: as long as the lifetime the requests asked for
 * (`summary.cacheLifetimeSeconds`: Anthropic's 5 minutes unless the home's config asks for 1 hour);
 * never where caching was off.
 */
export function outlivedCache(gapSeconds: number, lifetimeSeconds: number | null): boolean {
  return lifetimeSeconds !== null && gapSeconds >= lifetimeSeconds;
}

/**
 * The step between an axis's labelled ticks: the smallest of 1, 2, 5, 10, 20, 50 … whose ticks are
 * at least `minPx` apart when one unit is `unitPx` wide.
 */
export function tickStep(unitPx: number, minPx: number): number {
  if (!(unitPx > 0)) return 1;
  for (let decade = 1; ; decade *= 10) for (const m of [1, 2, 5]) if (m * decade * unitPx >= minPx) return m * decade;
}

export function shortHash(sha: string): string {
  return sha.slice(0, 12);
}

export const PREFIX_STATUS_LABEL: Record<'stable' | 'break' | 'compaction' | 'rewind', string> = {
  stable: 'stable prefix',
  break: 'cache break',
  compaction: 'compaction re-bill',
  rewind: 'rewind re-bill',
};

/** Short chip labels; the full kind name is the accessible label. */
export const KIND_LABEL: Record<InjectionKind, string> = {
  memory: 'memory',
  plugin: 'plugin',
  'gateway-note': 'gateway note',
  'surface-note': 'surface note',
  'multimodal-note': 'multimodal note',
};

/** The last part of a path, / or \\ separated (a dump's path comes from the host's file system). */
function fileName(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
}

/** What a message carrying a cache breakpoint says of it: the name of the request dump that marked it. */
export function cacheBreakpointLabel(dumpPath: string): string {
  return `cache breakpoint (cache_control in ${fileName(dumpPath)})`;
}

/** Invisible characters in a diff made visible, so a difference in whitespace can be seen. */
export function showWhitespace(text: string): string {
  return text.replace(/\n/g, '\u21b5\n').replace(/\t/g, '\u2192\t').replace(/\r/g, '\u240d');
}
