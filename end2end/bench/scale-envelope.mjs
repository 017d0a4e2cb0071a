// Kubernetes' whole envelope (issue 13: P4a–P4d, P3) served to the real server from a stand-in API server.
//   node end2end/bench/scale-envelope.mjs [nodes,pods=5000,150000] [rounds=3]
//   DRAINBOARD_BINS="before=/tmp/before/drainboard:/tmp/before/site,after=target/release/drainboard:target/site" …
// etcd on a 2-core machine cannot hold 150,000 pods, so `standin-api.mjs` (started here as a child process) answers
// Drainboard's lists and watches with synthetic nodes, pods, node Leases and PodDisruptionBudgets at that size, and
// sends the watch events the benchmark asks for. Each server build in $DRAINBOARD_BINS (label=BIN:SITE_ROOT, comma
// separated; default release=target/release/drainboard:target/site) runs in turn against the same stand-in:
//   sync      server start → /readyz 200 on --probe-addr (every kind listed), → the event stream's first board
//   P4a       VmRSS and VmHWM of the server (/proc/PID/status) 5 s after its first board, and again after the rounds
// then, per round, in a fresh browser context (Debian's Chromium, headless, playwright-core), with the page's clock:
//   P4b       navigation start → the HTML's last byte (and its size); → hydrated ([data-testid=nodes-page]
//             [data-hydrated=true]); recorded by a MutationObserver installed before any page script
//   P4c       → live with every card: connection-state data-state=live and node-count "Showing N of N nodes";
//             reported as the time after hydration
//   P4d       the stand-in sends 100 node Lease renewals a second for 10 s (each a card update: the card's "lease
//             renewed"), round robin over all N nodes ("spread") and then over the cards on the page ("on page",
//             the first 60); the longest main-thread task in that window (PerformanceObserver 'longtask',
//             buffered, registered before load) and the count of tasks over 50 ms; board events received counted
//   P3        50 Ready flips each way of the first card on the page: the stand-in sends MODIFIED on the nodes watch and
//             says when (Date.now() after the write); a MutationObserver on the card's data-ready stamps Date.now()
//             in the page; both clocks are this machine's. 400–600 ms between flips, so each is a lone change. Also
//             when the board event carrying the card with its new Ready reached the page (Date.now() in the page's
//             EventSource listener): what of P3 is the server's and the stream's, and what is the page's.
//   server CPU  the server's user + system CPU seconds during each P4d stream (/proc/PID/stat)
// Reference in the same run, once per round: `kubectl get nodes` and `kubectl get pods -A` (the pinned kubectl,
// discovery cache warmed before the first round), timed from outside. Every child runs under `nice -n 10`.
// Prints every round and the medians as Markdown tables, and what the server asked the stand-in for.
// The stand-in renews no Lease unless asked (a real cluster renews each every 10 s), so the servers run with
// --node-monitor-grace-period 1h: no heartbeat turns stale during the run. kubectl pages its lists by 500 and holds
// itself to 5 requests a second (client-go's default), so `get pods -A` at 150,000 pods takes about a minute
// whatever the API server does. Knobs: BENCH_FLIPS (50), BENCH_STREAM_RATE (100), BENCH_STREAM_SECONDS (10), CHROMIUM.
import { execFile } from 'node:child_process';
import { child, startStandin } from './children.mjs';
import { authorized, lockedEnv, origin, unlock } from './local-lock.mjs';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { chromium } = createRequire(join(root, 'end2end', 'package.json'))('playwright-core');
const [N, P] = (process.argv[2] ?? '5000,150000').split(',').map(Number);
const rounds = Number(process.argv[3] ?? 3);
const flips = Number(process.env.BENCH_FLIPS ?? 50);
const streamRate = Number(process.env.BENCH_STREAM_RATE ?? 100);
const streamSeconds = Number(process.env.BENCH_STREAM_SECONDS ?? 10);
const builds = (process.env.DRAINBOARD_BINS ?? 'release=target/release/drainboard:target/site').split(',').map((spec) => {
  const [label, rest] = spec.split('=');
  const [bin, site] = rest.split(':');
  return { label, bin: resolve(root, bin), site: resolve(root, site) };
});
const kubectlBin = join(root, '.cache', 'cluster', 'bin', 'kubectl');
const log = (...a) => console.error('scale-envelope:', ...a);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => { const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b); return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN; };
const pct = (xs, p) => { const s = xs.slice().sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]; };
const ms = (x) => (Number.isFinite(x) ? `${x.toFixed(0)} ms` : '–');
// A longest task of 0: none over 50 ms (the longtask entries start there).
const lt = (x) => (x === 0 ? '< 50 ms' : ms(x));
const mib = (kb) => `${(kb / 1024).toFixed(1)} MiB`;


// ---- The stand-in ----------------------------------------------------------------------------------------------
let standinLog = '';
const { standin, apiUrl, kubeconfig, control } =
  await startStandin(['--nodes', String(N), '--pods', String(P)], (d) => { standinLog += d; });
log(`stand-in at ${apiUrl} with ${N} nodes and ${P} pods`);

// ---- kubectl, timed from outside ---------------------------------------------------------------------------------
const kubectlCache = mkdtempSync(join(tmpdir(), 'scale-envelope-kubectl-'));
function timeKubectl(...args) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    execFile('nice', ['-n', '10', kubectlBin, '--kubeconfig', kubeconfig, '--cache-dir', kubectlCache, ...args],
      { maxBuffer: 1 << 30, encoding: 'utf8' }, (err, out, stderr) => {
        if (err) return reject(new Error(`kubectl ${args.join(' ')}: ${err.message} ${stderr}`));
        resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, lines: out.trim().split('\n').length - 1 });
      });
  });
}

// ---- One server build ----------------------------------------------------------------------------------------------
function procStatus(pid) {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1]);
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 1/100 s
}

async function startServer(build) {
  const t0 = Date.now();
  const server = child(build.bin, ['--addr', '127.0.0.1:0', '--probe-addr', '127.0.0.1:0', '--kubeconfig', kubeconfig,
    '--node-monitor-grace-period', '1h'], { env: lockedEnv({ ...process.env, LEPTOS_SITE_ROOT: build.site }) });
  let stderr = '';
  server.stderr.on('data', (d) => { stderr += d; });
  let out = '';
  const urls = await new Promise((resolve, reject) => {
    server.stdout.on('data', (d) => {
      out += d;
      const a = out.match(/serving on (http:\/\/\S+)/);
      const b = out.match(/probes on (http:\/\/\S+)/);
      if (a && b) resolve({ url: origin(a[1]), probes: b[1] });
    });
    server.on('exit', (code) => reject(new Error(`drainboard exited with ${code}:\n${stderr}`)));
  });
  const comm = readFileSync(`/proc/${server.pid}/comm`, 'utf8').trim();
  if (comm !== 'drainboard') throw new Error(`process ${server.pid} is ${comm}, not drainboard`);
  // Synced: every kind listed once (/readyz), then the cards (the event stream's first board).
  for (;;) {
    const res = await fetch(`${urls.probes}/readyz`).catch(() => null);
    if (res?.status === 200) break;
    if (Date.now() - t0 > 900_000) throw new Error('/readyz not 200 after 900 s');
    await sleep(100);
  }
  const readyMs = Date.now() - t0;
  const readyCpu = cpuSeconds(server.pid);
  const events = await fetch(`${urls.url}/api/board/events`, authorized());
  const reader = events.body.getReader();
  let firstBoardBytes = 0;
  for (let text = '', seen = false; !seen;) {
    const { value, done } = await reader.read();
    if (done) throw new Error('the board event stream ended before its first board');
    text += Buffer.from(value).toString();
    firstBoardBytes += value.length;
    // The first board ends with the blank line after its `data:` line.
    const at = text.indexOf('event: board');
    seen = at >= 0 && text.indexOf('\n\n', at) >= 0;
    if (!seen && at < 0) text = text.slice(-20);
  }
  await reader.cancel();
  const boardMs = Date.now() - t0;
  await sleep(5000);
  return { ...urls, server, logs: () => stderr, readyMs, readyCpu, boardMs, firstBoardBytes, synced: procStatus(server.pid) };
}

// Installed before any page script: long tasks, the load's marks, board events received.
function instrument(total) {
  window.__longtasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longtasks.push([e.startTime, e.duration]);
  }).observe({ type: 'longtask', buffered: true });
  const marks = window.__marks = {};
  const all = `Showing ${total} of ${total} nodes`;
  const check = () => {
    const now = performance.now();
    if (marks.hydrated === undefined && document.querySelector('[data-testid="nodes-page"][data-hydrated="true"]')) {
      marks.hydrated = now;
      marks.countAtHydration = document.querySelector('[data-testid="node-count"]')?.textContent.trim();
    }
    if (marks.live === undefined && document.querySelector('[data-testid="connection-state"][data-state="live"]')) marks.live = now;
    if (marks.all === undefined && marks.live !== undefined
      && document.querySelector('[data-testid="node-count"]')?.textContent.trim() === all) marks.all = now;
    return marks.hydrated !== undefined && marks.all !== undefined;
  };
  const observer = new MutationObserver(() => { if (check()) observer.disconnect(); });
  observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  // Board events as the page receives them (the page listens with addEventListener on an EventSource).
  window.__sse = { board: 0, boardBytes: 0, log: [] };
  const add = EventSource.prototype.addEventListener;
  EventSource.prototype.addEventListener = function (type, fn, opts) {
    if (type === 'board' && !this.__counted) {
      this.__counted = true;
      add.call(this, 'board', (e) => {
        window.__sse.board++; window.__sse.boardBytes += e.data.length;
        window.__sse.log.push([performance.now(), e.data.length]);
        // During P3: when the flipped node's card arrives, and with which Ready (read from the card's JSON).
        const name = window.__flipNode;
        if (name && e.data.length < 100_000) {
          const m = new RegExp(`"name":"${name}"[^}]*?"ready":"(\\w+)"`).exec(e.data);
          if (m) window.__arrivals.push({ ready: m[1], at: Date.now() });
        }
      });
    }
    return add.call(this, type, fn, opts);
  };
}

async function streamUpdates(page, nodes, pid) {
  const cpu0 = cpuSeconds(pid);
  const t0 = await page.evaluate(() => performance.now());
  const sse0 = await page.evaluate(() => window.__sse.board);
  await control(`stream?rate=${streamRate}&seconds=${streamSeconds}&kind=lease&nodes=${nodes}`);
  await sleep(streamSeconds * 1000);
  for (let i = 0; (await control('stream', 'GET')).running; i++) { if (i > 100) throw new Error('stream did not end'); await sleep(100); }
  await sleep(500); // the last window's board reaches the page
  const sent = (await control('stream', 'GET')).sent;
  const t1 = await page.evaluate(() => performance.now());
  const { tasks, sse } = await page.evaluate(([a, b]) => ({
    tasks: window.__longtasks.filter(([start, d]) => start + d >= a && start <= b).map(([, d]) => d),
    sse: window.__sse.board,
  }), [t0, t1]);
  return { sent, longest: tasks.length ? Math.max(...tasks) : 0, over50: tasks.length, boards: sse - sse0, serverCpu: cpuSeconds(pid) - cpu0 };
}

async function flipLatency(page) {
  const node = await page.evaluate(() => document.querySelector('[data-testid="node-row"]')?.getAttribute('data-node'));
  if (!node) throw new Error('no card on the page');
  await page.evaluate((name) => {
    window.__flips = [];
    window.__arrivals = [];
    window.__flipNode = name;
    const list = document.querySelector('[data-testid="node-list"]');
    let last = document.querySelector(`[data-testid="node-row"][data-node="${name}"]`)?.getAttribute('data-ready');
    new MutationObserver(() => {
      const now = Date.now();
      const ready = document.querySelector(`[data-testid="node-row"][data-node="${name}"]`)?.getAttribute('data-ready');
      if (ready && ready !== last) { window.__flips.push({ ready, at: now }); last = ready; }
    }).observe(list, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-ready'] });
  }, node);
  const samples = [];
  let seen = 0;
  for (let i = 0; i < flips; i++) {
    for (const [status, label] of [['False', 'NotReady'], ['True', 'Ready']]) {
      const { sentAt } = await control(`flip?node=${node}&ready=${status}`);
      await page.waitForFunction(([n, l]) => window.__flips.length > n && window.__flips.at(-1).ready === l, [seen, label], { timeout: 60_000, polling: 20 });
      const [got, arrivals] = await page.evaluate(() => [window.__flips, window.__arrivals]);
      const dom = got.slice(seen).find((f) => f.ready === label);
      seen = got.length;
      // The first board event after the send that carries the card with its new Ready, if its JSON could be read.
      const arrived = arrivals.find((a) => a.at >= sentAt - 5 && a.ready === label);
      samples.push({ label, ms: dom.at - sentAt, arrived: arrived ? arrived.at - sentAt : NaN });
      await sleep(400 + Math.random() * 200);
    }
  }
  return { node, samples };
}

async function round(browser, url, pid) {
  const context = await browser.newContext();
  await unlock(context, url);
  await context.addInitScript(instrument, N);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text()); });
  page.on('response', (r) => { if (r.status() >= 400) errors.push(`${r.status()} ${new URL(r.url()).pathname}`); });
  await page.goto(url, { waitUntil: 'commit', timeout: 300_000 });
  await page.waitForFunction(() => window.__marks.hydrated !== undefined && window.__marks.all !== undefined, null, { timeout: 300_000, polling: 100 });
  const marks = await page.evaluate(() => window.__marks);
  const expected = new RegExp(`^Showing (${Math.min(N, 60)}|${N}) of ${N} nodes$`);
  if (!expected.test(marks.countAtHydration)) throw new Error(`node-count said "${marks.countAtHydration}" at hydration, expected ${expected}`);
  const nav = await page.evaluate(() => {
    const n = performance.getEntriesByType('navigation')[0];
    return { responseStart: n.responseStart, responseEnd: n.responseEnd, htmlBytes: n.decodedBodySize, htmlWire: n.encodedBodySize };
  });
  const load = await page.evaluate((end) => ({
    longest: Math.max(0, ...window.__longtasks.filter(([s]) => s <= end).map(([, d]) => d)),
    firstBoardBytes: window.__sse.log[0]?.[1] ?? 0,
  }), marks.all);
  await sleep(1000);
  const spread = await streamUpdates(page, 'all', pid);
  await sleep(1000);
  const shown = await page.evaluate(() => [...document.querySelectorAll('[data-testid="node-row"]')].map((e) => e.getAttribute('data-node')));
  const onPage = await streamUpdates(page, `names:${shown.join(',')}`, pid);
  await sleep(1000);
  const flip = await flipLatency(page);
  await context.close();
  return {
    html: nav.responseEnd, htmlBytes: nav.htmlBytes, htmlWire: nav.htmlWire, ttfb: nav.responseStart,
    hydrated: marks.hydrated, live: marks.live, all: marks.all, afterHydration: marks.all - marks.hydrated,
    loadLongest: load.longest, firstBoardBytes: load.firstBoardBytes, spread, onPage, flip, errors,
  };
}

// ---- Run --------------------------------------------------------------------------------------------------------
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
const results = [];
try {
  const warm = await timeKubectl('get', 'nodes'); // fills the discovery cache
  log(`kubectl warm-up: ${warm.lines} nodes in ${warm.ms.toFixed(0)} ms`);
  for (const build of builds) {
    log(`${build.label}: starting ${build.bin} (site ${build.site})`);
    const s = await startServer(build);
    log(`${build.label}: /readyz after ${(s.readyMs / 1000).toFixed(1)} s (${s.readyCpu.toFixed(1)} s CPU), first board after ` +
      `${(s.boardMs / 1000).toFixed(1)} s (${(s.firstBoardBytes / 1e6).toFixed(1)} MB on the stream); RSS ${mib(s.synced.rss)}, HWM ${mib(s.synced.hwm)}`);
    const rows = [];
    try {
      for (let r = 1; r <= rounds; r++) {
        const kn = await timeKubectl('get', 'nodes');
        const kp = await timeKubectl('get', 'pods', '-A');
        if (kn.lines !== N || kp.lines !== P) throw new Error(`kubectl listed ${kn.lines} nodes and ${kp.lines} pods, expected ${N} and ${P}`);
        const p = await round(browser, s.url, s.server.pid);
        const f = p.flip.samples.map((x) => x.ms);
        const a = p.flip.samples.map((x) => x.arrived).filter(Number.isFinite);
        const row = { ...p, p3: { p50: pct(f, 50), p99: pct(f, 99), max: Math.max(...f), n: f.length, arrivedP50: a.length ? pct(a, 50) : NaN, arrivedP99: a.length ? pct(a, 99) : NaN }, kubectlNodes: kn.ms, kubectlPods: kp.ms };
        rows.push(row);
        console.log(`${build.label}, round ${r}: html ${ms(p.html)} (${(p.htmlBytes / 1e6).toFixed(2)} MB), hydrated ${ms(p.hydrated)}, ` +
          `live ${ms(p.live)}, every card ${ms(p.all)} (${ms(p.afterHydration)} after hydration, first board ${(p.firstBoardBytes / 1e6).toFixed(1)} MB), ` +
          `longest task in load ${ms(p.loadLongest)}; P4d spread: ${p.spread.sent} renewals, ${p.spread.boards} board events, longest ${lt(p.spread.longest)}, ${p.spread.over50} > 50 ms, server CPU ${p.spread.serverCpu.toFixed(1)} s; ` +
          `on page: ${p.onPage.sent} renewals, ${p.onPage.boards} board events, longest ${lt(p.onPage.longest)}, ${p.onPage.over50} > 50 ms, server CPU ${p.onPage.serverCpu.toFixed(1)} s; ` +
          `P3 (${p.flip.node}, ${f.length} flips) p50 ${ms(row.p3.p50)} p99 ${ms(row.p3.p99)} max ${ms(row.p3.max)}, the card's board event in the page p50 ${ms(row.p3.arrivedP50)} p99 ${ms(row.p3.arrivedP99)} (${a.length} read); ` +
          `kubectl get nodes ${ms(kn.ms)}, get pods -A ${ms(kp.ms)}` + (p.errors.length ? `; page errors: ${p.errors.slice(0, 3).join(' | ')}` : ''));
      }
    } finally {
      const after = s.server.exitCode === null ? procStatus(s.server.pid) : null;
      const lines = s.logs().split('\n');
      const warnings = lines.filter((l) => /WARN|ERROR|panick/.test(l));
      if (warnings.length) log(`${build.label}: server log: ${warnings.length} warnings/errors, first: ${warnings[0]}, last: ${warnings.at(-1)}`);
      results.push({ build, s, rows, after, warnings: warnings.length });
      await s.server.stop();
    }
  }
} finally {
  await browser.close();
}

const requests = await control('requests', 'GET');
const stats = await control('stats', 'GET');
await standin.stop();

const m = (rows, f) => median(rows.map(f));
console.log(`\n${N} nodes, ${P} pods (stand-in API), ${rounds} rounds; medians:\n`);
console.log('| build | RSS synced | HWM | RSS after rounds | /readyz | first board | HTML response | HTML size | hydrated | every card | after hydration | longest task, load | P4d longest (spread) | > 50 ms | P4d longest (on page) | > 50 ms | P3 p50 | P3 p99 | P3 max | P3: board event in the page, p50 / p99 | `kubectl get nodes` | `kubectl get pods -A` |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const { build, s, rows, after } of results) {
  const flips = rows.flatMap((r) => r.flip.samples.map((x) => x.ms));
  const arrivals = rows.flatMap((r) => r.flip.samples.map((x) => x.arrived)).filter(Number.isFinite);
  console.log(`| ${build.label} | ${mib(s.synced.rss)} | ${mib(s.synced.hwm)} | ${after ? mib(after.rss) : '–'} | ${(s.readyMs / 1000).toFixed(1)} s | ${(s.boardMs / 1000).toFixed(1)} s | ` +
    `${ms(m(rows, (r) => r.html))} | ${(m(rows, (r) => r.htmlBytes) / 1e6).toFixed(2)} MB | ${ms(m(rows, (r) => r.hydrated))} | ${ms(m(rows, (r) => r.all))} | ` +
    `${ms(m(rows, (r) => r.afterHydration))} | ${ms(m(rows, (r) => r.loadLongest))} | ${lt(m(rows, (r) => r.spread.longest))} | ${m(rows, (r) => r.spread.over50)} | ` +
    `${lt(m(rows, (r) => r.onPage.longest))} | ${m(rows, (r) => r.onPage.over50)} | ` +
    `${flips.length ? ms(pct(flips, 50)) : '–'} | ${flips.length ? ms(pct(flips, 99)) : '–'} | ${flips.length ? ms(Math.max(...flips)) : '–'} | ` +
    `${arrivals.length ? `${ms(pct(arrivals, 50))} / ${ms(pct(arrivals, 99))}` : '–'} | ` +
    `${ms(m(rows, (r) => r.kubectlNodes))} | ${ms(m(rows, (r) => r.kubectlPods))} |`);
}
console.log('\nP3 is over every flip of every round (p99 of all samples). Per round:\n');
console.log('| build | round | HTML response | HTML size | hydrated | every card | after hydration | longest task, load | P4d spread: longest / > 50 ms / board events / server CPU | P4d on page: longest / > 50 ms / board events / server CPU | P3 p50 / p99 / max (flips) | P3: board event in the page, p50 / p99 | `kubectl get nodes` | `kubectl get pods -A` |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const { build, rows } of results) {
  rows.forEach((r, k) => console.log(`| ${build.label} | ${k + 1} | ${ms(r.html)} | ${(r.htmlBytes / 1e6).toFixed(2)} MB | ${ms(r.hydrated)} | ${ms(r.all)} | ` +
    `${ms(r.afterHydration)} | ${ms(r.loadLongest)} | ${lt(r.spread.longest)} / ${r.spread.over50} / ${r.spread.boards} / ${r.spread.serverCpu.toFixed(1)} s | ` +
    `${lt(r.onPage.longest)} / ${r.onPage.over50} / ${r.onPage.boards} / ${r.onPage.serverCpu.toFixed(1)} s | ${ms(r.p3.p50)} / ${ms(r.p3.p99)} / ${ms(r.p3.max)} (${r.p3.n}) | ` +
    `${ms(r.p3.arrivedP50)} / ${ms(r.p3.arrivedP99)} | ` +
    `${ms(r.kubectlNodes)} | ${ms(r.kubectlPods)} |`));
}
console.log('\nWhat the servers and kubectl asked the stand-in for (all builds together):\n');
console.log('| request | count |');
console.log('|---|---|');
for (const [k, v] of Object.entries(requests)) console.log(`| \`${k}\` | ${v} |`);
console.log(`\nstand-in: ${(stats.listBytes / 1e6).toFixed(0)} MB of lists and ${stats.eventsSent} watch events sent, ${stats.unknown} requests it had no answer for, its RSS ${(stats.rss / 1048576).toFixed(0)} MiB`);
process.exit(0);
