// The capacity check against the real scheduler: what it flags before a drain is what the scheduler leaves Pending
// after it, and what it passes runs. Also its bad input and a foreign page.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { artifactsDir, kubectl, said, scenario, useServerAndBrowser, waitFor } from './support.mjs';

const ctx = useServerAndBrowser();
const cleanups = [];
after(() => cleanups.forEach((c) => c()));

const call = async (path, body, headers = {}) => {
  const res = await fetch(`${ctx.server.url}/api/${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
};

const verdict = (report, prefix) => report.pods.find((p) => `${p.namespace}/${p.name}`.startsWith(prefix))?.verdict;
const kind = (v) => (v && typeof v === 'object' ? Object.keys(v)[0] : v);

test('bad capacity requests are refused with what to fix; a foreign page is refused', { timeout: 60_000 }, async () => {
  for (const [body, status, pattern] of [
    [{ nodes: [] }, 400, /1 to 500 nodes/],
    [{ nodes: ['n1', 'n1'] }, 400, /named twice/],
    [{ nodes: ['Not_A_Node!'] }, 400, /not a node name/],
    [{ nodes: ['no-such-node-xyz'] }, 404, /does not exist/],
    [{ nodes: 'node-1' }, 400, /./],
  ]) {
    const res = await call('capacity', body);
    assert.equal(res.status, status, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
    assert.match(said(res.body), pattern);
  }
  const foreign = await call('capacity', { nodes: ['node-1'] }, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
  assert.equal(foreign.status, 403);
});

test('the check flags what the scheduler leaves Pending, passes what runs, and follows the room there is', { timeout: 240_000 }, async () => {
  const s = await scenario('cap');
  cleanups.push(() => s.cleanup());
  const container = (cpu) => [{ name: 'c', image: 'nginx:1.27', resources: { requests: { cpu, memory: '64Mi' } } }];
  s.deployment('small', 2, { containers: container('100m') });
  s.deployment('big', 1, { containers: container('20') });
  s.deployment('pinned', 1, { nodeSelector: { 'drainboard.dev/pool': s.node, 'kubernetes.io/hostname': s.node } });
  s.deployment('spread', 1, {
    topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule',
      labelSelector: { matchLabels: { app: 'spread' } } }],
  });
  await s.running(5);
  // The spare has 32 cores; a pod bound to it that takes 20 leaves 12, too few for `big`.
  const hog = () => {
    kubectl('run', 'hog', '-n', s.ns, '--image=nginx:1.27', `--overrides=${JSON.stringify({ apiVersion: 'v1', spec: {
      nodeName: s.spare, tolerations: [{ key: 'drainboard.dev/test', operator: 'Exists' }],
      containers: [{ name: 'hog', image: 'nginx:1.27', resources: { requests: { cpu: '20' } } }] } })}`);
    kubectl('wait', '-n', s.ns, '--for=condition=Ready', 'pod/hog', '--timeout=60s');
  };
  hog();
  s.openSpare();
  await waitFor('the spare to be schedulable in the board', 15_000, async () => {
    const r = await call('capacity', { nodes: [s.node] });
    return r.status === 200 && verdict(r.body, `${s.ns}/small-`) && kind(verdict(r.body, `${s.ns}/small-`)) === 'Fits';
  });

  // In the drain dialog: the two pods that fit nowhere are listed with the scheduler's reasons.
  const context = await ctx.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(ctx.server.url);
  await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
  await page.fill('[data-testid="node-filter"]', s.node);
  const card = page.locator(`[data-testid="node-row"][data-node="${s.node}"]`);
  await card.locator('[data-testid="action-drain"]:not([disabled])').click();
  const dialog = page.locator('[data-testid="drain-dialog"]');
  await dialog.locator('[data-testid="capacity-check"]').click();
  const summary = dialog.locator('[data-testid="capacity-summary"]');
  await summary.waitFor({ timeout: 15_000 });
  assert.equal(await summary.getAttribute('data-pending'), '2', await summary.textContent());
  assert.equal(await summary.getAttribute('data-cant-tell'), '1');
  const pending = await dialog.locator('[data-testid="capacity-pending"] [data-testid="capacity-pod"]')
    .evaluateAll((els) => els.map((e) => [e.dataset.pod, e.textContent]));
  const big = pending.find(([pod]) => pod.startsWith(`${s.ns}/big-`));
  const pinned = pending.find(([pod]) => pod.startsWith(`${s.ns}/pinned-`));
  assert.ok(big && pinned, JSON.stringify(pending));
  assert.match(big[1], /1 Insufficient cpu/);
  assert.match(pinned[1], /didn't match Pod's node affinity\/selector/);
  assert.match(await dialog.locator('[data-testid="capacity-cant-tell"]').textContent(), /spread-.*topology spread/);
  assert.match(await dialog.locator('[data-testid="capacity"]').textContent(), /estimate/);
  await page.screenshot({ path: join(artifactsDir, 'capacity-check.png') });
  await context.close();

  // With room on the spare, `big` fits; without it, it does not.
  kubectl('delete', 'pod', 'hog', '-n', s.ns, '--grace-period=0', '--force');
  const roomy = await waitFor('big to fit once the spare has room', 15_000, async () => {
    const r = (await call('capacity', { nodes: [s.node] })).body;
    return kind(verdict(r, `${s.ns}/big-`)) === 'Fits' ? r : null;
  });
  assert.equal(verdict(roomy, `${s.ns}/big-`).Fits, s.spare);
  assert.equal(kind(verdict(roomy, `${s.ns}/pinned-`)), 'Pending', 'room does not help a selector');
  hog();
  const tight = await waitFor('big to be flagged again', 15_000, async () => {
    const r = (await call('capacity', { nodes: [s.node] })).body;
    return kind(verdict(r, `${s.ns}/big-`)) === 'Pending' ? r : null;
  });
  assert.equal(kind(verdict(tight, `${s.ns}/small-`)), 'Fits');

  // The real scheduler agrees: after the drain, the flagged pods are Pending as unschedulable, the others run.
  const started = await call('drains/start', { node: s.node, options: {} });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  await waitFor('the drain to end', 90_000, async () => {
    const p = (await call('drains/status', { id: started.body.id })).body;
    return p.state === 'Drained' ? p : null;
  });
  const pods = () => JSON.parse(kubectl('get', 'pods', '-n', s.ns, '-o', 'json')).items
    .filter((p) => !p.metadata.deletionTimestamp)
    .map((p) => ({ name: p.metadata.name, node: p.spec.nodeName, phase: p.status.phase,
      scheduled: p.status.conditions?.find((c) => c.type === 'PodScheduled') }));
  const after = await waitFor('the scheduler to decide every replacement', 60_000, () => {
    const now = pods();
    const undecided = now.filter((p) => p.name !== 'hog' && !p.node && p.scheduled?.reason !== 'Unschedulable');
    const small = now.filter((p) => p.name.startsWith('small-') && p.phase === 'Running' && p.node === s.spare);
    return undecided.length === 0 && small.length === 2 ? now : null;
  });
  for (const name of ['big-', 'pinned-']) {
    const p = after.find((x) => x.name.startsWith(name));
    assert.ok(p && !p.node && p.phase === 'Pending', `${name}: ${JSON.stringify(p)}`);
    assert.equal(p.scheduled.reason, 'Unschedulable');
  }
  assert.match(after.find((x) => x.name.startsWith('big-')).scheduled.message, /Insufficient cpu/);
  assert.match(after.find((x) => x.name.startsWith('pinned-')).scheduled.message, /didn't match Pod's node affinity\/selector/);
});
