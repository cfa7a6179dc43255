// The text `analyze` prints for another agent's transcript, and the lines `check` prints for its
// findings (docs/recorded.md). Every string from the file goes through `visible` where it is printed.

import type { RecordedCause, RecordedDiagnostic, RecordedReport, RecordedReportCall, RecordedReportSession, UsageTotals } from '../shared/recordedReportTypes';
import { num, plural, usd } from '../shared/shownText';
import { breakPlace } from '../analysis/recordedReport';
import { githubData, githubProperty, visible } from './terminalText';

const NOT_RECORDED: [keyof RecordedReport['records'], string][] = [
  ['systemPrompt', 'the system prompt'],
  ['tools', 'the tool schemas'],
  ['requestBytes', 'the request bytes'],
  ['billedUsage', 'billed usage'],
  ['compactions', 'compactions'],
];

/** What each format is called, and how its writer is named from the version the file records. */
const FORMAT_NAMES: Record<RecordedReport['source']['format'], { file: string; writer: (version: string) => string }> = {
  'claude-code': { file: 'a Claude Code session log', writer: (v) => `Claude Code ${v}` },
  // Codex records its originator with its version: `codex-tui 0.125.0`.
  codex: { file: 'a Codex rollout', writer: (v) => v },
  // A capture records its container where an agent records its version.
  'api-capture': { file: 'recorded API traffic', writer: (v) => ({ cassette: 'a VCR cassette', har: 'a HAR archive' })[v] ?? v },
};

const CAUSES: Record<RecordedCause, string> = {
  compression: 'after a compaction',
  'system-changed': 'after the system prompt changed',
  'settings-changed': 'after the turn settings changed',
  'tools-changed': 'after the tools changed',
  'history-rewritten': 'after the history was rewritten',
};

/** How much of a user's prompt a turn's line shows. */
const PROMPT_SHOWN = 60;

function usageText(u: UsageTotals): string {
  const parts = [plural(u.calls, 'call')];
  if (u.input !== null) parts.push(`prompts ${num(u.input)} tokens`);
  parts.push(u.hitRate === null ? 'cache reads not recorded' : `${(u.hitRate * 100).toFixed(1)}% read from the cache`);
  // OpenAI and Gemini bill no cache writes: 0 there says nothing worth a word.
  if (u.cacheWrite) parts.push(`${num(u.cacheWrite)} written to it`);
  if (u.output !== null) parts.push(`output ${num(u.output)}`);
  if (u.costUsd !== null) parts.push(`${usd(u.costUsd)}${u.unpriced ? ` (${plural(u.unpriced, 'call')} not priced)` : ''}`);
  else if (u.unpriced) parts.push('cost not known (no price for the model)');
  return parts.join(', ');
}

/** Where a call is: "line 12", or in a document "log.entries[3]". */
function placeOf(c: Pick<RecordedReportCall, 'line' | 'entry'>): string {
  return c.line !== null ? `line ${c.line}` : c.entry !== null ? `log.entries[${c.entry}]` : 'a place not recorded';
}

function missText(c: RecordedReportCall): string {
  const m = c.cacheMiss!;
  const idle =
    m.idleSeconds === null
      ? 'time not recorded'
      : `${num(Math.round(m.idleSeconds))} s after the previous call${c.previousLine === null ? '' : ` (line ${c.previousLine})`}`;
  const why =
    m.class === 'expired'
      ? `expired (the cache keeps an idle prefix ${num(m.lifetimeSeconds ?? 0)} s)`
      : m.class === 'too-short'
        ? 'too short to cache'
        : m.class === 'predicted'
          ? CAUSES[m.cause]
          : 'unexplained';
  const extra = m.extraUsd === null ? '' : `, ${usd(m.extraUsd)} more than a hit`;
  const after = c.after ? `, answering the ${c.after.what} at line ${c.after.line}` : '';
  return `miss at ${placeOf(c)} (${c.model ?? 'model not recorded'})${after}: ${num(m.rebilledTokens)} tokens billed again, ${idle}: ${why}${extra}`;
}

/** What the file is: "a Claude Code session log". */
export function recordedFileName(r: RecordedReport): string {
  return FORMAT_NAMES[r.source.format].file;
}

/** Whether the session's system prompt stayed byte-stable from turn to turn; null where not recorded. */
function systemPromptStability(s: RecordedReportSession): string | null {
  const hashes = s.turns.map((t) => t.systemPromptSha256);
  if (hashes.every((h) => h === null)) return null;
  const changed = hashes.flatMap((h, i) => (i > 0 && h !== hashes[i - 1] ? [i] : []));
  const first = `sha256 ${hashes[0]?.slice(0, 12) ?? 'not recorded'}…`;
  return changed.length ? `system prompt (${first}) changed at turn ${changed.join(', ')}` : `system prompt byte-stable in every turn (${first})`;
}

export function recordedText(r: RecordedReport): string {
  const { source } = r;
  const missing = NOT_RECORDED.filter(([k]) => !r.records[k]).map(([, what]) => what);
  const out = [
    `${source.path}: ${recordedFileName(r)}${source.agentVersion ? ` (${FORMAT_NAMES[source.format].writer(source.agentVersion)})` : ''}${source.title ? `, "${source.title}"` : ''}`,
  ];
  if (missing.length)
    out.push(`not recorded in this format: ${missing.join(', ')}${r.records.requestBytes ? '' : '; a miss is located by call and time, not by byte'}`);
  out.push(`${plural(r.sessions.length, 'session')}: ${usageText(r.usage)}`);
  for (const s of r.sessions) {
    out.push('', `session ${s.id} (${s.kind}${s.parentId ? ` of ${s.parentId}` : ''}): ${plural(s.turns.length, 'turn')}; ${usageText(s.usage)}`);
    const stability = systemPromptStability(s);
    if (stability) out.push(`  ${stability}`);
    const calls = r.calls.filter((c) => c.session === s.id);
    s.turns.forEach((t, i) => {
      for (const c of s.compactions.filter((k) => k.turn === i))
        out.push(
          `  compaction (${c.trigger ?? 'trigger not recorded'}) at line ${c.line ?? '?'}: ${c.preTokens === null ? 'size before not recorded' : `${num(c.preTokens)} tokens before`}${c.summaryLine === null ? '' : `, its summary at line ${c.summaryLine}`}`,
        );
      const prompt = t.prompt ? `"${t.prompt.length > PROMPT_SHOWN ? `${t.prompt.slice(0, PROMPT_SHOWN)}…` : t.prompt}"` : "(no new prompt of the user's)";
      const settings = t.settingsChanged.length ? `; settings changed: ${t.settingsChanged.join(', ')}` : '';
      out.push(`  turn ${i}${t.line === null ? '' : ` (line ${t.line})`} ${prompt}: ${plural(t.calls, 'call')}${settings}`);
      for (const c of calls) {
        if (c.turn !== i) continue;
        if (c.prefixBreak) out.push(`    break at ${placeOf(c)}: ${c.prefixBreak.cause} at ${breakPlace(c.prefixBreak)}`);
        if (c.cacheMiss) out.push(`    ${missText(c)}`);
      }
    });
  }
  return out.map(visible).join('\n');
}

export function recordedCheckLine(d: RecordedDiagnostic, format: 'text' | 'github'): string {
  const line = d.line ?? 1;
  if (format === 'github') {
    const level = d.severity === 'error' ? 'error' : 'warning';
    return `::${level} file=${githubProperty(d.file)},line=${line},title=${githubProperty(d.code)}::${githubData(`${d.code} ${d.message}`)}`;
  }
  return visible(`${d.file}:${line}: ${d.severity} ${d.code} ${d.message}`);
}
