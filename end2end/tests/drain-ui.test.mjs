// Click-to-drain in the browser, against the local control plane: the dialog's live preview, the options and the
// confirm rule, per-pod progress with budget blocks explained, cancel, re-attaching, and what a second viewer sees.
// Each test has a pool of fresh kwok nodes of its own. Screenshots go to end2end/artifacts/.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { artifactsDir, harness, kubectl, scenario, useServerAndBrowser, waitFor } from './support.mjs';

const ctx = useServerAndBrowser();
const cleanups = [];
after(() => cleanups.forEach((c) => c()));

async function setUp(name) {
  const s = await scenario(name);
  cleanups.push(() => s.cleanup());
  return s;
}

async function openBoard(browser, url, { colorScheme = 'light', path = '/' } = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 }, colorScheme });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url + path);
  await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
  await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 30_000 });
  return { context, page, errors };
}

/** The card of `node`, found through the name filter so that paging never hides it. */
async function card(page, node) {
  await page.fill('[data-testid="node-filter"]', node);
  const c = page.locator(`[data-testid="node-row"][data-node="${node}"]`);
  await c.waitFor({ timeout: 15_000 });
  return c;
}

async function groupPods(dialog, group) {
  const items = dialog.locator(`[data-testid="group-${group}"] [data-testid="preview-pod"]`);
  return (await items.evaluateAll((els) => els.map((e) => e.dataset.pod))).sort();
}

function unschedulable(node) {
  return kubectl('get', 'node', node, '-o', 'jsonpath={.spec.unschedulable}').trim() === 'true';
}

test('happy path: the preview lists each group, the drain completes, and uncordon makes the node schedulable', { timeout: 240_000 }, async () => {
  const s = await setUp('happy');
  s.deployment('web', 2);
  s.daemonset('agent');
  await s.running(3);
  const pods = s.podsOnNode();
  const web = pods.filter((p) => p.includes('/web-'));
  const agent = pods.filter((p) => p.includes('/agent-'));
  assert.equal(web.length, 2);
  assert.equal(agent.length, 1);

  const { context, page, errors } = await openBoard(ctx.browser, ctx.server.url);
  const c = await card(page, s.node);
  await c.locator('[data-testid="action-drain"]:not([disabled])').click();
  const dialog = page.locator('[data-testid="drain-dialog"]');
  await dialog.locator('[data-testid="group-evict"]').waitFor({ timeout: 15_000 });

  // Ignore DaemonSet pods is ticked by default (every real node runs some), and its help says kubectl's is off.
  const daemonsets = dialog.locator('[data-testid="opt-ignore-daemonsets"]');
  assert.equal(await daemonsets.isChecked(), true);
  assert.match(await dialog.locator('label:has([data-testid="opt-ignore-daemonsets"])').textContent(), /Ticked here by default.*kubectl's default, and the API's, is off/);
  assert.deepEqual(await groupPods(dialog, 'skipped'), agent);
  // With kubectl's default, the DaemonSet pod is refused, and confirming is impossible.
  await daemonsets.uncheck();
  assert.deepEqual(await groupPods(dialog, 'evict'), web);
  assert.deepEqual(await groupPods(dialog, 'refused'), agent);
  assert.deepEqual(await groupPods(dialog, 'skipped'), []);
  assert.match(await dialog.locator('[data-testid="refused-needs"]').textContent(), /Ignore DaemonSet pods/);
  assert.ok(await dialog.locator('[data-testid="confirm-drain"]').isDisabled(), 'a refused pod keeps confirm disabled');

  // One toggle moves the DaemonSet pod to skipped at once, with no round trip to wait for.
  await dialog.locator('[data-testid="opt-ignore-daemonsets"]').check();
  assert.deepEqual(await groupPods(dialog, 'skipped'), agent);
  assert.deepEqual(await groupPods(dialog, 'refused'), []);
  const confirm = dialog.locator('[data-testid="confirm-drain"]');
  assert.equal(await confirm.textContent(), `Drain ${s.node}: evict 2 pods`);
  assert.ok(await confirm.isEnabled(), 'nothing refused and nothing destructive: confirm is enabled');
  assert.equal(await dialog.locator('[data-testid="type-node-name"]').count(), 0, 'no typing without a destructive option');

  // The dialog fits a 1280×720 screen.
  const box = await dialog.boundingBox();
  assert.ok(box.x >= 0 && box.x + box.width <= 1280 && box.y >= 0 && box.y + box.height <= 720, `dialog within the viewport: ${JSON.stringify(box)}`);
  await page.screenshot({ path: join(artifactsDir, 'drain-dialog.png') });

  await dialog.locator('[data-testid="drain-reason"]').fill('kernel update');
  await confirm.click();
  const panel = page.locator('[data-testid="progress-panel"]');
  await panel.locator('[data-testid="progress-state"][data-state="Drained"]').waitFor({ timeout: 60_000 });
  assert.equal(await panel.locator('[data-testid="progress-state"]').textContent(), 'Drained: safe to reboot or return');
  assert.equal(await panel.locator('[data-testid="progress-count"]').textContent(), '2 of 2 pods gone');
  assert.equal(await panel.locator('[data-testid="progress-reason"]').textContent(), 'kernel update');
  assert.equal(await page.locator('#progress-panel-title').textContent(), `Drain of ${s.node}`);
  const rows = await panel.locator('[data-testid="progress-pod"]').evaluateAll((els) => els.map((e) => [e.dataset.pod, e.dataset.state]));
  assert.deepEqual(rows.map(([p]) => p).sort(), web);
  assert.ok(rows.every(([, state]) => state === 'gone'), `every pod gone: ${JSON.stringify(rows)}`);
  assert.match(page.url(), /[?&]drain=/, 'the URL names the drain, so a reload re-attaches');
  await page.screenshot({ path: join(artifactsDir, 'progress-panel-drained.png') });
  // What the panel says is what the cluster shows.
  assert.deepEqual(s.podsOnNode(), agent, 'only the DaemonSet pod is left on the node');
  assert.ok(unschedulable(s.node));
  const record = JSON.parse(kubectl('get', 'node', s.node, '-o', 'jsonpath={.metadata.annotations.drainboard\\.dev/drain}'));
  assert.equal(record.reason, 'kernel update', 'the reason is kept with the record on the node');
  assert.equal(record.state, 'Drained');

  // Uncordon is offered after the drain, with the note about returned nodes, behind its own confirmation.
  assert.match(await panel.textContent(), /A node being returned needs no uncordon/);
  await panel.locator('[data-testid="progress-uncordon"]').click();
  const confirmUncordon = page.locator('[data-testid="cordon-dialog"] [data-testid="dialog-confirm"]');
  await confirmUncordon.click();
  await page.locator('[data-testid="notice"]', { hasText: `${s.node} is schedulable again` }).waitFor({ timeout: 15_000 });
  await waitFor('the card to drop its cordoned badge', 15_000, async () => (await c.locator('[data-testid="node-cordoned"]').count()) === 0);
  assert.ok(!unschedulable(s.node), 'the API server agrees');
  // The card keeps the story: who drained it, and how it ended.
  assert.match(await c.locator('[data-testid="card-drain-text"]').textContent(), /Last drain by .+: Drained/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the seed\'s refusal case: emptyDir data needs the option and the typed node name', { timeout: 240_000 }, async () => {
  const s = await setUp('refusal');
  s.deployment('cache', 1, { volumes: [{ name: 'scratch', emptyDir: {} }], containers: [{ name: 'c', image: 'redis:7', volumeMounts: [{ name: 'scratch', mountPath: '/data' }] }] });
  await s.running(1);
  const [cachePod] = s.podsOnNode();

  const { context, page, errors } = await openBoard(ctx.browser, ctx.server.url);
  const c = await card(page, s.node);
  await c.locator('[data-testid="action-drain"]:not([disabled])').click();
  const dialog = page.locator('[data-testid="drain-dialog"]');
  await dialog.locator('[data-testid="group-refused"]').waitFor({ timeout: 15_000 });
  assert.deepEqual(await groupPods(dialog, 'refused'), [cachePod]);
  assert.match(await dialog.locator('[data-testid="group-refused"]').textContent(), /emptyDir data that would be lost.*needs Delete emptyDir data/);
  const confirm = dialog.locator('[data-testid="confirm-drain"]');
  assert.ok(await confirm.isDisabled());

  await dialog.locator('[data-testid="opt-delete-emptydir-data"]').check();
  assert.deepEqual(await groupPods(dialog, 'evict'), [cachePod]);
  assert.match(await dialog.locator('[data-testid="group-evict"]').textContent(), /its emptyDir data is lost/);
  assert.ok(await confirm.isDisabled(), 'a destructive option needs the node name typed');
  assert.match(await dialog.locator('[data-testid="type-name-prompt"]').textContent(), new RegExp(`Type ${s.node} to confirm: delete-emptydir-data`));
  await dialog.locator('[data-testid="type-node-name"]').fill(`${s.node}-typo`);
  assert.ok(await confirm.isDisabled(), 'a wrong name keeps confirm disabled');
  await dialog.locator('[data-testid="type-node-name"]').fill(s.node);
  assert.ok(await confirm.isEnabled());
  await page.screenshot({ path: join(artifactsDir, 'drain-dialog-emptydir.png') });
  await confirm.click();
  const panel = page.locator('[data-testid="progress-panel"]');
  await panel.locator('[data-testid="progress-state"][data-state="Drained"]').waitFor({ timeout: 60_000 });
  // The evicted pod itself is gone. Its replacement is Pending (the spare stays cordoned); should the scheduler bind
  // it to this node before it sees the cordon (its cache lags the API server; kubectl drain has the same window),
  // that pod is a new one, not the one the drain reported gone.
  assert.ok(!s.podsOnNode().includes(cachePod), `the emptyDir pod ${cachePod} is gone from the node`);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a PDB block is explained, and the drain completes once the Deployment is scaled up', { timeout: 240_000 }, async () => {
  const s = await setUp('pdb');
  s.deployment('web', 2);
  s.pdb('web-pdb', 'web', 2);
  await s.running(2);
  await waitFor('web-pdb to count 2 healthy', 30_000, () =>
    kubectl('get', 'pdb', 'web-pdb', '-n', s.ns, '-o', 'jsonpath={.status.currentHealthy}').trim() === '2');

  const { context, page, errors } = await openBoard(ctx.browser, ctx.server.url, { colorScheme: 'dark' });
  const c = await card(page, s.node);
  await c.locator('[data-testid="action-drain"]:not([disabled])').click();
  const dialog = page.locator('[data-testid="drain-dialog"]');
  // Two replicas and minAvailable 2: the budget never allows an eviction, and the preview says so rather than
  // "allows no disruption now", which would read as a wait that ends.
  await dialog.locator('[data-testid="pdb-never"]').waitFor({ timeout: 15_000 });
  assert.match(await dialog.locator('[data-testid="pdb-never"]').textContent(), /web-pdb would wait for ever: .*Scale the workload up or relax the budget first, or set a timeout/);
  assert.equal(await dialog.locator('[data-testid="pdb-will-wait"]').count(), 0);
  assert.match(await dialog.locator('[data-testid="preview-pdb"]').first().textContent(), /PDB web-pdb: allows no disruption now/);
  // Dark mode follows the system setting.
  const background = await dialog.evaluate((e) => getComputedStyle(e).backgroundColor);
  assert.equal(background, 'rgb(22, 27, 34)', 'the dialog uses the dark palette');
  await page.screenshot({ path: join(artifactsDir, 'drain-dialog-dark.png') });
  s.openSpare();
  await dialog.locator('[data-testid="confirm-drain"]').click();

  const panel = page.locator('[data-testid="progress-panel"]');
  const blocked = panel.locator('[data-testid="progress-pod"][data-state="blocked"]').first();
  await blocked.waitFor({ timeout: 30_000 });
  // The cause is said once, by the blocker, with its ways out; the state says only that the pod waits.
  assert.match(await blocked.locator('.pod-state').textContent(), /^waiting, for the reason below/);
  assert.equal((await blocked.textContent()).match(/never allows/g)?.length, 1, await blocked.textContent());
  const budget = JSON.parse(kubectl('get', 'pdb', 'web-pdb', '-n', s.ns, '-o', 'json')).status;
  assert.deepEqual([budget.expectedPods, budget.desiredHealthy], [2, 2], 'what the API server says of the budget');
  // The blocker named by its class, its object and its numbers, with the ways out.
  const blocker = blocked.locator('[data-testid="blocker"]');
  assert.equal(await blocker.getAttribute('data-class'), 'budget-never');
  assert.match(await blocker.textContent(), /^PDB web-pdb never allows an eviction: it needs 2 of its 2 pods healthy, every one/);
  assert.equal(await blocker.locator('[data-testid="blocker-fixes"]').textContent(),
    'To go on: scale its workload up by 1; relax PDB web-pdb (minAvailable or maxUnavailable); cancel the drain, or give it a timeout');
  await page.screenshot({ path: join(artifactsDir, 'progress-panel-blocked.png') });
  // Everyone's card says why the drain waits.
  assert.match(await c.locator('[data-testid="card-drain-blocked"]').textContent(), /PDB web-pdb needs all 2 of its pods healthy/);

  kubectl('scale', 'deployment', 'web', '-n', s.ns, '--replicas=3');
  await panel.locator('[data-testid="progress-state"][data-state="Drained"]').waitFor({ timeout: 90_000 });
  assert.deepEqual(s.podsOnNode(), []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('sessions: another viewer sees the drain, a reopened page re-attaches, and cancel stops it', { timeout: 240_000 }, async () => {
  const s = await setUp('session');
  s.deployment('web', 2);
  s.pdb('web-pdb', 'web', 2);
  await s.running(2);
  await waitFor('web-pdb to count 2 healthy', 30_000, () =>
    kubectl('get', 'pdb', 'web-pdb', '-n', s.ns, '-o', 'jsonpath={.status.currentHealthy}').trim() === '2');

  // A second person watches the board before the drain starts.
  const other = await openBoard(ctx.browser, ctx.server.url);
  const otherCard = await card(other.page, s.node);

  const first = await openBoard(ctx.browser, ctx.server.url);
  const c = await card(first.page, s.node);
  // The whole flow from the keyboard: focus Drain, Enter, options by keyboard, Escape closes.
  await c.locator('[data-testid="action-drain"]:not([disabled])').focus();
  await first.page.keyboard.press('Enter');
  const dialog = first.page.locator('[data-testid="drain-dialog"]');
  await dialog.locator('[data-testid="group-evict"]').waitFor({ timeout: 15_000 });
  const focusInside = () => first.page.evaluate(() => !!document.activeElement?.closest('[role="dialog"]'));
  assert.ok(await focusInside(), 'focus moves into the dialog');
  for (let i = 0; i < 25; i++) {
    await first.page.keyboard.press('Tab');
    assert.ok(await focusInside(), `focus stays in the dialog after ${i + 1} Tabs`);
  }
  await first.page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached', timeout: 5_000 });
  assert.equal(await first.page.evaluate(() => document.activeElement?.dataset.testid), 'action-drain', 'focus returns to the Drain button');
  await first.page.keyboard.press('Enter');
  await dialog.locator('[data-testid="group-evict"]').waitFor({ timeout: 15_000 });
  await dialog.locator('[data-testid="drain-reason"]').fill('hand back the machine');
  await dialog.locator('[data-testid="confirm-drain"]').focus();
  await first.page.keyboard.press('Enter');
  const panel = first.page.locator('[data-testid="progress-panel"]');
  await panel.locator('[data-testid="progress-pod"][data-state="blocked"]').first().waitFor({ timeout: 30_000 });
  const url = first.page.url();
  assert.match(url, /[?&]drain=/);

  // The other viewer's card shows the drain, who started it and why, and opens the same progress.
  await otherCard.locator('[data-testid="card-drain"][data-state="Evicting"]').waitFor({ timeout: 15_000 });
  assert.match(await otherCard.locator('[data-testid="card-drain-text"]').textContent(), /Draining, started by .+: 0\/2/);
  assert.match(await otherCard.locator('[data-testid="card-drain"]').textContent(), /hand back the machine/);
  assert.ok(await otherCard.locator('[data-testid="action-uncordon"]').isDisabled(), 'no uncordon while a drain runs');
  assert.equal(await otherCard.locator('[data-testid="action-uncordon"]').getAttribute('data-reason'), 'A drain is running: wait for it or cancel it');
  await otherCard.screenshot({ path: join(artifactsDir, 'card-draining.png') });
  await otherCard.locator('[data-testid="action-progress"]').click();
  await other.page.locator('[data-testid="progress-panel"] [data-testid="progress-pod"][data-state="blocked"]').first().waitFor({ timeout: 15_000 });

  // The wall screen shows it too, and its layout fits a large display without sideways scrolling.
  const wall = await other.context.newPage();
  await wall.setViewportSize({ width: 1920, height: 1080 });
  await wall.goto(`${ctx.server.url}/wall`);
  const wallDrain = wall.locator(`[data-testid="wall-drain"][data-node="${s.node}"]`);
  await wallDrain.waitFor({ timeout: 30_000 });
  assert.match(await wallDrain.textContent(), /0\/2 pods/);
  assert.equal(await wallDrain.locator('progress').getAttribute('max'), '2');
  await wall.locator(`[data-testid="map-cell"][data-node="${s.node}"][data-state="draining"]`).waitFor({ timeout: 15_000 });
  assert.equal(await wall.locator('button, [data-testid="action-drain"]').count(), 0, 'the wall has no controls');
  assert.ok(await wall.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scrolling on the wall');
  assert.ok(await other.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'none on the board at 1280×720');
  await wall.screenshot({ path: join(artifactsDir, 'wall-draining.png') });
  await wall.close();

  // Closing the page does not stop the drain; opening its URL again re-attaches.
  await first.context.close();
  const again = await openBoard(ctx.browser, url, { path: '' });
  const panelAgain = again.page.locator('[data-testid="progress-panel"]');
  await panelAgain.locator('[data-testid="progress-state"][data-state="Evicting"]').waitFor({ timeout: 15_000 });
  assert.match(await panelAgain.locator('[data-testid="progress-reason"]').textContent(), /hand back the machine/);

  // Cancel: the drain stops, says what is left, and the node stays cordoned.
  await panelAgain.locator('[data-testid="cancel-drain"]').click();
  await panelAgain.locator('[data-testid="progress-state"][data-state="Cancelled"]').waitFor({ timeout: 15_000 });
  assert.equal(await panelAgain.locator('[data-testid="progress-state"]').textContent(), 'Cancelled with 2 pods still on the node; the node stays cordoned');
  assert.equal(s.podsOnNode().length, 2, 'both pods are still there');
  // It looks finished: each pod row says it was not evicted, its timer has stopped, and the bar is neutral.
  const rows = panelAgain.locator('[data-testid="progress-pod"]');
  await waitFor('every row to say it was left', 10_000, async () =>
    (await rows.evaluateAll((els) => els.map((e) => e.dataset.state))).every((x) => x === 'left'));
  assert.deepEqual(await rows.locator('td.pod-state').allTextContents(), ['not evicted (cancelled)', 'not evicted (cancelled)']);
  const timers = async () => rows.locator('td.muted').allTextContents();
  const timersThen = await timers();
  await new Promise((r) => setTimeout(r, 2_500));
  assert.deepEqual(await timers(), timersThen, 'the pods\' timers stopped with the drain');
  assert.equal(await panelAgain.locator('[data-testid="progress-bar"]').getAttribute('class'), 'neutral');
  assert.ok(unschedulable(s.node));
  // And the other viewer sees the same ending.
  await other.page.locator('[data-testid="progress-panel"] [data-testid="progress-state"][data-state="Cancelled"]').waitFor({ timeout: 15_000 });
  // The Cancel button that had focus is gone, so focus has fallen to the page; Escape still closes the panel.
  assert.equal(await again.page.evaluate(() => document.activeElement === document.body), true, 'focus fell to the page');
  await again.page.keyboard.press('Escape');
  await panelAgain.waitFor({ state: 'detached', timeout: 5_000 });
  assert.deepEqual([...other.errors, ...again.errors], []);
  await again.context.close();
  await other.context.close();
});

test('cordon from the card, then the dialog\'s pod selector and server dry run change nothing', { timeout: 240_000 }, async () => {
  const s = await setUp('dry');
  s.deployment('web', 1);
  s.deployment('api', 1);
  await s.running(2);
  const { context, page, errors } = await openBoard(ctx.browser, ctx.server.url);
  const c = await card(page, s.node);

  // Cordon asks first; Cancel changes nothing.
  await c.locator('[data-testid="action-cordon"]').click();
  const cordonDialog = page.locator('[data-testid="cordon-dialog"]');
  assert.match(await cordonDialog.textContent(), /No new pods will be scheduled on this node/);
  await cordonDialog.locator('[data-testid="dialog-cancel"]').click();
  await cordonDialog.waitFor({ state: 'detached' });
  assert.ok(!unschedulable(s.node), 'cancelled: still schedulable');
  await c.locator('[data-testid="action-cordon"]').click();
  await cordonDialog.locator('[data-testid="dialog-confirm"]').click();
  await page.locator('[data-testid="notice"]', { hasText: `${s.node} is now cordoned` }).waitFor({ timeout: 15_000 });
  assert.ok(unschedulable(s.node), 'the API server agrees');
  await c.locator('[data-testid="node-cordoned"]').waitFor({ timeout: 15_000 });
  assert.equal(await c.locator('[data-testid="action-cordon"]').getAttribute('data-reason'), 'Already cordoned');
  assert.ok(await c.locator('[data-testid="action-uncordon"]').isEnabled());

  // The preview follows the cluster while the dialog is open: a pod deleted elsewhere leaves it (its replacement
  // cannot land on the cordoned node).
  await c.locator('[data-testid="action-drain"]').click();
  const dialog = page.locator('[data-testid="drain-dialog"]');
  await dialog.locator('[data-testid="group-evict"]').waitFor({ timeout: 15_000 });
  const before = await groupPods(dialog, 'evict');
  assert.equal(before.length, 2);
  const apiPod = before.find((p) => p.includes('/api-'));
  kubectl('delete', 'pod', '-n', s.ns, apiPod.split('/')[1], '--wait=false');
  await waitFor(`${apiPod} to leave the open preview`, 15_000, async () => (await groupPods(dialog, 'evict')).length === 1);
  assert.deepEqual(await groupPods(dialog, 'evict'), before.filter((p) => p !== apiPod));

  // The pod selector narrows the preview at once; a selector that does not parse says so and blocks confirm.
  await dialog.locator('[data-testid="opt-pod-selector"]').fill('app=api');
  assert.deepEqual(await groupPods(dialog, 'evict'), []);
  assert.match(await dialog.textContent(), /1 pod left out by the pod selector/);
  await dialog.locator('[data-testid="opt-pod-selector"]').fill('app=web');
  const webOnly = await groupPods(dialog, 'evict');
  assert.equal(webOnly.length, 1);
  assert.match(webOnly[0], /\/web-/);
  assert.equal(await dialog.locator('[data-testid="confirm-drain"]').textContent(), `Drain ${s.node}: evict 1 pod`);
  await dialog.locator('[data-testid="opt-pod-selector"]').fill('app in (web');
  await dialog.locator('[data-testid="selector-error"]').waitFor();
  assert.ok(await dialog.locator('[data-testid="confirm-drain"]').isDisabled());
  await dialog.locator('[data-testid="opt-pod-selector"]').fill('');
  // A bad number marks its own field, by name, and the preview stays as it was.
  await dialog.locator('[data-testid="opt-timeout"]').fill('soon');
  const timeoutField = dialog.locator('label.field:has([data-testid="opt-timeout"])');
  assert.equal(await timeoutField.locator('[data-testid="field-error"]').textContent(),
    'Timeout (s): enter a whole number of seconds, or leave it empty.');
  assert.equal(await dialog.locator('[data-testid="opt-timeout"]').getAttribute('aria-invalid'), 'true');
  assert.equal(await dialog.locator('[data-testid="field-error"]').count(), 1, 'only the bad field is marked');
  await dialog.locator('[data-testid="options-error"]').waitFor();
  assert.deepEqual(await groupPods(dialog, 'evict'), before.filter((p) => p !== apiPod), 'the preview stays');
  assert.ok(await dialog.locator('[data-testid="confirm-drain"]').isDisabled());
  assert.ok(await dialog.locator('[data-testid="server-dry-run"]').isDisabled());
  await dialog.locator('[data-testid="opt-timeout"]').fill('300');
  assert.equal(await dialog.locator('[data-testid="field-error"]').count(), 0);
  assert.equal(await dialog.locator('[data-testid="options-error"]').count(), 0);
  // Force changes nothing on this node (every pod has a controller): it asks for no typed name.
  await dialog.locator('[data-testid="opt-force"]').check();
  assert.equal(await dialog.locator('[data-testid="type-name-prompt"]').count(), 0);
  assert.ok(await dialog.locator('[data-testid="confirm-drain"]').isEnabled());
  await dialog.locator('[data-testid="drain-reason"]').fill('tried first');

  // A server dry run: the API server accepts both evictions and nothing changes.
  await dialog.locator('[data-testid="server-dry-run"]').click();
  const panel = page.locator('[data-testid="progress-panel"]');
  await panel.locator('[data-testid="progress-state"][data-state="DryRunAccepted"]').waitFor({ timeout: 30_000 });
  assert.equal(await page.locator('#progress-panel-title').textContent(), `Server dry run of ${s.node}`);
  const states = await panel.locator('[data-testid="progress-pod"]').evaluateAll((els) => els.map((e) => e.dataset.state));
  assert.deepEqual(states, ['dry-run-accepted'], 'the one pod left on the node');
  // Nothing changed, and the panel says what would have: no "pods gone", no bar that reads as done.
  assert.equal(await panel.locator('[data-testid="progress-count"]').textContent(), '1 of 1 pod would be evicted');
  assert.equal(await panel.locator('[data-testid="progress-bar"]').getAttribute('class'), 'neutral');
  assert.match(await panel.locator('[data-testid="progress-state"]').getAttribute('class'), /neutral/);
  assert.equal(await panel.locator('[data-testid="progress-uncordon"]').count(), 0, 'a dry run offers no uncordon');
  assert.deepEqual(s.podsOnNode(), webOnly, 'the dry run evicted nothing');
  // Closing the dry run goes back to the dialog as it was left, so that what runs next is what was tried.
  assert.equal(await panel.locator('[data-testid="progress-close"]').textContent(), 'Back to the drain dialog');
  await panel.locator('[data-testid="progress-close"]').click();
  await dialog.locator('[data-testid="group-evict"]').waitFor({ timeout: 15_000 });
  assert.equal(await dialog.locator('[data-testid="opt-timeout"]').inputValue(), '300');
  assert.equal(await dialog.locator('[data-testid="drain-reason"]').inputValue(), 'tried first');
  assert.equal(await dialog.locator('[data-testid="opt-force"]').isChecked(), true);
  assert.equal(await dialog.locator('[data-testid="opt-ignore-daemonsets"]').isChecked(), true);
  assert.ok(await dialog.locator('[data-testid="confirm-drain"]').isEnabled());
  // Run for real: force, which changes nothing here and was not confirmed, is not sent, and the record says so.
  await dialog.locator('[data-testid="confirm-drain"]').click();
  await panel.locator('[data-testid="progress-state"][data-state="Drained"]').waitFor({ timeout: 60_000 });
  const record = JSON.parse(kubectl('get', 'node', s.node, '-o', 'jsonpath={.metadata.annotations.drainboard\\.dev/drain}'));
  assert.equal(record.reason, 'tried first');
  assert.equal(record.options.force ?? false, false, JSON.stringify(record.options));
  assert.equal(record.options.timeout_seconds, 300);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the node detail page: the card with its actions, and every pod with what a default drain would do', { timeout: 120_000 }, async () => {
  const { context, page, errors } = await openBoard(ctx.browser, ctx.server.url);
  const c = await card(page, 'node-2');
  await c.locator('[data-testid="node-name"] a').click();
  await page.waitForURL(/\/nodes\/node-2$/);
  await page.locator('[data-testid="node-detail"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
  const detailCard = page.locator('[data-testid="node-row"][data-node="node-2"]');
  await detailCard.locator('[data-testid="action-drain"]').waitFor({ timeout: 15_000 }); // the actions are here too
  await page.locator('[data-testid="node-pod"]').first().waitFor({ timeout: 15_000 });
  const rows = await page.locator('[data-testid="node-pod"]').evaluateAll((els) =>
    els.map((e) => [e.dataset.pod, e.querySelector('td:last-child').textContent]));
  const expected = kubectl('get', 'pods', '-A', '--field-selector', 'spec.nodeName=node-2',
    '-o', 'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name}{"\\n"}{end}').split('\n').filter(Boolean).sort();
  assert.deepEqual(rows.map(([p]) => p).sort(), expected, 'every pod on the node, as the API server lists them');
  const verdict = Object.fromEntries(rows);
  assert.equal(verdict['default/debug-shell'], 'refuses it', 'a bare pod is refused by default');
  const exporter = Object.keys(verdict).find((p) => p.startsWith('monitoring/node-exporter-'));
  assert.equal(verdict[exporter], 'skips it', 'a DaemonSet pod is left in place, as the drain dialog starts');
  await page.screenshot({ path: join(artifactsDir, 'node-detail.png'), fullPage: true });

  await page.goto(`${ctx.server.url}/nodes/no-such-node`);
  await page.locator('[data-testid="node-missing"]').waitFor({ timeout: 15_000 });
  assert.deepEqual(errors, []);
  await context.close();
});

test('a drain interrupted by a server stop shows on the card and resumes from there', { timeout: 120_000 }, async () => {
  const s = await setUp('resume');
  s.deployment('web', 1);
  await s.running(1);
  kubectl('cordon', s.node);
  // What a server that stopped mid-drain leaves behind: a record that says Evicting, with no drain running.
  const record = {
    id: 'gone-server-drain', startedBy: 'alice', startedAt: new Date(Date.now() - 60_000).toISOString(),
    reason: 'rack move', options: { ignore_daemonsets: true }, state: 'Evicting', podsLeft: 1, finishedAt: null,
  };
  kubectl('annotate', 'node', s.node, `drainboard.dev/drain=${JSON.stringify(record)}`, '--overwrite');

  const { context, page, errors } = await openBoard(ctx.browser, ctx.server.url);
  const c = await card(page, s.node);
  await c.locator('[data-testid="card-drain"][data-state="Interrupted"]').waitFor({ timeout: 15_000 });
  assert.match(await c.locator('[data-testid="card-drain-text"]').textContent(), /Last drain by alice: Interrupted/);
  await c.locator('[data-testid="action-resume"]').click();
  // Resume opens the drain dialog with the recorded options and reason: the record is a claim, so nothing runs
  // until the person has seen the preview and confirmed.
  const dialog = page.locator('[data-testid="drain-dialog"]');
  await dialog.locator('[data-testid="group-evict"] [data-testid="preview-pod"]').first().waitFor({ timeout: 15_000 });
  assert.equal(await dialog.locator('[data-testid="opt-ignore-daemonsets"]').isChecked(), true, 'recorded option restored');
  assert.equal(await dialog.locator('[data-testid="drain-reason"]').inputValue(), 'rack move', 'recorded reason restored');
  assert.equal(s.podsOnNode().length, 1, 'opening the dialog evicts nothing');
  await dialog.locator('[data-testid="confirm-drain"]').click();
  const panel = page.locator('[data-testid="progress-panel"]');
  await panel.locator('[data-testid="progress-state"][data-state="Drained"]').waitFor({ timeout: 60_000 });
  assert.equal(await panel.locator('[data-testid="progress-reason"]').textContent(), 'rack move', 'resumed with the recorded reason');
  assert.deepEqual(s.podsOnNode(), []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a node that is down: the drain stops waiting for pods that cannot finish deleting, and says so', { timeout: 120_000 }, async () => {
  const s = await setUp('down');
  s.deployment('web', 1);
  await s.running(1);
  const [pod] = s.podsOnNode();
  // Nothing acts for the node any more: an evicted pod keeps its deletion timestamp and stays.
  harness('unreachable', s.node);
  const { context, page, errors } = await openBoard(ctx.browser, ctx.server.url);
  const c = await card(page, s.node);
  await c.locator('[data-testid="action-drain"]').click();
  const dialog = page.locator('[data-testid="drain-dialog"]');
  await dialog.locator('[data-testid="group-evict"]').waitFor({ timeout: 15_000 });
  await dialog.locator('[data-testid="opt-grace-period"]').fill('1');
  await dialog.locator('[data-testid="opt-skip-wait"]').fill('2');
  await dialog.locator('[data-testid="confirm-drain"]').click();
  const panel = page.locator('[data-testid="progress-panel"]');
  await panel.locator('[data-testid="progress-state"][data-state^="DrainedExceptTerminating"]').waitFor({ timeout: 60_000 });
  assert.equal(await panel.locator('[data-testid="progress-state"]').textContent(),
    'Drained except 1 pod still terminating: it was no longer waited for and is still on the node');
  assert.equal(await panel.locator(`[data-testid="progress-pod"][data-pod="${pod}"]`).getAttribute('data-state'), 'no-longer-waited');
  assert.deepEqual(s.podsOnNode(), [pod], 'the pod is really still there, deleting');
  assert.notEqual(kubectl('get', 'pod', '-n', s.ns, pod.split('/')[1], '-o', 'jsonpath={.metadata.deletionTimestamp}').trim(), '');
  assert.deepEqual(errors, []);
  await context.close();
});
