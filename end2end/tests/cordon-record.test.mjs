// Who cordoned a node, when and why: recorded on the node in the cordon's own patch, shown on its card, removed by
// the uncordon; and a cordon left standing past --stale-cordon with no drain running (a record left saying
// "running" is none) is flagged as forgotten.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { artifactsDir, kubectl, launchBrowser, scenario, startDrainboard, waitFor } from './support.mjs';

let server;
let browser;
let s;
before(async () => {
  s = await scenario('cordonrec');
  // Cordons older than 2 h count as forgotten here, so that a record written as 3 h old shows it.
  server = await startDrainboard(['--stale-cordon', '2h']);
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
  s?.cleanup();
});

async function post(path, body) {
  const res = await fetch(`${server.url}/api/${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const annotation = () => kubectl('get', 'node', s.node, '-o', 'jsonpath={.metadata.annotations.drainboard\\.dev/cordon}').trim();
const card = async () => (await post('board', {})).body.upsert.find((c) => c.name === s.node);

test('a cordon records who and why on the node, the card carries it, and the uncordon removes it', { timeout: 60_000 }, async () => {
  const tooLong = await post('nodes/cordon', { node: s.node, reason: 'x'.repeat(501) });
  assert.equal(tooLong.status, 400, JSON.stringify(tooLong.body));
  assert.equal(kubectl('get', 'node', s.node, '-o', 'jsonpath={.spec.unschedulable}').trim(), '', 'a refused cordon changes nothing');

  const res = await post('nodes/cordon', { node: s.node, reason: 'kernel 6.12 update' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const record = JSON.parse(annotation());
  assert.equal(record.by, 'admin', 'the kubeconfig user who cordoned');
  assert.equal(record.reason, 'kernel 6.12 update');
  assert.ok(Math.abs(Date.parse(record.at) - Date.now()) < 30_000, record.at);
  const shown = await waitFor('the card to carry the record', 15_000, async () => (await card())?.cordon_record);
  assert.deepEqual({ by: shown.by, reason: shown.reason }, { by: 'admin', reason: 'kernel 6.12 update' });

  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${server.url}/nodes/${s.node}`);
  const line = page.locator('[data-testid="card-cordon-text"]');
  await line.waitFor({ timeout: 30_000 });
  assert.match(await line.textContent(), /^Cordoned by admin, \d+s ago$/);
  assert.match(await page.locator('[data-testid="card-cordon"]').textContent(), /kernel 6\.12 update/);
  assert.equal(await page.locator('[data-testid="card-cordon"]').getAttribute('data-forgotten'), 'false');
  await page.close();

  assert.equal((await post('nodes/uncordon', { node: s.node })).status, 200);
  assert.equal(annotation(), '', 'the uncordon removes the record in the same patch');
  await waitFor('the card to drop the record', 15_000, async () => !(await card())?.cordon_record);
});

test('a cordon standing past --stale-cordon with no drain running is flagged as forgotten', { timeout: 60_000 }, async () => {
  // As another replica (or this one, hours ago) would have left it: cordoned 3 h ago by alice.
  const at = new Date(Date.now() - 3 * 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
  kubectl('cordon', s.node);
  kubectl('annotate', '--overwrite', 'node', s.node, `drainboard.dev/cordon={"by":"alice","at":"${at}","reason":"disk swap"}`);
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${server.url}/nodes/${s.node}`);
  const warning = page.locator('[data-testid="card-cordon-forgotten"]');
  await warning.waitFor({ timeout: 30_000 });
  assert.equal(await warning.textContent(), 'Cordoned for over 2h with no drain running: is it still needed?');
  assert.match(await page.locator('[data-testid="card-cordon-text"]').textContent(), /^Cordoned by alice, 3h ago$/);
  await page.locator('[data-testid="card-cordon"]').screenshot({ path: join(artifactsDir, 'card-cordon-forgotten.png') });
  // A drain record left saying "running" by a server that stopped does not silence it: no drain runs.
  const stuck = { id: 'gone-1', startedBy: 'alice', startedAt: at, reason: null, options: {}, state: 'Evicting', podsLeft: 1, finishedAt: null };
  kubectl('annotate', '--overwrite', 'node', s.node, `drainboard.dev/drain=${JSON.stringify(stuck)}`);
  await page.locator('[data-testid="card-drain"][data-state="Interrupted"]').waitFor({ timeout: 15_000 });
  assert.equal(await warning.count(), 1, 'still flagged while the stuck record reads as interrupted');
  kubectl('annotate', 'node', s.node, 'drainboard.dev/drain-');
  // A record that is not one (too long, not JSON) is ignored rather than shown.
  kubectl('annotate', '--overwrite', 'node', s.node, `drainboard.dev/cordon=${'x'.repeat(5000)}`);
  await page.locator('[data-testid="card-cordon"]').waitFor({ state: 'detached', timeout: 15_000 });
  await page.close();
  kubectl('uncordon', s.node);
});
