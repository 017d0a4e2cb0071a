// P4a on the real server: its memory once its caches hold 5,000 nodes, 150,000 pods, 5,000 Leases and 5,000 PDBs
// from the stand-in API (standin-api.mjs), for several builds side by side against the same stand-in.
//   node end2end/bench/rss-at-scale.mjs label=BIN [label=BIN …] [--nodes 5000] [--pods 150000] [--rounds 2]
// For each round and build in turn: start the server (local mode, its probes on a port of its own), wait for
// /readyz (every kind listed) and for the event stream's first board (the cards built), then read VmRSS and VmHWM
// from /proc/PID/status after 5 s and after 30 s (what the allocator keeps, and what it gives back), and stop it.
// The builds alternate within each round. Prints a Markdown table of each build's medians.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startStandin } from './standin-api.mjs';
import { authorized, lockedEnv, origin } from './local-lock.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args.splice(at, 2)[1]) : fallback;
};
const nodes = option('nodes', 5000);
const pods = option('pods', 150000);
const rounds = option('rounds', 2);
const builds = args.map((a) => { const i = a.indexOf('='); return { label: a.slice(0, i), bin: a.slice(i + 1) }; });
if (!builds.length) throw new Error('name at least one build: label=BIN');
const log = (...a) => console.error('rss-at-scale:', ...a);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const freePort = () => new Promise((resolve) => {
  const s = createServer();
  s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
});
const status = (pid) => {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) => Number(text.match(new RegExp(`^${key}:\\s+(\\d+) kB$`, 'm'))[1]);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
};
const median = (xs) => { const s = xs.slice().sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)]; };

const api = await startStandin({ nodes, pods, quiet: true });
log(`stand-in at ${api.url}: ${nodes} nodes, ${pods} pods`);

async function measure(build) {
  const probe = await freePort();
  const child = spawn('nice', ['-n', '10', build.bin, '--kubeconfig', api.kubeconfig, '--addr', '127.0.0.1:0',
    '--probe-addr', `127.0.0.1:${probe}`, '--node-monitor-grace-period', '1h'], {
    cwd: root, env: lockedEnv({ ...process.env, LEPTOS_SITE_ROOT: join(root, 'target', 'site') }), stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const url = await new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => { out += d; const m = out.match(/serving on (\S+)/); if (m) resolve(origin(m[1])); });
      child.on('exit', (code) => reject(new Error(`${build.bin} exited with ${code}`)));
    });
    const started = Date.now();
    const isReady = async () => {
      const res = await fetch(`http://127.0.0.1:${probe}/readyz`).catch(() => null);
      await res?.text();
      return res?.status === 200;
    };
    while (!(await isReady())) {
      if (Date.now() - started > 600_000) throw new Error('not ready in 600 s');
      await sleep(250);
    }
    const ready = Date.now() - started;
    log(`${build.label}: ready after ${ready} ms`);
    // The first board: the cards are built once every kind is listed.
    const stream = new AbortController();
    // Uncompressed: the point is when the board is sent, not how a decompressor buffers it.
    const res = await fetch(`${url}/api/board/events`, authorized({ signal: stream.signal, headers: { 'accept-encoding': 'identity' } }));
    const reader = res.body.getReader();
    // The tail of the last chunk is kept, in case the event's name spans two chunks.
    let tail = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the board stream ended before its first board');
      const text = tail + new TextDecoder().decode(value);
      if (text.includes('event: board')) break;
      tail = text.slice(-16);
    }
    stream.abort();
    const board = Date.now() - started;
    await sleep(5_000);
    // `nice` execs the server, so the child's pid is the server's.
    const at5 = status(child.pid);
    await sleep(25_000);
    const at30 = status(child.pid);
    return { ready, board, at5, at30 };
  } finally {
    child.kill();
    await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
  }
}

const results = Object.fromEntries(builds.map((b) => [b.label, []]));
try {
  for (let round = 1; round <= rounds; round++) {
    for (const build of round % 2 ? builds : builds.slice().reverse()) {
      const r = await measure(build);
      results[build.label].push(r);
      log(`round ${round} ${build.label}: ready ${(r.ready / 1000).toFixed(1)} s, first board ${(r.board / 1000).toFixed(1)} s, ` +
        `RSS ${r.at5.rss.toFixed(1)} MiB (HWM ${r.at5.hwm.toFixed(1)}), after 30 s ${r.at30.rss.toFixed(1)} MiB`);
    }
  }
} finally {
  await api.stop();
}
console.log(`${nodes} nodes, ${pods} pods, ${nodes} Leases and ${nodes} PDBs from the stand-in; medians of ${rounds} rounds\n`);
console.log('| build | /readyz | first board | RSS 5 s after | HWM | RSS 30 s after |');
console.log('|---|---|---|---|---|---|');
for (const b of builds) {
  const rs = results[b.label];
  const m = (f) => median(rs.map(f));
  console.log(`| ${b.label} | ${(m((r) => r.ready) / 1000).toFixed(1)} s | ${(m((r) => r.board) / 1000).toFixed(1)} s | ` +
    `${m((r) => r.at5.rss).toFixed(1)} MiB | ${m((r) => r.at5.hwm).toFixed(1)} MiB | ${m((r) => r.at30.rss).toFixed(1)} MiB |`);
}
process.exit(0);
