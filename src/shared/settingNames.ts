// The names a user picks in settings or on the command line: the host validates them without
// loading the engine or the tokenizer, which only the worker and the CLI run.

export type ProfileName = 'hermes-v0' | 'hermes-v1' | 'hermes-current';

export const PROFILE_NAMES: readonly ProfileName[] = ['hermes-v0', 'hermes-v1', 'hermes-current'];

export function isProfileName(value: string): value is ProfileName {
  return (PROFILE_NAMES as readonly string[]).includes(value);
}

export type TokenizerName = 'o200k_base' | 'cl100k_base';

export const TOKENIZER_NAMES: readonly TokenizerName[] = ['o200k_base', 'cl100k_base'];
