// Team mode: a plan drains as the person who started it, with credentials held only in the memory of the server
// they handed them to. When that server dies, another takes the plan's Lease over but holds no credentials for it:
// the plan waits `Blocked` ("needs a maintainer to continue"), a viewer cannot continue it, and a maintainer who
// continues it drains the rest as themselves, recorded on the plan as who continued it.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { apply, deletePlans, inlineKubeconfig, kubectl, kwokNodes, MAINTAIN, postAs, READ, repoRoot, startDrainboard, waitFor, signInWith as signIn } from './support.mjs';

const TAINT = 'drainboard.dev/test';
const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c(); deletePlans(); });

const call = (server, path, cookie, body) => postAs(server.url, path, cookie, body);

const plan = (name) => JSON.parse(kubectl('get', 'maintenanceplan', name, '-o', 'json'));
const record = (node) => JSON.parse(kubectl('get', 'node', node, '-o', 'jsonpath={.metadata.annotations.drainboard\\.dev/drain}') || 'null');

/** Two fresh kwok nodes; node 0 runs one pod that a budget holds until `release()`. */
async function heldPool(prefix) {
  const id = `${prefix}-${Math.random().toString(36).slice(2, 6)}`;
  const nodes = [0, 1].map((i) => `${id}-${i}`);
  cleanups.push(kwokNodes(id, nodes));
  kubectl('create', 'namespace', id);
  await waitFor(`the default service account of ${id}`, 30_000, () => {
    try { kubectl('get', 'serviceaccount', 'default', '-n', id); return true; } catch { return false; }
  });
  // Node 0's pod is held by a budget, so its drain is still running until the test lets it go.
  apply({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'held' },
    spec: { replicas: 1, selector: { matchLabels: { app: 'held' } }, template: { metadata: { labels: { app: 'held' } }, spec: {
      nodeSelector: { 'kubernetes.io/hostname': nodes[0] },
      tolerations: [{ key: TAINT, operator: 'Exists', effect: 'NoSchedule' }],
      containers: [{ name: 'c', image: 'nginx:1.27' }],
    } } } }, id);
  apply({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'held' },
    spec: { minAvailable: 1, selector: { matchLabels: { app: 'held' } } } }, id);
  await waitFor('the held pod running', 60_000, () =>
    kubectl('get', 'pods', '-n', id, '--field-selector', 'status.phase=Running', '-o', 'name').trim() !== '');

  return { id, nodes, release: () => kubectl('delete', 'pdb', 'held', '-n', id) };
}

test('after its server dies, a person\'s plan waits Blocked; a viewer cannot continue it; a maintainer does, as themselves', { timeout: 240_000 }, async () => {
  const { nodes, release } = await heldPool('pt');
  const a = await startDrainboard(['--team', '--insecure-http']);
  const b = await startDrainboard(['--team', '--insecure-http']);
  cleanups.push(() => a.stop(), () => b.stop());
  const alice = await signIn(a, inlineKubeconfig('pt-alice', MAINTAIN));
  const started = await call(a, 'plans/start', alice, { nodes, options: { max_parallel: 1 }, reason: 'pt kernel' });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const name = started.body;
  await waitFor('node 0 draining as alice', 60_000, () => plan(name).status?.nodes?.[0]?.step === 'Draining');
  assert.match(plan(name).status.runner, / as pt-alice$/);
  // The other server holds no credentials for it, so it runs nothing of it and says nothing while a runs it.
  await new Promise((r) => setTimeout(r, 12_000));
  assert.notEqual(plan(name).status.phase, 'Blocked', 'not blocked while its server runs it');

  await a.stop('SIGKILL');
  const blocked = await waitFor('the plan to wait for a maintainer', 90_000, () => {
    const now = plan(name);
    return now.status?.phase === 'Blocked' ? now : null;
  });
  const condition = blocked.status.conditions.find((c) => c.type === 'Blocked');
  assert.equal(condition.status, 'True');
  assert.equal(condition.reason, 'NeedsMaintainer');
  assert.match(condition.message, /needs a maintainer to continue/);
  assert.equal(blocked.status.runner, undefined, 'nobody runs it');

  const viewer = await signIn(b, inlineKubeconfig('pt-viewer', READ));
  const page = (await call(b, 'plans/status', viewer, { id: name })).body;
  assert.equal(page.blocked, 'NeedsMaintainer', 'the page says why it waits');
  const refused = await call(b, 'plans/continue', viewer, { id: name });
  assert.equal(refused.status, 403, JSON.stringify(refused.body));
  assert.match(refused.body.Denied.message, /pt-viewer may not continue .* lacks/);
  assert.equal(plan(name).status.phase, 'Blocked', 'still waiting');
  assert.equal(record(nodes[1]), null, 'node 1 untouched');

  release();
  const dave = await signIn(b, inlineKubeconfig('pt-dave', MAINTAIN));
  const continued = await call(b, 'plans/continue', dave, { id: name });
  assert.equal(continued.status, 200, JSON.stringify(continued.body));
  const done = await waitFor('the plan to complete', 90_000, () => {
    const now = plan(name);
    return now.status?.phase === 'Complete' ? now : null;
  });
  assert.equal(done.status.continuedBy, 'pt-dave');
  assert.equal(done.status.startedBy, 'pt-alice');
  assert.equal(record(nodes[0]).started_by ?? record(nodes[0]).startedBy, 'pt-dave', 'node 0 resumed as dave');
  assert.equal(record(nodes[1]).state, 'Drained');
  assert.equal(record(nodes[1]).started_by ?? record(nodes[1]).startedBy, 'pt-dave', 'node 1 drained as dave');
});

test('a person\'s plan goes on after they sign out, as their drains do, with the credentials they handed over', { timeout: 180_000 }, async () => {
  const { nodes, release } = await heldPool('ps');
  const a = await startDrainboard(['--team', '--insecure-http']);
  cleanups.push(() => a.stop());
  const erin = await signIn(a, inlineKubeconfig('ps-erin', MAINTAIN));
  const started = await call(a, 'plans/start', erin, { nodes, options: { max_parallel: 1 }, reason: 'ps kernel' });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const name = started.body;
  await waitFor('node 0 draining', 60_000, () => plan(name).status?.nodes?.[0]?.step === 'Draining');
  const out = await call(a, 'session/sign-out', erin, {});
  assert.equal(out.status, 200, JSON.stringify(out.body));
  assert.equal((await call(a, 'plans', erin)).status, 401, 'her session is gone');
  release();
  const done = await waitFor('the plan to complete', 90_000, () => {
    const now = plan(name);
    return now.status?.phase === 'Complete' ? now : null;
  });
  assert.equal(done.status.continuedBy, undefined, 'nobody had to continue it');
  assert.equal(record(nodes[1]).state, 'Drained');
  assert.equal(record(nodes[1]).started_by ?? record(nodes[1]).startedBy, 'ps-erin', 'node 1 drained as erin, after she signed out');
});

test('an unattended plan: waits while no admission policy guards it, is refused to a person without the permission, and runs with nobody signed in once allowed', { timeout: 240_000 }, async () => {
  const policy = join(repoRoot, 'deploy', 'components', 'unattended', 'policy.yaml');
  kubectl('delete', '-f', policy, '--ignore-not-found');
  cleanups.push(() => kubectl('delete', '-f', policy, '--ignore-not-found'));
  // Node 0's pod is held by its budget until the night plan is seen running.
  const { id, nodes, release } = await heldPool('pu');
  // The server's own identity here is the admin's kubeconfig: it may drain, as the component lets a ServiceAccount.
  const a = await startDrainboard(['--team', '--insecure-http', '--unattended-plans']);
  cleanups.push(() => a.stop());
  const unattended = (name, spec) => apply({ apiVersion: 'drainboard.dev/v1alpha1', kind: 'MaintenancePlan',
    metadata: { name }, spec: { nodes, unattended: true, reason: `${id} night`, ...spec } });

  // Made while no policy guarded it: nobody's rights were checked, so the server will not run it as itself.
  unattended(`${id}-early`, {});
  // Other servers of this file, started without --unattended-plans, may say first that unattended plans are off on
  // them; this one's more precise reason stands.
  const early = await waitFor('the early plan to wait, naming the missing policy', 60_000, () => {
    const now = plan(`${id}-early`);
    return now.status?.phase === 'Blocked' && /admission policy/.test(now.status.conditions.find((c) => c.type === 'Blocked')?.message) ? now : null;
  });
  const waiting = early.status.conditions.find((c) => c.type === 'Blocked');
  assert.equal(waiting.reason, 'UnattendedNotAllowed');
  assert.match(waiting.message, /need the admission policy drainboard-unattended-plans \(it is not installed\)/);
  assert.equal(record(nodes[0]), null, 'nothing drained');

  kubectl('apply', '-f', policy);
  await new Promise((r) => setTimeout(r, 1_500));
  // A maintainer without the explicit permission asks the page for one: the API server's admission refuses it.
  const frank = await signIn(a, inlineKubeconfig('pu-frank', MAINTAIN));
  const refused = await waitFor('the policy to refuse frank', 30_000, async () => {
    const r = await call(a, 'plans/start', frank, { nodes, options: { max_parallel: 1, unattended: true }, reason: 'pu' });
    return r.status === 200 ? (kubectl('delete', 'maintenanceplan', r.body), null) : r;
  });
  assert.equal(refused.status, 403, JSON.stringify(refused.body));
  assert.match(JSON.stringify(refused.body), /maintenanceplans\/unattended .*pu-frank does not have/);
  // The early plan stays where it was: the policy came after it. Its server looks at waiting plans every 5 s, and
  // then says so.
  const still = await waitFor('the early plan to say it was made before the policy', 30_000, () => {
    const now = plan(`${id}-early`);
    return /made before the admission policy/.test(now.status?.conditions?.find((c) => c.type === 'Blocked')?.message) ? now : null;
  });
  assert.equal(still.status.phase, 'Blocked');
  assert.equal(record(nodes[0]), null, 'still nothing drained');
  kubectl('patch', 'maintenanceplan', `${id}-early`, '--type=merge', '-p', '{"spec":{"cancelled":true}}');

  // One the admin makes now (allowed: the admin may do anything) runs, with nobody signed in anywhere.
  kubectl('delete', 'maintenanceplan', `${id}-early`, '--wait=true');
  await call(a, 'session/sign-out', frank, {});
  unattended(`${id}-night`, { maxParallel: 1 });
  const running = await waitFor('the unattended plan to run', 30_000, () => plan(`${id}-night`).status?.runner);
  assert.match(running, / as drainboard \(unattended maintenance\)$/);
  release();
  const done = await waitFor('the unattended plan to complete', 90_000, () => {
    const now = plan(`${id}-night`);
    return now.status?.phase === 'Complete' ? now : null;
  });
  assert.equal(done.status.continuedBy, undefined, 'nobody had to continue it');
  for (const node of nodes) {
    assert.equal(record(node).state, 'Drained');
    assert.equal(record(node).started_by ?? record(node).startedBy, 'drainboard (unattended maintenance)');
  }
  // PHASE NODES DONE DRAINING AWAITED FAILED UNATTENDED
  assert.match(kubectl('get', 'maintenanceplan', `${id}-night`), /Complete\s+2\s+2\s+0\s+0\s+0\s+true/, 'kubectl get shows it unattended');
});

test('a rollout checks the starter\'s rights once before it makes anything, and one person may have at most 10 plans not ended', { timeout: 180_000 }, async () => {
  const { id, nodes, release } = await heldPool('pc');
  const a = await startDrainboard(['--team', '--insecure-http']);
  cleanups.push(() => a.stop());
  const mine = () => JSON.parse(kubectl('get', 'maintenanceplans', '-o', 'json')).items
    .filter((p) => p.spec.reason?.startsWith(id));
  // May make plans, may not drain: refused before any plan exists.
  const maker = await signIn(a, inlineKubeconfig('pc-maker', [...READ,
    { apiGroups: ['drainboard.dev'], resources: ['maintenanceplans'], verbs: ['create', 'patch'] }]));
  const refused = await call(a, 'plans/start', maker, { nodes, options: { max_parallel: 1 }, reason: `${id} refused` });
  assert.equal(refused.status, 403, JSON.stringify(refused.body));
  assert.match(refused.body.Denied.message, /pc-maker may not start a plan: lacks .*patch nodes/);
  assert.equal(mine().length, 0, 'no plan was made');

  // Ten plans of one person wait on the held node; the eleventh is refused, and a colleague is not held by it.
  const gail = await signIn(a, inlineKubeconfig('pc-gail', MAINTAIN));
  for (let i = 0; i < 10; i += 1) {
    const r = await call(a, 'plans/start', gail, { nodes: [nodes[0]], options: { max_parallel: 1 }, reason: `${id} ${i}` });
    assert.equal(r.status, 200, `plan ${i}: ${JSON.stringify(r.body)}`);
  }
  await waitFor('the watch to see all ten', 15_000, () => mine().length === 10);
  const over = await call(a, 'plans/start', gail, { nodes: [nodes[1]], options: { max_parallel: 1 }, reason: `${id} 11` });
  assert.equal(over.status, 429, JSON.stringify(over.body));
  assert.match(over.body.TooMany, /pc-gail has 10 plans that have not ended/);
  const hank = await signIn(a, inlineKubeconfig('pc-hank', MAINTAIN));
  const other = await call(a, 'plans/start', hank, { nodes: [nodes[1]], options: { max_parallel: 1 }, reason: `${id} hank` });
  assert.equal(other.status, 200, JSON.stringify(other.body));
  // Once one of hers ends, she may start another.
  const first = mine().find((p) => p.spec.reason === `${id} 0`).metadata.name;
  assert.equal((await call(a, 'plans/cancel', gail, { id: first })).status, 200);
  await waitFor('her first plan to end', 30_000, () => plan(first).status?.phase === 'Cancelled');
  const again = await call(a, 'plans/start', gail, { nodes: [nodes[1]], options: { max_parallel: 1 }, reason: `${id} again` });
  assert.equal(again.status, 200, JSON.stringify(again.body));
  release();
  for (const p of mine()) kubectl('patch', 'maintenanceplan', p.metadata.name, '--type=merge', '-p', '{"spec":{"cancelled":true}}');
});
