// Where a request's tokens go, by the categories Hermes users see in `hermes prompt-size` and
// `/context` (docs/report.md "Token categories"): the system prompt by its tiers and sections, the
// tool schemas by toolset, the history by role, the injected notes by kind, the current user message.
// Pure: the sections are found by the markers upstream's prompt builder writes.

import type { InjectionKind } from '../shared/model/injection';

/** The system prompt's sections, in the order `build_system_prompt_parts` writes them. */
export type SystemSection = 'system/stable' | 'system/skills-index' | 'system/context-files' | 'system/memory' | 'system/user-profile' | 'system/session';

/** Category names: a section, `tools/<toolset>`, `history/<role>`, `notes/<kind>` or `current-user`. */
export type TokenCategories = Record<string, number>;

interface Marker {
  section: Exclude<SystemSection, 'system/stable'>;
  /** Where the section starts, or -1 when the prompt has none. */
  find(text: string): number;
  /** Where it ends, given its start; undefined runs it to the next section. */
  end?(text: string, start: number): number;
}

/** The start of the `═` rule line just above a memory header (the block starts there), else the header's own start. */
function ruledHeader(header: string): (text: string) => number {
  return (text) => {
    const at = text.indexOf(header);
    if (at < 0) return -1;
    const ruleEnd = text.lastIndexOf('\n', at - 1);
    if (ruleEnd < 0) return at;
    const ruleStart = text.lastIndexOf('\n', ruleEnd - 1) + 1;
    return /^[═=]{10,}$/.test(text.slice(ruleStart, ruleEnd)) ? ruleStart : at;
  };
}

const MARKERS: Marker[] = [
  {
    section: 'system/skills-index',
    // The index and the heading paragraph that introduces it (`## Skills`), when there is one.
    find: (text) => {
      const at = text.indexOf('<available_skills>');
      if (at < 0) return -1;
      const heading = text.lastIndexOf('## Skills', at);
      return heading >= 0 && !text.slice(heading, at).includes('</available_skills>') ? heading : at;
    },
    end: (text, start) => {
      const close = text.indexOf('</available_skills>', start);
      return close < 0 ? text.length : close + '</available_skills>'.length;
    },
  },
  { section: 'system/context-files', find: (text) => text.indexOf('# Project Context') },
  { section: 'system/memory', find: ruledHeader('MEMORY (your personal notes)') },
  { section: 'system/user-profile', find: ruledHeader('USER PROFILE (who the user is)') },
  {
    section: 'system/session',
    // The volatile tier's last block, at a line's start: its last occurrence, not one a context file quotes.
    find: (text) => {
      const at = text.lastIndexOf('\nConversation started: ');
      return at >= 0 ? at + 1 : text.startsWith('Conversation started: ') ? 0 : -1;
    },
    // Its line and the optional `Session ID:`, `Model:`, `Provider:`, `Platform:` lines under it.
    end: (text, start) => {
      let end = text.indexOf('\n', start);
      while (end >= 0 && /^(Session ID|Model|Provider|Platform): /.test(text.slice(end + 1, end + 20))) end = text.indexOf('\n', end + 1);
      return end < 0 ? text.length : end;
    },
  },
];

/**
 * The system prompt cut into its sections: what no marker claims is the stable tier (identity and
 * guidance). Each section runs to the next one's start, or to its own end where it has one.
 */
export function systemSections(text: string): { section: SystemSection; text: string }[] {
  const found = MARKERS.map((m) => ({ m, start: m.find(text) }))
    .filter((f) => f.start >= 0)
    .sort((a, b) => a.start - b.start);
  const out: { section: SystemSection; text: string }[] = [];
  let at = 0;
  found.forEach(({ m, start }, i) => {
    if (start < at) return; // inside the section before (a marker quoted in a context file)
    if (start > at) out.push({ section: 'system/stable', text: text.slice(at, start) });
    const next = found.slice(i + 1).find((f) => f.start > start)?.start ?? text.length;
    const end = Math.min(m.end ? m.end(text, start) : next, next);
    out.push({ section: m.section, text: text.slice(start, end) });
    at = end;
  });
  if (at < text.length) out.push({ section: 'system/stable', text: text.slice(at) });
  return out;
}

/**
 * The system prompt's tokens by section, summing to `total` (the whole prompt's count: counting the
 * pieces apart can differ from it by a token at each cut, which the stable tier absorbs).
 */
export function systemCategories(text: string, total: number, count: (text: string) => number): TokenCategories {
  const out: TokenCategories = {};
  let others = 0;
  for (const { section, text: piece } of systemSections(text)) {
    if (section === 'system/stable') continue;
    const n = count(piece);
    out[section] = (out[section] ?? 0) + n;
    others += n;
  }
  if (others > total) {
    // Rare (cuts that split many merges): scale the sections down to what the whole counts.
    for (const k of Object.keys(out)) out[k] = Math.floor((out[k] * total) / others);
    others = Object.values(out).reduce((a, b) => a + b, 0);
  }
  if (total - others > 0 || others === 0) out['system/stable'] = total - others;
  return out;
}

/**
 * The toolset a tool schema belongs to, where its name tells: Hermes names an MCP server's tools
 * `mcp_<server>_<tool>`; every other tool is counted under `tools/builtin`.
 */
export function toolCategory(tool: unknown): string {
  const fn = (tool as { function?: { name?: unknown }; name?: unknown } | null)?.function;
  const name = typeof fn?.name === 'string' ? fn.name : (tool as { name?: unknown } | null)?.name;
  const mcp = typeof name === 'string' ? /^mcp_([^_]+)_/.exec(name) : null;
  return mcp ? `tools/mcp:${mcp[1]}` : 'tools/builtin';
}

/** The tool schemas' tokens by toolset: each schema counted as its JSON text. */
export function toolCategories(tools: readonly unknown[] | undefined, count: (text: string) => number): TokenCategories {
  const out: TokenCategories = {};
  for (const tool of tools ?? []) {
    const k = toolCategory(tool);
    out[k] = (out[k] ?? 0) + count(JSON.stringify(tool) ?? '');
  }
  return out;
}

export function noteCategory(kind: InjectionKind): string {
  return `notes/${kind}`;
}

export function addCategories(into: TokenCategories, from: TokenCategories): void {
  for (const [k, v] of Object.entries(from)) {
    const n = (into[k] ?? 0) + v;
    if (n === 0) delete into[k];
    else into[k] = n;
  }
}

const ORDER = ['system/', 'tools/', 'history/', 'notes/', 'current-user'];
const SECTIONS: readonly SystemSection[] = [
  'system/stable',
  'system/skills-index',
  'system/context-files',
  'system/memory',
  'system/user-profile',
  'system/session',
];

/** The same categories in reading order: the system prompt's sections as built, tools, history, notes, the current user message. */
export function inCategoryOrder(categories: TokenCategories): TokenCategories {
  const rank = (k: string): number => {
    const group = ORDER.findIndex((p) => k.startsWith(p));
    const section = SECTIONS.indexOf(k as SystemSection);
    return group * 100 + (section >= 0 ? section : 50);
  };
  const out: TokenCategories = {};
  for (const k of Object.keys(categories).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))) out[k] = categories[k];
  return out;
}
