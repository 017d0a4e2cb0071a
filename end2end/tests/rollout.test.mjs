// Rolling maintenance: many nodes drained with limits, checked against the cluster's own record of each drain (the
// node's drain annotation, written when its drain starts and ends), not only the rollout's report.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { apply, artifactsDir, deletePlans, kubectl, launchBrowser, requireEnv, said, startDrainboard, waitFor } from './support.mjs';

const TAINT = 'drainboard.dev/test';
const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c(); deletePlans(); });

let server;
async function ensureServer() {
  if (!server) {
    server = await startDrainboard();
    cleanups.push(() => server.stop());
  }
  return server;
}

const call = async (path, body, headers = {}) => {
  const res = await fetch(`${(await ensureServer()).url}/api/${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
};

/** A pool of `zones.length` fresh kwok nodes, one per entry's zone, each running one pod of its own Deployment. */
async function pool(name, zones, { emptyDirOn = [] } = {}) {
  const id = `${name}-${Math.random().toString(36).slice(2, 6)}`;
  const nodes = zones.map((zone, i) => ({ name: `${id}-${i}`, zone: `${id}-${zone}` }));
  for (const n of nodes) {
    apply({ apiVersion: 'v1', kind: 'Node',
      metadata: { name: n.name, labels: { 'kwok.x-k8s.io/node': 'fake', 'kubernetes.io/hostname': n.name,
        'topology.kubernetes.io/zone': n.zone, 'drainboard.dev/pool': id } },
      spec: { taints: [{ key: TAINT, value: 'true', effect: 'NoSchedule' }] },
      status: { allocatable: { cpu: '32', memory: '128Gi', pods: '250' }, capacity: { cpu: '32', memory: '128Gi', pods: '250' } } });
  }
  cleanups.push(() => {
    try { kubectl('delete', 'node', '-l', `drainboard.dev/pool=${id}`, '--wait=false'); } catch {}
    try { kubectl('delete', 'namespace', id, '--wait=false'); } catch {}
  });
  kubectl('wait', '--for=condition=Ready', ...nodes.map((n) => `node/${n.name}`), '--timeout=60s');
  kubectl('create', 'namespace', id);
  await waitFor(`the default service account of ${id}`, 30_000, () => {
    try { kubectl('get', 'serviceaccount', 'default', '-n', id); return true; } catch { return false; }
  });
  for (const [i, n] of nodes.entries()) {
    const emptyDir = emptyDirOn.includes(i);
    apply({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: `app-${i}` },
      spec: { replicas: 1, selector: { matchLabels: { app: `app-${i}` } },
        template: { metadata: { labels: { app: `app-${i}` } }, spec: {
          nodeSelector: { 'kubernetes.io/hostname': n.name },
          tolerations: [{ key: TAINT, operator: 'Exists', effect: 'NoSchedule' }],
          containers: [{ name: 'c', image: 'nginx:1.27', ...(emptyDir ? { volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }] } : {}) }],
          ...(emptyDir ? { volumes: [{ name: 'scratch', emptyDir: {} }] } : {}),
        } } } }, id);
  }
  await waitFor('a running pod on every node', 60_000, () => {
    const out = kubectl('get', 'pods', '-n', id, '--field-selector', 'status.phase=Running', '-o', 'jsonpath={range .items[*]}{.spec.nodeName}{"\\n"}{end}');
    return nodes.every((n) => out.split('\n').includes(n.name));
  });
  return { id, nodes };
}

/** Each node's drain as the cluster recorded it on the node: [start, end] in ms, or null. */
function recorded(nodes) {
  return nodes.map((n) => {
    const text = kubectl('get', 'node', n.name, '-o', 'jsonpath={.metadata.annotations.drainboard\\.dev/drain}').trim();
    if (!text) return null;
    const r = JSON.parse(text);
    return { node: n.name, zone: n.zone, start: Date.parse(r.startedAt), end: Date.parse(r.finishedAt), state: r.state };
  });
}

/** The most intervals that overlap at any moment. */
function maxOverlap(intervals) {
  const edges = intervals.flatMap((i) => [[i.start, 1], [i.end, -1]]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0; let most = 0;
  for (const [, d] of edges) { now += d; most = Math.max(most, now); }
  return most;
}

async function finished(id) {
  return waitFor('the rollout to finish', 120_000, async () => {
    const p = (await call('plans/status', { id })).body;
    return p.finished_at ? p : null;
  });
}

const stepName = (step) => (typeof step === 'string' ? step : Object.keys(step)[0]);

test('bad rollout requests are refused with what to fix, and change nothing', { timeout: 60_000 }, async () => {
  const opts = (extra = {}) => ({ max_parallel: 2, ...extra });
  for (const [body, status, pattern] of [
    [{ nodes: [], options: opts() }, 400, /1 to 500 nodes/],
    [{ nodes: ['node-1', 'node-1'], options: opts() }, 400, /named twice/],
    [{ nodes: ['node-1'], options: opts({ max_parallel: 0 }) }, 400, /1 to 50 nodes may drain at once/],
    [{ nodes: ['Not_A_Node!'], options: opts() }, 400, /./],
    [{ nodes: ['no-such-node-xyz'], options: opts() }, 404, /does not exist/],
    [{ nodes: ['node-1', 'node-2'], options: opts({ drain: { force: true } }) }, 400, /send "confirm": "2 nodes"/],
  ]) {
    const res = await call('plans/start', body);
    assert.equal(res.status, status, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
    assert.match(said(res.body), pattern);
  }
  assert.equal((await call('plans/status', { id: 'nope' })).status, 404);
  // A foreign page cannot start one.
  const foreign = await call('plans/start', { nodes: ['node-1'], options: opts() },
    { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
  assert.equal(foreign.status, 403);
  assert.equal(kubectl('get', 'node', 'node-1', '-o', 'jsonpath={.spec.unschedulable}').trim(), '', 'node-1 untouched');
});

test('six nodes with at most two at once: never more than two draining, as the cluster recorded it', { timeout: 180_000 }, async () => {
  const p = await pool('ro-par', ['a', 'a', 'b', 'b', 'c', 'c']);
  const started = await call('plans/start', { nodes: p.nodes.map((n) => n.name), options: { max_parallel: 2 }, reason: 'kernel' });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const seen = [];
  const done = await waitFor('the rollout to finish', 120_000, async () => {
    const r = (await call('plans/status', { id: started.body })).body;
    seen.push(r.nodes.filter((n) => stepName(n.step) === 'Draining').length);
    return r.finished_at ? r : null;
  });
  assert.equal(stepName(done.state), 'Finished');
  assert.deepEqual(done.nodes.map((n) => n.step), p.nodes.map(() => ({ Ended: 'Drained' })));
  const intervals = recorded(p.nodes);
  assert.ok(intervals.every((i) => i && i.state === 'Drained'), JSON.stringify(intervals));
  assert.equal(maxOverlap(intervals), 2, `at most (and, with six nodes, exactly) two at once: ${JSON.stringify(intervals)}`);
  assert.ok(Math.max(...seen) <= 2, `the report agrees: ${seen}`);
  for (const n of p.nodes) {
    assert.equal(kubectl('get', 'node', n.name, '-o', 'jsonpath={.spec.unschedulable}').trim(), 'true', `${n.name} stays cordoned`);
  }
});

test('one per zone: two nodes of a zone never drain together', { timeout: 180_000 }, async () => {
  const p = await pool('ro-zone', ['a', 'a', 'b', 'b', 'c', 'c']);
  const started = await call('plans/start', { nodes: p.nodes.map((n) => n.name), options: { max_parallel: 6, one_per_zone: true } });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const done = await finished(started.body);
  assert.ok(done.nodes.every((n) => stepName(n.step) === 'Ended' && n.step.Ended === 'Drained'), JSON.stringify(done.nodes));
  const intervals = recorded(p.nodes);
  for (const zone of new Set(p.nodes.map((n) => n.zone))) {
    assert.equal(maxOverlap(intervals.filter((i) => i.zone === zone)), 1, `${zone}: ${JSON.stringify(intervals)}`);
  }
  assert.ok(maxOverlap(intervals) >= 2, 'zones drain side by side');
});

test('stop at the first failure leaves the other nodes untouched', { timeout: 180_000 }, async () => {
  // The first node's pod keeps data in an emptyDir, and the rollout does not allow deleting it: its drain is refused.
  const p = await pool('ro-stop', ['a', 'b', 'c'], { emptyDirOn: [0] });
  const started = await call('plans/start', { nodes: p.nodes.map((n) => n.name), options: { max_parallel: 1, stop_on_failure: true } });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const done = await finished(started.body);
  assert.deepEqual(done.nodes.map((n) => stepName(n.step)), ['Ended', 'NotStarted', 'NotStarted']);
  assert.equal(done.nodes[0].step.Ended, 'Refused');
  for (const n of p.nodes.slice(1)) {
    assert.equal(kubectl('get', 'node', n.name, '-o', 'jsonpath={.spec.unschedulable}').trim(), '', `${n.name} is not cordoned`);
    assert.equal(kubectl('get', 'node', n.name, '-o', 'jsonpath={.metadata.annotations.drainboard\\.dev/drain}').trim(), '', `${n.name} has no drain`);
  }
});

test('no budget goes below its minimum along the way, watched throughout', { timeout: 240_000 }, async () => {
  // Four nodes and a spare in one pool; one Deployment spread over the four, with a budget of at most one pod down.
  const p = await pool('ro-pdb', ['a', 'a', 'b', 'b', 'spare']);
  const [spare] = p.nodes.splice(4, 1);
  kubectl('cordon', spare.name);
  apply({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
    spec: { replicas: 4, selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: {
        nodeSelector: { 'drainboard.dev/pool': p.id },
        tolerations: [{ key: TAINT, operator: 'Exists', effect: 'NoSchedule' }],
        topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway',
          labelSelector: { matchLabels: { app: 'web' } } }],
        containers: [{ name: 'c', image: 'nginx:1.27' }],
      } } } }, p.id);
  apply({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web' },
    spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'web' } } } }, p.id);
  await waitFor('four ready web pods', 60_000, () =>
    kubectl('get', 'pdb', 'web', '-n', p.id, '-o', 'jsonpath={.status.currentHealthy}').trim() === '4');
  kubectl('uncordon', spare.name);

  // The budget's status, every change, from a watch of its own.
  const seen = [];
  const watch = spawn(join(requireEnv('DRAINBOARD_CLUSTER_BIN'), 'kubectl'), ['--kubeconfig', requireEnv('KUBECONFIG'),
    'get', 'pdb', 'web', '-n', p.id, '--watch', '-o', 'jsonpath={.status.currentHealthy} {.status.desiredHealthy}{"\\n"}']);
  let buffered = '';
  watch.stdout.on('data', (d) => {
    buffered += d;
    const lines = buffered.split('\n');
    buffered = lines.pop();
    for (const line of lines) {
      const [current, desired] = line.trim().split(' ').map(Number);
      if (Number.isFinite(current) && Number.isFinite(desired)) seen.push({ current, desired });
    }
  });
  cleanups.push(() => watch.kill());

  const started = await call('plans/start', { nodes: p.nodes.map((n) => n.name), options: { max_parallel: 2 } });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const done = await finished(started.body);
  assert.ok(done.nodes.every((n) => stepName(n.step) === 'Ended' && n.step.Ended === 'Drained'), JSON.stringify(done.nodes));
  watch.kill();
  assert.ok(seen.length >= 3, `the watch saw the budget change: ${JSON.stringify(seen)}`);
  const below = seen.filter((s) => s.current < s.desired);
  assert.deepEqual(below, [], `never fewer healthy pods than the budget's minimum: ${JSON.stringify(seen)}`);
  assert.ok(seen.some((s) => s.current === s.desired), 'the budget was at its minimum at times: the limit was exercised');
});

const unschedulable = (node) => kubectl('get', 'node', node, '-o', 'jsonpath={.spec.unschedulable}').trim() === 'true';
/**
 * The nodes of `pool` that are cordoned, read in one list: one moment of the cluster. Two reads one after the other
 * can see a node still cordoned and the next one cordoned already, a moment that never was.
 */
const cordonedIn = (pool) => kubectl('get', 'nodes', '-l', `drainboard.dev/pool=${pool}`, '-o',
  'jsonpath={range .items[?(@.spec.unschedulable==true)]}{.metadata.name}{"\\n"}{end}').split('\n').filter(Boolean);
const bootId = (node, id) => kubectl('patch', 'node', node, '--subresource=status', '--type=merge',
  '-p', JSON.stringify({ status: { nodeInfo: { bootID: id } } }));

test('uncordon when back: a node that reboots is uncordoned, and one a person says is back', { timeout: 180_000 }, async () => {
  const p = await pool('ro-back', ['a', 'b']);
  for (const n of p.nodes) bootId(n.name, `${n.name}-boot-1`);
  const started = await call('plans/start', { nodes: p.nodes.map((n) => n.name), options: { max_parallel: 2, uncordon_when_back: true } });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const id = started.body;
  const waiting = await waitFor('both nodes drained and awaited back', 90_000, async () => {
    const r = (await call('plans/status', { id })).body;
    return r.nodes.every((n) => n.back && Object.keys(n.back)[0] === 'Waiting') ? r : null;
  });
  assert.equal(waiting.state, 'Running', 'a rollout awaiting its nodes has not finished');
  assert.deepEqual(waiting.nodes.map((n) => n.back.Waiting), p.nodes.map((n) => `${n.name}-boot-1`));
  assert.ok(p.nodes.every((n) => unschedulable(n.name)), 'drained nodes stay cordoned until they are back');

  // The first reboots: a new boot id, and Ready.
  bootId(p.nodes[0].name, `${p.nodes[0].name}-boot-2`);
  await waitFor('the rebooted node to be uncordoned', 30_000, () => !unschedulable(p.nodes[0].name));
  assert.ok(unschedulable(p.nodes[1].name), 'the other is still awaited');

  // The second: a person says it is back. Bad requests first.
  for (const [body, status, pattern] of [
    [{ id: 'nope', node: p.nodes[1].name }, 404, /no maintenance plan named nope/],
    [{ id, node: 'Not_A_Node!' }, 400, /not a node name/],
    [{ id, node: p.nodes[0].name }, 400, /not awaited back/],
  ]) {
    const res = await call('plans/back', body);
    assert.equal(res.status, status, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
    assert.match(said(res.body), pattern);
  }
  const foreign = await call('plans/back', { id, node: p.nodes[1].name }, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
  assert.equal(foreign.status, 403);
  assert.ok(unschedulable(p.nodes[1].name), 'a refused request changes nothing');
  const back = await call('plans/back', { id, node: p.nodes[1].name });
  assert.equal(back.status, 200, JSON.stringify(back.body));
  assert.ok(!unschedulable(p.nodes[1].name), 'uncordoned when the answer came');
  const done = await finished(id);
  assert.equal(done.state, 'Finished');
  assert.deepEqual(done.nodes.map((n) => n.back), ['Uncordoned', 'Uncordoned']);
  const listed = (await call('rollouts', {})).body;
  assert.equal(listed[0].id, id, 'the list shows the latest first');
});

test('one per zone with uncordon when back keeps a zone serving: its next node waits until the first is back and uncordoned', { timeout: 180_000 }, async () => {
  const p = await pool('ro-serve', ['a', 'a', 'b']);
  for (const n of p.nodes) bootId(n.name, `${n.name}-boot-1`);
  const [a0, a1, b0] = p.nodes.map((n) => n.name);
  const started = await call('plans/start', { nodes: [a0, a1, b0], options: { max_parallel: 3, one_per_zone: true, uncordon_when_back: true } });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const id = started.body;
  // Zone a never has both its nodes cordoned, watched from the cluster throughout.
  let bothCordoned = 0;
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      const cordoned = cordonedIn(p.id);
      if (cordoned.includes(a0) && cordoned.includes(a1)) bothCordoned++;
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  try {
    const waiting = await waitFor(`${a0} and ${b0} drained and awaited back`, 90_000, async () => {
      const r = (await call('plans/status', { id })).body;
      const back = (name) => r.nodes.find((n) => n.name === name).back;
      return back(a0)?.Waiting && back(b0)?.Waiting ? r : null;
    });
    await new Promise((r) => setTimeout(r, 3000));
    const still = (await call('plans/status', { id })).body;
    assert.equal(stepName(still.nodes.find((n) => n.name === a1).step), 'Queued', `${a1} waits for ${a0}: ${JSON.stringify(still.nodes)}`);
    assert.equal(waiting.state, 'Running');
    assert.ok(!unschedulable(a1), `${a1} still serves zone a`);
    // a0 reboots: it is uncordoned, and only then does a1 start.
    bootId(a0, `${a0}-boot-2`);
    await waitFor(`${a1} to start once ${a0} is back`, 60_000, async () => {
      const r = (await call('plans/status', { id })).body;
      return stepName(r.nodes.find((n) => n.name === a1).step) !== 'Queued';
    });
    assert.ok(!unschedulable(a0), `${a0} was uncordoned first`);
    await waitFor(`${a1} awaited back`, 90_000, async () => {
      const r = (await call('plans/status', { id })).body;
      return r.nodes.find((n) => n.name === a1).back?.Waiting;
    }).catch(async (e) => {
      // What the plan and the server said of it, for whoever reads a failure.
      const r = (await call('plans/status', { id })).body;
      const said = server.logs().split('\n').filter((l) => l.includes(a1)).slice(-30).join('\n');
      throw new Error(`${e.message}\n${JSON.stringify(r.nodes.find((n) => n.name === a1))}\n${said}`);
    });
    bootId(a1, `${a1}-boot-2`);
    bootId(b0, `${b0}-boot-2`);
    const done = await finished(id);
    assert.equal(done.state, 'Finished');
    assert.deepEqual(done.nodes.map((n) => n.back), ['Uncordoned', 'Uncordoned', 'Uncordoned']);
  } finally {
    watching = false;
    await watcher;
  }
  assert.equal(bothCordoned, 0, 'zone a always kept a schedulable node');
});

test('in the browser: choose nodes by label and by card, one plan, then pause, resume and stop the rollout', { timeout: 180_000 }, async () => {
  // The second node's pod keeps emptyDir data: the plan refuses it until the option is on.
  const p = await pool('ro-ui', ['a', 'a', 'b'], { emptyDirOn: [1] });
  // The first node's only pod is held by a budget that allows no disruption: its drain waits, and the rollout with it.
  apply({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'hold' },
    spec: { minAvailable: 1, selector: { matchLabels: { app: 'app-0' } } } }, p.id);
  await waitFor('the budget to count its pod', 30_000, () =>
    kubectl('get', 'pdb', 'hold', '-n', p.id, '-o', 'jsonpath={.status.currentHealthy}/{.status.disruptionsAllowed}').trim() === '1/0');
  const browser = await launchBrowser();
  cleanups.push(() => browser.close());
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto((await ensureServer()).url);
  await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
  await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 30_000 });

  // A card's conditions as the API's JSON, written when opened.
  const first = page.locator('[data-testid="node-row"]').first();
  await first.locator('.conditions-json summary').click();
  // Written once the details open: read it when it is there.
  const written = await waitFor('the conditions JSON', 10_000, async () =>
    (await first.locator('[data-testid="conditions-json"]').textContent()).trim());
  const json = JSON.parse(written);
  assert.ok(json.some((c) => c.type === 'Ready' && c.status === 'True' && c.lastHeartbeatTime), JSON.stringify(json));

  // By label selector: every node the filters show.
  await page.fill('[data-testid="label-filter"]', `drainboard.dev/pool in (${p.id}`);
  await page.locator('[data-testid="label-filter-error"]').waitFor({ timeout: 5_000 });
  assert.equal(await page.locator('[data-testid="node-row"]').count(), 0, 'an unreadable selector matches no node');
  await page.fill('[data-testid="label-filter"]', `drainboard.dev/pool in (${p.id}, other), !no-such-label`);
  await page.locator('[data-testid="node-row"]').nth(2).waitFor({ timeout: 15_000 });
  await page.locator('[data-testid="select-shown"]').click();
  assert.equal(await page.locator('[data-testid="selected-count"]').getAttribute('data-count'), '3');
  // By card: the third is left out.
  await page.locator(`[data-testid="node-row"][data-node="${p.nodes[2].name}"] [data-testid="card-select"]`).uncheck();
  assert.equal(await page.locator('[data-testid="selected-count"]').getAttribute('data-count'), '2');
  await page.locator('[data-testid="open-rollout"]').click();

  const dialog = page.locator('[data-testid="rollout-dialog"]');
  await dialog.locator('[data-testid="rollout-plan-node"]').nth(1).waitFor({ timeout: 15_000 });
  const plan = await dialog.locator('[data-testid="rollout-plan-node"]').evaluateAll((els) => els.map((e) => [e.dataset.node, e.dataset.blocked, e.textContent]));
  assert.deepEqual(plan.map(([n, b]) => [n, b]), [[p.nodes[0].name, 'false'], [p.nodes[1].name, 'true']]);
  assert.match(plan[0][2], /1 to evict, 0 refused, 1 held by budgets/);
  // Start says why it is disabled: the refused pod, its node, and the option that would take it.
  const why = () => dialog.locator('[data-testid="rollout-why"]').allTextContents();
  const refusedPod = kubectl('get', 'pods', '-n', p.id, '-l', 'app=app-1', '-o', 'jsonpath={.items[0].metadata.name}').trim();
  assert.deepEqual((await why()).filter((t) => t.includes(refusedPod)),
    [`${p.nodes[1].name}: ${p.id}/${refusedPod} is refused (has emptyDir data that would be lost); needs Delete emptyDir data.`]);
  assert.ok(await dialog.locator('[data-testid="confirm-rollout"]').isDisabled());
  assert.match(await dialog.locator('[data-testid="rollout-draining-note"]').textContent(), /cordoned when its own drain starts/);
  // Both chosen nodes are in one zone: without one per zone the dialog warns; with it, that drained nodes stay
  // cordoned unless they are uncordoned once back.
  const zoneA = `${p.nodes[0].zone} (${p.nodes[0].name}, ${p.nodes[1].name})`;
  assert.ok((await dialog.locator('[data-testid="rollout-zone-warning"]').textContent()).includes(zoneA));
  await dialog.locator('[data-testid="rollout-one-per-zone"]').check();
  assert.equal(await dialog.locator('[data-testid="rollout-zone-warning"]').count(), 0);
  assert.ok((await dialog.locator('[data-testid="rollout-zone-note"]').textContent()).includes(zoneA));
  await dialog.locator('[data-testid="rollout-uncordon-when-back"]').check();
  assert.equal(await dialog.locator('[data-testid="rollout-zone-note"]').count(), 0, 'both set: nothing to warn of');
  await dialog.locator('[data-testid="rollout-uncordon-when-back"]').uncheck();
  await dialog.locator('[data-testid="rollout-one-per-zone"]').uncheck();
  await dialog.locator('[data-testid="rollout-max-parallel"]').fill('0');
  assert.ok(await dialog.locator('[data-testid="confirm-rollout"]').isDisabled(), 'a parallelism out of range cannot be confirmed');
  assert.ok((await why()).includes('A setting above that is out of range: its field says what it takes.'));
  await dialog.locator('[data-testid="rollout-max-parallel"]').fill('1');
  // A destructive option asks for the number of nodes, typed; the plan of the new options takes the pod.
  await dialog.locator('[data-testid="opt-delete-emptydir-data"]').check();
  assert.match(await dialog.locator('[data-testid="type-name-prompt"]').textContent(), /Type 2 nodes to confirm/);
  await waitFor('the plan with the option', 15_000, async () =>
    JSON.stringify(await why()) === JSON.stringify(['2 nodes typed below, to confirm the options that cannot be undone.']));
  assert.ok(await dialog.locator('[data-testid="confirm-rollout"]').isDisabled());
  await dialog.locator('[data-testid="type-node-name"]').fill('2 nodes');
  const confirm = dialog.locator('[data-testid="confirm-rollout"]');
  await waitFor('the plan of the options now', 15_000, () => confirm.isEnabled());
  // After each node: a settle time, and, when nodes are uncordoned once back, the checks they must pass, each
  // held to the server's bounds before it can be confirmed.
  await dialog.locator('[data-testid="rollout-settle"]').fill('3601');
  await dialog.locator('[data-testid="rollout-settle-error"]').waitFor({ timeout: 5_000 });
  assert.ok(await confirm.isDisabled(), 'a settle time out of range cannot be confirmed');
  await dialog.locator('[data-testid="rollout-settle"]').fill('5');
  assert.equal(await dialog.locator('[data-testid="rollout-verify"]').count(), 0, 'no checks without uncordoning once back');
  await dialog.locator('[data-testid="rollout-uncordon-when-back"]').check();
  await dialog.locator('[data-testid="rollout-verify"]').check();
  await dialog.locator('[data-testid="rollout-verify-deadline"]').fill('0');
  await dialog.locator('[data-testid="rollout-verify-error"]').waitFor({ timeout: 5_000 });
  assert.ok(await confirm.isDisabled(), 'a deadline out of range cannot be confirmed');
  await dialog.locator('[data-testid="rollout-verify-deadline"]').fill('15');
  await dialog.locator('[data-testid="rollout-verify-kubelet"]').fill('v1.36');
  await waitFor('the settings to be confirmable', 5_000, () => confirm.isEnabled());
  assert.equal(await confirm.textContent(), 'Start: drain 2 nodes, at most 1 at once');
  await page.screenshot({ path: join(artifactsDir, 'rollout-dialog.png') });
  await confirm.click();
  await dialog.waitFor({ state: 'detached', timeout: 15_000 });
  // The chosen nodes are the rollout's now: the selection clears.
  await waitFor('the selection to clear', 5_000, async () => (await page.locator('[data-testid="selected-count"]').count()) === 0);
  assert.equal(await page.locator(`[data-testid="node-row"][data-node="${p.nodes[0].name}"] [data-testid="card-select"]`).isChecked(), false);

  // Followed by its id: once ended it moves below the rollouts still running.
  const planId = await page.locator('[data-testid="rollout"]').first().getAttribute('data-id');
  const rollout = page.locator(`[data-testid="rollout"][data-id="${planId}"]`);
  const made = JSON.parse(kubectl('get', 'maintenanceplan', planId, '-o', 'json')).spec;
  assert.deepEqual([made.settleSeconds, made.uncordonWhenBack, made.verify.deadlineSeconds, made.verify.kubeletVersion, made.verify.kernelVersion],
    [5, true, 900, 'v1.36', undefined], 'the plan carries what the dialog asked');
  const row = (i) => rollout.locator(`[data-testid="rollout-node"][data-node="${p.nodes[i].name}"]`);
  await rollout.locator(`[data-testid="rollout-node"][data-node="${p.nodes[0].name}"][data-step="draining"]`).waitFor({ timeout: 15_000 });
  assert.equal(await row(1).getAttribute('data-step'), 'queued', 'one at a time: the second waits');
  await rollout.locator('[data-testid="rollout-pause"]').click();
  await page.locator('[data-testid="rollout"][data-state="paused"]').first().waitFor({ timeout: 10_000 });
  await rollout.locator('[data-testid="rollout-resume"]').click();
  await page.locator('[data-testid="rollout"][data-state="running"]').first().waitFor({ timeout: 10_000 });
  await page.screenshot({ path: join(artifactsDir, 'rollout-panel.png') });
  // Stop asks first; keeping it running changes nothing.
  await rollout.locator('[data-testid="rollout-stop"]').click();
  assert.match(await rollout.locator('[data-testid="rollout-stop-ask"]').textContent(), /drains running are cancelled/);
  await rollout.locator('[data-testid="rollout-stop-keep"]').click();
  assert.equal(await rollout.locator('[data-testid="rollout-stop-ask"]').count(), 0);
  assert.equal(await rollout.getAttribute('data-state'), 'running');
  assert.equal(JSON.parse(kubectl('get', 'maintenanceplan', planId, '-o', 'json')).spec.cancelled ?? false, false);
  await rollout.locator('[data-testid="rollout-stop"]').click();
  await rollout.locator('[data-testid="rollout-stop-confirm"]').click();
  // An ended rollout folds away below those still running.
  const ended = page.locator('[data-testid="rollouts-ended"]');
  await ended.waitFor({ timeout: 30_000 });
  assert.equal(await ended.evaluate((e) => e.open), false, 'folded');
  await ended.locator('summary').click();
  await page.locator(`[data-testid="rollout"][data-id="${planId}"][data-state="cancelled"]`).waitFor({ timeout: 30_000 });
  assert.equal(await row(0).getAttribute('data-step'), 'failed');
  assert.equal(await row(1).getAttribute('data-step'), 'not-started');
  assert.ok(unschedulable(p.nodes[0].name), 'the node whose drain was stopped stays cordoned');
  assert.ok(!unschedulable(p.nodes[1].name), 'the node never started was never cordoned');
  // Its drain's per-pod detail opens from the row.
  await row(0).locator('[data-testid="rollout-node-details"]').click();
  await page.locator('[data-testid="progress-panel"]').waitFor({ timeout: 10_000 });
  assert.deepEqual(errors, []);
});
