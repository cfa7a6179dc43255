// The extension's settings, read in one place.

import { homedir } from 'node:os';
import * as vscode from 'vscode';
import { isProfileName, priceOverridesOf, type PriceOverrides, type ProfileName, type TokenizerName } from '../shared/settingNames';

export interface InspectorSettings {
  profile: ProfileName;
  tokenizer: TokenizerName;
  globs: string[];
  /** Folders given with `~` for the home folder, expanded; '' when not set. */
  hermesHome: string;
  /** Claude Code's projects folder (~/.claude/projects) and Codex's sessions folder (~/.codex/sessions), listed in Agent Transcripts. */
  claudeCodeProjects: string;
  codexSessions: string;
  /** A state.db above this many MB lists its sessions first and loads the chosen one on demand. */
  readWholeLimitMB: number;
  /** Prices set by model (promptInspector.prices), and what in the setting was refused. */
  prices: PriceOverrides;
  priceProblems: string[];
}

export const DEFAULT_GLOBS = ['**/state.db', '**/session_*.json', '**/request_dump_*.json', '**/*.trace.jsonl'];

/** `~` at the start of a folder setting is the user's home folder, as a shell reads it. */
function expandHome(folder: string): string {
  return folder.trim().replace(/^~(?=$|\/)/, homedir());
}

export function readSettings(): InspectorSettings {
  const c = vscode.workspace.getConfiguration('promptInspector');
  const profile = c.get<string>('profile', 'hermes-current');
  const tokenizer = c.get<string>('tokenizer', 'o200k_base');
  return {
    profile: isProfileName(profile) ? profile : 'hermes-current',
    tokenizer: tokenizer === 'cl100k_base' ? 'cl100k_base' : 'o200k_base',
    globs: c.get<string[]>('transcriptGlobs', DEFAULT_GLOBS),
    hermesHome: expandHome(c.get<string>('hermesHome', '')),
    claudeCodeProjects: expandHome(c.get<string>('claudeCodeProjects', '')),
    codexSessions: expandHome(c.get<string>('codexSessions', '')),
    readWholeLimitMB: Math.max(0, c.get<number>('readWholeLimitMB', 256)),
    ...(({ prices, problems }) => ({ prices, priceProblems: problems }))(priceOverridesOf(c.get<unknown>('prices', {}))),
  };
}
