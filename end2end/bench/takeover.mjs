// A maintenance plan's takeover: from the moment the server running a plan is stopped (SIGKILL, or SIGTERM) to the
// next eviction of that plan, made by the other server. Two local servers share one cluster; the plan drains two
// nodes, the first held by a budget until the runner is stopped, when the budget goes. The next eviction is the
// held pod's deletion starting (its `deletionTimestamp`, polled every 100 ms).
//   node end2end/bench/takeover.mjs [--rounds 3] [--server target/debug/drainboard]
// Needs a cluster: the environment of `end2end/cluster/cluster.sh up` (`. "$dir/cluster.env"`).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { child, waitForLine } from './children.mjs';
import { authorized, lockedEnv, origin } from './local-lock.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : fallback; };
const rounds = Number(opt('--rounds', '3'));
const server = opt('--server', 'target/debug/drainboard');
const kubeconfig = process.env.KUBECONFIG;
const bin = process.env.DRAINBOARD_CLUSTER_BIN;
if (!kubeconfig || !bin) throw new Error('run inside a cluster\'s environment: . "$dir/cluster.env"');
const kc = (...a) => execFileSync(join(bin, 'kubectl'), ['--kubeconfig', kubeconfig, ...a], { encoding: 'utf8' });
const apply = (o, ns) => execFileSync(join(bin, 'kubectl'), ['--kubeconfig', kubeconfig, 'apply', ...(ns ? ['-n', ns] : []), '-f', '-'],
  { input: JSON.stringify(o), encoding: 'utf8' });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(what, ms, check, every = 100) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(every);
  }
}

async function start() {
  const c = child(server, ['--addr', '127.0.0.1:0', '--kubeconfig', kubeconfig], { env: lockedEnv() });
  let logs = '';
  c.stderr.on('data', (d) => { logs += d; });
  const [, url] = await waitForLine(c, /serving on (\S+)/, 'drainboard');
  return { c, url: origin(url), logs: () => logs };
}

async function round(signal, i) {
  const id = `tk-${signal.toLowerCase()}-${i}-${Math.random().toString(36).slice(2, 5)}`;
  const nodes = [`${id}-0`, `${id}-1`];
  for (const node of nodes) {
    apply({ apiVersion: 'v1', kind: 'Node',
      metadata: { name: node, labels: { 'kwok.x-k8s.io/node': 'fake', 'kubernetes.io/hostname': node, 'drainboard.dev/pool': id } },
      spec: { taints: [{ key: 'drainboard.dev/test', value: 'true', effect: 'NoSchedule' }] },
      status: { allocatable: { cpu: '32', memory: '128Gi', pods: '250' }, capacity: { cpu: '32', memory: '128Gi', pods: '250' } } });
  }
  kc('wait', '--for=condition=Ready', ...nodes.map((n) => `node/${n}`), '--timeout=60s');
  kc('create', 'namespace', id);
  await until('the namespace\'s service account', 30_000, () => { try { kc('get', 'sa', 'default', '-n', id); return true; } catch { return false; } });
  apply({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'held' },
    spec: { replicas: 1, selector: { matchLabels: { app: 'held' } }, template: { metadata: { labels: { app: 'held' } }, spec: {
      nodeSelector: { 'kubernetes.io/hostname': nodes[0] },
      tolerations: [{ key: 'drainboard.dev/test', operator: 'Exists', effect: 'NoSchedule' }],
      containers: [{ name: 'c', image: 'nginx:1.27' }] } } } }, id);
  apply({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'held' },
    spec: { minAvailable: 1, selector: { matchLabels: { app: 'held' } } } }, id);
  const pod = await until('the held pod', 60_000, () =>
    kc('get', 'pods', '-n', id, '--field-selector', 'status.phase=Running', '-o', 'jsonpath={.items[0].metadata.name}').trim());
  const [a, b] = [await start(), await start()];
  try {
    const ask = (path) => fetch(`${a.url}${path}`, authorized({ method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ nodes, options: { max_parallel: 1 }, reason: 'takeover bench' }) }));
    // A build from before the plans had one name serves them under /api/rollouts only.
    let res = await ask('/api/plans/start');
    if (res.status === 404) res = await ask('/api/rollouts/start');
    const plan = await res.json();
    if (res.status !== 200) throw new Error(JSON.stringify(plan));
    const runner = await until('node 0 draining', 60_000, () => {
      const p = JSON.parse(kc('get', 'maintenanceplan', plan, '-o', 'json'));
      return p.status?.nodes?.[0]?.step === 'Draining' && p.status.runner;
    });
    await sleep(2_000);
    const holder = runner.replace(/ as .*$/, '');
    const [victim, other] = a.logs().includes(`holder=${holder}`) ? [a, b] : [b, a];
    const t0 = Date.now();
    victim.c.kill(signal);
    kc('delete', 'pdb', 'held', '-n', id);
    const evicted = await until('the next eviction', 120_000, () =>
      kc('get', 'pod', pod, '-n', id, '--ignore-not-found', '-o', 'jsonpath={.metadata.deletionTimestamp}').trim() !== ''
      || kc('get', 'pod', pod, '-n', id, '--ignore-not-found', '-o', 'name').trim() === '' ? Date.now() : null);
    const complete = await until('the plan to complete', 120_000, () =>
      kc('get', 'maintenanceplan', plan, '-o', 'jsonpath={.status.phase}') === 'Complete' ? Date.now() : null, 250);
    await other.c.stop();
    return { signal, next_eviction_s: (evicted - t0) / 1000, complete_s: (complete - t0) / 1000 };
  } finally {
    await a.c.stop();
    await b.c.stop();
    try { kc('delete', 'node', '-l', `drainboard.dev/pool=${id}`, '--wait=false'); } catch {}
    try { kc('delete', 'namespace', id, '--wait=false'); } catch {}
  }
}

const results = [];
for (let i = 0; i < rounds; i++) {
  for (const signal of ['SIGKILL', 'SIGTERM']) {
    const r = await round(signal, i);
    console.log(JSON.stringify(r));
    results.push(r);
  }
}
for (const signal of ['SIGKILL', 'SIGTERM']) {
  const times = results.filter((r) => r.signal === signal).map((r) => r.next_eviction_s).sort((x, y) => x - y);
  console.log(`${signal}: next eviction after ${times.map((t) => t.toFixed(1)).join(', ')} s (median ${times[Math.floor(times.length / 2)].toFixed(1)} s)`);
}
process.exit(0);
