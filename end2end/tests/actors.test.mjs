// Other actors at work on a node, named on its card. Each tool is played by writing exactly the marker its own code
// writes (docs/actors.md cites where): the cluster autoscaler's taint with Unix seconds, Karpenter's valueless
// taint, kured's node annotation, the node-maintenance operator's taint, GKE's maintenance label, EKS's node group
// taint, and a lifecycle condition with kubectl's proposed reason. A bare cordon is "someone outside Drainboard";
// Drainboard's own cordon is no other actor's. The card says so in English and Japanese, warns when two work on one
// node, and the board's filter finds them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { artifactsDir, kubectl, kwokNodes, launchBrowser, startDrainboard, waitFor } from './support.mjs';

const pool = `actors-${process.pid % 10_000}`;
const names = ['ca', 'karpenter', 'kured', 'nmo', 'gke', 'eks', 'lifecycle', 'bare', 'ours', 'clean'].map((n) => `${pool}-${n}`);
const node = (n) => `${pool}-${n}`;
let server;
let browser;
let cleanup = () => {};

before(async () => {
  cleanup = kwokNodes(pool, names);
  server = await startDrainboard();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
  cleanup();
  for (const n of names) {
    try { kubectl('delete', 'configmap', '-n', 'default', `drainboard-history.${n}`, '--ignore-not-found'); } catch {}
  }
});

async function post(path, body) {
  const res = await fetch(`${server.url}/api/${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const cards = async () => new Map((await post('board', {})).body.upsert.map((c) => [c.name, c]));
const seen = (card) => (card?.actors ?? []).map((s) => `${s.actor}:${s.doing}`).join(' ');

test('each actor is named on the card by its real marker, and Drainboard\'s own cordon by none', { timeout: 120_000 }, async () => {
  const epoch = Math.floor(Date.now() / 1000) - 120;
  kubectl('cordon', node('ca'));
  kubectl('taint', 'node', node('ca'), `ToBeDeletedByClusterAutoscaler=${epoch}:NoSchedule`);
  kubectl('cordon', node('karpenter'));
  kubectl('taint', 'node', node('karpenter'), 'karpenter.sh/disrupted:NoSchedule');
  kubectl('cordon', node('kured'));
  kubectl('annotate', 'node', node('kured'), `weave.works/kured-reboot-in-progress=${new Date(epoch * 1000).toISOString()}`);
  kubectl('cordon', node('nmo'));
  kubectl('taint', 'node', node('nmo'), 'medik8s.io/drain:NoSchedule');
  kubectl('label', 'node', node('gke'), `cloud.google.com/scheduled-maintenance-time=${epoch + 7200}`);
  kubectl('taint', 'node', node('eks'), 'eks.amazonaws.com/nodegroup=unschedulable:NoSchedule');
  kubectl('cordon', node('lifecycle'));
  kubectl('patch', 'node', node('lifecycle'), '--subresource=status', '--type=strategic', '-p', JSON.stringify({
    status: { conditions: [{ type: 'DrainInProgress', status: 'True', reason: 'KubectlDrainStarted',
      message: 'kubectl drain started processing this Node', lastTransitionTime: new Date(epoch * 1000).toISOString(),
      lastHeartbeatTime: new Date(epoch * 1000).toISOString() }] },
  }));
  kubectl('cordon', node('bare'));
  const ours = await post('nodes/cordon', { node: node('ours'), reason: 'disk swap' });
  assert.equal(ours.status, 200, JSON.stringify(ours.body));
  // The cluster autoscaler takes Drainboard's cordoned node as well: two actors at once.
  kubectl('taint', 'node', node('ours'), `ToBeDeletedByClusterAutoscaler=${epoch}:NoSchedule`);

  const want = {
    ca: 'ClusterAutoscaler:Removing',
    karpenter: 'Karpenter:Disrupting',
    kured: 'Kured:Rebooting',
    nmo: 'NodeMaintenance:Maintenance',
    gke: 'Gke:MaintenanceScheduled',
    eks: 'Eks:Replacing',
    lifecycle: 'KubectlDrain:Draining',
    bare: 'Unknown:Cordoned',
    ours: 'ClusterAutoscaler:Removing',
    clean: '',
  };
  const all = await waitFor('every card to name its actor', 60_000, async () => {
    const now = await cards();
    return Object.entries(want).every(([n, w]) => seen(now.get(node(n))) === w) ? now : null;
  }).catch(async (e) => {
    const now = await cards();
    throw new Error(`${e.message}: ${JSON.stringify(Object.fromEntries(Object.keys(want).map((n) => [n, seen(now.get(node(n)))])))}`);
  });
  const ca = all.get(node('ca')).actors[0];
  assert.equal(Date.parse(ca.at), epoch * 1000, 'the taint\'s Unix seconds are when');
  assert.equal(ca.marker, 'taint ToBeDeletedByClusterAutoscaler');
  assert.equal(Date.parse(all.get(node('gke')).actors[0].at), (epoch + 7200) * 1000, 'the label says when it is due');
  assert.equal(all.get(node('lifecycle')).actors[0].detail, 'KubectlDrainStarted: kubectl drain started processing this Node');
  assert.ok(all.get(node('ours')).cordon_record, 'the cordon is still Drainboard\'s own');
});

test('the card names the actor in English and Japanese, and warns when two work on one node', { timeout: 90_000 }, async () => {
  for (const [locale, removing, crowded] of [
    ['en-US', /^cluster-autoscaler is removing this node$/, /^2 actors are working on this node at once/],
    ['ja-JP', /^cluster-autoscalerがこのノードを削除中$/, /^2つの操作が同時にこのノードに働いています/],
  ]) {
    const context = await browser.newContext({ locale, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.url}/nodes/${node('ours')}`);
    const text = page.locator('[data-testid="card-actor"][data-actor="cluster-autoscaler"] [data-testid="card-actor-text"]');
    await text.waitFor({ timeout: 30_000 });
    assert.match(await text.textContent(), removing);
    assert.match(await page.locator('[data-testid="card-actors-crowded"]').textContent(), crowded);
    const title = await page.locator('[data-testid="card-actor"]').first().getAttribute('title');
    assert.match(title, /taint ToBeDeletedByClusterAutoscaler/, 'the marker is named on hover');
    await page.goto(`${server.url}/nodes/${node('bare')}`);
    await page.locator('[data-testid="card-actor"][data-actor="kubectl"]').waitFor({ timeout: 30_000 });
    assert.equal(await page.locator('[data-testid="card-actors-crowded"]').count(), 0, 'one actor: no warning');
    if (locale === 'en-US') {
      await page.locator('[data-testid="card-actors"]').screenshot({ path: join(artifactsDir, 'card-actors.png') });
    }
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test('the board\'s filter shows the nodes another actor works on, and not the others', { timeout: 90_000 }, async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${server.url}/`);
  await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
  await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 30_000 });
  await page.fill('[data-testid="node-filter"]', pool);
  await page.selectOption('[data-testid="status-filter"]', 'other-actors');
  const shown = async () => (await page.locator('[data-testid="node-row"]').evaluateAll((rows) => rows.map((r) => r.dataset.node))).sort();
  const expected = names.filter((n) => n !== node('clean')).sort();
  await waitFor('the filtered board', 20_000, async () => JSON.stringify(await shown()) === JSON.stringify(expected))
    .catch(async (e) => { throw new Error(`${e.message}: ${JSON.stringify(await shown())}`); });
  // One tool's nodes: Karpenter's alone, then the cluster autoscaler's (whose node Drainboard also works on).
  for (const [actor, only] of [['karpenter', [node('karpenter')]], ['cluster-autoscaler', [node('ca'), node('ours')]]]) {
    await page.selectOption('[data-testid="status-filter"]', actor);
    await waitFor(`${actor}'s nodes`, 20_000, async () => JSON.stringify(await shown()) === JSON.stringify([...only].sort()))
      .catch(async (e) => { throw new Error(`${e.message}: ${JSON.stringify(await shown())}`); });
  }
  await context.close();
});

test('the map (the wall\'s too: the same component) names the tool at work on a cell, in English and Japanese, and the legend says what the notch means', { timeout: 90_000 }, async () => {
  for (const [locale, words] of [['en-US', /karpenter is replacing or removing this node/i], ['ja-JP', /このノードを置き換えまたは削除中/]]) {
    const context = await browser.newContext({ locale, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${server.url}/?view=map&name=${pool}`);
    const cell = page.locator(`[data-testid="map-cell"][data-node="${node('karpenter')}"]`);
    await cell.waitFor({ timeout: 30_000 });
    assert.equal(await cell.getAttribute('data-actors'), 'karpenter');
    assert.match(await cell.getAttribute('aria-label'), words);
    assert.equal(await page.locator(`[data-testid="map-cell"][data-node="${node('clean')}"]`).getAttribute('data-actors'), null);
    assert.equal(await page.locator('[data-testid="map-legend"] .cell.other').count(), 1);
    await context.close();
  }
});

/** The history's entries for node `n`, as the API server holds them. */
const historyOf = (n) => JSON.parse(kubectl('get', 'configmap', '-n', 'default', `drainboard-history.${n}`, '--ignore-not-found', '-o', 'jsonpath={.data.entries}') || '[]');

test('each tool\'s work goes into the node\'s history, stamped with the marker\'s own time where it gives one, and onto the timeline', { timeout: 90_000 }, async () => {
  const seenIn = (n, id) => historyOf(n).filter((e) => e.action === 'ActorSeen' && e.reason === id);
  await waitFor('the sightings in the histories', 30_000, () => seenIn(node('karpenter'), 'karpenter').length && seenIn(node('ca'), 'cluster-autoscaler').length);
  assert.deepEqual(seenIn(node('karpenter'), 'karpenter').map((e) => [e.outcome, e.user]), [['Disrupting', '']], 'recorded once, by no person');
  const taintValue = kubectl('get', 'node', node('ca'), '-o', 'jsonpath={.spec.taints[?(@.key=="ToBeDeletedByClusterAutoscaler")].value}').trim();
  assert.equal(Date.parse(seenIn(node('ca'), 'cluster-autoscaler')[0].at) / 1000, Number(taintValue), 'the autoscaler\'s own time');
  assert.equal(historyOf(node('clean')).filter((e) => e.action === 'ActorSeen').length, 0);
  const page = await browser.newPage({ viewport: { width: 1600, height: 900 } });
  await page.goto(`${server.url}/?view=timeline&name=${node('karpenter')}`);
  const span = page.locator(`[data-testid="timeline-row"][data-node="${node('karpenter')}"] [data-testid="timeline-span"][data-kind="other-tool"]`);
  await span.first().waitFor({ state: 'attached', timeout: 30_000 });
  assert.equal(await span.count(), 1, 'Karpenter alone: a bare cordon is not recorded');
  assert.match(await span.locator('title').textContent(), /karpenter is replacing or removing this node: for .* so far/i);
  await page.close();
});

test('the markers gone, the card names no one', { timeout: 60_000 }, async () => {
  kubectl('taint', 'node', node('ca'), 'ToBeDeletedByClusterAutoscaler-');
  kubectl('uncordon', node('ca'));
  kubectl('label', 'node', node('gke'), 'cloud.google.com/scheduled-maintenance-time-');
  await waitFor('the cards to clear', 30_000, async () => {
    const now = await cards();
    return seen(now.get(node('ca'))) === '' && seen(now.get(node('gke'))) === '';
  });
  // The history says the autoscaler is done with it, once.
  await waitFor('the end in the history', 30_000, () => historyOf(node('ca')).some((e) => e.action === 'ActorGone' && e.reason === 'cluster-autoscaler'));
  assert.deepEqual(historyOf(node('ca')).filter((e) => e.action.startsWith('Actor')).map((e) => [e.action, e.reason]),
    [['ActorSeen', 'cluster-autoscaler'], ['ActorGone', 'cluster-autoscaler']], 'seen once, ended once');
});

test('an uncordon that would undo a tool\'s work needs its name typed, on the server and in the dialog', { timeout: 90_000 }, async () => {
  const n = node('karpenter');
  const unschedulable = () => kubectl('get', 'node', n, '-o', 'jsonpath={.spec.unschedulable}').trim();
  const refused = await post('nodes/uncordon', { node: n });
  assert.equal(refused.status, 409, JSON.stringify(refused.body));
  assert.deepEqual(refused.body.Refused.refusal.OtherActors.actors, ['Karpenter']);
  assert.match(refused.body.Refused.message, /type karpenter to confirm/);
  assert.equal(unschedulable(), 'true', 'nothing changed');
  const wrong = await post('nodes/uncordon', { node: n, confirm: 'Karpenter' });
  assert.equal(wrong.status, 409, 'the name exactly');
  // Another site's page cannot send the name for a person: refused before anything is read.
  const foreign = await fetch(`${server.url}/api/nodes/uncordon`, {
    method: 'POST', body: JSON.stringify({ node: n, confirm: 'karpenter' }),
    headers: { 'content-type': 'application/json', origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
  });
  assert.equal(foreign.status, 403);
  assert.equal(unschedulable(), 'true', 'nothing changed');
  const long = await post('nodes/uncordon', { node: n, confirm: 'k'.repeat(301) });
  assert.equal(long.status, 400, JSON.stringify(long.body));
  assert.equal(unschedulable(), 'true');
  // A bare cordon names no tool: uncordoned as before, with nothing to type.
  const bare = await post('nodes/uncordon', { node: node('bare') });
  assert.equal(bare.status, 200, JSON.stringify(bare.body));

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${server.url}/nodes/${n}`);
  await page.locator('[data-testid="node-detail"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
  await page.locator('[data-testid="card-actor"][data-actor="karpenter"]').waitFor({ timeout: 30_000 });
  await page.click('[data-testid="action-uncordon"]');
  const consent = page.locator('[data-testid="uncordon-actors"]');
  await consent.waitFor({ timeout: 10_000 });
  assert.equal(await consent.getAttribute('data-actors'), 'karpenter');
  const go = page.locator('[data-testid="cordon-dialog"] [data-testid="dialog-confirm"]');
  assert.equal(await go.isDisabled(), true, 'the button waits for the name');
  await page.fill('[data-testid="uncordon-type-actors"]', 'karpenter');
  assert.equal(await go.isDisabled(), false);
  await go.click();
  await waitFor('the node uncordoned', 15_000, () => unschedulable() === '');
  await context.close();
});

test('a plan passes over a node Karpenter is disrupting and drains it once Karpenter is done; with othersAtWork Skip it is not started, and the row says which tool', { timeout: 150_000 }, async () => {
  const plans = `${pool}-p`;
  const nodes = [0, 1, 2].map((i) => `${plans}-${i}`);
  const done = kwokNodes(plans, nodes);
  try {
    kubectl('wait', '--for=condition=Ready', ...nodes.map((n) => `node/${n}`), '--timeout=60s');
    kubectl('taint', 'node', nodes[0], 'karpenter.sh/disrupted:NoSchedule');
    await waitFor('the card naming Karpenter', 20_000, async () => seen((await cards()).get(nodes[0])).includes('Karpenter'));
    const plan = (id) => JSON.parse(kubectl('get', 'maintenanceplan', id, '-o', 'json'));

    // Wait (the default): the first node is passed over, the others drain, and the plan says why it waits.
    const waiting = await post('plans/start', { nodes, options: { max_parallel: 1 }, reason: 'kernel' });
    assert.equal(waiting.status, 200, JSON.stringify(waiting.body));
    await waitFor('the two other nodes drained', 60_000, () =>
      plan(waiting.body).status?.nodes?.slice(1).every((n) => n.outcome === 'Drained'));
    const held = plan(waiting.body).status.nodes[0];
    assert.deepEqual([held.step, held.othersAtWork], ['Queued', ['karpenter']]);
    assert.equal(kubectl('get', 'node', nodes[0], '-o', 'jsonpath={.spec.unschedulable}'), '', 'never cordoned over Karpenter\'s work');
    const page = await browser.newPage();
    await page.goto(`${server.url}/`);
    const row = page.locator(`[data-testid="rollout"][data-id="${waiting.body}"] [data-testid="rollout-node"][data-node="${nodes[0]}"] [data-testid="rollout-node-others"]`);
    await row.waitFor({ state: 'attached', timeout: 20_000 });
    assert.equal(await row.getAttribute('data-state'), 'waiting');
    assert.match(await row.textContent(), /waits: karpenter at work on it/);
    await page.close();
    // Karpenter is done with it: the plan drains it and completes.
    kubectl('taint', 'node', nodes[0], 'karpenter.sh/disrupted:NoSchedule-');
    await waitFor('the plan complete', 60_000, () => plan(waiting.body).status?.phase === 'Complete');
    assert.deepEqual([plan(waiting.body).status.nodes[0].outcome, plan(waiting.body).status.nodes[0].othersAtWork], ['Drained', undefined]);

    // Skip: a node the cluster autoscaler is removing is not started, and says so.
    for (const n of nodes) kubectl('uncordon', n);
    kubectl('taint', 'node', nodes[1], `ToBeDeletedByClusterAutoscaler=${Math.floor(Date.now() / 1000)}:NoSchedule`);
    await waitFor('the card naming the autoscaler', 20_000, async () => seen((await cards()).get(nodes[1])).includes('ClusterAutoscaler'));
    const skipping = await post('plans/start', { nodes, options: { max_parallel: 1, others_at_work: 'Skip' }, reason: 'kernel' });
    assert.equal(skipping.status, 200, JSON.stringify(skipping.body));
    assert.equal(plan(skipping.body).spec.othersAtWork, 'Skip');
    await waitFor('the plan ended', 60_000, () => ['Complete', 'Failed'].includes(plan(skipping.body).status?.phase));
    const ended = plan(skipping.body).status.nodes;
    assert.deepEqual(ended.map((n) => n.step), ['Ended', 'NotStarted', 'Ended']);
    assert.deepEqual(ended[1].othersAtWork, ['cluster-autoscaler']);
  } finally {
    done();
  }
});

test('undo and "it is back" never uncordon over another tool\'s work: each names the tool, and the node stays cordoned', { timeout: 150_000 }, async () => {
  const plans = `${pool}-u`;
  const nodes = [0, 1].map((i) => `${plans}-${i}`);
  const done = kwokNodes(plans, nodes);
  const unschedulable = (n) => kubectl('get', 'node', n, '-o', 'jsonpath={.spec.unschedulable}');
  const plan = (id) => JSON.parse(kubectl('get', 'maintenanceplan', id, '-o', 'json'));
  try {
    kubectl('wait', '--for=condition=Ready', ...nodes.map((n) => `node/${n}`), '--timeout=60s');
    // Undo: the plan drained the first node; Karpenter chose it since.
    const drained = await post('plans/start', { nodes: [nodes[0]], options: { max_parallel: 1 }, reason: 'kernel' });
    assert.equal(drained.status, 200, JSON.stringify(drained.body));
    await waitFor('the plan complete', 60_000, () => plan(drained.body).status?.phase === 'Complete');
    kubectl('taint', 'node', nodes[0], 'karpenter.sh/disrupted:NoSchedule');
    await waitFor('the card naming Karpenter', 20_000, async () => seen((await cards()).get(nodes[0])).includes('Karpenter'));
    const undo = await post('plans/undo', { id: drained.body });
    assert.equal(undo.status, 200, JSON.stringify(undo.body));
    const line = undo.body.find((n) => n.node === nodes[0]);
    assert.match(line.error ?? '', /karpenter.*type karpenter to confirm/, JSON.stringify(line));
    assert.equal(unschedulable(nodes[0]), 'true', 'left cordoned');

    // "It is back": the second node is awaited back, and Karpenter takes it meanwhile.
    kubectl('patch', 'node', nodes[1], '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { nodeInfo: { bootID: `${nodes[1]}-boot-1` } } }));
    const awaited = await post('plans/start', { nodes: [nodes[1]], options: { max_parallel: 1, uncordon_when_back: true }, reason: 'kernel' });
    assert.equal(awaited.status, 200, JSON.stringify(awaited.body));
    await waitFor('the node awaited back', 60_000, () => plan(awaited.body).status?.nodes?.[0]?.back === 'Waiting');
    kubectl('taint', 'node', nodes[1], 'karpenter.sh/disrupted:NoSchedule');
    await waitFor('the card naming Karpenter', 20_000, async () => seen((await cards()).get(nodes[1])).includes('Karpenter'));
    const back = await post('plans/back', { id: awaited.body, node: nodes[1] });
    assert.equal(back.status, 409, JSON.stringify(back.body));
    assert.match(JSON.stringify(back.body), /type karpenter to confirm/);
    assert.equal(unschedulable(nodes[1]), 'true', 'left cordoned');
    await post('plans/cancel', { id: awaited.body });
  } finally {
    done();
  }
});
