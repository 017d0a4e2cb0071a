// Drainboard's own node lifecycle conditions (KEP-5683), as `kubectl get node -o json` shows them: a team server
// publishes each drain as DrainInProgress and Drained with its own identity, removes its own on uncordon and from a
// node uncordoned outside it, and never touches another writer's condition. A plan publishes MaintenancePlanned on
// the nodes it queues and MaintenanceInProgress on those it awaits back, and clears them as it goes.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { MAINTAIN, inlineKubeconfig, kubectl, metric, postAs, scenario, startDrainboard, waitFor, signInWith as signIn } from './support.mjs';
import { hold, pool } from './plan-support.mjs';

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c(); });

/** The node's lifecycle conditions by type, as the API server holds them. */
function lifecycle(node, types = ['DrainInProgress', 'Drained']) {
  const conditions = JSON.parse(kubectl('get', 'node', node, '-o', 'json')).status.conditions ?? [];
  return Object.fromEntries(conditions.filter((c) => types.includes(c.type)).map((c) => [c.type, c]));
}
const PLAN_TYPES = ['MaintenancePlanned', 'MaintenanceInProgress'];

/** Who wrote the node's status conditions last, as the API server's managed fields record it. */
function managers(node) {
  const managed = JSON.parse(kubectl('get', 'node', node, '-o', 'json', '--show-managed-fields')).metadata.managedFields ?? [];
  return managed.filter((m) => m.subresource === 'status').map((m) => m.manager);
}

/** A scenario whose drain is held by a budget (two replicas, both must stay) until `release()`. */
async function held(name) {
  const s = await scenario(name);
  cleanups.push(() => s.cleanup());
  s.deployment('web', 2);
  s.pdb('web', 'web', 2);
  await s.running(2);
  return { s, release: () => { s.openSpare(); kubectl('delete', 'pdb', 'web', '-n', s.ns); } };
}

test('a drain is published as DrainInProgress, then Drained once safe; its uncordon removes both', { timeout: 180_000 }, async () => {
  const { s, release } = await held('lc');
  const server = await startDrainboard(['--team', '--insecure-http']);
  cleanups.push(() => server.stop());
  const alice = await signIn(server, inlineKubeconfig('lc-alice', MAINTAIN));
  const written = await metric(server, 'drainboard_node_condition_writes_total', { outcome: 'written' }, { cookie: alice });

  const started = await postAs(server.url, 'drains/start', alice, { node: s.node, reason: 'kernel 6.12' });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const running = await waitFor('DrainInProgress True', 30_000, () => {
    const c = lifecycle(s.node);
    return c.DrainInProgress?.status === 'True' ? c : null;
  });
  assert.equal(running.DrainInProgress.reason, 'DrainboardDrainStarted');
  assert.deepEqual([running.Drained?.status, running.Drained?.reason], ['False', 'DrainboardDrainStarted'], 'Drained False beside it');
  assert.match(running.DrainInProgress.message, new RegExp(`drain ${started.body.id} by lc-alice \\(kernel 6\\.12\\)`));
  assert.ok(managers(s.node).includes('drainboard-lifecycle'), `written by the server's field manager: ${managers(s.node)}`);

  release();
  const done = await waitFor('Drained True', 60_000, () => {
    const c = lifecycle(s.node);
    return c.Drained?.status === 'True' ? c : null;
  });
  assert.deepEqual([done.DrainInProgress.status, done.DrainInProgress.reason], ['False', 'DrainboardDrainCompleted']);
  assert.equal(done.Drained.reason, 'DrainboardDrainCompleted');
  assert.ok(Date.parse(done.Drained.lastTransitionTime) >= Date.parse(running.DrainInProgress.lastTransitionTime),
    'Drained turned True after the drain began');
  const status = await postAs(server.url, 'drains/status', alice, { id: started.body.id });
  assert.equal(status.body.state, 'Drained', 'Drained exactly when the drain says safe to reboot');
  assert.ok(await metric(server, 'drainboard_node_condition_writes_total', { outcome: 'written' }, { cookie: alice }) >= written + 2,
    'the writes are counted');

  const uncordoned = await postAs(server.url, 'nodes/uncordon', alice, { node: s.node });
  assert.equal(uncordoned.status, 200, JSON.stringify(uncordoned.body));
  assert.deepEqual(lifecycle(s.node), {}, 'its uncordon removed both, before it answered');
});

test("another writer's condition is left as it is; a node uncordoned outside Drainboard loses only Drainboard's", { timeout: 180_000 }, async () => {
  const { s, release } = await held('lc-other');
  // kubectl's proposed --report-node-conditions, written the way it writes it: a strategic merge on nodes/status.
  const theirs = { type: 'DrainInProgress', status: 'True', reason: 'KubectlDrainStarted',
    message: 'kubectl drain started processing this Node', lastTransitionTime: '2026-12-01T00:00:00Z',
    lastHeartbeatTime: '2026-12-01T00:00:00Z' };
  kubectl('patch', 'node', s.node, '--subresource=status', '--type=strategic', '-p',
    JSON.stringify({ status: { conditions: [theirs] } }));
  const server = await startDrainboard(['--team', '--insecure-http']);
  cleanups.push(() => server.stop());
  const alice = await signIn(server, inlineKubeconfig('lc-alice2', MAINTAIN));
  const started = await postAs(server.url, 'drains/start', alice, { node: s.node });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  release();
  await waitFor('Drained True', 60_000, () => lifecycle(s.node).Drained?.status === 'True');
  const after = lifecycle(s.node);
  assert.deepEqual(
    [after.DrainInProgress.reason, after.DrainInProgress.status, after.DrainInProgress.lastTransitionTime],
    [theirs.reason, 'True', theirs.lastTransitionTime], "kubectl's DrainInProgress is untouched");

  // Uncordoned outside Drainboard: its own Drained is swept off, kubectl's condition stays (it is theirs to clear).
  kubectl('uncordon', s.node);
  await waitFor("Drainboard's Drained removed", 30_000, () => !lifecycle(s.node).Drained);
  assert.equal(lifecycle(s.node).DrainInProgress?.reason, theirs.reason, "kubectl's condition is still there");

  // A server asked not to publish writes nothing.
  const quiet = await startDrainboard(['--team', '--insecure-http', '--no-node-conditions']);
  cleanups.push(() => quiet.stop());
  kubectl('patch', 'node', s.node, '--subresource=status', '--type=strategic', '-p',
    JSON.stringify({ status: { conditions: [{ $patch: 'delete', type: 'DrainInProgress' }] } }));
  await server.stop();
  const bob = await signIn(quiet, inlineKubeconfig('lc-bob', MAINTAIN));
  const again = await postAs(quiet.url, 'drains/start', bob, { node: s.node });
  assert.equal(again.status, 200, JSON.stringify(again.body));
  await waitFor('the second drain to end', 60_000, async () =>
    (await postAs(quiet.url, 'drains/status', bob, { id: again.body.id })).body.state === 'Drained');
  assert.deepEqual(lifecycle(s.node), {}, 'nothing published with --no-node-conditions');
  assert.equal(await metric(quiet, 'drainboard_node_condition_writes_total', { outcome: 'written' }, { cookie: bob }), 0);
});

test('a plan publishes MaintenancePlanned on the nodes it queues and MaintenanceInProgress on one it awaits back, and clears each as it is done with the node', { timeout: 180_000 }, async () => {
  // Two fresh nodes with a pod each; the first node's pod is held by a budget, so that the second is seen queued
  // while the first drains.
  const p = await pool(cleanups, 'lcp', 2);
  const { nodes } = p;
  const release = hold(p, 0);
  const boot = (node, n) => kubectl('patch', 'node', node, '--subresource=status', '--type=merge', '-p',
    JSON.stringify({ status: { nodeInfo: { bootID: `${node}-boot-${n}` } } }));
  for (const n of nodes) boot(n, 1);

  const server = await startDrainboard(['--team', '--insecure-http']);
  cleanups.push(() => server.stop());
  const alice = await signIn(server, inlineKubeconfig('lcp-alice', MAINTAIN));
  const started = await postAs(server.url, 'plans/start', alice, { nodes, options: { max_parallel: 1, uncordon_when_back: true }, reason: 'kernel 6.12' });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const plan = started.body;

  // The first node drains (its drain's own conditions), the second is planned.
  const queued = await waitFor('MaintenancePlanned on the queued node', 30_000, () => lifecycle(nodes[1], PLAN_TYPES).MaintenancePlanned);
  assert.deepEqual([queued.status, queued.reason], ['True', 'DrainboardPlanQueued']);
  assert.equal(queued.message, `Drainboard maintenance plan ${plan} by lcp-alice (kernel 6.12) will drain this node`);
  assert.ok(managers(nodes[1]).includes('drainboard-lifecycle'), 'written by the server\'s field manager');
  await waitFor('the first node draining', 30_000, () => lifecycle(nodes[0]).DrainInProgress?.status === 'True');
  assert.deepEqual(lifecycle(nodes[0], PLAN_TYPES), {}, 'a node draining carries the drain\'s conditions, not the plan\'s');

  // Released: drained and awaited back.
  release();
  const awaited = await waitFor('MaintenanceInProgress on the node awaited back', 60_000, () => lifecycle(nodes[0], PLAN_TYPES).MaintenanceInProgress);
  assert.deepEqual([awaited.status, awaited.reason], ['True', 'DrainboardPlanAwaitingBack']);
  assert.equal(lifecycle(nodes[0]).Drained?.status, 'True', 'beside the drain\'s Drained');

  // Back: the plan uncordons it and clears its own; the second node's turn.
  boot(nodes[0], 2);
  await waitFor('the first node uncordoned and cleared', 60_000, () =>
    Object.keys(lifecycle(nodes[0], [...PLAN_TYPES, 'DrainInProgress', 'Drained'])).length === 0);
  await waitFor('the second awaited back', 60_000, () => lifecycle(nodes[1], PLAN_TYPES).MaintenanceInProgress?.status === 'True');
  assert.equal(lifecycle(nodes[1], PLAN_TYPES).MaintenancePlanned, undefined, 'planned no more once it started');
  boot(nodes[1], 2);
  await waitFor('the plan complete', 60_000, () =>
    JSON.parse(kubectl('get', 'maintenanceplan', plan, '-o', 'json')).status?.phase === 'Complete');
  await waitFor('every condition of the plan cleared', 30_000, () =>
    nodes.every((n) => Object.keys(lifecycle(n, PLAN_TYPES)).length === 0));
});
