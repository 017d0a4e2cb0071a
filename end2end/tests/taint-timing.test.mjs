// The pod countdown against the real taint-eviction controller, in the two cases a naive rule gets wrong: an old
// taint tolerated forever plus a fresh timed one, and two timed taints added 10 s apart with different limits. In
// each, the time the board shows is within 2 s of the moment the controller really deletes the pod.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { harness, kubectl, scenario, startDrainboard, waitFor } from './support.mjs';

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c(); });

let server;
async function drainboard() {
  if (!server) {
    server = await startDrainboard();
    cleanups.push(() => server.stop());
  }
  return server;
}

/** The eviction the board shows for `pod` on `node`, once it is a time. */
async function shown(node, pod) {
  const s = await drainboard();
  return waitFor(`a countdown for ${pod}`, 60_000, async () => {
    const board = await fetch(`${s.url}/api/board`, { method: 'POST' }).then((r) => r.json());
    const eta = board.upsert.find((c) => c.name === node)?.pod_evictions.find((p) => p.name === pod);
    return eta?.eviction?.At ? Date.parse(eta.eviction.At) : null;
  });
}

/** When the controller deleted the pod: the moment it is seen deleting or gone. (Its deletionTimestamp would add the
 * grace period.) */
async function deleted(ns, pod, limitMs) {
  return waitFor(`${pod} to be deleted`, limitMs, () => {
    const out = kubectl('get', 'pod', pod, '-n', ns, '--ignore-not-found', '-o',
      'jsonpath={.metadata.name} {.metadata.deletionTimestamp}').trim();
    return out === '' || out.split(' ').length > 1 ? Date.now() : null;
  });
}

/** Adds a NoExecute taint with `timeAdded` now, as the node lifecycle controller writes its own (`kubectl taint`
 * writes none, and the countdown of a timed taint without one is unknown). */
function addTaint(node, key) {
  const taints = JSON.parse(kubectl('get', 'node', node, '-o', 'jsonpath={.spec.taints}') || '[]');
  const timeAdded = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  taints.push({ key, value: 'x', effect: 'NoExecute', timeAdded });
  kubectl('patch', 'node', node, '--type=merge', '-p', JSON.stringify({ spec: { taints } }));
}

function pod(s, name, tolerations) {
  kubectl('run', name, '-n', s.ns, '--image=nginx:1.27', `--overrides=${JSON.stringify({
    apiVersion: 'v1',
    spec: { nodeName: s.node, tolerations: [{ key: 'drainboard.dev/test', operator: 'Exists', effect: 'NoSchedule' }, ...tolerations] },
  })}`);
  kubectl('wait', '-n', s.ns, '--for=condition=Ready', `pod/${name}`, '--timeout=60s');
}

test('an old taint tolerated forever plus a fresh unreachable taint: the fresh one starts the clock', { timeout: 180_000 }, async () => {
  const s = await scenario('taint-old');
  cleanups.push(() => s.cleanup());
  pod(s, 'victim', [
    { key: 'example.com/dedicated', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 20 },
  ]);
  addTaint(s.node, 'example.com/dedicated');
  await new Promise((r) => setTimeout(r, 15_000)); // the dedicated taint is old by the time the node fails
  harness('unreachable', s.node);
  cleanups.push(() => harness('restore', s.node));
  const at = await shown(s.node, 'victim');
  const gone = await deleted(s.ns, 'victim', 90_000);
  console.log(`shown ${new Date(at).toISOString()}, deleted ${((gone - at) / 1000).toFixed(1)} s after it`);
  assert.ok(Math.abs(gone - at) <= 2_000, `deleted ${((gone - at) / 1000).toFixed(1)} s from the shown time`);
});

test('two timed taints 10 s apart: the first fixes the time, the shorter second does not move it', { timeout: 180_000 }, async () => {
  const s = await scenario('taint-two');
  cleanups.push(() => s.cleanup());
  pod(s, 'victim', [
    { key: 'example.com/first', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 },
    { key: 'example.com/second', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 },
  ]);
  addTaint(s.node, 'example.com/first');
  await new Promise((r) => setTimeout(r, 10_000));
  addTaint(s.node, 'example.com/second');
  const at = await shown(s.node, 'victim');
  const gone = await deleted(s.ns, 'victim', 90_000);
  console.log(`shown ${new Date(at).toISOString()}, deleted ${((gone - at) / 1000).toFixed(1)} s after it`);
  assert.ok(Math.abs(gone - at) <= 2_000, `deleted ${((gone - at) / 1000).toFixed(1)} s from the shown time`);
});
