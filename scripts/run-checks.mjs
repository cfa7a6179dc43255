// The static checks `npm test` runs before the tests (type-check, lint, format, knip), two at a time:
// each is one single-threaded process, and this machine has two cores. Each one's output is printed
// whole when it ends, under its name; the exit code is 1 when any failed.
import { spawn } from 'node:child_process';

const CHECKS = ['check-types', 'lint', 'format:check', 'knip'];
const AT_ONCE = 2;

function run(script) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (d) => output.push(d));
    child.stderr.on('data', (d) => output.push(d));
    child.on('close', (code) => {
      const text = Buffer.concat(output).toString();
      process.stdout.write(`── ${script}: ${code === 0 ? 'ok' : `failed (exit ${code})`}, ${((Date.now() - started) / 1000).toFixed(1)} s\n${text}`);
      resolve(code === 0);
    });
  });
}

const queue = [...CHECKS];
const results = await Promise.all(
  Array.from({ length: AT_ONCE }, async () => {
    const passed = [];
    for (let script = queue.shift(); script; script = queue.shift()) passed.push(await run(script));
    return passed.every(Boolean);
  }),
);
process.exit(results.every(Boolean) ? 0 : 1);
