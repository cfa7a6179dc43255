// What must hold for every report, whatever the input: shared by the bad-input corpus and the fuzz.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import type { Report } from '../../src/shared/reportTypes';
import { ROOT } from '../cli/support';

const ajv = new Ajv2020({ allErrors: true, strict: false });
const validateSchema = ajv.compile(JSON.parse(readFileSync(join(ROOT, 'schemas/report.schema.json'), 'utf8')));

/** The report as a consumer sees it (through JSON), checked against schemas/report.schema.json. */
export function assertSchemaValid(report: unknown, what: string): void {
  const wire = typeof report === 'string' ? JSON.parse(report) : JSON.parse(JSON.stringify(report));
  if (!validateSchema(wire)) assert.fail(`${what}: the report does not validate against report.schema.json: ${ajv.errorsText(validateSchema.errors)}`);
}

/** True when a diagnostic says where in the input it is: line (and column), byte offset, or session and row. */
export function hasPosition(d: Report['diagnostics'][number]): boolean {
  return (
    (Number.isInteger(d.line) && (d.line as number) >= 1)
    || (Number.isInteger(d.offset) && (d.offset as number) >= 0)
    || (typeof d.sessionId === 'string' && d.sessionId.length > 0)
  );
}

/**
 * Counting and indexing invariants: turns and requests are numbered densely from 0, every request
 * belongs to exactly one turn (the one it names), prefix results are consistent, and with
 * `--messages` semantics a request's inputTokens is the sum of its messages' tokens; its token
 * categories, tools aside, sum to its inputTokens.
 */
export function assertReportInvariants(r: Report, what: string): void {
  r.requests.forEach((q, i) => assert.equal(q.index, i, `${what}: request ${i} has index ${q.index}`));
  r.turns.forEach((t, i) => assert.equal(t.index, i, `${what}: turn ${i} has index ${t.index}`));
  const owner = new Map<number, number>();
  for (const t of r.turns) {
    assert.ok(t.userMessageIndex >= -1, `${what}: turn ${t.index} userMessageIndex ${t.userMessageIndex}`);
    for (const q of t.requests) {
      assert.ok(Number.isInteger(q) && q >= 0 && q < r.requests.length, `${what}: turn ${t.index} names request ${q}, which does not exist`);
      assert.ok(!owner.has(q), `${what}: request ${q} is counted by turns ${owner.get(q)} and ${t.index}`);
      owner.set(q, t.index);
      assert.equal(r.requests[q].turn, t.index, `${what}: request ${q} says turn ${r.requests[q].turn}, but turn ${t.index} lists it`);
    }
    for (let k = 1; k < t.requests.length; k++) assert.ok(t.requests[k] > t.requests[k - 1], `${what}: turn ${t.index} requests out of order`);
  }
  assert.equal(owner.size, r.requests.length, `${what}: ${r.requests.length - owner.size} request(s) belong to no turn`);
  for (const q of r.requests) {
    const p = q.prefix;
    assert.equal(p.stable, p.breakAt === null, `${what}: request ${q.index} stable=${p.stable} but breakAt=${JSON.stringify(p.breakAt)}`);
    if (p.previousRequest !== null) {
      assert.ok(p.previousRequest < q.index, `${what}: request ${q.index} compared with a later request ${p.previousRequest}`);
      assert.ok(
        p.reusedTokens <= r.requests[p.previousRequest].inputTokens,
        `${what}: request ${q.index} reuses more tokens than request ${p.previousRequest} sent`,
      );
    } else {
      assert.equal(p.reusedTokens, 0, `${what}: request ${q.index} has no previous request but reuses ${p.reusedTokens} tokens`);
    }
    const categories = Object.entries(q.categories);
    assert.ok(
      categories.every(([, n]) => Number.isInteger(n) && n > 0),
      `${what}: request ${q.index} has a category that is not a positive count: ${JSON.stringify(q.categories)}`,
    );
    const sent = categories.filter(([k]) => !k.startsWith('tools/')).reduce((n, [, v]) => n + v, 0);
    assert.equal(sent, q.inputTokens, `${what}: request ${q.index} categories sum to ${sent}, inputTokens ${q.inputTokens}`);
    if (q.messages) {
      assert.equal(q.messages.length, q.messageCount, `${what}: request ${q.index} lists ${q.messages.length} messages, messageCount ${q.messageCount}`);
      assert.equal(q.messages[0]?.role, 'system', `${what}: request ${q.index} wire message 0 is not the system message`);
      const sum = q.messages.reduce((n, m) => n + m.tokens, 0);
      assert.equal(q.inputTokens, sum, `${what}: request ${q.index} inputTokens ${q.inputTokens} != sum of its messages' tokens ${sum}`);
    }
  }
  for (const d of r.diagnostics) {
    if (d.turn !== null) assert.ok(d.turn >= 0 && d.turn < r.turns.length, `${what}: diagnostic names turn ${d.turn}`);
    if (d.request !== null) assert.ok(d.request >= 0 && d.request < r.requests.length, `${what}: diagnostic names request ${d.request}`);
    if (d.code === 'parse-error') assert.ok(hasPosition(d), `${what}: parse-error without a position: ${d.message}`);
  }
}

/** The same finding twice (same code, message and position) is noise a user has to read twice. */
export function assertNoDuplicateDiagnostics(r: Report, what: string): void {
  const seen = new Set<string>();
  for (const d of r.diagnostics) {
    const key = JSON.stringify([d.severity, d.code, d.message, d.line, d.column, d.offset, d.sessionId, d.rowId, d.turn, d.request]);
    assert.ok(!seen.has(key), `${what}: diagnostic reported twice: ${d.code} ${d.message}`);
    seen.add(key);
  }
}

/**
 * A stable text of a value that may hold Maps (turn-trace inputs) and byte arrays, to see whether
 * the analysis mutated it. Iterative, so input nested 10,000 deep cannot overflow the stack here.
 */
export function snapshot(value: unknown): string {
  const out: string[] = [];
  const stack: unknown[] = [value];
  const CLOSE = Symbol('close');
  while (stack.length) {
    const v = stack.pop();
    if (v === CLOSE) {
      out.push(')');
      continue;
    }
    if (v instanceof Map) {
      out.push('Map(');
      stack.push(CLOSE, ...[...v.entries()].reverse());
      continue;
    }
    if (v instanceof Uint8Array) {
      out.push(`Bytes(${[...v].join(',')})`);
      continue;
    }
    if (Array.isArray(v)) {
      out.push('[');
      stack.push(CLOSE, ...[...v].reverse());
      continue;
    }
    if (v !== null && typeof v === 'object') {
      out.push('{');
      stack.push(CLOSE);
      for (const [k, x] of Object.entries(v).reverse()) stack.push(x, `key:${k}`);
      continue;
    }
    out.push(typeof v === 'string' ? JSON.stringify(v) : String(v));
  }
  return out.join(' ');
}
