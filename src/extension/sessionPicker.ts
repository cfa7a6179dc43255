// Choosing which session of a state.db to inspect: offered by itself when the file is too large to
// read whole (its session list comes first, one lineage loads on demand), and on request for any
// state.db through "Prompt Inspector: Choose Session…".

import * as vscode from 'vscode';
import type { SessionSummary } from '../model/transcript';
import type { AnalysisCache, RemoteInspection } from './analysisCache';

const ALL = '';

interface Item extends vscode.QuickPickItem {
  id: string;
}

function item(s: SessionSummary, chosen: string | undefined): Item {
  const started = s.startedAt === null ? '' : new Date(s.startedAt * (s.startedAt < 1e12 ? 1000 : 1)).toISOString().replace('T', ' ').slice(0, 16);
  return {
    id: s.id,
    label: `${s.id === chosen ? '$(check) ' : ''}${s.title || s.id}`,
    description: [s.messageCount === null ? '' : `${s.messageCount} messages`, started, s.endReason ?? ''].filter(Boolean).join(' · '),
    detail: s.parentId ? `${s.id} ← ${s.parentId}` : s.id,
  };
}

/** Asks for a session; true when one was chosen (the inspection is then recomputed). */
export async function pickSession(uri: vscode.Uri, inspection: RemoteInspection, cache: AnalysisCache): Promise<boolean> {
  const catalog = inspection.catalog ?? [];
  const chosen = cache.session(uri);
  const name = uri.path.split('/').pop();
  const items: Item[] = catalog.map((s) => item(s, chosen));
  if (!inspection.listedOnly) items.unshift({ id: ALL, label: `${chosen === undefined ? '$(check) ' : ''}All sessions`, description: 'the whole file' });
  const picked = await vscode.window.showQuickPick(items, {
    title: inspection.listedOnly ? `${name} is too large to read whole: choose a session to load (with its lineage)` : `Sessions of ${name}`,
    placeHolder: `${catalog.length} session${catalog.length === 1 ? '' : 's'}; type to filter by title or id`,
    matchOnDescription: true,
    matchOnDetail: true,
    // Offered by itself as the panel opens: the panel taking focus must not dismiss it.
    ignoreFocusOut: inspection.listedOnly,
  });
  if (!picked) return false;
  await cache.chooseSession(uri, picked.id === ALL ? undefined : picked.id);
  return true;
}
