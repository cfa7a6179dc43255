// How the palette describes a transcript before reading it (issue 20, item 8): its kind by name
// and its size, so a list of paths says what each is.

const KINDS: [RegExp, string][] = [
  [/(^|\/)state\.db$/, 'Hermes state.db'],
  [/(^|\/)request_dump_[^/]*\.json$/, 'request dump'],
  [/(^|\/)session_[^/]*\.json$/, 'session snapshot'],
  [/\.jsonl$/, 'JSONL (turn trace)'],
  [/\.db$/, 'SQLite database'],
];

export function transcriptKind(path: string): string {
  return KINDS.find(([re]) => re.test(path))?.[1] ?? 'transcript';
}

export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = bytes / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[u]}`;
}
