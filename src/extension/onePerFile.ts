// One analysis per file at a time, the latest one kept. A change while one runs is taken up when
// it is done, by one follow-up however many changes came meanwhile: a writer appending every few
// milliseconds never piles analyses up. Whoever shows a file holds its analysis; one nobody holds is
// kept only among the few last used, so closing views gives the memory back. Plain TypeScript (no
// vscode), so it is tested in Node.

interface Entry<T> {
  key: string;
  value: Promise<T>;
  settled: boolean;
  /** The file changed while this one ran. */
  stale: boolean;
  /** The file changed since: the next `get` starts anew (the result is still held until then). */
  outdated: boolean;
}

export class OnePerFile<T> {
  /** By file, least recently asked for first. */
  private readonly entries = new Map<string, Entry<T>>();
  /** How many holders each file has. */
  private readonly holders = new Map<string, number>();

  /**
   * @param changed a file's result was outdated: whoever shows it should ask again.
   * @param freed the result under `key` is no longer kept (other settings replaced it, or nobody
   *   held it and others were used since): free what it holds.
   * @param keepUnheld how many results nobody holds are kept, the last used.
   */
  constructor(
    private readonly changed: (file: string) => void,
    private readonly freed: (key: string, file: string) => void,
    private readonly keepUnheld = 1,
  ) {}

  /** The result for `file` under `key` (settings and choices that change it), started if needed. */
  get(file: string, key: string, start: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(file);
    this.entries.delete(file);
    if (hit && hit.key === key && !hit.outdated) {
      this.entries.set(file, hit);
      return hit.value;
    }
    if (hit && hit.key !== key) this.freed(hit.key, file);
    const entry: Entry<T> = { key, value: start(), settled: false, stale: false, outdated: false };
    this.entries.set(file, entry);
    const settle = (): void => {
      entry.settled = true;
      if (entry.stale && this.entries.get(file) === entry) this.invalidate(file);
      this.evict();
    };
    entry.value.then(settle, settle);
    return entry.value;
  }

  /** The file changed: its result is outdated now, or when the run in flight ends. */
  invalidate(file: string): void {
    const hit = this.entries.get(file);
    if (!hit || hit.outdated) return;
    if (!hit.settled) {
      hit.stale = true;
      return;
    }
    hit.outdated = true;
    this.changed(file);
  }

  /** Keeps `file`'s result until the returned handle is disposed (a view shows it). */
  hold(file: string): { dispose(): void } {
    this.holders.set(file, (this.holders.get(file) ?? 0) + 1);
    let held = true;
    return {
      dispose: () => {
        if (!held) return;
        held = false;
        const left = (this.holders.get(file) ?? 1) - 1;
        if (left > 0) this.holders.set(file, left);
        else this.holders.delete(file);
        this.evict();
      },
    };
  }

  /**
   * Forgets `file`'s result without telling anyone (its run was cancelled and what it held is gone):
   * the next `get` starts anew, and a change meanwhile asks for nothing.
   */
  forget(file: string): void {
    this.entries.delete(file);
  }

  /** `file`'s result (kept, or running) while the file has not changed since it was asked for; undefined otherwise. */
  current(file: string): Promise<T> | undefined {
    const hit = this.entries.get(file);
    return hit && !hit.outdated && !hit.stale ? hit.value : undefined;
  }

  /** The key `file`'s result (kept, or running) was asked for under; undefined for a file without one. */
  keyOf(file: string): string | undefined {
    return this.entries.get(file)?.key;
  }

  files(): string[] {
    return [...this.entries.keys()];
  }

  /** Frees the results nobody holds beyond the last `keepUnheld` used; a run in flight waits for its end. */
  private evict(): void {
    const unheld = [...this.entries].filter(([file, entry]) => !this.holders.has(file) && entry.settled);
    for (const [file, entry] of unheld.slice(0, Math.max(0, unheld.length - this.keepUnheld))) {
      this.entries.delete(file);
      this.freed(entry.key, file);
    }
  }
}
