// A long analysis shown as it goes: at once the window's spinner (the status bar names the file);
// past a second, a notification that says how far the worker is and can cancel it. Most files take
// less than that, and a notification flashing on every open would be noise.

import * as vscode from 'vscode';
import type { EngineProgress } from '../worker/engineProtocol';
import { progressText } from '../shared/shownText';
import { KeyedThrottle } from './liveRefresh';

/** How long an analysis runs before its notification shows. */
const NOTIFY_AFTER_MS = 1_000;
/**
 * How often the notification changes. VS Code draws a notification's buttons again with each report,
 * and a large home reports twenty times a second: Cancel was replaced under the pointer faster than
 * a click (pressed on one button, released on the next) could land on it.
 */
const REPORT_EVERY_MS = 1_000;

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
  let show: (() => void) | undefined;
  const throttle = new KeyedThrottle(REPORT_EVERY_MS, () => show?.());
  const stop = onProgress((p) => {
    latest = p;
    throttle.touch(name);
  });
  const timer = setTimeout(() => {
    void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: name, cancellable: true }, (progress, token) => {
      token.onCancellationRequested(cancel);
      let percent = 0;
      show = () => {
        if (!latest) return;
        const p = latest;
        // The bar moves with the requests measured, most of an analysis, or the rows filled in; the other steps only say their name.
        const now = (p.step === 'requests' || p.step === 'rows') && p.total > 0 ? Math.floor((100 * p.done) / p.total) : percent;
        progress.report({ message: progressText(p.step, p.done, p.total), increment: now - percent });
        percent = now;
      };
      show();
      return done;
    });
  }, NOTIFY_AFTER_MS);
  void done.then(() => {
    clearTimeout(timer);
    throttle.dispose();
    stop();
  });
}
