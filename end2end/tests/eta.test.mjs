// The pod countdown is right: on a NotReady node, each pod goes within 2 s of the time its card showed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { harness, kubectl, podOnNode, useServerAndBrowser } from './support.mjs';

const ctx = useServerAndBrowser();

const node = 'node-3';

test('pods leave within 2 s of the eviction time their card shows', async () => {
  // A pod of our own on the node, with the cluster's default toleration, in a namespace of this run's own.
  const ns = `eta-check-${Date.now()}`;
  try {
    podOnNode(ns, 'eta-probe', node);
    const page = await ctx.browser.newPage();
    await page.goto(ctx.server.url);
    await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 15_000 });
    const card = page.locator(`[data-testid="node-row"][data-node="${node}"]`);
    harness('not-ready', node);
    try {
      await card.locator('[data-testid="pod-etas"] summary').click({ timeout: 20_000 });
      const row = card.locator(`[data-testid="pod-eta-row"][data-pod="${ns}/eta-probe"]`);
      const text = await row.textContent({ timeout: 5_000 });
      const readAt = Date.now();
      const [, m, s] = text.match(/: (\d+):(\d\d)$/) ?? [];
      assert.ok(m !== undefined, `a countdown is shown: ${text}`);
      // "0:08" means 8 to 9 s left.
      const etaEarliest = readAt + (Number(m) * 60 + Number(s)) * 1000;
      const etaLatest = etaEarliest + 1000;
      let goneAt = null;
      while (Date.now() < etaLatest + 10_000) {
        const out = kubectl('get', 'pods', '-n', ns, '-o', 'name');
        if (!out.includes('eta-probe')) { goneAt = Date.now(); break; }
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(goneAt, 'the pod was evicted');
      console.log(`displayed ${text.trim()}; gone ${((goneAt - etaEarliest) / 1000).toFixed(1)} s after the displayed time`);
      assert.ok(goneAt >= etaEarliest - 2000 && goneAt <= etaLatest + 2000,
        `gone ${((goneAt - etaEarliest) / 1000).toFixed(1)} s after the displayed time`);
      await page.close();
    } finally {
      harness('restore', node);
      kubectl('wait', '--for=condition=Ready', `node/${node}`, '--timeout=60s');
    }
  } finally {
    kubectl('delete', 'namespace', ns, '--wait=false');
  }
});
