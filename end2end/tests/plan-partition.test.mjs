// A plan's runner cut off from the API server: it reaches it through a relay that stops passing bytes (holding
// them, as a partition with TCP's retries does, not dropping them) for longer than the plan Lease's life while
// the plan drains. The other server takes the plan over; once the relay passes bytes again, including whatever the
// cut-off server had sent meanwhile, the first writes nothing more of that plan, and never are more of its nodes
// draining than its max_parallel. Everything is read from the cluster itself.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deletePlans, kubectl, metric, requireEnv, startDrainboard, waitFor } from './support.mjs';
import { call, hold, plan, pool as poolOf, record, records } from './plan-support.mjs';

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c(); deletePlans(); });

/** A TCP relay to `host:port` that can stop passing bytes, holding them, and pass them on again. */
async function relay(host, port) {
  const pairs = new Set();
  let held = false;
  const flow = ([a, b], on) => {
    if (on) { a.pipe(b); b.pipe(a); } else { a.unpipe(b); b.unpipe(a); a.pause(); b.pause(); }
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(port, host);
    const pair = [client, upstream];
    pairs.add(pair);
    flow(pair, !held);
    const end = () => { client.destroy(); upstream.destroy(); pairs.delete(pair); };
    for (const s of pair) { s.on('error', end); s.on('close', end); }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    hold() { held = true; for (const p of pairs) flow(p, false); },
    pass() { held = false; for (const p of pairs) flow(p, true); },
    close() { for (const [a, b] of pairs) { a.destroy(); b.destroy(); } server.close(); },
  };
}

/** The plan's Lease holder now, or null. */
function planLeaseHolder(name) {
  const out = kubectl('get', 'lease', '-A', '-o', 'json');
  const lease = JSON.parse(out).items.find((l) => l.metadata.name === `drainboard-plan.${name}`);
  return lease?.spec?.holderIdentity ?? null;
}


test('a runner cut off from the API server past its Lease writes nothing more once the other took over, and the plan never drains more than max_parallel at once', { timeout: 420_000 }, async () => {
  const p = await poolOf(cleanups, 'partition', 3);
  const release = hold(p, 0);
  cleanups.push(() => { try { release(); } catch {} });
  // Server a reaches the API server through the relay; b directly.
  const kubeconfig = readFileSync(requireEnv('KUBECONFIG'), 'utf8');
  const [, apiHost, apiPort] = kubeconfig.match(/server:\s*https:\/\/([^:\s]+):(\d+)/);
  const cut = await relay(apiHost, Number(apiPort));
  cleanups.push(() => cut.close());
  const dir = mkdtempSync(join(tmpdir(), 'drainboard-partition-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const relayed = join(dir, 'kubeconfig');
  writeFileSync(relayed, kubeconfig.replace(/server:\s*https:\/\/[^:\s]+:\d+/, `server: https://${apiHost}:${cut.port}`));
  // a alone first, so that a runs the plan (a local server goes on with any plan its operator's servers made:
  // started together, either could take it); b joins once a runs it.
  const a = await startDrainboard([], { kubeconfig: relayed });
  cleanups.push(() => a.stop());

  const started = await call(a, 'plans/start', { nodes: p.nodes, options: { max_parallel: 1 }, reason: 'partition' });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const id = started.body;
  const first = await waitFor('node 0 draining under a, held by its budget', 60_000, () => {
    const now = plan(id);
    return now.status?.nodes?.[0]?.step === 'Draining' && now.status.runner ? now : null;
  });
  const runnerA = first.status.runner;
  const holderA = planLeaseHolder(id);
  assert.ok(holderA && runnerA.startsWith(holderA), `a runs it: ${runnerA}, Lease ${holderA}`);
  const b = await startDrainboard();
  cleanups.push(() => b.stop());

  // What the cluster shows from here on, every 250 ms: who runs the plan, its Lease, and how many of its nodes
  // drain at once, by its status and by the nodes' own drain records.
  const seen = { runners: [], holders: [], records: [], mostDraining: 0, mostRecordsRunning: 0 };
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      try {
        const now = plan(id);
        const runner = now.status?.runner ?? null;
        if (seen.runners.at(-1)?.[0] !== runner) seen.runners.push([runner, now.status?.phase]);
        const holder = planLeaseHolder(id);
        if (holder && seen.holders.at(-1) !== holder) seen.holders.push(holder);
        const draining = (now.status?.nodes ?? []).filter((n) => n.step === 'Draining').length;
        seen.mostDraining = Math.max(seen.mostDraining, draining);
        // The nodes' records from one list, at one moment: read one by one, a drain ending between two reads and
        // the next one starting would both count as running.
        const all = records(p.nodes);
        const r0 = all[0];
        const said = r0 && `${r0.id.slice(0, 8)} ${typeof r0.state === 'string' ? r0.state : Object.keys(r0.state)[0]}`;
        if (said && seen.records.at(-1) !== said) seen.records.push(said);
        const running = all.filter((r) => r && ['Cordoning', 'Planning', 'Evicting'].includes(
          typeof r.state === 'string' ? r.state : Object.keys(r.state)[0])).length;
        seen.mostRecordsRunning = Math.max(seen.mostRecordsRunning, running);
      } catch { /* a read the API server refused: the next one counts */ }
      await new Promise((r) => setTimeout(r, 250));
    }
  })();

  cleanups.push(async () => { watching = false; await watcher; });
  cut.hold();
  const cutAt = Date.now();
  const takenOver = await waitFor('b to take the plan over', 150_000, () => {
    const now = plan(id);
    return now.status?.runner && now.status.runner !== runnerA ? now : null;
  });
  const tookSeconds = (Date.now() - cutAt) / 1000;
  const runnerB = takenOver.status.runner;
  // The budget goes: b's resumed drain of node 0 ends, and b goes on with the others, while a is still cut off.
  release();
  await waitFor('b to drain node 1', 90_000, () => plan(id).status?.nodes?.[1]?.step !== 'Queued');
  // The bytes a sent meanwhile reach the API server now.
  cut.pass();
  const done = await waitFor('the plan to complete', 180_000, () => {
    const now = plan(id);
    return ['Complete', 'Failed'].includes(now.status?.phase) ? now : null;
  });
  // A few seconds more, for anything a would still write.
  await new Promise((r) => setTimeout(r, 8_000));
  watching = false;
  await watcher;

  assert.equal(done.status.phase, 'Complete', JSON.stringify(done.status.nodes));
  assert.ok(tookSeconds > 30, `b took over only once a's Lease ran out (${tookSeconds} s)`);
  const afterTakeover = seen.runners.slice(seen.runners.findIndex(([r]) => r === runnerB));
  const ended = (phase) => ['Complete', 'Failed', 'Cancelled'].includes(phase);
  assert.ok(afterTakeover.every(([r, phase]) => r === runnerB || (r === null && ended(phase))),
    `after b took over, only b wrote its runner: ${JSON.stringify(seen.runners)}`);
  assert.equal(plan(id).status.runner ?? null, null, 'nobody runs it once it is complete');
  assert.equal(seen.holders[0], holderA);
  assert.ok(seen.holders.length === 2, `its Lease went from a to b, and never back: ${seen.holders}`);
  assert.equal(seen.mostDraining, 1, `at most max_parallel nodes draining by the status (${seen.mostDraining})`);
  assert.ok(seen.mostRecordsRunning <= 1, `at most max_parallel drains running by the nodes' records (${seen.mostRecordsRunning})`);
  assert.ok(await metric(a, 'drainboard_lease_losses_total', { lease: 'plan' }) >= 1, 'a knew it lost the plan');
  assert.ok(await metric(b, 'drainboard_plan_takeovers_total') >= 1, 'b counted its takeover');
  assert.equal(await metric(a, 'drainboard_plan_takeovers_total'), 0, 'a took nothing over');
  for (const node of p.nodes) {
    assert.equal(record(node).state, 'Drained', `${node} drained once, to the end (node 0's records: ${seen.records.join(' → ')})`);
  }
});
