// Text from a transcript or a path, made safe to print. A terminal acts on control characters (ESC
// starts sequences that recolour, move the cursor or retitle the window; CR and LF forge lines) and
// bidi controls reorder what it shows, so each such character is printed as a visible escape.

/** C0, DEL and C1 controls, the bidi embeddings, overrides, isolates and marks, and U+2028/U+2029. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escape(c: string): string {
  const n = c.charCodeAt(0);
  return NAMED[c] ?? (n <= 0xff ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16).padStart(4, '0')}`);
}

/** s with every control and bidi character shown as an escape (`\n`, `\x1b`, `\u202e`). */
export function visible(s: string): string {
  return s.replace(UNSAFE, escape);
}

const percent = (c: string): string => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;

/**
 * A GitHub workflow command's message: `%`, CR and LF percent-encoded as GitHub decodes them (so a
 * value cannot end the command and start another), every other control made visible.
 */
export function githubData(s: string): string {
  return s.replace(/[%\r\n]/g, percent).replace(UNSAFE, escape);
}

/** Each UTF-8 byte of c as %XX: ESC is %1B, U+202E %E2%80%AE. */
const percentBytes = (c: string): string => Array.from(new TextEncoder().encode(c), (b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');

/**
 * A workflow command's property value (`file=`, `title=`): `%`, CR, LF, `:` and `,` percent-encoded
 * as GitHub decodes them (`:` and `,` end a property), and every other control or bidi character
 * percent-encoded too, as its UTF-8 bytes (ESC is %1B). GitHub leaves those as they are, so the
 * property is the path itself, or, where the path holds such a character, its percent-encoding:
 * `%` being encoded as well, decoding every %XX gives the path back, which a `\x1b` would not.
 */
export function githubProperty(s: string): string {
  return s.replace(/[%\r\n:,]/g, percent).replace(UNSAFE, percentBytes);
}

/** Terminal cells of one code point: 0 for combining marks and joiners, 2 for East Asian wide and emoji. */
function cells(cp: number): number {
  if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200d) || (cp >= 0xfe00 && cp <= 0xfe0f)) return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f)
    || (cp >= 0x2e80 && cp <= 0xa4cf)
    || (cp >= 0xac00 && cp <= 0xd7a3)
    || (cp >= 0xf900 && cp <= 0xfaff)
    || (cp >= 0xfe30 && cp <= 0xfe4f)
    || (cp >= 0xff00 && cp <= 0xff60)
    || (cp >= 0xffe0 && cp <= 0xffe6)
    || (cp >= 0x1f300 && cp <= 0x1faff)
    || (cp >= 0x20000 && cp <= 0x3fffd)
  )
    return 2;
  return 1;
}

/** Terminal cells of a string (its code points' cells summed). */
export function width(s: string): number {
  let n = 0;
  for (const ch of s) n += cells(ch.codePointAt(0) as number);
  return n;
}

/** At most `max` cells, cut with an ellipsis. */
export function clip(s: string, max: number): string {
  if (width(s) <= max) return s;
  let out = '';
  let n = 0;
  for (const ch of s) {
    const w = cells(ch.codePointAt(0) as number);
    if (n + w > max - 1) break;
    out += ch;
    n += w;
  }
  return `${out}…`;
}
