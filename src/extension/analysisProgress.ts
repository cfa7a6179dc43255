// A long analysis shown as it goes: at once the window's spinner (the status bar names the file);
// past a second, a notification that says how far the worker is and can cancel it. Most files take
// less than that, and a notification flashing on every open would be noise.

import * as vscode from 'vscode';
import type { EngineProgress } from '../worker/engineProtocol';
import { progressText } from '../shared/shownText';

/** How long an analysis runs before its notification shows. */
const NOTIFY_AFTER_MS = 1_000;

export interface ShownAnalysis {
  /** The file, as the workspace names it. */
  title: string;
  /** Settles when the analysis does. */
  running: Promise<unknown>;
  /** Tells the listener each step the worker posts, until the returned function is called. */
  onProgress: (listener: (p: EngineProgress) => void) => () => void;
  /** The user pressed Cancel. */
  cancel: () => void;
  /**
   * False for a file's analysis made again as it changes (the views show the last one meanwhile):
   * the spinner only, so a live writer does not raise a notification with every write.
   */
  notify: boolean;
}

export function showAnalysisProgress({ title, running, onProgress, cancel, notify }: ShownAnalysis): void {
  const done = running.then(
    () => undefined,
    () => undefined,
  );
  const name = `Prompt Inspector: analysing ${title}`;
  void vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: name }, () => done);
  if (!notify) return;
  // The latest step, kept from the start: the notification opens on it rather than on nothing.
  let latest: EngineProgress | undefined;
  let shown: ((p: EngineProgress) => void) | undefined;
  const stop = onProgress((p) => {
    latest = p;
    shown?.(p);
  });
  const timer = setTimeout(() => {
    void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: name, cancellable: true }, (progress, token) => {
      token.onCancellationRequested(cancel);
      let percent = 0;
      shown = (p) => {
        // The bar moves with the requests measured, most of an analysis; the other steps only say their name.
        const now = p.step === 'requests' && p.total > 0 ? Math.floor((100 * p.done) / p.total) : percent;
        progress.report({ message: progressText(p.step, p.done, p.total), increment: now - percent });
        percent = now;
      };
      if (latest) shown(latest);
      return done;
    });
  }, NOTIFY_AFTER_MS);
  void done.then(() => {
    clearTimeout(timer);
    stop();
  });
}
