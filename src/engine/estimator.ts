// The agent's own rough token estimator (docs/hermes-behaviour.md §2.3). It decides compaction, so the inspector
// shows it beside the exact tokenizer count.

import { isPartList, type Row } from '../shared/model/rows';
import type { Profile } from './profile';
import { pythonBytesLength, pythonLen, pythonStr, writeRepr } from './pythonRepr';
import { effectiveSidecar } from './sidecar';
import { utf8Length } from '../shared/model/utf8';

export const DEFAULT_IMAGE_TOKEN_COST = 1500;
const IMAGE_PART_TYPES = new Set(['image', 'image_url', 'input_image']);

/** Keys that exist only for persistence and never reach the provider (PERSISTENCE_ONLY_MESSAGE_FIELDS). */
export const PERSISTENCE_ONLY_MESSAGE_FIELDS: readonly string[] = [
  'timestamp',
  'display_kind',
  'display_metadata',
  '_row_id',
  '_merged_turn_prefix',
  'message_uid',
  '_absorbed_message_uids',
  '_tool_call_uids',
  '_tool_call_uid',
  '_db_row_snapshot',
  '_canonical_row',
];

/** V3 counts each of these (CJK, Hangul, fullwidth) as a token of its own. */
const CJK =
  /[\u1100-\u11ff\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3100-\u318f\u3190-\u31ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]|[\u{20000}-\u{2fa1f}]/gu;

/**
 * What the estimators read of a repr, measured instead of written: Python's len() of it (V1), and
 * for V3 its CJK code points and the UTF-8 bytes of the rest. Writing the repr out (pythonStr, a
 * character at a time) cost ~60 ns a character, most of a compaction's report on a long session;
 * here a string's escapes are counted and any non-ASCII code point's repr looked up, ~10× faster.
 * `bytes` is the reprs of bytes values (ASCII).
 */
interface ReprMeasure {
  points: number;
  cjk: number;
  restBytes: number;
  bytes: number;
}

/** One non-ASCII code point of a str's repr: as pythonStr writes it (itself, or an escape), measured.
 * Kept per code point seen (a few thousand at most in practice, never more than Unicode has). */
type PointMeasure = readonly [points: number, cjk: number, restBytes: number];
const nonAsciiPoints = new Map<number, PointMeasure>();

function nonAsciiPoint(cp: number): PointMeasure {
  let m = nonAsciiPoints.get(cp);
  if (m === undefined) {
    // A non-ASCII character is never the quote, so its escape does not depend on the quote chosen.
    const written: ReprMeasure = { points: 0, cjk: 0, restBytes: 0, bytes: 0 };
    measureWritten(pythonStr(String.fromCodePoint(cp)).slice(1, -1), written);
    m = [written.points, written.cjk, written.restBytes];
    nonAsciiPoints.set(cp, m);
  }
  return m;
}

/** Anything but printable ASCII, tab, newline and carriage return. */
const NOT_PLAIN = /[^\t\n\r\x20-\x7e]/;

function occurrences(s: string, ch: string): number {
  let n = 0;
  for (let i = s.indexOf(ch); i >= 0; i = s.indexOf(ch, i + 1)) n++;
  return n;
}

/** pythonStr(s) measured: the ASCII escapes are counted here, any other code point by nonAsciiPoint. */
function measureStr(s: string, m: ReprMeasure): void {
  if (!NOT_PLAIN.test(s)) {
    // Most text (tool output, code) is plain: native scans count what is escaped, several times
    // faster than reading it a character at a time.
    const single = occurrences(s, "'");
    const escaped = occurrences(s, '\\') + occurrences(s, '\n') + occurrences(s, '\r') + occurrences(s, '\t');
    const quoteEscapes = single > 0 && !s.includes('"') ? 0 : single;
    addAscii(m, s.length + 2 + escaped + quoteEscapes);
    return;
  }
  let ascii = 2; // the quotes
  let single = 0;
  let double = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      // Itself, one more for \\ \n \r \t, three more for \xNN; the quotes are counted below.
      if (c === 0x27) single++;
      else if (c === 0x22) double++;
      else if (c === 0x5c || c === 0x0a || c === 0x0d || c === 0x09) ascii++;
      else if (c < 0x20 || c === 0x7f) ascii += 3;
      ascii++;
      continue;
    }
    let cp = c;
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        cp = (c - 0xd800) * 0x400 + (d - 0xdc00) + 0x10000;
        i++;
      }
    }
    const [points, cjk, restBytes] = nonAsciiPoint(cp);
    m.points += points;
    m.cjk += cjk;
    m.restBytes += restBytes;
  }
  // Single-quoted, each ' escaped, unless there is a ' and no ": then double-quoted, nothing escaped.
  if (!(single > 0 && double === 0)) ascii += single;
  addAscii(m, ascii);
}

function addAscii(m: ReprMeasure, n: number): void {
  m.points += n;
  m.restBytes += n;
}

/** Text writeRepr wrote (a scalar's repr: short), measured as the estimators read it. */
function measureWritten(text: string, m: ReprMeasure): void {
  let cjk = 0;
  const rest = text.replace(CJK, () => {
    cjk++;
    return '';
  });
  m.points += pythonLen(text);
  m.cjk += cjk;
  m.restBytes += utf8Length(rest);
}

/** writeRepr(value) measured: its containers walked as it walks them, strings and bytes measured, the other scalars written by it. */
function measureRepr(value: unknown, m: ReprMeasure): void {
  if (typeof value === 'string') measureStr(value, m);
  else if (value instanceof Uint8Array) m.bytes += pythonBytesLength(value);
  else if (Array.isArray(value)) {
    addAscii(m, 2 + Math.max(0, value.length - 1) * 2); // [ ] and ', '
    for (const v of value) measureRepr(v, m);
  } else if (value !== null && typeof value === 'object') {
    let entries = 0;
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (v === undefined) continue;
      entries++;
      measureStr(k, m);
      measureRepr(v, m);
    }
    addAscii(m, 2 + entries * 2 + Math.max(0, entries - 1) * 2); // { }, ': ' and ', '
  } else writeRepr(value, { text: (text) => measureWritten(text, m), bytes: (b) => (m.bytes += pythonBytesLength(b)) });
}

function countImages(content: unknown): number {
  if (!isPartList(content)) return 0;
  return content.filter((p) => p && IMAGE_PART_TYPES.has(p.type)).length;
}

function stripImages(content: unknown): unknown {
  if (!isPartList(content)) return content;
  return content.map((p) => (p && IMAGE_PART_TYPES.has(p.type) ? { type: p.type, image: '[stripped]' } : p));
}

/** The dict the estimator measures: the stored row (V1), or its wire shadow (V3). */
function estimatorShadow(row: Row, profile: Profile): Row {
  const shadow: Row = { ...row, content: stripImages(row.content) };
  if (profile.estimator === 'v1') return shadow;
  const sidecar = effectiveSidecar(row);
  if (sidecar !== null) shadow.content = sidecar;
  delete shadow.api_content;
  for (const key of PERSISTENCE_ONLY_MESSAGE_FIELDS) delete shadow[key];
  delete shadow.reasoning_details;
  delete shadow._anthropic_content_blocks;
  if (shadow.reasoning_content !== undefined) delete shadow.reasoning;
  if (typeof shadow.encrypted_content === 'string') shadow.encrypted_content = '';
  return shadow;
}

/** estimate_messages_tokens_rough: the repr lengths over 4, plus a flat cost per image. Bytes
 * values (BLOB columns) are measured, not written out: their repr is ASCII of a known length. */
export function estimateMessagesTokensRough(rows: readonly Row[], profile: Profile): number {
  let images = 0;
  let chars = 0;
  let tokens = 0;
  for (const row of rows) {
    const m: ReprMeasure = { points: 0, cjk: 0, restBytes: 0, bytes: 0 };
    measureRepr(estimatorShadow(row, profile), m);
    // V1: the rows' repr lengths summed, then //4. V3: each row apart, (UTF-8 bytes + 3)//4 of
    // all but the CJK code points, which are a token each.
    chars += m.points + m.bytes;
    tokens += m.cjk + Math.floor((m.restBytes + m.bytes + 3) / 4);
    images += countImages(row.content);
  }
  return (profile.estimator === 'v1' ? Math.floor((chars + 3) / 4) : tokens) + DEFAULT_IMAGE_TOKEN_COST * images;
}

/** A text as estimate_tokens_rough prices it: V1 `(len + 3) // 4`; V3 a token per CJK code point plus `(UTF-8 bytes of the rest + 3) // 4`. */
function estimateTextRough(text: string, profile: Profile): number {
  if (profile.estimator === 'v1') return Math.floor((pythonLen(text) + 3) / 4);
  const m: ReprMeasure = { points: 0, cjk: 0, restBytes: 0, bytes: 0 };
  measureWritten(text, m);
  return m.cjk + Math.floor((m.restBytes + 3) / 4);
}

/** The tool schemas as the rough request estimate prices them: V1 `len(str(tools))`; V3 name, description and compact JSON parameters. */
function estimateToolsRough(tools: readonly unknown[], profile: Profile): number {
  if (profile.estimator === 'v1') {
    const m: ReprMeasure = { points: 0, cjk: 0, restBytes: 0, bytes: 0 };
    measureRepr(tools, m);
    return Math.floor((m.points + m.bytes + 3) / 4);
  }
  let chars = 0;
  for (const tool of tools) {
    const fn = ((tool as { function?: unknown })?.function ?? tool) as { name?: unknown; description?: unknown; parameters?: unknown };
    if (typeof fn.name === 'string') chars += pythonLen(fn.name);
    if (typeof fn.description === 'string') chars += pythonLen(fn.description);
    // json.dumps(parameters, ensure_ascii=False, separators=(",", ":")), its length in code points.
    if (fn.parameters !== undefined && fn.parameters !== null) chars += pythonLen(JSON.stringify(fn.parameters) ?? '');
  }
  return Math.floor((chars + 3) / 4);
}

/**
 * estimate_request_tokens_rough (docs/hermes-behaviour.md §2.3): the system prompt, the messages and
 * the tool schemas, each priced as the agent prices them; the preflight's estimate when no anchor holds.
 */
export function estimateRequestTokensRough(rows: readonly Row[], systemPrompt: string, tools: readonly unknown[] | undefined, profile: Profile): number {
  return (
    (systemPrompt ? estimateTextRough(systemPrompt, profile) : 0)
    + estimateMessagesTokensRough(rows, profile)
    + (tools?.length ? estimateToolsRough(tools, profile) : 0)
  );
}
