// Message bodies, pulled from the host a page at a time as the list scrolls, never all at once.
// Pages are cached (bounded), requested once while in flight, and kept visible across a live
// update until their fresh copy arrives, so a refresh does not blank the list.

import type { MessageView } from '../src/protocol';

export type Fetch = (request: number, start: number, count: number) => Promise<MessageView[]>;

/** What the list shows for one message: its body, still loading, or why it could not load. */
export type Slot = MessageView | 'loading' | Error;

const MAX_PAGES = 60;

export class MessagePages {
  private pages = new Map<string, MessageView[] | Error>();
  /** The previous generation's pages, shown until the current one has them. */
  private stale = new Map<string, MessageView[] | Error>();
  private readonly inFlight = new Set<string>();
  private generation = 0;

  constructor(
    private readonly fetch: Fetch,
    private readonly changed: () => void,
    readonly pageSize = 50,
  ) {}

  private key(request: number, page: number): string {
    return `${request}:${page}`;
  }

  get(request: number, i: number): Slot {
    const key = this.key(request, Math.floor(i / this.pageSize));
    const page = this.pages.get(key) ?? this.stale.get(key);
    if (page instanceof Error) return page;
    return page?.[i % this.pageSize] ?? 'loading';
  }

  /** Loads every page that holds a message in [first, last]. */
  ensure(request: number, first: number, last: number): void {
    for (let p = Math.floor(Math.max(0, first) / this.pageSize); p <= Math.floor(Math.max(0, last) / this.pageSize); p++) {
      const key = this.key(request, p);
      if (this.pages.has(key) || this.inFlight.has(key)) continue;
      this.load(request, p, key);
    }
  }

  private load(request: number, page: number, key: string): void {
    const generation = this.generation;
    this.inFlight.add(key);
    this.fetch(request, page * this.pageSize, this.pageSize).then(
      (rows) => this.settle(generation, key, rows),
      (e: unknown) => this.settle(generation, key, e instanceof Error ? e : new Error(String(e))),
    );
  }

  private settle(generation: number, key: string, value: MessageView[] | Error): void {
    if (generation !== this.generation) return;
    this.inFlight.delete(key);
    this.pages.set(key, value);
    this.stale.delete(key);
    // Oldest first: a Map iterates in insertion order.
    while (this.pages.size > MAX_PAGES) this.pages.delete(this.pages.keys().next().value as string);
    this.changed();
  }

  /** The transcript changed: every page is refetched, the old ones shown meanwhile. */
  invalidate(): void {
    this.generation++;
    this.stale = new Map([...this.stale, ...this.pages]);
    while (this.stale.size > MAX_PAGES) this.stale.delete(this.stale.keys().next().value as string);
    this.pages = new Map();
    this.inFlight.clear();
  }

  /** Asks again for the page holding message i, after it failed. */
  retry(request: number, i: number): void {
    const key = this.key(request, Math.floor(i / this.pageSize));
    this.pages.delete(key);
    this.stale.delete(key);
    this.ensure(request, i, i);
    this.changed();
  }
}
