// Faults at the API boundary, injected by a proxy in front of the real API server: each branch of the eviction
// loop ends in the true final state, with the pods left on the node as they really are.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { faultProxy, status } from './fault-proxy.mjs';
import { scenario, startDrainboard, waitFor } from './support.mjs';

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c(); });

let proxy;
let server;
async function setUp(name, replicas = 1) {
  if (!proxy) {
    proxy = await faultProxy();
    cleanups.push(() => proxy.close());
    server = await startDrainboard([], { kubeconfig: proxy.kubeconfig });
    cleanups.push(() => server.stop());
  }
  const s = await scenario(name);
  cleanups.push(() => s.cleanup());
  s.deployment('web', replicas);
  await s.running(replicas);
  s.openSpare();
  return s;
}

async function drain(node) {
  const res = await fetch(`${server.url}/api/drains/start`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ node, options: { timeout_seconds: 60 } }),
  });
  const answer = await res.text();
  assert.equal(res.status, 200, `the start was accepted: ${answer}`);
  const { id } = JSON.parse(answer);
  const seen = [];
  const final = await waitFor('the drain to end', 90_000, async () => {
    const p = await fetch(`${server.url}/api/drains/status`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id }),
    }).then((r) => r.json());
    seen.push(...p.pods.map((pod) => (typeof pod.state === 'string' ? pod.state : Object.keys(pod.state)[0])));
    return ['Cordoning', 'Planning', 'Evicting'].includes(p.state) ? null : p;
  });
  return { final, seen };
}

const eviction = (ns) => new RegExp(`^/api/v1/namespaces/${ns}/pods/[^/]+/eviction`);

test('the API server throttling evictions: backed off, never shown as a budget block, and the drain completes', { timeout: 180_000 }, async () => {
  const s = await setUp('fault-throttle');
  // As the API server's priority-and-fairness filter answers: a Retry-After header and a plain-text body.
  const throttle = proxy.rule({ method: 'POST', path: eviction(s.ns), times: 2, status: 429,
    headers: { 'retry-after': '1' }, body: 'Too many requests, please try again later.\n' });
  const { final, seen } = await drain(s.node);
  assert.equal(throttle.hits.length, 2, 'both throttled answers were given');
  assert.equal(final.state, 'Drained', JSON.stringify(final.state));
  assert.ok(!seen.includes('Blocked'), `throttling is not a budget block: ${[...new Set(seen)]}`);
  assert.ok(throttle.hits[1] - throttle.hits[0] >= 900, 'the retry waited for Retry-After');
  assert.deepEqual(s.podsOnNode(), []);
});

test('a budget refusal is shown as blocked, retried, and the drain completes', { timeout: 180_000 }, async () => {
  const s = await setUp('fault-budget');
  const budget = proxy.rule({ method: 'POST', path: eviction(s.ns), times: 1, status: 429,
    body: status(429, 'TooManyRequests', "Cannot evict pod as it would violate the pod's disruption budget.",
      { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget web-pdb needs 1 healthy pods and has 1 currently' }] }) });
  const { final, seen } = await drain(s.node);
  assert.equal(budget.hits.length, 1);
  assert.ok(seen.includes('Blocked'), `shown blocked first: ${[...new Set(seen)]}`);
  assert.equal(final.state, 'Drained');
  assert.deepEqual(s.podsOnNode(), []);
});

test('an eviction the API server fails with 500: the drain ends Failed, and the pod is still there', { timeout: 180_000 }, async () => {
  const s = await setUp('fault-500');
  const broken = proxy.rule({ method: 'POST', path: eviction(s.ns), times: 1, status: 500,
    body: status(500, 'InternalError', 'Internal error occurred: etcd is on fire') });
  const { final } = await drain(s.node);
  assert.equal(broken.hits.length, 1);
  assert.ok(final.state.Failed, JSON.stringify(final.state));
  const [pod] = final.pods;
  assert.deepEqual(pod.state.Failed, { Api: { code: 500, message: 'Internal error occurred: etcd is on fire' } });
  assert.equal(s.podsOnNode().length, 1, 'the pod the drain could not evict is still on the node, as reported');
});

test('403 NamespaceTerminating: waited for, retried, and the drain completes', { timeout: 180_000 }, async () => {
  const s = await setUp('fault-403');
  const terminating = proxy.rule({ method: 'POST', path: eviction(s.ns), times: 1, status: 403,
    body: status(403, 'Forbidden', `pods is forbidden: unable to create new content in namespace ${s.ns} because it is being terminated`,
      { causes: [{ reason: 'NamespaceTerminating', message: `namespace ${s.ns} is being terminated`, field: 'metadata.namespace' }] }) });
  const { final, seen } = await drain(s.node);
  assert.equal(terminating.hits.length, 1);
  assert.ok(seen.includes('Blocked'), `shown waiting: ${[...new Set(seen)]}`);
  assert.equal(final.state, 'Drained');
  assert.deepEqual(s.podsOnNode(), []);
});
