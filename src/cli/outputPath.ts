// `report -o` must never write over what the run reads: the transcript, its SQLite companions (a
// WAL or journal written over can corrupt a live database) or a request dump beside it. Two paths
// are the same file when they resolve to the same place through every symlink (a dangling one
// included: writing to it creates its target) or, when both exist, share device and inode (a hard
// link).

import { lstatSync, readlinkSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { companionsOf } from '../transcripts/load';

/** Why the output may not be written, or null when it may. */
export function outputRefusal(output: string, input: string): string | null {
  const target = statOrNull(output);
  if (target?.isDirectory()) return `${output} is a directory`;
  if (!target && !statOrNull(dirname(resolvedPath(output)))?.isDirectory()) return `there is no folder ${dirname(output)} to write it in`;
  const inputs = [input];
  const real = resolvedPath(input);
  if (real !== resolve(input)) inputs.push(real); // SQLite keeps its WAL beside the file the link points at
  for (const base of inputs) {
    for (const c of companionsOf(base)) {
      if (sameFile(output, target, c.path)) return `${output} is ${c.what} (${c.path}), which this run reads`;
    }
  }
  return null;
}

function sameFile(a: string, aStat: Stats | null, b: string): boolean {
  if (resolvedPath(a) === resolvedPath(b)) return true;
  const bStat = aStat && statOrNull(b);
  return !!bStat && aStat.dev === bStat.dev && aStat.ino === bStat.ino;
}

function statOrNull(p: string): Stats | null {
  try {
    return statSync(p);
  } catch {
    return null;
  }
}

/** Where a path leads: its realpath, or for a missing one its resolved folder and name, following dangling links. */
function resolvedPath(p: string, hops = 0): string {
  const abs = resolve(p);
  try {
    return realpathSync(abs);
  } catch {
    /* missing, or a dangling link */
  }
  if (hops < 40) {
    try {
      if (lstatSync(abs).isSymbolicLink()) return resolvedPath(resolve(dirname(abs), readlinkSync(abs)), hops + 1);
    } catch {
      /* nothing there */
    }
  }
  const parent = dirname(abs);
  return parent === abs ? abs : join(resolvedPath(parent, hops), basename(abs));
}
