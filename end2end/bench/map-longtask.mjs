// The fleet map at Kubernetes' scale: the longest main-thread task while the map updates, side by side with the
// board's cards (the page of the scale issue's P4d) in the same run.
//   node end2end/bench/map-longtask.mjs [nodes,pods=5000,150000] [rounds=2]
//   DRAINBOARD_BIN=target/release/drainboard LEPTOS_SITE_ROOT=target/site-release …
// The real server reads from the stand-in API server (`standin-api.mjs`). Per round and page (the cards at `/`, the
// map at `/?view=map`, the wall at `/wall`), in a fresh 1920×1080 Chromium page with a PerformanceObserver for
// long tasks registered before load, once every cell (or card count) is in:
//   heartbeats  100 node Lease renewals a second for 10 s, round robin over every node: every card changes, no
//               cell's state does
//   flips       100 Ready flips a second for 10 s (each node False, then True again), spread over the fleet:
//               the cells' states change
// and reports the longest task and the tasks over 50 ms in each window, and the page's scrollHeight.
import { child, startStandin, waitForLine } from './children.mjs';
import { authorized, lockedEnv, origin, unlock } from './local-lock.mjs';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { chromium } = createRequire(join(root, 'end2end', 'package.json'))('playwright-core');
const [N, P] = (process.argv[2] ?? '5000,150000').split(',').map(Number);
const rounds = Number(process.argv[3] ?? 2);
const bin = resolve(root, process.env.DRAINBOARD_BIN ?? 'target/release/drainboard');
const site = resolve(root, process.env.LEPTOS_SITE_ROOT ?? 'target/site-release');
const log = (...a) => console.error('map-longtask:', ...a);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));


const { standin, apiUrl, kubeconfig, control } = await startStandin(['--nodes', String(N), '--pods', String(P)]);

const server = child(bin, ['--addr', '127.0.0.1:0', '--kubeconfig', kubeconfig, '--node-monitor-grace-period', '1h'],
  { env: lockedEnv({ ...process.env, LEPTOS_SITE_ROOT: site }) });
let serverLog = '';
server.stderr.on('data', (d) => { serverLog += d; });
const url = origin((await waitForLine(server, /serving on (http:\/\/\S+)/, 'drainboard'))[1]);
log(`server at ${url}; waiting for its first board`);
for (;;) {
  const res = await fetch(`${url}/api/board`, authorized({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'first=1' }));
  if (res.ok) break;
  await sleep(500);
}

function instrument() {
  window.__longtasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longtasks.push([e.startTime, e.duration]);
  }).observe({ type: 'longtask', buffered: true });
}

const pages = [
  { label: 'cards (`/`)', path: '/', ready: `[data-testid="node-count"]`, readyText: `Showing 60 of ${N} nodes` },
  { label: 'fleet map (`/?view=map`)', path: '/?view=map', cells: N },
  { label: 'wall (`/wall`)', path: '/wall', cells: N },
];

async function flips(seconds, rate) {
  const t0 = Date.now();
  let i = 0;
  while (Date.now() - t0 < seconds * 1000) {
    const node = `node-${((i * 7919) % N) + 1}`;
    await control(`flip?node=${node}&ready=False`);
    setTimeout(() => control(`flip?node=${node}&ready=True`).catch(() => {}), 500);
    i++;
    await sleep(1000 / rate);
  }
  await sleep(1000);
}

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
const rows = [];
for (let round = 1; round <= rounds; round++) {
  for (const p of pages) {
    const context = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
    await unlock(context, url);
    const page = await context.newPage();
    await page.addInitScript(instrument);
    await page.goto(`${url}${p.path}`);
    await page.waitForFunction((want) => {
      if (want.cells) return document.querySelectorAll('[data-testid="map-cell"]').length === want.cells;
      return document.querySelector(want.ready)?.textContent.trim() === want.readyText;
    }, p, { timeout: 300_000, polling: 500 });
    await sleep(3000);
    const row = { round, page: p.label };
    for (const [kind, run] of [
      ['heartbeats', async () => { await control('stream?rate=100&seconds=10&kind=lease&nodes=all'); await sleep(11_000); }],
      ['flips', () => flips(10, 100)],
    ]) {
      const from = await page.evaluate(() => performance.now());
      await run();
      const tasks = await page.evaluate((t) => window.__longtasks.filter(([s]) => s >= t).map(([, d]) => d), from);
      row[kind] = { longest: tasks.length ? Math.max(...tasks) : 0, over50: tasks.length };
    }
    row.height = await page.evaluate(() => document.documentElement.scrollHeight);
    log(JSON.stringify(row));
    rows.push(row);
    await context.close();
  }
}
await browser.close();
const fmt = (x) => (x === 0 ? '< 50 ms' : `${x.toFixed(0)} ms`);
console.log(`\n${N} nodes, ${P} pods; the longest main-thread task (and tasks over 50 ms) in each 10 s window\n`);
console.log('| round | page | 100 Lease renewals/s | 100 Ready flips/s | scrollHeight |');
console.log('|---|---|---|---|---|');
for (const r of rows) {
  console.log(`| ${r.round} | ${r.page} | ${fmt(r.heartbeats.longest)} (${r.heartbeats.over50}) | ${fmt(r.flips.longest)} (${r.flips.over50}) | ${r.height} px |`);
}
server.kill('SIGTERM');
standin.kill('SIGTERM');
process.exit(0);
