// P11: `POST /api/windows` (what every open board asks every 5 s) and the server's `/metrics` scrape (which decides
// every node too) at 5,000 nodes and 20 maintenance windows from the stand-in API (standin-api.mjs --windows), for
// several builds side by side against the same stand-in.
//   node end2end/bench/windows-at-scale.mjs label=BIN [label=BIN …] [--nodes 5000] [--pods 50000] [--windows 20]
//                                          [--calls 60] [--rounds 2]
// For each round and build in turn: start the server (local mode), wait for /readyz, then make `--calls` requests
// one after another and time each from sending to the last byte of the answer; then 10 scrapes of /metrics. Prints
// a Markdown table of each build's p50, p99 and longest, over all rounds, with how many nodes the answers held and
// freed (the same in every build, or the builds decide differently).
import { spawn } from 'node:child_process';
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
const pods = option('pods', 50000);
const windows = option('windows', 20);
const calls = option('calls', 60);
const rounds = option('rounds', 2);
const builds = args.map((a) => { const i = a.indexOf('='); return { label: a.slice(0, i), bin: a.slice(i + 1) }; });
if (!builds.length) throw new Error('name at least one build: label=BIN');
const log = (...a) => console.error('windows-at-scale:', ...a);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const freePort = () => new Promise((resolve) => {
  const s = createServer();
  s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
});
const quantile = (xs, q) => { const s = xs.slice().sort((a, b) => a - b); return s[Math.round((s.length - 1) * q)]; };

const api = await startStandin({ nodes, pods, windows, quiet: true });
log(`stand-in at ${api.url}: ${nodes} nodes, ${pods} pods, ${windows} windows`);

async function timed(url, init) {
  const started = process.hrtime.bigint();
  const res = await fetch(url, init);
  const body = await res.text();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${body.slice(0, 300)}`);
  return { ms, body };
}

async function measure(build) {
  const probe = await freePort();
  const child = spawn(build.bin, ['--kubeconfig', api.kubeconfig, '--addr', '127.0.0.1:0',
    '--probe-addr', `127.0.0.1:${probe}`, '--node-monitor-grace-period', '1h'], {
    cwd: root, env: lockedEnv({ ...process.env, LEPTOS_SITE_ROOT: join(root, 'target', 'site') }), stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr.resume();
  try {
    const url = await new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => { out += d; const m = out.match(/serving on (\S+)/); if (m) resolve(origin(m[1])); });
      child.on('exit', (code) => reject(new Error(`${build.bin} exited with ${code}`)));
    });
    const started = Date.now();
    for (;;) {
      const res = await fetch(`http://127.0.0.1:${probe}/readyz`).catch(() => null);
      await res?.text();
      if (res?.status === 200) break;
      if (Date.now() - started > 600_000) throw new Error('not ready in 600 s');
      await sleep(250);
    }
    log(`${build.label}: ready after ${Date.now() - started} ms`);
    const init = authorized({ method: 'POST', headers: { 'content-type': 'application/json', 'accept-encoding': 'identity' }, body: '{}' });
    // The first answers warm the caches (the cards, the parsed windows); they are not counted.
    let answer, bytes;
    for (let k = 0; k < 3; k++) {
      const { body } = await timed(`${url}/api/windows`, init);
      answer = JSON.parse(body);
      bytes = Buffer.byteLength(body);
    }
    const times = [];
    for (let k = 0; k < calls; k++) times.push((await timed(`${url}/api/windows`, init)).ms);
    const scrapes = [];
    for (let k = 0; k < 10; k++) scrapes.push((await timed(`http://127.0.0.1:${probe}/metrics`)).ms);
    const held = answer.nodes.filter((d) => d.holds.length > 0).length;
    const covered = answer.nodes.filter((d) => d.windows.length > 0).length;
    return { times, scrapes, held, covered, decided: answer.nodes.length, bytes };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

const results = new Map(builds.map((b) => [b.label, { times: [], scrapes: [], seen: new Set() }]));
for (let round = 1; round <= rounds; round++) {
  for (const build of builds) {
    const m = await measure(build);
    const r = results.get(build.label);
    r.times.push(...m.times);
    r.scrapes.push(...m.scrapes);
    r.seen.add(`${m.decided} decided, ${m.covered} covered, ${m.held} held; ${(m.bytes / 1e6).toFixed(2)} MB of JSON`);
    log(`${build.label} round ${round}: /api/windows p50 ${quantile(m.times, 0.5).toFixed(1)} ms, p99 ${quantile(m.times, 0.99).toFixed(1)} ms; ` +
      `/metrics p50 ${quantile(m.scrapes, 0.5).toFixed(1)} ms; ${[...r.seen].join(' | ')}`);
  }
}
console.log(`| build | /api/windows p50 | p99 | longest | /metrics p50 | p99 | what the answers said |`);
console.log('|---|---|---|---|---|---|---|');
for (const [label, r] of results) {
  const f = (xs, q) => `${quantile(xs, q).toFixed(1)} ms`;
  console.log(`| ${label} | ${f(r.times, 0.5)} | ${f(r.times, 0.99)} | ${f(r.times, 1)} | ${f(r.scrapes, 0.5)} | ${f(r.scrapes, 0.99)} | ${[...r.seen].join('; ')} |`);
}
await api.close?.();
process.exit(0);
