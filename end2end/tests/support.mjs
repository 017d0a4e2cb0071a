// Shared helpers for the browser tests: Debian's Chromium through playwright-core, a drainboard server on a free
// port, and kubectl against the local control plane. The test command (../../test-all) sets the environment.
import { createServer } from 'node:http';
import { spawn, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { before, after, beforeEach, afterEach } from 'node:test';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = join(here, '..', '..');
export const artifactsDir = join(repoRoot, 'end2end', 'artifacts');
mkdirSync(artifactsDir, { recursive: true });

export function requireEnv(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the browser tests through ./test-all`);
  return value;
}

/** Runs the pinned kubectl against the test cluster and returns its stdout. */
export function kubectl(...args) {
  const bin = join(requireEnv('DRAINBOARD_CLUSTER_BIN'), 'kubectl');
  return execFileSync(bin, ['--kubeconfig', requireEnv('KUBECONFIG'), ...args], { encoding: 'utf8' });
}

/**
 * Local mode's secret for every server these tests start (`DRAINBOARD_LOCAL_TOKEN`), so that a server restarted on
 * the same address accepts the pages and cookies of the one before it, as the operator's fixed secret would.
 */
export const localToken = randomBytes(32).toString('hex');

/** The origins of the local-mode servers started here, each with its secret. */
const locked = new Map();

/** Node's own fetch, which adds no secret: for the tests of the lock itself. */
export const rawFetch = globalThis.fetch;

/**
 * Every test's `fetch` to a local-mode server started here sends its secret as a script would
 * (`Authorization: Bearer`), unless the request names an `Authorization` of its own. The tests of the lock use
 * `rawFetch`.
 */
globalThis.fetch = (input, init = {}) => {
  const target = typeof input === 'string' || input instanceof URL ? new URL(String(input)) : null;
  const token = target && locked.get(target.origin);
  if (!token) return rawFetch(input, init);
  const headers = new Headers(init.headers);
  if (!headers.has('authorization')) headers.set('authorization', `Bearer ${token}`);
  return rawFetch(input, { ...init, headers });
};

/** The browser contexts handed out by `launchBrowser`'s browsers and still open. */
const contexts = new Set();

/** The cookie a browser gets for a local-mode server at `origin` by opening its printed URL. */
function lockCookie(origin, token) {
  const { hostname, port } = new URL(origin);
  return { name: `drainboard-local-${port}`, value: token, domain: hostname, path: '/', httpOnly: true, sameSite: 'Strict' };
}

/**
 * Starts the built server (end2end/scripts/build-site.sh), on a free port unless `addr` names one (`host:port`, e.g. to restart a
 * server where its pages are still connected); resolves with its URL (`url`, without the local secret; `printedUrl` as printed, with it; `token`, the secret) and
 * a stop function. `stop()` sends SIGTERM
 * and waits for the exit; `stop('SIGKILL')` ends it at once, like a crash. `kubeconfig` defaults to the test
 * cluster's admin.
 */
/**
 * A counter's value in `server`'s `/metrics` (`name` as scraped, `_total` included), for the series whose labels
 * include `labels`; 0 when there is none yet. A team server's needs a session (`cookie`). A scrape that is not
 * answered fails the test, rather than reading as zero.
 */
export async function metric(server, name, labels = {}, { cookie } = {}) {
  const res = await fetch(`${server.url}/metrics`, { headers: cookie ? { cookie } : {} });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}: ${text.slice(0, 200)}`);
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = line.match(/^([a-z_]+)(\{[^}]*\})? (\S+)$/);
    if (!m || m[1] !== name || !wanted.every((w) => (m[2] ?? '').includes(w))) continue;
    sum += Number(m[3]);
  }
  return sum;
}

/** How many of a server's last lines a failed test's report ends with. */
const SERVER_LINES = 25;
/** Every server this test file started, and where each one's log stood when the running test began. */
const servers = new Set();
let logMarks = new Map();
beforeEach(() => { logMarks = new Map([...servers].map((s) => [s, s.logs().length])); });
// A failed test's report ends with what each server said during it (its last lines), so that a CI log names what
// broke beside the assertion: `./test-all` repeats these `# server` lines with the failure at the very end.
afterEach((t) => {
  if (t.passed !== false) return;
  for (const s of servers) {
    const lines = s.logs().slice(logMarks.get(s) ?? 0).trimEnd().split('\n').filter(Boolean).slice(-SERVER_LINES);
    for (const line of lines) t.diagnostic(`server ${s.url}: ${line.length > 400 ? `${line.slice(0, 400)}…` : line}`);
  }
});

export async function startDrainboard(extraArgs = [], { addr = '127.0.0.1:0', kubeconfig = requireEnv('KUBECONFIG'), inCluster, token = localToken } = {}) {
  const bin = requireEnv('DRAINBOARD_BIN');
  let command = bin;
  let args = ['--addr', addr, '--kubeconfig', kubeconfig, ...extraArgs];
  let env = { ...process.env, LEPTOS_SITE_ROOT: requireEnv('LEPTOS_SITE_ROOT') };
  // `token: null` lets the server make its own secret, as it does for an operator.
  delete env.DRAINBOARD_LOCAL_TOKEN;
  if (token && !extraArgs.includes('--team')) env.DRAINBOARD_LOCAL_TOKEN = token;
  let home;
  if (inCluster) {
    // As in a pod: no kubeconfig anywhere, the API server named by KUBERNETES_SERVICE_HOST/PORT, and the
    // ServiceAccount's token, CA and namespace at /var/run/secrets/kubernetes.io/serviceaccount. Those files
    // appear in a mount namespace of the server's own (a tmpfs over /run), so the machine's /run is untouched.
    const { files, host, port } = inCluster;
    home = mkdtempSync(join(tmpdir(), 'drainboard-home-'));
    const dir = '/run/secrets/kubernetes.io/serviceaccount';
    const setup = `mount -t tmpfs tmpfs /run && mkdir -p ${dir} && cp "$DRAINBOARD_SA_FILES"/* ${dir}/ && exec "$0" "$@"`;
    command = 'unshare';
    args = ['--mount', '--propagation', 'private', 'sh', '-c', setup, bin, '--addr', addr, ...extraArgs];
    env = { ...env, HOME: home, KUBERNETES_SERVICE_HOST: host, KUBERNETES_SERVICE_PORT: String(port), DRAINBOARD_SA_FILES: files };
    delete env.KUBECONFIG;
  }
  const child = spawn(command, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  if (home) child.once('exit', () => rmSync(home, { recursive: true, force: true }));
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const printedUrl = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`drainboard did not start in 30 s:\n${stderr}`)), 30_000);
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/serving on (https?:\/\/\S+)/);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`drainboard exited with ${code}:\n${stderr}`)); });
  });
  const url = new URL(printedUrl).origin;
  const secret = new URL(printedUrl).searchParams.get('token');
  if (secret) {
    locked.set(url, secret);
    await Promise.all([...contexts].map((c) => c.addCookies([lockCookie(url, secret)]).catch(() => {})));
  }
  const stop = (signal = 'SIGTERM') => new Promise((resolve) => {
    // A process ended by a signal keeps exitCode null and sets signalCode instead.
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', resolve);
    child.kill(signal);
  });
  const server = { url, printedUrl, token: secret, stop, logs: () => stderr };
  servers.add(server);
  return server;
}

/**
 * Launches Debian's Chromium headless with no background network traffic. playwright-core gives every launch a
 * fresh temporary profile of its own.
 */
export async function launchBrowser() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
  // Every context (`browser.newPage()` makes one too) holds the cookie of each local-mode server started here, as
  // if the operator had opened its printed URL; `browser.newBareContext()` makes one without.
  const newContext = browser.newContext.bind(browser);
  browser.newBareContext = newContext;
  browser.newContext = async (options) => {
    const context = await newContext(options);
    contexts.add(context);
    context.once('close', () => contexts.delete(context));
    const cookies = [...locked].map(([origin, token]) => lockCookie(origin, token));
    if (cookies.length) await context.addCookies(cookies);
    return context;
  };
  return browser;
}

/**
 * Registers hooks that start one drainboard server and one browser for the test file, and stop them after.
 * Returns an object whose `server` and `browser` are set once the hooks have run.
 */
export function useServerAndBrowser() {
  const ctx = { server: null, browser: null };
  before(async () => {
    ctx.server = await startDrainboard();
    ctx.browser = await launchBrowser();
  });
  after(async () => {
    await ctx.browser?.close();
    await ctx.server?.stop();
  });
  return ctx;
}

/**
 * Opens the board of the server at `url` in a new context of `browser`, hydrated and live. Returns the context, the
 * page and the page's uncaught errors, which a test asserts are none.
 */
export async function openBoard(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url + '/');
  await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
  await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 30_000 });
  return { context, page, errors };
}

/** Runs a node failure switch of the local control plane: `not-ready`, `unreachable` or `restore`. */
export function harness(action, node) {
  execFileSync(join(repoRoot, 'end2end', 'cluster', 'cluster.sh'), [action, requireEnv('DRAINBOARD_CLUSTER_DIR'), node]);
}

/** Creates namespace `ns` with one running pod `name` bound to `node`, and waits until it is Ready. */
export function podOnNode(ns, name, node) {
  kubectl('create', 'namespace', ns);
  kubectl('run', name, '-n', ns, '--image=busybox:1.37', `--overrides={"apiVersion":"v1","spec":{"nodeName":"${node}"}}`);
  kubectl('wait', '-n', ns, '--for=condition=Ready', `pod/${name}`, '--timeout=60s');
}

/** Applies a Kubernetes object (given as JSON) with the pinned kubectl. */
export function apply(object, namespace) {
  const bin = join(requireEnv('DRAINBOARD_CLUSTER_BIN'), 'kubectl');
  const args = ['--kubeconfig', requireEnv('KUBECONFIG'), 'apply', '-f', '-'];
  if (namespace) args.push('-n', namespace);
  execFileSync(bin, args, { input: JSON.stringify(object), encoding: 'utf8' });
}

/**
 * The message of an error body as the server answers it (`{"Kind": ...}`): a plain kind's text, or the English
 * `message` of a typed one (`Refused`, `Conflict`), whose reason crosses as data beside it.
 */
export function said(body) {
  const value = Object.values(body ?? {})[0];
  return typeof value === 'string' ? value : String(value?.message ?? JSON.stringify(body));
}

/** Polls `check` every 100 ms until it returns something truthy; fails after `timeoutMs` naming `what`. */
export async function waitFor(what, timeoutMs, check) {
  const start = Date.now();
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const TEST_TAINT = 'drainboard.dev/test';

/**
 * A pool of fresh kwok nodes of its own (`ui-NAME-xxxx` and `ui-NAME-xxxx-spare`), tainted so that only the scenario's pods,
 * pinned by node selector and toleration, land there, and a namespace of the same name. Replacements of drained pods land
 * on the spare node. `cleanup()` removes both.
 */
export async function scenario(name) {
  // A suffix of its own, so that a re-run never waits for the last run's namespace to finish terminating.
  const pool = `ui-${name}-${Math.random().toString(36).slice(2, 6)}`;
  const ns = pool;
  for (const node of [pool, `${pool}-spare`]) {
    apply({
      apiVersion: 'v1', kind: 'Node',
      metadata: { name: node, labels: {
        'kwok.x-k8s.io/node': 'fake', 'kubernetes.io/hostname': node,
        'topology.kubernetes.io/zone': 'zone-ui', 'drainboard.dev/pool': pool,
      } },
      spec: { taints: [{ key: TEST_TAINT, value: 'true', effect: 'NoSchedule' }] },
      status: { allocatable: { cpu: '32', memory: '128Gi', pods: '250' }, capacity: { cpu: '32', memory: '128Gi', pods: '250' } },
    });
  }
  kubectl('wait', '--for=condition=Ready', `node/${pool}`, `node/${pool}-spare`, '--timeout=60s');
  // The spare starts cordoned, so that every pod starts on the node under test; it opens once a drain begins.
  kubectl('cordon', `${pool}-spare`);
  kubectl('create', 'namespace', ns);
  await waitFor(`the default service account of ${ns}`, 30_000, () => {
    try { kubectl('get', 'serviceaccount', 'default', '-n', ns); return true; } catch { return false; }
  });
  const spec = (extra = {}) => ({
    nodeSelector: { 'drainboard.dev/pool': pool },
    tolerations: [{ key: TEST_TAINT, operator: 'Exists', effect: 'NoSchedule' }],
    containers: [{ name: 'c', image: 'nginx:1.27' }],
    ...extra,
  });
  const s = {
    node: pool, spare: `${pool}-spare`, ns,
    deployment(app, replicas, extra = {}) {
      apply({
        apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: app },
        spec: { replicas, selector: { matchLabels: { app } },
          template: { metadata: { labels: { app } }, spec: spec(extra) } },
      }, ns);
    },
    daemonset(app) {
      apply({
        apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: app },
        spec: { selector: { matchLabels: { app } }, template: { metadata: { labels: { app } }, spec: spec() } },
      }, ns);
    },
    pdb(name, app, minAvailable) {
      apply({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name },
        spec: { minAvailable, selector: { matchLabels: { app } } } }, ns);
    },
    /** Waits until `count` pods run on the node under test. */
    async running(count, timeoutMs = 60_000) {
      await waitFor(`${count} running pods on ${pool}`, timeoutMs, () => {
        const out = kubectl('get', 'pods', '-n', ns, '--field-selector', `spec.nodeName=${pool},status.phase=Running`, '-o', 'name');
        return out.split('\n').filter(Boolean).length === count;
      });
    },
    /** Names (namespace/name) of the scenario's pods on the node under test. */
    podsOnNode() {
      const out = kubectl('get', 'pods', '-n', ns, '--field-selector', `spec.nodeName=${pool}`, '-o', 'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name}{"\\n"}{end}');
      return out.split('\n').filter(Boolean).sort();
    },
    openSpare() { kubectl('uncordon', `${pool}-spare`); },
    cleanup() {
      try { kubectl('delete', 'node', '-l', `drainboard.dev/pool=${pool}`, '--wait=false'); } catch {}
      try { kubectl('delete', 'namespace', ns, '--wait=false'); } catch {}
    },
  };
  return s;
}

/**
 * A kubeconfig for a new user `name` of the local cluster, with a client certificate from the cluster's CA and
 * a ClusterRole of exactly `rules`. Returns the kubeconfig's path.
 */
export function userKubeconfig(name, rules) {
  const dir = requireEnv('DRAINBOARD_CLUSTER_DIR');
  const pki = join(dir, 'pki');
  const key = join(pki, `${name}.key`);
  const csr = join(pki, `${name}.csr`);
  const crt = join(pki, `${name}.crt`);
  execFileSync('openssl', ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', `/CN=${name}`,
    '-keyout', key, '-out', csr], { stdio: 'ignore' });
  // A v3 certificate (the TLS stack refuses v1): client auth only.
  const ext = join(pki, `${name}.ext`);
  writeFileSync(ext, 'extendedKeyUsage=clientAuth\nkeyUsage=digitalSignature,keyEncipherment\n');
  execFileSync('openssl', ['x509', '-req', '-in', csr, '-CA', join(pki, 'ca.crt'), '-CAkey', join(pki, 'ca.key'),
    '-CAcreateserial', '-days', '1', '-extfile', ext, '-out', crt], { stdio: 'ignore' });
  apply({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: `test-${name}` }, rules });
  apply({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: `test-${name}` },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `test-${name}` },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name }],
  });
  const server = kubectl('config', 'view', '--minify', '-o', 'jsonpath={.clusters[0].cluster.server}').trim();
  const path = join(dir, `${name}.kubeconfig`);
  writeFileSync(path, `apiVersion: v1
kind: Config
clusters:
- name: local
  cluster: {server: "${server}", certificate-authority: "${join(pki, 'ca.crt')}"}
users:
- name: ${name}
  user: {client-certificate: "${crt}", client-key: "${key}"}
contexts:
- name: ${name}
  context: {cluster: local, user: ${name}}
current-context: ${name}
`);
  return path;
}

/**
 * The user of `userKubeconfig(name, rules)` as a kubeconfig's text with the certificate and key inline, as a person
 * pastes it into team mode's sign-in (`kubectl config view --raw --minify --flatten`).
 */
export function inlineKubeconfig(name, rules) {
  userKubeconfig(name, rules);
  const pki = join(requireEnv('DRAINBOARD_CLUSTER_DIR'), 'pki');
  const b64 = (file) => readFileSync(join(pki, file)).toString('base64');
  const server = kubectl('config', 'view', '--minify', '-o', 'jsonpath={.clusters[0].cluster.server}').trim();
  return `apiVersion: v1
kind: Config
clusters:
- name: local
  cluster: {server: "${server}", certificate-authority-data: "${b64('ca.crt')}"}
users:
- name: ${name}
  user: {client-certificate-data: "${b64(`${name}.crt`)}", client-key-data: "${b64(`${name}.key`)}"}
contexts:
- name: ${name}
  context: {cluster: local, user: ${name}}
current-context: ${name}
`;
}

/**
 * Fresh kwok nodes `names` of pool `pool` (label `drainboard.dev/pool`), tainted `drainboard.dev/test` so that only a
 * test's own pods land there, with room for 250 pods each, and the pool's namespace. Returns the cleanup that
 * removes both.
 */
export function kwokNodes(pool, names) {
  for (const node of names) {
    apply({ apiVersion: 'v1', kind: 'Node',
      metadata: { name: node, labels: { 'kwok.x-k8s.io/node': 'fake', 'kubernetes.io/hostname': node, 'drainboard.dev/pool': pool } },
      spec: { taints: [{ key: 'drainboard.dev/test', value: 'true', effect: 'NoSchedule' }] },
      status: { allocatable: { cpu: '32', memory: '128Gi', pods: '250' }, capacity: { cpu: '32', memory: '128Gi', pods: '250' } } });
  }
  return () => {
    try { kubectl('delete', 'node', '-l', `drainboard.dev/pool=${pool}`, '--wait=false'); } catch {}
    try { kubectl('delete', 'namespace', pool, '--wait=false'); } catch {}
  };
}

/**
 * Removes every MaintenancePlan of the cluster, finalizers and all: plans are objects that outlive the servers (and
 * the test files) that made them, and a later file's board would list them. Tests run one file at a time.
 */
export function deletePlans() {
  const names = kubectl('get', 'maintenanceplans', '-o', 'jsonpath={.items[*].metadata.name}').split(' ').filter(Boolean);
  for (const name of names) {
    try { kubectl('patch', 'maintenanceplan', name, '--type', 'merge', '-p', '{"metadata":{"finalizers":null}}'); } catch {}
  }
  if (names.length) kubectl('delete', 'maintenanceplans', '--all', '--wait=true', '--timeout=30s');
}

/** What a person needs to read the board (a viewer's rules), and to maintain nodes as well. */
export const READ = [
  { apiGroups: [''], resources: ['nodes', 'pods'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: ['apps'], resources: ['daemonsets'], verbs: ['get'] },
  { apiGroups: ['drainboard.dev'], resources: ['maintenanceplans'], verbs: ['get', 'list', 'watch'] },
];
export const MAINTAIN = [
  ...READ,
  { apiGroups: ['drainboard.dev'], resources: ['maintenanceplans'], verbs: ['create', 'patch', 'delete'] },
  { apiGroups: [''], resources: ['nodes'], verbs: ['patch'] },
  { apiGroups: [''], resources: ['pods/eviction'], verbs: ['create'] },
  { apiGroups: [''], resources: ['pods'], verbs: ['delete'] },
  { apiGroups: ['apps'], resources: ['deployments', 'replicasets', 'statefulsets'], verbs: ['get'] },
  { apiGroups: [''], resources: ['replicationcontrollers'], verbs: ['get'] },
  { apiGroups: ['storage.k8s.io'], resources: ['volumeattachments'], verbs: ['get', 'list'] },
];

/**
 * Types `text` into `input` a key every 150 ms, as a person does, and waits between the first key and the rest
 * until `read()` (the drain's status, say) shows the progress has moved on, so that the page gets an update while
 * the text is half typed. Fails naming what the update took away: the input, its text or the focus.
 */
export async function typeWhileStreaming(page, input, text, read) {
  const testid = await input.getAttribute('data-testid');
  const before = JSON.stringify(await read());
  await input.click();
  await page.keyboard.type(text.slice(0, 1));
  await waitFor('the progress to move on while the text is half typed', 45_000, async () => JSON.stringify(await read()) !== before);
  // The stream brings the change to the page within a moment.
  await new Promise((r) => setTimeout(r, 2_000));
  const focused = () => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName);
  for (const key of text.slice(1)) {
    if (!(await input.isVisible())) throw new Error(`the ${testid} went while "${text}" was being typed`);
    const where = await focused();
    if (where !== testid) throw new Error(`the focus fell to ${where} while "${text}" was being typed into ${testid}`);
    await page.keyboard.type(key);
    await new Promise((r) => setTimeout(r, 150));
  }
  const value = await input.inputValue();
  if (value !== text) throw new Error(`${testid} holds "${value}", not the "${text}" typed`);
}

/**
 * POSTs `body` as JSON to `/api/PATH` of the server at `url` with a session's `cookie`; answers the status and the
 * body, as JSON where it reads as JSON, as text otherwise.
 */
/** Signs in to a team server with `kubeconfig` (inline credentials); returns the session cookie (`name=value`). */
export async function signInWith(server, kubeconfig) {
  const res = await fetch(`${server.url}/api/session/sign-in`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ kubeconfig }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`sign-in answered ${res.status}: ${text.slice(0, 200)}`);
  return res.headers.get('set-cookie').split(';')[0];
}

export async function postAs(url, path, cookie, body = {}) {
  const res = await fetch(`${url}/api/${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: JSON.stringify(body),
  });
  const text = await res.text();
  let json;
  try { json = JSON.parse(text); } catch { json = text; }
  return { status: res.status, body: json };
}

/**
 * A local receiver of webhooks on 127.0.0.1: it keeps every post, in order, as `{path, type, body, at}` in
 * `received`, and answers 500 to the paths in `failing`, 200 to the rest. `start()` answers its base URL; the
 * returned `close()` stops it.
 */
export function webhookReceiver({ failing = [] } = {}) {
  const received = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      received.push({ path: req.url, type: req.headers['content-type'], body: JSON.parse(body || 'null'), at: Date.now() });
      res.writeHead(failing.includes(req.url) ? 500 : 200).end();
    });
  });
  return {
    received,
    start: async () => {
      await new Promise((r) => server.listen(0, '127.0.0.1', r));
      return `http://127.0.0.1:${server.address().port}`;
    },
    close: () => new Promise((r) => server.close(r)),
  };
}
