// Ready flip in the API server → card updated in the browser: latency over many flips.
//   DRAINBOARD_CLUSTER_DIR=… node end2end/bench/flip-latency.mjs [flips] [server binary]
// A `kubectl get --watch` of the node (the pinned kubectl) timestamps each Ready change as the API server delivers
// it; a MutationObserver in the page timestamps each change of the card's data-ready. Both clocks are this
// machine's. Prints every sample and the p50/p99.
import { spawn, execFileSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { lockedEnv, origin, unlock } from './local-lock.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { chromium } = createRequire(join(root, 'end2end', 'package.json'))('playwright-core');
const flips = Number(process.argv[2] ?? 50);
const serverBin = process.argv[3] ?? join(root, 'target', 'release', 'drainboard');
const dir = process.env.DRAINBOARD_CLUSTER_DIR;
if (!dir) throw new Error('set DRAINBOARD_CLUSTER_DIR to a cluster made by end2end/cluster/cluster.sh up');
const kubeconfig = join(dir, 'admin.kubeconfig');
const kubectlBin = join(root, '.cache', 'cluster', 'bin', 'kubectl');
const node = 'node-3';
const harness = (action) => execFileSync(join(root, 'end2end', 'cluster', 'cluster.sh'), [action, dir, node]);

const server = spawn(serverBin, ['--kubeconfig', kubeconfig, '--addr', '127.0.0.1:0'], {
  cwd: root, env: lockedEnv({ ...process.env, LEPTOS_SITE_ROOT: process.env.LEPTOS_SITE_ROOT ?? join(root, 'target', 'site') }), stdio: ['ignore', 'pipe', 'ignore'],
});
const url = await new Promise((resolve) => {
  let out = '';
  server.stdout.on('data', (d) => { out += d; const m = out.match(/serving on (\S+)/); if (m) resolve(origin(m[1])); });
});

// API server side: every Ready status the watch delivers, with its arrival time.
const apiEvents = [];
const watch = spawn(kubectlBin, ['--kubeconfig', kubeconfig, 'get', 'node', node, '--watch', '-o',
  'jsonpath={.status.conditions[?(@.type=="Ready")].status}{"\\n"}']);
let buffer = '';
watch.stdout.on('data', (d) => {
  const now = Date.now();
  buffer += d;
  const lines = buffer.split('\n');
  buffer = lines.pop();
  for (const status of lines) apiEvents.push({ status: status.trim(), at: now });
});

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox',
  '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update',
  '--disable-sync'] });
const context = await browser.newContext();
await unlock(context, url);
const page = await context.newPage();
await page.goto(url);
await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 30_000 });
await page.evaluate((name) => {
  window.__flips = [];
  const card = document.querySelector(`[data-testid="node-row"][data-node="${name}"]`);
  new MutationObserver(() => window.__flips.push({ ready: card.getAttribute('data-ready'), at: performance.timeOrigin + performance.now() }))
    .observe(card, { attributes: true, attributeFilter: ['data-ready'] });
}, node);

const card = page.locator(`[data-testid="node-row"][data-node="${node}"]`);
const samples = [];
for (let i = 0; i < flips; i++) {
  for (const [action, label, status] of [['not-ready', 'NotReady', 'False'], ['restore', 'Ready', 'True']]) {
    const since = Date.now();
    harness(action);
    await card.locator(`xpath=self::*[@data-ready="${label}"]`).waitFor({ timeout: 60_000 });
    await new Promise((r) => setTimeout(r, 300));
    const api = apiEvents.find((e) => e.at >= since && e.status === status);
    const dom = (await page.evaluate(() => window.__flips)).find((f) => f.at >= since && f.ready === label);
    if (api && dom) {
      samples.push(dom.at - api.at);
      console.log(`flip ${i + 1} ${label.padEnd(8)} ${(dom.at - api.at).toFixed(0)} ms`);
    }
  }
}
const sorted = samples.slice().sort((a, b) => a - b);
const pct = (p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
console.log(`samples ${sorted.length}: p50 ${pct(50).toFixed(0)} ms, p99 ${pct(99).toFixed(0)} ms, max ${sorted.at(-1).toFixed(0)} ms`);
await browser.close();
watch.kill();
server.kill();
process.exit(0);
