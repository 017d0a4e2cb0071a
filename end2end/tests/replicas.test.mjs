// Replicas agree through a Lease per node: a second server refuses to drain a node another one drains, shows that
// drain as running while its Lease lives, and as interrupted only once it has expired, then can resume it; and a
// server that cannot renew its Lease stops evicting before another may take the node over.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { faultProxy, status } from './fault-proxy.mjs';
import { join } from 'node:path';
import { artifactsDir, kubectl, launchBrowser, scenario, startDrainboard, waitFor } from './support.mjs';

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c(); });

const call = (server, path, body) => fetch(`${server.url}/api/${path}`, {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}),
}).then(async (r) => ({ status: r.status, body: await r.json() }));
const stateOf = (p) => (typeof p.state === 'string' ? p.state : Object.keys(p.state)[0]);

async function blockedScenario(name) {
  const s = await scenario(name);
  cleanups.push(() => s.cleanup());
  s.deployment('web', 2);
  s.pdb('web-pdb', 'web', 2);
  await s.running(2);
  s.openSpare();
  return s;
}

async function startBlocked(server, s) {
  const started = await call(server, 'drains/start', { node: s.node, reason: 'replica test' });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  await waitFor('an eviction blocked by the budget', 30_000, async () =>
    (await call(server, 'drains/status', { id: started.body.id })).body.pods?.some((p) => stateOf(p) === 'Blocked'));
  return started.body.id;
}

const recorded = async (server, node) =>
  (await call(server, 'drains/recorded')).body.find((r) => r.node === node)?.record;

test('two servers on one cluster: the second refuses the node, shows the drain running until the first\'s Lease expires, then resumes it', { timeout: 200_000 }, async () => {
  const s = await blockedScenario('replicas');
  const a = await startDrainboard();
  const b = await startDrainboard();
  cleanups.push(() => a.stop(), () => b.stop());
  await startBlocked(a, s);
  const lease = JSON.parse(kubectl('get', 'lease', '-n', 'default', `drainboard-drain.${s.node}`, '-o', 'json'));
  assert.equal(lease.spec.leaseDurationSeconds, 40);

  const second = await call(b, 'drains/start', { node: s.node });
  assert.equal(second.status, 409, JSON.stringify(second.body));
  assert.match(second.body.Conflict.message, /being drained by another Drainboard server/);
  assert.match(second.body.Conflict.message, new RegExp(lease.spec.holderIdentity.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')));
  assert.equal((await recorded(b, s.node)).state, 'Evicting', 'running on the other server, not interrupted');

  // The second server's board shows the drain live, with its progress, from the Lease the first renews.
  const browser = await launchBrowser();
  cleanups.push(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${b.url}/`);
  const card = page.locator(`[data-testid="node-row"][data-node="${s.node}"]`);
  const elsewhere = card.locator('[data-testid="card-drain-elsewhere"]');
  await elsewhere.waitFor({ timeout: 30_000 });
  assert.ok((await elsewhere.textContent()).includes(lease.spec.holderIdentity), 'it names the server that runs it');
  // The holder publishes at each renewal (every 5 s).
  await waitFor('the drain\'s progress from the Lease', 15_000, async () =>
    (await card.locator('[data-testid="card-drain-text"]').textContent()) === 'Draining, started by admin: 0/2');
  assert.equal(await card.locator('[data-testid="card-drain-blocked"]').count(), 1, 'the budget that holds it up shows too');
  assert.equal(await card.locator('[data-testid="action-progress"]').count(), 0, 'its detail is on the other server');
  assert.ok(await card.locator('[data-testid="action-drain"]').isDisabled(), 'no second drain of the node from here');
  await page.screenshot({ path: join(artifactsDir, 'replicas-elsewhere.png') });

  await a.stop('SIGKILL');
  // The Lease's last renewal by the killed server: it lives 40 s from then (same machine, same clock).
  const last = JSON.parse(kubectl('get', 'lease', '-n', 'default', `drainboard-drain.${s.node}`, '-o', 'json'));
  const expires = Date.parse(last.spec.renewTime) + last.spec.leaseDurationSeconds * 1000;
  assert.equal((await recorded(b, s.node)).state, 'Evicting', 'still running while its Lease lives');
  await waitFor('the record to read as interrupted', 70_000, async () => (await recorded(b, s.node)).state === 'Interrupted');
  const early = expires - Date.now();
  assert.ok(early <= 0, `interrupted only once the Lease expired (${early} ms before its expiry)`);
  // The card follows: the live drain leaves with the Lease, and the record offers Resume.
  await card.locator('[data-testid="action-resume"]').waitFor({ timeout: 15_000 });
  assert.equal(await elsewhere.count(), 0);
  await page.close();
  assert.equal(s.podsOnNode().length, 2, 'nothing evicted past the budget meanwhile');

  const resumed = await call(b, 'drains/resume', { node: s.node, confirm: s.node });
  assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
  s.deployment('web', 4);
  const done = await waitFor('the resumed drain to end', 90_000, async () => {
    const p = (await call(b, 'drains/status', { id: resumed.body.id })).body;
    return ['Cordoning', 'Planning', 'Evicting'].includes(p.state) ? null : p;
  });
  assert.equal(done.state, 'Drained', JSON.stringify(done.state));
  assert.deepEqual(s.podsOnNode(), []);
  assert.throws(() => kubectl('get', 'lease', '-n', 'default', `drainboard-drain.${s.node}`), /NotFound|not found/,
    'the Lease is let go when the drain ends');
});

test('a server that cannot renew its Lease (503, retry after a minute) stops evicting and ends interrupted, before another may take over', { timeout: 150_000 }, async () => {
  const s = await blockedScenario('lease-lost');
  const proxy = await faultProxy();
  cleanups.push(() => proxy.close());
  const server = await startDrainboard([], { kubeconfig: proxy.kubeconfig });
  cleanups.push(() => server.stop());
  const id = await startBlocked(server, s);
  // A 503 asking to come back in a minute: retrying politely must not keep the drain evicting past its deadline.
  const failing = proxy.rule({ method: 'PUT', path: new RegExp(`/leases/drainboard-drain\\.${s.node}(\\?|$)`), times: 1_000, status: 503,
    headers: { 'retry-after': '60' }, body: status(503, 'ServiceUnavailable', 'etcdserver: request timed out') });
  const cutAt = Date.now();
  const final = await waitFor('the drain to stop', 60_000, async () => {
    const p = (await call(server, 'drains/status', { id })).body;
    return ['Cordoning', 'Planning', 'Evicting'].includes(p.state) ? null : p;
  });
  const took = Date.now() - cutAt;
  assert.equal(final.state, 'Interrupted', JSON.stringify(final.state));
  assert.ok(failing.hits.length >= 1, 'renewals were refused');
  assert.ok(took < 40_000, `stopped within the Lease's life of 40 s (${took} ms)`);
  assert.ok(took >= 25_000, `not before 30 s without a renewal (${took} ms): an API server restart is ridden out`);
  assert.equal(s.podsOnNode().length, 2, 'the pods stay');
  assert.equal(kubectl('get', 'node', s.node, '-o', 'jsonpath={.spec.unschedulable}').trim(), 'true', 'the node stays cordoned');
});
