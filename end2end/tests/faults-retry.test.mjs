// Every call the engine makes, not only the eviction, rides out an answer that names a Retry-After (a 429 or 5xx:
// the API server's own throttling, or a server shutting down), as client-go does for kubectl; an answer without one
// is the caller's at once, as in kubectl. Through the fault proxy (fault-proxy.mjs), in front of the real API server.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { faultProxy, status } from './fault-proxy.mjs';
import { kubectl, scenario, startDrainboard, waitFor } from './support.mjs';

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c(); });

let proxy;
let server;
async function setUp(name) {
  if (!proxy) {
    proxy = await faultProxy();
    cleanups.push(() => proxy.close());
    server = await startDrainboard([], { kubeconfig: proxy.kubeconfig });
    cleanups.push(() => server.stop());
  }
  const s = await scenario(name);
  cleanups.push(() => s.cleanup());
  s.deployment('web', 1);
  await s.running(1);
  s.openSpare();
  return s;
}

const post = (path, body) => fetch(`${server.url}/api/${path}`, {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
}).then(async (r) => ({ status: r.status, body: await r.json() }));

async function drain(node, options) {
  const started = await post('drains/start', { node, options, confirm: node });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  return waitFor('the drain to end', 90_000, async () => {
    const p = (await post('drains/status', { id: started.body.id })).body;
    return ['Cordoning', 'Planning', 'Evicting'].includes(p.state) ? null : p;
  });
}

const shuttingDown = status(503, 'ServiceUnavailable', 'apiserver is shutting down');

test('a cordon answered 503 with Retry-After: 1 twice is sent again and succeeds', { timeout: 60_000 }, async () => {
  const s = await setUp('retry-cordon');
  const rule = proxy.rule({ method: 'PATCH', path: new RegExp(`^/api/v1/nodes/${s.node}(\\?|$)`), times: 2, status: 503,
    headers: { 'retry-after': '1' }, body: shuttingDown });
  const res = await post('nodes/cordon', { node: s.node });
  assert.deepEqual([res.status, res.body], [200, 'Changed']);
  assert.equal(rule.hits.length, 2, 'both 503s were answered');
  assert.ok(rule.hits[1] - rule.hits[0] >= 900, 'the retry waited for Retry-After');
  assert.equal(kubectl('get', 'node', s.node, '-o', 'jsonpath={.spec.unschedulable}').trim(), 'true');
});

test('the DELETE path rides out 503s naming a Retry-After, and the drain ends Drained', { timeout: 120_000 }, async () => {
  const s = await setUp('retry-delete');
  const rule = proxy.rule({ method: 'DELETE', path: new RegExp(`^/api/v1/namespaces/${s.ns}/pods/`), times: 2, status: 503,
    headers: { 'retry-after': '1' }, body: shuttingDown });
  const final = await drain(s.node, { disable_eviction: true, timeout_seconds: 60 });
  assert.equal(final.state, 'Drained', JSON.stringify(final.state));
  assert.equal(rule.hits.length, 2);
  assert.deepEqual(s.podsOnNode(), []);
});

test('a 503 without Retry-After is not retried: the DELETE fails the pod at once, as in kubectl, and it stays', { timeout: 120_000 }, async () => {
  const s = await setUp('retry-none');
  const rule = proxy.rule({ method: 'DELETE', path: new RegExp(`^/api/v1/namespaces/${s.ns}/pods/`), times: 1, status: 503,
    body: shuttingDown });
  const final = await drain(s.node, { disable_eviction: true, timeout_seconds: 60 });
  assert.ok(typeof final.state === 'object' && 'Failed' in final.state, JSON.stringify(final.state));
  assert.equal(rule.hits.length, 1);
  assert.equal(s.podsOnNode().length, 1, 'the pod is still on the node');
});
