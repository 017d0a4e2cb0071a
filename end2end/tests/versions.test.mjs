// Know the fleet before the window: the versions view counts each kubelet, kernel, OS image and container runtime
// the nodes report (status.nodeInfo, written here on kwok nodes as a kubelet writes it), the map groups by them,
// and "Plan the stragglers" opens a plan of the nodes not on a value whose verification expects that value.
// The reboot signal is read in each of its three forms (a condition with status True, a label, kured's
// annotation), shown on the card, the map and the table, filtered on, and offered as a plan. English and Japanese.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { artifactsDir, deletePlans, kubectl, kwokNodes, launchBrowser, metric, startDrainboard, waitFor } from './support.mjs';

const pool = `versions-${process.pid % 10_000}`;
const node = (n) => `${pool}-${n}`;
// name → [kubelet, kernel, reboot sign]
const fleet = {
  a: ['v1.36.3', '6.12.9-amd64', 'condition'],
  b: ['v1.35.1', '6.1.0-31-amd64', 'label'],
  c: ['v1.36.3', '6.12.9-amd64', 'annotation'],
  d: ['v1.36.3', '6.1.0-31-amd64', null],
  e: ['v1.36.4', '6.12.9-amd64', 'false-condition'],
};
const SIGNALS = ['condition:RebootRequired', 'label:example.com/reboot-needed=true', 'annotation:weave.works/kured-reboot-in-progress'];
let server;
let browser;
let cleanup = () => {};

/** Writes what a kubelet reports of itself, through the status subresource as the kubelet does. */
function report(name, kubelet, kernel) {
  kubectl('patch', 'node', name, '--subresource=status', '--type=strategic', '-p', JSON.stringify({
    status: { nodeInfo: { kubeletVersion: kubelet, kernelVersion: kernel, osImage: 'Debian GNU/Linux 13 (trixie)',
      containerRuntimeVersion: 'containerd://2.1.4', kubeProxyVersion: kubelet, operatingSystem: 'linux',
      architecture: 'amd64', machineID: name, systemUUID: name, bootID: `${name}-boot-1` } },
  }));
}

/** A condition as node-problem-detector's custom plugin monitor writes it. */
function condition(name, status) {
  const now = new Date().toISOString();
  kubectl('patch', 'node', name, '--subresource=status', '--type=strategic', '-p', JSON.stringify({
    status: { conditions: [{ type: 'RebootRequired', status, reason: status === 'True' ? 'KernelUpdated' : 'NoReboot',
      message: 'a new kernel is installed', lastTransitionTime: now, lastHeartbeatTime: now }] },
  }));
}

before(async () => {
  cleanup = kwokNodes(pool, Object.keys(fleet).map(node));
  for (const [n, [kubelet, kernel, sign]] of Object.entries(fleet)) {
    report(node(n), kubelet, kernel);
    if (sign === 'condition') condition(node(n), 'True');
    if (sign === 'false-condition') condition(node(n), 'False');
    if (sign === 'label') kubectl('label', 'node', node(n), 'example.com/reboot-needed=true');
    // kured with --annotate-nodes: the time it found the reboot required.
    if (sign === 'annotation') kubectl('annotate', 'node', node(n), 'weave.works/kured-reboot-in-progress=2026-12-07T01:00:00Z');
  }
  server = await startDrainboard(SIGNALS.flatMap((s) => ['--reboot-required', s]));
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
  deletePlans();
  cleanup();
});

async function cards() {
  const res = await fetch(`${server.url}/api/board`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  assert.equal(res.status, 200);
  return new Map((await res.json()).upsert.filter((c) => c.name.startsWith(pool)).map((c) => [c.name.slice(pool.length + 1), c]));
}

test('a bad reboot signal stops the server with the fix', async () => {
  await assert.rejects(startDrainboard(['--reboot-required', 'taint:reboot']), /--reboot-required: .*is not condition, label or annotation/);
  await assert.rejects(startDrainboard(['--reboot-required', 'condition:RebootRequired=True']), /status is True; write condition:RebootRequired/);
});

test('each form of the reboot signal marks its node, and only its node; the versions come with the cards', { timeout: 60_000 }, async () => {
  const got = await waitFor('every card with its versions and signs', 20_000, async () => {
    const c = await cards();
    return c.size === 5 && [...c.values()].every((x) => x.kernel_version) && c.get('c').reboot ? c : null;
  });
  const signs = Object.fromEntries([...got].map(([n, c]) => [n, c.reboot ?? null]));
  assert.deepEqual(signs, {
    a: { signal: 'condition:RebootRequired', value: 'KernelUpdated' },
    b: { signal: 'label:example.com/reboot-needed=true', value: 'true' },
    c: { signal: 'annotation:weave.works/kured-reboot-in-progress', value: '2026-12-07T01:00:00Z' },
    d: null,
    e: null,
  });
  assert.equal(await metric(server, 'drainboard_nodes_reboot_required'), 3, 'the gauge counts the same nodes');
  assert.deepEqual([got.get('b').kubelet_version, got.get('b').kernel_version, got.get('b').os_image, got.get('b').container_runtime],
    ['v1.35.1', '6.1.0-31-amd64', 'Debian GNU/Linux 13 (trixie)', 'containerd://2.1.4']);
  // The sign follows the node: gone when its label is.
  kubectl('label', 'node', node('b'), 'example.com/reboot-needed-');
  await waitFor('the label\'s sign to go', 15_000, async () => !(await cards()).get('b').reboot);
  kubectl('label', 'node', node('b'), 'example.com/reboot-needed=true');
  await waitFor('the label\'s sign back', 15_000, async () => (await cards()).get('b').reboot);
});

test('the versions view counts, the map groups, and a straggler plan expects the target', { timeout: 120_000 }, async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const only = `labels=${encodeURIComponent(`drainboard.dev/pool=${pool}`)}`;
  await page.goto(`${server.url}/?view=versions&${only}`);
  await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
  const table = (key) => page.locator(`[data-testid="versions-table"][data-component="${key}"]`);
  const rows = (key) => table(key).locator('[data-testid="versions-row"]').evaluateAll((els) =>
    els.map((e) => [e.dataset.value, Number(e.dataset.nodes), Number(e.dataset.reboot)]));
  await waitFor('the kubelet table', 20_000, async () => (await rows('kubelet')).length === 3);
  assert.deepEqual(await rows('kubelet'), [['v1.36.3', 3, 2], ['v1.35.1', 1, 1], ['v1.36.4', 1, 0]]);
  assert.deepEqual(await rows('kernel'), [['6.12.9-amd64', 3, 2], ['6.1.0-31-amd64', 2, 1]]);
  assert.deepEqual(await rows('os-image'), [['Debian GNU/Linux 13 (trixie)', 5, 3]]);
  assert.deepEqual(await rows('container-runtime'), [['containerd://2.1.4', 5, 3]]);
  assert.match(await table('kubelet').locator('caption').textContent(), /kubelet.*\.status\.nodeInfo\.kubeletVersion/);
  const line = page.locator('[data-testid="versions-reboot"]');
  assert.equal(await line.getAttribute('data-count'), '3');
  assert.equal(await line.textContent(), '3 nodes shown need a reboot. Plan the 3 nodes that need a reboot');
  // One value everywhere has no stragglers to plan.
  assert.equal(await table('os-image').locator('[data-testid="versions-plan-stragglers"]').count(), 0);
  await page.screenshot({ path: join(artifactsDir, 'versions.png') });

  // The nodes that need a reboot, as a plan's nodes.
  await page.locator('[data-testid="versions-plan-reboot"]').click();
  let dialog = page.locator('[data-testid="rollout-dialog"]');
  await dialog.locator('[data-testid="rollout-plan-node"]').nth(2).waitFor({ timeout: 15_000 });
  assert.deepEqual(await dialog.locator('[data-testid="rollout-plan-node"]').evaluateAll((els) => els.map((e) => e.dataset.node)),
    ['a', 'b', 'c'].map(node));
  assert.equal(await dialog.locator('[data-testid="rollout-uncordon-when-back"]').isChecked(), false, 'nothing chosen for the person');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached', timeout: 5_000 });

  // The stragglers of v1.36.3: the dialog has them, and checks each is back on it before uncordoning.
  await table('kubelet').locator('[data-testid="versions-row"][data-value="v1.36.3"] [data-testid="versions-plan-stragglers"]').click();
  dialog = page.locator('[data-testid="rollout-dialog"]');
  await dialog.locator('[data-testid="rollout-plan-node"]').nth(1).waitFor({ timeout: 15_000 });
  assert.deepEqual(await dialog.locator('[data-testid="rollout-plan-node"]').evaluateAll((els) => els.map((e) => e.dataset.node)),
    [node('b'), node('e')]);
  assert.equal(await dialog.locator('[data-testid="rollout-uncordon-when-back"]').isChecked(), true);
  assert.equal(await dialog.locator('[data-testid="rollout-verify"]').isChecked(), true);
  assert.equal(await dialog.locator('[data-testid="rollout-verify-kubelet"]').inputValue(), 'v1.36.3');
  assert.equal(await dialog.locator('[data-testid="rollout-verify-kernel"]').inputValue(), '');
  const confirm = dialog.locator('[data-testid="confirm-rollout"]');
  await waitFor('the plan to be confirmable', 15_000, () => confirm.isEnabled());
  await confirm.click();
  await dialog.waitFor({ state: 'detached', timeout: 15_000 });
  const planId = await page.locator('[data-testid="rollout"]').first().getAttribute('data-id');
  const spec = JSON.parse(kubectl('get', 'maintenanceplan', planId, '-o', 'json')).spec;
  assert.deepEqual([spec.nodes, spec.uncordonWhenBack, spec.verify.kubeletVersion, spec.verify.kernelVersion],
    [[node('b'), node('e')], true, 'v1.36.3', undefined], 'the plan carries the stragglers and expects the target');
  await page.locator(`[data-testid="rollout"][data-id="${planId}"] [data-testid="rollout-stop"]`).click();
  await page.locator(`[data-testid="rollout"][data-id="${planId}"] [data-testid="rollout-stop-confirm"]`).click();

  // The map, grouped by a version's path, with the reboot marked on its cells.
  await page.goto(`${server.url}/?view=map&group=${encodeURIComponent('.status.nodeInfo.kubeletVersion')}&${only}`);
  await page.locator('[data-testid="map-cell"]').nth(4).waitFor({ timeout: 20_000 });
  const groups = await page.locator('[data-testid="map-group"]').evaluateAll((els) => els.map((g) =>
    [g.dataset.group, [...g.querySelectorAll('[data-testid="map-cell"]')].map((c) => c.dataset.node.slice(-1)).join('')]));
  assert.deepEqual(groups, [['v1.35.1', 'b'], ['v1.36.3', 'acd'], ['v1.36.4', 'e']]);
  const marked = await page.locator('[data-testid="map-cell"][data-reboot="true"]').evaluateAll((els) => els.map((e) => e.dataset.node));
  assert.deepEqual(marked.sort(), ['a', 'b', 'c'].map(node));
  assert.match(await page.locator(`[data-testid="map-cell"][data-node="${node('a')}"]`).getAttribute('aria-label'), /needs a reboot/);

  // The card's badge says which signal, and the status filter finds exactly those nodes.
  await page.goto(`${server.url}/?status=need-reboot&${only}`);
  await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
  await waitFor('the three cards', 20_000, async () => (await page.locator('[data-testid="node-row"]').count()) === 3);
  const badge = page.locator(`[data-testid="node-row"][data-node="${node('c')}"] [data-testid="node-reboot"]`);
  assert.equal(await badge.getAttribute('data-signal'), 'annotation:weave.works/kured-reboot-in-progress');
  assert.match(await badge.getAttribute('title'), /weave\.works\/kured-reboot-in-progress: 2026-12-07T01:00:00Z/);
  assert.equal(await page.locator(`[data-testid="node-row"][data-node="${node('d')}"]`).count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the versions view in Japanese', { timeout: 60_000 }, async () => {
  const context = await browser.newContext({ locale: 'ja-JP', viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${server.url}/?view=versions&labels=${encodeURIComponent(`drainboard.dev/pool=${pool}`)}`);
  await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
  const line = page.locator('[data-testid="versions-reboot"][data-count="3"]');
  await line.waitFor({ timeout: 20_000 });
  assert.equal(await line.textContent(), '表示中の3ノードが再起動を必要としています。 再起動が必要な3ノードを計画する');
  const straggle = page.locator('[data-testid="versions-table"][data-component="kubelet"] [data-testid="versions-row"][data-value="v1.36.3"] [data-testid="versions-plan-stragglers"]');
  assert.equal(await straggle.textContent(), 'これに揃っていない2ノードを計画する');
  assert.equal(await page.locator('[data-testid="view-versions"]').textContent(), 'バージョン');
  await context.close();
});
