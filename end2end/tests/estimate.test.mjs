// How long a drain should take, before anyone clicks, and afterwards its real time beside it. A node holds three
// pods of one Deployment under a budget that allows one; kwok deletes each 6 s after its eviction (a pod that takes
// 6 s of its 20 s grace period to stop). The drain dialog shows a range, the drain's end in the history shows the
// real time beside the estimate that was shown, and the next drain's estimate has learned from the first. The
// plan dialog and `plans/estimate` give a plan's total, and a plan records it, node by node, as it starts.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { apply, kubectl, scenario, useServerAndBrowser, waitFor, openBoard as openBoardOf } from './support.mjs';

const ctx = useServerAndBrowser();
const cleanups = [];
after(() => cleanups.reverse().forEach((c) => c()));

async function call(endpoint, body, headers = {}) {
  const res = await fetch(`${ctx.server.url}/api/${endpoint}`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body),
  });
  const text = await res.text();
  let json;
  try { json = JSON.parse(text); } catch { json = text; }
  return { status: res.status, json };
}

/** The scenario: three pods on the node, each stopping 6 s after its eviction, under a budget allowing one. */
async function setUp(name) {
  const s = await scenario(name);
  cleanups.push(() => s.cleanup());
  apply({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
    spec: { replicas: 3, selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' }, annotations: { 'pod-delete.stage.kwok.x-k8s.io/delay': '6s' } },
        spec: { nodeSelector: { 'drainboard.dev/pool': s.node },
          tolerations: [{ key: 'drainboard.dev/test', operator: 'Exists', effect: 'NoSchedule' }],
          terminationGracePeriodSeconds: 20, containers: [{ name: 'c', image: 'nginx:1.27' }] } } } }, s.ns);
  apply({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web-pdb' },
    spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'web' } } } }, s.ns);
  await s.running(3);
  await budgetAllowsOne(s);
  s.openSpare();
  return s;
}

async function budgetAllowsOne(s) {
  await waitFor('web-pdb to allow one disruption', 30_000, () =>
    kubectl('get', 'pdb', 'web-pdb', '-n', s.ns, '-o', 'jsonpath={.status.currentHealthy}/{.status.disruptionsAllowed}').trim() === '3/1');
}

const openBoard = () => openBoardOf(ctx.browser, ctx.server.url);

/** Opens the node's drain dialog and reads its estimate: its numbers, its basis and its words. */
async function dialogEstimate(page, node) {
  await page.fill('[data-testid="node-filter"]', node);
  const card = page.locator(`[data-testid="node-row"][data-node="${node}"]`);
  await card.locator('[data-testid="action-drain"]:not([disabled])').click();
  const dialog = page.locator('[data-testid="drain-dialog"]');
  const line = dialog.locator('[data-testid="drain-estimate"]');
  await line.waitFor({ timeout: 15_000 });
  const read = async (name) => Number(await line.getAttribute(`data-${name}`));
  return {
    dialog, card,
    low: await read('low'), likely: await read('likely'), high: await read('high'),
    basis: await line.getAttribute('data-basis'), text: (await line.textContent()).trim(),
  };
}

/** The node's history entry of drain `id`'s end, once it is there. */
async function ended(node, id) {
  return waitFor(`the end of drain ${id} in ${node}'s history`, 60_000, async () => {
    const { json } = await call('nodes/history', { node });
    return Array.isArray(json) && json.find((e) => e.action === 'DrainEnded' && e.drain_id === id);
  });
}

test('the drain dialog estimates, the history shows the real time beside it, and the next estimate learns', async () => {
  const s = await setUp('estimate');
  const { context, page, errors } = await openBoard();

  const first = await dialogEstimate(page, s.node);
  assert.ok(first.low <= first.likely && first.likely <= first.high, JSON.stringify(first));
  assert.ok(first.high >= 20, `a pod may take its whole 20 s grace period: ${JSON.stringify(first)}`);
  // One budget allowing one: the second and third evictions each wait for a replacement to be Ready.
  assert.ok(first.high >= 20 + 2, `the budget's waits come before the last pod's grace: ${JSON.stringify(first)}`);
  assert.match(first.text, /^Should take about \S+ \(\S+ to \S+\)/);
  if (first.basis === 'grace') assert.ok(first.likely >= 20, 'with no past drain, the likely value takes the grace period');

  await first.dialog.locator('[data-testid="confirm-drain"]:not([disabled])').click();
  const id = await first.card.locator('[data-testid="card-drain"][data-drain-id]').getAttribute('data-drain-id', { timeout: 15_000 });
  const end = await ended(s.node, id);
  assert.equal(end.ended, 'Drained', JSON.stringify(end));
  const timing = end.timing;
  assert.ok(timing, `the end records its timing: ${JSON.stringify(end)}`);
  // The estimate made as the drain started is the one the dialog showed: the same pods, budget and history.
  assert.deepEqual([timing.estimate.low_seconds, timing.estimate.likely_seconds, timing.estimate.high_seconds],
    [first.low, first.likely, first.high], JSON.stringify(timing));
  assert.ok(timing.stop_seconds >= 5 && timing.stop_seconds <= 9, `kwok deletes each pod 6 s after its eviction: ${JSON.stringify(timing)}`);
  assert.ok(timing.took_seconds >= 6 && timing.took_seconds <= first.high + 10, JSON.stringify(timing));

  // The node's page shows the real time beside the estimate.
  await page.goto(`${ctx.server.url}/nodes/${s.node}`);
  const took = page.locator(`[data-testid="history-entry"][data-drain-id="${id}"][data-action="DrainEnded"] [data-testid="history-took"]`);
  await took.waitFor({ timeout: 15_000 });
  assert.equal(Number(await took.getAttribute('data-took')), timing.took_seconds);
  assert.equal(Number(await took.getAttribute('data-likely')), first.likely);
  assert.match(await took.textContent(), /It took \S+; expected about \S+ \(\S+ to \S+\)/);

  // The pods back on the node, and a second look: the estimate now learns from this node's drain.
  kubectl('cordon', s.spare);
  kubectl('uncordon', s.node);
  kubectl('delete', 'pods', '-n', s.ns, '-l', 'app=web', '--wait=false');
  await s.running(3);
  await budgetAllowsOne(s);
  kubectl('uncordon', s.spare);
  await page.goto(ctx.server.url + '/');
  await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
  const second = await dialogEstimate(page, s.node);
  assert.equal(second.basis, 'own', JSON.stringify(second));
  assert.match(second.text, /learned from this node's last drain/);
  assert.ok(second.likely < first.high, `learned stops are shorter than the grace period: ${JSON.stringify(second)}`);
  // Not a timing test: the learned estimate is in the real drain's neighbourhood, not to the second.
  assert.ok(second.likely >= timing.took_seconds / 2 && second.likely <= timing.took_seconds * 2,
    `likely ${second.likely} s against the ${timing.took_seconds} s the first drain took`);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a plan\'s estimate: the dialog and plans/estimate give its total, and the plan records it node by node', async () => {
  const s = await setUp('plan-estimate');
  const options = { max_parallel: 1, stop_on_failure: true, drain: { ignore_daemonsets: true } };

  // Bad input and other origins, before anything.
  for (const [body, why] of [
    [{ nodes: ['../x'], options }, /is not a node name/],
    [{ nodes: [], options }, /name 1 to/],
    [{ nodes: [s.node], options: { ...options, max_parallel: 0 } }, /at most 1 to 50/],
    [{ nodes: [s.node], options: { ...options, drain: { timeout_seconds: -1 } } }, /cannot be read/],
  ]) {
    const res = await call('plans/estimate', body);
    assert.equal(res.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(res.json)}`);
    assert.match(JSON.stringify(res.json), why);
  }
  const missing = await call('plans/estimate', { nodes: ['no-such-node-here'], options });
  assert.equal(missing.status, 404, JSON.stringify(missing.json));
  const foreign = await call('plans/estimate', { nodes: [s.node], options }, { origin: 'http://evil.example' });
  assert.equal(foreign.status, 403, JSON.stringify(foreign.json));

  const asked = await call('plans/estimate', { nodes: [s.node], options });
  assert.equal(asked.status, 200, JSON.stringify(asked.json));
  const total = asked.json.Ok.total;
  assert.equal(asked.json.Ok.nodes.length, 1);
  assert.ok(total.low_seconds <= total.likely_seconds && total.likely_seconds <= total.high_seconds && total.high_seconds >= 20,
    JSON.stringify(total));

  // The plan dialog shows the same total.
  const { context, page, errors } = await openBoard();
  await page.fill('[data-testid="node-filter"]', s.node);
  await page.locator(`[data-testid="node-row"][data-node="${s.node}"] [data-testid="card-select"]`).check();
  await page.locator('[data-testid="open-rollout"]').click();
  const line = page.locator('[data-testid="rollout-dialog"] [data-testid="plan-estimate"]');
  await line.waitFor({ timeout: 15_000 });
  assert.match(await line.textContent(), /^The maintenance plan should take about/);
  assert.ok(Number(await line.getAttribute('data-high')) >= 20);
  assert.deepEqual(errors, []);
  await context.close();

  // Started, the plan records its estimate and each node's, and the node's drain keeps its part. It is started
  // without max_parallel: 1, the resource's default too.
  const { max_parallel: _unsaid, ...defaulted } = options;
  const started = await call('plans/start', { nodes: [s.node], options: defaulted, reason: 'estimate test' });
  assert.equal(started.status, 200, JSON.stringify(started.json));
  const plan = started.json;
  const jsonpath = (path) => kubectl('get', 'maintenanceplan', plan, '-o', `jsonpath=${path}`).trim();
  assert.equal(jsonpath('{.spec.maxParallel}'), '1', 'max_parallel not given is 1');
  await waitFor(`plan ${plan} to complete`, 90_000, () => jsonpath('{.status.phase}') === 'Complete');
  const recorded = JSON.parse(jsonpath('{.status.estimate}'));
  assert.ok(recorded.highSeconds >= 20 && recorded.likelySeconds >= recorded.lowSeconds, JSON.stringify(recorded));
  const node = JSON.parse(jsonpath('{.status.nodes[0].estimate}'));
  assert.equal(node.likelySeconds, recorded.likelySeconds, 'one node: its drain is the whole plan');
  const id = jsonpath('{.status.nodes[0].drainId}');
  const end = await ended(s.node, id);
  assert.equal(end.timing.estimate.likely_seconds, node.likelySeconds, JSON.stringify(end.timing));
  assert.ok(end.timing.took_seconds > 0, JSON.stringify(end.timing));
});
