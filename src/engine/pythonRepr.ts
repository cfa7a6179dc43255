// Python's str() of JSON-like values. The agent's rough estimator measures len(str(message_dict)),
// so matching its numbers needs Python's quoting, separators and literals, counted in code points.

export function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return pythonNumber(value);
  if (typeof value === 'string') return pythonStr(value);
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${pythonStr(k)}: ${pythonRepr(v)}`).join(', ')}}`;
  }
  return pythonStr(String(value));
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
