// Transcripts in the workspace → lineages (as the session overview groups them: a compaction chain
// lists its sessions, forks nest under the lineage they came from) → sessions → turns, with badges
// for cache breaks and compactions. A file of one lineage lists its sessions directly. Labels taken
// from the transcript (titles, ids, paths) show bidi controls as the inspector does, as a visible ⇆.

import * as vscode from 'vscode';
import type { SessionTurn } from '../shared/messages';
import { revealBidiControls } from '../shared/shownText';
import type { OverviewLineage, OverviewSession } from '../shared/overviewTypes';
import { utcText } from '../shared/overviewColumns';
import { plural } from '../shared/shownText';
import type { RevealTarget } from './inspectorView';
import type { AnalysisCache, RemoteInspection } from './analysisCache';
import { findTranscripts } from './findTranscripts';

type FileNode = { kind: 'file'; uri: vscode.Uri };
type Node =
  | FileNode
  | { kind: 'lineage'; uri: vscode.Uri; lineage: OverviewLineage }
  /** `row`: the session as the overview lists it; null in a file of one lineage, which has none. */
  | { kind: 'session'; uri: vscode.Uri; id: string; row: OverviewSession | null }
  /** `ordinal`: its position among its session's turns, what a click reveals in whatever scope is open. */
  | { kind: 'turn'; uri: vscode.Uri; session: string; ordinal: number; turn: SessionTurn };

export type { Node as TranscriptNode };

export class TranscriptTree implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  private readonly listening: vscode.Disposable;
  readonly onDidChangeTreeData = this.changed.event;
  /** A file's node keeps its identity from one listing to the next: VS Code finds a revealed element by it. */
  private readonly files = new Map<string, FileNode>();

  /** `onAnalysis` runs before the tree asks for an analysis (the extension starts watching then). */
  constructor(
    private readonly cache: AnalysisCache,
    private readonly onAnalysis: () => void,
  ) {
    this.listening = cache.onDidChange(() => this.changed.fire(undefined));
  }

  dispose(): void {
    this.listening.dispose();
    this.changed.dispose();
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  async getChildren(node?: Node): Promise<Node[]> {
    if (!node) return (await findTranscripts()).map((uri) => this.fileNode(uri));
    if (node.kind === 'turn') return [];
    this.onAnalysis();
    // Held while the tree reads it: another file's analysis ending meanwhile cannot free this one.
    const held = this.cache.hold(node.uri);
    try {
      return await this.childrenOf(node, await this.cache.get(node.uri));
    } catch {
      return [];
    } finally {
      held.dispose();
    }
  }

  private async childrenOf(node: Exclude<Node, { kind: 'turn' }>, inspection: RemoteInspection): Promise<Node[]> {
    const { index, overview } = inspection;
    const lineageNode = (lineage: OverviewLineage): Node => ({ kind: 'lineage', uri: node.uri, lineage });
    if (node.kind === 'file')
      return overview ? overview.lineages.map(lineageNode) : index.sessions.map((s) => ({ kind: 'session', uri: node.uri, id: s.id, row: null }));
    if (node.kind === 'lineage') {
      const sessions: Node[] = node.lineage.sessions.map((s) => ({ kind: 'session', uri: node.uri, id: s.id, row: s }));
      return [...sessions, ...node.lineage.children.map(lineageNode)];
    }
    return (await inspection.sessionTurns(node.id)).map((turn, ordinal) => ({ kind: 'turn', uri: node.uri, session: node.id, ordinal, turn }));
  }

  private fileNode(uri: vscode.Uri): FileNode {
    const key = uri.toString();
    let node = this.files.get(key);
    if (!node) this.files.set(key, (node = { kind: 'file', uri }));
    return node;
  }

  /** Only files are revealed (the first start shows the view at its first file), and files are the roots. */
  getParent(node: Node): Node | undefined {
    if (node.kind !== 'file') throw new Error('Agent Transcripts reveals files only');
    return undefined;
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
      const breaks = l.cacheBreaks ? plural(l.cacheBreaks, 'cache break') : '';
      const turns = l.turns === null ? 'not read' : plural(l.turns, 'turn');
      item.description = [l.kind === 'conversation' ? '' : l.kind, plural(l.sessions.length, 'session'), turns, breaks].filter(Boolean).join(' · ');
      item.tooltip = revealBidiControls(`lineage ${l.id}${l.forkedFrom ? ` (${l.kind} of ${l.forkedFrom})` : ''}`);
      item.iconPath = new vscode.ThemeIcon(l.kind === 'conversation' ? 'comment-discussion' : 'git-branch');
      item.command = reveal(node.uri, { kind: 'lineage', lineage: l.id });
      return item;
    }
    if (node.kind === 'session') {
      const row = node.row;
      const item = new vscode.TreeItem(revealBidiControls(row?.title || node.id), vscode.TreeItemCollapsibleState.Collapsed);
      item.description = row
        ? [
            row.title ? revealBidiControls(node.id) : '',
            row.startedAt === null ? '' : utcText(row.startedAt),
            row.turns === null ? 'not read' : plural(row.turns, 'turn'),
          ]
            .filter(Boolean)
            .join(' · ')
        : '';
      item.tooltip = revealBidiControls(
        row ? [`session ${node.id}`, row.source && `source ${row.source}`, row.model && `model ${row.model}`].filter(Boolean).join('\n') : `session ${node.id}`,
      );
      item.iconPath = new vscode.ThemeIcon('comment-discussion');
      item.command = reveal(node.uri, { kind: 'session', session: node.id });
      return item;
    }
    const t = node.turn;
    const item = new vscode.TreeItem(`Turn ${t.index}: ${revealBidiControls(t.title)}`, vscode.TreeItemCollapsibleState.None);
    const badges = [t.breaks ? plural(t.breaks, 'cache break') : '', t.compacted ? 'compaction' : ''].filter(Boolean);
    item.description = badges.join(' · ');
    item.iconPath = new vscode.ThemeIcon(t.breaks ? 'warning' : t.compacted ? 'fold' : 'pass');
    item.tooltip = `${plural(t.requests, 'request')}; user row ${t.userMessageIndex}${t.injectedKinds.length ? `; injected: ${t.injectedKinds.join(', ')}` : ''}`;
    // A turn with a break lands on it, as its badge says; any other on its user message.
    item.command = reveal(node.uri, { kind: 'turn', session: node.session, ordinal: node.ordinal, toBreak: t.breaks > 0 });
    return item;
  }
}

function reveal(uri: vscode.Uri, target: RevealTarget): vscode.Command {
  return { command: 'promptInspector.reveal', title: 'Show in Prompt Inspector', arguments: [uri, target] };
}
