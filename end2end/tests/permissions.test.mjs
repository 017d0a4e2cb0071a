// Actions a person may not take are disabled on the card, naming the permission their credentials lack, and the
// API refuses them too. Each person here is a real user of the local cluster with a ClusterRole of their own.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { artifactsDir, kubectl, launchBrowser, startDrainboard, userKubeconfig } from './support.mjs';

const READ = [
  { apiGroups: [''], resources: ['nodes', 'pods'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: ['apps'], resources: ['daemonsets'], verbs: ['get'] },
];
const node = 'node-1';
let browser;
const servers = [];
before(async () => { browser = await launchBrowser(); });
after(async () => {
  await browser?.close();
  for (const s of servers) await s.stop();
});

async function serveAs(name, extraRules) {
  const server = await startDrainboard([], { kubeconfig: userKubeconfig(name, [...READ, ...extraRules]) });
  servers.push(server);
  return server;
}

async function post(url, path, body) {
  const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) });
  return { status: res.status, body: await res.json() };
}

async function cardOf(url) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  await page.goto(url);
  await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
  await page.fill('[data-testid="node-filter"]', node);
  const card = page.locator(`[data-testid="node-row"][data-node="${node}"]`);
  // Permissions arrive after hydration; wait until the buttons no longer say they are being checked.
  await card.locator('[data-testid="action-drain"]:not([data-reason="Checking your permissions…"])').waitFor({ timeout: 15_000 });
  return { page, card };
}

test('a read-only person sees every action disabled, with the permission named', { timeout: 120_000 }, async () => {
  const server = await serveAs('viewer', []);
  const perms = await post(server.url, '/api/permissions');
  assert.equal(perms.status, 200);
  assert.deepEqual(perms.body, {
    cordon: 'patch nodes',
    drain: 'patch nodes, create pods/eviction',
    delete_pods: 'delete pods',
  });
  const { page, card } = await cardOf(server.url);
  assert.ok(await card.locator('[data-testid="action-cordon"]').isDisabled());
  assert.equal(await card.locator('[data-testid="action-cordon"]').getAttribute('data-reason'), 'You lack the permission: patch nodes');
  assert.ok(await card.locator('[data-testid="action-drain"]').isDisabled());
  assert.equal(await card.locator('[data-testid="action-drain"]').getAttribute('data-reason'),
    'You lack the permission: patch nodes, create pods/eviction');
  assert.equal(await card.locator('[data-testid="action-hint"]').textContent(), 'You lack the permission: patch nodes, create pods/eviction');
  await card.screenshot({ path: join(artifactsDir, 'card-read-only.png') });

  // The server is the real gate: the API refuses as well, says why, and nothing changes.
  const cordon = await post(server.url, '/api/nodes/cordon', { node });
  assert.equal(cordon.status, 403, 'the API server\'s refusal keeps its status');
  assert.equal(cordon.body.Api?.code, 403, JSON.stringify(cordon.body));
  assert.match(cordon.body.Api.message, /cannot patch resource "nodes"/);
  assert.equal(kubectl('get', 'node', node, '-o', 'jsonpath={.spec.unschedulable}').trim(), '', `${node} stays schedulable`);
  await page.close();
});

test('a person who may cordon but not evict can cordon, and Drain names the missing permission', { timeout: 120_000 }, async () => {
  const server = await serveAs('cordoner', [{ apiGroups: [''], resources: ['nodes'], verbs: ['patch'] }]);
  const { page, card } = await cardOf(server.url);
  assert.ok(await card.locator('[data-testid="action-cordon"]').isEnabled(), 'patch nodes is enough to cordon');
  assert.equal(await card.locator('[data-testid="action-drain"]').getAttribute('data-reason'), 'You lack the permission: create pods/eviction');
  await page.close();
});

test('a person who may not list pods gets an explanation at once, not an endless wait or an empty board', { timeout: 120_000 }, async () => {
  const noPods = [
    { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: ['get', 'list', 'watch'] },
  ];
  const server = await startDrainboard([], { kubeconfig: userKubeconfig('nopods', noPods) });
  servers.push(server);
  const started = Date.now();
  const board = await post(server.url, '/api/board');
  assert.equal(board.status, 403, JSON.stringify(board.body));
  assert.ok(Date.now() - started < 30_000, `answered in ${Date.now() - started} ms, not after the 90 s list limit`);
  assert.match(board.body.Denied.message, /refused Pod \(pods is forbidden: User "nopods" cannot list resource "pods"/);
  assert.match(board.body.Denied.message, /drainboard-viewer/);
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  await page.goto(server.url);
  const error = page.locator('p.error[role="alert"]');
  await error.waitFor({ timeout: 30_000 });
  assert.match(await error.textContent(), /cannot list resource "pods"/);
  await page.close();
  // The denial crosses as data: a Japanese page words it in Japanese, keeping the API server's answer as it came.
  assert.deepEqual(board.body.Denied.denial.NoBoardRead.refused, ['Pod']);
  const ja = await browser.newPage({ viewport: { width: 1280, height: 720 }, locale: 'ja-JP' });
  await ja.goto(server.url);
  const jaError = ja.locator('p.error[role="alert"]');
  await jaError.waitFor({ timeout: 30_000 });
  const words = await jaError.textContent();
  assert.match(words, /ボードの表示には.*APIサーバーがPodを拒否しました/, words);
  assert.match(words, /cannot list resource "pods"/, words);
  assert.doesNotMatch(words, /the board needs list and watch/, words);
  await ja.close();
});
