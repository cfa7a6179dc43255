// The host side of the protocol inside a standalone report: answers the view's requests from the
// inspection embedded in the page, so the report works offline with the same bundle as the editor.
// No DOM here (webview/reportHost.ts reads the page), so Node tests drive the same code.

import {
  pageOf,
  PROTOCOL_VERSION,
  type EmbeddedInspection,
  type MessageView,
  type PagedList,
  type RequestMap,
  type ToWebview,
  type Transport,
} from './messages';
import { serve } from './rpc';

/** The body id at wire position i of a request: its own adds, or (before `keep`) its base's. */
export function bodyIdAt(data: EmbeddedInspection, request: number, i: number): number | undefined {
  let layout = data.layouts[request];
  while (layout && i < layout.keep && layout.base !== null) layout = data.layouts[layout.base];
  return layout && i >= layout.keep ? layout.add[i - layout.keep] : undefined;
}

export function embeddedTransport(data: EmbeddedInspection): Transport {
  const page =
    <L extends PagedList>(list: L) =>
    ({ start, count }: RequestMap[L]['params']) =>
      pageOf<EmbeddedInspection[L][number]>(data[list], start, count);
  const answer = serve<RequestMap>({
    messages: ({ request, start, count }) => {
      const total = data.requests[request]?.messageCount ?? 0;
      const out: MessageView[] = [];
      for (let i = Math.max(0, start); i < Math.min(total, start + count); i++) {
        const id = bodyIdAt(data, request, i);
        if (id !== undefined) out.push(data.bodies[id]);
      }
      return out;
    },
    turns: page('turns'),
    requests: page('requests'),
    findings: page('findings'),
    breakContext: ({ request }) => data.breaks[request] ?? null,
  });
  let handler: (m: ToWebview) => void = () => undefined;
  const deliver = (m: ToWebview): void => {
    setTimeout(() => handler(m), 0);
  };
  return {
    onMessage(h) {
      handler = h;
    },
    post(message) {
      if (message.type === 'ready') deliver({ type: 'init', version: PROTOCOL_VERSION, index: data.index, state: null });
      else if (message.type === 'request') void answer(message).then(deliver);
      // Selection and copy have no host to go to in a static page.
    },
  };
}
