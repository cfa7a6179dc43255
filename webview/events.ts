// Every event the components send up, declared once: dispatchers build them with piEvent and
// listeners take their types from the map. The app owns selection, scrolling, copying and which
// lineage is open.

import type { OverviewState } from '../src/shared/messages';

interface SelectDetail {
  turn?: number;
  request?: number;
}

declare global {
  interface HTMLElementEventMap {
    /** Select this turn or request. */
    'pi-select': CustomEvent<SelectDetail>;
    /** The message list's first visible message, once scrolling pauses. */
    'pi-scroll': CustomEvent<number>;
    /** Copy this request as JSON. */
    'pi-copy': CustomEvent<number>;
    /** Expand or collapse the message at this wire index. */
    'pi-expand': CustomEvent<number>;
    /** Open the inspector on this lineage of the session overview (its id). */
    'pi-open-lineage': CustomEvent<string>;
    /** The session overview's sort, filters, expansion, scroll or focus changed. */
    'pi-overview-state': CustomEvent<OverviewState>;
    /** Back from a lineage's inspector to the session overview. */
    'pi-back': CustomEvent<null>;
  }
}

export type PiEvent = Extract<keyof HTMLElementEventMap, `pi-${string}`>;

/** One of the events above, bubbling out of shadow roots up to whoever listens. */
export function piEvent<K extends PiEvent>(type: K, detail: HTMLElementEventMap[K]['detail']): CustomEvent<HTMLElementEventMap[K]['detail']> {
  return new CustomEvent(type, { detail, bubbles: true, composed: true });
}
