// An inspector tab's title (issue 20, item 2): with several homes and lineages open, "Inspect
// state.db" told none apart. The open lineage (its title, else its id) and the file, named by its
// folder and name.

import { everyLineage } from '../shared/overviewColumns';
import type { SessionOverview } from '../shared/overviewTypes';
import { revealBidiControls } from '../shared/shownText';

/** `home/state.db` for `/…/home/state.db`. */
export function shortPath(path: string): string {
  return path
    .split('/')
    .filter((p) => p)
    .slice(-2)
    .join('/');
}

export function tabTitle(path: string, overview: SessionOverview | null, lineage: string | null): string {
  const file = revealBidiControls(shortPath(path));
  const row = lineage === null || !overview ? undefined : everyLineage(overview.lineages).find((l) => l.id === lineage);
  if (lineage === null) return file;
  return `${revealBidiControls(row?.title || lineage)} — ${file}`;
}
