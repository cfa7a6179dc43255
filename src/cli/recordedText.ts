// The text `analyze` prints for another agent's transcript, and the lines `check` prints for its
// findings (docs/recorded.md). Every string from the file goes through `visible` where it is printed.

import type { RecordedDiagnostic, RecordedReport, RecordedReportCall, UsageTotals } from '../shared/recordedReportTypes';
import { num, plural, usd } from '../shared/shownText';
import { githubData, githubProperty, visible } from './terminalText';

const NOT_RECORDED: [keyof RecordedReport['records'], string][] = [
  ['systemPrompt', 'the system prompt'],
  ['tools', 'the tool schemas'],
  ['requestBytes', 'the request bytes'],
  ['billedUsage', 'billed usage'],
  ['compactions', 'compactions'],
];

const FORMAT_NAMES: Record<RecordedReport['source']['format'], string> = { 'claude-code': 'Claude Code' };

/** How much of a user's prompt a turn's line shows. */
const PROMPT_SHOWN = 60;

function usageText(u: UsageTotals): string {
  const parts = [plural(u.calls, 'call')];
  if (u.input !== null) parts.push(`prompts ${num(u.input)} tokens`);
  parts.push(u.hitRate === null ? 'cache reads not recorded' : `${(u.hitRate * 100).toFixed(1)}% read from the cache`);
  if (u.cacheWrite !== null) parts.push(`${num(u.cacheWrite)} written to it`);
  if (u.output !== null) parts.push(`output ${num(u.output)}`);
  if (u.costUsd !== null) parts.push(`${usd(u.costUsd)}${u.unpriced ? ` (${plural(u.unpriced, 'call')} not priced)` : ''}`);
  else if (u.unpriced) parts.push('cost not known (no price for the model)');
  return parts.join(', ');
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
          ? `after a ${m.cause === 'compression' ? 'compaction' : m.cause}`
          : m.class === 'cause-logged'
            ? `logged cause ${m.cause}`
            : 'unexplained';
  const extra = m.extraUsd === null ? '' : `, ${usd(m.extraUsd)} more than a hit`;
  return `miss at line ${c.line ?? '?'} (${c.model ?? 'model not recorded'}): ${num(m.rebilledTokens)} tokens written again, ${idle}: ${why}${extra}`;
}

export function recordedText(r: RecordedReport): string {
  const { source } = r;
  const missing = NOT_RECORDED.filter(([k]) => !r.records[k]).map(([, what]) => what);
  const out = [
    `${source.path}: a ${FORMAT_NAMES[source.format]} session log${source.agentVersion ? ` (${FORMAT_NAMES[source.format]} ${source.agentVersion})` : ''}${source.title ? `, "${source.title}"` : ''}`,
  ];
  if (missing.length) out.push(`not recorded in this format: ${missing.join(', ')}; a miss is located by call and time, not by byte`);
  out.push(`${plural(r.sessions.length, 'session')}: ${usageText(r.usage)}`);
  for (const s of r.sessions) {
    out.push('', `session ${s.id} (${s.kind}${s.parentId ? ` of ${s.parentId}` : ''}): ${plural(s.turns.length, 'turn')}; ${usageText(s.usage)}`);
    const calls = r.calls.filter((c) => c.session === s.id);
    s.turns.forEach((t, i) => {
      for (const c of s.compactions.filter((k) => k.turn === i))
        out.push(
          `  compaction (${c.trigger ?? 'trigger not recorded'}) at line ${c.line ?? '?'}: ${c.preTokens === null ? 'size before not recorded' : `${num(c.preTokens)} tokens before`}${c.summaryLine === null ? '' : `, its summary at line ${c.summaryLine}`}`,
        );
      const prompt = t.prompt
        ? `"${t.prompt.length > PROMPT_SHOWN ? `${t.prompt.slice(0, PROMPT_SHOWN)}…` : t.prompt}"`
        : "(no prompt of the user's: calls after a compaction or a resume)";
      out.push(`  turn ${i}${t.line === null ? '' : ` (line ${t.line})`} ${prompt}: ${plural(t.calls, 'call')}`);
      for (const c of calls) if (c.turn === i && c.cacheMiss) out.push(`    ${missText(c)}`);
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
