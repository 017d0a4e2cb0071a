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
    // A seed node, whose pods have long names and owners (a DaemonSet's, a bare pod's): still the screen's width.
    await page.goto(`${server.url}/nodes/node-2`);
    await page.locator('[data-testid="node-pod"]').first().waitFor({ timeout: 30_000 });
    const widths = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
    assert.ok(widths[0] <= widths[1], `no sideways scroll on a seed node's page at 390 px: ${widths.join(' of ')}`);
  } finally {
    await page.close();
    kubectl('uncordon', s.node);
  }
});

test('the filters live in the address, the timeline keeps to the name filter, and a card stays under the pointer', { timeout: 120_000 }, async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const order = () => page.locator('[data-testid="node-row"]').evaluateAll((els) => els.map((e) => e.dataset.node));
  const param = (key) => new URL(page.url()).searchParams.get(key);
  try {
    // Opened from a shared link: the filters come from the address, on the server's page too.
    await page.goto(`${server.url}/?name=${s.node}&status=ready`);
    await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
    await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 30_000 });
    assert.equal(await page.locator('[data-testid="node-filter"]').inputValue(), s.node);
    assert.equal(await page.locator('[data-testid="status-filter"]').inputValue(), 'ready');
    await waitFor('the two nodes of the scenario', 15_000, async () => JSON.stringify(await order()) === JSON.stringify([s.node, s.spare]));

    // What is typed goes into the address; a filter cleared leaves it.
    await page.fill('[data-testid="label-filter"]', `kubernetes.io/hostname=${s.spare}`);
    await waitFor('the address to hold the label filter', 5_000, async () => param('labels') === `kubernetes.io/hostname=${s.spare}`);
    assert.deepEqual(await order(), [s.spare]);
    await page.fill('[data-testid="label-filter"]', '');
    await waitFor('the label filter to leave the address', 5_000, async () => param('labels') === null);
    await page.selectOption('[data-testid="status-filter"]', 'all');
    await waitFor('the status to leave the address', 5_000, async () => param('status') === null);
    assert.equal(param('name'), s.node);

    // The pointer rests on the spare's card while the spare is cordoned elsewhere: cordoned cards rank first,
    // but this one stays where the pointer is until the pointer leaves the cards.
    await page.locator(`[data-testid="node-row"][data-node="${s.spare}"] [data-testid="node-name"]`).hover();
    kubectl('cordon', s.spare);
    await page.locator(`[data-testid="node-row"][data-node="${s.spare}"] [data-testid="node-cordoned"]`).waitFor({ timeout: 15_000 });
    assert.equal(await page.locator('[data-testid="node-list"]').getAttribute('data-held'), 'true');
    assert.deepEqual(await order(), [s.node, s.spare], 'the card acted on stays under the pointer');
    await page.mouse.move(5, 5);
    await waitFor('the board to sort again once the pointer leaves', 5_000, async () =>
      JSON.stringify(await order()) === JSON.stringify([s.spare, s.node]));

    // The view links keep the filters, and the timeline keeps to the name filter.
    await page.locator('[data-testid="view-timeline"]').click();
    await page.waitForURL(/view=timeline/);
    assert.equal(param('name'), s.node);
    await page.locator('[data-testid="timeline-row"]').first().waitFor({ timeout: 15_000 });
    const rows = await page.locator('[data-testid="timeline-row"]').evaluateAll((els) => els.map((e) => e.dataset.node));
    assert.ok(rows.includes(s.node) && rows.every((n) => n.includes(s.node)), `rows: ${rows}`);
    await page.fill('[data-testid="node-filter"]', 'no-node-is-called-this');
    await page.locator('[data-testid="timeline-empty"]').waitFor({ timeout: 10_000 });
    assert.equal(await page.locator('[data-testid="timeline-row"]').count(), 0);
  } finally {
    await page.close();
    kubectl('uncordon', s.spare);
  }
});
