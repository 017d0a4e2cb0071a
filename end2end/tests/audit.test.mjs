// The audit trail: every cordon, drain and uncordon is a line of the JSON-lines audit log and an Event on the node
// (`kubectl describe node` and `kubectl events` show it), naming the person and the reason.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { kubectl, requireEnv, scenario, startDrainboard, waitFor } from './support.mjs';

let server;
let s;
const log = join(requireEnv('DRAINBOARD_CLUSTER_DIR'), `audit-${process.pid}.jsonl`);
before(async () => {
  s = await scenario('audit');
  s.deployment('web', 2);
  await s.running(2);
  s.openSpare();
  server = await startDrainboard(['--audit-log', log]);
});
after(async () => {
  await server?.stop();
  s?.cleanup();
});

async function post(path, body) {
  const res = await fetch(`${server.url}/api/${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const entries = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);

/** The node's Events written by Drainboard, as `kubectl events` lists them: reason and note. */
function events(node) {
  const out = kubectl('get', 'events.events.k8s.io', '-n', 'default', '--field-selector', `regarding.name=${node}`, '-o', 'json');
  return JSON.parse(out).items.filter((e) => e.reportingController === 'drainboard.dev/drainboard')
    .map((e) => ({ reason: e.reason, note: e.note, type: e.type }));
}

test('a cordon, a drain and an uncordon are each a line of the audit log and an Event on the node, naming who and why', { timeout: 120_000 }, async () => {
  assert.equal((await post('nodes/cordon', { node: s.node, reason: 'firmware update' })).status, 200);
  const started = await post('drains/start', { node: s.node, reason: 'firmware update' });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  await waitFor('the drain to end', 90_000, async () => {
    const p = (await post('drains/status', { id: started.body.id })).body;
    return ['Cordoning', 'Planning', 'Evicting'].includes(p.state) ? null : p;
  });
  // A dry run is not an action on the node, and is not recorded.
  assert.equal((await post('drains/start', { node: s.node, options: { dry_run: 'Client' } })).status, 200);
  assert.equal((await post('nodes/uncordon', { node: s.node })).status, 200);

  const mine = await waitFor('four audit lines', 15_000, () => {
    const lines = entries().filter((e) => e.node === s.node);
    return lines.length >= 4 ? lines : null;
  });
  assert.deepEqual(mine.map((e) => e.action), ['Cordon', 'DrainStarted', 'DrainEnded', 'Uncordon']);
  assert.ok(mine.every((e) => e.user === 'admin'), JSON.stringify(mine));
  assert.equal(mine[0].reason, 'firmware update');
  assert.equal(mine[1].drain_id, started.body.id);
  assert.equal(mine[1].options.dry_run, 'None');
  assert.equal(mine[2].outcome, 'Drained');
  assert.equal(statSync(log).mode & 0o777, 0o600, 'readable by its owner only');

  const seen = await waitFor('the node\'s Events', 15_000, () => {
    const list = events(s.node);
    return list.length >= 4 ? list : null;
  });
  const byReason = Object.fromEntries(seen.map((e) => [e.reason, e]));
  assert.equal(byReason.DrainboardCordon.note, `admin cordoned ${s.node} (reason: firmware update)`);
  assert.equal(byReason.DrainboardDrainEnded.note, `admin's drain ended on ${s.node}: Drained (reason: firmware update)`);
  assert.equal(byReason.DrainboardDrainEnded.type, 'Normal');
  assert.ok(byReason.DrainboardUncordon, JSON.stringify(seen));
  // kubectl describe node shows them too.
  assert.match(kubectl('describe', 'node', s.node), /DrainboardCordon/);
});
