// JSON.stringify's text written a piece at a time: the embedded data of a home of 50,000 lineages
// is over 100 MB of JSON, and held as one string (then as the page, then as its bytes) it would cost
// several times that; an overview nested 10,000 forks deep is also past the depth JSON.stringify can
// recurse to. Pure (no I/O): the report page and a packed lineage are both written through it.

/** About this many UTF-16 code units of JSON are handed on at a time. */
const CHUNK = 1 << 20;

/** Values this deep are handed to JSON.stringify whole (the first levels are walked here, so the text comes in pieces). */
const NATIVE_DEPTH = 3;
/** After JSON.stringify ran out of stack in a value, how many levels below it are walked here before it is tried again. */
const WALKED_LEVELS = 1000;

type Frame = ({ object: object; keys: string[]; next: number; first: boolean } | { array: readonly unknown[]; next: number }) & {
  depth: number;
  nativeFrom: number;
};

/** A value as JSON.stringify sees it under `key`: after its toJSON, and unboxed. */
function resolved(key: string, raw: unknown): unknown {
  let v = raw;
  if (v !== null && (typeof v === 'object' || typeof v === 'bigint') && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
    v = (v as { toJSON(key: string): unknown }).toJSON(key);
  }
  return v instanceof Number || v instanceof String || v instanceof Boolean ? v.valueOf() : v;
}

/** A value JSON has: the others are left out of an object, and null in an array. */
const hasJson = (v: unknown): boolean => v !== undefined && typeof v !== 'function' && typeof v !== 'symbol';

/**
 * JSON.stringify(value)'s text (no replacer, no indentation), handed to `write` in pieces of about
 * `chunk` code units (or one value's text, when longer), the same text at any depth. The first
 * levels are walked here, by JSON.stringify's rules (toJSON, own enumerable keys in order, values
 * without JSON left out of objects and null in arrays), and each value below them is
 * JSON.stringify's own text; a value nested deeper than JSON.stringify can recurse (a RangeError)
 * is walked here level by level instead, down to where it can again.
 */
export function writeJson(value: unknown, write: (chunk: string) => void, chunk = CHUNK): void {
  let parts: string[] = [];
  let size = 0;
  const put = (s: string): void => {
    parts.push(s);
    size += s.length;
    if (size >= chunk) {
      write(parts.join(''));
      parts = [];
      size = 0;
    }
  };
  const stack: Frame[] = [];
  const open = new Set<object>();
  /** A resolved value at `depth`: its text, or opened as a frame to walk. */
  const emit = (v: unknown, depth: number, nativeFrom: number): void => {
    if (v === null || typeof v !== 'object') {
      put(hasJson(v) ? JSON.stringify(v) : 'null');
      return;
    }
    let from = nativeFrom;
    if (depth >= from) {
      try {
        put(JSON.stringify(v));
        return;
      } catch (e) {
        if (!(e instanceof RangeError)) throw e;
        from = depth + WALKED_LEVELS;
      }
    }
    if (open.has(v)) throw new TypeError('Converting circular structure to JSON');
    open.add(v);
    if (Array.isArray(v)) {
      put('[');
      stack.push({ array: v, next: 0, depth, nativeFrom: from });
    } else {
      put('{');
      stack.push({ object: v, keys: Object.keys(v), next: 0, first: true, depth, nativeFrom: from });
    }
  };
  const top = resolved('', value);
  if (!hasJson(top)) return;
  emit(top, 0, NATIVE_DEPTH);
  while (stack.length) {
    const f = stack[stack.length - 1];
    if ('array' in f) {
      if (f.next === f.array.length) {
        stack.pop();
        open.delete(f.array);
        put(']');
        continue;
      }
      const i = f.next++;
      if (i) put(',');
      emit(resolved(String(i), f.array[i]), f.depth + 1, f.nativeFrom);
      continue;
    }
    let v: unknown;
    let key: string | undefined;
    while (f.next < f.keys.length && key === undefined) {
      const k = f.keys[f.next++];
      v = resolved(k, (f.object as Record<string, unknown>)[k]);
      if (hasJson(v)) key = k;
    }
    if (key === undefined) {
      stack.pop();
      open.delete(f.object);
      put('}');
      continue;
    }
    put(`${f.first ? '' : ','}${JSON.stringify(key)}:`);
    f.first = false;
    emit(v, f.depth + 1, f.nativeFrom);
  }
  if (parts.length) write(parts.join(''));
}
