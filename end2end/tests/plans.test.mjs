// Maintenance plans are Kubernetes objects: a plan outlives the server that runs it (another one, or the same one
// restarted, takes it over from its status), `kubectl patch` pauses it, and `kubectl get maintenanceplans` tells
// where it is. Checked against the cluster's own record of each node's drain, not only the plan's report.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { apply, deletePlans, kubectl, launchBrowser, metric, startDrainboard, waitFor } from './support.mjs';
import { TAINT, call, hold, plan, pool as poolOf, reasons, record, step } from './plan-support.mjs';

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c(); deletePlans(); });
const pool = (name, count) => poolOf(cleanups, name, count);

/**
 * Follows `server`'s board stream; `latest()` is the list of plans as its `plans` event (every plan) and the
 * `plans-changed` events after it (what changed) make it (null before the first), and `count()` how many arrived.
 */
function plansStream(server) {
  const controller = new AbortController();
  let latest = null;
  let count = 0;
  let buffer = '';
  const done = fetch(`${server.url}/api/board/events`, { signal: controller.signal }).then(async (res) => {
    const reader = res.body.getReader();
    for (;;) {
      const { value, done: end } = await reader.read();
      if (end) return;
      buffer += new TextDecoder().decode(value);
      let cut;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const event = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const data = () => JSON.parse(event.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5)).join('\n'));
        if (event.startsWith('event: plans\n')) {
          latest = data();
          count += 1;
        } else if (event.startsWith('event: plans-changed\n')) {
          // Only what changed: put into the list as the page does (domain::plan_feed::apply).
          const { changed, removed, order } = data();
          const byId = new Map((latest ?? []).map((p) => [p.id, p]));
          for (const id of removed) byId.delete(id);
          for (const p of changed) byId.set(p.id, p);
          latest = order.map((id) => byId.get(id)).filter(Boolean);
          count += 1;
        }
      }
    }
  }).catch(() => {});
  return { latest: () => latest, count: () => count, close: () => { controller.abort(); return done; } };
}

for (const signal of ['SIGTERM', 'SIGKILL']) {
  test(`a three-node plan whose server gets ${signal} mid-way is finished by the other: none drained twice, none skipped`, { timeout: 300_000 }, async () => {
    const p = await pool(`plan-${signal.toLowerCase()}`, 3);
    const release = hold(p, 1);
    const a = await startDrainboard();
    const b = await startDrainboard();
    cleanups.push(() => a.stop(), () => b.stop());
    const started = await call(a, 'plans/start', { nodes: p.nodes, options: { max_parallel: 1 }, reason: `takeover ${signal}` });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const id = started.body;

    await waitFor('node 0 drained and node 1 held by its budget', 90_000, () =>
      step(id, 0).outcome === 'Drained' && step(id, 1).step === 'Draining');
    const first = record(p.nodes[0]);
    assert.equal(first.state, 'Drained');
    const before = plan(id);
    assert.match(before.status.runner, / as admin$/, 'the runner is named, with whom it acts as');
    // Either server may have taken the plan's Lease first (a local server goes on with its operator's plans):
    // the one its status names is stopped.
    const holder = before.status.runner.replace(/ as admin$/, '');
    const [runner, other] = a.logs().includes(`holder=${holder}`) ? [a, b] : [b, a];
    assert.ok(runner.logs().includes(`holder=${holder}`), `one of the servers is ${holder}`);
    assert.equal(before.status.phase, 'Running');
    assert.equal(before.status.observedGeneration, before.metadata.generation);
    // Every replica shows every plan, from its watch.
    const seen = await waitFor('the other server to list the plan', 10_000, async () =>
      (await call(other, 'plans')).body.find?.((r) => r.id === id));
    assert.equal(seen.nodes[1].step.Draining !== undefined, true, JSON.stringify(seen.nodes[1]));

    await runner.stop(signal);
    release();
    const done = await waitFor('the other server to finish the plan', 200_000, () => {
      const now = plan(id);
      return now.status?.phase === 'Complete' ? now : null;
    });
    assert.deepEqual(done.status.nodes.map((n) => n.outcome), ['Drained', 'Drained', 'Drained']);
    assert.equal(kubectl('get', 'maintenanceplans', id, '-o', 'jsonpath={.status.phase}'), 'Complete');
    assert.equal(record(p.nodes[0]).id, first.id, 'node 0 was not drained again');
    for (const node of p.nodes) {
      assert.equal(record(node).state, 'Drained', node);
      assert.equal(kubectl('get', 'node', node, '-o', 'jsonpath={.spec.unschedulable}').trim(), 'true', `${node} stays cordoned`);
    }
    assert.match(done.status.conditions.find((c) => c.type === 'Complete').status, /True/);
    assert.equal(done.status.runner, undefined, 'no server runs an ended plan');
    assert.ok(reasons(id).includes('TakenOver'), `the plan's Events tell the takeover: ${reasons(id)}`);
    assert.ok(reasons(id).filter((r) => r === 'NodeDrained').length >= 2, `one Event per node: ${reasons(id)}`);
    assert.ok(reasons(id).includes('Complete'), `and its end: ${reasons(id)}`);

    // A server started afterwards lists it, with its history.
    const c = await startDrainboard();
    cleanups.push(() => c.stop());
    const listed = await waitFor('a new server to list the ended plan', 10_000, async () =>
      (await call(c, 'plans')).body.find?.((r) => r.id === id));
    assert.equal(listed.state, 'Finished');
    assert.deepEqual(listed.nodes.map((n) => n.step), p.nodes.map(() => ({ Ended: 'Drained' })));
    assert.equal(listed.started_by, done.metadata.annotations['drainboard.dev/started-by']);
    // Every server of this test stops, so that none takes the next test's plans over.
    await Promise.all([other.stop(), c.stop()]);
  });
}

test('a plan that overrides a window records each node\'s override once, even when another server takes it over before the node could start', { timeout: 300_000 }, async () => {
  const p = await pool('plan-override', 1);
  const [node] = p.nodes;
  const window = `takeover-${p.id}`;
  apply({ apiVersion: 'drainboard.dev/v1alpha1', kind: 'MaintenanceWindow', metadata: { name: window },
    spec: { nodeSelector: `drainboard.dev/pool=${p.id}`, freezes: [{ start: '2000-01-01', end: '2999-12-31', reason: 'takeover freeze' }] } });
  cleanups.push(() => { try { kubectl('delete', 'maintenancewindow', window, '--ignore-not-found'); } catch {} });
  const release = hold(p, 0);
  const a = await startDrainboard();
  const b = await startDrainboard();
  cleanups.push(() => a.stop(), () => b.stop());
  // Each server holds by the window once its watches have it.
  for (const server of [a, b]) {
    await waitFor(`${server.url} knows ${window} covers the node`, 30_000, async () =>
      (await call(server, 'windows')).body.nodes?.find((d) => d.node === node)?.windows?.includes(window));
  }
  // A person's drain, past the window, that the budget keeps running: the plan's drain (other options) must wait.
  const person = await call(a, 'drains/start', { node, options: { timeout_seconds: 900 }, override_window: 'person first', reason: 'person' });
  assert.equal(person.status, 200, JSON.stringify(person.body));
  const started = await call(a, 'plans/start', { nodes: [node], options: { max_parallel: 1 }, override_window: 'kernel CVE, change 5150', reason: 'override takeover' });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const id = started.body;
  /** The overrides of the node recorded as the plan's: the audit Events on the node that name the plan. */
  const planOverrides = () => JSON.parse(kubectl('get', 'events.events.k8s.io', '-n', 'default', '--field-selector', `regarding.name=${node}`, '-o', 'json'))
    .items.filter((e) => e.reason === 'DrainboardWindowOverride' && e.note.includes(`(plan ${id})`));
  const first = await waitFor('the plan\'s override recorded, the node still waiting', 60_000, () => {
    const now = plan(id);
    return now.status?.nodes?.[0]?.overriddenAt && planOverrides().length === 1 ? now : null;
  });
  assert.equal(first.status.nodes[0].step, 'Queued', JSON.stringify(first.status.nodes[0]));
  // What a's /metrics says meanwhile: the person's drain waits on a budget that needs its one pod (never allows
  // an eviction); the freeze holds the node; the overrides are counted, the person's on a and the plan's on its
  // runner.
  await waitFor('a to count the pod its drain waits on', 30_000, async () =>
    (await metric(a, 'drainboard_pods_waiting', { blocker: 'budget-never' })) === 1);
  assert.ok(await metric(a, 'drainboard_window_holds', { hold: 'frozen' }) >= 1, 'the freeze holds the node');
  const overrides = (await metric(a, 'drainboard_window_overrides_total')) + (await metric(b, 'drainboard_window_overrides_total'));
  assert.ok(overrides >= 2, `the person's override and the plan's: ${overrides}`);
  const overriddenAt = first.status.nodes[0].overriddenAt;
  const holder = first.status.runner.replace(/ as admin$/, '');
  const [runner, other] = a.logs().includes(`holder=${holder}`) ? [a, b] : [b, a];
  await runner.stop('SIGKILL');
  await waitFor('the other server to take the plan over', 120_000, () => reasons(id).includes('TakenOver'));
  assert.ok(await metric(other, 'drainboard_plan_takeovers_total') >= 1, 'the takeover counted where it happened');
  // The server that took over must let the node past the window again before it can start it, so a second record,
  // if any, is written before the plan can complete.
  release();
  const done = await waitFor('the plan complete', 180_000, () => {
    const now = plan(id);
    return now.status?.phase === 'Complete' ? now : null;
  });
  assert.equal(done.status.nodes[0].outcome, 'Drained');
  assert.ok(await metric(other, 'drainboard_drain_duration_seconds_count', { outcome: 'Drained' }) >= 1, 'its drain timed');
  const recorded = planOverrides();
  assert.equal(recorded.length, 1, `the plan's override of ${node} recorded once: ${JSON.stringify(recorded.map((e) => e.note))}`);
  assert.equal(done.status.nodes[0].overriddenAt, overriddenAt, 'the status keeps when the override was first used');
  assert.match(recorded[0].note, /kernel CVE, change 5150/);
  await other.stop();
});

test('kubectl patch pauses a plan and resumes it: no node starts while it is paused', { timeout: 180_000 }, async () => {
  const p = await pool('plan-pause', 2);
  const release = hold(p, 0);
  const a = await startDrainboard();
  // A second replica, which does not run the plan: its viewers see it live all the same, from its own watch.
  const b = await startDrainboard();
  cleanups.push(() => a.stop(), () => b.stop());
  const [onA, onB] = [plansStream(a), plansStream(b)];
  cleanups.push(() => onA.close(), () => onB.close());
  const started = await call(a, 'plans/start', { nodes: p.nodes, options: { max_parallel: 1 } });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const id = started.body;
  await waitFor('node 0 draining', 60_000, () => step(id, 0).step === 'Draining');
  const shown = (stream, state) => stream.latest()?.find((r) => r.id === id)?.state === state;
  await waitFor('both streams to show the plan running', 10_000, () => shown(onA, 'Running') && shown(onB, 'Running'));

  const asked = Date.now();
  kubectl('patch', 'maintenanceplan', id, '--type', 'merge', '-p', '{"spec":{"paused":true}}');
  await waitFor('the plan to read paused', 10_000, () => plan(id).status?.phase === 'Paused');
  console.log(`paused ${Date.now() - asked} ms after the patch`);
  await waitFor('both streams to show it paused', 2_000, () => shown(onA, 'Paused') && shown(onB, 'Paused'));
  console.log(`shown paused on both replicas' streams ${Date.now() - asked} ms after the patch`);
  // Pushed on change, not polled: a quiet plan sends nothing more.
  const quiet = onB.count();
  await new Promise((r) => setTimeout(r, 3_000));
  assert.ok(onB.count() - quiet <= 1, `${onB.count() - quiet} plans events while nothing changed`);
  const paused = plan(id);
  assert.equal(paused.status.conditions.find((c) => c.type === 'Paused').status, 'True');
  assert.equal(paused.status.observedGeneration, paused.metadata.generation);
  const page = (await call(a, 'plans/status', { id })).body;
  assert.equal(page.state, 'Paused', 'the page reads the spec kubectl changed');

  release();
  await waitFor('node 0 drained', 60_000, () => step(id, 0).outcome === 'Drained');
  await new Promise((r) => setTimeout(r, 3_000));
  assert.equal(step(id, 1).step, 'Queued', 'paused: node 1 does not start');
  assert.equal(kubectl('get', 'node', p.nodes[1], '-o', 'jsonpath={.spec.unschedulable}').trim(), '', 'nor is it cordoned');

  kubectl('patch', 'maintenanceplan', id, '--type', 'merge', '-p', '{"spec":{"paused":false}}');
  await waitFor('the plan to complete', 60_000, () => plan(id).status?.phase === 'Complete');
  assert.equal(record(p.nodes[1]).state, 'Drained');
  await a.stop();
});

test('deleting a plan cancels its running drain, and the plan goes', { timeout: 120_000 }, async () => {
  const p = await pool('plan-delete', 2);
  hold(p, 0);
  const a = await startDrainboard();
  cleanups.push(() => a.stop());
  const started = await call(a, 'plans/start', { nodes: p.nodes, options: { max_parallel: 1 } });
  const id = started.body;
  await waitFor('node 0 draining', 60_000, () => step(id, 0).step === 'Draining');
  kubectl('delete', 'maintenanceplan', id, '--wait=false');
  await waitFor('the plan to go', 30_000, () => {
    try { kubectl('get', 'maintenanceplan', id); return false; } catch { return true; }
  });
  await waitFor('node 0\'s drain cancelled', 15_000, () => record(p.nodes[0])?.state === 'Cancelled');
  assert.equal(record(p.nodes[1]), null, 'node 1 never started');
});

test('undo uncordons exactly the nodes the plan cordoned and still holds, and lists the rest with why', { timeout: 180_000 }, async () => {
  const p = await pool('plan-undo', 3);
  kubectl('cordon', p.nodes[2]);
  const release = hold(p, 0);
  const a = await startDrainboard();
  cleanups.push(() => a.stop());
  const started = await call(a, 'plans/start', { nodes: p.nodes, options: { max_parallel: 3, drain: { ignore_daemonsets: true } } });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const id = started.body;
  await waitFor('node 0 draining', 60_000, () => step(id, 0).step === 'Draining');
  assert.deepEqual(plan(id).status.nodes.map((n) => n.cordonedBefore), [false, false, true]);

  // Bad input and other sites: refused, nothing changes.
  const running = await call(a, 'plans/undo', { id });
  assert.equal(running.status, 400, JSON.stringify(running.body));
  assert.match(running.body.Invalid, /still runs: stop it first/);
  for (const path of ['plans/undo', 'plans/continue']) {
    assert.equal((await call(a, path, { id: 'no-such-plan' })).status, 404, path);
    assert.equal((await call(a, path, { id: 'Not A Name!' })).status, 404, path);
    assert.equal((await call(a, path, { nope: 1 })).status, 400, path);
    const foreign = await fetch(`${a.url}/api/${path}`, { method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      body: JSON.stringify({ id }) });
    assert.equal(foreign.status, 403, path);
  }

  release();
  await waitFor('the plan to complete', 60_000, () => plan(id).status?.phase === 'Complete');
  // Node 1 is uncordoned and cordoned again by a person: that cordon is theirs, not the plan's.
  kubectl('uncordon', p.nodes[1]);
  await new Promise((r) => setTimeout(r, 1_100));
  const cordoned = await call(a, 'nodes/cordon', { node: p.nodes[1], reason: 'disk check' });
  assert.equal(cordoned.status, 200, JSON.stringify(cordoned.body));
  await waitFor('the board to see the new cordon', 10_000, async () => {
    const board = await fetch(`${a.url}/api/board`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' }).then((r) => r.json());
    return board.upsert?.find((c) => c.name === p.nodes[1])?.cordon_record?.reason === 'disk check';
  });

  // In the browser: Undo says first which nodes it would uncordon, as the nodes stand now; once used, it is off,
  // and each node's line says what was done and why not.
  const unschedulable = (n) => kubectl('get', 'node', n, '-o', 'jsonpath={.spec.unschedulable}').trim();
  const browser = await launchBrowser();
  try {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${a.url}/`);
    // Ended plans are folded away under the running ones.
    await page.locator('[data-testid="rollouts-ended"] > summary').click();
    const panel = page.locator(`[data-testid="rollout"][data-id="${id}"]`);
    const preview = panel.locator('[data-testid="plan-undo-preview"]');
    await preview.waitFor({ timeout: 30_000 });
    await waitFor('the preview to name the one node', 10_000, async () => (await preview.getAttribute('data-nodes')) === '1');
    assert.equal(await preview.textContent(), `Undo would uncordon ${p.nodes[0]}, as the nodes stand now.`);
    assert.equal(unschedulable(p.nodes[0]), 'true', 'nothing is touched by the preview');
    const button = panel.locator('[data-testid="plan-undo"]');
    await button.click();
    const lines = panel.locator('[data-testid="plan-undo-result"] [data-testid="plan-undo-node"]');
    await lines.first().waitFor({ timeout: 15_000 });
    const uncordoned = await panel.locator('[data-testid="plan-undo-node"][data-uncordoned="true"]').evaluateAll((l) => l.map((e) => e.dataset.node));
    assert.deepEqual(uncordoned, [p.nodes[0]]);
    assert.equal(await lines.count(), 3);
    assert.ok(await button.isDisabled(), 'Undo is off once used');
    await waitFor('the preview to name no node now', 10_000, async () => (await preview.getAttribute('data-nodes')) === '0');
  } finally {
    await browser.close();
  }
  // The cluster agrees, and asking again through the API finds nothing more of the plan's to undo.
  const again = await call(a, 'plans/undo', { id });
  assert.equal(again.status, 200, JSON.stringify(again.body));
  const by = Object.fromEntries(again.body.map((n) => [n.node, n.step]));
  assert.deepEqual(by[p.nodes[0]], { Leave: 'NotCordoned' });
  assert.deepEqual(by[p.nodes[1]], { Leave: { CordonedSince: { by: 'admin' } } });
  assert.deepEqual(by[p.nodes[2]], { Leave: 'CordonedBefore' });
  assert.equal(unschedulable(p.nodes[0]), '', 'the plan\'s cordon is undone');
  assert.equal(unschedulable(p.nodes[1]), 'true', 'a later cordon stays');
  assert.equal(unschedulable(p.nodes[2]), 'true', 'a cordon from before the plan stays');
  assert.ok(reasons(id).includes('Undone'), `the plan's Events say so: ${reasons(id)}`);
  await a.stop();
});

test('verification: a node that never comes back, and one back on an unexpected kubelet, stay cordoned naming the check; one that checks out is uncordoned', { timeout: 180_000 }, async () => {
  const p = await pool('plan-verify', 3);
  const nodeInfo = (node, info) => kubectl('patch', 'node', node, '--subresource=status', '--type=merge',
    '-p', JSON.stringify({ status: { nodeInfo: info } }));
  for (const node of p.nodes) nodeInfo(node, { bootID: `${node}-boot-1` });
  const a = await startDrainboard();
  cleanups.push(() => a.stop());
  const verify = { deadline_seconds: 20, kubelet_version: 'v1.36', continue_on_failure: true };
  // Verification without uncordoning once back is refused: it checks a node that is back.
  const refused = await call(a, 'plans/start', { nodes: p.nodes, options: { max_parallel: 3, verify } });
  assert.equal(refused.status, 400, JSON.stringify(refused.body));
  assert.match(refused.body.Invalid, /needs uncordon_when_back/);
  const bad = await call(a, 'plans/start', { nodes: p.nodes, options: { max_parallel: 3, uncordon_when_back: true, verify: { ...verify, deadline_seconds: 0 } } });
  assert.equal(bad.status, 400, JSON.stringify(bad.body));

  const started = await call(a, 'plans/start', { nodes: p.nodes, options: { max_parallel: 3, uncordon_when_back: true, verify } });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const id = started.body;
  assert.equal(plan(id).spec.verify.kubeletVersion, 'v1.36', 'the plan carries what it verifies');
  await waitFor('every node drained and awaited back', 60_000, () =>
    plan(id).status?.nodes?.every((n) => n.back === 'Waiting'));
  // A person's word that node 0 is back is not taken for its checks: it still runs the old kubelet.
  const word = await call(a, 'plans/back', { id, node: p.nodes[0] });
  assert.equal(word.status, 409, JSON.stringify(word.body));
  assert.match(JSON.stringify(word.body), new RegExp(`${p.nodes[0]} does not check out yet, so it stays cordoned: .*${p.nodes[0]} came back on kubelet \\S+, expected v1\\.36`));
  assert.equal(kubectl('get', 'node', p.nodes[0], '-o', 'jsonpath={.spec.unschedulable}').trim(), 'true');
  // Node 1 reboots on the kubelet it had; node 2 reboots on the expected one; node 0 never comes back.
  nodeInfo(p.nodes[1], { bootID: `${p.nodes[1]}-boot-2` });
  nodeInfo(p.nodes[2], { bootID: `${p.nodes[2]}-boot-2`, kubeletVersion: 'v1.36.3' });
  const done = await waitFor('the plan to end', 90_000, () => {
    const now = plan(id);
    return ['Complete', 'Failed'].includes(now.status?.phase) ? now : null;
  });
  const [never, wrong, good] = done.status.nodes;
  assert.equal(done.status.phase, 'Failed', 'two nodes did not check out');
  assert.equal(never.back, 'Unverified');
  assert.match(never.backDetail, /did not come back within 20 s/);
  assert.equal(wrong.back, 'Unverified');
  assert.match(wrong.backDetail, new RegExp(`${p.nodes[1]} came back on kubelet \\S+, expected v1\\.36`));
  assert.equal(good.back, 'Uncordoned', JSON.stringify(good));
  const unschedulable = (n) => kubectl('get', 'node', n, '-o', 'jsonpath={.spec.unschedulable}').trim();
  assert.equal(unschedulable(p.nodes[0]), 'true', 'unverified nodes stay cordoned');
  assert.equal(unschedulable(p.nodes[1]), 'true');
  assert.equal(unschedulable(p.nodes[2]), '', 'the node that checks out is uncordoned');
  const failed = done.status.conditions.find((c) => c.type === 'Failed');
  assert.equal(failed.status, 'True');
  assert.match(failed.message, new RegExp(p.nodes[1]));
  // The failed checks are data in the status (failedChecks, an object, not JSON in a string), so a Japanese page
  // words them in Japanese.
  assert.deepEqual(never.failedChecks, [{ NotBack: { node: p.nodes[0], seconds: 20 } }]);
  assert.equal(never.backChecks, undefined, 'no JSON inside a string is written');
  const browser = await launchBrowser();
  try {
    const page = await (await browser.newContext({ locale: 'ja-JP' })).newPage();
    await page.goto(`${a.url}/`);
    const row = page.locator(`[data-testid="rollout"][data-id="${id}"] [data-testid="rollout-node"][data-node="${p.nodes[1]}"]`);
    // An ended plan's table is folded away; its text is there all the same.
    await row.waitFor({ state: 'attached', timeout: 30_000 });
    const text = await row.textContent();
    assert.match(text, new RegExp(`戻りましたが検証に失敗したため cordon のままです: ${p.nodes[1]}はkubelet \\S+で復帰しました\\(期待値 v1\\.36\\)`), text);
    assert.doesNotMatch(text, /came back|expected/, text);
    const never0 = await page.locator(`[data-testid="rollout"][data-id="${id}"] [data-testid="rollout-node"][data-node="${p.nodes[0]}"]`).textContent();
    assert.match(never0, /20秒以内に復帰しませんでした/, never0);
  } finally {
    await browser.close();
  }
  await a.stop();
});

test('a plan made with kubectl apply and a node selector waits for someone to continue it, then drains the nodes the selector named', { timeout: 120_000 }, async () => {
  const p = await pool('plan-kubectl', 2);
  const a = await startDrainboard();
  cleanups.push(() => a.stop());
  const name = `kubectl-${p.id}`;
  // The reason goes onto the nodes and into the history: the resource holds it to the page's bound.
  assert.throws(() => apply({ apiVersion: 'drainboard.dev/v1alpha1', kind: 'MaintenancePlan', metadata: { name: `${name}-long` },
    spec: { nodes: p.nodes, reason: 'x'.repeat(501) } }), /spec.reason/);
  apply({ apiVersion: 'drainboard.dev/v1alpha1', kind: 'MaintenancePlan', metadata: { name },
    spec: { nodeSelector: `drainboard.dev/pool=${p.id}`, maxParallel: 2, reason: 'made with kubectl' } });
  // Nobody handed a server credentials for it: it waits, and says why.
  const blocked = await waitFor('the plan to wait for a maintainer', 40_000, () => {
    const now = plan(name);
    return now.status?.phase === 'Blocked' ? now : null;
  });
  assert.match(blocked.status.conditions.find((c) => c.type === 'Blocked').message, /needs a maintainer to continue/);
  assert.equal(blocked.status.blocked, 'NeedsMaintainer', 'the status keeps why as data, beside the words');
  assert.equal(record(p.nodes[0]), null, 'nothing drained meanwhile');
  const listed = (await call(a, 'plans/status', { id: name })).body;
  assert.equal(listed.started_by, '(made with kubectl)');
  assert.equal(listed.blocked, 'NeedsMaintainer');

  const continued = await call(a, 'plans/continue', { id: name });
  assert.equal(continued.status, 200, JSON.stringify(continued.body));
  const done = await waitFor('the plan to complete', 60_000, () => {
    const now = plan(name);
    return now.status?.phase === 'Complete' ? now : null;
  });
  assert.deepEqual(done.status.nodes.map((n) => n.name).sort(), [...p.nodes].sort(), 'the selector, resolved once, in the status');
  assert.ok(done.status.nodes.every((n) => n.cordonedBefore === false), 'each node looked at when the plan started');
  assert.equal(done.status.continuedBy, 'admin');
  for (const node of p.nodes) assert.equal(record(node).state, 'Drained', node);
  await a.stop();
});

test('verification: a workload kept from becoming Ready and its budget fail the recovery checks, naming both; the node, which checked out, is uncordoned and the plan stops', { timeout: 180_000 }, async () => {
  const p = await pool('plan-recover', 2);
  for (const node of p.nodes) {
    kubectl('patch', 'node', node, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { nodeInfo: { bootID: `${node}-boot-1` } } }));
  }
  // A Deployment on node 0 whose pods will fit no node once its drain has evicted them (it is changed while the
  // node is away, and replaces its pods all at once). Its budget allows one disruption while its pod is healthy.
  apply({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'stuck' },
    spec: { replicas: 1, strategy: { type: 'Recreate' }, selector: { matchLabels: { app: 'stuck' } }, template: { metadata: { labels: { app: 'stuck' } }, spec: {
      nodeSelector: { 'kubernetes.io/hostname': p.nodes[0] },
      tolerations: [{ key: TAINT, operator: 'Exists', effect: 'NoSchedule' }],
      containers: [{ name: 'c', image: 'nginx:1.27' }],
    } } } }, p.id);
  await waitFor('the stuck pod running', 60_000, () =>
    kubectl('get', 'deployment', 'stuck', '-n', p.id, '-o', 'jsonpath={.status.readyReplicas}') === '1');
  apply({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'stuck' },
    spec: { minAvailable: 0, selector: { matchLabels: { app: 'stuck' } } } }, p.id);
  await waitFor('the budget to allow one disruption', 30_000, () =>
    kubectl('get', 'pdb', 'stuck', '-n', p.id, '-o', 'jsonpath={.status.disruptionsAllowed}') === '1');

  const a = await startDrainboard();
  cleanups.push(() => a.stop());
  const verify = { deadline_seconds: 25 };
  const started = await call(a, 'plans/start', { nodes: p.nodes, options: { max_parallel: 1, uncordon_when_back: true, verify } });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const id = started.body;
  await waitFor('node 0 drained and awaited back', 60_000, () => step(id, 0).back === 'Waiting');
  const touched = step(id, 0).touched;
  assert.deepEqual(touched.budgets, [{ namespace: p.id, name: 'stuck', allowedBefore: 1 }], 'the budget, as it was');
  assert.ok(touched.workloads.some((w) => w.kind === 'ReplicaSet' && w.namespace === p.id && w.name.startsWith('stuck-')), JSON.stringify(touched));
  kubectl('patch', 'deployment', 'stuck', '-n', p.id, '--type=merge', '-p',
    JSON.stringify({ spec: { template: { spec: { nodeSelector: { 'drainboard.dev/nowhere': 'true' } } } } }));
  // It reboots: it checks out, so it is uncordoned, and then waits for what its drain touched.
  kubectl('patch', 'node', p.nodes[0], '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { nodeInfo: { bootID: `${p.nodes[0]}-boot-2` } } }));
  await waitFor('node 0 recovering', 30_000, () => step(id, 0).back === 'Recovering');
  assert.equal(record(p.nodes[1]), null, 'the next node waits while node 0 recovers');
  const done = await waitFor('the plan to end', 60_000, () => {
    const now = plan(id);
    return ['Complete', 'Failed'].includes(now.status?.phase) ? now : null;
  });
  const [first, second] = done.status.nodes;
  assert.equal(done.status.phase, 'Failed');
  assert.equal(first.back, 'Unrecovered', JSON.stringify(first));
  assert.match(first.backDetail, new RegExp(`Deployment ${p.id}/stuck has 0 of 1 replicas ready \\(its pods were evicted from ${p.nodes[0]}\\)`));
  assert.match(first.backDetail, new RegExp(`PodDisruptionBudget ${p.id}/stuck allows 0 disruptions \\(0 pods healthy, 0 needed\\), 1 before ${p.nodes[0]}'s drain`));
  assert.doesNotMatch(first.backDetail, /app-0/, 'the workload that came back is not named');
  assert.equal(kubectl('get', 'node', p.nodes[0], '-o', 'jsonpath={.spec.unschedulable}').trim(), '', 'it checked out: uncordoned');
  assert.equal(second.step, 'NotStarted', 'the plan stopped');
  assert.equal(record(p.nodes[1]), null);
  assert.ok(reasons(id).includes('NodeBack'));
  await a.stop();
});

test('a settle time holds the next node after one is done', { timeout: 120_000 }, async () => {
  const p = await pool('plan-settle', 2);
  const a = await startDrainboard();
  cleanups.push(() => a.stop());
  const bad = await call(a, 'plans/start', { nodes: p.nodes, options: { max_parallel: 1, settle_seconds: 3601 } });
  assert.equal(bad.status, 400, JSON.stringify(bad.body));
  assert.match(bad.body.Invalid, /settle time between nodes is 0 to 3600 seconds/);
  const started = await call(a, 'plans/start', { nodes: p.nodes, options: { max_parallel: 1, settle_seconds: 8 } });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const id = started.body;
  const done = await waitFor('the plan to complete', 60_000, () => {
    const now = plan(id);
    return now.status?.phase === 'Complete' ? now : null;
  });
  assert.equal(done.spec.settleSeconds, 8);
  const doneAt = Date.parse(done.status.nodes[0].doneAt);
  const next = record(p.nodes[1]);
  const nextStarted = Date.parse(next.started_at ?? next.startedAt);
  assert.ok(nextStarted - doneAt >= 7_000, `node 1 started ${nextStarted - doneAt} ms after node 0 was done`);
  await a.stop();
});
