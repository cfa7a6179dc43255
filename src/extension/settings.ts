// The extension's settings, read in one place.

import * as vscode from 'vscode';
import { isProfileName, priceOverridesOf, type PriceOverrides, type ProfileName, type TokenizerName } from '../shared/settingNames';

export interface InspectorSettings {
  profile: ProfileName;
  tokenizer: TokenizerName;
  globs: string[];
  hermesHome: string;
  /** A state.db above this many MB lists its sessions first and loads the chosen one on demand. */
  readWholeLimitMB: number;
  /** Prices set by model (promptInspector.prices), and what in the setting was refused. */
  prices: PriceOverrides;
  priceProblems: string[];
}

export const DEFAULT_GLOBS = ['**/state.db', '**/session_*.json', '**/request_dump_*.json', '**/*.trace.jsonl'];

export function readSettings(): InspectorSettings {
  const c = vscode.workspace.getConfiguration('promptInspector');
  const profile = c.get<string>('profile', 'hermes-current');
  const tokenizer = c.get<string>('tokenizer', 'o200k_base');
  return {
    profile: isProfileName(profile) ? profile : 'hermes-current',
    tokenizer: tokenizer === 'cl100k_base' ? 'cl100k_base' : 'o200k_base',
    globs: c.get<string[]>('transcriptGlobs', DEFAULT_GLOBS),
    hermesHome: c.get<string>('hermesHome', ''),
    readWholeLimitMB: Math.max(0, c.get<number>('readWholeLimitMB', 256)),
    ...(({ prices, problems }) => ({ prices, priceProblems: problems }))(priceOverridesOf(c.get<unknown>('prices', {}))),
  };
}
