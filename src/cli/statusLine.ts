// A progress line on a terminal's standard error: one line rewritten in place while a long command
// works, gone when it is done. Shown only after a moment (a quick run prints none) and redrawn at
// most a few times a second; never written where standard error is not a terminal (tested in Node
// with a fake clock and writer).

import { clip } from './terminalText';

/** Nothing shows for work shorter than this. */
const SHOW_AFTER_MS = 300;
/** At most one redraw this often. */
const REDRAW_MS = 100;

export class StatusLine {
  private readonly started: number;
  private lastDraw = -Infinity;
  private shown = false;
  private pending: string | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * @param write writes to the terminal (the escapes included).
   * @param width the terminal's columns: a line is cut to fit them in cells (wide characters count two), so it never wraps.
   */
  constructor(
    private readonly write: (s: string) => void,
    private readonly width: number,
    private readonly now: () => number = Date.now,
  ) {
    this.started = now();
  }

  /**
   * Says what is being done now. Drawn at once when it is time; otherwise kept, and drawn by a
   * timer when the work in between awaits (reading a file), not when it runs synchronously.
   */
  show(text: string): void {
    this.pending = text;
    const t = this.now();
    if (t - this.started >= SHOW_AFTER_MS && t - this.lastDraw >= REDRAW_MS) this.draw(t);
    else if (!this.timer) {
      this.timer = setTimeout(
        () => {
          this.timer = undefined;
          if (this.pending !== null) this.draw(this.now());
        },
        Math.max(SHOW_AFTER_MS - (t - this.started), REDRAW_MS - (t - this.lastDraw), 0),
      );
      this.timer.unref?.();
    }
  }

  /** Takes the line away (before the command prints its result or an error). */
  clear(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = null;
    if (this.shown) this.write('\r\x1b[K');
    this.shown = false;
  }

  private draw(t: number): void {
    const text = this.pending ?? '';
    // One cell short of the width: the cursor stays on the line, so `\r` comes back to its start.
    this.write(`\r\x1b[K${clip(text, this.width - 1)}`);
    this.shown = true;
    this.lastDraw = t;
  }
}
