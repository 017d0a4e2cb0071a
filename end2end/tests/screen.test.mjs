// What the board says at a glance is true and readable: a draining card says Draining, a healthy node's conditions
// fold away, names wrap only between words, the tab's title names the node or how many are not Ready, and the card
// gives the Lease as the node's liveness with the condition's heartbeat as a detail.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { artifactsDir, kubectl, launchBrowser, scenario, startDrainboard, waitFor } from './support.mjs';

let s;
let server;
let browser;
before(async () => {
  s = await scenario('screen');
  s.deployment('web', 2);
  // A budget that allows no disruption keeps the drain running while the page looks.
  s.pdb('web-pdb', 'web', 2);
  await s.running(2);
  server = await startDrainboard();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
  s?.cleanup();
});

async function post(path, body) {
  const res = await fetch(`${server.url}/api/${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}),
  });
  return { status: res.status, body: await res.json() };
}

/** Nodes whose Ready condition is not True, as the API server says. */
function notReady() {
  const nodes = JSON.parse(kubectl('get', 'nodes', '-o', 'json')).items;
  return nodes.filter((n) => n.status?.conditions?.find((c) => c.type === 'Ready')?.status !== 'True').length;
}

test('a draining card says Draining, healthy conditions fold, reasons wrap between words, and titles tell', { timeout: 120_000 }, async () => {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  try {
    await page.goto(`${server.url}/`);
    await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
    const card = page.locator(`[data-testid="node-row"][data-node="${s.node}"]`);
    await card.waitFor({ timeout: 30_000 });

    // The tab's title: the count of nodes not Ready, as the API server has it, or the name alone.
    const expected = notReady();
    await waitFor('the title to count the nodes not Ready', 15_000, async () => {
      const title = await page.title();
      return expected === 0 ? title === 'Drainboard' : title === `${expected} node${expected === 1 ? '' : 's'} not ready · Drainboard`;
    });

    // A healthy node's conditions are folded, with a word that says all is as expected; the reasons inside break
    // only between their words.
    const conditions = card.locator('[data-testid="conditions"]');
    assert.equal(await conditions.evaluate((e) => e.open), false);
    assert.equal(await conditions.locator('summary').textContent(), 'Conditions: all as expected');
    const reason = card.locator('tr[data-condition="MemoryPressure"] td').last();
    assert.equal(await reason.textContent(), 'KubeletHasSufficientMemory');
    assert.equal(await reason.locator('wbr').count(), 3, 'Kubelet|Has|Sufficient|Memory');
    // Liveness from the Lease first; the condition's heartbeat after it, as a detail that explains itself.
    const beats = await card.locator('.heartbeats > span').evaluateAll((els) => els.map((e) => e.dataset.testid));
    assert.deepEqual(beats.slice(0, 2), ['lease-age', 'heartbeat-age']);
    assert.match(await card.locator('[data-testid="heartbeat-age"]').getAttribute('title'), /every few minutes/);

    // A drain held by its budget: the card says Draining while the API server has the node cordoned.
    s.openSpare();
    const started = await post('drains/start', { node: s.node, reason: 'screen' });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    await card.locator('[data-testid="node-draining"]').waitFor({ timeout: 15_000 });
    assert.equal(await card.locator('[data-testid="node-draining"]').textContent(), 'Draining');
    assert.equal(kubectl('get', 'node', s.node, '-o', 'jsonpath={.spec.unschedulable}'), 'true');
    // No sideways scrolling on a phone.
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scroll at 390 px');
    await card.screenshot({ path: join(artifactsDir, 'card-draining-phone.png') });

    // Cancelled, the badge goes.
    assert.equal((await post('drains/cancel', { id: started.body.id })).status, 200);
    await waitFor('the Draining badge to go', 15_000, async () => (await card.locator('[data-testid="node-draining"]').count()) === 0);

    // The node page's title names the node.
    await page.goto(`${server.url}/nodes/${s.node}`);
    await page.locator('[data-testid="node-detail"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
    await waitFor('the node page title', 10_000, async () => (await page.title()) === `${s.node} · Drainboard`);
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scroll on the node page at 390 px');
  } finally {
    await page.close();
    kubectl('uncordon', s.node);
  }
});
