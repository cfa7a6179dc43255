// A component's own rendered width, kept current by a ResizeObserver while it is connected, for
// layouts computed in code (SVG strips and charts).

import type { ReactiveController, ReactiveElement } from 'lit';

export class WidthController implements ReactiveController {
  /** Whole CSS pixels; 0 until first measured. */
  value = 0;
  private readonly observer: ResizeObserver;

  constructor(private readonly host: ReactiveElement) {
    this.observer = new ResizeObserver(([entry]) => {
      const old = this.value;
      this.value = Math.floor(entry.contentRect.width);
      // Named, so the host's updated() sees 'width' among the changed properties.
      host.requestUpdate('width', old);
    });
    host.addController(this);
  }

  hostConnected(): void {
    this.observer.observe(this.host);
  }

  hostDisconnected(): void {
    this.observer.disconnect();
  }
}
