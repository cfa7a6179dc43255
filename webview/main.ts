// Entry of the webview bundle: picks the transport (a host-provided one, e.g. the test harness or
// the standalone report, or VS Code's webview API) and hands it to the page's app element.

import './styles.css';
import { PROTOCOL_VERSION, type ToWebview, type Transport, type ViewState } from '../src/shared/messages';
import { InspectorApp, type Memory } from './app';

/**
 * What the webview keeps in VS Code's own state: the lineage open, the selection and the
 * overview's place, tagged with the protocol they fit, and the transcript's path, from which the
 * host's panel serializer reopens it after a restart.
 */
interface Remembered {
  version: number;
  view: ViewState;
  source: string | null;
}

const currentSource = (): string | null => {
  const app = document.querySelector<InspectorApp>('prompt-inspector-app');
  return app?.overview?.source.path ?? app?.model?.index.source.path ?? null;
};

function vscodeHost(): { transport: Transport; memory: Memory } {
  const api = acquireVsCodeApi<Remembered>();
  const transport: Transport = {
    post: (message) => api.postMessage(message),
    onMessage: (handler) =>
      window.addEventListener('message', (e: MessageEvent<unknown>) => {
        const m = e.data as ToWebview | null;
        if (m && typeof m === 'object' && typeof m.type === 'string') handler(m);
      }),
  };
  const memory: Memory = {
    load: () => {
      const s = api.getState();
      return s && s.version === PROTOCOL_VERSION ? s.view : null;
    },
    save: (view) => {
      api.setState({ version: PROTOCOL_VERSION, view, source: currentSource() });
    },
  };
  return { transport, memory };
}

/** A page without VS Code's theme class (a report rendered without one) follows the system's. */
function followSystemTheme(): void {
  const body = document.body.classList;
  if (['vscode-light', 'vscode-dark', 'vscode-high-contrast'].some((c) => body.contains(c))) return;
  const dark = window.matchMedia('(prefers-color-scheme: dark)');
  const apply = (): void => {
    body.toggle('vscode-dark', dark.matches);
    body.toggle('vscode-light', !dark.matches);
  };
  apply();
  dark.addEventListener('change', apply);
}

followSystemTheme();
const provided = (globalThis as { __promptInspectorTransport?: Transport }).__promptInspectorTransport;
const host = provided ? { transport: provided, memory: null } : vscodeHost();
const app = document.querySelector('prompt-inspector-app');
if (app instanceof InspectorApp) {
  // Still before the element's first update (a microtask away), which posts `ready`.
  app.transport = host.transport;
  app.memory = host.memory;
  // The standalone report has no host to put a request on the clipboard.
  app.canCopy = !document.body.classList.contains('standalone');
}
