// Python's str() of JSON-like values, and of the bytes a state.db BLOB column holds. The agent's
// rough estimator measures len(str(message_dict)), so matching its numbers needs Python's quoting,
// separators and literals, counted in code points.

/** Where a repr goes: its text, and each bytes value whole (its repr is ASCII and can be long: a
 * 16 MB BLOB is up to 64 MB of repr, so a caller that only measures it need not write it out). */
export interface ReprSink {
  text(s: string): void;
  bytes(b: Uint8Array): void;
}

export function writeRepr(value: unknown, sink: ReprSink): void {
  if (value === null || value === undefined) sink.text('None');
  else if (value === true) sink.text('True');
  else if (value === false) sink.text('False');
  else if (typeof value === 'number') sink.text(pythonNumber(value));
  else if (typeof value === 'bigint')
    sink.text(String(value)); // an INTEGER beyond 2^53: a Python int
  else if (typeof value === 'string') sink.text(pythonStr(value));
  else if (value instanceof Uint8Array)
    sink.bytes(value); // a BLOB: Python's sqlite3 gives bytes
  else if (Array.isArray(value)) {
    sink.text('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) sink.text(', ');
      writeRepr(value[i], sink);
    }
    sink.text(']');
  } else if (typeof value === 'object') {
    sink.text('{');
    let first = true;
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (v === undefined) continue;
      if (!first) sink.text(', ');
      first = false;
      sink.text(pythonStr(k));
      sink.text(': ');
      writeRepr(v, sink);
    }
    sink.text('}');
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- only a symbol or a function is left, and neither comes from JSON or SQLite
  } else sink.text(pythonStr(String(value)));
}

function pythonNumber(n: number): string {
  if (Number.isNaN(n)) return 'nan';
  if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf';
  if (Number.isInteger(n) && Math.abs(n) < 1e16) return String(n);
  const s = String(n);
  // Python writes exponents with at least two digits and always a sign: 1e-07, 1e+16.
  return s.replace(/e([+-])(\d)$/, 'e$10$2');
}

/** repr() of a str: single quotes unless the text has ' and no ", escapes for the unprintable. */
export function pythonStr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp >= 0x80 && !isPrintable(cp)) out += cp <= 0xff ? `\\x${hex(cp, 2)}` : cp <= 0xffff ? `\\u${hex(cp, 4)}` : `\\U${hex(cp, 8)}`;
    else out += ch;
  }
  return out + quote;
}

// repr() of bytes (Objects/bytesobject.c): b'…', or b"…" when there is a ' and no "; backslash,
// the quote, tab, newline and carriage return escaped with a backslash; other bytes outside
// 0x20-0x7e as \xNN; the rest as is. The product only measures it: each byte's width here, the
// quote counted apart (test/engine/pythonRepr.slow.test.ts writes it out, checked against python3).
const BYTE_WIDTH = Uint8Array.from({ length: 256 }, (_, c) => (c === 0x5c || c === 0x09 || c === 0x0a || c === 0x0d ? 2 : c < 0x20 || c >= 0x7f ? 4 : 1));

/** len(repr(b)) without writing it: one pass, no allocation. */
export function pythonBytesLength(b: Uint8Array): number {
  let n = 3; // b and the two quotes
  let single = 0;
  let double = 0;
  for (let i = 0; i < b.length; i++) {
    const c = b[i];
    n += BYTE_WIDTH[c];
    if (c === 0x27) single++;
    else if (c === 0x22) double++;
  }
  // Each ' is escaped unless the repr is double-quoted (a ' and no ").
  return single > 0 && double === 0 ? n : n + single;
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

/**
 * An approximation of Python's str.isprintable for non-ASCII: control, format, surrogate,
 * unassigned-private and separator (other than the plain space) code points are escaped.
 */
function isPrintable(cp: number): boolean {
  if (cp >= 0x80 && cp <= 0xa0) return false;
  if (cp === 0xad) return false;
  if (cp >= 0xd800 && cp <= 0xdfff) return false;
  return !/[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u.test(String.fromCodePoint(cp));
}

/** Python's len(): code points, not UTF-16 units. */
export function pythonLen(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}
