// The host side of the protocol inside a standalone report: answers the view's requests from the
// inspection embedded in the page, so the report works offline with the same bundle as the editor.

import { pageOf, PROTOCOL_VERSION, type EmbeddedInspection, type FromWebview, type MessageView, type RequestMap, type ToWebview, type Transport } from '../src/protocol/messages';

/** The body id at wire position i of a request: its own adds, or (before `keep`) its base's. */
function idAt(data: EmbeddedInspection, request: number, i: number): number | undefined {
  let layout = data.layouts[request];
  while (layout && i < layout.keep && layout.base !== null) layout = data.layouts[layout.base];
  return layout && i >= layout.keep ? layout.add[i - layout.keep] : undefined;
}

function answer(data: EmbeddedInspection, message: Extract<FromWebview, { type: 'request' }>): unknown {
  switch (message.method) {
    case 'messages': {
      const p = message.params as RequestMap['messages']['params'];
      const count = data.requests[p.request]?.messageCount ?? 0;
      const out: MessageView[] = [];
      for (let i = Math.max(0, p.start); i < Math.min(count, p.start + p.count); i++) {
        const id = idAt(data, p.request, i);
        if (id !== undefined) out.push(data.bodies[id]);
      }
      return out;
    }
    case 'breakContext':
      return data.breaks[(message.params as RequestMap['breakContext']['params']).request] ?? null;
    default: {
      const p = message.params as RequestMap['turns']['params'];
      return pageOf<unknown>(data[message.method], p.start, p.count);
    }
  }
}

function embeddedTransport(data: EmbeddedInspection): Transport {
  let handler: (m: ToWebview) => void = () => undefined;
  const deliver = (m: ToWebview): void => { setTimeout(() => handler(m), 0); };
  return {
    onMessage(h) { handler = h; },
    post(message) {
      if (message.type === 'ready') deliver({ type: 'init', version: PROTOCOL_VERSION, index: data.index, state: null });
      else if (message.type === 'request') deliver({ type: 'response', inReplyTo: message.id, result: answer(data, message) });
      // Selection and copy have no host to go to in a static page.
    },
  };
}

const element = document.getElementById('prompt-inspector-data');
if (element?.textContent) {
  (globalThis as { __promptInspectorTransport?: Transport }).__promptInspectorTransport = embeddedTransport(JSON.parse(element.textContent) as EmbeddedInspection);
}
