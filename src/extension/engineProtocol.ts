// Messages between the extension host and its analysis worker (dist/engine.js). The worker owns
// every analysis; the host holds only indexes and asks for pages, so the extension host's event
// loop never runs a replay or a tokenizer.

import type { SessionTurn } from '../protocol/inspection';
import type { Diagnostic } from '../analysis/reportTypes';
import type { TokenizerName } from '../analysis/tokenizer';
import type { ProfileName } from '../engine/profile';
import type { BreakContext, InspectorIndex, MessageView, PagedList, RequestMap } from '../protocol/messages';
import type { SessionSummary } from '../model/transcript';

export interface EngineCalls {
  analyze: {
    params: { key: string; path: string; title: string; profile: ProfileName; tokenizer: TokenizerName; session?: string; readWholeLimit?: number };
    result: { index: InspectorIndex; diagnostics: Diagnostic[]; catalog: SessionSummary[] | null; listedOnly: boolean };
  };
  messages: { params: { key: string; request: number; start: number; count: number }; result: MessageView[] };
  sessionTurns: { params: { key: string; sessionId: string }; result: SessionTurn[] };
  page: { params: { key: string; list: PagedList; start: number; count: number }; result: RequestMap[PagedList]['result'] };
  breakContext: { params: { key: string; request: number }; result: BreakContext | null };
  requestJson: { params: { key: string; request: number }; result: string };
  drop: { params: { key: string }; result: null };
}

export type EngineOp = keyof EngineCalls;

export interface EngineRequest<O extends EngineOp = EngineOp> {
  id: number;
  op: O;
  params: EngineCalls[O]['params'];
}

export interface EngineResponse {
  id: number;
  result?: unknown;
  error?: string;
}
