// Message rows as the agent keeps them in memory and on disk. Rows are open dictionaries: the agent
// adds bookkeeping keys freely, and the replay must keep unknown keys to compare bytes faithfully.

export interface ContentPart {
  type: string;
  text?: string;
  [key: string]: unknown;
}

export interface Row {
  role: string;
  content?: unknown;
  api_content?: unknown;
  tool_calls?: unknown;
  tool_call_id?: string;
  display_kind?: string;
  [key: string]: unknown;
}

export function isRow(value: unknown): value is Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { role?: unknown }).role === 'string';
}

export function isPartList(content: unknown): content is ContentPart[] {
  return Array.isArray(content);
}

/** The text a content value sends: the string itself, or its text parts joined by newlines. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const part of content) {
    if (part && typeof part === 'object' && typeof (part as ContentPart).text === 'string') {
      texts.push((part as ContentPart).text as string);
    }
  }
  return texts.join('\n');
}

/** True when a content value carries nothing at all (the interrupt-placeholder rule's "empty"). */
export function isEmptyContent(content: unknown): boolean {
  if (content === null || content === undefined) return true;
  if (typeof content === 'string') return content.length === 0;
  if (Array.isArray(content)) return content.length === 0;
  return false;
}

export function hasToolCalls(row: Row): boolean {
  return Array.isArray(row.tool_calls) && row.tool_calls.length > 0;
}

/** A copy of list content whose parts can be changed without touching the source's. */
export function copyParts(parts: readonly unknown[]): unknown[] {
  return parts.map((p: unknown) => (Array.isArray(p) ? p.slice() : p && typeof p === 'object' ? { ...p } : p));
}

/** A shallow clone deep enough that list content can be appended to without touching the source. */
export function cloneRow(row: Row): Row {
  const copy: Row = { ...row };
  if (Array.isArray(row.content)) copy.content = copyParts(row.content);
  return copy;
}
