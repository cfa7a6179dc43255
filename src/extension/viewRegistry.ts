// The open inspector views: the active one (the commands and the status bar follow it) and, per
// file, the one the user saw last (a tree click goes there). One registry per activation, disposed
// with it, instead of state on the view class. Plain TypeScript (no vscode), so it is tested in Node.

/** What the registry needs of a view. */
export interface RegisteredView {
  readonly uri: { toString(): string };
}

export class ViewRegistry<V extends RegisteredView> {
  /** Every open view, latest shown last. */
  private readonly open: V[] = [];
  private activeView: V | undefined;
  private readonly listeners = new Set<(active: V | undefined) => void>();

  get active(): V | undefined {
    return this.activeView;
  }

  /** Called with the active view (or none) whenever it changes or what it shows does. */
  onDidChangeActive(listener: (active: V | undefined) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** The view on `uri` the user saw last, if one is open. */
  on(uri: { toString(): string }): V | undefined {
    const key = uri.toString();
    for (let i = this.open.length - 1; i >= 0; i--) if (this.open[i].uri.toString() === key) return this.open[i];
    return undefined;
  }

  /** A view opened, or its panel's visibility or focus changed. */
  track(view: V, visible: boolean, active: boolean): void {
    const at = this.open.indexOf(view);
    if (at < 0) this.open.push(view);
    else if (visible) this.open.push(...this.open.splice(at, 1));
    if (active) this.setActive(view);
    else if (this.activeView === view) this.setActive(undefined);
  }

  /** What `view` shows changed: listeners hear of it when it is the active one. */
  changed(view: V): void {
    if (view === this.activeView) this.fire();
  }

  /** The view was closed. */
  closed(view: V): void {
    if (this.activeView === view) this.setActive(undefined);
    const at = this.open.indexOf(view);
    if (at >= 0) this.open.splice(at, 1);
  }

  dispose(): void {
    this.listeners.clear();
    this.open.length = 0;
    this.activeView = undefined;
  }

  private setActive(view: V | undefined): void {
    this.activeView = view;
    this.fire();
  }

  private fire(): void {
    for (const listener of [...this.listeners]) listener(this.activeView);
  }
}
