// Every rule that differs between versions of the reference agent lives here, so "what would each
// version have sent for this conversation" is one argument away (docs/hermes-behaviour.md §1.8).

import type { ProfileName } from '../shared/settingNames';

export interface Profile {
  readonly name: ProfileName;
  /**
   * Which stored sidecars go on the wire. `current-turn`: pre-sidecar era, the injected context rode
   * the API copy of the current turn's user row only, so history went out bare. `all`: every
   * user/assistant row with a non-empty string sidecar is sent with it (#67274).
   */
  readonly sidecarReplay: 'current-turn' | 'all';
  /** Text that fills an empty non-final user/assistant copy on the wire. */
  readonly interruptPlaceholder: string;
  /**
   * Re-anchoring rule: `v1` exact match then last user row; `v3` also matches the live view,
   * never lands on a compaction handoff and honours a typed index (#80622, 0041c5c).
   */
  readonly reanchor: 'v1' | 'v3';
  /** Rough estimator: `v1` Python repr of the stored dict / 4; `v3` wire shadow, CJK-aware. */
  readonly estimator: 'v1' | 'v3';
  /**
   * Whether memory and plugin context reach a multimodal turn as a text part. V1 dropped them
   * silently because compose_user_api_content returns None for lists (#71998).
   */
  readonly multimodalContextPart: boolean;
  /**
   * The preflight's estimate: `rough` the request's rough estimate always; `anchored` the previous
   * response's billed prompt and completion plus the rough rows since, where that anchor holds
   * (#97206, #104555; docs/hermes-behaviour.md §5.8).
   */
  readonly preflightEstimate: 'rough' | 'anchored';
}

export const PROFILES: Readonly<Record<ProfileName, Profile>> = {
  'hermes-v0': {
    name: 'hermes-v0',
    sidecarReplay: 'current-turn',
    interruptPlaceholder: '[response interrupted]',
    reanchor: 'v1',
    estimator: 'v1',
    multimodalContextPart: false,
    preflightEstimate: 'rough',
  },
  'hermes-v1': {
    name: 'hermes-v1',
    sidecarReplay: 'all',
    interruptPlaceholder: '[response interrupted]',
    reanchor: 'v1',
    estimator: 'v1',
    multimodalContextPart: false,
    preflightEstimate: 'rough',
  },
  'hermes-current': {
    name: 'hermes-current',
    sidecarReplay: 'all',
    interruptPlaceholder: '[interrupt: no assistant output for this turn]',
    reanchor: 'v3',
    estimator: 'v3',
    multimodalContextPart: true,
    preflightEstimate: 'anchored',
  },
};
