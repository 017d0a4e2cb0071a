// The README's recipe "Tonight's kernel update" (deploy/examples/tonight/): its YAML blocks are the files, byte for
// byte; the bindings name roles deploy/ defines; and against the real control plane the files apply as written, each
// by a person who holds only the recipe's own bindings (a lead of ops-leads applies the window and the unattended
// plan, a maintainer of ops the plan run as a person), and every object is accepted as written. With a team-mode
// server started with --unattended-plans and the window certainly closed (its hours moved two hours ahead of now),
// each plan reads what the README says: the person's plan `Blocked`, reason `NeedsMaintainer`, until its person
// continues it, then `Blocked`, reason `MaintenanceWindow`; the unattended plan `Blocked`, reason
// `MaintenanceWindow`, run as the server's maintenance identity; nothing is cordoned; and once the window opens the
// unattended plan starts a node by itself. The nodes are fresh kwok nodes of the test's own, labelled as the recipe
// selects, tainted so that no other test's pods land there.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { apply, kubectl, postAs, repoRoot, requireEnv, startDrainboard, waitFor } from './support.mjs';

const recipeDir = join(repoRoot, 'deploy', 'examples', 'tonight');
const FILES = ['plan-unattended.yaml', 'plan.yaml', 'rbac.yaml', 'window.yaml'];
const WINDOW = 'nightly';
const PLAN = 'kernel-6-12';
const UNATTENDED_PLAN = 'kernel-6-12-unattended';
const SELECTOR = 'pool=general';
const MAINTENANCE = 'drainboard (unattended maintenance)';

const cleanups = [];
after(async () => {
  for (const c of cleanups.reverse()) {
    try { await c(); } catch (err) { console.error(`cleanup: ${err.message}`); }
  }
});

/**
 * The README's section "Tonight's kernel update", up to the next heading of its level or above (a lone `#` begins the
 * YAML blocks' comments).
 */
function section() {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const start = readme.indexOf("\n### Tonight's kernel update\n");
  assert.notEqual(start, -1, "README.md has a section \"### Tonight's kernel update\"");
  const rest = readme.slice(start + 1);
  const next = rest.slice(4).search(/^#{2,3} /m);
  return next === -1 ? rest : rest.slice(0, next + 4);
}

/** The pinned kubectl with `kubeconfig` (the admin's unless given): stdout, stderr and the exit code; never throws. */
function run(args, { kubeconfig = requireEnv('KUBECONFIG') } = {}) {
  const bin = join(requireEnv('DRAINBOARD_CLUSTER_BIN'), 'kubectl');
  const r = spawnSync(bin, ['--kubeconfig', kubeconfig, ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The objects of a List, or the one object kubectl printed. */
const objects = (json) => (json.kind === 'List' ? json.items : [json]);

/**
 * The objects a YAML file holds, as kubectl reads them (a client-side dry run: nothing is made). kubectl prints one
 * JSON document after another, each opening with a `{` at the start of a line.
 */
const written = (path) => kubectl('create', '--dry-run=client', '-o', 'json', '-f', path)
  .split(/^(?=\{)/m).filter((d) => d.trim()).map((d) => JSON.parse(d));

const exists = (...what) => run(['get', ...what]).code === 0;

/** Every field `want` has, `live` has with the same value (the API server adds defaults and metadata beside them). */
function within(want, live, path) {
  if (want === null || typeof want !== 'object') {
    assert.deepEqual(live, want, `${path} is as written`);
  } else if (Array.isArray(want)) {
    assert.ok(Array.isArray(live) && live.length === want.length, `${path} is as written: ${JSON.stringify(live)}`);
    want.forEach((w, i) => within(w, live[i], `${path}[${i}]`));
  } else {
    assert.ok(live && typeof live === 'object', `${path} is as written: ${JSON.stringify(live)}`);
    for (const [key, value] of Object.entries(want)) within(value, live[key], `${path}.${key}`);
  }
}

/** Checks every object of the recipe's `file` is in the cluster as the file writes it; returns them, as the API has them. */
function accepted(file) {
  const path = join(recipeDir, file);
  const live = objects(JSON.parse(kubectl('get', '-f', path, '-o', 'json')));
  const wanted = written(path);
  assert.equal(live.length, wanted.length, `${file}: every object is in the cluster`);
  for (const want of wanted) {
    const got = live.find((o) => o.kind === want.kind && o.metadata.name === want.metadata.name);
    assert.ok(got, `${file}: ${want.kind}/${want.metadata.name} is in the cluster`);
    assert.ok(got.metadata.uid, `${file}: ${want.kind}/${want.metadata.name} was made`);
    const { metadata, ...rest } = want;
    within(rest, got, `${file}: ${want.kind}/${want.metadata.name}`);
  }
  return live;
}

/**
 * A person of the local cluster: `name`, in `groups`, by a client certificate of the cluster's CA (the groups are its
 * organisations), and nothing bound to them but what the recipe binds to those groups. Their kubeconfig's path for
 * kubectl, and its text with the credentials inline, for the team-mode sign-in.
 */
function person(name, groups) {
  const pki = join(requireEnv('DRAINBOARD_CLUSTER_DIR'), 'pki');
  const [key, csr, crt, ext] = ['key', 'csr', 'crt', 'ext'].map((e) => join(pki, `${name}.${e}`));
  const subject = `/CN=${name}${groups.map((g) => `/O=${g}`).join('')}`;
  execFileSync('openssl', ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', subject,
    '-keyout', key, '-out', csr], { stdio: 'ignore' });
  writeFileSync(ext, 'extendedKeyUsage=clientAuth\nkeyUsage=digitalSignature,keyEncipherment\n');
  execFileSync('openssl', ['x509', '-req', '-in', csr, '-CA', join(pki, 'ca.crt'), '-CAkey', join(pki, 'ca.key'),
    '-CAcreateserial', '-days', '1', '-extfile', ext, '-out', crt], { stdio: 'ignore' });
  const server = kubectl('config', 'view', '--minify', '-o', 'jsonpath={.clusters[0].cluster.server}').trim();
  const b64 = (file) => readFileSync(file).toString('base64');
  const config = (cluster, user) => `apiVersion: v1
kind: Config
clusters:
- name: local
  cluster: {server: "${server}", ${cluster}}
users:
- name: ${name}
  user: {${user}}
contexts:
- name: ${name}
  context: {cluster: local, user: ${name}}
current-context: ${name}
`;
  const path = join(requireEnv('DRAINBOARD_CLUSTER_DIR'), `${name}.kubeconfig`);
  writeFileSync(path, config(`certificate-authority: "${join(pki, 'ca.crt')}"`, `client-certificate: "${crt}", client-key: "${key}"`));
  const inline = config(`certificate-authority-data: "${b64(join(pki, 'ca.crt'))}"`,
    `client-certificate-data: "${b64(crt)}", client-key-data: "${b64(key)}"`);
  return { name, path, inline };
}

async function signIn(server, who) {
  const res = await fetch(`${server.url}/api/session/sign-in`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ kubeconfig: who.inline }),
  });
  assert.equal(res.status, 200, await res.text());
  return res.headers.get('set-cookie').split(';')[0];
}

const call = (server, path, cookie, body) => postAs(server.url, path, cookie, body);

const plan = (name) => JSON.parse(kubectl('get', 'maintenanceplan', name, '-o', 'json'));
const blockedOf = (p) => p.status?.conditions?.find((c) => c.type === 'Blocked' && c.status === 'True');
const record = (node) => JSON.parse(kubectl('get', 'node', node, '-o', 'jsonpath={.metadata.annotations.drainboard\\.dev/drain}') || 'null');
const cordoned = (node) => kubectl('get', 'node', node, '-o', 'jsonpath={.spec.unschedulable}').trim() === 'true';
const pad = (n) => String(n).padStart(2, '0');
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
/** Asia/Tokyo is UTC+9 all year: its hours begin with UTC's. */
const tokyo = (ms) => new Date(ms + 9 * 3_600_000);

/** Waits until plan `name` reads phase `Blocked` with its `Blocked` condition's reason `reason`; the plan then. */
async function blockedBy(name, reason, timeoutMs, server) {
  try {
    return await waitFor(`plan ${name} Blocked, reason ${reason}`, timeoutMs, () => {
      const now = plan(name);
      return now.status?.phase === 'Blocked' && blockedOf(now)?.reason === reason ? now : null;
    });
  } catch (err) {
    const lines = (server?.logs() ?? '').split('\n').filter((l) => l.includes(name)).slice(-20).join('\n');
    throw new Error(`${err.message}; its status: ${JSON.stringify(plan(name).status)}; the server's log of it:\n${lines}`, { cause: err });
  }
}

/** Deletes plan `name` (its server cancels it and lets it go); one nobody runs any more loses its finalizer first. */
function dropPlan(name) {
  if (run(['delete', 'maintenanceplan', name, '--ignore-not-found', '--wait=true', '--timeout=30s']).code === 0) return;
  run(['patch', 'maintenanceplan', name, '--type', 'merge', '-p', '{"metadata":{"finalizers":null}}']);
  run(['delete', 'maintenanceplan', name, '--ignore-not-found', '--wait=true', '--timeout=30s']);
}

test('the README\'s recipe shows the files of deploy/examples/tonight/, byte for byte', () => {
  const files = readdirSync(recipeDir).sort();
  assert.deepEqual(files, FILES);
  const blocks = [...section().matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  const shown = new Map();
  for (const block of blocks) {
    const named = block.match(/^# deploy\/examples\/tonight\/(\S+)\n/)?.[1];
    assert.ok(named, `a YAML block of the section names its file on its first line:\n${block}`);
    assert.ok(!shown.has(named), `${named} is shown once`);
    shown.set(named, block);
  }
  assert.deepEqual([...shown.keys()].sort(), FILES, 'every file is shown');
  for (const file of FILES) {
    assert.equal(shown.get(file), readFileSync(join(recipeDir, file), 'utf8'), `README.md shows ${file} as it is`);
  }
});

test('applied as written by the people it binds, the recipe is accepted; while its window is closed each plan reads what the README says, and the unattended plan starts once the window opens', { timeout: 240_000 }, async () => {
  // Nothing of the recipe's may exist before: the test would otherwise change or remove someone else's.
  for (const [kind, name] of [['maintenancewindow', WINDOW], ['maintenanceplan', PLAN], ['maintenanceplan', UNATTENDED_PLAN]]) {
    assert.ok(!exists(kind, name), `no ${kind} ${name} exists before the test`);
  }
  const bindings = written(join(recipeDir, 'rbac.yaml'));
  for (const b of bindings) assert.ok(!exists('clusterrolebinding', b.metadata.name), `no ClusterRoleBinding ${b.metadata.name} exists before the test`);

  // The bindings name roles that deploy/ defines (the people's roles, and the unattended component's).
  const defining = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && path !== join(repoRoot, 'deploy', 'examples')) walk(path);
      else if (entry.isFile() && entry.name.endsWith('.yaml') && /^kind: ClusterRole$/m.test(readFileSync(path, 'utf8'))) defining.push(path);
    }
  };
  walk(join(repoRoot, 'deploy'));
  const roles = new Map(defining.flatMap(written).filter((o) => o.kind === 'ClusterRole').map((o) => [o.metadata.name, o]));
  assert.equal(bindings.length, 3, 'three bindings');
  for (const b of bindings) {
    assert.equal(b.kind, 'ClusterRoleBinding');
    assert.equal(b.roleRef.kind, 'ClusterRole');
    assert.ok(roles.has(b.roleRef.name), `${b.metadata.name} binds ${b.roleRef.name}, a ClusterRole of deploy/ (${[...roles.keys()].join(', ')})`);
  }
  // Those roles in the cluster, as deploy/ defines them, unless there already.
  for (const name of new Set(bindings.map((b) => b.roleRef.name))) {
    if (exists('clusterrole', name)) continue;
    apply(roles.get(name));
    cleanups.push(() => run(['delete', 'clusterrole', name, '--ignore-not-found']));
  }
  // The unattended component's admission policy, unless there already.
  const policy = join(repoRoot, 'deploy', 'components', 'unattended', 'policy.yaml');
  if (run(['get', '-f', policy]).code !== 0) {
    kubectl('apply', '-f', policy);
    cleanups.push(() => run(['delete', '-f', policy, '--ignore-not-found']));
  }
  // A plan made in the same second as the policy was never judged by it, and never runs unattended.
  const judgedFrom = Date.now() + 1_500;

  // Fresh nodes that the recipe's selector picks, and no other node.
  const pool = `recipe-${Math.random().toString(36).slice(2, 6)}`;
  const nodes = [`${pool}-0`, `${pool}-1`];
  nodes.forEach((node, i) => apply({ apiVersion: 'v1', kind: 'Node',
    metadata: { name: node, labels: { 'kwok.x-k8s.io/node': 'fake', 'kubernetes.io/hostname': node, 'drainboard.dev/pool': pool,
      pool: 'general', 'topology.kubernetes.io/zone': `zone-${pool}-${i}` } },
    spec: { taints: [{ key: 'drainboard.dev/test', value: 'true', effect: 'NoSchedule' }] },
    status: { allocatable: { cpu: '32', memory: '128Gi', pods: '250' }, capacity: { cpu: '32', memory: '128Gi', pods: '250' } } }));
  cleanups.push(() => {
    run(['delete', 'node', '-l', `drainboard.dev/pool=${pool}`, '--wait=false']);
    for (const node of nodes) {
      run(['delete', 'configmap', '-n', 'default', `drainboard-history.${node}`, '--ignore-not-found']);
      run(['delete', 'lease', '-n', 'default', `drainboard-drain.${node}`, '--ignore-not-found']);
    }
  });
  kubectl('wait', '--for=condition=Ready', ...nodes.map((n) => `node/${n}`), '--timeout=60s');
  assert.deepEqual(kubectl('get', 'nodes', '-l', SELECTOR, '-o', 'jsonpath={.items[*].metadata.name}').trim().split(' ').sort(), nodes,
    `only this test's nodes are labelled ${SELECTOR}`);

  const admissions = exists('lease', '-n', 'default', 'drainboard-admissions');
  const server = await startDrainboard(['--team', '--insecure-http', '--unattended-plans']);
  cleanups.push(() => server.stop());
  // Registered after the server's stop, so run before it: the server that runs a plan lets it go once deleted.
  cleanups.push(() => {
    dropPlan(PLAN);
    dropPlan(UNATTENDED_PLAN);
    run(['delete', 'lease', '-n', 'default', `drainboard-plan.${PLAN}`, `drainboard-plan.${UNATTENDED_PLAN}`, '--ignore-not-found']);
    run(['delete', 'maintenancewindow', WINDOW, '--ignore-not-found']);
    if (!admissions) run(['delete', 'lease', '-n', 'default', 'drainboard-admissions', '--ignore-not-found']);
  });

  // The bindings, applied by the admin; a maintainer of ops and a lead of ops-leads (also in ops) hold nothing else.
  kubectl('apply', '-f', join(recipeDir, 'rbac.yaml'));
  cleanups.push(() => run(['delete', '-f', join(recipeDir, 'rbac.yaml'), '--ignore-not-found']));
  accepted('rbac.yaml');
  const ann = person('recipe-ann', ['ops']);
  const lee = person('recipe-lee', ['ops', 'ops-leads']);
  const can = (who, ...what) => run(['auth', 'can-i', ...what], { kubeconfig: who.path }).stdout.trim() === 'yes';
  await waitFor('the bindings in force', 15_000, () => can(ann, 'create', 'maintenanceplans.drainboard.dev'));
  assert.equal(can(ann, 'create', 'maintenancewindows.drainboard.dev'), false, 'a maintainer does not write windows');
  assert.equal(can(lee, 'create', 'maintenancewindows.drainboard.dev'), true, 'a lead writes windows');
  assert.equal(can(ann, 'create', 'maintenanceplans.drainboard.dev', '--subresource=unattended'), false);
  assert.equal(can(lee, 'create', 'maintenanceplans.drainboard.dev', '--subresource=unattended'), true);
  // Admission refuses the unattended plan to a maintainer without the permission (a server-side dry run: nothing is
  // made), once the policy is in force.
  const refused = await waitFor('the admission policy to refuse ann the unattended plan', 30_000, () => {
    const r = run(['create', '--dry-run=server', '-f', join(recipeDir, 'plan-unattended.yaml')], { kubeconfig: ann.path });
    return r.code !== 0 ? r : null;
  });
  assert.match(refused.stderr, /ValidatingAdmissionPolicy 'drainboard-unattended-plans'.*need create on maintenanceplans\/unattended .*which recipe-ann does not have/);

  // The window, applied by the lead as written; it reads as valid.
  const windowApplied = run(['apply', '-f', join(recipeDir, 'window.yaml')], { kubeconfig: lee.path });
  assert.equal(windowApplied.code, 0, windowApplied.stderr);
  accepted('window.yaml');
  await waitFor(`window ${WINDOW} read as valid`, 30_000, () =>
    kubectl('get', 'maintenancewindow', WINDOW, '-o', 'jsonpath={.status.conditions[?(@.type=="Valid")].status}').trim() === 'True');
  // Its nightly hours, moved to begin two hours from this hour, so that it is certainly closed now and for the next
  // hour, whenever the test runs.
  const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  const opens = hour + 2 * 3_600_000;
  const [day, hhmm] = [DAYS[tokyo(opens).getUTCDay()], `${pad(tokyo(opens).getUTCHours())}:00`];
  const hours = (from, to) => JSON.stringify({ spec: { schedules: [{ start: `${pad(tokyo(from).getUTCHours())}:00`, end: `${pad(tokyo(to).getUTCHours())}:00` }] } });
  kubectl('patch', 'maintenancewindow', WINDOW, '--type', 'merge', '-p', hours(opens, opens + 3_600_000));
  const cookie = await signIn(server, ann);
  await waitFor('the server to hold the nodes outside the window', 30_000, async () => {
    const r = await call(server, 'windows', cookie);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return nodes.every((node) => {
      const decision = r.body.nodes.find((d) => d.node === node);
      return decision?.decided_by === WINDOW && decision.holds.some((h) => h.hold.OutsideWindow?.local === `${day} ${hhmm}`);
    });
  });

  // The plans, applied as written: the person's by ann, the unattended one by the lead.
  await new Promise((r) => setTimeout(r, Math.max(0, judgedFrom - Date.now())));
  const planApplied = run(['apply', '-f', join(recipeDir, 'plan.yaml')], { kubeconfig: ann.path });
  assert.equal(planApplied.code, 0, planApplied.stderr);
  const unattendedApplied = run(['apply', '-f', join(recipeDir, 'plan-unattended.yaml')], { kubeconfig: lee.path });
  assert.equal(unattendedApplied.code, 0, unattendedApplied.stderr);
  accepted('plan.yaml');
  accepted('plan-unattended.yaml');

  const outside = new RegExp(`^(${nodes.join('|')}): outside window; opens ${day} ${hhmm} Asia/Tokyo, in (1 h \\d+ min|2 h 0 min) \\(window ${WINDOW}\\)$`);
  const nothingStarted = (what) => {
    for (const node of nodes) {
      assert.equal(cordoned(node), false, `${what}: ${node} is not cordoned`);
      assert.equal(record(node), null, `${what}: ${node} has no drain`);
    }
  };

  // The unattended plan: taken at once by the server as its maintenance identity, held by the closed window.
  const night = await blockedBy(UNATTENDED_PLAN, 'MaintenanceWindow', 30_000, server);
  assert.match(night.status.runner, new RegExp(` as ${MAINTENANCE.replace(/[()]/g, '\\$&')}$`));
  assert.match(blockedOf(night).message, outside);
  assert.equal(night.status.held.window, WINDOW);
  assert.equal(Date.parse(night.status.held.hold.OutsideWindow.opens), opens, 'it opens when the moved hours begin');
  assert.deepEqual(night.status.nodes.map((n) => n.name).sort(), nodes, 'its selector picked the pool');
  assert.ok(night.status.nodes.every((n) => n.step === 'Queued'), JSON.stringify(night.status.nodes));

  // The person's plan: nobody runs it, whatever the window says, until a person continues it.
  const waiting = await blockedBy(PLAN, 'NeedsMaintainer', 40_000, server);
  assert.match(blockedOf(waiting).message, /^needs a maintainer to continue/);
  assert.equal(waiting.status.runner ?? null, null, 'no server runs it');
  nothingStarted('before it is continued');
  const continued = await call(server, 'plans/continue', cookie, { id: PLAN, generation: waiting.metadata.generation });
  assert.equal(continued.status, 200, JSON.stringify(continued.body));
  const held = await blockedBy(PLAN, 'MaintenanceWindow', 30_000, server);
  assert.match(held.status.runner, / as recipe-ann$/);
  assert.equal(held.status.continuedBy, 'recipe-ann');
  assert.match(blockedOf(held).message, outside);
  nothingStarted('while the window is closed');

  // What the README says of them, in its order: the person's plan before and after it is continued, then the
  // unattended plan; and its example message has the shape the server writes.
  const text = section();
  const said = [...text.matchAll(/reads\s+`(\w+)`,\s+reason\s+`(\w+)`/g)].map((m) => [m[1], m[2]]);
  const read = (p) => [p.status.phase, blockedOf(p).reason];
  assert.deepEqual(said, [read(waiting), read(held), read(night)], 'the README says what the plans read');
  const example = text.match(/`(\S+: outside window; opens [^`]+)`/)?.[1];
  assert.match(example ?? '', /^\S+: outside window; opens (Mon|Tue|Wed|Thu|Fri|Sat|Sun) 22:00 Asia\/Tokyo, in \d+ h \d+ min \(window nightly\)$/);

  // The window opens: the unattended plan starts a node by itself, as the maintenance identity. The person's plan
  // goes first, so that only one plan runs.
  dropPlan(PLAN);
  assert.ok(!exists('maintenanceplan', PLAN), 'the person\'s plan is gone');
  kubectl('patch', 'maintenancewindow', WINDOW, '--type', 'merge', '-p', hours(hour, hour + 2 * 3_600_000));
  const started = await waitFor('a node started by the unattended plan', 30_000, () => nodes.find((n) => record(n)));
  assert.equal(record(started).started_by ?? record(started).startedBy, MAINTENANCE);
  await waitFor(`${started} cordoned by its drain`, 10_000, () => cordoned(started));
  const other = nodes.find((n) => n !== started);
  assert.equal(record(other), null, 'one node at a time');
});
