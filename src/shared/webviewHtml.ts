// The one HTML page the inspector runs in: inside a VS Code webview (assets by URI) and in the
// standalone report (assets inlined, data embedded). Strict CSP: nothing runs without the nonce,
// and transcript text only ever reaches the page as data, never as markup.

export interface PageAssets {
  /** Either URIs the page may load (webview) or the assets' text to inline (standalone report). */
  script: { uri: string } | { inline: string };
  style: { uri: string } | { inline: string };
  codicons?: { uri: string };
  /** The origin allowed for loaded assets (the webview's cspSource); omitted when all is inline. */
  cspSource?: string;
  nonce: string;
  title: string;
  /** JSON embedded for the standalone report, read by the page at start. */
  embeddedData?: string;
  /** Theme class for a standalone page: VS Code sets its own on the webview's body. */
  bodyClass?: string;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

/** JSON inside <script type="application/json">: no sequence can close the element or open a comment. */
export function embedJson(json: string): string {
  return json
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

export function renderInspectorHtml(a: PageAssets): string {
  const src = a.cspSource ?? "'none'";
  const csp = [
    "default-src 'none'",
    `font-src ${src === "'none'" ? 'data:' : `${src} data:`}`,
    `style-src ${a.cspSource ? `${a.cspSource} ` : ''}'nonce-${a.nonce}'${a.codicons?.uri.startsWith('data:') ? ' data:' : ''}`,
    `script-src 'nonce-${a.nonce}'`,
  ].join('; ');
  const style =
    'uri' in a.style ? `<link rel="stylesheet" nonce="${a.nonce}" href="${escapeHtml(a.style.uri)}">` : `<style nonce="${a.nonce}">${a.style.inline}</style>`;
  const codicons = a.codicons ? `<link rel="stylesheet" id="vscode-codicon-stylesheet" nonce="${a.nonce}" href="${escapeHtml(a.codicons.uri)}">` : '';
  const data = a.embeddedData === undefined ? '' : `<script type="application/json" id="prompt-inspector-data">${embedJson(a.embeddedData)}</script>`;
  const script =
    'uri' in a.script
      ? `<script nonce="${a.nonce}" src="${escapeHtml(a.script.uri)}"></script>`
      : `<script nonce="${a.nonce}">${a.script.inline.replace(/<\/script/gi, '<\\/script')}</script>`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(a.title)}</title>
${codicons}
${style}
</head>
<body${a.bodyClass ? ` class="${escapeHtml(a.bodyClass)}"` : ''}>
<prompt-inspector-app></prompt-inspector-app>
${data}
${script}
</body>
</html>
`;
}
