// A recorded API request's body as the parts a prefix cache sees, in the order the provider renders
// them (docs/recorded.md "Recorded API traffic"): the tools, the system prompt, then the body's own
// list (Anthropic's and Chat Completions' `messages`, Responses' `input`), each part as the JSON the
// body holds with every `cache_control` marker taken off: a breakpoint that moves is no change.

import type { RecordedWire } from '../shared/model/recorded';
import { isObject } from './jsonLines';
import { apiModeOf } from './requestBody';

type Obj = Record<string, unknown>;

/** The value with every `cache_control` key removed, at any depth. */
function unmarked(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(unmarked);
  if (!isObject(v)) return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) if (k !== 'cache_control') out[k] = unmarked(x);
  return out;
}

const json = (v: unknown): string | null => (v === undefined ? null : JSON.stringify(unmarked(v)));

export function recordedWireOf(body: Obj): RecordedWire {
  const mode = apiModeOf(body);
  const list = mode === 'responses' ? body.input : body.messages;
  return {
    apiMode: mode,
    tools: json(body.tools),
    system: json(mode === 'responses' ? body.instructions : body.system),
    entries: Array.isArray(list) ? list.map((e) => JSON.stringify(unmarked(e))) : [],
  };
}
