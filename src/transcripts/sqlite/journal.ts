// A hot rollback journal (https://www.sqlite.org/fileformat2.html §4.1): a database caught in the
// middle of a write transaction has `<db>-journal` beside it holding the original content of every
// page the transaction changed. SQLite opening such a file rolls it back before reading; so does
// this reader, in memory only (the journal's pages laid over the file's, never written back).

import { u32 } from './record';

const MAGIC = [0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7];

export interface Rollback {
  /** The original content of each page the transaction changed. */
  pages: Map<number, Uint8Array>;
  /** Pages in the database before the transaction. */
  dbPages: number;
}

/**
 * The pages a rollback restores, or null when the journal is not hot (empty, zeroed, of another page
 * size or not a journal). Records are read segment by segment while their checksums hold, as
 * SQLite's playback reads them; a page journalled twice keeps its first (oldest) image.
 */
export function readRollbackJournal(journal: Uint8Array, pageSize: number): Rollback | null {
  if (journal.length < 28 || MAGIC.some((b, i) => journal[i] !== b)) return null;
  const dbPages = u32(journal, 16);
  const sector = u32(journal, 20);
  if (u32(journal, 24) !== pageSize || sector < 512 || sector > 65536 || (sector & (sector - 1)) !== 0) return null;
  const pages = new Map<number, Uint8Array>();
  const record = 4 + pageSize + 4;
  for (let header = 0; header + 28 <= journal.length && MAGIC.every((b, i) => journal[header + i] === b);) {
    const nonce = u32(journal, header + 12);
    let count = u32(journal, header + 8);
    let at = header + sector;
    // 0xffffffff: as many records as the file holds (the count was never written).
    if (count === 0xffffffff) count = Math.floor((journal.length - at) / record);
    if (count === 0) break;
    for (let k = 0; k < count && at + record <= journal.length; k++, at += record) {
      const n = u32(journal, at);
      const data = journal.subarray(at + 4, at + 4 + pageSize);
      let sum = nonce;
      for (let x = pageSize - 200; x >= 0; x -= 200) sum = (sum + data[x]) >>> 0;
      if (sum !== u32(journal, at + 4 + pageSize) || n === 0) return pages.size ? { pages, dbPages } : null;
      if (!pages.has(n)) pages.set(n, data);
    }
    // The next segment's header starts at the next sector boundary.
    header = Math.ceil(at / sector) * sector;
  }
  return pages.size ? { pages, dbPages } : null;
}
