// What the view pulls from the host a page at a time, never all at once: message bodies (one list
// per request), turn and request details, findings. Pages are cached (bounded), requested once
// while in flight, and kept visible across a live update until their fresh copy arrives, so a
// refresh does not blank the view.

import type { DiagnosticView, RequestView, TurnView } from '../src/shared/messages';

/** Items [start, start + count) of the list `list` names (a request's messages; 0 for a lone list). */
export type Fetch<T> = (list: number, start: number, count: number) => Promise<T[]>;

/** What the view shows for one item: the item, still loading, or why it could not load. */
export type Slot<T> = T | 'loading' | Error;

const MAX_PAGES = 60;

export class Pages<T> {
  private pages = new Map<string, T[] | Error>();
  /** The previous generation's pages, shown until the current one has them. */
  private stale = new Map<string, T[] | Error>();
  private readonly inFlight = new Set<string>();
  private readonly listeners = new Set<() => void>();
  private generation = 0;

  constructor(
    private readonly fetch: Fetch<T>,
    readonly pageSize = 50,
  ) {}

  /** Calls `listener` whenever a page arrives or is dropped for a retry; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }

  private key(list: number, page: number): string {
    return `${list}:${page}`;
  }

  get(list: number, i: number): Slot<T> {
    const key = this.key(list, Math.floor(i / this.pageSize));
    const page = this.pages.get(key) ?? this.stale.get(key);
    if (page instanceof Error) return page;
    return page?.[i % this.pageSize] ?? 'loading';
  }

  /** The item when it is here, else undefined (and it is asked for). */
  peek(list: number, i: number): T | undefined {
    const slot = this.get(list, i);
    if (slot === 'loading') this.ensure(list, i, i);
    return slot === 'loading' || slot instanceof Error ? undefined : slot;
  }

  /** Loads every page that holds an item in [first, last]. */
  ensure(list: number, first: number, last: number): void {
    for (let p = Math.floor(Math.max(0, first) / this.pageSize); p <= Math.floor(Math.max(0, last) / this.pageSize); p++) {
      const key = this.key(list, p);
      if (this.pages.has(key) || this.inFlight.has(key)) continue;
      this.load(list, p, key);
    }
  }

  private load(list: number, page: number, key: string): void {
    const generation = this.generation;
    this.inFlight.add(key);
    this.fetch(list, page * this.pageSize, this.pageSize).then(
      (items) => this.settle(generation, key, items),
      (e: unknown) => this.settle(generation, key, e instanceof Error ? e : new Error(String(e))),
    );
  }

  private settle(generation: number, key: string, value: T[] | Error): void {
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

  /** Asks again for the page holding item i, after it failed. */
  retry(list: number, i: number): void {
    const key = this.key(list, Math.floor(i / this.pageSize));
    this.pages.delete(key);
    this.stale.delete(key);
    this.ensure(list, i, i);
    this.changed();
  }
}

/** The index's details, paged: one lone list each (key 0). */
export interface Details {
  turns: Pages<TurnView>;
  requests: Pages<RequestView>;
  findings: Pages<DiagnosticView>;
}
