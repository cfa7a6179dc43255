// The standalone report's page: hands the view the transport over the inspection embedded in it.

import type { EmbeddedInspection, Transport } from '../src/protocol/messages';
import { embeddedTransport } from '../src/protocol/embedded';

const element = document.getElementById('prompt-inspector-data');
if (element?.textContent) {
  (globalThis as { __promptInspectorTransport?: Transport }).__promptInspectorTransport = embeddedTransport(
    JSON.parse(element.textContent) as EmbeddedInspection,
  );
}
