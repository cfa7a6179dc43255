// The schema: tables as sqlite_schema lists them, parsed from their CREATE TABLE text (column
// names, affinities, the rowid alias, generated columns, defaults, WITHOUT ROWID), and the
// default a record written before ALTER TABLE ADD COLUMN reads for the columns it lacks.

import { SqliteFormatError } from './errors';
import { safe, type SqlValue } from './record';

export type Affinity = 'integer' | 'text' | 'blob' | 'real' | 'numeric';

/**
 * A name as SQLite compares names (table and column names, keywords): ASCII letters fold, others
 * stay ('É' and 'é' are two names; the Kelvin sign is not a k).
 */
export function foldName(name: string): string {
  // Most names are lower case already: no copy for them (a listing folds a few names per row).
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c >= 65 && c <= 90) return name.replace(/[A-Z]+/g, (m) => m.toLowerCase());
  }
  return name;
}

const upper = (text: string): string => text.replace(/[a-z]+/g, (m) => m.toUpperCase());

export interface SqliteColumn {
  name: string;
  affinity: Affinity;
  /** INTEGER PRIMARY KEY: the record holds NULL, the value is the rowid. */
  rowidAlias: boolean;
  /** A generated column: VIRTUAL ones are computed when read and not stored in the record; STORED ones are. */
  generated: false | 'virtual' | 'stored';
  /** The DEFAULT clause, for records written before an ALTER TABLE ADD COLUMN. */
  dflt?: DefaultClause;
}

type DefaultClause =
  | { kind: 'value'; value: SqlValue } // a string, blob, NULL, TRUE or FALSE
  | { kind: 'number'; token: string; negative: boolean } // a numeric literal as written, after its sign
  | { kind: 'unsupported'; sql: string };

export interface SqliteTable {
  name: string;
  rootPage: number;
  sql: string;
  virtual: boolean;
  /** Rows live in an index b-tree keyed by the primary key; there is no rowid. */
  withoutRowid: boolean;
  columns: SqliteColumn[];
  /** Per column, its place in the record; -1 for a column the record does not hold. */
  recordIndex: number[];
}

// ---------------------------------------------------------------------------------------------
// Default values (a record written before ALTER TABLE ADD COLUMN lacks the new columns)

/**
 * The value SQLite gives a constant default (sqlite3ValueFromExpr; ADD COLUMN accepts only those),
 * as SQLite 3.54 does: SQLite 3.40 differs on hex literals beyond 32 bits (text there), on TRUE
 * and FALSE in a TEXT column (integers there) and on integral reals in a column without affinity.
 * A REAL column's reader turns integers into reals after this (TableRow).
 */
export function defaultValue(col: SqliteColumn): SqlValue {
  const d = col.dflt;
  if (!d) return null;
  if (d.kind === 'unsupported') throw new SqliteFormatError(`the default of column ${col.name} (${d.sql}) is not a constant this reader evaluates`);
  if (d.kind === 'value') return applyAffinity(d.value, col.affinity);
  const { token, negative } = d;
  if (col.affinity === 'text') {
    // A decimal integer is its digits without leading zeros, a hex one its value, a real as written.
    if (/^\d+$/.test(token)) return String(negative ? -BigInt(token) : BigInt(token));
    return /^0x/i.test(token) ? String(literal(token, negative)) : `${negative ? '-' : ''}${token}`;
  }
  const v = literal(token, negative);
  // Without affinity the literal keeps its own type; numeric affinity makes an integral real an integer.
  return col.affinity === 'blob' ? v : integral(v);
}

/** A numeric literal's own value: a hex one is 64-bit two's complement, a decimal integer beyond 64 bits a real. */
function literal(token: string, negative: boolean): number | bigint {
  if (/^0x/i.test(token)) {
    const v = BigInt.asIntN(64, BigInt(token));
    // The negation of the smallest integer overflows into a real.
    return negative ? (v === -(2n ** 63n) ? 2 ** 63 : safe(-v)) : safe(v);
  }
  if (/^\d+$/.test(token)) {
    const v = negative ? -BigInt(token) : BigInt(token);
    return v >= -(2n ** 63n) && v < 2n ** 63n ? safe(v) : Number(v);
  }
  return Number(`${negative ? '-' : ''}${token}`);
}

/** sqlite3VdbeIntegerAffinity: a real with no fraction, strictly inside the 64-bit range, is an integer. */
function integral(v: number | bigint): number | bigint {
  return typeof v === 'number' && Number.isInteger(v) && v > -(2 ** 63) && v < 2 ** 63 ? safe(BigInt(v)) : v;
}

function applyAffinity(v: SqlValue, affinity: Affinity): SqlValue {
  if (affinity === 'text') return typeof v === 'number' || typeof v === 'bigint' ? String(v) : v;
  if (affinity === 'blob' || typeof v !== 'string') return v;
  return numeric(v) ?? v;
}

const SPACES = /^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g;

/**
 * Text as numeric affinity reads it (applyNumericAffinity): an integer when it is written as one
 * and fits in 64 bits, else a real, itself an integer when it has no fraction and lies strictly
 * inside the 64-bit range (sqlite3VdbeIntegerAffinity); null when it is no number (hex included).
 */
function numeric(text: string): number | bigint | null {
  const t = text.replace(SPACES, '');
  if (/^[+-]?\d+$/.test(t)) {
    const big = BigInt(t);
    if (big >= -(2n ** 63n) && big < 2n ** 63n) return safe(big);
  } else if (!/^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?$/.test(t)) {
    return null;
  }
  return integral(Number(t));
}

// ---------------------------------------------------------------------------------------------
// CREATE TABLE

interface Token {
  kind: 'word' | 'quoted' | 'string' | 'number' | 'blob' | 'op';
  text: string;
}

function tokenize(sql: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const fail = (what: string): never => {
    throw new SqliteFormatError(`cannot read the schema: ${what} in ${JSON.stringify(sql.slice(0, 200))}`);
  };
  while (i < sql.length) {
    const c = sql[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '-' && sql[i + 1] === '-') {
      const e = sql.indexOf('\n', i);
      i = e < 0 ? sql.length : e + 1;
      continue;
    }
    if (c === '/' && sql[i + 1] === '*') {
      const e = sql.indexOf('*/', i + 2);
      i = e < 0 ? sql.length : e + 2;
      continue;
    }
    if (c === '"' || c === '`' || c === "'") {
      let text = '';
      let j = i + 1;
      for (;;) {
        if (j >= sql.length) fail('an unterminated quote');
        if (sql[j] === c) {
          if (sql[j + 1] === c) {
            text += c;
            j += 2;
            continue;
          }
          break;
        }
        text += sql[j++];
      }
      out.push({ kind: c === "'" ? 'string' : 'quoted', text });
      i = j + 1;
      continue;
    }
    if (c === '[') {
      const e = sql.indexOf(']', i);
      if (e < 0) fail('an unterminated [');
      out.push({ kind: 'quoted', text: sql.slice(i + 1, e) });
      i = e + 1;
      continue;
    }
    if ((c === 'x' || c === 'X') && sql[i + 1] === "'") {
      const e = sql.indexOf("'", i + 2);
      if (e < 0) fail('an unterminated blob literal');
      out.push({ kind: 'blob', text: sql.slice(i + 2, e) });
      i = e + 1;
      continue;
    }
    const num = /^(0[xX][0-9a-fA-F]+|(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?)/.exec(sql.slice(i, i + 400));
    if (num && /[\d.]/.test(c)) {
      out.push({ kind: 'number', text: num[0] });
      i += num[0].length;
      continue;
    }
    const word = /^[A-Za-z_\u0080-\uffff][\w$\u0080-\uffff]*/.exec(sql.slice(i, i + 400));
    if (word) {
      out.push({ kind: 'word', text: word[0] });
      i += word[0].length;
      continue;
    }
    out.push({ kind: 'op', text: c });
    i++;
  }
  return out;
}

const isWord = (t: Token | undefined, ...words: string[]): boolean => t?.kind === 'word' && words.includes(upper(t.text));
const TABLE_CONSTRAINTS = ['CONSTRAINT', 'PRIMARY', 'UNIQUE', 'CHECK', 'FOREIGN'];
const COLUMN_CONSTRAINTS = ['CONSTRAINT', 'PRIMARY', 'NOT', 'NULL', 'UNIQUE', 'CHECK', 'DEFAULT', 'COLLATE', 'REFERENCES', 'GENERATED', 'AS'];

/** The index after the parenthesised group that starts at `i`. */
function skipGroup(toks: Token[], i: number): number {
  let depth = 0;
  for (let j = i; j < toks.length; j++) {
    if (toks[j].kind !== 'op') continue;
    if (toks[j].text === '(') depth++;
    else if (toks[j].text === ')' && --depth === 0) return j + 1;
  }
  throw new SqliteFormatError('cannot read the schema: unbalanced parentheses');
}

/** Column affinity from the declared type (https://www.sqlite.org/datatype3.html §3.1). */
function affinityOf(type: string): Affinity {
  const t = upper(type);
  if (t.includes('INT')) return 'integer';
  if (t.includes('CHAR') || t.includes('CLOB') || t.includes('TEXT')) return 'text';
  if (t.includes('BLOB') || t === '') return 'blob';
  if (t.includes('REAL') || t.includes('FLOA') || t.includes('DOUB')) return 'real';
  return 'numeric';
}

function parseDefault(toks: Token[], i: number): { clause: DefaultClause; next: number } {
  const t = toks[i];
  if (t?.kind === 'op' && t.text === '(') {
    const next = skipGroup(toks, i);
    const inner = toks.slice(i + 1, next - 1);
    const parsed = inner.length ? parseDefault(inner, 0) : null;
    return { clause: parsed && parsed.next === inner.length ? parsed.clause : { kind: 'unsupported', sql: inner.map((x) => x.text).join(' ') }, next };
  }
  if (t?.kind === 'op' && (t.text === '-' || t.text === '+') && toks[i + 1]?.kind === 'number') {
    return { clause: { kind: 'number', token: toks[i + 1].text, negative: t.text === '-' }, next: i + 2 };
  }
  if (t?.kind === 'number') return { clause: { kind: 'number', token: t.text, negative: false }, next: i + 1 };
  if (t?.kind === 'string') return { clause: { kind: 'value', value: t.text }, next: i + 1 };
  if (t?.kind === 'blob') {
    const bytes = new Uint8Array(t.text.length / 2);
    for (let k = 0; k < bytes.length; k++) bytes[k] = parseInt(t.text.slice(2 * k, 2 * k + 2), 16);
    return { clause: { kind: 'value', value: bytes }, next: i + 1 };
  }
  if (t?.kind === 'word' || t?.kind === 'quoted') {
    const up = upper(t.text);
    if (t.kind === 'word' && up === 'NULL') return { clause: { kind: 'value', value: null }, next: i + 1 };
    if (t.kind === 'word' && (up === 'TRUE' || up === 'FALSE')) return { clause: { kind: 'value', value: up === 'TRUE' ? 1 : 0 }, next: i + 1 };
    if (t.kind === 'word' && up.startsWith('CURRENT_')) return { clause: { kind: 'unsupported', sql: t.text }, next: i + 1 };
    // DEFAULT some_identifier is the string 'some_identifier'.
    return { clause: { kind: 'value', value: t.text }, next: i + 1 };
  }
  return { clause: { kind: 'unsupported', sql: t?.text ?? '' }, next: i + 1 };
}

/** Column names, affinities, the rowid alias, defaults and the record layout from a CREATE TABLE statement. */
export function parseCreateTable(sql: string, name: string): Pick<SqliteTable, 'virtual' | 'withoutRowid' | 'columns' | 'recordIndex'> {
  const toks = tokenize(sql);
  if (isWord(toks[1], 'VIRTUAL')) return { virtual: true, withoutRowid: false, columns: [], recordIndex: [] };
  const open = toks.findIndex((t) => t.kind === 'op' && t.text === '(');
  if (!isWord(toks[0], 'CREATE') || open < 0) throw new SqliteFormatError(`cannot read the schema of table ${name}: ${JSON.stringify(sql.slice(0, 200))}`);
  const close = skipGroup(toks, open) - 1;
  const withoutRowid = toks.slice(close + 1).some((t, k, rest) => isWord(t, 'WITHOUT') && isWord(rest[k + 1], 'ROWID'));

  const segments: Token[][] = [[]];
  for (let j = open + 1; j < close;) {
    const t = toks[j];
    if (t.kind === 'op' && t.text === ',') {
      segments.push([]);
      j++;
      continue;
    }
    const end = t.kind === 'op' && t.text === '(' ? skipGroup(toks, j) : j + 1;
    segments[segments.length - 1].push(...toks.slice(j, end));
    j = end;
  }

  const columns: (SqliteColumn & { type: string; pkDesc: boolean; pk: boolean; collate: string })[] = [];
  let tablePk: { name: string; collate: string | null }[] | null = null;
  for (const seg of segments) {
    if (!seg.length) throw new SqliteFormatError(`cannot read the schema of table ${name}: an empty column definition`);
    if (TABLE_CONSTRAINTS.some((w) => isWord(seg[0], w))) {
      const at = seg.findIndex((t, k) => isWord(t, 'PRIMARY') && isWord(seg[k + 1], 'KEY'));
      const group = seg.findIndex((t, k) => at >= 0 && k > at && t.kind === 'op' && t.text === '(');
      if (group >= 0) {
        const inner = seg.slice(group + 1, skipGroup(seg, group) - 1);
        const names: Token[][] = [[]];
        for (const t of inner) {
          if (t.kind === 'op' && t.text === ',') names.push([]);
          else names[names.length - 1].push(t);
        }
        tablePk = names.map((n) => {
          const c = n.findIndex((t) => isWord(t, 'COLLATE'));
          return { name: n[0]?.text ?? '', collate: c >= 0 ? (n[c + 1]?.text ?? '') : null };
        });
      }
      continue;
    }
    const colName = seg[0].text;
    let k = 1;
    const typeParts: string[] = [];
    while (k < seg.length && !COLUMN_CONSTRAINTS.some((w) => isWord(seg[k], w))) {
      if (seg[k].kind === 'op' && seg[k].text === '(') {
        const end = skipGroup(seg, k);
        typeParts.push(
          `(${seg
            .slice(k + 1, end - 1)
            .map((t) => t.text)
            .join('')})`,
        );
        k = end;
      } else {
        typeParts.push(seg[k].text);
        k++;
      }
    }
    const type = typeParts.join(' ').replace(/ \(/g, '(');
    const col = {
      name: colName,
      type,
      affinity: affinityOf(type),
      rowidAlias: false,
      generated: false,
      pk: false,
      pkDesc: false,
      collate: 'BINARY',
    } as (typeof columns)[number];
    while (k < seg.length) {
      const t = seg[k];
      if (t.kind === 'op' && t.text === '(') {
        k = skipGroup(seg, k);
        continue;
      }
      if (isWord(t, 'COLLATE')) col.collate = seg[k + 1]?.text ?? '';
      if (isWord(t, 'CONSTRAINT', 'COLLATE')) {
        k += 2;
        continue;
      }
      if (isWord(t, 'PRIMARY') && isWord(seg[k + 1], 'KEY')) {
        col.pk = true;
        col.pkDesc = isWord(seg[k + 2], 'DESC');
        k += 2;
        continue;
      }
      // ON DELETE SET DEFAULT is a foreign-key action, not a default value.
      if (isWord(t, 'DEFAULT') && !isWord(seg[k - 1], 'SET')) {
        const d = parseDefault(seg, k + 1);
        col.dflt = d.clause;
        k = d.next;
        continue;
      }
      if (isWord(t, 'AS')) {
        const after = skipGroup(seg, k + 1);
        col.generated = isWord(seg[after], 'STORED') ? 'stored' : 'virtual';
        k = after;
        continue;
      }
      k++;
    }
    columns.push(col);
  }
  if (!columns.length) throw new SqliteFormatError(`cannot read the schema of table ${name}: no columns`);
  const recordIndex: number[] = [];
  if (!withoutRowid) {
    // INTEGER PRIMARY KEY (the type exactly INTEGER; the column form not DESC) is the rowid.
    const single = tablePk
      ? tablePk.length === 1
        ? columns.find((c) => foldName(c.name) === foldName(tablePk?.[0].name ?? ''))
        : undefined
      : columns.filter((c) => c.pk).length === 1
        ? columns.find((c) => c.pk && !c.pkDesc)
        : undefined;
    if (single && upper(single.type) === 'INTEGER') single.rowidAlias = true;
    // The record holds every stored column in declaration order (the alias as a NULL).
    let stored = 0;
    for (const c of columns) recordIndex.push(c.generated === 'virtual' ? -1 : stored++);
  } else {
    // The record is the primary key's columns, then the other stored ones in declaration order
    // (fileformat2 §2.6); a key column named twice with the same collation counts once, as
    // convertToWithoutRowidTable drops it.
    const key = tablePk ?? columns.filter((c) => c.pk).map((c) => ({ name: c.name, collate: null }));
    if (!key.length) throw new SqliteFormatError(`cannot read the schema of table ${name}: a WITHOUT ROWID table without a PRIMARY KEY`);
    const order: { column: number; collate: string }[] = [];
    for (const { name: keyName, collate } of key) {
      const column = columns.findIndex((c) => foldName(c.name) === foldName(keyName));
      if (column < 0)
        throw new SqliteFormatError(
          `cannot read the schema of table ${name}: its PRIMARY KEY names ${JSON.stringify(keyName)}, which is not one of its columns`,
        );
      const coll = foldName(collate ?? columns[column].collate);
      if (!order.some((o) => o.column === column && o.collate === coll)) order.push({ column, collate: coll });
    }
    columns.forEach(() => recordIndex.push(-1));
    order.forEach((o, i) => {
      if (recordIndex[o.column] < 0) recordIndex[o.column] = i;
    });
    let stored = order.length;
    columns.forEach((c, i) => {
      if (c.generated !== 'virtual' && !order.some((o) => o.column === i)) recordIndex[i] = stored++;
    });
  }
  return {
    virtual: false,
    withoutRowid,
    recordIndex,
    columns: columns.map(({ name: n, affinity, rowidAlias, generated, dflt }) => ({ name: n, affinity, rowidAlias, generated, ...(dflt ? { dflt } : {}) })),
  };
}
