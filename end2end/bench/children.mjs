// The benchmarks' child processes: each runs under `nice -n 10` from the repository's root, is stopped when the
// benchmark exits (after an error too), and can be waited on for a line of its output.
import { spawn } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const children = new Set();
process.on('exit', () => { for (const c of children) c.kill('SIGTERM'); });

/** Starts `cmd args` niced; `stop()` sends SIGTERM and resolves once it has exited. */
export function child(cmd, args, opts = {}) {
  const c = spawn('nice', ['-n', '10', cmd, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], ...opts });
  children.add(c);
  c.on('exit', () => children.delete(c));
  c.stop = () => new Promise((done) => {
    if (c.exitCode !== null || c.signalCode !== null) return done();
    c.once('exit', done);
    c.kill('SIGTERM');
  });
  return c;
}

/** Resolves with the match of `re` in `c`'s standard output; fails, naming `what`, if `c` exits first. */
export function waitForLine(c, re, what) {
  return new Promise((resolve, reject) => {
    let out = '';
    c.stdout.on('data', (d) => { out += d; const m = out.match(re); if (m) resolve(m); });
    c.on('exit', (code) => reject(new Error(`${what} exited with ${code}`)));
  });
}

/**
 * Starts the stand-in API server (`standin-api.mjs` with `args`), its log relayed to stderr (and to `onLog`), and
 * resolves once it listens: the child, its URL and kubeconfig, and `control(path, method)` for its `/__bench/`
 * switches.
 */
export async function startStandin(args, onLog = () => {}) {
  const standin = child(process.execPath, [join(root, 'end2end', 'bench', 'standin-api.mjs'), ...args]);
  standin.stderr.on('data', (d) => { onLog(d); process.stderr.write(`[standin] ${d}`); });
  const [, apiUrl, kubeconfig] = await waitForLine(standin, /standin serving on (\S+) kubeconfig (\S+)/, 'the stand-in');
  const control = async (path, method = 'POST') => {
    const res = await fetch(`${apiUrl}/__bench/${path}`, { method });
    if (!res.ok) throw new Error(`stand-in ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  return { standin, apiUrl, kubeconfig, control };
}
