// Team mode: what the server holds in its memory (running drains and their pods, the history, the timeline, the
// rollouts) was gathered with other people's identities and the server's own. Each reader is shown it by their own
// rights, as the cards are: a person with no RBAC at all gets none of it (403, and nothing on the board stream), and
// a person who may list the nodes but pods in one namespace only sees that namespace's pods, and not a budget of
// another namespace holding the drain up.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { apply, deletePlans, inlineKubeconfig, kubectl, MAINTAIN, postAs, READ, requireEnv, scenario, startDrainboard, waitFor } from './support.mjs';
import { join } from 'node:path';

let server;
let s;
let otherNs;
const auditLog = join(requireEnv('DRAINBOARD_CLUSTER_DIR'), `rbac-reads-audit-${process.pid}.jsonl`);

before(async () => {
  server = await startDrainboard(['--team', '--insecure-http', '--audit-log', auditLog]);
});
after(async () => {
  await server?.stop();
  deletePlans();
  s?.cleanup();
  if (otherNs) { try { kubectl('delete', 'namespace', otherNs, '--wait=false'); } catch {} }
});

const call = (path, cookie, body) => postAs(server.url, path, cookie, body);

async function signIn(kubeconfig) {
  const res = await fetch(`${server.url}/api/session/sign-in`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ kubeconfig }),
  });
  assert.equal(res.status, 200, await res.text());
  return res.headers.get('set-cookie').split(';')[0];
}

/** What a GET event stream sends within `ms` (its status, and its text), or until `enough(text)`. */
async function listen(path, cookie, ms, enough = () => false) {
  const controller = new AbortController();
  const res = await fetch(`${server.url}${path}`, { headers: { cookie }, signal: controller.signal });
  let text = '';
  if (res.ok) {
    const reader = res.body.getReader();
    const deadline = Date.now() + ms;
    while (Date.now() < deadline && !enough(text)) {
      const chunk = await Promise.race([reader.read(), new Promise((r) => setTimeout(() => r({ timeout: true }), 250))]);
      if (chunk.done) break;
      if (chunk.value) text += new TextDecoder().decode(chunk.value);
    }
  } else {
    text = await res.text();
  }
  controller.abort();
  return { status: res.status, text };
}

/** A one-replica Deployment `app` in namespace `ns`, pinned to the scenario's node. */
function deployment(ns, app) {
  apply({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: app },
    spec: { replicas: 1, selector: { matchLabels: { app } }, template: { metadata: { labels: { app } }, spec: {
      nodeSelector: { 'drainboard.dev/pool': s.node },
      tolerations: [{ key: 'drainboard.dev/test', operator: 'Exists', effect: 'NoSchedule' }],
      containers: [{ name: 'c', image: 'nginx:1.27' }],
    } } },
  }, ns);
}

test('drains, their pods, the history, the timeline and rollouts are shown by the reader\'s rights: nothing without RBAC, one namespace\'s pods with one', { timeout: 180_000 }, async () => {
  s = await scenario('rr');
  otherNs = `${s.ns}-other`;
  apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: otherNs } });
  await waitFor(`the default service account of ${otherNs}`, 30_000, () => {
    try { kubectl('get', 'serviceaccount', 'default', '-n', otherNs); return true; } catch { return false; }
  });
  // Carol's namespace has a pod the drain evicts; the other namespace a pod its budget holds on the node.
  deployment(s.ns, 'mine');
  deployment(otherNs, 'theirs');
  apply({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'theirs-pdb' },
    spec: { minAvailable: 1, selector: { matchLabels: { app: 'theirs' } } } }, otherNs);
  await waitFor('both pods running on the node', 60_000, () =>
    kubectl('get', 'pods', '-A', '--field-selector', `spec.nodeName=${s.node},status.phase=Running`, '-o', 'name')
      .split('\n').filter(Boolean).length === 2);

  const alice = await signIn(inlineKubeconfig('rr-alice', MAINTAIN));
  const carol = await signIn(inlineKubeconfig('rr-carol', [
    ...READ.filter((r) => !r.resources.includes('pods')),
    { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
  ]));
  apply({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'pods', namespace: s.ns },
    rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }] });
  apply({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'carol', namespace: s.ns },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pods' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'rr-carol' }] });
  // Nobody: a person the API server knows, with no role at all (every authenticated user may ask who they are).
  const nobody = await signIn(inlineKubeconfig('rr-nobody', []));

  // Alice drains the node; the other namespace's budget holds it up, so it stays running.
  const started = await call('drains/start', alice, { node: s.node, options: { ignore_daemonsets: true, timeout_seconds: 170 }, reason: 'rr kernel' });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const id = started.body.id;
  const whole = await waitFor('the budget to hold the drain up', 60_000, async () => {
    const p = (await call('drains/status', alice, { id })).body;
    return p.pods?.some((pod) => pod.namespace === otherNs && pod.state.Blocked) && p.pods.some((pod) => pod.namespace === s.ns) ? p : null;
  });
  assert.deepEqual(whole.pods.map((p) => p.namespace).sort(), [s.ns, otherNs].sort(), 'alice sees both namespaces');
  const rollout = await call('plans/start', alice, { nodes: [s.spare], options: { max_parallel: 1, drain: { ignore_daemonsets: true } }, reason: 'rr spare' });
  assert.equal(rollout.status, 200, JSON.stringify(rollout.body));

  // Nobody: 403 for each, naming what it takes, and the board stream carries no drain and no history.
  for (const [path, body] of [['drains', {}], ['drains/status', { id }], ['nodes/history', { node: s.node }],
    ['history/recent', {}], ['rollouts', {}], ['plans/status', { id: rollout.body }]]) {
    const res = await call(path, nobody, body);
    assert.equal(res.status, 403, `${path}: ${JSON.stringify(res.body)}`);
    assert.match(res.body.Denied.message, /list and watch of nodes/, path);
  }
  const follow = await listen(`/api/drains/${id}/events`, nobody, 2_000);
  assert.equal(follow.status, 403, follow.text);
  const board = await listen('/api/board/events', nobody, 3_000);
  assert.doesNotMatch(board.text, new RegExp(id), 'no drain of anyone on the stream');
  assert.doesNotMatch(board.text, /rr kernel|theirs-pdb/);
  assert.doesNotMatch(board.text, /event: history/);
  assert.doesNotMatch(board.text, /event: plans/, 'no plan either');
  // /metrics: the fleet's counts (read with the server's own view) only for whoever may read the whole board.
  const scrape = async (cookie) => (await fetch(`${server.url}/metrics`, { headers: { cookie } })).text();
  const nobodys = await scrape(nobody);
  assert.match(nobodys, /^drainboard_drains_total\{/m, 'the server\'s own counters');
  assert.doesNotMatch(nobodys, /drainboard_nodes|drainboard_plans|drainboard_unexplained/, 'no count of the fleet');
  assert.match(await scrape(alice), /^drainboard_nodes\{state="draining"\} [1-9]/m, 'alice sees the node her drain holds');

  // Carol: the drain with her namespace's pod only, the node's history and the timeline, the rollouts.
  const hers = await call('drains/status', carol, { id });
  assert.equal(hers.status, 200, JSON.stringify(hers.body));
  assert.deepEqual([...new Set(hers.body.pods.map((p) => p.namespace))], [s.ns], 'her namespace\'s pods only');
  assert.equal(hers.body.plan, null, 'no plan: its lists name every namespace\'s pods');
  const list = await call('drains', carol);
  assert.ok(list.body.every((d) => d.pods.every((p) => p.namespace === s.ns)), JSON.stringify(list.body));
  const history = await call('nodes/history', carol, { node: s.node });
  assert.equal(history.status, 200);
  assert.ok(history.body.some((e) => e.reason === 'rr kernel'), JSON.stringify(history.body));
  assert.equal((await call('history/recent', carol)).status, 200);
  const rollouts = await call('rollouts', carol);
  assert.ok(rollouts.body.some((r) => r.id === rollout.body), JSON.stringify(rollouts.body));
  // On the stream, the drain's summary without the other namespace's budget; alice's names it.
  const hasDrain = (text) => text.includes(id);
  const carols = await listen('/api/board/events', carol, 15_000, (t) => hasDrain(t) && t.includes(rollout.body));
  assert.ok(hasDrain(carols.text), 'carol\'s stream lists the drain');
  assert.match(carols.text, new RegExp(`event: plans\ndata: .*${rollout.body}`), 'and the plans, on the same stream');
  assert.doesNotMatch(carols.text, /theirs-pdb/, 'not the budget of a namespace she may not read');
  const alices = await listen('/api/board/events', alice, 15_000, (t) => t.includes('theirs-pdb'));
  assert.match(alices.text, /theirs-pdb/, 'alice\'s stream names the budget holding the drain up');

  // Signing out while her drain runs: asked first, nothing ends, and she is told it goes on.
  const asked = await call('session/sign-out', alice, { ask: true });
  assert.deepEqual([asked.status, asked.body], [200, { signed_out: false, running_drains: 1 }]);
  assert.equal((await call('drains/status', alice, { id })).status, 200, 'still signed in');
  assert.equal((await call('drains/cancel', alice, { id })).status, 200);
  await waitFor('the drain to end', 30_000, async () => (await call('drains/status', alice, { id })).body.finished_at);
  const out = await call('session/sign-out', alice, { ask: true });
  assert.deepEqual([out.status, out.body], [200, { signed_out: true, running_drains: 0 }], 'nothing running: signed out');
  assert.equal((await call('drains', alice)).status, 401);
});
