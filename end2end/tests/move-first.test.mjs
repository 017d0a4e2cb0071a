// Move first: a single-replica Deployment behind a budget with minAvailable 1 drains without downtime. The drain
// is held, the panel offers the move, the person types the Deployment's name, the Deployment surges, its new pod
// is Ready on another node, the drain evicts the old one, and the count goes back, while a watch of the Service's
// EndpointSlices never sees it without a ready endpoint. Refused for an autoscaled Deployment and a StatefulSet;
// a server killed midway puts the count back when it starts again.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { apply, artifactsDir, kubectl, openBoard, requireEnv, said, scenario, startDrainboard, typeWhileStreaming, useServerAndBrowser, waitFor } from './support.mjs';

const ctx = useServerAndBrowser();
const cleanups = [];
after(() => cleanups.reverse().forEach((c) => c()));

async function setUp(name) {
  const s = await scenario(name);
  cleanups.push(() => s.cleanup());
  return s;
}

async function call(url, endpoint, body, headers = {}) {
  const res = await fetch(`${url}/api/${endpoint}`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/** The one-replica workload: Deployment `web`, its budget (minAvailable 1), and a Service in front of it. */
async function singleReplica(s) {
  s.deployment('web', 1);
  s.pdb('web-pdb', 'web', 1);
  apply({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' },
    spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 80 }] } }, s.ns);
  await s.running(1);
  await waitFor('web-pdb to count its pod', 30_000, () =>
    kubectl('get', 'pdb', 'web-pdb', '-n', s.ns, '-o', 'jsonpath={.status.currentHealthy}/{.status.desiredHealthy}').trim() === '1/1');
}

/** Starts a drain of the node through the API, and waits until its pod of `app` is held by its budget. */
async function heldDrain(url, s, pod) {
  const started = await call(url, 'drains/start', { node: s.node, reason: 'move-first test' });
  assert.equal(started.status, 200, JSON.stringify(started.json));
  const id = started.json.id;
  await held(url, id, pod);
  return id;
}

/** Waits until the drain `id` shows `pod` held by a budget a surge would answer. */
async function held(url, id, pod) {
  await waitFor(`${pod} to be held by its budget`, 60_000, async () => {
    const { json } = await call(url, 'drains/status', { id });
    const p = json.pods?.find((x) => x.name === pod);
    return p?.state?.Blocked?.blockers?.some((b) => b.BudgetNever || b.BudgetAtZero);
  });
}

const replicas = (s, name = 'web') => kubectl('get', 'deployment', name, '-n', s.ns, '-o', 'jsonpath={.spec.replicas}').trim();
const moveRecord = (s) => kubectl('get', 'deployment', 'web', '-n', s.ns, '-o',
  'jsonpath={.metadata.annotations.drainboard\\.dev/move-first}{"|"}{.metadata.labels.drainboard\\.dev/moving}').trim();

/**
 * Watches the Service's EndpointSlices with kubectl, and keeps the fewest ready endpoints seen across them once
 * one was ready, and the most. `stop()` ends the watch and answers `{ events, fewest, most }`.
 */
function watchEndpoints(s) {
  const bin = join(requireEnv('DRAINBOARD_CLUSTER_BIN'), 'kubectl');
  // Not `{range}`: kubectl's watch prints a range for the first event only.
  const template = '{.type} {.object.metadata.name} {.object.endpoints[*].conditions.ready}{"\\n"}';
  const child = spawn(bin, ['--kubeconfig', requireEnv('KUBECONFIG'), 'get', 'endpointslices', '-n', s.ns,
    '-l', 'kubernetes.io/service-name=web', '--watch', '--output-watch-events', '-o', `jsonpath=${template}`]);
  const ready = new Map();
  let fewest = null;
  let most = 0;
  let events = 0;
  let buffer = '';
  child.stdout.on('data', (d) => {
    buffer += d;
    const lines = buffer.split('\n');
    buffer = lines.pop();
    for (const line of lines.filter(Boolean)) {
      const [type, name, ...conditions] = line.split(' ');
      events += 1;
      if (type === 'DELETED') ready.delete(name);
      else ready.set(name, conditions.filter((c) => c === 'true').length);
      const total = [...ready.values()].reduce((a, b) => a + b, 0);
      if (fewest !== null || total > 0) fewest = fewest === null ? total : Math.min(fewest, total);
      most = Math.max(most, total);
    }
  });
  return {
    seen: () => fewest !== null,
    stop: () => { child.kill(); return { events, fewest, most }; },
  };
}

test('move first: a one-replica Deployment behind minAvailable 1 drains with a ready endpoint throughout, and its count goes back', { timeout: 240_000 }, async () => {
  const s = await setUp('move');
  await singleReplica(s);
  const [old] = s.podsOnNode().map((p) => p.split('/')[1]);
  const watch = watchEndpoints(s);
  cleanups.push(() => watch.stop());
  await waitFor('the watch to see the ready endpoint', 30_000, () => watch.seen());

  const { context, page, errors } = await openBoard(ctx.browser, ctx.server.url);
  await page.fill('[data-testid="node-filter"]', s.node);
  const card = page.locator(`[data-testid="node-row"][data-node="${s.node}"]`);
  await card.locator('[data-testid="action-drain"]:not([disabled])').click();
  const dialog = page.locator('[data-testid="drain-dialog"]');
  await dialog.locator('[data-testid="group-evict"] [data-testid="preview-pod"]').first().waitFor({ timeout: 15_000 });
  await dialog.locator('[data-testid="confirm-drain"]:not([disabled])').click();
  const panel = page.locator('[data-testid="progress-panel"]');
  await panel.waitFor({ timeout: 15_000 });
  s.openSpare();
  const row = panel.locator(`[data-testid="progress-pod"][data-pod="${s.ns}/${old}"]`);
  await row.locator('[data-testid="blocker"][data-class="budget-never"]').waitFor({ timeout: 30_000 });

  // The preview, then the typed name: nothing changes before.
  await row.locator('[data-testid="move-first-open"]').click();
  const form = row.locator('[data-testid="move-first-form"][data-deployment="web"]');
  await form.waitFor({ timeout: 15_000 });
  assert.match(await form.locator('[data-testid="move-first-preview"]').textContent(),
    new RegExp(`^Deployment web goes from 1 to 2 replicas\\. Once the new pods are Ready on other nodes, the drain evicts ${old}, and the count goes back to 1\\.`));
  assert.equal(await form.locator('[data-testid="move-first-confirm"]').isDisabled(), true, 'not before the name is typed');
  assert.equal(replicas(s), '1', 'a preview changes nothing');
  // Typed at a person's pace while the drain's retries stream in: the confirmation keeps its text and focus.
  const drainId = await card.locator('[data-testid="card-drain"][data-drain-id]').getAttribute('data-drain-id', { timeout: 15_000 });
  await typeWhileStreaming(page, form.locator('[data-testid="move-first-confirm-input"]'), 'web',
    async () => (await call(ctx.server.url, 'drains/status', { id: drainId })).json.pods?.find((p) => p.name === old));
  await page.screenshot({ path: join(artifactsDir, 'move-first.png') });
  await form.locator('[data-testid="move-first-confirm"]').click();

  await panel.locator('[data-testid="progress-state"][data-state="Drained"]').waitFor({ timeout: 90_000 });
  await waitFor('the count to go back to 1 and the record to go', 30_000, () => replicas(s) === '1' && moveRecord(s) === '|');
  const id = await card.locator('[data-testid="card-drain"][data-drain-id]').getAttribute('data-drain-id', { timeout: 15_000 });
  const { json: done } = await call(ctx.server.url, 'drains/status', { id });
  assert.deepEqual([done.options.force, done.options.disable_eviction], [false, false]);
  assert.ok(done.pods.some((p) => p.name === old && p.state === 'Gone'), JSON.stringify(done.pods));
  assert.deepEqual(s.podsOnNode(), []);
  // Let the last endpoint change arrive, then read the watch.
  await new Promise((r) => setTimeout(r, 2_000));
  const { events, fewest, most } = watch.stop();
  assert.ok(events >= 2, `the watch saw the endpoints change (${events} events)`);
  assert.ok(most >= 2, `the new pod was ready beside the old one before the old one went (most ${most})`);
  assert.ok(fewest >= 1, `the Service never had fewer than one ready endpoint (fewest ${fewest})`);

  const history = await call(ctx.server.url, 'nodes/history', { node: s.node });
  const moved = history.json.filter((e) => e.action === 'Moved').map((e) => e.outcome);
  assert.ok(moved.some((o) => o === `scaled Deployment ${s.ns}/web from 1 to 2 to move ${old} first`), JSON.stringify(moved));
  assert.ok(moved.some((o) => o === `put Deployment ${s.ns}/web back to 1`), JSON.stringify(moved));
  assert.deepEqual(errors, []);
  await context.close();
});

test('move first is refused for an autoscaled Deployment and a StatefulSet, with the reason; bad input and other origins too', { timeout: 180_000 }, async () => {
  const s = await setUp('refuse');
  const pin = {
    nodeSelector: { 'drainboard.dev/pool': s.node },
    tolerations: [{ key: 'drainboard.dev/test', operator: 'Exists', effect: 'NoSchedule' }],
    containers: [{ name: 'c', image: 'nginx:1.27' }],
  };
  s.deployment('api', 1);
  s.pdb('api-pdb', 'api', 1);
  apply({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'api-hpa' },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api' }, minReplicas: 1, maxReplicas: 3,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }] } }, s.ns);
  apply({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db' },
    spec: { replicas: 1, serviceName: 'db', selector: { matchLabels: { app: 'db' } },
      template: { metadata: { labels: { app: 'db' } }, spec: pin } } }, s.ns);
  s.pdb('db-pdb', 'db', 1);
  await s.running(2);
  const pods = s.podsOnNode().map((p) => p.split('/')[1]);
  const api = pods.find((p) => p.startsWith('api-'));
  await waitFor('both budgets to count their pods', 30_000, () => ['api-pdb', 'db-pdb'].every((b) =>
    kubectl('get', 'pdb', b, '-n', s.ns, '-o', 'jsonpath={.status.currentHealthy}').trim() === '1'));
  const id = await heldDrain(ctx.server.url, s, 'db-0');
  await held(ctx.server.url, id, api);
  const move = (body, headers) => call(ctx.server.url, 'drains/move-first', body, headers);

  const hpa = await move({ id, namespace: s.ns, pod: api });
  assert.equal(hpa.status, 409, JSON.stringify(hpa.json));
  assert.match(said(hpa.json), /HorizontalPodAutoscaler api-hpa sets this Deployment's replicas and would undo the surge/);
  const sts = await move({ id, namespace: s.ns, pod: 'db-0', confirm: 'db' });
  assert.equal(sts.status, 409, JSON.stringify(sts.json));
  assert.match(said(sts.json), /StatefulSet db cannot surge: its pods keep their identities/);

  const good = { id, namespace: s.ns, pod: api };
  const bad = [
    [{ ...good, pod: `${api}/eviction` }, 400, /not a pod name/],
    [{ ...good, namespace: 'a.b' }, 400, /not a namespace name/],
    [{ ...good, pod: 'no-such-pod' }, 404, /has no pod/],
    [{ ...good, id: 'no-such-drain' }, 404, /no drain with id no-such-drain/],
    [{ id, namespace: s.ns }, 400, /pod/],
  ];
  for (const [body, code, why] of bad) {
    const res = await move(body);
    assert.equal(res.status, code, JSON.stringify([body, res.json]));
    assert.match(said(res.json), why, JSON.stringify(res.json));
  }
  for (const headers of [{ 'sec-fetch-site': 'cross-site' }, { origin: 'http://evil.example' }]) {
    const res = await move({ ...good, confirm: 'api' }, headers);
    assert.equal(res.status, 403, JSON.stringify(headers));
  }
  assert.equal(replicas(s, 'api'), '1', 'no refused request scaled anything');
  assert.equal(kubectl('get', 'statefulset', 'db', '-n', s.ns, '-o', 'jsonpath={.spec.replicas}').trim(), '1');

  // The refusal crosses as data, and a Japanese page words it in Japanese, naming the StatefulSet.
  assert.deepEqual(sts.json.Conflict.conflict, { Move: { pod: null, refusal: { StatefulSet: { name: 'db' } } } });
  const context = await ctx.browser.newContext({ locale: 'ja-JP', viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${ctx.server.url}/`);
  await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
  await page.fill('[data-testid="node-filter"]', s.node);
  await page.locator(`[data-testid="node-row"][data-node="${s.node}"] [data-testid="action-progress"]`).click();
  const row = page.locator(`[data-testid="progress-panel"] [data-testid="progress-pod"][data-pod="${s.ns}/db-0"]`);
  await row.locator('[data-testid="move-first-open"]').click();
  const refusal = row.locator('[data-testid="move-first-error"]');
  await refusal.waitFor({ timeout: 15_000 });
  const words = await refusal.textContent();
  assert.match(words, /StatefulSet dbは増やせません/, words);
  assert.doesNotMatch(words, /cannot surge/, 'no English in its place');
  assert.deepEqual(errors, []);
  await context.close();
  const cancelled = await call(ctx.server.url, 'drains/cancel', { id });
  assert.equal(cancelled.status, 200, JSON.stringify(cancelled.json));
});

test('a move whose server is killed midway has its count put back, by the servers that run once its Lease lapses', { timeout: 240_000 }, async () => {
  const s = await setUp('movekill');
  await singleReplica(s);
  // The spare stays cordoned: the surged pod cannot be placed, so the move is still waiting when the server dies.
  const server = await startDrainboard();
  cleanups.push(() => server.stop());
  const [old] = s.podsOnNode().map((p) => p.split('/')[1]);
  const id = await heldDrain(server.url, s, old);
  const preview = await call(server.url, 'drains/move-first', { id, namespace: s.ns, pod: old });
  assert.equal(preview.status, 200, JSON.stringify(preview.json));
  assert.deepEqual(preview.json, { Preview: { namespace: s.ns, deployment: 'web', original: 1, surged: 2, pods: [old] } });
  const wrong = await call(server.url, 'drains/move-first', { id, namespace: s.ns, pod: old, confirm: old });
  assert.equal(wrong.status, 400, JSON.stringify(wrong.json));
  assert.match(said(wrong.json), /type web to confirm/);
  const started = await call(server.url, 'drains/move-first', { id, namespace: s.ns, pod: old, confirm: 'web' });
  assert.equal(started.status, 200, JSON.stringify(started.json));
  assert.equal(replicas(s), '2');
  const [record, label] = moveRecord(s).split('|');
  assert.equal(label, 'true');
  assert.deepEqual(JSON.parse(record).original, 1);
  const again = await call(server.url, 'drains/move-first', { id, namespace: s.ns, pod: old, confirm: 'web' });
  assert.equal(again.status, 409, 'a second move of the same Deployment is refused');
  assert.match(said(again.json), /being moved already, for node/);

  await server.stop('SIGKILL');
  assert.equal(replicas(s), '2', 'nobody put it back while no server ran');
  const restarted = await startDrainboard();
  cleanups.push(() => restarted.stop());
  // The old server's Lease on the node must lapse first (40 s): until then, it might still be following its move.
  await waitFor('the restarted server to put the count back', 120_000, () => replicas(s) === '1' && moveRecord(s) === '|');
  assert.deepEqual(s.podsOnNode(), [`${s.ns}/${old}`], 'the old pod was never evicted');
  await restarted.stop();
});
