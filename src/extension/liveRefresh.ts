// Live refresh's two rules, apart from VS Code so that they are tested in plain Node: which
// analysis a changed file stands for, and how often a file that keeps changing is analysed again.

/** `<home>/logs/agent.log[.N]`: the part after the home. */
const AGENT_LOG = /\/logs\/agent\.log(\.\d+)?$/;

/**
 * The file whose analysis a changed file (a URI path) stands for: a WAL its database, an agent.log
 * or a rotation of it its home's state.db (whose bill it holds: docs/billing.md), any other itself.
 */
export function refreshTargetPath(path: string): string {
  if (path.endsWith('-wal')) return path.slice(0, -4);
  if (AGENT_LOG.test(path)) return `${path.replace(AGENT_LOG, '')}/state.db`;
  return path;
}

/**
 * Calls `fire(key)` once, `intervalMs` after the first `touch(key)` of a burst, however often the
 * key is touched meanwhile: a writer appending every few milliseconds is followed without one
 * analysis per append, and a file that stops changing is analysed once more.
 */
export class KeyedThrottle {
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(
    private readonly intervalMs: number,
    private readonly fire: (key: string) => void,
  ) {}

  touch(key: string): void {
    if (this.timers.has(key)) return;
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        this.fire(key);
      }, this.intervalMs),
    );
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }
}

/**
 * The findings Problems shows now: a finding where the file ends (`atEnd`) is what a writer
 * mid-append looks like, so while the file changed within `quietMs` those are held back, and
 * `recheckInMs` says when to look again; null when nothing was held.
 */
export function heldBack<T extends { atEnd?: boolean }>(
  findings: readonly T[],
  modifiedMs: number,
  nowMs: number,
  quietMs: number,
): { shown: T[]; recheckInMs: number | null } {
  const fresh = nowMs - modifiedMs < quietMs;
  const shown = fresh ? findings.filter((d) => !d.atEnd) : [...findings];
  return { shown, recheckInMs: shown.length < findings.length ? quietMs : null };
}
