// The manifests in deploy/: the API server accepts them (a server-side dry run, the pod under the "restricted" Pod
// Security Standard); the ServiceAccount gets exactly the rights listed in API.md and nothing more; the people's
// roles can (maintainer) and cannot (viewer) drain; and the real server, run as in a pod (no kubeconfig, the
// ServiceAccount's token mounted where the kubelet puts it), takes the in-cluster config, refuses to start without
// --team, and serves the board, cordons and drains for a signed-in maintainer, writing its history, audit Events
// and drain Leases with no refusal.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, relative } from 'node:path';
import {
  inlineKubeconfig, kubectl, repoRoot, requireEnv, scenario, startDrainboard, waitFor,
} from './support.mjs';

const deployDir = join(repoRoot, 'deploy');
const NS = 'drainboard';
const SA = `system:serviceaccount:${NS}:drainboard`;
// A ServiceAccount of the same namespace that nothing is bound to: what every service account there gets anyway.
const NOBODY = `system:serviceaccount:${NS}:drainboard-unbound`;
const MAINTAINER = 'deploy-maintainer';
const DELETER = 'deploy-pod-deleter';
const MOVER = 'deploy-mover';
const VIEWER = 'deploy-viewer';

/** The pinned kubectl as the admin, with stdout, stderr and the exit code (a refusal does not throw). */
function run(args, input) {
  const bin = join(requireEnv('DRAINBOARD_CLUSTER_BIN'), 'kubectl');
  const r = spawnSync(bin, ['--kubeconfig', requireEnv('KUBECONFIG'), ...args], { input, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The pinned kubectl with another kubeconfig (a person's own). */
function kubectlWith(kubeconfig, ...args) {
  const bin = join(requireEnv('DRAINBOARD_CLUSTER_BIN'), 'kubectl');
  const r = spawnSync(bin, ['--kubeconfig', kubeconfig, ...args], { encoding: 'utf8' });
  assert.equal(r.status, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** The objects `kubectl apply -k deploy` would apply, as JSON. */
function rendered() {
  return JSON.parse(kubectl('apply', '-k', deployDir, '--dry-run=client', '-o', 'json')).items;
}

/**
 * An overlay of the operator's own beside deploy/ with `component` added (Kustomize takes relative paths only),
 * rendered: its objects, the base's, and the objects it adds (`Kind/name`, sorted).
 */
function withComponent(component) {
  const ops = mkdtempSync(join(requireEnv('DRAINBOARD_CLUSTER_DIR'), 'ops-'));
  writeFileSync(join(ops, 'kustomization.yaml'), `resources: [${relative(ops, deployDir)}]\ncomponents: [${relative(ops, component)}]\n`);
  const overlay = JSON.parse(kubectl('apply', '-k', ops, '--dry-run=client', '-o', 'json')).items;
  const base = rendered();
  const added = overlay.filter((o) => !base.some((b) => b.kind === o.kind && b.metadata.name === o.metadata.name)).map((o) => `${o.kind}/${o.metadata.name}`).sort();
  return { overlay, base, added };
}

const namespaceGone = () => run(['get', 'namespace', NS]).code !== 0;

/** `kubectl auth can-i VERB RESOURCE[/SUBRESOURCE] --as WHO`: true for "yes". */
function canI(who, verb, resource, namespace) {
  // kubectl reads "pods/eviction" as the pod named eviction: a subresource is a flag of its own.
  const [kind, subresource] = resource.split('/');
  const r = run(['auth', 'can-i', verb, kind, ...(subresource ? [`--subresource=${subresource}`] : []), '--as', who,
    ...(namespace ? ['-n', namespace] : [])]);
  assert.ok(['yes', 'no'].includes(r.stdout.trim()), `can-i ${verb} ${resource}: ${r.stdout}${r.stderr}`);
  return r.stdout.trim() === 'yes';
}

/**
 * `kubectl auth can-i --list --as WHO -n NS`, parsed: the resource rows as {resource: "verb verb"} (verbs sorted),
 * and the non-resource URL rows as sorted text. Resource names are checked to be `[]` (no rule here names any).
 */
function rights(who, namespace) {
  const out = kubectl('auth', 'can-i', '--list', '--as', who, '-n', namespace);
  const [header, ...lines] = out.split('\n').filter(Boolean);
  assert.match(header, /^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs$/);
  const resources = {};
  const urls = [];
  for (const line of lines) {
    if (/^\s/.test(line)) {
      urls.push(line.trim().replace(/\s+/g, ' '));
      continue;
    }
    const [resource, nonResource, names, verbs] = line.trim().split(/\s{2,}/);
    assert.equal(nonResource, '[]', line);
    // A grant on named objects only is keyed with the names: `secrets [drainboard-plan-seal]`.
    const key = names === '[]' ? resource : `${resource} ${names}`;
    const list = verbs.replace(/[[\]]/g, '').split(' ').filter(Boolean);
    resources[key] = [...new Set([...(resources[key]?.split(' ') ?? []), ...list])].sort().join(' ');
  }
  return { resources, urls: urls.sort() };
}

const freePort = () => new Promise((resolve) => {
  const s = createServer();
  s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
});

const cleanups = [];
before(async () => {
  // A namespace left terminating by an earlier run cannot be applied to until it is gone.
  await waitFor(`namespace ${NS} from an earlier run to go`, 60_000, () => {
    const phase = run(['get', 'namespace', NS, '-o', 'jsonpath={.status.phase}']).stdout;
    return phase !== 'Terminating';
  });
});
after(async () => {
  for (const c of cleanups.reverse()) {
    try { await c(); } catch (err) { console.error('cleanup:', err.message); }
  }
  // Everything deploy/ made but the MaintenancePlan resource, which the test cluster has from its start and other
  // tests' plans live in: deleting it would delete them.
  const made = readFileSync(join(deployDir, 'kustomization.yaml'), 'utf8').split('\n')
    .map((l) => l.match(/^\s+- (\S+\.yaml)$/)?.[1]).filter((f) => f && !f.startsWith('crds/'));
  run(['delete', ...made.flatMap((f) => ['-f', join(deployDir, f)]), '--ignore-not-found', '--wait=false']);
  for (const name of [MAINTAINER, VIEWER, DELETER, MOVER]) {
    run(['delete', 'clusterrolebinding', `deploy-test-${name}`, `test-${name}`, '--ignore-not-found']);
    run(['delete', 'clusterrole', `test-${name}`, '--ignore-not-found']);
  }
  await waitFor(`namespace ${NS} to go`, 60_000, namespaceGone);
});

test('the manifests pass a server-side dry run, and the pod meets the restricted Pod Security Standard', { timeout: 60_000 }, () => {
  // The namespace first (for real): the dry run of the objects in it needs it to exist.
  kubectl('apply', '-f', join(deployDir, 'namespace.yaml'));
  const dry = run(['apply', '-k', deployDir, '--dry-run=server']);
  assert.equal(dry.code, 0, dry.stderr);
  assert.doesNotMatch(dry.stderr, /warning/i, 'no Pod Security (or other) warning');
  const items = rendered();
  const lines = dry.stdout.split('\n').filter(Boolean);
  assert.equal(lines.length, items.length, dry.stdout);
  for (const line of lines) assert.match(line, / \(server dry run\)$/);
  const find = (kind, name = 'drainboard') => items.find((o) => o.kind === kind && o.metadata.name === name);
  const deployment = find('Deployment');
  assert.equal(deployment.spec.replicas, 2);
  const pod = deployment.spec.template.spec;
  const [container] = pod.containers;
  const args = container.args;
  for (const flag of ['--team', '--namespace=$(POD_NAMESPACE)']) {
    assert.ok(args.includes(flag), `${flag} in ${args}`);
  }
  const env = Object.fromEntries(container.env.map((e) => [e.name, e]));
  assert.equal(env.POD_NAMESPACE.valueFrom.fieldRef.fieldPath, 'metadata.namespace', 'its own namespace');
  assert.equal(env.DRAINBOARD_WALL_TOKEN.valueFrom.secretKeyRef.optional, true);
  // The probes are served on --probe-addr's port.
  const probePort = args.find((a) => a.startsWith('--probe-addr=')).split(':').pop();
  const ports = Object.fromEntries(container.ports.map((p) => [p.name, String(p.containerPort)]));
  assert.equal(ports[container.livenessProbe.httpGet.port], probePort);
  assert.equal(ports[container.readinessProbe.httpGet.port], probePort);
  assert.equal(container.livenessProbe.httpGet.path, '/healthz');
  assert.equal(container.readinessProbe.httpGet.path, '/readyz');
  assert.deepEqual(
    [pod.securityContext.runAsNonRoot, pod.securityContext.seccompProfile.type, container.securityContext.readOnlyRootFilesystem,
      container.securityContext.allowPrivilegeEscalation, container.securityContext.capabilities.drop],
    [true, 'RuntimeDefault', true, false, ['ALL']],
  );
  assert.ok(container.resources.requests.memory && container.resources.limits.memory);
  assert.equal(pod.serviceAccountName, 'drainboard');
  const service = find('Service');
  assert.equal(service.spec.sessionAffinity, 'ClientIP');
  assert.equal(ports[service.spec.ports[0].targetPort], args.find((a) => a.startsWith('--addr=')).split(':').pop());
  const pdb = find('PodDisruptionBudget');
  assert.equal(pdb.spec.minAvailable, 1);
  assert.deepEqual(pdb.spec.selector.matchLabels, deployment.spec.selector.matchLabels);
  assert.deepEqual(service.spec.selector, deployment.spec.selector.matchLabels);

  // A pod of the template, as the ReplicaSet would create it, passes the namespace's enforced "restricted" policy
  // (its ServiceAccount must exist for that: applied for real).
  kubectl('apply', '-f', join(deployDir, 'serviceaccount.yaml'));
  const asPod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'drainboard-psa-check', namespace: NS }, spec: pod };
  const created = run(['create', '--dry-run=server', '-f', '-'], JSON.stringify(asPod));
  assert.equal(created.code, 0, created.stderr);
  assert.doesNotMatch(created.stderr, /warning/i);
});

test('the ServiceAccount may do exactly what API.md lists: no more', { timeout: 60_000 }, () => {
  kubectl('apply', '-f', join(deployDir, 'namespace.yaml'), '-f', join(deployDir, 'serviceaccount.yaml'));
  // Cluster-wide, for the shared board cache.
  const everywhere = {
    nodes: 'get list watch', pods: 'list watch', 'poddisruptionbudgets.policy': 'list watch',
    // The drains' lifecycle conditions (DrainInProgress, Drained), each written on the node version read.
    'nodes/status': 'patch',
    // Plans: followed, their status and finalizer written; made, paused and cancelled by people only.
    'maintenanceplans.drainboard.dev': 'get list patch watch', 'maintenanceplans.drainboard.dev/status': 'get patch',
    // Windows: read, and whether each reads written in its status; written by people only.
    'maintenancewindows.drainboard.dev': 'get list watch', 'maintenancewindows.drainboard.dev/status': 'get patch',
    // The app teams' webhooks: which team each namespace names (its metadata alone).
    namespaces: 'list watch',
  };
  const expected = {
    // A namespace with no grant of its own shows the cluster-wide rights alone.
    'kube-public': everywhere,
    [NS]: {
      ...everywhere,
      configmaps: 'create get list update watch',
      'leases.coordination.k8s.io': 'create delete get list update watch',
      // The plans' seal key: made once, then read, that Secret only.
      secrets: 'create',
      'secrets [drainboard-plan-seal]': 'get',
    },
    'kube-node-lease': { ...everywhere, 'leases.coordination.k8s.io': 'list watch' },
    default: { ...everywhere, 'events.events.k8s.io': 'create patch' },
  };
  for (const [namespace, mine] of Object.entries(expected)) {
    // What an unbound service account of the same namespace gets: the rows every authenticated user has (the
    // system:basic-user role's self-reviews, and the discovery and public-info non-resource URLs).
    const baseline = rights(NOBODY, namespace);
    assert.deepEqual(Object.keys(baseline.resources).sort(), [
      'selfsubjectaccessreviews.authorization.k8s.io', 'selfsubjectreviews.authentication.k8s.io',
      'selfsubjectrulesreviews.authorization.k8s.io',
    ], `${namespace}: the baseline is the self-reviews only`);
    const got = rights(SA, namespace);
    assert.deepEqual(got.urls, baseline.urls, `${namespace}: no non-resource URL beyond every user's`);
    const extra = Object.fromEntries(Object.entries(got.resources).filter(([r, v]) => baseline.resources[r] !== v));
    assert.deepEqual(extra, mine, `${namespace}: the ServiceAccount's own rights`);
  }
  // SelfSubject* reviews need no grant: the person's sign-in and permission checks are made with their own client.
  assert.equal(canI(SA, 'create', 'subjectaccessreviews.authorization.k8s.io'), false);
  assert.equal(canI(SA, 'create', 'tokenreviews.authentication.k8s.io'), false);
  assert.equal(canI(SA, 'patch', 'nodes'), false, 'the server itself cannot cordon');
  assert.equal(canI(SA, 'create', 'maintenanceplans.drainboard.dev'), false, 'nor make a plan of its own');
  assert.equal(canI(SA, 'create', 'pods/eviction', 'default'), false, 'nor evict');
  assert.equal(canI(SA, 'get', 'secrets', NS), false, 'nor read secrets, even its own namespace\'s');
});

test('drainboard-maintainer may drain (a real kubectl drain as that user); drainboard-viewer may only read', { timeout: 120_000 }, async () => {
  kubectl('apply', '-f', join(deployDir, 'people.yaml'));
  const bind = (user, role) => run(['create', 'clusterrolebinding', `deploy-test-${user}`, `--clusterrole=${role}`, `--user=${user}`]);
  bind(MAINTAINER, 'drainboard-maintainer');
  bind(VIEWER, 'drainboard-viewer');
  const drainVerbs = [
    ['get', 'nodes'], ['patch', 'nodes'], ['list', 'pods'], ['get', 'pods'], ['watch', 'pods'],
    ['create', 'pods/eviction'], ['get', 'daemonsets.apps'],
    // A plan's verification: the workloads a drain evicted pods of, back to their desired ready count.
    ['get', 'deployments.apps'], ['get', 'replicasets.apps'], ['get', 'statefulsets.apps'], ['get', 'replicationcontrollers'],
    // "Safe to reboot" waits for the node's volumes to detach.
    ['list', 'volumeattachments.storage.k8s.io'],
  ];
  for (const [verb, resource] of drainVerbs) {
    assert.equal(canI(MAINTAINER, verb, resource, 'default'), true, `maintainer: ${verb} ${resource}`);
  }
  const boardVerbs = [
    ['list', 'nodes'], ['watch', 'nodes'], ['list', 'pods'], ['watch', 'pods'], ['list', 'poddisruptionbudgets.policy'],
    ['watch', 'poddisruptionbudgets.policy'], ['list', 'leases.coordination.k8s.io'], ['watch', 'leases.coordination.k8s.io'],
    ['get', 'daemonsets.apps'],
  ];
  for (const [verb, resource] of boardVerbs) {
    assert.equal(canI(VIEWER, verb, resource, 'default'), true, `viewer: ${verb} ${resource}`);
    assert.equal(canI(MAINTAINER, verb, resource, 'default'), true, `maintainer: ${verb} ${resource}`);
  }
  for (const [verb, resource] of [['patch', 'nodes'], ['create', 'pods/eviction'], ['delete', 'pods'], ['update', 'nodes']]) {
    assert.equal(canI(VIEWER, verb, resource, 'default'), false, `viewer: no ${verb} ${resource}`);
  }
  // Deleting pods passes their budgets by: a role of its own, for drains with "disable eviction" only.
  for (const [verb, resource] of [['update', 'nodes'], ['delete', 'nodes'], ['create', 'pods'], ['get', 'secrets'], ['delete', 'pods']]) {
    assert.equal(canI(MAINTAINER, verb, resource, 'default'), false, `maintainer: no ${verb} ${resource}`);
  }
  bind(DELETER, 'drainboard-pod-deleter');
  assert.equal(canI(DELETER, 'delete', 'pods', 'default'), true, 'the pod deleter may delete pods');
  for (const [verb, resource] of [['list', 'pods'], ['patch', 'nodes'], ['create', 'pods/eviction'], ['get', 'pods']]) {
    assert.equal(canI(DELETER, verb, resource, 'default'), false, `pod deleter: nothing else (${verb} ${resource})`);
  }
  // Moving a workload first patches its Deployment: a role of its own, which the maintainer does not have.
  assert.equal(canI(MAINTAINER, 'patch', 'deployments.apps', 'default'), false, 'maintainer: no patch deployments');
  bind(MOVER, 'drainboard-mover');
  for (const [verb, resource] of [['patch', 'deployments.apps'], ['get', 'replicasets.apps'], ['list', 'horizontalpodautoscalers.autoscaling']]) {
    assert.equal(canI(MOVER, verb, resource, 'default'), true, `mover: ${verb} ${resource}`);
  }
  for (const [verb, resource] of [['delete', 'deployments.apps'], ['update', 'deployments.apps'], ['patch', 'statefulsets.apps']]) {
    assert.equal(canI(MOVER, verb, resource, 'default'), false, `mover: no ${verb} ${resource}`);
  }

  // A real drain as the maintainer, with a client certificate, through kubectl.
  const s = await scenario('deploy-kubectl');
  cleanups.push(() => s.cleanup());
  s.deployment('web', 2);
  s.daemonset('agent');
  await s.running(3);
  s.openSpare();
  inlineKubeconfig(MAINTAINER, []);
  const kubeconfig = join(requireEnv('DRAINBOARD_CLUSTER_DIR'), `${MAINTAINER}.kubeconfig`);
  const out = kubectlWith(kubeconfig, 'drain', s.node, '--ignore-daemonsets', '--timeout=60s');
  assert.match(out, /evicting pod .*web-/);
  assert.match(out, new RegExp(`node/${s.node} drained`));
  assert.equal(kubectl('get', 'node', s.node, '-o', 'jsonpath={.spec.unschedulable}'), 'true');
  assert.deepEqual(s.podsOnNode().filter((p) => !p.includes('/agent-')), [], 'only the DaemonSet\'s pod is left');
  // The viewer's kubectl drain is refused at the cordon.
  inlineKubeconfig(VIEWER, []);
  const viewer = join(requireEnv('DRAINBOARD_CLUSTER_DIR'), `${VIEWER}.kubeconfig`);
  const bin = join(requireEnv('DRAINBOARD_CLUSTER_BIN'), 'kubectl');
  const refused = spawnSync(bin, ['--kubeconfig', viewer, 'drain', s.spare, '--ignore-daemonsets', '--timeout=10s'], { encoding: 'utf8' });
  assert.notEqual(refused.status, 0);
  assert.match(refused.stderr, /forbidden/);
  assert.equal(kubectl('get', 'node', s.spare, '-o', 'jsonpath={.spec.unschedulable}'), '', 'the spare is untouched');
});

test('in a pod with no kubeconfig the server is its ServiceAccount (the in-cluster config), refuses to start without --team, and serves a maintainer with no refusal', { timeout: 120_000 }, async () => {
  kubectl('apply', '-f', join(deployDir, 'namespace.yaml'), '-f', join(deployDir, 'serviceaccount.yaml'), '-f', join(deployDir, 'people.yaml'));
  run(['create', 'clusterrolebinding', `deploy-test-${MAINTAINER}`, '--clusterrole=drainboard-maintainer', `--user=${MAINTAINER}`]);
  const deployment = rendered().find((o) => o.kind === 'Deployment');
  const args = deployment.spec.template.spec.containers[0].args;
  assert.ok(!args.some((a) => a.startsWith('--kubeconfig')), `the pod names no kubeconfig: ${args.join(' ')}`);
  assert.equal(deployment.spec.template.spec.automountServiceAccountToken, true);
  // What the kubelet mounts in the pod: the ServiceAccount's token, the cluster's CA and the namespace.
  const dir = requireEnv('DRAINBOARD_CLUSTER_DIR');
  const files = mkdtempSync(join(dir, 'deploy-sa-'));
  writeFileSync(join(files, 'token'), kubectl('create', 'token', 'drainboard', '-n', NS, '--duration=1h').trim());
  writeFileSync(join(files, 'ca.crt'), readFileSync(join(dir, 'pki', 'ca.crt')));
  writeFileSync(join(files, 'namespace'), NS);
  const apiServer = new URL(kubectl('config', 'view', '--minify', '-o', 'jsonpath={.clusters[0].cluster.server}').trim());
  const inCluster = { files, host: apiServer.hostname, port: apiServer.port };

  // Every request would act as the pod's ServiceAccount: the server will not start so.
  await assert.rejects(startDrainboard([], { inCluster }), /exited with 1:[\s\S]*running in a pod with the pod's service account: add --team/);
  const s = await scenario('deploy-sa');
  cleanups.push(() => s.cleanup());
  s.deployment('web', 2);
  await s.running(2);
  s.openSpare();

  const probePort = await freePort();
  const server = await startDrainboard(
    ['--team', '--insecure-http', '--namespace', NS, '--probe-addr', `127.0.0.1:${probePort}`],
    { inCluster },
  );
  cleanups.push(() => server.stop());
  assert.match(server.logs(), /the pod's service account \(in-cluster\)/, 'connected through the in-cluster config');
  // Ready: the shared cache, made with the ServiceAccount's rights, has listed nodes, pods, Leases and budgets.
  await waitFor('/readyz', 30_000, async () => (await fetch(`http://127.0.0.1:${probePort}/readyz`)).status === 200);

  const call = async (path, body, cookie) => {
    const res = await fetch(`${server.url}/api/${path}`, {
      method: 'POST', headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) }, body: JSON.stringify(body ?? {}),
    });
    const text = await res.text();
    let json;
    try { json = JSON.parse(text); } catch { json = text; }
    return { status: res.status, body: json, setCookie: res.headers.get('set-cookie') };
  };
  const signIn = await call('session/sign-in', { kubeconfig: inlineKubeconfig(MAINTAINER, []) });
  assert.equal(signIn.status, 200, JSON.stringify(signIn.body));
  assert.equal(signIn.body.user, MAINTAINER);
  const cookie = signIn.setCookie.split(';')[0];

  const board = await call('board', undefined, cookie);
  assert.equal(board.status, 200, JSON.stringify(board.body));
  const card = board.body.upsert.find((c) => c.name === s.node);
  assert.ok(card, 'the scenario node is on the board');
  assert.ok(card.lease_renewed, 'with its node Lease (kube-node-lease)');
  assert.equal(card.pod_count, 2);
  const permissions = await call('permissions', undefined, cookie);
  assert.equal(permissions.status, 200);
  // Everything but deleting pods, which is drainboard-pod-deleter's.
  assert.deepEqual(permissions.body, { cordon: null, drain: null, delete_pods: 'delete pods' }, JSON.stringify(permissions.body));

  const cordoned = await call('nodes/cordon', { node: s.node, reason: 'deploy check' }, cookie);
  assert.deepEqual([cordoned.status, cordoned.body], [200, 'Changed']);
  assert.equal(kubectl('get', 'node', s.node, '-o', 'jsonpath={.spec.unschedulable}'), 'true');

  // A drain takes the node's Lease in the server's namespace, and lets it go at the end.
  const started = await call('drains/start', { node: s.node, reason: 'deploy check' }, cookie);
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const ended = await waitFor('the drain to end', 60_000, async () => {
    const p = (await call('drains/status', { id: started.body.id }, cookie)).body;
    return ['Cordoning', 'Planning', 'Evicting'].includes(p.state) ? null : p;
  });
  assert.equal(ended.state, 'Drained', JSON.stringify(ended));
  await waitFor('the drain Lease to be released', 15_000, () =>
    run(['get', 'lease', '-n', NS, `drainboard-drain.${s.node}`]).code !== 0);
  assert.deepEqual((await call('nodes/uncordon', { node: s.node }, cookie)).body, 'Changed');

  // The durable history, in the server's namespace, written as the ServiceAccount.
  const history = await waitFor('four history entries', 15_000, () => {
    const r = run(['get', 'configmap', '-n', NS, `drainboard-history.${s.node}`, '-o', 'json']);
    if (r.code !== 0) return null;
    const entries = JSON.parse(JSON.parse(r.stdout).data.entries);
    return entries.length >= 4 ? entries : null;
  });
  assert.deepEqual(history.map((e) => e.action), ['Cordon', 'DrainStarted', 'DrainEnded', 'Uncordon']);
  assert.ok(history.every((e) => e.user === MAINTAINER), JSON.stringify(history));
  const read = await call('nodes/history', { node: s.node }, cookie);
  assert.equal(read.status, 200);
  assert.equal(read.body.length, 4);
  // The audit Events, in default.
  const events = await waitFor('the audit Events', 15_000, () => {
    const items = JSON.parse(kubectl('get', 'events.events.k8s.io', '-n', 'default', '--field-selector', `regarding.name=${s.node}`, '-o', 'json')).items
      .filter((e) => e.reportingController === 'drainboard.dev/drainboard');
    return items.length >= 4 ? items : null;
  });
  const cordonEvent = events.find((e) => e.reason === 'DrainboardCordon');
  assert.equal(cordonEvent.note, `${MAINTAINER} cordoned ${s.node} (reason: deploy check)`);

  await server.stop();
  const logs = server.logs();
  assert.doesNotMatch(logs, /forbidden/i, 'no refusal in the server log');
  assert.doesNotMatch(logs, /could not|cannot/i, 'no failed write in the server log');
});

test('the unattended component: the server may drain, and its admission policy lets only those with the explicit permission and the rights to drain any node ask it to', { timeout: 120_000 }, async () => {
  const component = join(deployDir, 'components', 'unattended');
  const { overlay, base, added } = withComponent(component);
  const args = overlay.find((o) => o.kind === 'Deployment').spec.template.spec.containers[0].args;
  assert.ok(args.includes('--unattended-plans'), `the overlay turns the flag on: ${args.join(' ')}`);
  assert.ok(!base.find((o) => o.kind === 'Deployment').spec.template.spec.containers[0].args.includes('--unattended-plans'), 'off in the base');
  assert.deepEqual(added, [
    'ClusterRole/drainboard-server-unattended', 'ClusterRole/drainboard-unattended-plans',
    'ClusterRoleBinding/drainboard-server-unattended', 'ValidatingAdmissionPolicy/drainboard-unattended-plans',
    'ValidatingAdmissionPolicyBinding/drainboard-unattended-plans',
  ]);
  const policy = overlay.find((o) => o.kind === 'ValidatingAdmissionPolicy');
  assert.equal(policy.spec.failurePolicy, 'Fail');
  assert.deepEqual(overlay.find((o) => o.kind === 'ValidatingAdmissionPolicyBinding').spec.validationActions, ['Deny']);

  const files = ['rbac.yaml', 'policy.yaml'].flatMap((f) => ['-f', join(component, f)]);
  kubectl('apply', '-f', join(deployDir, 'people.yaml'), ...files);
  const people = ['un-maint', 'un-lead', 'un-viewer'];
  cleanups.push(() => {
    run(['delete', 'maintenanceplans', '-l', 'deploy-test=unattended', '--wait=false']);
    run(['delete', ...files, '--ignore-not-found']);
    for (const p of people) run(['delete', 'clusterrolebinding', `${p}-a`, `${p}-b`, `${p}-c`, '--ignore-not-found']);
  });
  // The server may now drain, and read the policy that guards it; nothing more of admission, and still no plan of
  // its own.
  for (const [verb, resource] of [['patch', 'nodes'], ['create', 'pods/eviction'], ['delete', 'pods'], ['get', 'deployments.apps']]) {
    assert.equal(canI(SA, verb, resource, 'default'), true, `the server: ${verb} ${resource}`);
  }
  const canGet = (name) => run(['auth', 'can-i', 'get', `validatingadmissionpolicies.admissionregistration.k8s.io/${name}`, '--as', SA]).stdout.trim();
  assert.equal(canGet('drainboard-unattended-plans'), 'yes');
  assert.equal(canGet('another-policy'), 'no');
  assert.equal(canI(SA, 'create', 'maintenanceplans.drainboard.dev'), false, 'nor make a plan of its own');
  assert.equal(canI(SA, 'update', 'nodes'), false);

  const bind = (user, suffix, role) => kubectl('create', 'clusterrolebinding', `${user}-${suffix}`, `--clusterrole=${role}`, `--user=${user}`);
  bind('un-maint', 'a', 'drainboard-maintainer');
  bind('un-lead', 'a', 'drainboard-maintainer');
  bind('un-lead', 'b', 'drainboard-unattended-plans');
  // A viewer who was given the unattended permission, and the right to make plans, but not to drain.
  kubectl('create', 'clusterrole', 'un-viewer-plans', '--verb=create,patch', '--resource=maintenanceplans.drainboard.dev');
  cleanups.push(() => run(['delete', 'clusterrole', 'un-viewer-plans', '--ignore-not-found']));
  bind('un-viewer', 'a', 'un-viewer-plans');
  bind('un-viewer', 'b', 'drainboard-unattended-plans');

  const make = (who, name, spec) => run(['create', '--as', who, '-f', '-'], JSON.stringify({
    apiVersion: 'drainboard.dev/v1alpha1', kind: 'MaintenancePlan',
    metadata: { name, labels: { 'deploy-test': 'unattended' } },
    spec: { nodes: ['deploy-unattended-none'], paused: true, ...spec },
  }));
  // A policy takes a moment to be seen by the API server's admission: wait until it refuses the first case.
  const refused = await waitFor('the policy to refuse a maintainer without the permission', 30_000, () => {
    const r = make('un-maint', 'un-maint-1', { unattended: true });
    if (r.code === 0) run(['delete', 'maintenanceplan', 'un-maint-1']);
    return r.code !== 0 ? r : null;
  });
  assert.match(refused.stderr, /forbidden: ValidatingAdmissionPolicy 'drainboard-unattended-plans'.*need create on maintenanceplans\/unattended .*which un-maint does not have/);
  assert.equal(make('un-maint', 'un-maint-2', {}).code, 0, 'a plan as a person is theirs to make');
  const viewer = make('un-viewer', 'un-viewer-1', { unattended: true });
  assert.notEqual(viewer.code, 0);
  assert.match(viewer.stderr, /un-viewer may not cordon every node \(patch nodes, cluster-wide\)/);
  // Disabling eviction takes the right to delete pods, which drainboard-maintainer does not grant.
  const noDelete = make('un-lead', 'un-lead-0', { unattended: true, drain: { disableEviction: true } });
  assert.notEqual(noDelete.code, 0);
  assert.match(noDelete.stderr, /un-lead may not delete pods in every namespace/);
  bind('un-lead', 'c', 'drainboard-pod-deleter');
  const lead = await waitFor('the pod deleter role to be seen', 15_000, () => {
    const r = make('un-lead', 'un-lead-1', { unattended: true, drain: { disableEviction: true } });
    return r.code === 0 ? r : null;
  });
  assert.equal(lead.code, 0, lead.stderr);

  // Someone without the permission may pause, cancel and re-word an unattended plan, but not widen what it drains,
  // nor turn their own plan unattended.
  const patch = (who, name, spec) => run(['patch', 'maintenanceplan', name, '--as', who, '--type=merge', '-p', JSON.stringify({ spec })]);
  assert.equal(patch('un-maint', 'un-lead-1', { paused: false, cancelled: true, reason: 'not tonight' }).code, 0);
  for (const spec of [{ nodes: ['deploy-unattended-none', 'another'] }, { maxParallel: 5 }, { drain: { force: true } }, { nodeSelector: 'pool=a' }]) {
    const r = patch('un-maint', 'un-lead-1', spec);
    assert.notEqual(r.code, 0, `${JSON.stringify(spec)} is refused`);
    assert.match(r.stderr, /need create on maintenanceplans\/unattended/);
  }
  const turned = patch('un-maint', 'un-maint-2', { unattended: true });
  assert.notEqual(turned.code, 0);
  assert.match(turned.stderr, /need create on maintenanceplans\/unattended/);
  assert.equal(patch('un-lead', 'un-maint-2', { unattended: true }).code, 0, 'the lead may');
});

test('the hold-others component: the server may set other tools\' switches on nodes and take kured\'s lock, and its admission policy refuses it anything else on a node', { timeout: 120_000 }, async () => {
  const component = join(deployDir, 'components', 'hold-others');
  const { overlay, added } = withComponent(component);
  assert.deepEqual(added, [
    'ClusterRole/drainboard-server-hold-others', 'ClusterRoleBinding/drainboard-server-hold-others',
    'Role/drainboard-kured-lock', 'RoleBinding/drainboard-kured-lock',
    'ValidatingAdmissionPolicy/drainboard-hold-others', 'ValidatingAdmissionPolicyBinding/drainboard-hold-others',
  ]);
  assert.equal(overlay.find((o) => o.kind === 'ValidatingAdmissionPolicy').spec.failurePolicy, 'Fail');

  const files = ['rbac.yaml', 'policy.yaml'].flatMap((f) => ['-f', join(component, f)]);
  kubectl('apply', '-f', join(deployDir, 'namespace.yaml'), '-f', join(deployDir, 'serviceaccount.yaml'), ...files);
  const node = `deploy-hold-${Math.random().toString(36).slice(2, 6)}`;
  cleanups.push(() => {
    run(['delete', ...files, '--ignore-not-found']);
    run(['delete', 'node', node, '--ignore-not-found', '--wait=false']);
  });
  run(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: node, labels: { 'kwok.x-k8s.io/node': 'fake' } } }));
  // kured's lock, kube-system/kured only; no other DaemonSet, and still no cordon by right alone.
  assert.equal(canI(SA, 'patch', 'nodes'), true);
  const canKured = (verb, name) => run(['auth', 'can-i', verb, `daemonsets.apps/${name}`, '-n', 'kube-system', '--as', SA]).stdout.trim();
  assert.deepEqual([canKured('get', 'kured'), canKured('patch', 'kured'), canKured('patch', 'kube-proxy'), canKured('delete', 'kured')], ['yes', 'yes', 'no', 'no']);
  assert.equal(canI(SA, 'create', 'events.events.k8s.io', 'kube-system'), true);
  assert.equal(canI(SA, 'update', 'nodes'), false, 'no update: a patch, judged by the policy');

  const asServer = (...args) => run([...args, '--as', SA]);
  // The policy takes a moment to be seen by admission: wait until it refuses a taint.
  const taint = await waitFor('the policy to refuse the server a taint', 30_000, () => {
    const r = asServer('taint', 'node', node, 'x=y:NoSchedule');
    if (r.code === 0) run(['taint', 'node', node, 'x-']);
    return r.code !== 0 ? r : null;
  });
  assert.match(taint.stderr, /ValidatingAdmissionPolicy 'drainboard-hold-others'.*may not change a node's spec/);
  // kubectl cordon says a refusal but exits 0: the node itself is what counts.
  const cordon = asServer('cordon', node);
  assert.match(cordon.stderr, /may not change a node's spec \(no cordon, no taint\)/);
  assert.equal(run(['get', 'node', node, '-o', 'jsonpath={.spec.unschedulable}']).stdout.trim(), '', 'still schedulable');
  const set = asServer('annotate', 'node', node, 'karpenter.sh/do-not-disrupt=true', 'drainboard.dev/holding-others=karpenter');
  assert.equal(set.code, 0, set.stderr);
  assert.equal(asServer('annotate', 'node', node, 'karpenter.sh/do-not-disrupt-').code, 0, 'and removes it');
  for (const [what, args, message] of [
    ['another annotation', ['annotate', 'node', node, 'example.com/x=1'], /only the annotations of other tools' switches/],
    ['a label', ['label', 'node', node, 'pool=x'], /labels, finalizers or owners/],
    ['a switch off', ['annotate', 'node', node, 'cluster-autoscaler.kubernetes.io/scale-down-disabled=false'], /only set other tools' switches to "true"/],
  ]) {
    const r = asServer(...args);
    assert.notEqual(r.code, 0, `${what} is refused`);
    assert.match(r.stderr, message, what);
  }
  assert.equal(run(['label', 'node', node, 'pool=x']).code, 0, 'people are not judged by it');
});
