// A small inspector index for the webview's model tests in plain Node.

import { buildIndex } from '../../src/protocol/inspection';
import type { RequestView, TurnView } from '../../src/shared/messages';
import { IndexModel } from '../../webview/index-model';

/** Turns of the given request counts; `broken` requests are cache breaks, `compacted` ones re-billed by a compaction. */
export function index(turnSizes: number[], broken: number[] = [], compacted: number[] = []): IndexModel {
  const turns: TurnView[] = [];
  const requests: RequestView[] = [];
  turnSizes.forEach((n, t) => {
    const ids = Array.from({ length: n }, (_, k) => requests.length + k);
    for (const id of ids) {
      requests.push({
        index: id,
        turn: t,
        sessionId: 's',
        systemPromptSha256: id === 3 ? 'b' : 'a',
        messageCount: 10 + id,
        inputTokens: 100,
        categories: { 'history/user': 100 },
        reusedTokens: 50,
        previousRequest: id === 0 ? null : id - 1,
        stable: !broken.includes(id) && !compacted.includes(id),
        breakAt: broken.includes(id)
          ? { messageIndex: 1, byteOffset: 0, cause: 'history-rewritten' }
          : compacted.includes(id)
            ? { messageIndex: 1, byteOffset: null, cause: 'compression' }
            : null,
        failed: false,
        sentAt: null,
        gapSeconds: null,
        userWireIndex: 2 * t + 1,
        captured: null,
        billed: null,
        cacheMiss: null,
        cost: null,
      });
    }
    turns.push({ index: t, sessionId: 's', userMessageIndex: 2 * t, title: `turn ${t}`, requests: ids, injectedKinds: [], compression: null, costUsd: null });
  });
  const header = { title: 't', source: { path: 'p', format: 'f' }, profile: 'hermes-v1', tokenizer: 'o200k_base', sessions: [] };
  return new IndexModel(buildIndex(header, turns, requests, []));
}
