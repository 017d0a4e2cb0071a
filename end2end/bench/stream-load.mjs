// Board streams under load: 1,000 open board streams against 10, with a node changing state every second, then the
// same with drains running, each phase on a fresh server against one stand-in API (standin-api.mjs).
//   node end2end/bench/stream-load.mjs [--streams 10,1000] [--people 50] [--seconds 30] [--drains 10]
//                                      [--nodes 200] [--pods 2000]
//   DRAINBOARD_BIN=target/release/drainboard … (default target/debug/drainboard); no site root is needed.
// Phases, in this order, in one run: every count of --streams with no drain, then every count with --drains drains
// running. Per phase:
//   - a fresh server in local mode (one operator: every stream is the same person), started with --max-streams and
//     --max-streams-per-person raised to fit, its URL's secret sent as a bearer token;
//   - the streams (GET /api/board/events, one connection each) spread round robin over --people source addresses
//     127.0.0.2, 127.0.0.3, … (a person's browser each; at most 20 streams an address for 1,000 streams, under the
//     per-address connection cap), opened 50 at a time; each must deliver its first (full) board;
//   - with drains: POST /api/drains/start for --drains nodes not drained before (ignore_daemonsets); the stand-in
//     removes each evicted pod a random 0 to 3 × --seconds seconds later, so the drains run through the window;
//   - every second for --seconds seconds, node-1's Ready flips (False, True, …): the stand-in writes MODIFIED to the
//     nodes watches and answers when it did (Date.now(), this machine's clock);
//   - each flip is numbered in node-1's Ready message ("(flip N)"), which the card carries; every stream notes when
//     (Date.now() at the chunk's arrival) the board event carrying each number reaches it. Delivery = that minus the
//     stand-in's time; each flip a stream was sent is one sample of that stream.
// A stream is lost if it ends or fails (opening included) before the phase closes it, or never gets the last flip;
// a flip it was not sent because a later one's state came first is counted as coalesced. The server's VmRSS is read
// from /proc/PID/status every second (the phase's peak and its VmHWM are reported). The figures are end to end,
// including this process reading every stream: at 1,000 streams one event is 1,000 chunks to read here, on the same
// 2 cores as the server. Prints a Markdown table, and writes every stream's p50 and p99 to a JSON file.
import http from 'node:http';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { child, startStandin, waitForLine } from './children.mjs';
import { authorized, localToken, lockedEnv, origin } from './local-lock.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : fallback;
};
const counts = String(option('streams', '10,1000')).split(',').map(Number);
const people = Number(option('people', 50));
const seconds = Number(option('seconds', 30));
const drainCount = Number(option('drains', 10));
const N = Number(option('nodes', 200));
const P = Number(option('pods', 2000));
const bin = resolve(root, process.env.DRAINBOARD_BIN ?? 'target/debug/drainboard');
const log = (...a) => console.error('stream-load:', ...a);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const FLIPPED = 'node-1';

// Each stream holds a socket here and one in the server.
const limit = Number(/^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1] ?? 0);
const most = Math.max(...counts) + drainCount + 100;
if (limit && limit < most) throw new Error(`open files limit ${limit} < ${most}: raise it (ulimit -n ${2 * most})`);

const { standin, apiUrl, kubeconfig, control } =
  await startStandin(['--nodes', String(N), '--pods', String(P), '--delete-after', String(3 * seconds)]);

function rssOf(pid) {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1]);
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

async function startServer(streams) {
  const server = child(bin, ['--addr', '127.0.0.1:0', '--kubeconfig', kubeconfig, '--node-monitor-grace-period', '1h',
    '--max-streams', String(streams + 100), '--max-streams-per-person', String(streams + 100)], { env: lockedEnv() });
  let stderr = '';
  server.stderr.on('data', (d) => { stderr += d; });
  const url = origin((await waitForLine(server, /serving on (http:\/\/\S+)/, 'drainboard'))[1]);
  return { server, url, logs: () => stderr };
}

/** One board stream from `address`: the numbered flips of node-1 it was sent, each with its arrival time. */
function openStream(url, address) {
  const { hostname, port } = new URL(url);
  const s = { seen: new Map(), ended: null, first: null, closing: false };
  s.opened = new Promise((resolveFirst, rejectFirst) => {
    const req = http.get({ host: hostname, port, path: '/api/board/events', localAddress: address, agent: false,
      headers: { authorization: `Bearer ${localToken}`, accept: 'text/event-stream', 'accept-encoding': 'identity' } });
    s.close = () => { s.closing = true; req.destroy(); };
    req.on('error', (e) => { if (!s.closing) { s.ended ??= `error: ${e.message}`; rejectFirst(e); } });
    req.on('response', (res) => {
      if (res.statusCode !== 200) { s.ended = `status ${res.statusCode}`; rejectFirst(new Error(s.ended)); res.resume(); return; }
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (chunk) => {
        const at = Date.now();
        buffer += chunk;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (!event.startsWith('event: board')) continue;
          if (s.first === null) { s.first = at; resolveFirst(); continue; }
          // Only node-1's Ready message is numbered: the first number after its name is its flip.
          const m = /"name":"node-1",[^]*?\(flip (\d+)\)/.exec(event);
          if (m && !s.seen.has(Number(m[1]))) s.seen.set(Number(m[1]), at);
        }
      });
      res.on('end', () => { if (!s.closing) s.ended ??= 'ended'; });
      res.on('error', (e) => { if (!s.closing) s.ended ??= `error: ${e.message}`; });
    });
  });
  return s;
}

const pct = (xs, p) => { const v = xs.slice().sort((a, b) => a - b); return v[Math.min(v.length - 1, Math.ceil(p * v.length) - 1)]; };
const median = (xs) => pct(xs, 0.5);

let nextDrainNode = 11; // node-1 flips; the drains take node-11 on, ten new nodes a phase
async function phase(streams, drains) {
  // Every phase starts from node-1 Ready, so that its first flip (to False) is a change.
  await control(`flip?node=${FLIPPED}&ready=True`);
  const { server, url, logs } = await startServer(streams);
  const pid = server.pid;
  const t0 = Date.now();
  const all = [];
  for (let k = 0; k < streams; k += 50) {
    const batch = [];
    for (let j = k; j < Math.min(streams, k + 50); j++) batch.push(openStream(url, `127.0.0.${2 + (j % people)}`));
    // A stream that fails to open is counted lost (its `ended` says how), not the end of the run.
    await Promise.allSettled(batch.map((s) => s.opened));
    all.push(...batch);
  }
  log(`${streams} streams open, first boards in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const started = [];
  for (let d = 0; d < drains; d++) {
    const node = `node-${nextDrainNode++}`;
    const res = await fetch(`${url}/api/drains/start`, authorized({ method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ node, options: { ignore_daemonsets: true }, reason: 'stream load benchmark' }) }));
    if (!res.ok) throw new Error(`drains/start ${node}: ${res.status} ${await res.text()}`);
    started.push({ node, id: (await res.json()).id });
  }
  await sleep(2000);
  const before = rssOf(pid);
  let peak = before.rss;
  const flips = [];
  const w0 = Date.now();
  for (let k = 1; k <= seconds; k++) {
    const ready = k % 2 ? 'False' : 'True';
    const { sentAt } = await control(`flip?node=${FLIPPED}&ready=${ready}&seq=${k}`);
    flips.push({ sentAt, seq: k });
    peak = Math.max(peak, rssOf(pid).rss);
    await sleep(Math.max(0, w0 + k * 1000 - Date.now()));
  }
  await sleep(3000);
  const after = rssOf(pid);
  peak = Math.max(peak, after.rss);
  // The drains' states at the end of the window: still running, as meant.
  const states = [];
  for (const d of started) {
    const res = await fetch(`${url}/api/drains/status`, authorized({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: d.id }) }));
    const body = await res.json().catch(() => ({}));
    states.push(typeof body.state === 'string' ? body.state : JSON.stringify(body.state ?? res.status));
  }
  // Each flip against the arrival of the event that carried its number. A flip whose number never came, while a
  // later one did, was coalesced: the stream was sent the newer state instead (it sends the cards as they are when
  // it is ready for its next event). A stream is lost if it ended or failed, or never got the last flip.
  const perStream = all.map((s) => {
    const samples = [];
    let coalesced = 0;
    for (const f of flips) {
      const at = s.seen.get(f.seq);
      if (at !== undefined) samples.push(at - f.sentAt);
      else coalesced++;
    }
    const last = flips.at(-1)?.seq;
    const lost = s.ended ?? (last !== undefined && !s.seen.has(last) ? 'never got the last flip' : null);
    return { samples, coalesced, lost };
  });
  for (const s of all) s.close();
  await server.stop();
  const warnings = logs().split('\n').filter((l) => /WARN|ERROR/.test(l) && !/audit Event/.test(l));
  if (warnings.length) log(`server log: ${warnings.length} warnings, last: ${warnings.at(-1)}`);
  const ok = perStream.filter((s) => s.samples.length);
  const p50s = ok.map((s) => pct(s.samples, 0.5));
  const p99s = ok.map((s) => pct(s.samples, 0.99));
  const pooled = ok.flatMap((s) => s.samples);
  const row = {
    streams, drains, flips: flips.length, samples: pooled.length,
    lost: perStream.filter((s) => s.lost).length, lostWhy: [...new Set(perStream.map((s) => s.lost).filter(Boolean))].slice(0, 3),
    coalesced: perStream.reduce((n, s) => n + s.coalesced, 0),
    p50: { min: Math.min(...p50s), median: median(p50s), max: Math.max(...p50s) },
    p99: { min: Math.min(...p99s), median: median(p99s), max: Math.max(...p99s) },
    pooled: { p50: pct(pooled, 0.5), p99: pct(pooled, 0.99), max: Math.max(...pooled) },
    rss: { before: before.rss, peak, hwm: after.hwm }, drainStates: states,
    perStream: perStream.map((s, i) => ({ stream: i, address: `127.0.0.${2 + (i % people)}`, p50: s.samples.length ? pct(s.samples, 0.5) : null, p99: s.samples.length ? pct(s.samples, 0.99) : null, lost: s.lost })),
  };
  const { perStream: _, ...brief } = row;
  log(JSON.stringify(brief));
  return row;
}

const rows = [];
try {
  for (const drains of drainCount > 0 ? [0, drainCount] : [0]) {
    for (const streams of counts) rows.push(await phase(streams, drains));
  }
} finally {
  await standin.stop();
}
const out = join(mkdtempSync(join(tmpdir(), 'stream-load-')), 'streams.json');
writeFileSync(out, JSON.stringify(rows, null, 1));
const ms = (x) => `${Math.round(x)} ms`;
const mib = (kb) => `${(kb / 1024).toFixed(1)} MiB`;
console.log(`\n${N} nodes, ${P} pods; node-1's Ready flipped every second for ${seconds} s; ${people} source addresses; server ${bin}\n`);
console.log('| streams | drains running | every stream\'s p50: min / median / max | every stream\'s p99: min / median / max | all samples p50 / p99 / max | flips coalesced into a later event | streams lost | server VmRSS (settled → peak) | VmHWM |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(`| ${r.streams} | ${r.drains} | ${ms(r.p50.min)} / ${ms(r.p50.median)} / ${ms(r.p50.max)} | ${ms(r.p99.min)} / ${ms(r.p99.median)} / ${ms(r.p99.max)} | ` +
    `${ms(r.pooled.p50)} / ${ms(r.pooled.p99)} / ${ms(r.pooled.max)} | ${r.coalesced} of ${r.flips * r.streams} | ${r.lost} of ${r.streams}${r.lost ? ` (${r.lostWhy.join('; ')})` : ''} | ` +
    `${mib(r.rss.before)} → ${mib(r.rss.peak)} | ${mib(r.rss.hwm)} |`);
}
for (const r of rows) if (r.drains) console.log(`drains at the end of the ${r.streams}-stream window: ${r.drainStates.join(', ')}`);
console.log(`every stream's p50 and p99: ${out}`);
process.exit(rows.some((r) => r.lost) ? 1 : 0);
