// The first page, end to end: drainboard on the local control plane renders every node on the server, then
// hydrates, and a client-side interaction (the filter) works without a reload.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { artifactsDir, kubectl, useServerAndBrowser } from './support.mjs';

const ctx = useServerAndBrowser();

function clusterNodes() {
  const out = kubectl('get', 'nodes', '-o',
    'jsonpath={range .items[*]}{.metadata.name} {.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}');
  return out.trim().split('\n').map((line) => {
    const [name, status] = line.split(' ');
    return { name, ready: status === 'True' ? 'Ready' : status === 'False' ? 'NotReady' : 'Unknown' };
  });
}

test('the server-rendered page lists every node with its Ready status', async () => {
  const expected = clusterNodes();
  assert.ok(expected.length >= 2, 'the test cluster has nodes');
  // The HTML as served, before any script runs: the list is rendered on the server.
  const html = await (await fetch(ctx.server.url)).text();
  for (const node of expected) assert.match(html, new RegExp(`data-node="${node.name}"`));
});

test('the page hydrates, shows every node, and the filter works client-side', async () => {
  const expected = clusterNodes();
  const page = await ctx.browser.newPage({ viewport: { width: 1280, height: 720 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const requests = [];
  // The tab's icon aside: the browser asks for it again whenever the address changes, and the filters live in the
  // address. So are the windows' readiness checks, which the board makes on the server clock's 5-minute marks
  // whatever the person does (one fell inside this test once), and the code of the readiness line, a lazily loaded
  // part of the wasm (`/pkg/`) that the board fetches once the windows line says a window covers a node: on a
  // cluster that other tests' windows cover, that may come while the filter is typed. Code is not a data request.
  const periodic = ['/favicon.svg', '/api/windows', '/api/readiness'];
  const counted = (url) => !periodic.some((p) => url.endsWith(p)) && !new URL(url).pathname.startsWith('/pkg/');
  page.on('request', (r) => { if (counted(r.url())) requests.push(r.url()); });

  await page.goto(ctx.server.url);
  await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor({ timeout: 30_000 });

  const rows = page.locator('[data-testid="node-row"]');
  assert.equal(await rows.count(), expected.length);
  for (const node of expected) {
    const row = page.locator(`[data-testid="node-row"][data-node="${node.name}"]`);
    assert.equal(await row.locator('[data-testid="node-ready"]').textContent(), node.ready, node.name);
  }
  await page.screenshot({ path: join(artifactsDir, 'nodes-page.png'), fullPage: true });

  // Filtering is done by the hydrated app in the browser: no further request reaches the server.
  const before = requests.length;
  const target = expected[expected.length - 1].name;
  await page.locator('[data-testid="node-filter"]').fill(target);
  await page.locator('[data-testid="node-row"]').first().waitFor();
  const shown = await page.locator('[data-testid="node-name"]').allTextContents();
  assert.ok(shown.length >= 1 && shown.every((n) => n.includes(target)), `filtered to ${target}: ${shown}`);
  assert.equal(await page.locator('[data-testid="node-count"]').textContent(),
    `Showing ${shown.length} of ${expected.length} nodes`);
  await page.locator('[data-testid="node-filter"]').fill('no-such-node');
  await page.locator('[data-testid="node-list"]').waitFor({ state: 'detached' });
  assert.deepEqual(requests.slice(before), [], 'filtering made no request');
  assert.equal(new URL(page.url()).searchParams.get('name'), 'no-such-node', 'the filter is in the address');
  assert.deepEqual(errors, [], 'no script errors');
  await page.close();
});
