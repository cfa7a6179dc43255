// Choosing which session of a state.db to inspect, through "Prompt Inspector: Choose Session…".
// The sessions are grouped as the overview groups them: a lineage (compaction chain) heads its
// sessions, and each fork follows the lineage it came from, saying so.

import * as vscode from 'vscode';
import type { SessionSummary } from '../shared/model/transcript';
import { everyLineage } from '../shared/overviewColumns';
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

/** The catalogue's sessions under their lineages' headings, or in catalogue order for a file of one lineage. */
function items(inspection: RemoteInspection, chosen: string | undefined): (Item | (vscode.QuickPickItem & { kind: vscode.QuickPickItemKind.Separator }))[] {
  const catalog = inspection.catalog ?? [];
  if (!inspection.overview) return catalog.map((s) => item(s, chosen));
  const byId = new Map(catalog.map((s) => [s.id, s]));
  return everyLineage(inspection.overview.lineages).flatMap((lineage) => {
    const fork = lineage.kind === 'conversation' ? '' : ` (${lineage.kind} of ${lineage.forkedFrom})`;
    const sessions = lineage.sessions.flatMap((s) => {
      const summary = byId.get(s.id);
      return summary ? [item(summary, chosen)] : [];
    });
    return [{ kind: vscode.QuickPickItemKind.Separator, label: `${lineage.title ?? lineage.id}${fork}` } as const, ...sessions];
  });
}

/** Asks for a session; true when one was chosen (the inspection is then recomputed). */
export async function pickSession(uri: vscode.Uri, inspection: RemoteInspection, cache: AnalysisCache): Promise<boolean> {
  const catalog = inspection.catalog ?? [];
  const chosen = cache.session(uri);
  const name = uri.path.split('/').pop();
  const list: vscode.QuickPickItem[] = items(inspection, chosen);
  if (!inspection.listedOnly) list.unshift({ id: ALL, label: `${chosen === undefined ? '$(check) ' : ''}All sessions`, description: 'the whole file' } as Item);
  const picked = (await vscode.window.showQuickPick(list, {
    title: inspection.listedOnly ? `${name} is too large to read whole: choose a session to load (with its lineage)` : `Sessions of ${name}`,
    placeHolder: `${catalog.length} session${catalog.length === 1 ? '' : 's'}; type to filter by title or id`,
    matchOnDescription: true,
    matchOnDetail: true,
  })) as Item | undefined;
  if (!picked) return false;
  await cache.chooseSession(uri, picked.id === ALL ? undefined : picked.id);
  return true;
}
