// Transcripts in the workspace → lineages (as the session overview groups them: a compaction chain
// lists its sessions, forks nest under the lineage they came from) → sessions → turns, with badges
// for cache breaks and compactions; and other agents' folders (settings claudeCodeProjects and
// codexSessions) → projects → session files → the sessions each records. A file of one lineage lists its sessions directly. Labels taken
// from the transcript (titles, ids, paths) show bidi controls as the inspector does, as a visible ⇆.

import { basename } from 'node:path';
import * as vscode from 'vscode';
import type { SessionTurn } from '../shared/messages';
import { revealBidiControls } from '../shared/shownText';
import type { OverviewLineage, OverviewSession } from '../shared/overviewTypes';
import { utcText } from '../shared/overviewColumns';
import { plural } from '../shared/shownText';
import type { RevealTarget } from './inspectorView';
import type { AnalysisCache, RemoteInspection } from './analysisCache';
import { findTranscripts } from './findTranscripts';
import { startedText, type AgentFolderListing, type AgentName, type AgentProject, type AgentSessionFile } from '../shared/agentFolderTypes';
import type { RecordedReportSession } from '../shared/recordedReportTypes';

const AGENT_LABEL: Record<AgentName, string> = { 'claude-code': 'Claude Code sessions', codex: 'Codex sessions' };

/** `listed`: how an agent's folder listed it (a file of the workspace has none). */
type FileNode = { kind: 'file'; uri: vscode.Uri; listed: AgentSessionFile | null };
type Node =
  | FileNode
  | { kind: 'agent'; listing: AgentFolderListing }
  | { kind: 'project'; agent: AgentName; project: AgentProject }
  /** A session another agent's file records (its main session, a subagent's, a compaction call's). */
  | { kind: 'recorded'; uri: vscode.Uri; session: RecordedReportSession; misses: number }
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
  /** The agents' folders as last listed: read again on refresh, not on every analysis that ends. */
  private agentListings: Promise<AgentFolderListing[]> | null = null;

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
    this.agentListings = null;
    this.changed.fire(undefined);
  }

  async getChildren(node?: Node): Promise<Node[]> {
    if (!node) {
      this.agentListings ??= this.cache.agentSessions().catch(() => []);
      const [files, listings] = await Promise.all([findTranscripts(), this.agentListings]);
      return [...files.map((uri) => this.fileNode(uri)), ...listings.map((listing): Node => ({ kind: 'agent', listing }))];
    }
    if (node.kind === 'agent') return node.listing.projects.map((project): Node => ({ kind: 'project', agent: node.listing.agent, project }));
    if (node.kind === 'project') return node.project.sessions.map((file) => this.fileNode(vscode.Uri.file(file.path), file));
    if (node.kind === 'turn' || node.kind === 'recorded') return [];
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

  private async childrenOf(node: Extract<Node, { kind: 'file' | 'lineage' | 'session' }>, inspection: RemoteInspection): Promise<Node[]> {
    const { index, overview, recorded } = inspection;
    if (recorded) {
      const misses = (id: string): number => recorded.calls.filter((c) => c.session === id && c.cacheMiss).length;
      return recorded.sessions.map((session): Node => ({ kind: 'recorded', uri: node.uri, session, misses: misses(session.id) }));
    }
    const lineageNode = (lineage: OverviewLineage): Node => ({ kind: 'lineage', uri: node.uri, lineage });
    if (node.kind === 'file')
      return overview ? overview.lineages.map(lineageNode) : index.sessions.map((s) => ({ kind: 'session', uri: node.uri, id: s.id, row: null }));
    if (node.kind === 'lineage') {
      const sessions: Node[] = node.lineage.sessions.map((s) => ({ kind: 'session', uri: node.uri, id: s.id, row: s }));
      return [...sessions, ...node.lineage.children.map(lineageNode)];
    }
    return (await inspection.sessionTurns(node.id)).map((turn, ordinal) => ({ kind: 'turn', uri: node.uri, session: node.id, ordinal, turn }));
  }

  private fileNode(uri: vscode.Uri, listed: AgentSessionFile | null = null): FileNode {
    const key = uri.toString();
    let node = this.files.get(key);
    if (!node) this.files.set(key, (node = { kind: 'file', uri, listed }));
    node.listed = listed ?? node.listed;
    return node;
  }

  /** Only roots are revealed (the first start shows the view at its first one): workspace files and the agents' folders. */
  getParent(node: Node): Node | undefined {
    if (node.kind !== 'file' && node.kind !== 'agent') throw new Error('Agent Transcripts reveals its roots only');
    return undefined;
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'agent') return agentItem(node.listing);
    if (node.kind === 'project') return projectItem(node.agent, node.project);
    if (node.kind === 'recorded') return recordedSessionItem(node.uri, node.session, node.misses);
    if (node.kind === 'file') {
      const listed = node.listed;
      const label = listed ? (listed.title ?? listed.id ?? basename(node.uri.fsPath)) : vscode.workspace.asRelativePath(node.uri);
      const item = new vscode.TreeItem(revealBidiControls(label), vscode.TreeItemCollapsibleState.Collapsed);
      if (listed) {
        item.description = revealBidiControls(sessionFileDescription(listed));
        item.tooltip = revealBidiControls(node.uri.fsPath);
      }
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

function agentItem(listing: AgentFolderListing): vscode.TreeItem {
  const item = new vscode.TreeItem(
    AGENT_LABEL[listing.agent],
    listing.problem ? vscode.TreeItemCollapsibleState.None : vscode.TreeItemCollapsibleState.Expanded,
  );
  const sessions = listing.projects.reduce((n, p) => n + p.sessions.length, 0);
  item.description = revealBidiControls(listing.problem ?? `${plural(listing.projects.length, 'project')} · ${plural(sessions, 'session')}`);
  item.tooltip = revealBidiControls(listing.root);
  item.iconPath = new vscode.ThemeIcon(listing.problem ? 'warning' : 'root-folder');
  return item;
}

function projectItem(agent: AgentName, project: AgentProject): vscode.TreeItem {
  const item = new vscode.TreeItem(revealBidiControls(basename(project.project) || project.project), vscode.TreeItemCollapsibleState.Collapsed);
  item.description = revealBidiControls(`${plural(project.sessions.length, 'session')} · ${project.project}`);
  item.tooltip = revealBidiControls([project.project, project.folder && `folder ${project.folder}`].filter(Boolean).join('\n'));
  item.iconPath = new vscode.ThemeIcon('folder');
  item.command = { command: 'promptInspector.openProject', title: 'Show the project in Prompt Inspector', arguments: [agent, project] };
  return item;
}

/** When it started (else was last written), its size, its subagents. */
function sessionFileDescription(file: AgentSessionFile): string {
  const when = startedText(file);
  const size = file.bytes < 1024 * 1024 ? `${Math.max(1, Math.round(file.bytes / 1024))} KB` : `${(file.bytes / 1024 / 1024).toFixed(1)} MB`;
  return [when, size, file.subagents ? plural(file.subagents, 'subagent') : ''].filter(Boolean).join(' · ');
}

function recordedSessionItem(uri: vscode.Uri, session: RecordedReportSession, misses: number): vscode.TreeItem {
  const title = session.kind === 'main' ? 'main session' : `${session.kind} ${session.id}`;
  const item = new vscode.TreeItem(revealBidiControls(title), vscode.TreeItemCollapsibleState.None);
  const u = session.usage;
  item.description = [
    plural(session.turns.length, 'turn'),
    plural(u.calls, 'call'),
    u.hitRate === null ? '' : `${(u.hitRate * 100).toFixed(0)}% from cache`,
    misses ? plural(misses, 'cache miss', 'cache misses') : '',
    session.compactions.length ? plural(session.compactions.length, 'compaction') : '',
  ]
    .filter(Boolean)
    .join(' · ');
  item.tooltip = revealBidiControls(`session ${session.id}\n${session.file}`);
  item.iconPath = new vscode.ThemeIcon(misses ? 'warning' : session.kind === 'main' ? 'comment-discussion' : 'git-branch');
  item.command = { command: 'promptInspector.openFile', title: 'Open in Prompt Inspector', arguments: [uri] };
  return item;
}
