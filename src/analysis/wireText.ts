// What of a wire message is counted as tokens: its string content or text parts, and each tool
// call's name and arguments (docs/report.md, requests[].messages[].tokens).

import { contentText, type Row } from '../shared/model/rows';

export function wireTextPieces(message: Row): string[] {
  const pieces = [contentText(message.content)];
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls) {
      const fn = (call as { function?: { name?: unknown; arguments?: unknown } })?.function;
      if (typeof fn?.name === 'string') pieces.push(fn.name);
      if (typeof fn?.arguments === 'string') pieces.push(fn.arguments);
      else if (fn?.arguments !== undefined) pieces.push(JSON.stringify(fn.arguments));
    }
  }
  return pieces.filter((p) => p !== '');
}
