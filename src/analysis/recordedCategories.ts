// Where a recorded request's tokens go (docs/recorded.md "Where the tokens go"): where the exact
// request bytes are recorded (captured API traffic), each part of the body counted by our
// tokenizer: the system prompt, the tool schemas, and each entry of the body's list by who wrote
// it, the user's own last words apart. Counted as the JSON the body holds, so an estimate of each
// share, which the views set beside the billed prompt.

import type { RecordedWire } from '../shared/model/recorded';
import { inCategoryOrder, type TokenCategories } from './categories';
import type { TokenCounter } from './tokenizer';

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Who wrote an entry of a body's list: Anthropic Messages, Chat Completions and Responses alike. */
function entryCategory(entry: unknown): string {
  if (!isObject(entry)) return 'history/other';
  const type = entry.type;
  // Responses' items: a tool call is the model's, its output a tool's.
  if (type === 'function_call' || type === 'custom_tool_call' || type === 'reasoning') return 'history/assistant';
  if (type === 'function_call_output' || type === 'custom_tool_call_output') return 'history/tool';
  switch (entry.role) {
    case 'system':
    case 'developer':
      return 'system/prompt';
    case 'assistant':
      return 'history/assistant';
    case 'tool':
    case 'function':
      return 'history/tool';
    case 'user': {
      // Anthropic returns tool results in a user message: a message of results only is the tools'.
      const { content } = entry;
      const results = Array.isArray(content) && content.length > 0 && content.every((b) => isObject(b) && b.type === 'tool_result');
      return results ? 'history/tool' : 'history/user';
    }
    default:
      return 'history/other';
  }
}

function parsed(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return null;
  }
}

/**
 * Counts each distinct part once for all the requests of a capture: an agent's requests re-send
 * their history, so a capture of n calls holds each entry up to n times.
 */
export class RecordedCategories {
  private readonly counts = new Map<string, number>();
  private readonly categories = new Map<string, string>();

  constructor(private readonly counter: TokenCounter) {}

  private count(text: string): number {
    let n = this.counts.get(text);
    if (n === undefined) {
      n = this.counter.count(text);
      this.counts.set(text, n);
    }
    return n;
  }

  private categoryOf(entry: string): string {
    let c = this.categories.get(entry);
    if (c === undefined) {
      c = entryCategory(parsed(entry));
      this.categories.set(entry, c);
    }
    return c;
  }

  /** The request's tokens by category, in the categories' order (system, tools, history, the user's last words). */
  of(wire: RecordedWire): TokenCategories {
    const out: TokenCategories = {};
    const add = (category: string, n: number): void => {
      if (n > 0) out[category] = (out[category] ?? 0) + n;
    };
    if (wire.system !== null) add('system/prompt', this.count(wire.system));
    if (wire.tools !== null) add('tools/schemas', this.count(wire.tools));
    wire.entries.forEach((entry, i) => {
      const category = this.categoryOf(entry);
      add(i === wire.entries.length - 1 && category === 'history/user' ? 'current-user' : category, this.count(entry));
    });
    return inCategoryOrder(out);
  }
}
