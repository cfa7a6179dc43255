// A captured request body of any API mode as chat-completions wire messages (docs/hermes-behaviour.md
// "Request dumps"), so the replay compares one model with every dump: chat completions (`messages`),
// Anthropic messages (top-level `system`, content blocks, `input_schema` tools) and responses
// (`instructions`, `input` items). Anthropic cache breakpoints (`cache_control`) are taken off the
// parts they mark, which leaves the bytes the replay built, and kept as the list of wire messages
// that carried one. `sentKey` is what a body of each mode keeps of a chat message, so a replayed
// message and one read back from a dump compare through the same conversion.

import type { ContentPart, Row } from '../shared/model/rows';

export type ApiMode = 'chat-completions' | 'anthropic-messages' | 'responses';

export interface WireBody {
  apiMode: ApiMode;
  /** System first when the body has one. */
  messages: Row[];
  /** For each message, the index of the body entry it came from (`messages[i]` or `input[i]`; -1 for the system). */
  entry: number[];
  tools?: unknown[];
  /** Wire message indices that carried a cache_control breakpoint. */
  breakpoints: number[];
  /**
   * Entries of the body's own list, the unit its API bills and caches by: chat messages; Anthropic's
   * `system` plus its messages; Responses' `instructions` plus its input items (a function call is
   * an item of its own there, on the chat wire a part of its assistant message).
   */
  bodyEntries: number;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
/** An id or a role as the chat wire spells it: a string as it is, a number as its digits, else empty. */
const idText = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

function bodyEntriesOf(body: Obj, mode: ApiMode): number {
  const length = (v: unknown): number => (Array.isArray(v) ? v.length : 0);
  if (mode === 'responses') return (typeof body.instructions === 'string' ? 1 : 0) + length(body.input);
  if (mode === 'anthropic-messages') return (body.system !== undefined ? 1 : 0) + length(body.messages);
  return length(body.messages);
}

/** The mode a body was built for, from its keys (a dump's URL only confirms it). */
export function apiModeOf(body: Obj): ApiMode {
  if (Array.isArray(body.input) || typeof body.instructions === 'string') return 'responses';
  if (body.system !== undefined || (Array.isArray(body.tools) && body.tools.some((t) => isObj(t) && 'input_schema' in t))) return 'anthropic-messages';
  if (
    Array.isArray(body.messages)
    && body.messages.some((m) => isObj(m) && Array.isArray(m.content) && m.content.some((b) => isObj(b) && (b.type === 'tool_use' || b.type === 'tool_result')))
  )
    return 'anthropic-messages';
  return 'chat-completions';
}

export function wireOfRequestBody(body: Obj): WireBody {
  const mode = apiModeOf(body);
  const out: WireBody = { apiMode: mode, messages: [], entry: [], breakpoints: [], bodyEntries: bodyEntriesOf(body, mode) };
  const push = (row: Row, entry: number, marked: boolean): void => {
    if (marked) out.breakpoints.push(out.messages.length);
    out.messages.push(row);
    out.entry.push(entry);
  };
  if (mode === 'responses') readResponses(body, push);
  else if (mode === 'anthropic-messages') readAnthropic(body, push);
  else readChat(body, push);
  const tools = Array.isArray(body.tools) ? body.tools.map(chatTool) : undefined;
  if (tools) out.tools = tools;
  return out;
}

type Push = (row: Row, entry: number, marked: boolean) => void;

function readChat(body: Obj, push: Push): void {
  (Array.isArray(body.messages) ? body.messages : []).forEach((m, i) => {
    if (!isObj(m)) return;
    const { content, marked } = unmark(m.content, String(m.role));
    // A system prompt split into marked text parts (a static prefix, then the rest) is one string again.
    const joined = m.role === 'system' && Array.isArray(content) && content.every((p) => isObj(p) && p.type === 'text') ? textOf(content) : content;
    push({ ...m, role: String(m.role), content: joined }, i, marked);
  });
}

/**
 * Content with its cache_control marks taken off. Marked plain text parts are the string they were
 * made from in the shapes upstream's marking makes of a string, the ones its own
 * `strip_anthropic_cache_control` (agent/prompt_caching.py) joins back: one part (the envelope
 * layout), two parts of a system prompt (a static prefix, then the rest) or of a user turn whose
 * first part alone is marked (a builder-declared stable prefix). Other part lists keep their parts.
 */
function unmark(content: unknown, role: string): { content: unknown; marked: boolean } {
  if (!Array.isArray(content)) return { content, marked: false };
  const markedAt = content.map((p: unknown) => isObj(p) && 'cache_control' in p);
  const marked = markedAt.some(Boolean);
  const parts = content.map((p: unknown) => {
    if (!isObj(p) || !('cache_control' in p)) return p;
    const { cache_control: _drop, ...rest } = p;
    return rest;
  });
  const plainText = parts.every((p) => isObj(p) && p.type === 'text' && typeof p.text === 'string' && Object.keys(p).length === 2);
  const splitShape = parts.length === 2 && (role === 'system' || (role === 'user' && markedAt[0] && !markedAt[1]));
  if (marked && plainText && (parts.length === 1 || splitShape)) return { content: textOf(parts), marked };
  return { content: parts, marked };
}

function readAnthropic(body: Obj, push: Push): void {
  if (body.system !== undefined) {
    const { content, marked } = unmark(body.system, 'system');
    const text = typeof content === 'string' ? content : Array.isArray(content) ? textOf(content) : '';
    push({ role: 'system', content: text }, -1, marked);
  }
  (Array.isArray(body.messages) ? body.messages : []).forEach((m, i) => {
    if (!isObj(m)) return;
    const role = String(m.role);
    if (!Array.isArray(m.content)) {
      push({ role, content: m.content ?? null }, i, false);
      return;
    }
    const blocks = m.content.filter(isObj);
    // Tool results ride user turns in this API; on the chat wire each is a tool message of its own,
    // marked when its own block is (the adapter moves a tool message's marker onto its tool_result).
    for (const b of blocks) {
      if (b.type !== 'tool_result') continue;
      const inner = unmark(b.content, 'tool').content;
      // A result with images is sent as text and image blocks; its parts on the chat wire.
      const content = Array.isArray(inner) ? partsAsContent(inner.filter(isObj).map(chatPart), 'tool', false) : (inner ?? '');
      push({ role: 'tool', tool_call_id: idText(b.tool_use_id), content }, i, 'cache_control' in b);
    }
    const rest = blocks.filter((b) => b.type !== 'tool_result');
    const { content: unmarked, marked } = unmark(rest, role);
    const parts: ContentPart[] = [];
    const toolCalls: unknown[] = [];
    for (const block of rest) {
      if (block.type === 'text' || block.type === 'image') parts.push(chatPart(block));
      else if (block.type === 'tool_use')
        toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
      // thinking / redacted_thinking blocks carry reasoning, not content.
    }
    if (!parts.length && !toolCalls.length) return;
    // Upstream makes a string one text block when it marks it, and when it merges a user turn into
    // the tool results' turn before it (consecutive roles are merged): such a block was a string.
    const joinedToResults = rest.length < blocks.length && parts.length === 1 && parts[0].type === 'text';
    const row: Row = { role, content: typeof unmarked === 'string' || joinedToResults ? textOf(parts) : partsAsContent(parts, role, toolCalls.length > 0) };
    if (toolCalls.length) row.tool_calls = toolCalls;
    push(row, i, marked);
  });
}

function readResponses(body: Obj, push: Push): void {
  if (typeof body.instructions === 'string') push({ role: 'system', content: body.instructions }, -1, false);
  let lastAssistant: Row | null = null;
  (Array.isArray(body.input) ? body.input : []).forEach((item, i) => {
    if (!isObj(item)) return;
    const type = item.type ?? 'message';
    if (type === 'function_call') {
      const call = {
        id: item.call_id,
        type: 'function',
        function: { name: item.name, arguments: typeof item.arguments === 'string' ? item.arguments : JSON.stringify(item.arguments ?? {}) },
      };
      if (lastAssistant) {
        const earlier: unknown[] = Array.isArray(lastAssistant.tool_calls) ? lastAssistant.tool_calls : [];
        lastAssistant.tool_calls = [...earlier, call];
      } else {
        lastAssistant = { role: 'assistant', content: null, tool_calls: [call] };
        push(lastAssistant, i, false);
      }
      return;
    }
    if (type === 'function_call_output') {
      lastAssistant = null;
      // A multimodal result's output is a part list, as a user turn's content is.
      const output = Array.isArray(item.output) ? chatParts(item.output) : typeof item.output === 'string' ? item.output : JSON.stringify(item.output ?? '');
      push({ role: 'tool', tool_call_id: idText(item.call_id), content: output }, i, false);
      return;
    }
    if (type !== 'message') return; // reasoning items carry no content the replay builds
    const role = typeof item.role === 'string' ? item.role : 'user';
    const content = Array.isArray(item.content) ? partsAsContent(chatParts(item.content), role, false) : (item.content ?? '');
    const row: Row = { role: role === 'developer' ? 'system' : role, content };
    push(row, i, false);
    lastAssistant = row.role === 'assistant' ? row : null;
  });
}

/** An Anthropic text or image block as a chat part. */
function chatPart(block: Obj): ContentPart {
  return block.type === 'image' ? chatImage(block.source) : { type: 'text', text: str(block.text) ?? '' };
}

/** Responses content parts (`input_text`, `output_text`, `input_image` with its detail) as chat parts. */
function chatParts(parts: unknown[]): ContentPart[] {
  return parts.filter(isObj).map((p) => {
    if (p.type !== 'input_image') return { type: 'text', text: str(p.text) ?? '' };
    const image = chatImage({ type: 'url', url: p.image_url });
    return typeof p.detail === 'string' ? { type: 'image_url', image_url: { ...(image.image_url as Obj), detail: p.detail } } : image;
  });
}

/**
 * An assistant's text parts are its text (Anthropic sends its string as a text block, a replayed
 * Responses message item as output_text parts: which it was is not kept; no text beside tool calls
 * is null), and so are a tool result's (Anthropic sends a list only for a result with images);
 * a user turn's parts stay parts, as they were sent.
 */
function partsAsContent(parts: ContentPart[], role: string, withTools: boolean): unknown {
  if (role === 'user' || role === 'system' || !parts.every((p) => p.type === 'text')) return parts;
  return parts.length ? textOf(parts) : withTools ? null : '';
}

function textOf(parts: unknown[]): string {
  return parts.map((p) => (isObj(p) ? (str(p.text) ?? '') : '')).join('');
}

function chatImage(source: unknown): ContentPart {
  if (!isObj(source)) return { type: 'image_url', image_url: { url: '' } };
  const url = source.type === 'base64' ? `data:${str(source.media_type) ?? 'image/jpeg'};base64,${str(source.data) ?? ''}` : (str(source.url) ?? '');
  return { type: 'image_url', image_url: { url } };
}

/** A tool definition of any mode in the chat-completions shape. */
function chatTool(tool: unknown): unknown {
  if (!isObj(tool) || isObj(tool.function)) return tool;
  if ('input_schema' in tool) return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.input_schema } };
  if (tool.type === 'function' && typeof tool.name === 'string')
    return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
  return tool;
}

/**
 * What a body of `mode` keeps of a chat wire message, as a comparable key: a replayed message and
 * the one read back from a dump of that mode have the same key when upstream's conversion of the
 * first sends the second. In every mode: tool calls by id, name and the JSON value of their
 * arguments (Anthropic sends an object); an assistant's text parts are its text, and blank text
 * beside tool calls is none (the chat loop strips it; both adapters drop it, leaving only the
 * `tool_use` blocks or `function_call` items); a lone text part is the string it holds (marking
 * makes one of a string). Per mode, upstream's conversion (agent/anthropic_message_convert.py,
 * agent/codex_responses_adapter.py): Anthropic makes ids API-safe, unparsable arguments `{}` and
 * an empty tool result `(no output)`, and sends no image detail; Responses sends a call's
 * `call_id` (else its id before a `|`), blank arguments as `{}` and the instructions stripped.
 */
export function sentKey(message: Row, mode: string): string {
  const anthropic = mode === 'anthropic-messages';
  const responses = mode === 'responses';
  const callId = (v: unknown, own?: unknown): string => {
    const id = idText(v);
    if (anthropic) return id.replace(/[^a-zA-Z0-9_-]/g, '_') || 'tool_0';
    if (responses) return typeof own === 'string' && own.trim() ? own.trim() : id.split('|')[0].trim();
    return id;
  };
  const argsValue = (raw: unknown): unknown => {
    if (typeof raw !== 'string') return raw ?? {};
    const text = mode === 'chat-completions' ? raw : raw.trim() || '{}';
    try {
      return JSON.parse(text);
    } catch {
      return anthropic ? {} : text;
    }
  };
  const calls = Array.isArray(message.tool_calls)
    ? message.tool_calls.map((c: unknown) => {
        const fn = isObj(c) && isObj(c.function) ? c.function : {};
        return isObj(c) ? [callId(c.id, c.call_id), fn.name ?? null, argsValue(fn.arguments)] : c;
      })
    : null;
  let content: unknown = message.content ?? null;
  if (Array.isArray(content)) {
    const parts = content.map((p: unknown) =>
      anthropic && isObj(p) && p.type === 'image_url' && isObj(p.image_url) ? { type: p.type, image_url: { url: p.image_url.url } } : p,
    );
    const texts = parts.every((p: unknown) => isObj(p) && p.type === 'text');
    content = texts && (message.role === 'assistant' || parts.length === 1) ? textOf(parts) : parts;
  }
  if (message.role === 'assistant' && calls?.length && (content === null || (typeof content === 'string' && !content.trim()))) content = null;
  if (message.role === 'tool' && anthropic && (content === null || content === '')) content = '(no output)';
  if (message.role === 'tool' && responses && content === null) content = '';
  if (message.role === 'system' && responses && typeof content === 'string') content = content.trim();
  const toolCallId = message.tool_call_id === undefined || message.tool_call_id === null ? null : callId(message.tool_call_id);
  return canonicalJson([message.role, content, calls, toolCallId]);
}

/** JSON with object keys sorted: equal values, equal text. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (isObj(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}
