// The command line's help: the usage line of every command and each command's options.

import { OVERVIEW_COLUMNS } from '../shared/overviewColumns';
import { PROFILE_NAMES, TOKENIZER_NAMES } from '../shared/settingNames';

export const USAGE = `prompt-inspector: replay an agent's prompt assembly and check prefix-cache stability

Usage:
  prompt-inspector analyze <file> [--json] [--messages] [--profile P] [--tokenizer T] [--turn N] [--lineage ID | --session ID]
  prompt-inspector check <file...> [--format text|github] [--profile P] [--tokenizer T] [--lineage ID | --session ID]
  prompt-inspector report <file> -o <out.html> [--theme light|dark] [--profile P] [--tokenizer T] [--lineage ID | --session ID]
  prompt-inspector sessions <file> [--json] [--wide] [--sort [-]COLUMN] [--desc] [--filter TEXT] [--has breaks|errors] [--session ID]
  prompt-inspector sessions <folder> [--json]     (Claude Code's or Codex's own sessions folder)
  prompt-inspector <command> --help

Files: a Hermes state.db, sessions/session_*.json, request_dump_*.json, or a turn-trace .jsonl;
analyze, check and report also read a Claude Code session log (~/.claude/projects/<project>/<session>.jsonl,
its subagents beside it), a Codex rollout (~/.codex/sessions/…/rollout-*.jsonl) and recorded API traffic
(a vcrpy cassette, a HAR archive, a claude-trace log).
Without --lineage or --session, every lineage of the file (\`sessions\` lists them).
Profiles: ${PROFILE_NAMES.join(', ')} (default hermes-current). Tokenizers: ${TOKENIZER_NAMES.join(', ')} (default o200k_base).
`;

const ENGINE_OPTIONS = `  --profile P     ${PROFILE_NAMES.join(' | ')} (default hermes-current)
  --tokenizer T   ${TOKENIZER_NAMES.join(' | ')} (default o200k_base)
`;

/** What analyze, check and report read of a file: one lineage, one session's family, or (neither) all of it. */
const LOG_OPTIONS = `  --log F         match each request with its billed usage in Hermes' agent.log F (repeatable,
                  oldest first); by default the logs beside a state.db (<home>/logs/agent.log*)
  --no-logs       read no agent.log
  --prices FILE   prices by model, over the catalogue's: a JSON object of model name (as the log
                  names it) -> { input, output, cacheRead, cacheWrite }, USD per million tokens
`;

const SCOPE_OPTIONS = `  --lineage ID    only the lineage (one row of \`sessions\`: a compaction chain) holding session ID,
                  any session of it; its forks (branches, delegates, resets) are lineages of their own
  --session ID    session ID's parent chain and every session descending from it, forks included
                  (what the replay of its lineage reads); a state.db too large to read whole lists
                  its sessions until one is chosen with either option
`;

export const HELP: Record<string, string> = {
  analyze: `prompt-inspector analyze <file> [options]

Replays every request of the transcript and prints one line per request: tokens sent, tokens
reused from the previous request's prefix, and what broke it.

  --json          the full report as JSON (contract: docs/report.md, schema: schemas/report.schema.json)
  --messages      with --json: every wire message of every request (quadratic in size)
${ENGINE_OPTIONS}  --turn N        text output: only turn N
${LOG_OPTIONS}${SCOPE_OPTIONS}
Text output of a file of several lineages: one block per lineage (a header line naming it, its
turns, its request dumps and its findings), then the findings placed in no session.
`,
  check: `prompt-inspector check <file...> [options]

Exit 0 when no finding of severity error, 1 when there is one (a malformed transcript counts),
2 on a usage error, a path that cannot be opened, or a state.db too large to read whole checked
without --lineage or --session (nothing would have been checked). One line per error or warning:
  path:line: severity code message
In a file of several sessions, a finding placed in one ends with (session ID), or with
(session ID, lineage FIRST) when that session continues a compaction chain begun by FIRST.

  --format F      text (default) or github (GitHub Actions annotations)
${ENGINE_OPTIONS}${LOG_OPTIONS}${SCOPE_OPTIONS}                  (a file without that session exits 2)
`,
  report: `prompt-inspector report <file> -o <out.html> [options]

Writes one self-contained HTML file with the inspector view of the transcript (the same view as in
VS Code), which opens offline in any browser and loads nothing from the network.

  -o, --output F  the HTML file to write
  --theme T       light (default) or dark
${ENGINE_OPTIONS}${LOG_OPTIONS}${SCOPE_OPTIONS}`,
  sessions: `prompt-inspector sessions <file> [options]
       prompt-inspector sessions <folder> [--json]

Given another agent's own folder (Claude Code's ~/.claude/projects or one of its projects, Codex's
~/.codex/sessions): its projects, each with its sessions newest first, each read for its turns,
calls, share read from the cache, cost, misses and compactions (docs/recorded.md "Finding them").

Given a Hermes file:

One row per lineage: a compaction chain is one row with its sessions listed under it, branches,
delegates and resets are indented under the lineage they came from. Columns marked * are the
agent's own counters (state.db sessions and session_model_usage), the others the replay's; a value the store
does not hold is "not recorded", one of rows that were not loaded "not read".

  --json          the overview as JSON (contract: docs/report.md "sessions", schema: schemas/sessions.schema.json)
  --sort COLUMN   sort by a column (a leading - or --desc: descending); nested rows among their siblings.
                  Columns: ${OVERVIEW_COLUMNS.map((c) => c.key).join(', ')}
  --desc          descending
  --filter TEXT   only lineages whose title, id or source (or a session's) contains TEXT, any case
  --has breaks    only lineages with a cache break; --has errors: with a finding of severity error
  --wide          every column; without it a terminal gets the columns that fit its width (a pipe gets all)
${ENGINE_OPTIONS}  --session ID    read only session ID's parent chain and descendants; the other sessions are listed, not read
`,
};
