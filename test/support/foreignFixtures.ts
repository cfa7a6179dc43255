// The real files other people's tools wrote (../shared/fixtures/foreign, PROVENANCE.md there): read
// where they are kept, never copied into the repository.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../cli/support';

export const FOREIGN = join(ROOT, '..', 'shared', 'fixtures', 'foreign');
const CLAUDE = join(FOREIGN, 'claude-code');

const CASSETTES = join(FOREIGN, 'api-capture', 'openllmetry');

export const FOREIGN_FILES = {
  /** Whether the folder is there (a clone outside /work has no ../shared). */
  present: existsSync(FOREIGN),
  claudeCode: CLAUDE,
  /** Claude Code 2.1.39: 217 calls over 408 lines, a manual compaction, a Task subagent and the compaction call. */
  spotter: join(CLAUDE, 'spotter', 'ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl'),
  /** Claude Code 1.0.120, the old layout with a `summary` line. */
  oldLayout: join(CLAUDE, 'vscode-copilot-chat', '30530d66-37fb-4f3b-aa5f-d92b6a8afae2.jsonl'),
  /** Claude Code 2.1.33: four parallel subagents. */
  parallel: join(CLAUDE, 'vscode-copilot-chat', 'b3a7bd3c-5a10-4e7b-8ff0-7fc0cd6d1093.jsonl'),
  /** codex-tui 0.125.0: 66 token counts in 2 turns. */
  codexRollout: join(FOREIGN, 'codex', 'codemie-code', 'rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl'),
  /** Two POST /v1/messages with the same body: a cache write of 1,163 tokens, then its read. */
  cassetteCaching: join(CASSETTES, 'anthropic_prompt_caching.yaml'),
  /** A Messages exchange with tools, tool_use and tool_result. */
  cassetteTools: join(CASSETTES, 'anthropic_tools_history.yaml'),
};
