// The pace a drain keeps with the API server, seen from the API side (parity row 4.13): with kubectl's own settings
// (--api-qps 5 --api-burst 10) the evictions of a 30-pod node go out 10 at once and then 5 a second, as kubectl's
// client sends them; at the default pace they are bounded by the per-drain in-flight limit. Observed in the fault
// proxy's request log, with nothing faulted.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { faultProxy } from './fault-proxy.mjs';
import { scenario, startDrainboard, waitFor } from './support.mjs';

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c(); });

async function drainThrough(name, args) {
  const proxy = await faultProxy();
  cleanups.push(() => proxy.close());
  const server = await startDrainboard(args, { kubeconfig: proxy.kubeconfig });
  cleanups.push(() => server.stop());
  const s = await scenario(name);
  cleanups.push(() => s.cleanup());
  s.deployment('web', 30);
  await s.running(30);
  s.openSpare();
  const post = (path, body) => fetch(`${server.url}/api/${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  }).then((r) => r.json());
  const { id } = await post('drains/start', { node: s.node });
  const final = await waitFor('the drain to end', 90_000, async () => {
    const p = await post('drains/status', { id });
    return ['Cordoning', 'Planning', 'Evicting'].includes(p.state) ? null : p;
  });
  assert.equal(final.state, 'Drained', JSON.stringify(final.state));
  assert.deepEqual(s.podsOnNode(), []);
  const evictions = proxy.requests.filter((r) => r.method === 'POST' && r.url.includes(`/namespaces/${s.ns}/pods/`) && r.url.includes('/eviction'))
    .map((r) => r.at);
  assert.equal(evictions.length, 30, 'one eviction per pod');
  return evictions;
}

/** The most requests sent within any window of `ms` milliseconds. */
function peak(times, ms) {
  let most = 0;
  for (const t of times) most = Math.max(most, times.filter((u) => u >= t && u < t + ms).length);
  return most;
}

test('at kubectl\'s pace (--api-qps 5 --api-burst 10), 30 evictions go 10 at once, then about 5 a second', { timeout: 150_000 }, async () => {
  const times = await drainThrough('pace-polite', ['--api-qps', '5', '--api-burst', '10']);
  const span = Math.max(...times) - Math.min(...times);
  // 20 evictions after the burst at 5 a second: about 4 s; never faster than the bucket allows.
  assert.ok(span >= 3_500, `the 30 evictions spread over ${span} ms, not sent at once`);
  assert.ok(peak(times, 1_000) <= 10 + 5, `at most the burst and one second's tokens in any second (${peak(times, 1_000)})`);
});

test('at the default pace the 30 evictions are not held to kubectl\'s bucket', { timeout: 150_000 }, async () => {
  const times = await drainThrough('pace-default', []);
  // kubectl's bucket allows at most 15 in any second; the default burst of 100 sends all 30 as fast as they go.
  assert.ok(peak(times, 1_000) > 15, `more than kubectl's bucket allows in some second (${peak(times, 1_000)})`);
});
