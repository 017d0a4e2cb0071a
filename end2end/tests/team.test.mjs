// Team mode: nobody acts until they sign in, each person then acts as themselves (the API server's RBAC judges
// them), a pasted kubeconfig can never make the server run or read anything, and the session lives in an HttpOnly,
// Secure, SameSite=Strict cookie. Two real users of the local cluster, with client certificates from its CA.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import {
  MAINTAIN, READ, apply, artifactsDir, inlineKubeconfig, kubectl, launchBrowser, requireEnv, scenario, startDrainboard,
  waitFor,
} from './support.mjs';

const node = 'node-2';
// Every endpoint that acts or reads for a person: each must answer 401 without a session.
const ENDPOINTS = [
  'board', 'permissions', 'nodes/cordon', 'nodes/uncordon', 'drains', 'drains/start', 'drains/status',
  'drains/cancel', 'drains/resume', 'drains/recorded', 'drains/preview', 'drains/preview-inputs', 'nodes/history', 'history/recent',
  'plans/start', 'plans/status', 'plans/cancel', 'plans/pause', 'plans/back', 'plans/continue', 'plans/undo', 'rollouts', 'capacity', 'windows',
];

// The wall screen's secret, random per run.
const WALL_TOKEN = [...crypto.getRandomValues(new Uint8Array(24))].map((b) => b.toString(16).padStart(2, '0')).join('');
let server;
let alice;
let bob;
const auditLog = join(requireEnv('DRAINBOARD_CLUSTER_DIR'), `team-audit-${process.pid}.jsonl`);
before(async () => {
  alice = inlineKubeconfig('team-alice', MAINTAIN);
  bob = inlineKubeconfig('team-bob', READ);
  server = await startDrainboard(['--team', '--insecure-http', '--audit-log', auditLog, '--wall-token', WALL_TOKEN]);
});
after(async () => {
  await server?.stop();
  kubectl('uncordon', node);
});

const unschedulable = () => kubectl('get', 'node', node, '-o', 'jsonpath={.spec.unschedulable}').trim();

async function call(path, { body, cookie, headers = {} } = {}) {
  const res = await fetch(`${server.url}/api/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}), ...headers },
    body: JSON.stringify(body ?? {}),
  });
  const text = await res.text();
  let json;
  try { json = JSON.parse(text); } catch { json = text; }
  return { status: res.status, body: json, setCookie: res.headers.get('set-cookie') };
}

/** Signs in and returns the session cookie (`name=value`) and the answer. */
async function signIn(body) {
  const res = await call('session/sign-in', { body });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { cookie: res.setCookie.split(';')[0], res };
}

test('without a session every endpoint answers 401, pages redirect to the sign-in page, and nothing changes', { timeout: 60_000 }, async () => {
  for (const endpoint of ENDPOINTS) {
    const res = await call(endpoint, { body: { node, id: 'x', options: {}, confirm: node } });
    assert.equal(res.status, 401, `${endpoint}: ${JSON.stringify(res.body)}`);
    assert.ok(res.body.NotSignedIn, `${endpoint} says to sign in: ${JSON.stringify(res.body)}`);
  }
  const events = await fetch(`${server.url}/api/board/events`);
  assert.equal(events.status, 401);
  const page = await fetch(`${server.url}/`, { headers: { accept: 'text/html' }, redirect: 'manual' });
  assert.equal(page.status, 303);
  assert.equal(page.headers.get('location'), '/sign-in');
  const nobody = await call('session/me');
  assert.deepEqual([nobody.status, nobody.body], [200, null], 'who am I: nobody');
  const signInPage = await fetch(`${server.url}/sign-in`, { headers: { accept: 'text/html' } });
  assert.equal(signInPage.status, 200);
  assert.match(await signInPage.text(), /data-testid="sign-in"/);
  // The operator's own kubeconfig acts for nobody: the cordon above was refused, not made as admin.
  assert.equal(unschedulable(), '', `${node} is untouched`);
  // Team mode serves one cluster: no context of the server's kubeconfig is reachable by address.
  const other = await fetch(`${server.url}/ctx/drainboard-local/api/nodes/cordon`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ node }),
  });
  assert.equal(other.status, 404);
  assert.match(JSON.stringify(await other.json()), /this server serves one cluster/);
  assert.equal(unschedulable(), '', `${node} is still untouched`);
});

test('kubeconfigs that would make the server run or read something are refused, and nothing runs', { timeout: 60_000 }, async () => {
  const dir = requireEnv('DRAINBOARD_CLUSTER_DIR');
  const marker = join(dir, `exec-ran-${process.pid}`);
  const server = kubectl('config', 'view', '--minify', '-o', 'jsonpath={.clusters[0].cluster.server}').trim();
  const withUser = (user) => `apiVersion: v1
kind: Config
clusters: [{name: k, cluster: {server: "${server}"}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
current-context: c
users:
- name: u
  user: ${user}
`;
  const cases = [
    ['exec plugin', withUser(`{exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/sh, args: ["-c", "touch ${marker}"], interactiveMode: Never}}`), /exec plugin/],
    ['auth-provider', withUser('{auth-provider: {name: oidc, config: {idp-issuer-url: "https://example.invalid"}}}'), /auth-provider/],
    // The server's own admin certificate, named by path: reading it would make the person admin.
    ['client certificate by path', withUser(`{client-certificate: "${join(dir, 'pki', 'admin.crt')}", client-key: "${join(dir, 'pki', 'admin.key')}"}`), /names a file \(client-certificate/],
    ['token file', withUser(`{tokenFile: "${join(dir, 'pki', 'sa.key')}"}`), /names a file \(tokenFile/],
    ['CA by path', `apiVersion: v1
kind: Config
clusters: [{name: k, cluster: {server: "${server}", certificate-authority: "/etc/ssl/certs/ca-certificates.crt"}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
current-context: c
users: [{name: u, user: {token: abc}}]
`, /names a file \(certificate-authority/],
  ];
  for (const [what, kubeconfig, message] of cases) {
    const res = await call('session/sign-in', { body: { kubeconfig } });
    assert.equal(res.status, 400, `${what}: ${JSON.stringify(res.body)}`);
    assert.match(res.body.Invalid, message, what);
    assert.equal(res.setCookie, null, `${what}: no session`);
  }
  await new Promise((r) => setTimeout(r, 1000));
  assert.ok(!existsSync(marker), 'the exec plugin never ran');
  const neither = await call('session/sign-in', { body: {} });
  assert.equal(neither.status, 400);
  const both = await call('session/sign-in', { body: { token: 'a', kubeconfig: alice } });
  assert.equal(both.status, 400, 'a token or a kubeconfig, not both');
  const oversize = await call('session/sign-in', { body: { kubeconfig: `# ${'x'.repeat(15_600 - alice.length)}\n${alice}` } });
  assert.equal(oversize.status, 400, JSON.stringify(oversize.body));
  assert.match(oversize.body.Invalid, /over 15 KiB/);
  const notText = await call('session/sign-in', { body: { token: 42 } });
  assert.equal(notText.status, 400, JSON.stringify(notText.body));
  const huge = await call('session/sign-in', { body: { token: 'x'.repeat(20_000) } });
  assert.equal(huge.status, 413, 'over the body limit: refused before it is read');
  const bogus = await call('session/sign-in', { body: { token: 'not-a-real-token' } });
  assert.equal(bogus.status, 401, `the API server's refusal: ${JSON.stringify(bogus.body)}`);
  // Each refused sign-in is a warning in the log, with the peer's address, and never the token itself.
  const refused = await waitFor('the refused sign-ins in the log', 5_000, () => {
    const lines = logLines(/authentication: sign-in/).filter((l) => l.includes('outcome="refused"'));
    return lines.length >= cases.length + 1 ? lines : null;
  });
  assert.ok(refused.every((l) => / WARN /.test(l) && /peer=127\.0\.0\.1:\d+/.test(l)), refused.join('\n'));
  assert.ok(refused.some((l) => /401/.test(l)), `the API server's refusal is named: ${refused.join('\n')}`);
  assert.deepEqual(logLines(/not-a-real-token/), [], 'no token in the log');
});

/** The server's log lines that match `pattern`. */
function logLines(pattern) {
  return server.logs().split('\n').filter((l) => pattern.test(l));
}

test('alice signs in with her kubeconfig and cordons as herself; the cookie holds only a session id', { timeout: 60_000 }, async () => {
  const { cookie, res } = await signIn({ kubeconfig: alice });
  assert.equal(res.body.user, 'team-alice');
  assert.ok(res.body.groups.includes('system:authenticated'), JSON.stringify(res.body));
  for (const attribute of ['HttpOnly', 'Secure', 'SameSite=Strict', 'Path=/']) {
    assert.ok(res.setCookie.includes(attribute), `${attribute} in ${res.setCookie}`);
  }
  assert.match(cookie, /^__Host-drainboard_session=[0-9a-f]{64}$/, 'an opaque id, never the credentials');
  const me = await call('session/me', { cookie });
  assert.deepEqual([me.status, me.body.user, me.body.team], [200, 'team-alice', true]);
  const cordon = await call('nodes/cordon', { cookie, body: { node, reason: 'BIOS update' } });
  assert.equal(cordon.status, 200, JSON.stringify(cordon.body));
  assert.equal(unschedulable(), 'true');
  // On the record as alice, in all three places: the node's annotation, the audit log and an Event on the node.
  const record = JSON.parse(kubectl('get', 'node', node, '-o', 'jsonpath={.metadata.annotations.drainboard\\.dev/cordon}'));
  assert.deepEqual([record.by, record.reason], ['team-alice', 'BIOS update']);
  const line = readFileSync(auditLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).find((e) => e.node === node && e.action === 'Cordon');
  assert.deepEqual([line?.user, line?.reason], ['team-alice', 'BIOS update']);
  const notes = await waitFor('the cordon\'s Event', 15_000, () => {
    const items = JSON.parse(kubectl('get', 'events.events.k8s.io', '-n', 'default', '--field-selector', `regarding.name=${node}`, '-o', 'json')).items;
    const found = items.filter((e) => e.reason === 'DrainboardCordon').map((e) => e.note);
    return found.length ? found : null;
  });
  assert.ok(notes.includes(`team-alice cordoned ${node} (reason: BIOS update)`), JSON.stringify(notes));
  const uncordon = await call('nodes/uncordon', { cookie, body: { node } });
  assert.equal(uncordon.status, 200);
  assert.equal(unschedulable(), '');
});

test('bob, a viewer, is refused by the API server as himself, and his permissions name what he lacks', { timeout: 60_000 }, async () => {
  const { cookie } = await signIn({ kubeconfig: bob });
  const perms = await call('permissions', { cookie });
  assert.equal(perms.status, 200);
  assert.equal(perms.body.cordon, 'patch nodes');
  const cordon = await call('nodes/cordon', { cookie, body: { node } });
  assert.equal(cordon.status, 403, JSON.stringify(cordon.body));
  assert.match(cordon.body.Api.message, /User "team-bob" cannot patch resource "nodes"/);
  assert.equal(unschedulable(), '', `${node} unchanged`);
  const board = await call('board', { cookie });
  assert.equal(board.status, 200, 'a viewer reads the board');
  assert.ok(board.body.upsert.some((c) => c.name === node));
  // A drain is refused before the server writes anything with its own identity: no Lease, no Event, no history
  // entry saying bob started one. The audit log file (this machine's) has his attempts, refused.
  const drain = await call('drains/start', { cookie, body: { node, reason: 'not mine to do' } });
  assert.equal(drain.status, 403, JSON.stringify(drain.body));
  assert.match(drain.body.Refused.message, /team-bob may not drain node-2: lacks patch nodes, create pods\/eviction; ask for the drainboard-maintainer role/);
  assert.equal(unschedulable(), '', `${node} unchanged`);
  assert.throws(() => kubectl('get', 'lease', '-n', 'default', `drainboard-drain.${node}`), /NotFound|not found/, 'no Lease taken');
  const lines = existsSync(auditLog) ? readFileSync(auditLog, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
  const bobs = lines.filter((e) => e.user === 'team-bob' && e.node === node);
  assert.deepEqual(bobs.map((e) => [e.action, e.outcome?.slice(0, 9)]), [['Cordon', 'refused: '], ['DrainStarted', 'refused: ']]);
  assert.match(bobs[1].outcome, /lacks patch nodes/);
  const events = JSON.parse(kubectl('get', 'events.events.k8s.io', '-n', 'default', '--field-selector', `regarding.name=${node}`, '-o', 'json')).items;
  assert.ok(!events.some((e) => e.note?.includes('team-bob')), 'no Event names bob');
  const history = await call('nodes/history', { cookie, body: { node } });
  assert.equal(history.status, 200, JSON.stringify(history.body));
  assert.ok(!JSON.stringify(history.body).includes('team-bob'), JSON.stringify(history.body));
});

test('a cross-origin request with a valid session cookie is refused, and changes nothing', { timeout: 60_000 }, async () => {
  const { cookie } = await signIn({ kubeconfig: alice });
  for (const headers of [{ 'sec-fetch-site': 'cross-site' }, { origin: 'https://evil.example' }, { 'sec-fetch-site': 'same-site' }]) {
    const res = await call('nodes/cordon', { cookie, body: { node }, headers });
    assert.equal(res.status, 403, JSON.stringify(headers));
    assert.ok(res.body.Forbidden, JSON.stringify(res.body));
  }
  assert.equal(unschedulable(), '', `${node} unchanged`);
});

test('a token from `drainboard token` (an exec plugin run on the person\'s machine) signs in, and signing out forgets the session', { timeout: 60_000 }, async () => {
  apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'team-robot', namespace: 'default' } });
  const issued = kubectl('create', 'token', 'team-robot', '-n', 'default', '--duration=10m').trim();
  // An exec-plugin user (as EKS, GKE and OIDC users are): `drainboard token` runs the plugin on their machine, and
  // prints the token to paste. The plugin here answers with the service account's token.
  const dir = requireEnv('DRAINBOARD_CLUSTER_DIR');
  const pluginConfig = join(dir, 'exec-user.kubeconfig');
  const answer = JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: issued } });
  writeFileSync(pluginConfig, `apiVersion: v1
kind: Config
clusters: [{name: k, cluster: {server: "https://127.0.0.1:1"}}]
contexts: [{name: robot, context: {cluster: k, user: plugin}}]
current-context: robot
users:
- name: plugin
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: /bin/sh
      args: ["-c", ${JSON.stringify(`printf '%s' '${answer}'`)}]
      interactiveMode: Never
`);
  const token = execFileSync(requireEnv('DRAINBOARD_BIN'), ['token', '--kubeconfig', pluginConfig, '--context', 'robot'],
    { encoding: 'utf8' }).trim();
  assert.equal(token, issued, 'the plugin\'s token, alone on stdout');
  const { cookie, res } = await signIn({ token });
  assert.equal(res.body.user, 'system:serviceaccount:default:team-robot');
  const out = await call('session/sign-out', { cookie });
  assert.equal(out.status, 200);
  // The sign-in and the sign-out are each a line of the log, at info, with the user and the peer.
  const robot = 'user="system:serviceaccount:default:team-robot"';
  const signedIn = logLines(/authentication: sign-in/).filter((l) => l.includes(robot));
  assert.equal(signedIn.length, 1, server.logs());
  assert.match(signedIn[0], / INFO .*outcome="ok".*peer=127\.0\.0\.1:\d+/);
  const signedOut = logLines(/authentication: sign-out/).filter((l) => l.includes(robot));
  assert.equal(signedOut.length, 1, server.logs());
  assert.match(signedOut[0], / INFO .*outcome="ok"/);
  assert.ok(!server.logs().includes(issued), 'no token in the log');
  assert.match(out.setCookie, /Max-Age=0/);
  const me = await call('session/me', { cookie });
  assert.deepEqual([me.status, me.body], [200, null], 'the old cookie names no session any more');
  assert.equal((await call('board', { cookie })).status, 401);
});

test('a drain whose person\'s credentials stop working ends "credentials expired", the node stays cordoned, and a colleague resumes it', { timeout: 120_000 }, async () => {
  const s = await scenario('expiry');
  try {
    s.deployment('web', 2);
    s.pdb('web-pdb', 'web', 2);
    await s.running(2);
    s.openSpare();
    // A service account with a maintainer's rights, signed in by its token; deleting the account revokes the token
    // at once, as an expired certificate or token would stop working.
    apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'team-shortlived', namespace: 'default' } });
    apply({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'team-shortlived' }, rules: MAINTAIN });
    apply({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'team-shortlived' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'team-shortlived' },
      subjects: [{ kind: 'ServiceAccount', name: 'team-shortlived', namespace: 'default' }] });
    const token = kubectl('create', 'token', 'team-shortlived', '-n', 'default', '--duration=10m').trim();
    const { cookie } = await signIn({ token });
    const started = await call('drains/start', { cookie, body: { node: s.node, reason: 'kernel update' } });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const status = async (who) => (await call('drains/status', { cookie: who, body: { id: started.body.id } })).body;
    await waitFor('an eviction blocked by the budget', 30_000, async () =>
      (await status(cookie)).pods?.some((p) => typeof p.state === 'object' && 'Blocked' in p.state));
    // Stopping someone else's drain takes the rights that draining takes: bob, a viewer, may not.
    const { cookie: bobsCookie } = await signIn({ kubeconfig: bob });
    const stop = await call('drains/cancel', { cookie: bobsCookie, body: { id: started.body.id } });
    assert.equal(stop.status, 403, JSON.stringify(stop.body));
    assert.match(stop.body.Denied.message, /team-bob may not stop a drain system:serviceaccount:default:team-shortlived started: lacks patch nodes/);
    assert.equal((await status(cookie)).state, 'Evicting', 'the drain goes on');
    kubectl('delete', 'serviceaccount', 'team-shortlived', '-n', 'default');
    const { cookie: alicesCookie } = await signIn({ kubeconfig: alice });
    const ended = await waitFor('the drain to end', 60_000, async () => {
      const p = await status(alicesCookie);
      return ['Cordoning', 'Planning', 'Evicting'].includes(p.state) ? null : p;
    });
    assert.deepEqual(ended.state, { Failed: 'CredentialsExpired' });
    assert.equal(kubectl('get', 'node', s.node, '-o', 'jsonpath={.spec.unschedulable}').trim(), 'true', 'the node stays cordoned');
    assert.equal(s.podsOnNode().length, 2, 'nothing was evicted past the budget');
    // The revoked person's next call is refused as not signed in, and the session is forgotten.
    const refused = await call('permissions', { cookie });
    assert.equal(refused.status, 401, JSON.stringify(refused.body));
    assert.match(refused.body.NotSignedIn, /expired or were revoked/);
    // The log says whose credentials stopped working, as a warning.
    const stopped = logLines(/authentication: the API server no longer accepts/);
    assert.ok(stopped.some((l) => / WARN /.test(l) && l.includes('user="system:serviceaccount:default:team-shortlived"')
      && l.includes('outcome="credentials refused"')), server.logs());
    assert.deepEqual((await call('session/me', { cookie })).body, null, 'the session is gone');
    // Alice resumes it as herself once the budget allows.
    s.deployment('web', 4);
    const resumed = await call('drains/resume', { cookie: alicesCookie, body: { node: s.node, confirm: s.node } });
    assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
    const done = await waitFor('the resumed drain to end', 90_000, async () => {
      const p = (await call('drains/status', { cookie: alicesCookie, body: { id: resumed.body.id } })).body;
      return ['Cordoning', 'Planning', 'Evicting'].includes(p.state) ? null : p;
    });
    assert.equal(done.state, 'Drained', JSON.stringify(done.state));
    assert.equal(done.started_by, 'team-alice');
    assert.deepEqual(s.podsOnNode(), []);
    // Alice's drain is on the record as hers, with its reason, in the node's annotation, the audit log and an Event.
    const record = await waitFor('the drain\'s final record on the node', 15_000, () => {
      const text = kubectl('get', 'node', s.node, '-o', 'jsonpath={.metadata.annotations.drainboard\\.dev/drain}');
      const r = text ? JSON.parse(text) : null;
      return r?.state === 'Drained' ? r : null;
    });
    assert.deepEqual([record.startedBy, record.reason, record.id], ['team-alice', 'kernel update', resumed.body.id]);
    const lines = readFileSync(auditLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.node === s.node);
    const resumedLine = lines.find((e) => e.action === 'DrainResumed');
    assert.deepEqual([resumedLine?.user, resumedLine?.reason, resumedLine?.drain_id], ['team-alice', 'kernel update', resumed.body.id]);
    await waitFor('the ended drain on the audit log', 15_000, () => readFileSync(auditLog, 'utf8').includes(`"drain_id":"${resumed.body.id}"`)
      && readFileSync(auditLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).some((e) => e.action === 'DrainEnded' && e.drain_id === resumed.body.id));
    const notes = await waitFor('the resume\'s Event', 15_000, () => {
      const items = JSON.parse(kubectl('get', 'events.events.k8s.io', '-n', 'default', '--field-selector', `regarding.name=${s.node}`, '-o', 'json')).items;
      const found = items.filter((e) => e.reason === 'DrainboardDrainResumed').map((e) => e.note);
      return found.length ? found : null;
    });
    assert.ok(notes.some((n) => n.startsWith(`team-alice resumed draining ${s.node}`) && n.includes('kernel update')), JSON.stringify(notes));
  } finally {
    s.cleanup();
  }
});

test('viewers share the server\'s watches: twenty who read everything add none, one limited to a namespace sees only its pods, and one who may not list nodes is told so', { timeout: 120_000 }, async () => {
  const { cookie: alicesCookie } = await signIn({ kubeconfig: alice });
  const watches = async () => {
    const text = await (await fetch(`${server.url}/metrics`, { headers: { cookie: alicesCookie } })).text();
    return Number(text.match(/drainboard_watches_started_total (\d+)/)[1]);
  };
  const stream = async (cookie) => {
    const controller = new AbortController();
    const res = await fetch(`${server.url}/api/board/events`, { headers: { cookie }, signal: controller.signal });
    assert.equal(res.status, 200);
    const reader = res.body.getReader();
    const { value } = await reader.read();
    assert.match(new TextDecoder().decode(value), /event: board/);
    return () => controller.abort();
  };
  const closers = [await stream(alicesCookie)];
  const before = await watches();
  assert.equal(before, 4, 'one set of watches, the server\'s: nodes, pods, Leases, budgets');
  apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-viewers' } });
  apply({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'team-viewers' }, rules: READ });
  apply({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'team-viewers' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'team-viewers' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:serviceaccounts:team-viewers' }] });
  for (let i = 0; i < 20; i += 1) {
    apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: `viewer-${i}`, namespace: 'team-viewers' } });
    const token = kubectl('create', 'token', `viewer-${i}`, '-n', 'team-viewers', '--duration=10m').trim();
    const { cookie, res } = await signIn({ token });
    assert.equal(res.body.user, `system:serviceaccount:team-viewers:viewer-${i}`);
    closers.push(await stream(cookie));
  }
  assert.equal(await watches(), before, '20 distinct viewers add no watches');
  // Someone who may list the nodes, but pods in one namespace only, reads the same shared cache filtered to that
  // namespace (a SelfSubjectAccessReview per namespace): no watches of her own, and only her pods on the cards.
  const carolNs = 'team-carol';
  apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: carolNs } });
  apply({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'carols', namespace: carolNs },
    spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'busybox:1.37' }] } });
  kubectl('wait', '-n', carolNs, '--for=condition=Ready', 'pod/carols', '--timeout=60s');
  const carol = inlineKubeconfig('team-carol', READ.filter((r) => !r.resources.includes('pods')).concat(
    [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] }]));
  apply({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'pods', namespace: carolNs },
    rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }] });
  apply({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'carol', namespace: carolNs },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pods' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'team-carol' }] });
  const { cookie: carolsCookie } = await signIn({ kubeconfig: carol });
  const everyone = (await call('board', { cookie: alicesCookie })).body.upsert.find((c) => c.name === 'node-1');
  const hers = await waitFor('carol\'s pod on her card', 30_000, async () => {
    const board = await call('board', { cookie: carolsCookie });
    assert.equal(board.status, 200, JSON.stringify(board.body));
    const card = board.body.upsert.find((c) => c.name === 'node-1');
    return card.pod_count === 1 ? card : null;
  });
  assert.ok(everyone.pod_count > hers.pod_count, `alice sees ${everyone.pod_count} pods on node-1, carol only hers`);
  assert.equal(hers.pods_by_namespace, undefined, 'the per-namespace counts stay on the server');
  const preview = await call('drains/preview-inputs', { cookie: carolsCookie, body: { node: 'node-1' } });
  assert.equal(preview.status, 200, JSON.stringify(preview.body));
  assert.deepEqual(preview.body.pods.map((p) => `${p.namespace}/${p.name}`), [`${carolNs}/carols`]);
  closers.push(await stream(carolsCookie));
  assert.equal(await watches(), before, 'she shares the server\'s watches too');
  // Someone who may not list the nodes reads with their own credentials, and is told what they lack rather than
  // shown an empty board.
  const dave = inlineKubeconfig('team-dave', [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }]);
  const { cookie: davesCookie } = await signIn({ kubeconfig: dave });
  const board = await call('board', { cookie: davesCookie });
  assert.equal(board.status, 403, JSON.stringify(board.body));
  // He is told at the first refusal, which names the kinds refused so far (nodes, Leases or budgets, whichever
  // answered first), never the pods he may list.
  assert.match(board.body.Denied.message, /the API server refused (Node|Lease|PodDisruptionBudget)\b/);
  assert.doesNotMatch(board.body.Denied.message, /refused [^(]*\bPod\b/);
  assert.equal(await watches(), before + 4, 'his own set of watches');
  kubectl('delete', 'namespace', carolNs, '--wait=false');
  for (const close of closers) close();
});

test('in the browser: sign in through the page, see who you are, and a viewer finds Drain disabled with the permission named', { timeout: 120_000 }, async () => {
  const browser = await launchBrowser();
  try {
    const signInAs = async (kubeconfig) => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      await page.goto(server.url);
      await page.waitForURL(/\/sign-in$/);
      const errors = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.locator('[data-testid="sign-in"][data-hydrated="true"]').waitFor({ timeout: 30_000 }).catch((e) => {
        throw new Error(`${e.message}\npage errors: ${errors.join('\n')}`);
      });
      await page.click('[data-testid="with-kubeconfig"]');
      await page.locator('[data-testid="context"]').waitFor();
      await page.fill('[data-testid="secret"]', kubeconfig);
      await page.click('[data-testid="sign-in-submit"]');
      await page.waitForURL((url) => url.pathname === '/');
      await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
      const cookies = await context.cookies();
      const session = cookies.find((c) => c.name === '__Host-drainboard_session');
      assert.ok(session?.httpOnly && session.secure && session.sameSite === 'Strict', JSON.stringify(session));
      assert.equal(await page.evaluate(() => document.cookie.includes('drainboard_session')), false, 'scripts cannot read it');
      return { context, page };
    };
    const a = await signInAs(alice);
    assert.equal(await a.page.locator('[data-testid="signed-in-as"]').textContent(), 'Signed in as team-alice');
    const b = await signInAs(bob);
    assert.equal(await b.page.locator('[data-testid="signed-in-as"]').textContent(), 'Signed in as team-bob');
    assert.equal(await b.page.locator('[data-testid="signed-in-groups"]').textContent(), '(system:authenticated)', 'the groups RBAC judges him by');
    await b.page.fill('[data-testid="node-filter"]', node);
    const card = b.page.locator(`[data-testid="node-row"][data-node="${node}"]`);
    await card.locator('[data-testid="action-drain"]:not([data-reason="Checking your permissions…"])').waitFor({ timeout: 15_000 });
    assert.ok(await card.locator('[data-testid="action-drain"]').isDisabled());
    assert.equal(await card.locator('[data-testid="action-drain"]').getAttribute('data-reason'),
      'You lack the permission: patch nodes, create pods/eviction');
    await b.page.screenshot({ path: join(artifactsDir, 'team-viewer.png') });
    // Alice's page, in its own browser context, may drain the same node.
    await a.page.fill('[data-testid="node-filter"]', node);
    const hers = a.page.locator(`[data-testid="node-row"][data-node="${node}"]`);
    await hers.locator('[data-testid="action-drain"]:not([data-reason="Checking your permissions…"])').waitFor({ timeout: 15_000 });
    assert.ok(await hers.locator('[data-testid="action-drain"]').isEnabled());
    // Signing out leads back to the sign-in page, and the board is closed to that browser again.
    await b.page.click('[data-testid="sign-out"]');
    await b.page.waitForURL(/\/sign-in$/);
    await b.page.goto(server.url);
    await b.page.waitForURL(/\/sign-in$/);
    await a.context.close();
    await b.context.close();
  } finally {
    await browser.close();
  }
});

test('team mode serves HTTPS; it refuses to start without TLS, and a non-loopback address needs --team', { timeout: 60_000 }, async () => {
  const dir = requireEnv('DRAINBOARD_CLUSTER_DIR');
  const key = join(dir, 'pki', 'serving.key');
  const crt = join(dir, 'pki', 'serving.crt');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', crt], { stdio: 'ignore' });
  const tls = await startDrainboard(['--team', '--tls-cert', crt, '--tls-key', key]);
  try {
    assert.match(tls.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const get = (path) => new Promise((resolve, reject) => {
      const req = httpsRequest(`${tls.url}${path}`, { ca: readFileSync(crt), method: 'POST', headers: { 'content-type': 'application/json' } },
        (res) => { res.resume(); resolve(res); });
      req.on('error', reject);
      req.end('{}');
    });
    const refused = await get('/api/board');
    assert.equal(refused.statusCode, 401, 'HTTPS, and the same session rule');
    assert.equal(refused.headers['strict-transport-security'], 'max-age=63072000', 'HSTS over TLS');
    assert.equal(refused.headers['cache-control'], 'no-store');
  } finally {
    await tls.stop();
  }
  const refuses = (args) => {
    const out = spawnSync(args);
    assert.ok(typeof out.status === 'number' && out.status !== 0, `${args.join(' ')} exits with an error: ${out.status}`);
    return out.stderr;
  };
  assert.match(refuses(['--team']), /team mode serves HTTPS: pass --tls-cert and --tls-key, or --insecure-http/);
  assert.match(refuses(['--addr', '0.0.0.0:0']), /loopback only .* or --team/);
  assert.match(refuses(['--insecure-http']), /--insecure-http is a team-mode flag/);
});

/** Runs the server with `args` until it exits (it should refuse to start); returns its status and stderr. */
function spawnSync(args) {
  const bin = requireEnv('DRAINBOARD_BIN');
  const full = [...(args.includes('--addr') ? args : ['--addr', '127.0.0.1:0', ...args]), '--kubeconfig', requireEnv('KUBECONFIG')];
  try {
    const stdout = execFileSync(bin, full, { encoding: 'utf8', timeout: 20_000, stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LEPTOS_SITE_ROOT: requireEnv('LEPTOS_SITE_ROOT') } });
    return { status: 0, stdout, stderr: '' };
  } catch (err) {
    // Killed by the timeout means it started serving: not a refusal.
    return { status: err.signal ? err.signal : err.status, stdout: String(err.stdout ?? ''), stderr: String(err.stderr ?? '') };
  }
}

test('a wall screen signs in with --wall-token, shows the board read-only, and can do nothing else', { timeout: 90_000 }, async () => {
  const open = (token, headers = {}) => fetch(`${server.url}/wall?wall-token=${token}`, { redirect: 'manual', headers });
  const wrong = await open('f'.repeat(48));
  assert.equal(wrong.status, 403);
  assert.equal(wrong.headers.get('set-cookie'), null, 'a wrong token gets no session');
  assert.match(JSON.stringify(await wrong.json()), /not this server's wall token/);

  const res = await open(WALL_TOKEN);
  assert.equal(res.status, 303);
  assert.equal(res.headers.get('location'), '/wall', 'the token leaves the address at once');
  const setCookie = res.headers.get('set-cookie');
  for (const attribute of ['HttpOnly', 'Secure', 'SameSite=Strict', 'Path=/']) {
    assert.ok(setCookie.split('; ').includes(attribute), `${attribute} in ${setCookie}`);
  }
  const cookie = setCookie.split(';')[0];

  const me = await call('session/me', { cookie });
  assert.equal(me.body.user, 'wall screen');
  const board = await call('board', { cookie });
  assert.equal(board.status, 200, JSON.stringify(board.body));
  assert.ok(board.body.upsert.some((c) => c.name === node), 'it reads the board from the shared cache');
  const page = await fetch(`${server.url}/wall`, { headers: { cookie, accept: 'text/html' } });
  assert.equal(page.status, 200);
  // The timeline is on the wall too.
  const timeline = await call('history/recent', { cookie, body: { nodes: 8 } });
  assert.equal(timeline.status, 200, JSON.stringify(timeline.body));
  assert.equal(timeline.body.kept, true);
  // Everything else is refused, before it reaches the API server.
  // The plans too, read only: the wall lists those running.
  const plans = await call('rollouts', { cookie, body: {} });
  assert.equal(plans.status, 200, JSON.stringify(plans.body));
  assert.ok(Array.isArray(plans.body));
  // Whether maintenance may start, as the wall shows it.
  const windows = await call('windows', { cookie, body: {} });
  assert.equal(windows.status, 200, JSON.stringify(windows.body));
  assert.ok(windows.body.nodes.some((d) => d.node === node), JSON.stringify(windows.body));
  for (const endpoint of ENDPOINTS.filter((e) => !['board', 'history/recent', 'rollouts', 'windows'].includes(e))) {
    const refused = await call(endpoint, { cookie, body: { node, id: 'x', options: {}, confirm: node } });
    assert.equal(refused.status, 403, `${endpoint}: ${JSON.stringify(refused.body)}`);
  }
  const boardPage = await fetch(`${server.url}/`, { headers: { cookie, accept: 'text/html' } });
  assert.equal(boardPage.status, 403, 'the board page, with its actions, is not the wall');
  assert.equal(unschedulable(), '', `${node} is untouched`);

  // An unattended screen: Chromium opens the address once, and stays on the live wall.
  const browser = await launchBrowser();
  try {
    const tab = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
    await tab.goto(`${server.url}/wall?wall-token=${WALL_TOKEN}`);
    assert.equal(new URL(tab.url()).search, '', 'no token in the address');
    await tab.locator(`[data-testid="map-cell"][data-node="${node}"]`).waitFor({ timeout: 30_000 });
    await tab.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 30_000 });
    assert.equal(await tab.locator('[data-testid="action-cordon"]').count(), 0, 'no actions on the wall');
  } finally {
    await browser.close();
  }
});

test('--wall-token is a team-mode flag, and a short one is refused', { timeout: 30_000 }, async () => {
  await assert.rejects(startDrainboard(['--wall-token', WALL_TOKEN]), /--wall-token is a team-mode flag/);
  await assert.rejects(startDrainboard(['--team', '--insecure-http', '--wall-token', 'short']), /--wall-token needs at least 32 characters/);
});
