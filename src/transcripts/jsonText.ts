// JSON with positions: parse errors as line/column, and the spans of the elements of one top-level
// array, so a truncated file still yields every complete element and each row knows its line.

export interface TextPos { line: number; column: number; offset: number }

export function positionAt(text: string, offset: number): TextPos {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1, offset };
}

/** Maps many offsets to lines in one pass (offsets must be ascending). */
export function linesAt(text: string, offsets: readonly number[]): number[] {
  const out: number[] = [];
  let line = 1;
  let nl = text.indexOf('\n');
  for (const offset of offsets) {
    while (nl >= 0 && nl < offset) { line++; nl = text.indexOf('\n', nl + 1); }
    out.push(line);
  }
  return out;
}

export type JsonParse = { ok: true; value: unknown } | { ok: false; message: string; pos: TextPos };

export function parseJson(text: string): JsonParse {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const m = /position (\d+)/.exec(message);
    const offset = m ? Number(m[1]) : text.length;
    return { ok: false, message: message.replace(/ in JSON at position \d+.*$/, ''), pos: positionAt(text, offset) };
  }
}

export interface ElementSpan { start: number; end: number }

/**
 * The spans of the complete elements of the array under `key` in the top-level object, found
 * with a linear scan that tracks strings and depth (no second parse). Incomplete trailing
 * elements are left out.
 */
export function topLevelArrayElements(text: string, key: string): ElementSpan[] {
  const spans: ElementSpan[] = [];
  const needle = JSON.stringify(key);
  let depth = 0;
  let inArray = false;
  let arrayDepth = -1;
  let elementStart = -1;
  let lastKeyAtDepth1 = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      const start = i;
      // Jump from quote to quote (native search); a quote preceded by an odd run of backslashes is escaped.
      for (;;) {
        i = text.indexOf('"', i + 1);
        if (i < 0) { i = text.length; break; }
        let b = i - 1;
        while (text.charCodeAt(b) === 92) b--;
        if ((i - 1 - b) % 2 === 0) break;
      }
      if (depth === 1 && !inArray) lastKeyAtDepth1 = text.slice(start, i + 1);
      if (inArray && depth === arrayDepth && elementStart < 0) elementStart = start;
      continue;
    }
    if (c === 123 /* { */ || c === 91 /* [ */) {
      if (inArray && depth === arrayDepth && elementStart < 0) elementStart = i;
      depth++;
      if (c === 91 && depth === 2 && !inArray && lastKeyAtDepth1 === needle) { inArray = true; arrayDepth = 2; }
      continue;
    }
    if (c === 125 /* } */ || c === 93 /* ] */) {
      if (inArray && depth === arrayDepth && c === 93) {
        if (elementStart >= 0) spans.push({ start: elementStart, end: i });
        return spans;
      }
      depth--;
      if (inArray && depth === arrayDepth && elementStart >= 0) { spans.push({ start: elementStart, end: i + 1 }); elementStart = -1; }
      continue;
    }
    if (inArray && depth === arrayDepth) {
      if (c === 44 /* , */) {
        if (elementStart >= 0) { spans.push({ start: elementStart, end: i }); elementStart = -1; }
      } else if (elementStart < 0 && c > 32) elementStart = i;
    }
  }
  return spans;
}
