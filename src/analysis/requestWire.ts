// The wire messages and token sums of replayed requests, without rebuilding every request's whole
// input: within one generation a row's wire copy depends only on whether it is the request's
// current user row and whether it is its final row, so copies and token counts are cached per row
// and mode, and sums come from prefix sums. A 1,000-turn session re-sends its history 1,000 times.

import { systemWireMessage, wireCopy, type WireMessage } from '../engine/apiMessages';
import { isEmptyContent, type Row } from '../shared/model/rows';
import { effectiveSidecar } from '../engine/sidecar';
import type { Profile } from '../engine/profile';
import type { ReplayRequest } from '../engine/replay';
import type { TokenCounter } from './tokenizer';
import { wireTextPieces } from './wireText';
import { sha256Hex } from './sha256';
import { addCategories, inCategoryOrder, noteCategory, systemCategories, toolCategories, type TokenCategories } from './categories';
import { INJECTION_KINDS } from '../shared/messages';

const MODES = 4; // isCurrent × isFinal

/** A row's tokens by category, in this order: its role's own text, then its injected notes by kind. */
const ROLES = ['user', 'assistant', 'tool'] as const;
const ROW_CATEGORIES = [...ROLES.map((r) => `history/${r}`), 'history/other', ...INJECTION_KINDS.map(noteCategory)];
const OTHER_ROLE = ROLES.length;
const NOTES = ROLES.length + 1;

export class RequestWire {
  private readonly generations = new WeakMap<Row[], GenerationWire>();
  private readonly systemTokens = new Map<string, number>();
  private readonly systemParts = new Map<string, TokenCategories>();
  private readonly toolParts = new WeakMap<unknown[], TokenCategories>();
  /** The report's hashes of system prompts, each worked out once for every analysis sharing this wire. */
  private readonly hashes = new Map<string, string>();

  constructor(
    private readonly profile: Profile,
    private readonly counter: TokenCounter,
  ) {}

  sha256(text: string): string {
    let h = this.hashes.get(text);
    if (h === undefined) {
      h = sha256Hex(text);
      this.hashes.set(text, h);
    }
    return h;
  }

  messageTokens(message: Row): number {
    let n = 0;
    for (const piece of wireTextPieces(message)) n += this.counter.count(piece);
    return n;
  }

  private generation(rows: Row[]): GenerationWire {
    let g = this.generations.get(rows);
    if (!g) {
      g = new GenerationWire(
        rows,
        this.profile,
        (m) => this.messageTokens(m),
        (text) => this.counter.count(text),
      );
      this.generations.set(rows, g);
    }
    return g;
  }

  systemMessage(req: ReplayRequest): WireMessage {
    return systemWireMessage(req.systemPrompt);
  }

  private systemTokenCount(req: ReplayRequest): number {
    const cached = this.systemTokens.get(req.systemPrompt);
    if (cached !== undefined) return cached;
    const n = this.counter.count(req.systemPrompt);
    this.systemTokens.set(req.systemPrompt, n);
    return n;
  }

  /** Wire message `index` of the request (0 is the system message). */
  message(req: ReplayRequest, index: number): WireMessage {
    if (index === 0) return this.systemMessage(req);
    const row = index - 1;
    return this.generation(req.rows).copy(row, row === req.currentUserIdx, row === req.end - 1);
  }

  tokensAt(req: ReplayRequest, index: number): number {
    if (index === 0) return this.systemTokenCount(req);
    const row = index - 1;
    return this.generation(req.rows).tokens(row, row === req.currentUserIdx, row === req.end - 1);
  }

  messageCount(req: ReplayRequest): number {
    return req.end + 1;
  }

  /** Every wire message of the request; linear in its length, so only for --messages and dumps. */
  messages(req: ReplayRequest): WireMessage[] {
    const out: WireMessage[] = [];
    for (let i = 0; i <= req.end; i++) out.push(this.message(req, i));
    return out;
  }

  /** Tokens of the first `count` wire messages of the request. */
  leadingTokens(req: ReplayRequest, count: number): number {
    if (count <= 0) return 0;
    const rowsCounted = Math.min(count - 1, req.end);
    const g = this.generation(req.rows);
    let total = this.systemTokenCount(req) + g.historicalPrefix(rowsCounted);
    // Rows whose mode is not "historical, non-final" differ from the prefix sums' assumption.
    for (const row of new Set([req.currentUserIdx, req.end - 1])) {
      if (row >= 0 && row < rowsCounted) {
        total += g.tokens(row, row === req.currentUserIdx, row === req.end - 1) - g.tokens(row, false, false);
      }
    }
    return total;
  }

  inputTokens(req: ReplayRequest): number {
    return this.leadingTokens(req, this.messageCount(req));
  }

  /**
   * The request's tokens by category (categories.ts): summing to `inputTokens(req)` plus its tool
   * schemas' tokens, which `inputTokens` leaves out. Linear in nothing: prefix sums per category.
   */
  categories(req: ReplayRequest): TokenCategories {
    const g = this.generation(req.rows);
    const sums = g.categoryPrefix(req.end).slice();
    const special = [...new Set([req.currentUserIdx, req.end - 1])].filter((row) => row >= 0 && row < req.end);
    let currentOwn = 0;
    for (const row of special) {
      const now = g.rowCategories(row, row === req.currentUserIdx, row === req.end - 1);
      const historical = g.rowCategories(row, false, false);
      for (let k = 0; k < sums.length; k++) sums[k] += now[k] - historical[k];
      if (row === req.currentUserIdx) currentOwn = now[g.roleSlot(row)];
    }
    const out: TokenCategories = {};
    ROW_CATEGORIES.forEach((name, k) => {
      if (sums[k] !== 0) out[name] = sums[k];
    });
    if (currentOwn > 0) addCategories(out, { [ROW_CATEGORIES[g.roleSlot(req.currentUserIdx)]]: -currentOwn, 'current-user': currentOwn });
    addCategories(out, this.systemCategories(req));
    if (req.tools) addCategories(out, this.toolCategories(req.tools));
    return inCategoryOrder(out);
  }

  private systemCategories(req: ReplayRequest): TokenCategories {
    let c = this.systemParts.get(req.systemPrompt);
    if (!c) {
      c = systemCategories(req.systemPrompt, this.systemTokenCount(req), (t) => this.counter.count(t));
      this.systemParts.set(req.systemPrompt, c);
    }
    return c;
  }

  private toolCategories(tools: unknown[]): TokenCategories {
    let c = this.toolParts.get(tools);
    if (!c) {
      c = toolCategories(tools, (t) => this.counter.count(t));
      this.toolParts.set(tools, c);
    }
    return c;
  }

  /** The generation-level view, for comparisons that need a row's copy in a given mode. */
  copyOf(rows: Row[], row: number, isCurrent: boolean, isFinal: boolean): WireMessage {
    return this.generation(rows).copy(row, isCurrent, isFinal);
  }
}

class GenerationWire {
  private readonly copies: (WireMessage | undefined)[] = [];
  /** Token counts per row and mode, -1 until counted. */
  private tokenCounts: Int32Array;
  /** prefix[n]: tokens of rows [0, n) sent as historical copies; valid up to `summed`. */
  private prefix: Float64Array;
  private summed = 0;
  /** categories[n * K + k]: tokens of category k in rows [0, n) sent as historical copies; valid up to `categorized`. */
  private categorySums = new Float64Array(ROW_CATEGORIES.length);
  private categorized = 0;
  /** Row categories of copies in a mode other than historical, by slot (slotOf). */
  private readonly moded = new Map<number, Float64Array>();

  constructor(
    private readonly rows: Row[],
    private readonly profile: Profile,
    private readonly tokensOf: (m: Row) => number,
    private readonly countText: (text: string) => number,
  ) {
    this.tokenCounts = new Int32Array(rows.length * MODES).fill(-1);
    this.prefix = new Float64Array(rows.length + 1);
  }

  /** A list the replay resumed has grown since: room for its new rows, what was counted kept. */
  private fit(): void {
    if (this.prefix.length > this.rows.length) return;
    const capacity = Math.max(this.rows.length, 2 * (this.prefix.length - 1));
    const counts = new Int32Array(capacity * MODES).fill(-1);
    counts.set(this.tokenCounts);
    this.tokenCounts = counts;
    const prefix = new Float64Array(capacity + 1);
    prefix.set(this.prefix);
    this.prefix = prefix;
  }

  /** Whether the row's wire copy can differ from its historical one in this mode (conservative):
   * the final row skips the empty-content placeholder; the current row gets a sidecar that this
   * profile replays for the current turn only. */
  private modeMatters(row: number, isCurrent: boolean, isFinal: boolean): boolean {
    const r = this.rows[row];
    if (isFinal && (r.role === 'user' || r.role === 'assistant') && isEmptyContent(r.content)) return true;
    return isCurrent && this.profile.sidecarReplay !== 'all' && effectiveSidecar(r) !== null;
  }

  /** Where a row's copy in a mode is cached: a mode that cannot change the copy shares the historical one's slot.
   * The low two bits are the mode (MODES = 4): 2 current, 1 final. */
  private slotOf(row: number, isCurrent: boolean, isFinal: boolean): number {
    const matters = (isCurrent || isFinal) && this.modeMatters(row, isCurrent, isFinal);
    return row * MODES + (matters && isCurrent ? 2 : 0) + (matters && isFinal ? 1 : 0);
  }

  copy(row: number, isCurrent: boolean, isFinal: boolean): WireMessage {
    const slot = this.slotOf(row, isCurrent, isFinal);
    let c = this.copies[slot];
    if (!c) {
      c = wireCopy(this.rows[row], row, { profile: this.profile, isCurrent: (slot & 2) !== 0, isFinal: (slot & 1) !== 0 });
      this.copies[slot] = c;
    }
    return c;
  }

  tokens(row: number, isCurrent: boolean, isFinal: boolean): number {
    if (row >= this.prefix.length - 1) this.fit();
    const slot = this.slotOf(row, isCurrent, isFinal);
    let n = this.tokenCounts[slot];
    if (n < 0) {
      n = this.tokensOf(this.copy(row, (slot & 2) !== 0, (slot & 1) !== 0).message);
      this.tokenCounts[slot] = n;
    }
    return n;
  }

  /** Tokens of rows [0, n) all sent as historical, non-final copies. */
  historicalPrefix(n: number): number {
    if (n >= this.prefix.length) this.fit();
    for (; this.summed < n; this.summed++) this.prefix[this.summed + 1] = this.prefix[this.summed] + this.tokens(this.summed, false, false);
    return this.prefix[n];
  }

  /** Where the row's own text is counted: its role's slot, or the other roles'. */
  roleSlot(row: number): number {
    const k = (ROLES as readonly string[]).indexOf(this.rows[row].role);
    return k < 0 ? OTHER_ROLE : k;
  }

  /**
   * The row's tokens in a mode by category (ROW_CATEGORIES), summing to `tokens(row, mode)`. A
   * historical copy's comes from the prefix sums once they reach it; a copy in another mode (a
   * request's current user row, its final row) is counted once and kept.
   */
  rowCategories(row: number, isCurrent: boolean, isFinal: boolean): Float64Array {
    const slot = this.slotOf(row, isCurrent, isFinal);
    if ((slot & 3) === 0) {
      if (row >= this.categorized) return this.breakdown(row, slot);
      const K = ROW_CATEGORIES.length;
      const out = this.categorySums.slice((row + 1) * K, (row + 2) * K);
      for (let k = 0; k < K; k++) out[k] -= this.categorySums[row * K + k];
      return out;
    }
    let b = this.moded.get(slot);
    if (!b) {
      b = this.breakdown(row, slot);
      this.moded.set(slot, b);
    }
    return b;
  }

  private breakdown(row: number, slot: number): Float64Array {
    const out = new Float64Array(ROW_CATEGORIES.length);
    const total = this.tokens(row, (slot & 2) !== 0, (slot & 1) !== 0);
    let notes = 0;
    for (const span of this.copy(row, (slot & 2) !== 0, (slot & 1) !== 0).injected) {
      const n = this.countText(span.text);
      out[NOTES + INJECTION_KINDS.indexOf(span.kind)] += n;
      notes += n;
    }
    if (notes > total) {
      // Counted apart, the notes can exceed the whole by a token at each cut: scale them to fit.
      for (let k = NOTES; k < out.length; k++) out[k] = Math.floor((out[k] * total) / notes);
      notes = out.slice(NOTES).reduce((a, b) => a + b, 0);
    }
    out[this.roleSlot(row)] = total - notes;
    return out;
  }

  /** Tokens by category of rows [0, n) all sent as historical, non-final copies (read-only view). */
  categoryPrefix(n: number): Float64Array {
    const K = ROW_CATEGORIES.length;
    if (this.categorySums.length < (n + 1) * K) {
      const grown = new Float64Array(Math.max((n + 1) * K, 2 * this.categorySums.length));
      grown.set(this.categorySums);
      this.categorySums = grown;
    }
    for (; this.categorized < n; this.categorized++) {
      const row = this.breakdown(this.categorized, this.slotOf(this.categorized, false, false));
      const from = this.categorized * K;
      for (let k = 0; k < K; k++) this.categorySums[from + K + k] = this.categorySums[from + k] + row[k];
    }
    return this.categorySums.subarray(n * K, (n + 1) * K);
  }
}
