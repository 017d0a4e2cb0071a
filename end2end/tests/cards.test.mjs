// Node cards against the real control plane: a node that stops heartbeating, or reports NotReady, flips on the
// card shortly after the API server says so, with its countdown; restoring it clears them. Several tabs share
// one set of watches.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { artifactsDir, harness, kubectl, podOnNode, useServerAndBrowser, waitFor } from './support.mjs';

const ctx = useServerAndBrowser();

function apiReady(node) {
  return kubectl('get', 'node', node, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}').trim();
}

async function openBoard() {
  const page = await ctx.browser.newPage({ viewport: { width: 1280, height: 720 } });
  await page.goto(ctx.server.url);
  await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor();
  await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 15_000 });
  return page;
}

for (const [switchName, node, apiStatus, label] of [
  ['unreachable', 'node-4', 'Unknown', 'Unknown'],
  ['not-ready', 'node-3', 'False', 'NotReady'],
]) {
  test(`a node that goes ${label} shows one countdown, then recovers`, async () => {
    // A pod of our own on the node, so that there is always one that will go.
    const ns = `cards-${switchName}-${Date.now()}`;
    podOnNode(ns, 'probe', node);
    const page = await openBoard();
    const card = page.locator(`[data-testid="node-row"][data-node="${node}"]`);
    assert.equal(await card.getAttribute('data-ready'), 'Ready');
    assert.equal(await card.locator('[data-testid="countdown"]').count(), 0);

    harness(switchName, node);
    try {
      const apiAt = await waitFor(`the API server to report ${node} ${label}`, 60_000, () => apiReady(node) === apiStatus && Date.now());
      await card.locator(`xpath=self::*[@data-ready="${label}"]`).waitFor({ timeout: 10_000 });
      const cardAt = Date.now();
      assert.ok(cardAt - apiAt < 5_000, `the card followed the API server within 5 s (took ${cardAt - apiAt} ms)`);

      // One countdown at a time. Before the NoExecute taint, the guide's node rule: 5 minutes from Ready's
      // lastTransitionTime, as the API reports it. (kwok's not-ready stage reports the node's creation as the
      // transition, so an older node is already due.)
      const countdown = card.locator('[data-testid="countdown"]');
      const transition = Date.parse(kubectl('get', 'node', node, '-o',
        'jsonpath={.status.conditions[?(@.type=="Ready")].lastTransitionTime}').trim());
      // The rule, its text and its bar read in one look at the DOM: the taint may come between two reads, and the
      // text of the pods' rule then says nothing of the node's.
      const look = await countdown.evaluate((el) => ({
        rule: el.dataset.rule,
        text: el.querySelector('[data-testid="countdown-text"]')?.textContent,
        bar: Number(el.querySelector('[data-testid="countdown-bar"]')?.getAttribute('value')),
      }));
      if (look.rule === 'node') {
        const leftMs = transition + 300_000 - Date.now();
        const nodeCountdown = look.text;
        if (leftMs > 3_000) {
          const [, m, sec] = nodeCountdown.match(/^pods evicted in (\d+):(\d\d)$/) ?? [];
          assert.ok(m !== undefined, nodeCountdown);
          assert.ok(Math.abs((Number(m) * 60 + Number(sec)) * 1000 - leftMs) < 3_000, `${nodeCountdown} vs ${leftMs} ms left`);
        } else if (leftMs < -3_000) {
          assert.equal(nodeCountdown, 'eviction due');
        }
        // Beside the text, a bar fills with the time gone, from Ready's change to the deadline (300 s).
        const nodeBar = look.bar;
        const expected = Math.min(1000, Math.max(0, (Date.now() - transition) / 300));
        assert.ok(Math.abs(nodeBar - expected) <= 20, `the node's bar at ${nodeBar} of 1000, expected about ${expected.toFixed(0)}`);
      }
      // Once tainted, the pods' rule: the taint plus the pods' 10 s tolerations in the test cluster, in place of
      // the node's, never beside it.
      await card.locator('[data-testid="countdown"][data-rule="pods"]').waitFor({ timeout: 15_000 });
      assert.equal(await card.locator('[data-testid="countdown"]').count(), 1, 'one countdown');
      const podCountdown = countdown.locator('[data-testid="countdown-text"]');
      const countdownText = await podCountdown.textContent();
      assert.match(countdownText, /first pod eviction in 0:\d\d, \d+ pods? will go|pods are being evicted now/);
      const [, goCount, goWord] = countdownText.match(/(\d+) (pods?) will go/) ?? [];
      if (goCount !== undefined) assert.equal(goWord, goCount === '1' ? 'pod' : 'pods', countdownText);
      // Its colour says how near it is: with a 10 s wait, past half of it or within a minute is red.
      assert.match(await countdown.getAttribute('class'), /^countdown (soon|due)$/);
      // It ticks in the browser.
      const before = await podCountdown.textContent();
      if (before.startsWith('first pod eviction in')) {
        const podBar = () => countdown.locator('[data-testid="countdown-bar"]').getAttribute('value').then(Number);
        const barBefore = await podBar();
        await page.waitForTimeout(1_500);
        assert.notEqual(await podCountdown.textContent(), before);
        // A 10 s wait fills its bar by about 100 thousandths a second.
        const barAfter = await podBar();
        assert.ok(barAfter > barBefore && barAfter <= 1000, `the pod bar went from ${barBefore} to ${barAfter}`);
      }
      // DaemonSet pods never go; the list says so.
      await card.locator('[data-testid="pod-etas"] summary').click();
      const rows = await card.locator('[data-testid="pod-eta-row"]').allTextContents();
      assert.ok(rows.some((r) => r.startsWith('monitoring/node-exporter') && r.endsWith('never')), rows.join('\n'));
      await page.screenshot({ path: join(artifactsDir, `card-${switchName}.png`) });
    } finally {
      harness('restore', node);
    }
    await card.locator('xpath=self::*[@data-ready="Ready"]').waitFor({ timeout: 30_000 });
    await waitFor('the countdowns to go', 10_000, async () =>
      (await card.locator('[data-testid="countdown"]').count()) === 0);
    kubectl('delete', 'namespace', ns, '--wait=false');
    await page.close();
  });
}

test('many tabs share one watch per resource', async () => {
  const metrics = async () => {
    const text = await (await fetch(`${ctx.server.url}/metrics`)).text();
    const value = (name) => Number(text.match(new RegExp(`^${name} (\\d+)$`, 'm'))[1]);
    return { watches: value('drainboard_watches_started_total'), viewers: value('drainboard_board_viewers') };
  };
  const pages = [];
  for (let i = 0; i < 4; i++) pages.push(await openBoard());
  const seen = await metrics();
  assert.ok(seen.viewers >= 4, `at least the four live streams: ${seen.viewers}`);
  assert.equal(seen.watches, 4, 'one watch each for nodes, pods, Leases and PodDisruptionBudgets, for all tabs');
  for (const p of pages) await p.close();
});
