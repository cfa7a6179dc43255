// The standalone report's page: hands the view the transport over what is embedded in it (one
// inspection, or the overview and each lineage's).

import type { EmbeddedReport, Transport } from '../src/protocol/messages';
import { embeddedTransport } from '../src/protocol/embedded';

const element = document.getElementById('prompt-inspector-data');
if (element?.textContent) {
  (globalThis as { __promptInspectorTransport?: Transport }).__promptInspectorTransport = embeddedTransport(JSON.parse(element.textContent) as EmbeddedReport);
}
