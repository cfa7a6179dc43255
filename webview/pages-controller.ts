// Page arrivals as renders: a component that shows a paged list re-renders when its pages change.
// Apart from pages.ts, which runs in Node too (test/webview/model.test.ts) and has no frames.

import type { ReactiveController, ReactiveElement } from 'lit';
import type { Pages } from './pages';

/**
 * Renders its host again when the pages it reads change, once a frame however many arrive in it,
 * so a page re-renders the components that show its list and no others.
 */
export class PagesController implements ReactiveController {
  private watched: Pages<unknown> | null = null;
  private unsubscribe: (() => void) | null = null;
  private frame = 0;

  /** `pages` is read before each update: the list can come later than the host (a property). */
  constructor(
    private readonly host: ReactiveElement,
    private readonly pages: () => Pages<unknown> | null | undefined,
  ) {}

  hostConnected(): void {
    this.watch();
  }

  hostUpdate(): void {
    this.watch();
  }

  hostDisconnected(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.watched = null;
    cancelAnimationFrame(this.frame);
    this.frame = 0;
  }

  private watch(): void {
    const pages = this.pages() ?? null;
    if (pages === this.watched) return;
    this.unsubscribe?.();
    this.watched = pages;
    this.unsubscribe = pages?.onChange(this.arrived) ?? null;
  }

  private readonly arrived = (): void => {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.host.requestUpdate();
    });
  };
}
