// App teams told (API.md, "App teams told"), against the real control plane: a namespace annotated
// `drainboard.dev/notify: <name>` has its team told through the webhook of that name, received here by a local
// HTTP server: ahead of the plan reaching the node (its pods and the earliest time), once its pods are evicted, and
// once the node is back, in that order, each once. A namespace without the annotation, or naming no webhook, tells
// nobody, and the operators' webhook never carries a team's notice. A node a window holds is told only once the
// hold lifts within the lead. What was told is in the plan's status, as kubectl reads it.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { apply, deletePlans, kubectl, kwokNodes, launchBrowser, openBoard, requireEnv, startDrainboard, waitFor, webhookReceiver } from './support.mjs';
import { TAINT, call, plan } from './plan-support.mjs';

const cleanups = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
  deletePlans();
});

/** Every post the webhooks receive, in order. */
const receiver = webhookReceiver();
const { received } = receiver;

let server;
async function ensureServer() {
  if (!server) {
    const base = await receiver.start();
    cleanups.push(receiver.close);
    const hooks = join(requireEnv('DRAINBOARD_CLUSTER_DIR'), `team-webhooks-${process.pid}.json`);
    writeFileSync(hooks, JSON.stringify([
      { name: 'payments', kind: 'cloudevents', url: `${base}/payments` },
      { name: 'search', kind: 'slack', url: `${base}/search` },
      { kind: 'cloudevents', url: `${base}/ops` },
    ]), { mode: 0o600 });
    server = await startDrainboard(['--webhooks-file', hooks, '--notify-lead', '3600']);
    cleanups.push(() => server.stop());
  }
  return server;
}

const bootId = (node, id) => kubectl('patch', 'node', node, '--subresource=status', '--type=merge', '-p',
  JSON.stringify({ status: { nodeInfo: { bootID: id } } }));

/** Fresh kwok nodes and, per namespace `[suffix, team or null, node indexes]`, a Deployment's pod on each node. */
async function setUp(prefix, count, namespaces) {
  const id = `${prefix}-${Math.random().toString(36).slice(2, 6)}`;
  const nodes = [...Array(count).keys()].map((i) => `${id}-${i}`);
  cleanups.push(kwokNodes(id, nodes));
  kubectl('wait', '--for=condition=Ready', ...nodes.map((n) => `node/${n}`), '--timeout=60s');
  for (const n of nodes) bootId(n, `${n}-boot-1`);
  const made = {};
  for (const [suffix, team, on] of namespaces) {
    const ns = `${id}-${suffix}`;
    made[suffix] = ns;
    apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, annotations: team ? { 'drainboard.dev/notify': team } : {} } });
    cleanups.push(() => { try { kubectl('delete', 'namespace', ns, '--wait=false'); } catch {} });
    await waitFor(`the default service account of ${ns}`, 30_000, () => {
      try { kubectl('get', 'serviceaccount', 'default', '-n', ns); return true; } catch { return false; }
    });
    for (const i of on) {
      apply({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: `app-${i}` },
        spec: { replicas: 1, selector: { matchLabels: { app: `app-${i}` } },
          template: { metadata: { labels: { app: `app-${i}` } }, spec: {
            nodeSelector: { 'kubernetes.io/hostname': nodes[i] },
            tolerations: [{ key: TAINT, operator: 'Exists', effect: 'NoSchedule' }],
            containers: [{ name: 'c', image: 'nginx:1.27' }],
          } } } }, ns);
    }
  }
  await waitFor('every pod running', 60_000, () => namespaces.every(([suffix, , on]) => {
    const out = kubectl('get', 'pods', '-n', made[suffix], '--field-selector', 'status.phase=Running', '-o', 'jsonpath={range .items[*]}{.spec.nodeName}{"\\n"}{end}');
    return on.every((i) => out.split('\n').includes(nodes[i]));
  }));
  return { id, nodes, ns: made };
}

const podsOf = (ns) => kubectl('get', 'pods', '-n', ns, '-o', 'jsonpath={range .items[*]}{.metadata.name}{"\\n"}{end}')
  .split('\n').filter(Boolean).map((p) => `${ns}/${p}`);
const cloudEvents = (path) => received.filter((r) => r.path === path).map((r) => r.body);

test('app teams: told ahead with their pods, then evicted, then back, in order and once, through their own webhook only; nobody for a namespace without the annotation or naming no webhook', { timeout: 180_000 }, async () => {
  const srv = await ensureServer();
  const t = await setUp('tm', 2, [['pay', 'payments', [0]], ['find', 'search', [0]], ['quiet', null, [0, 1]], ['ghost', 'nobody', [0]]]);
  const [n0, n1] = t.nodes;
  const payPods = podsOf(t.ns.pay);
  const findPods = podsOf(t.ns.find);
  const started = await call(srv, 'plans/start', { nodes: [n0, n1], options: { max_parallel: 1, uncordon_when_back: true }, reason: 'kernel 6.12' });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const id = started.body;

  await waitFor('the first node awaited back', 60_000, () => plan(id).status?.nodes?.[0]?.back === 'Waiting');
  bootId(n0, `${n0}-boot-2`);
  await waitFor('the second node awaited back', 60_000, () => plan(id).status?.nodes?.[1]?.back === 'Waiting');
  bootId(n1, `${n1}-boot-2`);
  await waitFor('the plan to complete', 60_000, () => plan(id).status?.phase === 'Complete');
  await waitFor('the back notices', 20_000, () => cloudEvents('/payments').length >= 3 && cloudEvents('/search').length >= 3);
  await new Promise((r) => setTimeout(r, 2000));

  // Payments, as CloudEvents: ahead, evicted, back about the first node alone, each once, in order.
  const pay = cloudEvents('/payments').filter((e) => e.data.plan === id);
  assert.deepEqual(pay.map((e) => [e.type, e.subject]), [
    ['dev.drainboard.team.ahead', n0], ['dev.drainboard.team.evicted', n0], ['dev.drainboard.team.back', n0]]);
  assert.ok(received.filter((r) => r.path === '/payments').every((r) => r.type === 'application/cloudevents+json'));
  const ahead = pay[0].data;
  assert.equal(ahead.team, 'payments');
  assert.deepEqual(ahead.namespaces, [t.ns.pay]);
  assert.deepEqual(ahead.pods, payPods, 'the pods named are the team\'s own, and only those');
  assert.equal(ahead.more, 0);
  // The earliest start told is a real time, no later than the pods' eviction was told.
  const evictedAt = received.find((r) => r.path === '/payments' && r.body.type === 'dev.drainboard.team.evicted').at;
  assert.ok(Date.parse(ahead.expected) <= evictedAt, `expected ${ahead.expected}`);

  // Search, as Slack bodies: the same three, in words, its own pods named.
  const search = received.filter((r) => r.path === '/search').map((r) => r.body.text).filter((text) => text.includes(id));
  assert.equal(search.length, 3, JSON.stringify(search));
  assert.match(search[0], new RegExp(`will drain ${n0} from .* at the earliest: your pods there in ${t.ns.find} will be evicted`));
  assert.ok(findPods.every((p) => search[0].includes(p)) && !search[0].includes(t.ns.pay), search[0]);
  assert.equal(search[1], `Maintenance plan ${id}: your pods on ${n0} were evicted`);
  assert.equal(search[2], `Maintenance plan ${id}: ${n0} is back in service`);

  // Nobody is told of the second node (only an unannotated namespace runs there); the ghost team has no webhook; the
  // operators' webhook carries the plan's own notices and never a team's.
  assert.ok(received.every((r) => r.body?.subject !== n1 || !String(r.body.type).startsWith('dev.drainboard.team')));
  assert.ok(!received.some((r) => JSON.stringify(r.body).includes(t.ns.ghost) || JSON.stringify(r.body).includes(t.ns.quiet)));
  const ops = cloudEvents('/ops').filter((e) => e.subject === id || e.data?.plan === id);
  assert.ok(ops.some((e) => e.type === 'dev.drainboard.plan.started'), JSON.stringify(ops.map((e) => e.type)));
  assert.ok(ops.every((e) => !e.type.startsWith('dev.drainboard.team')));

  // What was told is in the status, as kubectl reads it.
  const nodes = plan(id).status.nodes;
  assert.equal(nodes[0].told.stage, 'Back');
  assert.deepEqual(nodes[0].told.teams, ['payments', 'search']);
  assert.deepEqual(nodes[1].told.teams, []);

  // The plan's row says so, in English and in Japanese; a node whose pods no team owns says nothing.
  const browser = await launchBrowser();
  try {
    const { page, errors } = await openBoard(browser, srv.url);
    const row = (node) => page.locator(`[data-testid="rollout"][data-id="${id}"] [data-testid="rollout-node"][data-node="${node}"]`);
    const told = row(n0).locator('[data-testid="rollout-node-told"]');
    await told.waitFor({ state: 'attached', timeout: 20_000 }); // an ended plan's rows sit folded
    assert.equal(await told.getAttribute('data-stage'), 'back');
    assert.match(await told.textContent(), /Teams told it is back: payments, search/);
    assert.equal(await row(n1).locator('[data-testid="rollout-node-told"]').count(), 0);
    assert.deepEqual(errors, []);
    const ja = await browser.newContext({ locale: 'ja-JP', viewport: { width: 1280, height: 900 } });
    const jaPage = await ja.newPage();
    await jaPage.goto(`${srv.url}/`);
    const jaTold = jaPage.locator(`[data-testid="rollout"][data-id="${id}"] [data-testid="rollout-node"][data-node="${n0}"] [data-testid="rollout-node-told"]`);
    await jaTold.waitFor({ state: 'attached', timeout: 20_000 });
    assert.match(await jaTold.textContent(), /復帰を通知したチーム: payments, search/);
  } finally {
    await browser.close();
  }
});

test('app teams: a node a window freezes is not told while the freeze holds it, and is told once the hold lifts, before its pods go', { timeout: 120_000 }, async () => {
  const srv = await ensureServer();
  const t = await setUp('tw', 1, [['pay', 'payments', [0]]]);
  const [node] = t.nodes;
  const window = `freeze-${t.id}`;
  apply({ apiVersion: 'drainboard.dev/v1alpha1', kind: 'MaintenanceWindow', metadata: { name: window },
    spec: { nodeSelector: `kubernetes.io/hostname=${node}`, freezes: [{ start: '2000-01-01', end: '2999-12-31', reason: 'year end' }] } });
  cleanups.push(() => { try { kubectl('delete', 'maintenancewindow', window, '--ignore-not-found'); } catch {} });
  await waitFor(`window ${window} read as valid`, 30_000, () =>
    kubectl('get', 'maintenancewindow', window, '-o', 'jsonpath={.status.conditions[?(@.type=="Valid")].status}').trim() === 'True');
  const started = await call(srv, 'plans/start', { nodes: [node], options: { max_parallel: 1 }, reason: 'kernel', wait_for_window: true });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const id = started.body;
  const mine = () => cloudEvents('/payments').filter((e) => e.data.plan === id);
  await waitFor('the plan held by the freeze', 30_000, () => JSON.stringify(plan(id).status ?? {}).includes('year end'));
  await new Promise((r) => setTimeout(r, 3000));
  assert.deepEqual(mine(), [], 'a freeze ending in 2999 is far past the hour\'s lead: nobody is told yet');
  assert.equal(plan(id).status.nodes[0].told, undefined);

  kubectl('delete', 'maintenancewindow', window);
  await waitFor('the plan to complete', 60_000, () => plan(id).status?.phase === 'Complete');
  await waitFor('the eviction told', 20_000, () => mine().length >= 2);
  assert.deepEqual(mine().map((e) => e.type), ['dev.drainboard.team.ahead', 'dev.drainboard.team.evicted']);
  assert.equal(plan(id).status.nodes[0].told.stage, 'Evicted', 'a plan that does not await the node tells no "back"');
});
