// `prompt-inspector sessions DIR` on an agent's own folder (Claude Code's projects folder, one of its
// projects, or Codex's sessions folder): each project with its sessions, newest first, one line
// each with the figures its file records (docs/recorded.md "Finding them"). Titles and paths come
// from the files: every one goes through `visible` and is measured as printed.

import { startedText, type AgentFolderListing, type AgentSessionRow } from '../shared/agentFolderTypes';
import { num, plural, usd } from '../shared/shownText';
import { clip, visible, width } from './terminalText';

const AGENT_NAMES = { 'claude-code': 'Claude Code sessions', codex: 'Codex sessions' } as const;
const TITLE_CELLS = 48;

const pad = (s: string, n: number): string => s + ' '.repeat(Math.max(0, n - width(s)));

/** Its figures in words; what could not be read instead. */
function figuresOf(row: AgentSessionRow): string {
  const f = row.figures;
  if (!f) return `not read: ${visible(row.problem ?? 'unknown')}`;
  const u = f.usage;
  return [
    plural(f.turns, 'turn'),
    plural(u.calls, 'call'),
    u.hitRate === null ? 'cache reads not recorded' : `${(u.hitRate * 100).toFixed(1)}% from cache`,
    u.costUsd === null ? 'cost not known' : usd(u.costUsd),
    f.misses ? `${plural(f.misses, 'miss', 'misses')} (${num(f.unexplainedMisses)} unexplained)` : '',
    f.prefixBreaks ? plural(f.prefixBreaks, 'break') : '',
    f.compactions ? plural(f.compactions, 'compaction') : '',
    f.sessions > 1 ? plural(f.sessions - 1, 'subagent') : '',
    f.errors ? plural(f.errors, 'error') : '',
  ]
    .filter(Boolean)
    .join('  ');
}

export function agentSessionsText(listing: AgentFolderListing, projects: { project: string; folder: string | null; sessions: AgentSessionRow[] }[]): string[] {
  const sessions = projects.reduce((n, p) => n + p.sessions.length, 0);
  const out = [visible(`${AGENT_NAMES[listing.agent]} in ${listing.root}: ${plural(projects.length, 'project')}, ${plural(sessions, 'session')}`)];
  for (const p of projects) {
    out.push('', visible(`${p.project}: ${plural(p.sessions.length, 'session')}${p.folder ? ` (${p.folder})` : ''}`));
    for (const row of p.sessions) {
      const title = clip(visible(row.title ?? row.id ?? row.path), TITLE_CELLS);
      out.push(`  ${pad(startedText(row), 18)}${pad(title, TITLE_CELLS + 2)}${figuresOf(row)}`);
    }
  }
  return out;
}
