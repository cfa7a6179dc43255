// The host side of the protocol inside a standalone report: answers the view's requests from the
// inspections embedded in the page, so the report works offline with the same bundle as the editor.
// No DOM here (webview/reportHost.ts reads the page), so Node tests drive the same code: what it
// uses to decompress a lineage (atob, Blob, DecompressionStream, Response) is in browsers and Node alike.

import type { RecordedReport } from './recordedReportTypes';
import {
  pageOf,
  PROTOCOL_VERSION,
  type EmbeddedInspection,
  type EmbeddedPage,
  type MessageView,
  type CompressedInspection,
  type PagedList,
  type RequestMap,
  type ToWebview,
  type Transport,
} from './messages';
import { serve } from './rpc';
import { base64ToBytes } from './base64';

/** The body id at wire position i of a request: its own adds, or (before `keep`) its base's. */
export function bodyIdAt(data: EmbeddedInspection, request: number, i: number): number | undefined {
  let layout = data.layouts[request];
  while (layout && i < layout.keep && layout.base !== null) layout = data.layouts[layout.base];
  return layout && i >= layout.keep ? layout.add[i - layout.keep] : undefined;
}

/** Lineages kept decompressed: the one open and the last few, so going back and forth decodes nothing again. */
const DECOMPRESSED_KEPT = 4;

/** A lineage compressed by src/protocol/compressedInspection.ts, as it was. */
export async function decompressInspection(compressed: CompressedInspection): Promise<EmbeddedInspection> {
  const text = await new Response(new Blob([base64ToBytes(compressed)]).stream().pipeThrough(new DecompressionStream('gzip'))).text();
  return JSON.parse(text) as EmbeddedInspection;
}

export function embeddedTransport(data: EmbeddedPage): Transport {
  if ('recorded' in data) return recordedTransport(data.recorded);
  // The inspection page requests read: the file's, or the lineage opened from the overview.
  let scope: EmbeddedInspection | null = data.overview === null ? data.inspection : null;
  // Least recently opened first.
  const decompressed = new Map<string, EmbeddedInspection>();
  // Each openLineage call takes a number: only the latest one's lineage becomes the scope.
  let opening = 0;
  const shown = (): EmbeddedInspection => {
    if (!scope) throw new Error('no lineage is open: the report holds each lineage of the file, not the whole file');
    return scope;
  };
  const page =
    <L extends PagedList>(list: L) =>
    ({ start, count }: RequestMap[L]['params']) =>
      pageOf<EmbeddedInspection[L][number]>(shown()[list], start, count);
  const answer = serve<RequestMap>({
    messages: ({ request, start, count }) => {
      const inspection = shown();
      const total = inspection.requests[request]?.messageCount ?? 0;
      const out: MessageView[] = [];
      for (let i = Math.max(0, start); i < Math.min(total, start + count); i++) {
        const id = bodyIdAt(inspection, request, i);
        if (id !== undefined) out.push(inspection.bodies[id]);
      }
      return out;
    },
    turns: page('turns'),
    requests: page('requests'),
    findings: page('findings'),
    breakContext: ({ request }) => shown().breaks[request] ?? null,
    openLineage: async ({ lineage }) => {
      const mine = ++opening;
      if (data.overview === null) {
        if (lineage === null) return data.inspection.index;
        throw new Error(`no lineage ${lineage}: the file has one`);
      }
      if (lineage === null) {
        scope = null;
        return data.index;
      }
      const compressed = Object.hasOwn(data.lineages, lineage) ? data.lineages[lineage] : undefined;
      if (compressed === undefined) throw new Error(`no lineage ${lineage} in the report`);
      const found = decompressed.get(lineage) ?? (await decompressInspection(compressed));
      decompressed.delete(lineage);
      decompressed.set(lineage, found);
      for (const old of decompressed.keys()) if (decompressed.size > DECOMPRESSED_KEPT) decompressed.delete(old);
      // A lineage opened after this one was asked for is the one shown.
      if (mine === opening) scope = found;
      return found.index;
    },
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
      if (message.type === 'ready') {
        const index = data.overview === null ? data.inspection.index : data.index;
        deliver({ type: 'init', version: PROTOCOL_VERSION, index, overview: data.overview, state: null });
      } else if (message.type === 'request') void answer(message).then(deliver);
      // Selection and copy have no host to go to in a static page.
    },
  };
}

/** The page of a recorded transcript: its report on `ready`, and nothing to page through. */
function recordedTransport(report: RecordedReport): Transport {
  let handler: (m: ToWebview) => void = () => undefined;
  return {
    onMessage(h) {
      handler = h;
    },
    post(message) {
      if (message.type === 'ready') setTimeout(() => handler({ type: 'recorded', version: PROTOCOL_VERSION, report }), 0);
    },
  };
}
