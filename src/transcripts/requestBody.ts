// A captured request body of any API mode as chat-completions wire messages (docs/hermes-behaviour.md
// "Request dumps"), so the replay compares one model with every dump: chat completions (`messages`),
// Anthropic messages (top-level `system`, content blocks, `input_schema` tools) and responses
// (`instructions`, `input` items). Anthropic cache breakpoints (`cache_control`) are taken off the
// parts they mark, which leaves the bytes the replay built, and kept as the list of wire messages
// that carried one.

import type { ContentPart, Row } from '../model/rows';

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
    const { content, marked } = unmark(m.content);
    // A system prompt split into marked text parts (a static prefix, then the rest) is one string again.
    const joined = m.role === 'system' && Array.isArray(content) && content.every((p) => isObj(p) && p.type === 'text') ? textOf(content) : content;
    push({ ...m, role: String(m.role), content: joined }, i, marked);
  });
}

/**
 * Content with its cache_control marks taken off: a single marked text part is the string it
 * wraps (the envelope layout rewrites string content that way), other part lists keep their parts.
 */
function unmark(content: unknown): { content: unknown; marked: boolean } {
  if (!Array.isArray(content)) return { content, marked: false };
  let marked = false;
  const parts = content.map((p: unknown) => {
    if (!isObj(p) || !('cache_control' in p)) return p;
    marked = true;
    const { cache_control: _drop, ...rest } = p;
    return rest;
  });
  if (marked && parts.length === 1 && isObj(parts[0]) && parts[0].type === 'text' && typeof parts[0].text === 'string') {
    return { content: parts[0].text, marked };
  }
  return { content: parts, marked };
}

function readAnthropic(body: Obj, push: Push): void {
  if (body.system !== undefined) {
    const { content, marked } = unmark(body.system);
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
    const marked = blocks.some((b) => 'cache_control' in b);
    // Tool results ride user turns in this API; on the chat wire each is a tool message of its own.
    for (const b of blocks) {
      if (b.type !== 'tool_result') continue;
      const inner = unmark(b.content).content;
      push({ role: 'tool', tool_call_id: idText(b.tool_use_id), content: Array.isArray(inner) ? textOf(inner) : (inner ?? '') }, i, marked);
    }
    const parts: ContentPart[] = [];
    const toolCalls: unknown[] = [];
    for (const b of blocks) {
      const { cache_control: _drop, ...block } = b;
      if (block.type === 'text') parts.push({ type: 'text', text: str(block.text) ?? '' });
      else if (block.type === 'image') parts.push(chatImage(block.source));
      else if (block.type === 'tool_use')
        toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
      // thinking / redacted_thinking blocks carry reasoning, not content.
    }
    if (!parts.length && !toolCalls.length) return;
    const row: Row = { role, content: partsAsContent(parts, role, toolCalls.length > 0) };
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
      push(
        { role: 'tool', tool_call_id: idText(item.call_id), content: typeof item.output === 'string' ? item.output : JSON.stringify(item.output ?? '') },
        i,
        false,
      );
      return;
    }
    if (type !== 'message') return; // reasoning items carry no content the replay builds
    const role = typeof item.role === 'string' ? item.role : 'user';
    const content = Array.isArray(item.content)
      ? partsAsContent(
          item.content
            .filter(isObj)
            .map((p) => (p.type === 'input_image' ? chatImage({ type: 'url', url: p.image_url }) : { type: 'text', text: str(p.text) ?? '' })),
          role,
          false,
        )
      : (item.content ?? '');
    const row: Row = { role: role === 'developer' ? 'system' : role, content };
    push(row, i, false);
    lastAssistant = row.role === 'assistant' ? row : null;
  });
}

/** One text part is the string it holds on the chat wire; an assistant's parts are its text. */
function partsAsContent(parts: ContentPart[], role: string, withTools: boolean): unknown {
  const onlyText = parts.every((p) => p.type === 'text');
  if (onlyText && (parts.length === 1 || role === 'assistant')) return parts.length ? parts.map((p) => p.text).join('') : withTools ? null : '';
  return parts;
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
