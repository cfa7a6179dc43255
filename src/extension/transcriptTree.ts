// Transcripts in the workspace → lineages (as the session overview groups them: a compaction chain
// lists its sessions, forks nest under the lineage they came from) → sessions → turns, with badges
// for cache breaks and compactions. A file of one lineage lists its sessions directly. Labels taken
// from the transcript (titles, ids, paths) show bidi controls as the inspector does, as a visible ⇆.

import * as vscode from 'vscode';
import { revealBidiControls, type SessionTurn } from '../protocol/inspection';
import type { OverviewLineage } from '../analysis/overviewTypes';
import type { AnalysisCache, RemoteInspection } from './analysisCache';
import { findTranscripts } from './findTranscripts';

type Node =
  | { kind: 'file'; uri: vscode.Uri }
  | { kind: 'lineage'; uri: vscode.Uri; lineage: OverviewLineage }
  | { kind: 'session'; uri: vscode.Uri; id: string }
  | { kind: 'turn'; uri: vscode.Uri; turn: SessionTurn };

export class TranscriptTree implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  /** `onAnalysis` runs before the tree asks for an analysis (the extension starts watching then). */
  constructor(
    private readonly cache: AnalysisCache,
    private readonly onAnalysis: () => void,
  ) {
    cache.onDidChange(() => this.changed.fire(undefined));
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  async getChildren(node?: Node): Promise<Node[]> {
    if (!node) return (await findTranscripts()).map((uri) => ({ kind: 'file', uri }));
    if (node.kind === 'turn') return [];
    let inspection: RemoteInspection;
    this.onAnalysis();
    try {
      inspection = await this.cache.get(node.uri);
    } catch {
      return [];
    }
    const { index, overview } = inspection;
    const lineageNode = (lineage: OverviewLineage): Node => ({ kind: 'lineage', uri: node.uri, lineage });
    if (node.kind === 'file') return overview ? overview.lineages.map(lineageNode) : index.sessions.map((s) => ({ kind: 'session', uri: node.uri, id: s.id }));
    if (node.kind === 'lineage') {
      const sessions: Node[] = node.lineage.sessions.map((s) => ({ kind: 'session', uri: node.uri, id: s.id }));
      return [...sessions, ...node.lineage.children.map(lineageNode)];
    }
    return (await inspection.sessionTurns(node.id)).map((turn) => ({ kind: 'turn', uri: node.uri, turn }));
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'file') {
      const item = new vscode.TreeItem(revealBidiControls(vscode.workspace.asRelativePath(node.uri)), vscode.TreeItemCollapsibleState.Collapsed);
      item.resourceUri = node.uri;
      item.contextValue = 'transcript';
      item.command = { command: 'promptInspector.openFile', title: 'Open in Prompt Inspector', arguments: [node.uri] };
      return item;
    }
    if (node.kind === 'lineage') {
      const l = node.lineage;
      const item = new vscode.TreeItem(revealBidiControls(l.title ?? l.id), vscode.TreeItemCollapsibleState.Collapsed);
      const breaks = l.cacheBreaks ? `${l.cacheBreaks} cache break${l.cacheBreaks > 1 ? 's' : ''}` : '';
      const turns = l.turns === null ? 'not read' : `${l.turns} turn${l.turns === 1 ? '' : 's'}`;
      item.description = [l.kind === 'conversation' ? '' : l.kind, `${l.sessions.length} session${l.sessions.length > 1 ? 's' : ''}`, turns, breaks]
        .filter(Boolean)
        .join(' · ');
      item.tooltip = revealBidiControls(`lineage ${l.id}${l.forkedFrom ? ` (${l.kind} of ${l.forkedFrom})` : ''}`);
      item.iconPath = new vscode.ThemeIcon(l.kind === 'conversation' ? 'comment-discussion' : 'git-branch');
      return item;
    }
    if (node.kind === 'session') {
      const item = new vscode.TreeItem(revealBidiControls(node.id), vscode.TreeItemCollapsibleState.Collapsed);
      item.iconPath = new vscode.ThemeIcon('comment-discussion');
      return item;
    }
    const t = node.turn;
    const item = new vscode.TreeItem(`Turn ${t.index}: ${revealBidiControls(t.title)}`, vscode.TreeItemCollapsibleState.None);
    const badges = [t.breaks ? `${t.breaks} cache break${t.breaks > 1 ? 's' : ''}` : '', t.compacted ? 'compaction' : ''].filter(Boolean);
    item.description = badges.join(' · ');
    item.iconPath = new vscode.ThemeIcon(t.breaks ? 'warning' : t.compacted ? 'fold' : 'pass');
    item.tooltip = `${t.requests} request(s); user row ${t.userMessageIndex}${t.injectedKinds.length ? `; injected: ${t.injectedKinds.join(', ')}` : ''}`;
    item.command = { command: 'promptInspector.openFile', title: 'Open in Prompt Inspector', arguments: [node.uri] };
    return item;
  }
}
