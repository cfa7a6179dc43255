// The CLI's entry (dist/cli.js): main() on this process's arguments and standard streams. Apart from
// main.ts so that importing main (the tests do) never starts a run.

import { main } from './main';
import { StatusLine } from './statusLine';
import { visible } from './terminalText';

/**
 * A line writer for a standard stream. A reader that goes away (`analyze … | head`: EPIPE) ends the
 * output, not the run: later lines are dropped, and the exit code is the command's own. Any other
 * failure to write (ENOSPC on a full disk, EIO) ends the output too and is told to `failed`, once.
 */
function lines(stream: NodeJS.WriteStream, failed: (code: string) => void): (s: string) => void {
  let open = true;
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (!open) return;
    open = false;
    if (e.code !== 'EPIPE') failed(e.code ?? e.message);
  });
  return (s) => {
    // A failed write destroys the stream at once; its error event comes a tick later.
    if (open && !stream.destroyed) stream.write(`${s}\n`);
  };
}

// Output that could not be written (not a reader gone away) is one line on stderr and exit 2,
// whichever comes first: the command's end or the stream's error.
let outputLost = false;
const err = lines(process.stderr, () => undefined);
const out = lines(process.stdout, (code) => {
  outputLost = true;
  err(`prompt-inspector: cannot write to standard output (${visible(code)})`);
  process.exitCode = 2;
});
const status = process.stderr.isTTY ? new StatusLine((s) => process.stderr.write(s), process.stderr.columns || 80) : undefined;
void main(process.argv.slice(2), out, err, { columns: process.stdout.isTTY ? process.stdout.columns : undefined, status }).then((code) => {
  process.exitCode = outputLost ? 2 : code;
});
