// A plan acts only on what its person asked: the spec as a person with the rights started or last continued it
// (its pin, sealed by the servers), and the drain records its own runner wrote. Each test is a way someone with a
// small right (create plans, patch nodes, patch plans, patch their status) tried to make a plan act, with another
// person's credentials, on what they wrote; each checks what the cluster itself shows happened.
import { test, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { apply, deletePlans, kubectl, launchBrowser, requireEnv, startDrainboard, userKubeconfig, waitFor } from './support.mjs';
import { call, hold, plan, pool as poolOf, reasons, record, step } from './plan-support.mjs';

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c(); deletePlans(); });
const pool = (name, count) => poolOf(cleanups, name, count);
/** The servers the running test started: each test stops its own at its end, so that none takes the next one's plans. */
let servers = [];
const server = async (args) => { const s = await startDrainboard(args); servers.push(s); return s; };
afterEach(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  servers = [];
  // No plan outlives its test: a later test's local server would go on with it (the operator's servers made it).
  deletePlans();
});

const READ_PLANS = { apiGroups: ['drainboard.dev'], resources: ['maintenanceplans'], verbs: ['get', 'list'] };
/** Someone who may only create plans; someone who may only patch nodes; only patch plans; and their status too. */
const creator = () => userKubeconfig('trust-creator', [{ ...READ_PLANS, verbs: ['get', 'list', 'create'] }]);
const nodePatcher = () => userKubeconfig('trust-node-patcher', [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'patch'] }]);
const planPatcher = () => userKubeconfig('trust-plan-patcher', [{ ...READ_PLANS, verbs: ['get', 'list', 'patch'] }]);
const statusPatcher = () => userKubeconfig('trust-status-patcher', [
  { ...READ_PLANS, verbs: ['get', 'list', 'patch'] },
  { apiGroups: ['drainboard.dev'], resources: ['maintenanceplans/status'], verbs: ['get', 'patch'] },
]);

/** kubectl as the user of `kubeconfig`, with `input` on its standard input. */
function as(kubeconfig, args, input) {
  const bin = join(requireEnv('DRAINBOARD_CLUSTER_BIN'), 'kubectl');
  return execFileSync(bin, ['--kubeconfig', kubeconfig, ...args], { encoding: 'utf8', input });
}

const blocked = (p) => p.status?.conditions?.find((c) => c.type === 'Blocked' && c.status === 'True');
const cordoned = (node) => kubectl('get', 'node', node, '-o', 'jsonpath={.spec.unschedulable}').trim() === 'true';
/** The pods of namespace `ns` that still exist. */
const pods = (ns) => kubectl('get', 'pods', '-n', ns, '-o', 'name').split('\n').filter(Boolean);

/** Waits until `name` is Blocked with `reason`; fails naming where it stood. */
async function blockedWith(name, reason, timeoutMs) {
  try {
    return await waitFor(`plan ${name} Blocked (${reason})`, timeoutMs, () => {
      const now = plan(name);
      return blocked(now)?.reason === reason ? now : null;
    });
  } catch (err) {
    const now = plan(name);
    throw new Error(`${err.message}; it is ${now.status?.phase} with ${JSON.stringify(blocked(now) ?? null)}`);
  }
}

/** The server of `among` that runs plan `name` now (its status names its holder), and the others. */
function runnerOf(name, among) {
  const holder = plan(name).status.runner.replace(/ as admin$/, '');
  const runner = among.find((s) => s.logs().includes(`holder=${holder}`));
  assert.ok(runner, `one of the servers is ${holder}`);
  return [runner, among.filter((s) => s !== runner)];
}

test('a plan that merely names the operator is not run by their local server: it waits until they continue it', { timeout: 180_000 }, async () => {
  const p = await pool('trust-local', 1);
  const [node] = p.nodes;
  const a = await server();
  const name = `forged-${p.id}`;
  // Written by someone who may create plans and nothing else, naming the operator's kubeconfig user ("admin").
  as(creator(), ['create', '-f', '-'], JSON.stringify({
    apiVersion: 'drainboard.dev/v1alpha1', kind: 'MaintenancePlan',
    metadata: { name, annotations: { 'drainboard.dev/started-by': 'admin' } },
    spec: { nodes: [node], drain: { ignoreDaemonsets: true, force: true } },
  }));
  const waiting = await blockedWith(name, 'NeedsMaintainer', 60_000);
  assert.equal(waiting.status.runner, undefined, 'no server runs it');
  assert.equal(cordoned(node), false, `${node} was not cordoned`);
  assert.equal(record(node), null, `${node} has no drain record`);
  assert.equal(waiting.status.pinned, undefined, 'nothing is pinned');
  assert.equal(waiting.status.observedGeneration, undefined, 'no generation is taken as acted on');

  // The operator continues it, seeing it: then it is theirs, pinned at the generation they confirmed.
  const generation = waiting.metadata.generation;
  const stale = await call(a, 'plans/continue', { id: name, generation: generation + 1 });
  assert.equal(stale.status, 409, JSON.stringify(stale.body));
  assert.equal(stale.body.Conflict.conflict.SpecUnconfirmed.generation, generation);
  const continued = await call(a, 'plans/continue', { id: name, generation });
  assert.equal(continued.status, 200, JSON.stringify(continued.body));
  const done = await waitFor('the plan complete', 90_000, () => {
    const now = plan(name);
    return now.status?.phase === 'Complete' ? now : null;
  });
  assert.equal(done.status.pinned.by, 'admin');
  assert.equal(done.status.pinned.generation, generation);
  assert.equal(done.status.observedGeneration, generation);
  assert.equal(record(node).state, 'Drained');
});

test('a takeover resumes only the plan\'s own drain with its own options: a rewritten record blocks it, and nothing is deleted', { timeout: 240_000 }, async () => {
  const p = await pool('trust-record', 1);
  const [node] = p.nodes;
  const release = hold(p, 0);
  cleanups.push(() => { try { release(); } catch {} });
  const a = await server();
  const b = await server();
  const started = await call(a, 'plans/start', { nodes: [node], options: { max_parallel: 1 }, reason: 'trust record' });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const id = started.body;
  await waitFor('the node draining, held by its budget', 60_000, () =>
    step(id, 0).step === 'Draining' && record(node)?.id === step(id, 0).drainId);
  const [runner, [other]] = runnerOf(id, [a, b]);
  // Someone who may only patch nodes rewrites the plan's drain record: no eviction, and force.
  const forged = record(node);
  forged.options = { ...forged.options, disable_eviction: true, force: true };
  as(nodePatcher(), ['annotate', 'node', node, '--overwrite', `drainboard.dev/drain=${JSON.stringify(forged)}`]);
  await runner.stop('SIGKILL');

  const stopped = await blockedWith(id, 'RecordMismatch', 150_000);
  assert.match(blocked(stopped).message, new RegExp(`${node}'s drain record`));
  assert.ok(reasons(id).includes('TakenOver'), `the other server took it over: ${reasons(id)}`);
  assert.equal(stopped.status.runner, undefined, 'and stopped running it');
  assert.equal(pods(p.id).length, 1, 'the budget\'s pod was not deleted');
  assert.equal(JSON.parse(kubectl('get', 'pdb', 'hold-0', '-n', p.id, '-o', 'json')).status.currentHealthy, 1);
  // The page shows why.
  const listed = (await call(other, 'plans')).body.find((r) => r.id === id);
  assert.ok(listed.blocked?.RecordMismatch, `blocked for the record, as data: ${JSON.stringify(listed.blocked)}`);
  // The plans' former address still answers, as an alias marked deprecated.
  const former = await call(other, 'rollouts');
  assert.equal(former.status, 200);
  assert.equal(former.headers.get('deprecation'), 'true');
  assert.equal(former.headers.get('link'), '</api/plans>; rel="successor-version"');
  assert.deepEqual(former.body.find((r) => r.id === id)?.blocked, listed.blocked);
});

test('a spec edited by someone who may only patch plans blocks the plan, across a restart, until a person continues it confirming that generation', { timeout: 300_000 }, async () => {
  const p = await pool('trust-spec', 2);
  const release = hold(p, 0);
  cleanups.push(() => { try { release(); } catch {} });
  let a = await server();
  const started = await call(a, 'plans/start', { nodes: p.nodes, options: { max_parallel: 1 }, reason: 'trust spec' });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const id = started.body;
  const running = await waitFor('node 0 draining', 60_000, () => {
    const now = plan(id);
    return now.status?.nodes?.[0]?.step === 'Draining' ? now : null;
  });
  const pinnedAt = running.status.pinned.generation;
  assert.equal(running.status.observedGeneration, pinnedAt);
  assert.equal(running.status.pinned.by, 'admin');

  as(planPatcher(), ['patch', 'maintenanceplan', id, '--type', 'merge', '-p', JSON.stringify({ spec: { drain: { disableEviction: true } } })]);
  const stopped = await blockedWith(id, 'SpecChanged', 30_000);
  const generation = stopped.metadata.generation;
  assert.ok(generation > pinnedAt);
  assert.equal(stopped.status.observedGeneration, pinnedAt, 'the edit is not taken as acted on');
  assert.match(blocked(stopped).message, /spec\.drain\.disableEviction: false → true/);
  const shown = (await call(a, 'plans')).body.find((r) => r.id === id);
  assert.deepEqual(shown.spec_changed.changes.map((c) => [c.field, c.pinned, c.now]), [[{ Drain: 'DisableEviction' }, 'false', 'true']]);
  assert.equal(shown.spec_changed.generation, generation);

  // A restart does not pick it up by itself.
  await a.stop();
  a = await server();
  await waitFor('the new server to list the plan', 20_000, async () => (await call(a, 'plans')).body.find?.((r) => r.id === id));
  await new Promise((r) => setTimeout(r, 12_000));
  assert.equal(blocked(plan(id))?.reason, 'SpecChanged', 'still waiting for a person');
  assert.equal(cordoned(p.nodes[1]), false, `${p.nodes[1]} not started`);
  assert.equal(record(p.nodes[1]), null);

  const unconfirmed = await call(a, 'plans/continue', { id });
  assert.equal(unconfirmed.status, 409, JSON.stringify(unconfirmed.body));
  assert.equal(unconfirmed.body.Conflict.conflict.SpecUnconfirmed.changes[0].now, 'true');
  const stale = await call(a, 'plans/continue', { id, generation: pinnedAt });
  assert.equal(stale.status, 409, JSON.stringify(stale.body));
  assert.equal(blocked(plan(id))?.reason, 'SpecChanged', 'a refused continue changes nothing');

  // The page shows each change and confirms the generation it shows.
  const browser = await launchBrowser();
  try {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${a.url}/`);
    const panel = page.locator(`[data-testid="rollout"][data-id="${id}"]`);
    const change = panel.locator('[data-testid="plan-spec-change"][data-field="spec.drain.disableEviction"]');
    await change.waitFor({ timeout: 30_000 });
    assert.match(await change.textContent(), /spec\.drain\.disableEviction: false → true/);
    assert.equal(await panel.locator('[data-testid="plan-spec-changed"]').getAttribute('data-generation'), String(generation));
    const button = panel.locator('[data-testid="plan-continue"]');
    assert.match(await button.textContent(), new RegExp(`generation ${generation}`));
    await button.click();
    await waitFor('the page\'s continue to pin the generation it showed', 30_000, () => plan(id).status?.pinned?.generation === generation);
  } finally {
    await browser.close();
  }
  const done = await waitFor('the plan complete, as confirmed', 120_000, () => {
    const now = plan(id);
    return now.status?.phase === 'Complete' ? now : null;
  });
  assert.equal(done.status.pinned.generation, generation);
  assert.equal(done.status.observedGeneration, generation);
  assert.equal(done.status.pinned.spec.drain.disableEviction, true);
  assert.deepEqual(p.nodes.map((n) => record(n).state), ['Drained', 'Drained']);
});

test('a window override written by someone who may only patch plans is not honoured: the plan blocks, and the frozen node is untouched', { timeout: 180_000 }, async () => {
  const p = await pool('trust-override', 1);
  const [node] = p.nodes;
  const window = `trust-${p.id}`;
  apply({ apiVersion: 'drainboard.dev/v1alpha1', kind: 'MaintenanceWindow', metadata: { name: window },
    spec: { nodeSelector: `drainboard.dev/pool=${p.id}`, freezes: [{ start: '2000-01-01', end: '2999-12-31', reason: 'trust freeze' }] } });
  cleanups.push(() => { try { kubectl('delete', 'maintenancewindow', window, '--ignore-not-found'); } catch {} });
  const a = await server();
  await waitFor(`the server knows ${window} covers the node`, 30_000, async () =>
    (await call(a, 'windows')).body.nodes?.find((d) => d.node === node)?.windows?.includes(window));
  const started = await call(a, 'plans/start', { nodes: [node], options: { max_parallel: 1 }, wait_for_window: true, reason: 'trust override' });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const id = started.body;
  await blockedWith(id, 'MaintenanceWindow', 30_000);

  as(planPatcher(), ['patch', 'maintenanceplan', id, '--type', 'merge', '-p', JSON.stringify({ spec: { windowOverride: 'sneaked in' } })]);
  const stopped = await blockedWith(id, 'SpecChanged', 30_000);
  assert.match(blocked(stopped).message, /spec\.windowOverride: none → sneaked in/);
  await new Promise((r) => setTimeout(r, 5_000));
  assert.equal(cordoned(node), false, 'the frozen node was not cordoned');
  assert.equal(record(node), null);
  const overrides = JSON.parse(kubectl('get', 'events.events.k8s.io', '-n', 'default', '--field-selector', `regarding.name=${node}`, '-o', 'json'))
    .items.filter((e) => e.reason === 'DrainboardWindowOverride');
  assert.deepEqual(overrides, [], 'no override recorded');
});

test('a pin forged in the status before a takeover does not check out: the plan blocks, and its drain is not resumed with the forged options', { timeout: 240_000 }, async () => {
  const p = await pool('trust-pin', 1);
  const [node] = p.nodes;
  const release = hold(p, 0);
  cleanups.push(() => { try { release(); } catch {} });
  const a = await server();
  const b = await server();
  const started = await call(a, 'plans/start', { nodes: [node], options: { max_parallel: 1 }, reason: 'trust pin' });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const id = started.body;
  await waitFor('the node draining, held by its budget', 60_000, () => step(id, 0).step === 'Draining' && plan(id).status.pinned);
  const [runner] = runnerOf(id, [a, b]);
  await runner.stop('SIGKILL');
  // Someone who may patch plans and their status writes a spec and a pin that agree.
  const forger = statusPatcher();
  as(forger, ['patch', 'maintenanceplan', id, '--type', 'merge', '-p', JSON.stringify({ spec: { drain: { disableEviction: true } } })]);
  as(forger, ['patch', 'maintenanceplan', id, '--subresource=status', '--type', 'merge', '-p',
    JSON.stringify({ status: { pinned: { spec: { drain: { disableEviction: true } } } } })]);
  const stopped = await blockedWith(id, 'PinForged', 150_000);
  assert.equal(stopped.status.runner, undefined);
  assert.equal(pods(p.id).length, 1, 'the budget\'s pod was not deleted');
});

test('a resume is admitted by the windows as a start is: a plan taken over into a freeze waits, and drains/resume is refused, until the freeze ends', { timeout: 300_000 }, async () => {
  const p = await pool('trust-freeze', 2);
  const [planned, single] = p.nodes;
  const releases = [hold(p, 0), hold(p, 1)];
  cleanups.push(() => { for (const r of releases) { try { r(); } catch {} } });
  const pair = [await server(), await server()];
  const started = await call(pair[0], 'plans/start', { nodes: [planned], options: { max_parallel: 1 }, reason: 'trust freeze' });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const id = started.body;
  const person = await call(pair[0], 'drains/start', { node: single, options: { timeout_seconds: 900 }, reason: 'trust freeze single' });
  assert.equal(person.status, 200, JSON.stringify(person.body));
  await waitFor('both drains held by their budgets', 60_000, () =>
    step(id, 0).step === 'Draining' && record(planned)?.id === step(id, 0).drainId && record(single)?.id === person.body.id);
  // Both servers stop: each drain records itself interrupted, and the plan is left for whoever takes it over.
  await Promise.all(pair.map((s) => s.stop()));
  const interrupted = record(planned);
  assert.equal(interrupted.state, 'Interrupted');
  const window = `trust-freeze-${p.id}`;
  apply({ apiVersion: 'drainboard.dev/v1alpha1', kind: 'MaintenanceWindow', metadata: { name: window },
    spec: { nodeSelector: `drainboard.dev/pool=${p.id}`, freezes: [{ start: '2000-01-01', end: '2999-12-31', reason: 'trust freeze' }] } });
  const removeWindow = () => { try { kubectl('delete', 'maintenancewindow', window, '--ignore-not-found'); } catch {} };
  cleanups.push(removeWindow);

  const c = await server();
  await waitFor(`the server knows ${window} covers the nodes`, 30_000, async () =>
    (await call(c, 'windows')).body.nodes?.filter((d) => d.windows?.includes(window)).length === 2);
  const waiting = await blockedWith(id, 'MaintenanceWindow', 90_000);
  assert.match(blocked(waiting).message, new RegExp(`${planned}: .*trust freeze`));
  assert.equal(record(planned).id, interrupted.id, 'the plan\'s drain was not resumed into the freeze');
  const refused = await call(c, 'drains/resume', { node: single, confirm: single });
  assert.equal(refused.status, 403, JSON.stringify(refused.body));
  assert.ok(refused.body.Refused, JSON.stringify(refused.body));
  assert.equal(record(single).id, person.body.id, 'the person\'s drain was not resumed into the freeze');

  removeWindow();
  await waitFor('the plan\'s drain resumed once the freeze is gone', 60_000, () => record(planned)?.id !== interrupted.id);
  const resumed = await waitFor('drains/resume to go through', 30_000, async () => {
    const answer = await call(c, 'drains/resume', { node: single, confirm: single });
    return answer.status === 200 ? answer : null;
  });
  for (const release of releases) release();
  releases.length = 0;
  await waitFor('the plan complete', 90_000, () => plan(id).status?.phase === 'Complete');
  await waitFor('the person\'s resumed drain done', 60_000, () => record(single)?.id === resumed.body.id && record(single).state === 'Drained');
});

test('a server runs at most --max-plans plans at once: the next waits Blocked (TooMany) with the numbers, and goes on once one ends', { timeout: 180_000 }, async () => {
  const p = await pool('trust-caps', 2);
  const release = hold(p, 0);
  cleanups.push(() => { try { release(); } catch {} });
  const a = await server(['--max-plans', '1']);
  const first = await call(a, 'plans/start', { nodes: [p.nodes[0]], options: { max_parallel: 1 }, reason: 'caps first' });
  assert.equal(first.status, 200, JSON.stringify(first.body));
  await waitFor('the first plan draining', 60_000, () => step(first.body, 0).step === 'Draining');
  const second = await call(a, 'plans/start', { nodes: [p.nodes[1]], options: { max_parallel: 1 }, reason: 'caps second' });
  assert.equal(second.status, 200, JSON.stringify(second.body));
  const waiting = await blockedWith(second.body, 'TooMany', 60_000);
  assert.match(blocked(waiting).message, /this server runs 1, the most it runs at once \(1\)/);
  assert.equal(record(p.nodes[1]), null, 'the second plan started nothing');
  release();
  await waitFor('both plans complete, the second once the first ended', 120_000, () =>
    plan(first.body).status?.phase === 'Complete' && plan(second.body).status?.phase === 'Complete');
});
