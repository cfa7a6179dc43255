// Cutting a message's text into runs for display: which injected span (if any) each run belongs
// to, and whether it lies in the part that differs from the stored row. Pure, offsets in UTF-16.

import type { InjectionKind } from '../src/shared/model/injection';
import type { SpanView } from '../src/shared/messages';

export interface Segment {
  text: string;
  kind: InjectionKind | null;
  /** First run of its span: where the kind's label chip goes. */
  spanStart: boolean;
  /** Inside the range that the wire text adds to (or changes from) the stored text. */
  changed: boolean;
}

export type Range = readonly [start: number, end: number];

/**
 * The part of `sent` that differs from `stored`: what is left between their common prefix and
 * common suffix. A sidecar is the stored text plus notes, so this is usually the appended notes.
 */
export function changedRange(stored: string, sent: string): Range | null {
  const limit = Math.min(stored.length, sent.length);
  let p = 0;
  while (p < limit && stored.charCodeAt(p) === sent.charCodeAt(p)) p++;
  let s = 0;
  while (s < limit - p && stored.charCodeAt(stored.length - 1 - s) === sent.charCodeAt(sent.length - 1 - s)) s++;
  return p < sent.length - s ? [p, sent.length - s] : null;
}

/** Where to cut a long text for its collapsed view: after `maxLines` lines or `maxChars`. */
export function collapsePoint(text: string, maxLines: number, maxChars: number): number {
  let at = -1;
  for (let line = 0; line < maxLines; line++) {
    at = text.indexOf('\n', at + 1);
    if (at < 0) break;
  }
  const byLines = at < 0 ? text.length : at;
  return Math.min(byLines, maxChars, text.length);
}

/** The runs of text[0, limit). Overlapping spans are shown by the earlier one. */
export function segment(text: string, spans: readonly SpanView[], changed: Range | null, limit = text.length): Segment[] {
  const end = Math.min(limit, text.length);
  const clip = (n: number): number => Math.min(Math.max(0, n), end);
  const sorted = spans.filter((s) => clip(s.start) < clip(s.end)).sort((a, b) => a.start - b.start);
  const cuts = new Set<number>([0, end]);
  for (const s of sorted) {
    cuts.add(clip(s.start));
    cuts.add(clip(s.end));
  }
  if (changed) {
    cuts.add(clip(changed[0]));
    cuts.add(clip(changed[1]));
  }
  const points = [...cuts].sort((a, b) => a - b);
  const out: Segment[] = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const [a, b] = [points[i], points[i + 1]];
    const span = sorted.find((s) => s.start <= a && a < s.end);
    out.push({
      text: text.slice(a, b),
      kind: span?.kind ?? null,
      spanStart: span !== undefined && clip(span.start) === a,
      changed: changed !== null && changed[0] <= a && a < changed[1],
    });
  }
  return out;
}
