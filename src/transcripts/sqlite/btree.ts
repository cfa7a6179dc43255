// B-trees (https://www.sqlite.org/fileformat2.html §1.6): the walk over a table's pages, its cells,
// and the payload of a cell, on the page and on its overflow chain. A page reached twice is a
// cycle; an overflow chain is bounded by the payload it carries.

import { SqliteFormatError } from './errors';
import type { Pager } from './pager';
import { u32, varint, varintLength, type RecordBytes } from './record';

const MAX_DEPTH = 40;

/** A cell the walk is on (one object, reused for every cell). */
export interface CellRef {
  page: Uint8Array;
  offset: number;
  pageNumber: number;
  /** An index b-tree's interior cell: a 4-byte child pointer comes before the payload. */
  interior: boolean;
  /** A leaf the walk was told to pass over (TreeWalk's `kept`): page `pageNumber`, not read, no cell. */
  kept: boolean;
}

interface Frame {
  n: number;
  page: Uint8Array;
  hdr: number;
  cells: number;
  next: number;
  right: number;
  leaf: boolean;
}

/**
 * A walk over every row cell of the b-tree rooted at `root`, in key order; `what` names the tree
 * in errors. A table b-tree (`index` false) keeps its rows in leaf cells; an index b-tree (a
 * WITHOUT ROWID table) in every cell, an interior one coming after the subtree to its left.
 * A class, not a generator: a scan resumes one generator per row, not two. A table b-tree's page
 * for which `kept` holds (a leaf whose rows the caller still has) is not read: the walk comes to it
 * once, as a cell with `kept` set.
 *
 * Damage throws, unless `damaged` is given: then a damaged cell pointer costs its cell, and a child
 * that cannot be read (no such page, the wrong type, too many cells, reached twice, too deep) costs
 * its subtree; each is told to `damaged` and the walk goes on past it.
 */
export class TreeWalk {
  private readonly cell: CellRef = { page: new Uint8Array(0), offset: 0, pageNumber: 0, interior: false, kept: false };
  private readonly interiorType: number;
  private readonly leafType: number;
  private readonly visited = new Set<number>();
  private readonly stack: Frame[] = [];
  /** A kept root, not yet come to. */
  private keptRoot = 0;

  constructor(
    private readonly pager: Pager,
    root: number,
    private readonly what: string,
    private readonly index: boolean,
    private readonly kept?: (page: number) => boolean,
    private readonly damaged?: (message: string) => void,
  ) {
    [this.interiorType, this.leafType] = index ? [0x02, 0x0a] : [0x05, 0x0d];
    if (!index && kept?.(root)) {
      this.visit(root);
      this.keptRoot = root;
    } else {
      this.guard(() => this.push(root, null));
    }
  }

  /** Runs `step`; false when it met damage that `damaged` was told of (without it, the damage throws). */
  private guard(step: () => void): boolean {
    if (!this.damaged) {
      step();
      return true;
    }
    try {
      step();
      return true;
    } catch (e) {
      if (!(e instanceof SqliteFormatError)) throw e;
      this.damaged(e.message);
      return false;
    }
  }

  /** The next row cell (the same object each time), or null after the last. */
  next(): CellRef | null {
    if (this.keptRoot) {
      const root = this.keptRoot;
      this.keptRoot = 0;
      return this.keptLeaf(root);
    }
    const stack = this.stack;
    while (stack.length) {
      const f = stack[stack.length - 1];
      if (f.leaf) {
        if (f.next < f.cells) {
          let p = -1;
          if (this.guard(() => (p = this.cellAt(f, f.next++)))) return this.at(f, p);
          continue;
        }
        stack.pop();
        continue;
      }
      if (!this.index) {
        // Table interior: each cell's left child, then the right-most child.
        let child = -1;
        if (f.next < f.cells) {
          if (!this.guard(() => (child = u32(f.page, this.cellAt(f, f.next++))))) continue;
        } else if (f.next++ === f.cells) child = f.right;
        if (child < 0) {
          stack.pop();
        } else if (this.kept?.(child)) {
          if (this.guard(() => this.visit(child))) return this.keptLeaf(child);
        } else {
          this.guard(() => this.push(child, f.n));
        }
        continue;
      }
      // Index interior: each cell's left child, then the cell itself; then the right-most child.
      const step = f.next++;
      if (step < 2 * f.cells) {
        let p = -1;
        if (!this.guard(() => (p = this.cellAt(f, step >> 1)))) {
          f.next += step % 2 === 0 ? 1 : 0; // the cell is gone: its child and itself
          continue;
        }
        if (step % 2 === 1) return this.at(f, p);
        this.guard(() => this.push(u32(f.page, p), f.n));
      } else if (step === 2 * f.cells) {
        this.guard(() => this.push(f.right, f.n));
      } else {
        stack.pop();
      }
    }
    return null;
  }

  private visit(n: number): void {
    if (this.visited.has(n)) throw new SqliteFormatError(`database disk image is malformed: ${this.what}: page ${n} is reached twice (a cycle in the b-tree)`);
    if (this.stack.length >= MAX_DEPTH)
      throw new SqliteFormatError(`database disk image is malformed: ${this.what}: the b-tree is deeper than ${MAX_DEPTH} levels`);
    this.visited.add(n);
  }

  private push(n: number, parent: number | null): void {
    const what = this.what;
    this.visit(n);
    const page = this.pager.page(n);
    const hdr = n === 1 ? 100 : 0;
    const type = page[hdr];
    if (type !== this.interiorType && type !== this.leafType) {
      throw new SqliteFormatError(
        `database disk image is malformed: ${what}: page ${n}${parent === null ? '' : ` (a child of page ${parent})`} has type 0x${type.toString(16).padStart(2, '0')}, not ${this.index ? 'an index' : 'a table'} b-tree page`,
      );
    }
    const leaf = type === this.leafType;
    const cells = (page[hdr + 3] << 8) | page[hdr + 4];
    const pointers = hdr + (leaf ? 8 : 12);
    if (pointers + 2 * cells > this.pager.usableSize)
      throw new SqliteFormatError(`database disk image is malformed: ${what}: page ${n} claims ${cells} cells, more than fit`);
    this.stack.push({ n, page, hdr: pointers, cells, next: 0, right: leaf ? 0 : u32(page, hdr + 8), leaf });
  }

  private cellAt(f: Frame, i: number): number {
    const p = (f.page[f.hdr + 2 * i] << 8) | f.page[f.hdr + 2 * i + 1];
    if (p < f.hdr + 2 * f.cells || p >= this.pager.usableSize)
      throw new SqliteFormatError(`database disk image is malformed: ${this.what}: a cell pointer of page ${f.n} points outside the page`);
    return p;
  }

  private at(f: Frame, offset: number): CellRef {
    const cell = this.cell;
    cell.page = f.page;
    cell.offset = offset;
    cell.pageNumber = f.n;
    cell.interior = !f.leaf;
    cell.kept = false;
    return cell;
  }

  private keptLeaf(n: number): CellRef {
    const cell = this.cell;
    cell.page = new Uint8Array(0);
    cell.offset = -1;
    cell.pageNumber = n;
    cell.interior = false;
    cell.kept = true;
    return cell;
  }
}

/** The payload of the cell a row is on. Overflow pages are read only when requested bytes lie on them. */
export class Payload implements RecordBytes {
  size = 0;
  /** The rowid of a table b-tree's row. */
  rowid: number | bigint = 0;
  /** The row's place in key order (an index b-tree, where there is no rowid), for errors. */
  private ordinal = 0;
  private keyed = false;
  private page: Uint8Array = new Uint8Array(0);
  private local = 0; // offset of the local payload in `page`
  private localSize = 0;
  private firstOverflow = 0;
  private pageNumber = 0;
  private chunks: Uint8Array[] = [];
  private loaded = 0;
  private nextOverflow = 0;
  /** When set, each overflow page read is added to it. */
  overflowRead: number[] | null = null;

  constructor(
    private readonly pager: Pager,
    private readonly what: string,
  ) {}

  /** Points at a table leaf cell: its payload size, rowid, then the payload. */
  loadTableLeaf(cell: CellRef): void {
    const usable = this.pager.usableSize;
    let p = cell.offset;
    const size = varint(cell.page, p, usable);
    p += varintLength;
    const rowid = varint(cell.page, p, usable);
    p += varintLength;
    // fileformat2 §1.6: a table leaf keeps up to U-35 bytes on the page.
    this.point(cell, p, size, usable - 35);
    this.rowid = rowid;
  }

  /** Points at an index cell (a WITHOUT ROWID table's row): a child pointer when interior, its payload size, then the payload. */
  loadIndexCell(cell: CellRef): void {
    const usable = this.pager.usableSize;
    let p = cell.offset + (cell.interior ? 4 : 0);
    const size = varint(cell.page, p, usable);
    p += varintLength;
    this.keyed = true;
    this.ordinal++;
    // fileformat2 §1.6: an index cell keeps up to ((U-12)*64/255)-23 bytes on the page.
    this.point(cell, p, size, Math.floor(((usable - 12) * 64) / 255) - 23);
  }

  private point(cell: CellRef, p: number, size: number | bigint, maxLocal: number): void {
    const usable = this.pager.usableSize;
    const { page, pageNumber } = cell;
    if (typeof size !== 'number' || size < 0) throw this.corrupt(`a payload size of ${size}`, pageNumber);
    // How much of the payload stays on the page (fileformat2 §1.6).
    const minLocal = Math.floor(((usable - 12) * 32) / 255) - 23;
    let local = size;
    if (size > maxLocal) {
      const k = minLocal + ((size - minLocal) % (usable - 4));
      local = k <= maxLocal ? k : minLocal;
    }
    const end = p + local + (local < size ? 4 : 0);
    if (end > usable) throw this.corrupt('a cell that runs past the end of the page', pageNumber);
    if (local < size && Math.ceil((size - local) / (usable - 4)) > this.pager.pageCount)
      throw this.corrupt(`a payload of ${size} bytes, larger than the database`, pageNumber);
    this.page = page;
    this.local = p;
    this.localSize = local;
    this.size = size;
    this.firstOverflow = local < size ? u32(page, p + local) : 0;
    this.pageNumber = pageNumber;
    this.chunks = [];
  }

  /** Payload bytes [start, end): a view when they lie in one piece, else a copy. */
  bytes(start: number, end: number): Uint8Array {
    if (end <= this.localSize) return this.page.subarray(this.local + start, this.local + end);
    if (!this.chunks.length) {
      this.chunks = [this.page.subarray(this.local, this.local + this.localSize)];
      this.loaded = this.localSize;
      this.nextOverflow = this.firstOverflow;
    }
    const room = this.pager.usableSize - 4;
    while (this.loaded < end) {
      if (this.nextOverflow === 0) throw this.corrupt(`an overflow chain that ends after ${this.loaded} of ${this.size} bytes`);
      this.overflowRead?.push(this.nextOverflow);
      const page = this.pager.page(this.nextOverflow);
      const take = Math.min(room, this.size - this.loaded);
      this.chunks.push(page.subarray(4, 4 + take));
      this.loaded += take;
      this.nextOverflow = u32(page, 0);
    }
    const chunkOf = (offset: number): number => (offset < this.localSize ? 0 : 1 + Math.floor((offset - this.localSize) / room));
    const chunkStart = (c: number): number => (c === 0 ? 0 : this.localSize + (c - 1) * room);
    const first = chunkOf(start);
    if (chunkOf(end - 1) === first) return this.chunks[first].subarray(start - chunkStart(first), end - chunkStart(first));
    const out = new Uint8Array(end - start);
    for (let c = first, at = start; at < end; c++) {
      const piece = this.chunks[c].subarray(at - chunkStart(c), Math.min(this.chunks[c].length, end - chunkStart(c)));
      out.set(piece, at - start);
      at += piece.length;
    }
    return out;
  }

  corrupt(what: string, page = this.pageNumber): SqliteFormatError {
    const row = this.keyed ? `row ${this.ordinal} in key order` : `row ${this.rowid}`;
    return new SqliteFormatError(`database disk image is malformed: ${this.what}, ${row} on page ${page}: ${what}`);
  }
}
