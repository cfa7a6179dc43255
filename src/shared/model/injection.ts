// What the assembly can add to a user message, by origin, and the recorded inputs it adds them from.

export type InjectionKind = 'memory' | 'plugin' | 'gateway-note' | 'surface-note' | 'multimodal-note';

/** A turn's assembly inputs as an agent recorded them (a turn-trace line), before any injection. */
export interface TurnInjectionInputs {
  memoryPrefetch?: string;
  pluginContext?: string;
  gatewayNotes?: string;
  surfaceSwitchNote?: string;
}
