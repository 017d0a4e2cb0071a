// SIGTERM while a board stream is open and a drain is running: the server stops the drain, records it on the node
// as Interrupted (so that a restarted server offers Resume), ends its streams and background tasks, and exits
// within 10 s.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl, scenario, startDrainboard, waitFor } from './support.mjs';

const cleanups = [];
after(() => cleanups.forEach((c) => c()));

test('SIGTERM with a stream open and a drain running: exits within 10 s, the drain recorded as Interrupted', { timeout: 180_000 }, async () => {
  const s = await scenario('sigterm');
  cleanups.push(() => s.cleanup());
  s.deployment('web', 2);
  await s.running(2);
  // A budget that allows no disruption keeps the drain waiting, so it is still running when the signal comes.
  s.pdb('web-pdb', 'web', 2);
  const server = await startDrainboard();
  cleanups.push(() => server.stop('SIGKILL'));

  // An open board stream, as a browser tab keeps one.
  const controller = new AbortController();
  const stream = await fetch(`${server.url}/api/board/events`, { signal: controller.signal });
  assert.equal(stream.status, 200);
  const reader = stream.body.getReader();
  await reader.read();

  const started = await fetch(`${server.url}/api/drains/start`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ node: s.node, options: {}, reason: 'kernel update' }),
  }).then((r) => r.json());
  const status = () => fetch(`${server.url}/api/drains/status`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: started.id }),
  }).then((r) => r.json());
  await waitFor('an eviction blocked by the budget', 30_000, async () => {
    const p = await status();
    return p.state === 'Evicting' && p.pods.some((pod) => pod.state.Blocked);
  });

  const signalled = Date.now();
  await server.stop('SIGTERM');
  const took = Date.now() - signalled;
  controller.abort();
  assert.ok(took < 10_000, `exits within 10 s of SIGTERM (took ${took} ms)`);
  assert.match(server.logs(), /every task ended/, 'every background task was joined before the exit');

  const record = JSON.parse(kubectl('get', 'node', s.node, '-o', 'jsonpath={.metadata.annotations.drainboard\\.dev/drain}'));
  assert.equal(record.id, started.id);
  assert.equal(record.state, 'Interrupted', 'the drain says it was interrupted, not cancelled or still running');
  assert.equal(record.reason, 'kernel update');
  assert.equal(record.podsLeft, 2, 'no pod was evicted past the budget');
  assert.equal(kubectl('get', 'node', s.node, '-o', 'jsonpath={.spec.unschedulable}'), 'true', 'the node stays cordoned');

  // A restarted server reads the record and offers to resume it.
  const again = await startDrainboard();
  cleanups.push(() => again.stop('SIGKILL'));
  const recorded = await fetch(`${again.url}/api/drains/recorded`, { method: 'POST' }).then((r) => r.json());
  const mine = recorded.find((r) => r.node === s.node);
  assert.equal(mine?.record.state, 'Interrupted');
  await again.stop();
});
