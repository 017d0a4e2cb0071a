// Local mode serves every context of the operator's kubeconfig, each as its own cluster view at its own address:
// the header lists them, switching shows each cluster's own nodes (live), and a cordon in one leaves the other
// untouched. A second local control plane stands in for the second cluster.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { artifactsDir, kubectl, launchBrowser, repoRoot, requireEnv, startDrainboard, waitFor } from './support.mjs';

const clusterSh = join(repoRoot, 'end2end', 'cluster', 'cluster.sh');
// A name with the characters EKS context names carry, so that the address's encoding is exercised.
const BETA = 'beta:eu-west/1';
const BETA_PREFIX = '/ctx/beta%3Aeu-west%2F1';

let betaDir;
let betaKubeconfig;
let dir;
let server;
let browser;

const betaKubectl = (...args) =>
  execFileSync(join(requireEnv('DRAINBOARD_CLUSTER_BIN'), 'kubectl'), ['--kubeconfig', betaKubeconfig, ...args], { encoding: 'utf8' });
const betaApply = (object) =>
  execFileSync(join(requireEnv('DRAINBOARD_CLUSTER_BIN'), 'kubectl'), ['--kubeconfig', betaKubeconfig, 'apply', '-f', '-'], { input: JSON.stringify(object), encoding: 'utf8' });

/** One kubeconfig's current context, flattened, with its entries renamed to `name`. */
function renamed(kubeconfig, name) {
  const bin = join(requireEnv('DRAINBOARD_CLUSTER_BIN'), 'kubectl');
  const kc = JSON.parse(execFileSync(bin, ['--kubeconfig', kubeconfig, 'config', 'view', '--raw', '--flatten', '--minify', '-o', 'json'], { encoding: 'utf8' }));
  return {
    cluster: { name, cluster: kc.clusters[0].cluster },
    user: { name, user: kc.users[0].user },
    context: { name, context: { cluster: name, user: name } },
  };
}

before(async () => {
  betaDir = execFileSync(clusterSh, ['up', '--nodes', '2', '--zones', '2'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  betaKubeconfig = join(betaDir, 'admin.kubeconfig');
}, { timeout: 180_000 });

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'drainboard-contexts-'));
  const alpha = renamed(requireEnv('KUBECONFIG'), 'alpha');
  const beta = renamed(betaKubeconfig, BETA);
  const kubeconfig = {
    apiVersion: 'v1', kind: 'Config', 'current-context': 'alpha',
    clusters: [alpha.cluster, beta.cluster], users: [alpha.user, beta.user], contexts: [alpha.context, beta.context],
  };
  writeFileSync(join(dir, 'kubeconfig'), JSON.stringify(kubeconfig), { mode: 0o600 });
  server = await startDrainboard([], { kubeconfig: join(dir, 'kubeconfig') });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (betaDir) execFileSync(clusterSh, ['down', betaDir], { stdio: 'inherit' });
});

async function post(prefix, path, body = {}) {
  const res = await fetch(`${server.url}${prefix}/api/${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const names = (board) => board.upsert.map((c) => c.name).sort();
const kubectlNodes = (run) => run('get', 'nodes', '-o', 'jsonpath={.items[*].metadata.name}').trim().split(/\s+/).sort();
const unschedulable = (run, node) => run('get', 'node', node, '-o', 'jsonpath={.spec.unschedulable}').trim();

test('the header lists every context, and each address shows its own cluster', { timeout: 90_000 }, async () => {
  const links = await post('', 'contexts');
  assert.equal(links.status, 200, JSON.stringify(links.body));
  assert.deepEqual(links.body, [
    { name: 'alpha', href: '/', current: true },
    { name: BETA, href: BETA_PREFIX, current: false },
  ]);
  const fromBeta = await post(BETA_PREFIX, 'contexts');
  assert.deepEqual(fromBeta.body.map((l) => l.current), [false, true], 'the beta address is the beta context');

  const alphaBoard = await post('', 'board');
  const betaBoard = await post(BETA_PREFIX, 'board');
  assert.equal(betaBoard.status, 200, JSON.stringify(betaBoard.body));
  assert.deepEqual(names(alphaBoard.body), kubectlNodes(kubectl), 'the first context shows the first cluster');
  assert.deepEqual(names(betaBoard.body), kubectlNodes(betaKubectl), 'the beta address shows the second cluster');
  assert.notDeepEqual(names(alphaBoard.body), names(betaBoard.body));

  // A context the kubeconfig does not have is not found, and says what there is.
  const res = await fetch(`${server.url}/ctx/nope/api/board`, { method: 'POST' });
  assert.equal(res.status, 404);
  assert.match(JSON.stringify(await res.json()), /no context \\"nope\\" in the kubeconfig; it has: alpha, beta/);
  const bad = await fetch(`${server.url}/ctx/%FF/`);
  assert.equal(bad.status, 404);
});

test('another site cannot open a context, nor act in one', { timeout: 30_000 }, async () => {
  // A GET another site's page makes (an image, a link) would connect the context, and may run its exec plugin.
  for (const site of ['cross-site', 'same-site']) {
    const res = await fetch(`${server.url}${BETA_PREFIX}`, { headers: { 'sec-fetch-site': site, accept: 'text/html' } });
    assert.equal(res.status, 403, site);
    assert.match(JSON.stringify(await res.json()), /another site's request cannot open a context/);
  }
  const own = await fetch(`${server.url}${BETA_PREFIX}`, { headers: { 'sec-fetch-site': 'none', accept: 'text/html' } });
  assert.equal(own.status, 200, 'the address bar opens it');
  // A cross-origin write under a context's prefix meets the guard first, and changes nothing.
  const res = await fetch(`${server.url}${BETA_PREFIX}/api/nodes/cordon`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    body: JSON.stringify({ node: 'node-2' }),
  });
  assert.equal(res.status, 403);
  assert.equal(unschedulable(betaKubectl, 'node-2'), '', 'the second cluster\'s node is unchanged');
});

test('switching in the browser shows the other cluster live, and a cordon there leaves the first untouched', { timeout: 120_000 }, async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const cards = () => page.locator('[data-testid="node-row"]').evaluateAll((rows) => rows.map((r) => r.dataset.node).sort());
  await page.goto(`${server.url}/`);
  await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
  const switcher = page.locator('[data-testid="contexts"]');
  await switcher.waitFor({ timeout: 30_000 });
  assert.equal(await switcher.locator('[aria-current="page"]').textContent(), 'alpha');
  const alphaNames = kubectlNodes(kubectl);
  await waitFor('the first cluster\'s cards', 30_000, async () => JSON.stringify(await cards()) === JSON.stringify(alphaNames));

  await switcher.locator(`[data-context="${BETA}"]`).click();
  await page.waitForURL(`${server.url}${BETA_PREFIX}`);
  await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
  assert.equal(await page.locator('[data-testid="contexts"] [aria-current="page"]').textContent(), BETA);
  await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 30_000 });
  const betaNames = kubectlNodes(betaKubectl);
  await waitFor('the second cluster\'s cards', 30_000, async () => JSON.stringify(await cards()) === JSON.stringify(betaNames));

  // The page is live on the second cluster: a node created there appears without a reload, and not in the first.
  betaApply({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'only-in-beta', labels: { 'drainboard.dev/test': 'contexts' } } });
  await waitFor('the new node\'s card', 30_000, async () => (await cards()).includes('only-in-beta'));

  // A cordon on the second cluster's node-1, through its card and dialog.
  assert.equal(unschedulable(kubectl, 'node-1'), '', 'the first cluster\'s node-1 starts schedulable');
  const card = page.locator('[data-testid="node-row"][data-node="node-1"]');
  await card.locator('[data-testid="action-cordon"]').click();
  await page.locator('[data-testid="cordon-dialog"] [data-testid="dialog-confirm"]').click();
  await waitFor('node-1 of the second cluster to be cordoned', 15_000, async () => unschedulable(betaKubectl, 'node-1') === 'true');
  await card.locator('[data-testid="node-cordoned"]').waitFor({ timeout: 15_000 });
  assert.equal(unschedulable(kubectl, 'node-1'), '', 'the first cluster\'s node-1 is untouched');
  await page.screenshot({ path: join(artifactsDir, 'contexts-beta.png') });

  // The node page keeps the context, and so does its way back.
  await card.locator('[data-testid="node-name"] a').click();
  await page.waitForURL(`${server.url}${BETA_PREFIX}/nodes/node-1`);
  await page.locator('[data-testid="node-detail"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
  assert.equal(await page.locator('[data-testid="back-to-board"]').getAttribute('href'), BETA_PREFIX);
  await page.close();

  // Server functions under the prefix act on that cluster too.
  assert.equal((await post(BETA_PREFIX, 'nodes/uncordon', { node: 'node-1' })).status, 200);
  assert.equal(unschedulable(betaKubectl, 'node-1'), '');
  const alphaBoard = await post('', 'board');
  assert.ok(!names(alphaBoard.body).includes('only-in-beta'), 'the first cluster never shows the second one\'s node');
});
