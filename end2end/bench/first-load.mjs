// P5: bytes on the wire for a first load of the board (HTML, JS, wasm, CSS), compressed as served, in Debian's
// Chromium, for one or more builds side by side.
//   DRAINBOARD_CLUSTER_DIR=… node end2end/bench/first-load.mjs label=BIN:SITE_ROOT [label=BIN:SITE_ROOT …] [--rounds N]
// Each build's server runs against the same cluster in turn (local mode). Each round opens a fresh browser context
// (no HTTP cache), loads `/`, waits until the page has hydrated and the board stream is live, and adds up what the
// network delivered per resource type from the DevTools protocol (`encodedDataLength`: the bytes on the wire,
// headers included), and what the resources decode to. The board's event stream and server function calls are
// data, not the app, and are left out. Prints a Markdown table per build (the rounds agree to the byte unless a
// build serves something different each time).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { lockedEnv, origin, unlock } from './local-lock.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { chromium } = createRequire(join(root, 'end2end', 'package.json'))('playwright-core');
const args = process.argv.slice(2);
const roundsAt = args.indexOf('--rounds');
const rounds = roundsAt >= 0 ? Number(args.splice(roundsAt, 2)[1]) : 3;
const builds = args.map((a) => {
  const [label, rest] = a.split('=');
  const [bin, site] = rest.split(':');
  return { label, bin, site };
});
if (!builds.length) throw new Error('name at least one build: label=BIN:SITE_ROOT');
const dir = process.env.DRAINBOARD_CLUSTER_DIR;
if (!dir) throw new Error('set DRAINBOARD_CLUSTER_DIR to a cluster made by end2end/cluster/cluster.sh up');
const kubeconfig = join(dir, 'admin.kubeconfig');
readFileSync(kubeconfig);

async function startServer({ bin, site }) {
  const child = spawn(bin, ['--kubeconfig', kubeconfig, '--addr', '127.0.0.1:0'], {
    cwd: root, env: lockedEnv({ ...process.env, LEPTOS_SITE_ROOT: site }), stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => { out += d; const m = out.match(/serving on (\S+)/); if (m) resolve(origin(m[1])); });
    child.on('exit', (code) => reject(new Error(`${bin} exited with ${code}`)));
  });
  return { url, stop: () => new Promise((r) => { child.once('exit', r); child.kill(); }) };
}

/** The kind of an app resource by its URL and type, or null for data (the stream, server functions). */
function kind(url, type) {
  const path = new URL(url).pathname;
  if (type === 'Document') return 'html';
  if (path.endsWith('.wasm')) return 'wasm';
  if (path.endsWith('.js')) return 'js';
  if (path.endsWith('.css')) return 'css';
  if (path.startsWith('/api/')) return null;
  return 'other';
}

async function measure(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await unlock(context, url);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  const requests = new Map();
  cdp.on('Network.responseReceived', (e) => {
    requests.set(e.requestId, { url: e.response.url, type: e.type, encoding: e.response.headers['content-encoding'] ?? '' });
  });
  cdp.on('Network.dataReceived', (e) => {
    const r = requests.get(e.requestId);
    if (r) r.decoded = (r.decoded ?? 0) + e.dataLength;
  });
  cdp.on('Network.loadingFinished', (e) => {
    const r = requests.get(e.requestId);
    if (r) r.wire = e.encodedDataLength;
  });
  await page.goto(url);
  await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor({ timeout: 60_000 });
  await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 60_000 });
  await page.waitForTimeout(500);
  const totals = {};
  const encodings = {};
  for (const r of requests.values()) {
    const k = kind(r.url, r.type);
    if (!k || r.wire === undefined) continue;
    totals[k] ??= { wire: 0, decoded: 0 };
    totals[k].wire += r.wire;
    totals[k].decoded += r.decoded ?? 0;
    encodings[k] = r.encoding;
  }
  await context.close();
  return { totals, encodings };
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
const kb = (n) => (n / 1000).toFixed(1);
const lines = ['| build | HTML | JS | wasm | CSS | other | **total on the wire** | decoded | wasm encoding |', '|---|---|---|---|---|---|---|---|---|'];
try {
  for (const build of builds) {
    const server = await startServer(build);
    try {
      let last;
      for (let i = 0; i < rounds; i++) {
        last = await measure(browser, `${server.url}/`);
        const total = Object.values(last.totals).reduce((a, t) => a + t.wire, 0);
        console.error(`first-load: ${build.label} round ${i + 1}: ${total} B on the wire`, JSON.stringify(last.totals));
      }
      const t = last.totals;
      const wire = (k) => (t[k] ? kb(t[k].wire) : '0');
      const total = Object.values(t).reduce((a, x) => a + x.wire, 0);
      const decoded = Object.values(t).reduce((a, x) => a + x.decoded, 0);
      lines.push(`| ${build.label} | ${wire('html')} KB | ${wire('js')} KB | ${wire('wasm')} KB | ${wire('css')} KB | ${wire('other')} KB | **${kb(total)} KB** | ${kb(decoded)} KB | ${last.encodings.wasm ?? ''} |`);
    } finally {
      await server.stop();
    }
  }
} finally {
  await browser.close();
}
console.log(lines.join('\n'));
