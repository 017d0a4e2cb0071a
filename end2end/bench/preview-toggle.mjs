// Drain dialog: an option toggled → the preview re-rendered, planned in the browser, against the same plan asked of
// the server (POST /api/drains/preview, the fetch and JSON parse alone, no rendering) in the same page, alternated.
//   set -a; source DIR/cluster.env; set +a    # a cluster made by end2end/cluster/cluster.sh up
//   DRAINBOARD_BIN=target/release/drainboard LEPTOS_SITE_ROOT=target/site node end2end/bench/preview-toggle.mjs [pods] [rounds]
// The node under test gets `pods` pods of a Deployment plus one DaemonSet pod; each toggle of "Ignore DaemonSet
// pods" moves the DaemonSet pod between refused and skipped. Prints p50/p99 of both.
import { kubectl, launchBrowser, scenario, startDrainboard } from '../tests/support.mjs';

const pods = Number(process.argv[2] ?? 110);
const rounds = Number(process.argv[3] ?? 40);
const s = await scenario('bench');
const server = await startDrainboard();
const browser = await launchBrowser();
try {
  s.deployment('web', pods);
  s.daemonset('agent');
  await s.running(pods + 1);
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  await page.goto(server.url);
  await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
  await page.fill('[data-testid="node-filter"]', s.node);
  await page.locator(`[data-testid="node-row"][data-node="${s.node}"] [data-testid="action-drain"]:not([disabled])`).click();
  await page.locator('[data-testid="group-evict"]').waitFor({ timeout: 30_000 });
  const shown = await page.locator('[data-testid="group-evict"] [data-testid="preview-pod"]').count();
  if (shown !== pods) throw new Error(`the preview shows ${shown} pods to evict, expected ${pods}`);

  const local = [];
  const remote = [];
  for (let i = 0; i < rounds; i++) {
    const ignore = i % 2 === 0; // the state the toggle moves to
    local.push(await page.evaluate((ignore) => new Promise((resolve) => {
      const skipped = () => document.querySelectorAll('[data-testid="group-skipped"] [data-testid="preview-pod"]').length;
      const want = ignore ? 1 : 0;
      const start = performance.now();
      const observer = new MutationObserver(() => {
        if (skipped() === want) { observer.disconnect(); resolve(performance.now() - start); }
      });
      observer.observe(document.querySelector('[data-testid="drain-preview"]'), { childList: true, subtree: true });
      document.querySelector('[data-testid="opt-ignore-daemonsets"]').click();
    }), ignore));
    remote.push(await page.evaluate(async ([node, ignore]) => {
      const start = performance.now();
      const res = await fetch('/api/drains/preview', {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ node, options: { ignore_daemonsets: ignore } }),
      });
      const preview = await res.json();
      if (preview.skipped.length !== (ignore ? 1 : 0)) throw new Error('unexpected server preview');
      return performance.now() - start;
    }, [s.node, ignore]));
  }
  const pct = (xs, p) => { const v = [...xs].sort((a, b) => a - b); return v[Math.min(v.length - 1, Math.floor(p * v.length))]; };
  const ms = (x) => `${x.toFixed(1)} ms`;
  console.log(`node with ${pods + 1} pods, ${rounds} toggles each`);
  console.log(`in the browser (toggle → preview re-rendered): p50 ${ms(pct(local, 0.5))}, p99 ${ms(pct(local, 0.99))}`);
  console.log(`server round trip (fetch + parse only):       p50 ${ms(pct(remote, 0.5))}, p99 ${ms(pct(remote, 0.99))}`);
} finally {
  await browser.close();
  await server.stop();
  s.cleanup();
  kubectl('get', 'nodes', '-o', 'name'); // the cluster is still answering
}
