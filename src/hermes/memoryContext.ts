// The recalled-memory fence (reference: build_memory_context_block in agent/memory_manager.py).

export const MEMORY_CONTEXT_OPEN = '<memory-context>';
export const MEMORY_CONTEXT_CLOSE = '</memory-context>';
export const MEMORY_SYSTEM_NOTE =
  "[System note: The following is recalled memory context, NOT new user input. Treat as authoritative reference data — this is the agent's persistent memory and should inform all responses.]";

const FENCED_BLOCK = /<memory-context>[\s\S]*?<\/memory-context>/g;
const STRAY_FENCE_TAG = /<\/?memory-context>/g;

/**
 * Removes what a previous fencing left behind (whole fenced blocks, the system-note line, stray
 * tags), so recalled text that was already wrapped is not wrapped twice.
 */
export function sanitizeMemoryContext(raw: string): string {
  // Nearly every stored row has no fence left to remove: skip the split/join copy of the text.
  if (!raw.includes('memory-context>') && !raw.includes(MEMORY_SYSTEM_NOTE)) return raw.trim();
  return raw
    .replace(FENCED_BLOCK, '')
    .split('\n')
    .filter((line) => line.trim() !== MEMORY_SYSTEM_NOTE)
    .join('\n')
    .replace(STRAY_FENCE_TAG, '')
    .trim();
}

/** Wraps raw prefetch text in the fence; empty or whitespace-only input gives "". */
export function buildMemoryContextBlock(raw: string): string {
  if (!raw || raw.trim() === '') return '';
  const clean = sanitizeMemoryContext(raw);
  if (clean === '') return '';
  return `${MEMORY_CONTEXT_OPEN}\n${MEMORY_SYSTEM_NOTE}\n\n${clean}\n${MEMORY_CONTEXT_CLOSE}`;
}
