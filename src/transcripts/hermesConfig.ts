// What a Hermes home's config.yaml asks of the prompt cache (docs/billing.md "Cache lifetime"):
// `prompt_caching.cache_ttl`, which upstream reads when an agent starts (agent_init.py) and puts on
// every cache_control marker it sends (prompt_caching.py). Only the two YAML shapes a config takes
// for it are read, block (`prompt_caching:` then an indented `cache_ttl: 1h`) and flow
// (`prompt_caching: {cache_ttl: 1h}`); anything else reads as not set, which is upstream's default.

import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { CacheTtl, CacheTtlSetting } from '../shared/model/transcript';

/** A config.yaml is a few KB; one larger than this is no config and is not read. */
const MAX_CONFIG_BYTES = 1 << 20;

/** PyYAML's booleans and nulls, and the words upstream takes as "caching off" (cache_ttl_means_disabled). */
const OFF = new Set(['false', 'no', 'off', 'null', '~', '', 'disabled', 'none']);

/** The setting's value as upstream takes it: 5m or 1h as written, a false-like value off, anything else ignored (5m). */
function ttlOf(raw: string): CacheTtl {
  const v = unquote(raw).trim().toLowerCase();
  if (v === '1h' || v === '5m') return v;
  return OFF.has(v) ? 'off' : '5m';
}

function unquote(raw: string): string {
  const t = raw.trim();
  // A quoted scalar ends at its closing quote (a comment may follow); an unquoted one at a comment.
  const end = t[0] === '"' || t[0] === "'" ? t.indexOf(t[0], 1) : -1;
  return end > 0 ? t.slice(1, end) : t.replace(/(^|\s+)#.*$/, '');
}

/** Where `prompt_caching.cache_ttl` is set in a config.yaml's text, and to what; null where it is not (the last setting wins, as in YAML). */
export function cacheTtlOf(text: string): { ttl: CacheTtl; line: number } | null {
  const lines = text.split(/\r?\n/);
  let found: { ttl: CacheTtl; line: number } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const top = /^prompt_caching\s*:(.*)$/.exec(lines[i]);
    if (!top) continue;
    const rest = top[1].replace(/\s+#.*$/, '').trim();
    if (rest.startsWith('{')) {
      const flow = /(?:^\{|,)\s*["']?cache_ttl["']?\s*:\s*("[^"]*"|'[^']*'|[^,}]*)/.exec(rest);
      if (flow) found = { ttl: ttlOf(flow[1]), line: i + 1 };
      continue;
    }
    if (rest !== '') continue;
    // The block under it: the lines indented deeper than the key, children at the first one's indent.
    let indent: number | null = null;
    for (let j = i + 1; j < lines.length; j++) {
      const line = lines[j];
      if (/^\s*(#.*)?$/.test(line)) continue;
      const at = /^ */.exec(line)?.[0].length ?? 0;
      if (at === 0) break;
      indent ??= at;
      if (at !== indent) continue;
      const child = /^\s*["']?cache_ttl["']?\s*:(.*)$/.exec(line);
      if (child) found = { ttl: ttlOf(child[1]), line: j + 1 };
    }
  }
  return found;
}

/**
 * The home a transcript of `format` at `path` was read from: a state.db's folder, the folder above
 * `sessions/` for a snapshot or a request dump, above `logs/` for an agent.log; null for other formats.
 */
export function hermesHomeOf(path: string, format: string): string | null {
  if (format === 'hermes-state-db') return dirname(path);
  if (format === 'hermes-session-json' || format === 'hermes-request-dump') return dirname(dirname(path));
  if (format === 'hermes-agent-log') return basename(dirname(path)) === 'logs' ? dirname(dirname(path)) : null;
  return null;
}

/** `prompt_caching.cache_ttl` of the config.yaml in the home of `path` (hermesHomeOf); null where none is set or readable. */
export function cacheTtlBeside(path: string, format: string): CacheTtlSetting | null {
  const home = hermesHomeOf(path, format);
  if (home === null) return null;
  const file = join(home, 'config.yaml');
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const size = fstatSync(fd).size;
    if (size > MAX_CONFIG_BYTES) return null;
    const bytes = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, bytes, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    const found = cacheTtlOf(bytes.subarray(0, read).toString('utf8'));
    return found && { ...found, file };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
