// Rolling maintenance: many nodes drained with limits, checked against the cluster's own record of each drain (the
// node's drain annotation, written when its drain starts and ends), not only the rollout's report.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { apply, kubectl, requireEnv, startDrainboard, waitFor } from './support.mjs';

const TAINT = 'drainboard.dev/test';
const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c(); });

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
    const p = (await call('rollouts/status', { id })).body;
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
    const res = await call('rollouts/start', body);
    assert.equal(res.status, status, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
    assert.match(String(Object.values(res.body)[0]), pattern);
  }
  assert.equal((await call('rollouts/status', { id: 'nope' })).status, 404);
  // A foreign page cannot start one.
  const foreign = await call('rollouts/start', { nodes: ['node-1'], options: opts() },
    { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
  assert.equal(foreign.status, 403);
  assert.equal(kubectl('get', 'node', 'node-1', '-o', 'jsonpath={.spec.unschedulable}').trim(), '', 'node-1 untouched');
});

test('six nodes with at most two at once: never more than two draining, as the cluster recorded it', { timeout: 180_000 }, async () => {
  const p = await pool('ro-par', ['a', 'a', 'b', 'b', 'c', 'c']);
  const started = await call('rollouts/start', { nodes: p.nodes.map((n) => n.name), options: { max_parallel: 2 }, reason: 'kernel' });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const seen = [];
  const done = await waitFor('the rollout to finish', 120_000, async () => {
    const r = (await call('rollouts/status', { id: started.body })).body;
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
  const started = await call('rollouts/start', { nodes: p.nodes.map((n) => n.name), options: { max_parallel: 6, one_per_zone: true } });
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
  const started = await call('rollouts/start', { nodes: p.nodes.map((n) => n.name), options: { max_parallel: 1, stop_on_failure: true } });
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

  const started = await call('rollouts/start', { nodes: p.nodes.map((n) => n.name), options: { max_parallel: 2 } });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const done = await finished(started.body);
  assert.ok(done.nodes.every((n) => stepName(n.step) === 'Ended' && n.step.Ended === 'Drained'), JSON.stringify(done.nodes));
  watch.kill();
  assert.ok(seen.length >= 3, `the watch saw the budget change: ${JSON.stringify(seen)}`);
  const below = seen.filter((s) => s.current < s.desired);
  assert.deepEqual(below, [], `never fewer healthy pods than the budget's minimum: ${JSON.stringify(seen)}`);
  assert.ok(seen.some((s) => s.current === s.desired), 'the budget was at its minimum at times: the limit was exercised');
});
