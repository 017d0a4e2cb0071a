// The documented HTTP API (API.md), called the way a script would: JSON in, JSON out, and the event stream.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl, startDrainboard } from './support.mjs';

let server;
before(async () => { server = await startDrainboard(); });
after(async () => { await server?.stop(); });

async function call(endpoint, body) {
  const res = await fetch(`${server.url}/api/${endpoint}`, {
    method: 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? '' : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/** Reads a drain's event stream to its end; returns every progress snapshot. */
async function follow(id) {
  const res = await fetch(`${server.url}/api/drains/${id}/events`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type'), /text\/event-stream/);
  const text = await res.text(); // the stream ends with the drain
  return text.split('\n').filter((l) => l.startsWith('data:')).map((l) => JSON.parse(l.slice(5)));
}

function unschedulable(node) {
  return kubectl('get', 'node', node, '-o', 'jsonpath={.spec.unschedulable}').trim() === 'true';
}

test('cordon and uncordon say whether anything changed', async () => {
  assert.deepEqual(await call('nodes/cordon', { node: 'node-1' }), { status: 200, json: 'Changed' });
  assert.ok(unschedulable('node-1'));
  assert.deepEqual(await call('nodes/cordon', { node: 'node-1' }), { status: 200, json: 'AlreadyDone' });
  assert.deepEqual(await call('nodes/uncordon', { node: 'node-1' }), { status: 200, json: 'Changed' });
  assert.ok(!unschedulable('node-1'));
  const missing = await call('nodes/cordon', { node: 'no-such-node' });
  assert.equal(missing.status, 404);
  // Drainboard's own refusal crosses as data (the page words it in its language), with its English for scripts.
  assert.deepEqual(missing.json, { Refused: { refusal: { NoSuchNode: { node: 'no-such-node' } }, message: 'node no-such-node does not exist' } });
  const empty = await call('nodes/cordon', { node: '  ' });
  assert.deepEqual(empty, { status: 400, json: { Invalid: 'a node name is required' } });
});

test('a client dry run of the seed node with a bare pod is refused, naming the pod and the option', async () => {
  const started = await call('drains/start', { node: 'node-2', options: { dry_run: 'Client', ignore_daemonsets: true } });
  assert.equal(started.status, 200);
  assert.equal(started.json.attached, false);
  const events = await follow(started.json.id);
  const last = events.at(-1);
  assert.equal(last.state, 'Refused');
  // What kubectl's rules say for the pods the scheduler put there: no controller → Force; emptyDir → the option.
  const onNode = JSON.parse(kubectl('get', 'pods', '-A', '--field-selector', 'spec.nodeName=node-2', '-o', 'json')).items;
  const expected = onNode
    .filter((p) => !(p.metadata.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet'))
    .flatMap((p) => {
      const bare = !(p.metadata.ownerReferences ?? []).some((o) => o.controller);
      const emptyDir = (p.spec.volumes ?? []).some((v) => 'emptyDir' in v);
      if (emptyDir) return [[`${p.metadata.namespace}/${p.metadata.name}`, 'LocalStorage']];
      if (bare) return [[`${p.metadata.namespace}/${p.metadata.name}`, 'NoController']];
      return [];
    })
    .sort();
  const refused = last.plan.pods
    .filter((p) => 'Refuse' in p.decision)
    .map((p) => [`${p.namespace}/${p.name}`, p.decision.Refuse.reason])
    .sort();
  assert.deepEqual(refused, expected);
  const shell = last.plan.pods.find((p) => p.name === 'debug-shell');
  assert.deepEqual(shell.decision.Refuse, { reason: 'NoController', needs: ['Force'] });
  assert.ok(!unschedulable('node-2'), 'a client dry run changes nothing');
  assert.deepEqual((await call('drains/status', { id: started.json.id })).json, last);
});

test('a server dry run with the overrides is accepted by the API server and changes nothing', { timeout: 60_000 }, async () => {
  const podsBefore = kubectl('get', 'pods', '-A', '--field-selector', 'spec.nodeName=node-2', '-o', 'name');
  const started = await call('drains/start', {
    node: 'node-2',
    // A budget that allows nothing would make the API server say "not now" for ever; fail instead of hanging.
    options: { dry_run: 'Server', ignore_daemonsets: true, delete_emptydir_data: true, force: true, timeout_seconds: 30 },
    reason: 'api test',
  });
  const events = await follow(started.json.id);
  const last = events.at(-1);
  assert.equal(last.state, 'DryRunAccepted');
  assert.equal(last.reason, 'api test');
  assert.ok(last.pods.length > 0 && last.pods.every((p) => p.state === 'DryRunAccepted'), JSON.stringify(last.pods));
  assert.ok(events.some((e) => e.state === 'Evicting'), 'progress came in steps');
  assert.equal(kubectl('get', 'pods', '-A', '--field-selector', 'spec.nodeName=node-2', '-o', 'name'), podsBefore);
  assert.ok(!unschedulable('node-2'));
  const all = (await call('drains')).json;
  assert.ok(all.some((d) => d.id === started.json.id));
});

test('unknown drains and nodes are clear errors', async () => {
  assert.deepEqual(await call('drains/status', { id: 'nope' }), { status: 404, json: { NotFound: 'no drain with id nope on this server' } });
  assert.deepEqual(await call('drains/start', { node: 'no-such-node' }),
    { status: 404, json: { Refused: { refusal: { NoSuchNode: { node: 'no-such-node' } }, message: 'node no-such-node does not exist' } } });
  const res = await fetch(`${server.url}/api/drains/nope/events`);
  assert.equal(res.status, 404);
});

test('the drain preview groups the seed node\'s pods as kubectl decides, and changes nothing', { timeout: 60_000 }, async () => {
  const names = (list) => list.map((p) => `${p.namespace}/${p.name}`).sort();
  const onNode = kubectl('get', 'pods', '-A', '--field-selector', 'spec.nodeName=node-2',
    '-o', 'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name}{"\\n"}{end}').split('\n').filter(Boolean).sort();
  const exporter = onNode.find((p) => p.startsWith('monitoring/node-exporter-'));
  // Where the scheduler put the seed's emptyDir Deployment varies from run to run.
  const cache = onNode.filter((p) => p.startsWith('shop/cache-'));

  const plain = await call('drains/preview', { node: 'node-2' });
  assert.equal(plain.status, 200);
  assert.deepEqual(names(plain.json.refused.map((r) => r.pod)), ['default/debug-shell', exporter, ...cache].sort());
  const bare = plain.json.refused.find((r) => r.pod.name === 'debug-shell');
  assert.deepEqual([bare.reason, bare.needs], ['NoController', ['Force']]);
  for (const pod of cache) {
    const refused = plain.json.refused.find((r) => `${r.pod.namespace}/${r.pod.name}` === pod);
    assert.deepEqual([refused.reason, refused.needs], ['LocalStorage', ['DeleteEmptydirData']]);
  }
  const web = plain.json.evict.find((e) => e.pod.name.startsWith('web-'));
  if (web) {
    assert.equal(web.pdb.name, 'web-pdb', 'the seed\'s web pods are covered by web-pdb');
    assert.equal(web.pod.owner.kind, 'ReplicaSet');
  }

  const options = { force: true, ignore_daemonsets: true, delete_emptydir_data: true };
  const all = await call('drains/preview', { node: 'node-2', options });
  assert.deepEqual(all.json.refused, []);
  assert.deepEqual(names(all.json.skipped.map(([p]) => p)), [exporter]);
  assert.deepEqual(names(all.json.evict.map((e) => e.pod)), onNode.filter((p) => p !== exporter));
  assert.equal(all.json.evict.find((e) => e.pod.name === 'debug-shell').notes[0], 'NoController');
  assert.ok(!unschedulable('node-2'), 'a preview changes nothing');

  const bad = await call('drains/preview', { node: 'node-2', options: { pod_selector: 'app in (web' } });
  assert.equal(bad.status, 400);
  assert.match(bad.json.Invalid, /^pod selector: unbalanced parentheses/);
  const missing = await call('drains/preview', { node: 'no-such-node' });
  assert.deepEqual(missing.json, { NotFound: 'node no-such-node does not exist' });
  const stream = await fetch(`${server.url}/api/nodes/no-such-node/preview/events`);
  assert.equal(stream.status, 404);
  await stream.body?.cancel();
});

test('the board snapshot can carry only its first cards, with the counts of them all', { timeout: 60_000 }, async () => {
  const full = await call('board');
  assert.equal(full.status, 200);
  assert.equal(full.json.partial, null, 'the whole board by default');
  const res = await fetch(`${server.url}/api/board`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'first=2',
  });
  assert.equal(res.status, 200);
  const first = await res.json();
  assert.equal(first.upsert.length, 2);
  assert.equal(first.partial.nodes, full.json.upsert.length);
  assert.equal(first.partial.cordoned, full.json.upsert.filter((c) => c.unschedulable).length);
  assert.equal(first.partial.not_ready, full.json.upsert.filter((c) => c.ready !== 'Ready').length);
});

test('a card on the wire is small: its conditions once, structured, and the event stream is gzipped', { timeout: 60_000 }, async () => {
  const res = await fetch(`${server.url}/api/board`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  const text = await res.text();
  const board = JSON.parse(text);
  assert.ok(board.upsert.length >= 4);
  for (const card of board.upsert) {
    assert.equal(card.conditions_json, undefined, 'no second copy of the conditions as JSON text');
    assert.ok(JSON.stringify(card).length <= 2500, `${card.name}: ${JSON.stringify(card).length} bytes`);
  }
  // The event stream, asked for with gzip as browsers do, answers gzipped; its first event is the whole board.
  const controller = new AbortController();
  const stream = await fetch(`${server.url}/api/board/events`, { headers: { 'accept-encoding': 'gzip' }, signal: controller.signal });
  assert.equal(stream.headers.get('content-encoding'), 'gzip');
  const reader = stream.body.getReader();
  let received = '';
  while (!received.includes('\n\n')) {
    const { value, done } = await reader.read();
    if (done) break;
    received += new TextDecoder().decode(value);
  }
  controller.abort();
  const first = JSON.parse(received.split('\n').find((l) => l.startsWith('data:')).slice(5));
  assert.equal(first.full, true);
  assert.equal(first.upsert.length, board.upsert.length);
});
