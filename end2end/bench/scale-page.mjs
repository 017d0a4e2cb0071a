// Page responsiveness at 1,000 and 5,000 nodes: load to hydration, one keystroke in the filter, the page's memory.
//   node end2end/bench/scale-page.mjs [sizes=1000,5000] [rounds=5]
// Uses the cluster in $DRAINBOARD_CLUSTER_DIR if set (it is grown to each size and left running), or starts one of
// its own with `cluster.sh up --grace-seconds 300` and stops it at the end. The server is $DRAINBOARD_BIN
// (default target/debug/drainboard) with $LEPTOS_SITE_ROOT (default target/site), one process per size, started
// once the cluster has that many nodes. Every child process runs under `nice -n 10`.
//
// Each round opens a fresh browser context (so no HTTP cache) in Debian's Chromium, navigates to the board and
// measures, with the page's own clock:
//   hydrated  navigation start → [data-testid=nodes-page][data-hydrated=true] with node-count "Showing K of N" (the
//             page's first render carries the first 60 cards only, so K is min(N, 60) before the stream's board)
//   live      navigation start → the event stream's first board (connection-state data-state=live)
//   keystroke one "7" typed in the name filter: keydown → node-count text changed (DOM), and → the next frame
//   heap      CDP Performance.getMetrics JSHeapUsedSize after the keystroke, and the wasm linear memory's size
// The reference, at the same size in the same run, is `kubectl get nodes` (the pinned kubectl), timed from the
// outside, one run per round. Prints every round and the medians as a Markdown table.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { authorized, lockedEnv, origin, unlock } from './local-lock.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { chromium } = createRequire(join(root, 'end2end', 'package.json'))('playwright-core');
const sizes = (process.argv[2] ?? '1000,5000').split(',').map(Number);
const rounds = Number(process.argv[3] ?? 5);
const serverBin = process.env.DRAINBOARD_BIN ?? join(root, 'target', 'debug', 'drainboard');
const siteRoot = process.env.LEPTOS_SITE_ROOT ?? join(root, 'target', 'site');
const clusterSh = join(root, 'end2end', 'cluster', 'cluster.sh');
const log = (...a) => console.error('scale-page:', ...a);
const nice = (cmd, args, opts = {}) => execFileSync('nice', ['-n', '10', cmd, ...args], { encoding: 'utf8', ...opts });

let dir = process.env.DRAINBOARD_CLUSTER_DIR;
const ownCluster = !dir;
if (ownCluster) {
  dir = nice(clusterSh, ['up', '--nodes', '4', '--zones', '4', '--grace-seconds', '300', '--toleration-seconds', '300'],
    { stdio: ['ignore', 'pipe', 'inherit'] }).trim();
}
const env = Object.fromEntries(readFileSync(join(dir, 'cluster.env'), 'utf8').trim().split('\n').map((l) => {
  const i = l.indexOf('='); return [l.slice(0, i), l.slice(i + 1)];
}));
const kubeconfig = env.KUBECONFIG;
const kubectlBin = join(env.DRAINBOARD_CLUSTER_BIN, 'kubectl');
const kubectl = (...args) => nice(kubectlBin, ['--kubeconfig', kubeconfig, ...args], { maxBuffer: 1 << 30 });

const median = (xs) => { const s = xs.slice().sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)]; };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Servers still running when this process exits (after an error) are stopped with it.
const children = new Set();
process.on('exit', () => { for (const c of children) c.kill('SIGTERM'); });

async function startServer() {
  const child = spawn('nice', ['-n', '10', serverBin, '--addr', '127.0.0.1:0', '--kubeconfig', kubeconfig,
    '--node-monitor-grace-period', '300s'], {
    cwd: root, env: lockedEnv({ ...process.env, LEPTOS_SITE_ROOT: siteRoot }), stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => { out += d; const m = out.match(/serving on (http:\/\/\S+)/); if (m) resolve(origin(m[1])); });
    child.on('exit', (code) => reject(new Error(`drainboard exited with ${code}:\n${stderr}`)));
  });
  // Ready = the event stream's first board (the cache has listed everything and computed the cards). Not by
  // polling POST /api/board meanwhile: a request that waits for the first list alongside the cache's own card task
  // takes that task's wake-up, and the live board then never starts (see BENCHMARKS.md).
  const events = await fetch(`${url}/api/board/events`, authorized());
  const reader = events.body.getReader();
  for (let tail = '', seen = false; !seen;) {
    const { value, done } = await reader.read();
    if (done) throw new Error('the board event stream ended before its first board');
    const text = tail + Buffer.from(value).toString();
    seen = /^event: board/m.test(text);
    tail = text.slice(-20);
  }
  await reader.cancel();
  const res = await fetch(`${url}/api/board`, authorized({ method: 'POST' }));
  if (res.status !== 200) throw new Error(`POST /api/board: ${res.status} ${await res.text()}`);
  await res.arrayBuffer();
  const stop = () => new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
  return { url, stop, logs: () => stderr };
}

// Installed before any page script: keeps the wasm module's memory, and timestamps keydown and node-count changes.
function instrument() {
  for (const name of ['instantiateStreaming', 'instantiate']) {
    const orig = WebAssembly[name];
    WebAssembly[name] = async function (...args) {
      const result = await orig.apply(this, args);
      const exports = (result.instance ?? result).exports;
      if (exports?.memory) window.__wasmMemory = exports.memory;
      return result;
    };
  }
  window.__bench = { keydown: null, changed: null, frame: null };
  document.addEventListener('keydown', (e) => { window.__bench.keydown = e.timeStamp; }, { capture: true });
}

async function round(browser, url, total) {
  const context = await browser.newContext();
  await unlock(context, url);
  await context.addInitScript(instrument);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text()); });
  page.on('response', (r) => { if (r.status() >= 400) errors.push(`${r.status()} ${new URL(r.url()).pathname}`); });
  const expected = new RegExp(`^Showing (${Math.min(total, 60)}|${total}) of ${total} nodes$`);
  await page.goto(url, { waitUntil: 'commit', timeout: 300_000 });
  await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor({ timeout: 300_000 });
  const hydratedAt = await page.evaluate(() => performance.now());
  const countText = (await page.locator('[data-testid="node-count"]').textContent()).trim();
  if (!expected.test(countText)) throw new Error(`node-count says "${countText}", expected ${expected}`);
  let liveAt = NaN;
  try {
    await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 120_000 });
    liveAt = await page.evaluate(() => performance.now());
  } catch { errors.push('the board did not go live within 120 s'); }
  const nav = await page.evaluate(() => {
    const n = performance.getEntriesByType('navigation')[0];
    return { responseEnd: n.responseEnd, htmlBytes: n.decodedBodySize, domContentLoaded: n.domContentLoadedEventEnd };
  });
  await sleep(1000); // let the first stream update settle before typing

  await page.evaluate(() => {
    const count = document.querySelector('[data-testid="node-count"]');
    const before = count.textContent;
    new MutationObserver((_, obs) => {
      if (count.textContent === before) return;
      window.__bench.changed = performance.now();
      requestAnimationFrame(() => setTimeout(() => { window.__bench.frame = performance.now(); }, 0));
      obs.disconnect();
    }).observe(count, { subtree: true, childList: true, characterData: true });
  });
  await page.locator('[data-testid="node-filter"]').focus();
  await page.keyboard.type('7');
  await page.waitForFunction(() => window.__bench.frame !== null, null, { timeout: 120_000 });
  const key = await page.evaluate(() => ({ ...window.__bench, text: document.querySelector('[data-testid="node-count"]').textContent }));
  const metrics = Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  const wasm = await page.evaluate(() => window.__wasmMemory?.buffer.byteLength ?? null);
  await context.close();
  return {
    hydrated: hydratedAt, live: liveAt, htmlMs: nav.responseEnd, htmlBytes: nav.htmlBytes, dcl: nav.domContentLoaded,
    keyDom: key.changed - key.keydown, keyFrame: key.frame - key.keydown, filtered: key.text.trim(),
    heap: metrics.JSHeapUsedSize, heapTotal: metrics.JSHeapTotalSize, nodesInDom: metrics.Nodes, wasm, errors,
  };
}

function timeKubectl() {
  const t0 = process.hrtime.bigint();
  const out = kubectl('get', 'nodes');
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, lines: out.trim().split('\n').length - 1 };
}

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
const summary = [];
try {
  for (const size of sizes) {
    log(`growing the cluster to ${size} nodes`);
    nice('python3', [join(root, 'end2end', 'bench', 'populate.py'), dir, 'nodes', '--to', String(size), '--zones', '4'],
      { stdio: ['ignore', 'inherit', 'inherit'] });
    // One list per second until every node is Ready (`kubectl wait --all` makes one throttled request per node).
    let total = 0;
    for (let i = 0; ; i++) {
      const ready = kubectl('get', 'nodes', '-o', 'jsonpath={range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}')
        .trim().split('\n');
      total = ready.length;
      if (total >= size && ready.every((r) => r === 'True')) break;
      if (i > 600) throw new Error(`nodes not Ready after 600 s`);
      await sleep(1000);
    }
    const t0 = Date.now();
    const server = await startServer();
    log(`${total} nodes; server cache ready ${((Date.now() - t0) / 1000).toFixed(1)} s after start`);
    const rows = [];
    try {
      for (let r = 1; r <= rounds; r++) {
        const k = timeKubectl();
        if (k.lines !== total) throw new Error(`kubectl listed ${k.lines} nodes, expected ${total}`);
        const p = await round(browser, server.url, total);
        rows.push({ ...p, kubectl: k.ms });
        console.log(`${total} nodes, round ${r}: html ${p.htmlMs.toFixed(0)} ms (${(p.htmlBytes / 1e6).toFixed(2)} MB), ` +
          `hydrated ${p.hydrated.toFixed(0)} ms, live ${p.live.toFixed(0)} ms, keystroke DOM ${p.keyDom.toFixed(0)} ms / ` +
          `frame ${p.keyFrame.toFixed(0)} ms ("${p.filtered}"), JS heap ${(p.heap / 1e6).toFixed(1)} MB, ` +
          `wasm memory ${p.wasm === null ? '?' : (p.wasm / 1e6).toFixed(1) + ' MB'}, DOM nodes ${p.nodesInDom}; ` +
          `kubectl get nodes ${k.ms.toFixed(0)} ms` + (p.errors.length ? `; page errors: ${p.errors.slice(0, 3).join(' | ')}` : ''));
      }
    } finally {
      const warnings = server.logs().split('\n').filter((l) => /WARN|ERROR/.test(l));
      if (warnings.length) log(`server log: ${warnings.length} warnings/errors, last: ${warnings.at(-1)}`);
      await server.stop();
    }
    const m = (f) => median(rows.map(f));
    summary.push({ total, rounds: rows.length, html: m((r) => r.htmlMs), htmlBytes: m((r) => r.htmlBytes),
      hydrated: m((r) => r.hydrated), live: m((r) => r.live), keyDom: m((r) => r.keyDom), keyFrame: m((r) => r.keyFrame),
      heap: m((r) => r.heap), wasm: m((r) => r.wasm ?? 0), kubectl: m((r) => r.kubectl) });
  }
} finally {
  await browser.close();
  if (ownCluster) nice(clusterSh, ['down', dir], { stdio: ['ignore', 'ignore', 'inherit'] });
}
console.log('\n| nodes | rounds | HTML response | HTML size | hydrated | live | keystroke → DOM | keystroke → frame | JS heap | wasm memory | `kubectl get nodes` |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
for (const s of summary) {
  console.log(`| ${s.total} | ${s.rounds} | ${s.html.toFixed(0)} ms | ${(s.htmlBytes / 1e6).toFixed(1)} MB | ${s.hydrated.toFixed(0)} ms | ` +
    `${s.live.toFixed(0)} ms | ${s.keyDom.toFixed(0)} ms | ${s.keyFrame.toFixed(0)} ms | ${(s.heap / 1e6).toFixed(1)} MB | ` +
    `${(s.wasm / 1e6).toFixed(1)} MB | ${s.kubectl.toFixed(0)} ms |`);
}
process.exit(0);
