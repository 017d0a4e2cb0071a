// Team mode, expiry: a person signs in with a client certificate from the cluster's CA that is valid for 60 s, starts a
// drain of a node whose pods a budget holds, and the certificate expires under the running drain. The drain ends
// "Failed: credentials expired", the node stays cordoned, and nothing was evicted. team.test.mjs does the same with a
// revoked service-account token; here the credentials stop working by themselves, as a real short-lived certificate's do.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  MAINTAIN, apply, artifactsDir, inlineKubeconfig, kubectl, requireEnv, scenario, startDrainboard, waitFor,
} from './support.mjs';

// How a failure for expired credentials reads on the wire (the page words it in the person's language).
const EXPIRED = 'CredentialsExpired';
// The short-lived person's rights come from the certificate's organization: a group bound to a maintainer's role.
const GROUP = 'drainboard-expiry-maintainers';
const PERSON = 'expiry-erin';
const VALID_SECONDS = 60;

let server;
let tmp;
before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'drainboard-expiry-'));
  server = await startDrainboard(['--team', '--insecure-http']);
});
after(async () => {
  await server?.stop();
  // The server's log, to read what it did when the certificate expired.
  if (server) writeFileSync(join(artifactsDir, 'expiry-server.log'), server.logs());
  for (const kind of ['clusterrolebinding', 'clusterrole']) {
    for (const name of [GROUP, 'test-expiry-frank']) {
      try { kubectl('delete', kind, name, '--ignore-not-found'); } catch {}
    }
  }
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  // The colleague's certificate and kubeconfig, which userKubeconfig leaves in the cluster dir.
  const dir = requireEnv('DRAINBOARD_CLUSTER_DIR');
  for (const file of ['expiry-frank.kubeconfig', ...['crt', 'csr', 'ext', 'key'].map((e) => join('pki', `expiry-frank.${e}`))]) {
    rmSync(join(dir, file), { force: true });
  }
});

async function call(path, { body, cookie } = {}) {
  const res = await fetch(`${server.url}/api/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
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

/** `openssl ca`'s time format (ASN.1 UTCTime): YYMMDDHHMMSSZ, in UTC. */
const utcTime = (date) => date.toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z';

/** The certificate's notBefore or notAfter, as openssl prints it (`notAfter=Nov 30 19:36:49 2026 GMT`). */
function certTime(crt, which) {
  const out = execFileSync('openssl', ['x509', '-in', crt, '-noout', `-${which}`], { encoding: 'utf8' }).trim();
  const time = Date.parse(out.slice(out.indexOf('=') + 1));
  assert.ok(Number.isFinite(time), `openssl's ${which}: ${out}`);
  return time;
}

/**
 * A client certificate for `CN=cn, O=org` from the cluster's CA, valid from a minute ago until `seconds` from now.
 * OpenSSL 3.0's `x509 -req` only counts whole days, so `openssl ca` signs it, with a throwaway database in `dir`.
 * Returns the kubeconfig with the certificate and key inline (as a person pastes it), the kubeconfig's path,
 * and the certificate's validity as read back from it.
 */
function shortLivedKubeconfig(dir, cn, org, seconds) {
  mkdirSync(join(dir, 'newcerts'));
  writeFileSync(join(dir, 'index.txt'), '');
  const pki = join(requireEnv('DRAINBOARD_CLUSTER_DIR'), 'pki');
  const config = join(dir, 'ca.cnf');
  writeFileSync(config, `[ ca ]
default_ca = short
[ short ]
database = ${join(dir, 'index.txt')}
new_certs_dir = ${join(dir, 'newcerts')}
serial = ${join(dir, 'serial')}
certificate = ${join(pki, 'ca.crt')}
private_key = ${join(pki, 'ca.key')}
default_md = sha256
policy = person
unique_subject = no
x509_extensions = client
[ person ]
organizationName = optional
commonName = supplied
[ client ]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = clientAuth
`);
  const key = join(dir, `${cn}.key`);
  const csr = join(dir, `${cn}.csr`);
  const crt = join(dir, `${cn}.crt`);
  execFileSync('openssl', ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', `/O=${org}/CN=${cn}`,
    '-keyout', key, '-out', csr], { stdio: 'ignore' });
  const issuedAt = Date.now();
  execFileSync('openssl', ['ca', '-batch', '-config', config, '-rand_serial', '-notext', '-in', csr, '-out', crt,
    '-startdate', utcTime(new Date(issuedAt - 60_000)), '-enddate', utcTime(new Date(issuedAt + seconds * 1000))],
  { stdio: ['ignore', 'pipe', 'pipe'] });
  const subject = execFileSync('openssl', ['x509', '-in', crt, '-noout', '-subject', '-nameopt', 'RFC2253'], { encoding: 'utf8' })
    .trim().replace(/^subject=/, '');
  const b64 = (file) => readFileSync(file).toString('base64');
  const apiServer = kubectl('config', 'view', '--minify', '-o', 'jsonpath={.clusters[0].cluster.server}').trim();
  const text = `apiVersion: v1
kind: Config
clusters:
- name: local
  cluster: {server: "${apiServer}", certificate-authority-data: "${b64(join(pki, 'ca.crt'))}"}
users:
- name: ${cn}
  user: {client-certificate-data: "${b64(crt)}", client-key-data: "${b64(key)}"}
contexts:
- name: ${cn}
  context: {cluster: local, user: ${cn}}
current-context: ${cn}
`;
  const path = join(dir, `${cn}.kubeconfig`);
  writeFileSync(path, text);
  return { text, path, subject, issuedAt, notBefore: certTime(crt, 'startdate'), notAfter: certTime(crt, 'enddate') };
}

/** Runs the pinned kubectl as the person of `kubeconfig`; returns its status, stdout and stderr. */
function kubectlAs(kubeconfig, ...args) {
  try {
    const stdout = execFileSync(join(requireEnv('DRAINBOARD_CLUSTER_BIN'), 'kubectl'), ['--kubeconfig', kubeconfig, ...args],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return { status: 0, stdout, stderr: '' };
  } catch (err) {
    return { status: err.status, stdout: String(err.stdout ?? ''), stderr: String(err.stderr ?? '') };
  }
}

const running = (state) => ['Cordoning', 'Planning', 'Evicting'].includes(state);

test(`a client certificate valid for ${VALID_SECONDS} s signs in and starts a drain held by a budget; when it expires the drain ends "credentials expired" and the node stays cordoned`, { timeout: 240_000 }, async (t) => {
  const s = await scenario('cert-expiry');
  try {
    s.deployment('web', 2);
    s.pdb('web-pdb', 'web', 2);
    await s.running(2);
    s.openSpare();
    const podsBefore = s.podsOnNode();
    assert.equal(podsBefore.length, 2);
    // A colleague who stays signed in, to read the drain once the person's certificate has expired.
    const { cookie: colleague } = await signIn({ kubeconfig: inlineKubeconfig('expiry-frank', MAINTAIN) });
    apply({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: GROUP }, rules: MAINTAIN });
    apply({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: GROUP },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: GROUP },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: GROUP }] });

    // Issued last, once the workload runs, so that its minute goes to the drain.
    const cert = shortLivedKubeconfig(tmp, PERSON, GROUP, VALID_SECONDS);
    assert.equal(cert.subject, `CN=${PERSON},O=${GROUP}`);
    // Really short-lived, so that the test cannot pass with a certificate that never expires during it.
    const lifetime = (cert.notAfter - cert.issuedAt) / 1000;
    assert.ok(lifetime > VALID_SECONDS - 2 && lifetime <= VALID_SECONDS, `expires ${lifetime} s after issue`);
    assert.ok(cert.notBefore < cert.issuedAt, 'valid from before its issue (no clock-skew trouble)');
    // The API server takes it, and sees its group, while it is valid.
    const whoami = kubectlAs(cert.path, 'auth', 'whoami', '-o', 'json');
    assert.equal(whoami.status, 0, whoami.stderr);
    const review = JSON.parse(whoami.stdout).status.userInfo;
    assert.equal(review.username, PERSON);
    assert.ok(review.groups.includes(GROUP), JSON.stringify(review.groups));

    const { cookie, res } = await signIn({ kubeconfig: cert.text });
    assert.equal(res.body.user, PERSON, JSON.stringify(res.body));
    const started = await call('drains/start', { cookie, body: { node: s.node, reason: 'kernel update' } });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const status = async (who) => {
      const answer = await call('drains/status', { cookie: who, body: { id: started.body.id } });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return answer.body;
    };
    await waitFor('an eviction blocked by the budget', 30_000, async () =>
      (await status(cookie)).pods?.some((p) => typeof p.state === 'object' && 'Blocked' in p.state));
    const blocked = await status(colleague);
    assert.equal(blocked.state, 'Evicting');
    assert.equal(blocked.started_by, PERSON);
    assert.ok(Date.now() < cert.notAfter, `the drain was blocked before the certificate expired (${(cert.notAfter - Date.now()) / 1000} s left)`);

    // While the certificate is valid the drain keeps retrying; it may only fail once it has expired.
    const ended = await waitFor('the drain to end after the certificate expired', (cert.notAfter - Date.now()) + 45_000, async () => {
      const p = await status(colleague);
      return running(p.state) ? null : p;
    });
    assert.deepEqual(ended.state, { Failed: EXPIRED }, JSON.stringify(ended));
    const finishedAt = Date.parse(ended.finished_at);
    assert.ok(Number.isFinite(finishedAt), `finished_at: ${ended.finished_at}`);
    assert.ok(finishedAt >= cert.notAfter,
      `ended ${(finishedAt - cert.notAfter) / 1000} s after the certificate's notAfter: not before it expired`);
    t.diagnostic(`certificate valid ${lifetime} s from issue; the drain failed ${(finishedAt - cert.notAfter) / 1000} s after it expired`);
    const failedPods = ended.pods.filter((p) => typeof p.state === 'object' && 'Failed' in p.state);
    assert.ok(failedPods.length >= 1 && failedPods.every((p) => p.state.Failed === EXPIRED), JSON.stringify(ended.pods));

    // The API server no longer takes the certificate: the failure is the expiry, not something else.
    const refusedByApi = kubectlAs(cert.path, 'auth', 'whoami');
    assert.notEqual(refusedByApi.status, 0);
    assert.match(refusedByApi.stderr, /Unauthorized|must be logged in/, refusedByApi.stderr);

    assert.equal(kubectl('get', 'node', s.node, '-o', 'jsonpath={.spec.unschedulable}').trim(), 'true', 'the node stays cordoned');
    assert.deepEqual(s.podsOnNode(), podsBefore, 'nothing was evicted past the budget');
    // The record on the node could not be finished with the expired certificate, but the history (written with
    // the server's own identity) knows how the drain ended: any server reports it so, not as interrupted.
    const record = await waitFor('the recorded drain', 15_000, async () =>
      (await call('drains/recorded', { cookie: colleague })).body.find?.((r) => r.node === s.node)?.record);
    assert.deepEqual(record.state, { Failed: EXPIRED }, JSON.stringify(record));
    // The person's next call is refused as not signed in, and the session is forgotten.
    const refused = await call('permissions', { cookie });
    assert.equal(refused.status, 401, JSON.stringify(refused.body));
    assert.match(refused.body.NotSignedIn, /expired or were revoked/);
    assert.deepEqual((await call('session/me', { cookie })).body, null, 'the session is gone');
  } finally {
    s.cleanup();
  }
});
