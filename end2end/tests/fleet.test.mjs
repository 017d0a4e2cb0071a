// The fleet map against the real control plane: every node a cell in its zone, its state in shape and letter as
// well as colour, one tab stop with arrow keys inside, live with the cluster; and a fleet of 1,000 kwok nodes on one
// 1920×1080 screen without scrolling.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { artifactsDir, harness, kubectl, launchBrowser, requireEnv, startDrainboard, waitFor } from './support.mjs';

let server;
let browser;
before(async () => {
  server = await startDrainboard();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

async function openMap(path = '/?view=map') {
  const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
  await page.goto(`${server.url}${path}`);
  await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor();
  await page.locator('[data-testid="fleet-map"]').waitFor();
  return page;
}

/** The cluster's nodes by zone, as kubectl reads them. */
function nodesByZone() {
  const out = kubectl('get', 'nodes', '-o', 'jsonpath={range .items[*]}{.metadata.name} {.metadata.labels.topology\\.kubernetes\\.io/zone}{"\\n"}{end}');
  const zones = new Map();
  for (const line of out.split('\n').filter(Boolean)) {
    const [name, zone = ''] = line.split(' ');
    zones.set(zone, [...(zones.get(zone) ?? []), name]);
  }
  return zones;
}

const cell = (page, node) => page.locator(`[data-testid="map-cell"][data-node="${node}"]`);

test('every node is a cell in its zone, and its state shows in shape and letter as it changes', { timeout: 120_000 }, async () => {
  const zones = nodesByZone();
  const total = [...zones.values()].reduce((n, names) => n + names.length, 0);
  const page = await openMap();
  try {
    await waitFor('a cell for every node', 20_000, async () =>
      (await page.locator('[data-testid="map-cell"]').count()) === total);
    const groups = await page.locator('[data-testid="map-group"]').evaluateAll((els) =>
      els.map((g) => [g.dataset.group, [...g.querySelectorAll('[data-testid="map-cell"]')].map((c) => c.dataset.node).sort()]));
    for (const [zone, names] of zones) {
      const group = groups.find(([g]) => g === zone);
      assert.ok(group, `a group for zone "${zone}" in ${JSON.stringify(groups)}`);
      assert.deepEqual(group[1], [...names].sort());
    }
    const node = zones.get('zone-a')[0];
    assert.equal(await cell(page, node).getAttribute('data-state'), 'ready');
    assert.equal(await cell(page, node).textContent(), 'R');

    // Cordoned: an outlined square with a C. NotReady: a red diamond with an N.
    kubectl('cordon', node);
    try {
      await cell(page, node).and(page.locator('[data-state="cordoned"]')).waitFor({ timeout: 15_000 });
      assert.equal(await cell(page, node).textContent(), 'C');
      const looks = await cell(page, node).evaluate((el) => {
        const s = getComputedStyle(el);
        return { border: s.borderTopWidth, fill: s.backgroundColor };
      });
      assert.notEqual(looks.border, '0px', 'a cordoned cell is outlined');
      assert.equal(looks.fill, 'rgba(0, 0, 0, 0)', 'and not filled');
    } finally {
      kubectl('uncordon', node);
    }
    harness('not-ready', node);
    try {
      await cell(page, node).and(page.locator('[data-state="not-ready"]')).waitFor({ timeout: 20_000 });
      assert.equal(await cell(page, node).textContent(), 'N');
      const shape = await cell(page, node).evaluate((el) => getComputedStyle(el).clipPath);
      assert.match(shape, /polygon/, 'a NotReady cell has a shape of its own');
      // The zone's heading counts it.
      const group = page.locator('[data-testid="map-group"][data-group="zone-a"]');
      assert.match(await group.getAttribute('aria-label'), /1 NotReady/);
      await page.screenshot({ path: join(artifactsDir, 'fleet-map-6.png'), fullPage: true });
    } finally {
      harness('restore', node);
    }
    await cell(page, node).and(page.locator('[data-state="ready"]')).waitFor({ timeout: 30_000 });

    // The filters apply to the map too.
    await page.locator('[data-testid="node-filter"]').fill(node);
    await waitFor('the map to show the one node', 5_000, async () =>
      (await page.locator('[data-testid="map-cell"]').count()) === 1);
    await page.locator('[data-testid="node-filter"]').fill('');
    await waitFor('every node again', 5_000, async () => (await page.locator('[data-testid="map-cell"]').count()) === total);
  } finally {
    await page.close();
  }
});

test('the map is one tab stop: arrow keys move, hover and focus name the node, Enter opens it', { timeout: 60_000 }, async () => {
  const page = await openMap();
  try {
    const cells = page.locator('[data-testid="map-cell"]');
    await waitFor('the cells', 20_000, async () => (await cells.count()) > 3);
    // No cell is a tab stop of its own.
    const tabbable = await cells.evaluateAll((els) => els.filter((e) => e.tabIndex >= 0).length);
    assert.equal(tabbable, 0);
    const map = page.locator('[data-testid="fleet-map"]');
    assert.equal(await map.getAttribute('tabindex'), '0');

    const order = await cells.evaluateAll((els) => els.map((e) => e.dataset.node));
    await map.focus();
    const active = () => map.getAttribute('aria-activedescendant');
    await waitFor('the first cell to be active', 5_000, async () => (await active()) === `cell-${order[0]}`);
    await page.keyboard.press('ArrowRight');
    assert.equal(await active(), `cell-${order[1]}`);
    assert.match(await page.locator('[data-testid="map-caption"]').textContent(), new RegExp(`^${order[1]}: Ready$`));
    await page.keyboard.press('End');
    assert.equal(await active(), `cell-${order[order.length - 1]}`);
    await page.keyboard.press('Home');
    assert.equal(await active(), `cell-${order[0]}`);
    // Down goes to a cell below (the next row, or the next group).
    await page.keyboard.press('ArrowDown');
    const below = (await active()).replace(/^cell-/, '');
    const [y0, y1] = await Promise.all([order[0], below].map((n) => cell(page, n).evaluate((e) => e.getBoundingClientRect().top)));
    assert.ok(y1 > y0, `${below} is below ${order[0]}`);

    // Hovering names a node.
    const last = order[order.length - 1];
    await cell(page, last).hover();
    assert.match(await page.locator('[data-testid="map-caption"]').textContent(), new RegExp(`^${last}: `));
    assert.match(await cell(page, last).getAttribute('title'), new RegExp(`^${last}: `));

    await map.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`/nodes/${below}$`), { timeout: 10_000 });
    await page.locator('[data-testid="node-detail"]').waitFor();
  } finally {
    await page.close();
  }
});

test('a fleet of 1,000 nodes fits one 1920×1080 screen, grouped by any label', { timeout: 300_000 }, async () => {
  const count = 1000;
  const names = Array.from({ length: count }, (_, i) => `fleet-${String(i).padStart(4, '0')}`);
  const items = names.map((name, i) => ({
    apiVersion: 'v1', kind: 'Node',
    metadata: { name, labels: {
      'kwok.x-k8s.io/node': 'fake', 'kubernetes.io/hostname': name, 'drainboard.dev/fleet': 'big',
      'topology.kubernetes.io/zone': `zone-${'abcd'[i % 4]}`, 'node.kubernetes.io/instance-type': i % 3 ? 'm6i.2xlarge' : 'c6i.xlarge',
    } },
    spec: { taints: [{ key: 'drainboard.dev/test', value: 'true', effect: 'NoSchedule' }] },
    status: { allocatable: { cpu: '8', memory: '32Gi', pods: '110' }, capacity: { cpu: '8', memory: '32Gi', pods: '110' } },
  }));
  const bin = join(requireEnv('DRAINBOARD_CLUSTER_BIN'), 'kubectl');
  execFileSync(bin, ['--kubeconfig', requireEnv('KUBECONFIG'), 'create', '-f', '-'],
    { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }), encoding: 'utf8', maxBuffer: 64 << 20 });
  const page = await openMap();
  try {
    const all = Number(kubectl('get', 'nodes', '--no-headers', '-o', 'name').split('\n').filter(Boolean).length);
    assert.ok(all >= count, `${all} nodes`);
    await waitFor(`${all} cells`, 120_000, async () => (await page.locator('[data-testid="map-cell"]').count()) === all);
    const size = await page.locator('[data-testid="fleet-map"]').getAttribute('class');
    assert.match(size, /size-medium/);
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    assert.ok(height <= 1080, `the page is ${height} px tall`);
    await page.screenshot({ path: join(artifactsDir, 'fleet-map-1000.png') });

    // Grouped by another label, through the address; the field offers the nodes' label keys once it has focus.
    await page.locator('[data-testid="map-group-by"]').focus();
    await page.locator('#label-keys option[value="node.kubernetes.io/instance-type"]').waitFor({ state: 'attached', timeout: 10_000 });
    await page.locator('[data-testid="map-group-by"]').fill('node.kubernetes.io/instance-type');
    await page.locator('[data-testid="map-group-by"]').press('Enter');
    await page.waitForURL(/group=node\.kubernetes\.io%2Finstance-type/);
    await waitFor('groups by instance type', 20_000, async () => {
      const groups = await page.locator('[data-testid="map-group"]').evaluateAll((els) => els.map((g) => g.dataset.group));
      return groups.includes('c6i.xlarge') && groups.includes('m6i.2xlarge');
    });
    const c6i = page.locator('[data-testid="map-group"][data-group="c6i.xlarge"] [data-testid="map-cell"]');
    assert.equal(await c6i.count(), Math.ceil(count / 3), 'every third of the new nodes');
  } finally {
    await page.close();
    kubectl('delete', 'nodes', '-l', 'drainboard.dev/fleet=big', '--wait=false');
  }
});
