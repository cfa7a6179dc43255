// A table's rows kept by the leaf page they were read from, for the next read of the same store:
// its WAL says which pages later commits wrote, and a leaf page nothing wrote since (nor any overflow
// page read for its rows) gives the rows it gave before, without decoding them again. The messages
// table (hermesStateDb.ts) and the sessions table (stateDbSessions.ts) are read so by a read that
// remembers (load.ts's ReadMemory).

import type { WalMark } from './sqliteFile';
import type { RowSource, StoredRow } from './stateDbValues';

/**
 * A source that reads a file's pages (SqliteFile): its table scans can pass over leaf pages, and it
 * tells which pages a WAL's later commits wrote.
 */
export interface PagedRowSource extends RowSource {
  rows(table: string, kept?: (page: number) => boolean, damaged?: (message: string) => void): Iterable<StoredRow & PagedRow>;
  table(name: string): { rootPage: number } | undefined;
  readonly walMark: WalMark | null;
  pagesWrittenSince(mark: WalMark): Set<number> | null;
}

interface PagedRow {
  page: number;
  kept: boolean;
  recordOverflow(into: number[] | null): void;
}

export const isPaged = (db: RowSource): db is PagedRowSource => 'pagesWrittenSince' in db;

/** A table's rows as read (what `read` made of each), by leaf page, as of the WAL's `wal` mark; `signature` names the table and columns read. */
export interface KeptPages<T> {
  wal: WalMark;
  signature: string;
  leaves: Map<number, { rows: T[]; overflow: number[] }>;
}

/**
 * A scan of `table` into `rows` that keeps them by leaf page, reusing an earlier read's for each leaf
 * page the WAL's later commits did not write, nor any overflow page read for its rows (`reused`:
 * some could be). Null without a WAL to tell a later read what changed, or when the table is
 * damaged: with `damaged`, damage costs only the rows it touches (and `read` giving null a row),
 * and a later read reads the table whole again, so its damage is told again; without it, damage
 * throws as a plain scan's does.
 */
export function scanKeeping<T>(
  db: PagedRowSource,
  table: string,
  signature: string,
  earlier: KeptPages<T> | undefined,
  rows: T[],
  read: (m: StoredRow) => T | null,
  damaged?: (message: string) => void,
): { kept: KeptPages<T>; reused: boolean } | null {
  const written = earlier && earlier.signature === signature ? db.pagesWrittenSince(earlier.wal) : null;
  const reusable = written && earlier ? earlier.leaves : new Map<number, { rows: T[]; overflow: number[] }>();
  const unwritten = (page: number): boolean => {
    const leaf = reusable.get(page);
    return !!leaf && !written?.has(page) && leaf.overflow.every((o) => !written?.has(o));
  };
  const leaves: KeptPages<T>['leaves'] = new Map();
  let leaf: { rows: T[]; overflow: number[] } | undefined;
  let page = 0;
  // A damaged table is read whole again next time, so its damage is told again.
  let hurt = false;
  const onDamage =
    damaged
    && ((message: string): void => {
      hurt = true;
      damaged(message);
    });
  for (const m of db.rows(table, unwritten, onDamage)) {
    if (m.kept) {
      const old = reusable.get(m.page);
      if (!old) throw new Error(`page ${m.page} passed over, but not read before`);
      leaves.set(m.page, old);
      for (const r of old.rows) rows.push(r);
      page = 0;
      continue;
    }
    if (m.page !== page) {
      page = m.page;
      leaf = { rows: [], overflow: [] };
      leaves.set(page, leaf);
      m.recordOverflow(leaf.overflow);
    }
    const r = read(m);
    if (r === null) {
      hurt = true;
      continue;
    }
    leaf?.rows.push(r);
    rows.push(r);
  }
  const wal = db.walMark;
  return wal && !hurt ? { kept: { wal, signature, leaves }, reused: written !== null } : null;
}
