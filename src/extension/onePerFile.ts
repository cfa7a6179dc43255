// One analysis per file at a time, the latest one kept. A change while one runs is taken up when
// it is done, by one follow-up however many changes came meanwhile: a writer appending every few
// milliseconds never piles analyses up. Plain TypeScript (no vscode), so it is tested in Node.

interface Entry<T> {
  key: string;
  value: Promise<T>;
  settled: boolean;
  /** The file changed while this one ran. */
  stale: boolean;
}

export class OnePerFile<T> {
  private readonly entries = new Map<string, Entry<T>>();

  /**
   * @param changed a file's result was dropped: whoever shows it should ask again.
   * @param replaced a result of another key (other settings) replaced this one: free it.
   */
  constructor(
    private readonly changed: (file: string) => void,
    private readonly replaced: (key: string, file: string) => void,
  ) {}

  /** The result for `file` under `key` (settings and choices that change it), started if needed. */
  get(file: string, key: string, start: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(file);
    if (hit && hit.key === key) return hit.value;
    if (hit) this.replaced(hit.key, file);
    const entry: Entry<T> = { key, value: start(), settled: false, stale: false };
    this.entries.set(file, entry);
    const settle = (): void => {
      entry.settled = true;
      if (entry.stale && this.entries.get(file) === entry) this.invalidate(file);
    };
    entry.value.then(settle, settle);
    return entry.value;
  }

  /** The file changed: its result is dropped now, or when the run in flight ends. */
  invalidate(file: string): void {
    const hit = this.entries.get(file);
    if (!hit) return;
    if (!hit.settled) {
      hit.stale = true;
      return;
    }
    this.entries.delete(file);
    this.changed(file);
  }

  files(): string[] {
    return [...this.entries.keys()];
  }
}
