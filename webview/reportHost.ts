// The standalone report's page: hands the view the transport over what is embedded in it (one
// inspection, or the overview and each lineage's).

import type { EmbeddedPage, Transport } from '../src/shared/messages';
import { embeddedTransport } from '../src/shared/embedded';

const element = document.getElementById('prompt-inspector-data');
if (element?.textContent) {
  (globalThis as { __promptInspectorTransport?: Transport }).__promptInspectorTransport = embeddedTransport(JSON.parse(element.textContent) as EmbeddedPage);
}
