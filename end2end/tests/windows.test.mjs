// Maintenance windows (`MaintenanceWindow` objects) hold people and plans alike, against the real control plane:
// a freeze refuses a person's cordon and drain with its reason, an override needs the permission and a reason and
// is recorded in three places, a plan made outside its window waits Blocked with when it opens and starts once it
// does, a pod gate pauses a running plan within seconds, and a budget keeps two plans and a person to its count.
// The calendar itself (zones, midnight, monthly forms, daylight saving) is the domain's unit tests' job.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apply, deletePlans, inlineKubeconfig, kubectl, kwokNodes, launchBrowser, MAINTAIN, metric, openBoard, requireEnv, startDrainboard, waitFor, webhookReceiver } from './support.mjs';

const TAINT = 'drainboard.dev/test';
const cleanups = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
  deletePlans();
  try { kubectl('delete', 'maintenancewindows', '--all', '--wait=false'); } catch {}
});

const log = join(requireEnv('DRAINBOARD_CLUSTER_DIR'), `windows-audit-${process.pid}.jsonl`);
/** Stops (SIGKILL, as a crash) or starts again the cluster's Alertmanager: `action` is `stop` or `start`. */
const alertmanager = (action) => execFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'cluster', 'cluster.sh'),
  [`${action}-alertmanager`, requireEnv('DRAINBOARD_CLUSTER_DIR')], { stdio: 'ignore' });

/** A local receiver of webhooks: `/ok-ce` and `/ok-slack` take every post, `/fail` answers 500 to each. */
const receiver = webhookReceiver({ failing: ['/fail'] });
const { received } = receiver;

let server;
async function ensureServer() {
  if (!server) {
    const base = await receiver.start();
    cleanups.push(receiver.close);
    const hooks = join(requireEnv('DRAINBOARD_CLUSTER_DIR'), `webhooks-${process.pid}.json`);
    writeFileSync(hooks, JSON.stringify([{ kind: 'cloudevents', url: `${base}/ok-ce` }, { kind: 'slack', url: `${base}/ok-slack` },
      { kind: 'cloudevents', url: `${base}/fail` }]), { mode: 0o600 });
    // Every server of a cluster may run any plan, so each asks the same Alertmanager.
    server = await startDrainboard(['--audit-log', log, '--alertmanager-url', requireEnv('ALERTMANAGER_URL'),
      '--webhooks-file', hooks, '--notify-blocked-after', '2']);
    cleanups.push(() => server.stop());
  }
  return server;
}

async function call(path, body, { url, headers = {} } = {}) {
  const res = await fetch(`${url ?? (await ensureServer()).url}/api/${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body),
  });
  const text = await res.text();
  let json;
  try { json = JSON.parse(text); } catch { json = text; }
  return { status: res.status, body: json };
}

/**
 * As `waitFor`, for a step of plan `id`: a timeout says where the plan stood and what the file's server logged about
 * it, since a plan is run by whichever server took it and nothing else would tell.
 */
async function waitForPlan(what, timeoutMs, id, check) {
  try {
    return await waitFor(what, timeoutMs, check);
  } catch (err) {
    const lines = (server?.logs() ?? '').split('\n').filter((l) => l.includes(id)).slice(-30).join('\n');
    throw new Error(`${err.message}; the plan's status: ${JSON.stringify(plan(id).status)}; the server's log of it:\n${lines}`, { cause: err });
  }
}

const unschedulable = (node) => kubectl('get', 'node', node, '-o', 'jsonpath={.spec.unschedulable}').trim() === 'true';
const plan = (name) => JSON.parse(kubectl('get', 'maintenanceplan', name, '-o', 'json'));
const record = (node) => JSON.parse(kubectl('get', 'node', node, '-o', 'jsonpath={.metadata.annotations.drainboard\\.dev/drain}') || 'null');
const pad = (n) => String(n).padStart(2, '0');

/** `count` fresh kwok nodes of a pool, each running one pod of its own Deployment. */
async function pool(prefix, count) {
  const id = `${prefix}-${Math.random().toString(36).slice(2, 6)}`;
  const nodes = Array.from({ length: count }, (_, i) => `${id}-${i}`);
  cleanups.push(kwokNodes(id, nodes));
  kubectl('wait', '--for=condition=Ready', ...nodes.map((n) => `node/${n}`), '--timeout=60s');
  kubectl('create', 'namespace', id);
  await waitFor(`the default service account of ${id}`, 30_000, () => {
    try { kubectl('get', 'serviceaccount', 'default', '-n', id); return true; } catch { return false; }
  });
  for (const [i, node] of nodes.entries()) {
    apply({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: `app-${i}` },
      spec: { replicas: 1, selector: { matchLabels: { app: `app-${i}` } }, template: { metadata: { labels: { app: `app-${i}` } }, spec: {
        nodeSelector: { 'kubernetes.io/hostname': node },
        tolerations: [{ key: TAINT, operator: 'Exists', effect: 'NoSchedule' }],
        containers: [{ name: 'c', image: 'nginx:1.27' }],
      } } } }, id);
  }
  await waitFor('a running pod on every node', 60_000, () => {
    const out = kubectl('get', 'pods', '-n', id, '--field-selector', 'status.phase=Running', '-o', 'jsonpath={range .items[*]}{.spec.nodeName}{"\\n"}{end}');
    return nodes.every((n) => out.split('\n').includes(n));
  });
  return { id, nodes, selector: `drainboard.dev/pool=${id}` };
}

/** Makes window `name` with `spec`, and waits until a server has read it as valid (its status says so). */
async function windowOf(name, spec) {
  apply({ apiVersion: 'drainboard.dev/v1alpha1', kind: 'MaintenanceWindow', metadata: { name }, spec });
  cleanups.push(() => { try { kubectl('delete', 'maintenancewindow', name, '--ignore-not-found'); } catch {} });
  await ensureServer();
  await waitFor(`window ${name} read as valid`, 30_000, () =>
    kubectl('get', 'maintenancewindow', name, '-o', 'jsonpath={.status.conditions[?(@.type=="Valid")].status}').trim() === 'True');
}

const entries = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);

test('a freeze refuses a cordon and a drain with its reason; an override with a reason goes on, recorded in the audit log, the history and an Event', { timeout: 120_000 }, async () => {
  const p = await pool('wf', 1);
  const [node] = p.nodes;
  const name = `freeze-${p.id}`;
  const hour = 3_600_000;
  await windowOf(name, { nodeSelector: p.selector, freezes: [
    { start: new Date(Date.now() - hour).toISOString(), end: new Date(Date.now() + hour).toISOString(), reason: 'year-end freeze' }] });

  // What the page reads: this node is held by the freeze; a node the window does not cover is not.
  const now = await call('windows', {});
  assert.equal(now.status, 200, JSON.stringify(now.body));
  assert.equal(now.body.keeps_windows, true);
  const mine = now.body.nodes.find((d) => d.node === node);
  assert.equal(mine.decided_by, name);
  assert.deepEqual(mine.windows, [name]);
  assert.equal(mine.holds[0].hold.Frozen.reason, 'year-end freeze');
  assert.deepEqual(now.body.nodes.find((d) => d.node === 'node-1').holds, [], 'another pool is not covered');

  // The board says so for the cluster, with the window, and on the node's card.
  const browser = await launchBrowser();
  cleanups.push(() => browser.close());
  const { page, errors } = await openBoard(browser, (await ensureServer()).url);
  await page.locator('[data-testid="node-filter"]').fill(node);
  const shown = page.locator('[data-testid="windows-now"][data-state="held"]');
  await shown.waitFor({ timeout: 15_000 });
  assert.match(await shown.locator(`[data-testid="window-hold"][data-window="${name}"]`).textContent(), /frozen \(year-end freeze\) until .* UTC, in/);
  const card = page.locator(`[data-testid="node-row"][data-node="${node}"]`);
  assert.match(await card.locator('[data-testid="card-window-hold"]').textContent(), new RegExp(`Held by ${name}: frozen`));
  assert.deepEqual(errors, []);
  await browser.close();

  for (const [path, body] of [['nodes/cordon', { node }], ['drains/start', { node }]]) {
    const refused = await call(path, body);
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.match(JSON.stringify(refused.body), new RegExp(`frozen \\(year-end freeze\\) until .* \\(window ${name}\\)`));
  }
  assert.ok(!unschedulable(node), 'a refused cordon changes nothing');
  // A plan too, unless made to wait for its window.
  const plan403 = await call('plans/start', { nodes: [node], options: { max_parallel: 1 } });
  assert.equal(plan403.status, 403, JSON.stringify(plan403.body));
  assert.match(JSON.stringify(plan403.body), /frozen \(year-end freeze\)/);
  // A dry run changes nothing, so no window holds it.
  assert.equal((await call('drains/start', { node, options: { dry_run: 'Client' } })).status, 200);
  // Bad input and other origins are refused before anything is decided.
  assert.equal((await call('nodes/cordon', { node, override_window: 'x'.repeat(600) })).status, 400);
  const foreign = await call('nodes/cordon', { node, override_window: 'ok' }, { headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } });
  assert.equal(foreign.status, 403);
  assert.ok(!unschedulable(node));

  const over = await call('nodes/cordon', { node, override_window: 'disk failing; approved by the on-call lead' });
  assert.equal(over.status, 200, JSON.stringify(over.body));
  assert.ok(unschedulable(node));
  // Recorded three times over: the audit log, the node's history and an Event on the node.
  const line = await waitFor('the override in the audit log', 15_000, () =>
    entries().find((e) => e.node === node && e.action === 'WindowOverridden'));
  assert.equal(line.reason, 'disk failing; approved by the on-call lead');
  assert.match(line.outcome, /frozen \(year-end freeze\)/);
  const history = await call('nodes/history', { node });
  assert.ok(history.body.some((e) => e.action === 'WindowOverridden' && e.reason === line.reason), JSON.stringify(history.body));
  const events = JSON.parse(kubectl('get', 'events.events.k8s.io', '-n', 'default', '--field-selector', `regarding.name=${node}`, '-o', 'json')).items;
  assert.ok(events.some((e) => e.reason === 'DrainboardWindowOverride' && e.note.includes('approved by the on-call lead')), JSON.stringify(events.map((e) => e.reason)));
  kubectl('uncordon', node);
});

test('the dialogs: a held node\'s cordon says what holds it and waits for a reason to override; a plan may wait for its windows, shown in the reader\'s language, or override them node by node; the wall\'s map marks held nodes', { timeout: 240_000 }, async () => {
  const p = await pool('wd', 3);
  const name = `dlg-${p.id}`;
  await windowOf(name, { nodeSelector: p.selector, freezes: [{ start: '2000-01-01', end: '2999-12-31', reason: 'quarter close' }] });
  const { url } = await ensureServer();
  const browser = await launchBrowser();
  try {
    const { page, errors } = await openBoard(browser, url);
    await page.locator('[data-testid="node-filter"]').fill(p.id);
    await page.locator(`[data-testid="node-row"][data-node="${p.nodes[0]}"] [data-testid="card-window-hold"]`).waitFor({ timeout: 15_000 });

    // The cordon dialog says what holds the node, and Cordon waits for a reason to override.
    await page.locator(`[data-testid="node-row"][data-node="${p.nodes[0]}"] [data-testid="action-cordon"]`).click();
    const cordon = page.locator('[data-testid="cordon-dialog"]');
    const line = cordon.locator(`[data-testid="dialog-window-node"][data-node="${p.nodes[0]}"]`);
    assert.match(await line.textContent(), new RegExp(`${p.nodes[0]}: held by ${name}, frozen \\(quarter close\\) until`));
    assert.equal(await cordon.locator('[data-testid="dialog-confirm"]').isDisabled(), true, 'no way past the window chosen yet');
    await cordon.locator('[data-testid="window-hold-hint"]').waitFor();
    await cordon.locator('[data-testid="window-override-reason"]').fill('failed disk, ticket 77');
    await cordon.locator('[data-testid="dialog-confirm"]').click();
    await cordon.waitFor({ state: 'detached', timeout: 15_000 });
    assert.ok(unschedulable(p.nodes[0]), 'cordoned past the window, with a reason');
    const overrode = await waitFor('the dialog\'s override in the audit log', 15_000, () =>
      entries().find((e) => e.node === p.nodes[0] && e.action === 'WindowOverridden'));
    assert.equal(overrode.reason, 'failed disk, ticket 77');

    // A plan of the other two: made to wait for its windows, it shows what holds its next node.
    for (const n of p.nodes.slice(1)) await page.locator(`[data-testid="node-row"][data-node="${n}"] [data-testid="card-select"]`).check();
    await page.locator('[data-testid="open-rollout"]').click();
    const dialog = page.locator('[data-testid="rollout-dialog"]');
    await dialog.locator('[data-testid="dialog-window-hold"]').waitFor({ timeout: 15_000 });
    assert.equal(await dialog.locator('[data-testid="dialog-window-node"]').count(), 2);
    assert.equal(await dialog.locator('[data-testid="confirm-rollout"]').isDisabled(), true);
    await dialog.locator('[data-testid="window-wait"]').check();
    await waitFor('Start enabled once waiting is chosen', 15_000, async () => !(await dialog.locator('[data-testid="confirm-rollout"]').isDisabled()));
    await dialog.locator('[data-testid="confirm-rollout"]').click();
    await dialog.waitFor({ state: 'detached', timeout: 15_000 });
    const held = page.locator('[data-testid="rollout"] [data-testid="plan-held"]').first();
    await held.waitFor({ timeout: 20_000 });
    assert.match(await held.textContent(), new RegExp(`waits for window ${name}: frozen \\(quarter close\\)`));
    const waiting = page.locator('[data-testid="rollout"]').first();
    const waitingId = await waiting.getAttribute('data-id');
    assert.ok(p.nodes.slice(1).every((n) => !unschedulable(n)), 'a plan that waits starts nothing');

    // The same plan in Japanese: the hold is the catalogue's, not the server's English.
    const ja = await browser.newContext({ locale: 'ja-JP' });
    const jaPage = await ja.newPage();
    await jaPage.goto(url + '/');
    const jaHeld = jaPage.locator(`[data-testid="rollout"][data-id="${waitingId}"] [data-testid="plan-held"]`);
    await jaHeld.waitFor({ timeout: 30_000 });
    const jaText = await jaHeld.textContent();
    assert.match(jaText, new RegExp(`ウィンドウ ${name}を待っています`));
    assert.doesNotMatch(jaText.replaceAll(name, '').replaceAll(p.id, ''), /frozen|until|window|waits/, jaText);
    await ja.close();
    assert.equal((await call('plans/cancel', { id: waitingId })).status, 200);
    await waitFor('the waiting plan cancelled', 30_000, () => plan(waitingId).status?.phase === 'Cancelled');

    // The wall's map marks each held node, naming the window.
    const wall = await browser.newContext();
    const wallPage = await wall.newPage();
    await wallPage.goto(`${url}/wall`);
    const cell = wallPage.locator(`[data-testid="map-cell"][data-node="${p.nodes[1]}"]`);
    await waitFor('the held cell marked', 20_000, async () => (await cell.getAttribute('data-held')) === name);
    assert.match(await cell.getAttribute('aria-label'), new RegExp(`Held by ${name}: frozen \\(quarter close\\)`));
    await wall.close();

    // Overridden instead: each node starts past the window, and each override is recorded as it is used.
    // The selection went to the first plan as it started.
    for (const n of p.nodes.slice(1)) await page.locator(`[data-testid="node-row"][data-node="${n}"] [data-testid="card-select"]`).check();
    await page.locator('[data-testid="open-rollout"]').click();
    await dialog.locator('[data-testid="dialog-window-hold"]').waitFor({ timeout: 15_000 });
    await dialog.locator('[data-testid="window-override-reason"]').fill('security patch, change 981');
    await waitFor('Start enabled once a reason is typed', 15_000, async () => !(await dialog.locator('[data-testid="confirm-rollout"]').isDisabled()));
    await dialog.locator('[data-testid="confirm-rollout"]').click();
    await dialog.waitFor({ state: 'detached', timeout: 15_000 });
    const overriding = JSON.parse(kubectl('get', 'maintenanceplans', '-o', 'json')).items
      .find((i) => i.spec.windowOverride && i.spec.nodes.includes(p.nodes[1]));
    assert.equal(overriding.spec.windowOverride, 'security patch, change 981');
    const id = overriding.metadata.name;
    await waitFor('the overriding plan complete', 90_000, () => plan(id).status?.phase === 'Complete');
    for (const n of p.nodes.slice(1)) {
      assert.equal(record(n).state, 'Drained', n);
      const recorded = entries().filter((x) => x.node === n && x.action === 'WindowOverridden');
      assert.equal(recorded.length, 1, `the override of ${n} recorded once: ${JSON.stringify(recorded)}`);
      const [e] = recorded;
      assert.equal(e.reason, `security patch, change 981 (plan ${id})`);
      kubectl('uncordon', n);
    }
    kubectl('uncordon', p.nodes[0]);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('a plan\'s override needs the right to override, held or not, and excludes waiting; one written with kubectl by someone who may not override gains nothing', { timeout: 120_000 }, async () => {
  const p = await pool('wp', 1);
  const [node] = p.nodes;
  const team = await startDrainboard(['--team', '--insecure-http', '--alertmanager-url', requireEnv('ALERTMANAGER_URL')]);
  cleanups.push(() => team.stop());
  const name = `planclosed-${p.id}`;
  await windowOf(name, { nodeSelector: p.selector, freezes: [{ start: '2000-01-01', end: '2999-12-31', reason: 'plan freeze' }] });
  const res = await fetch(`${team.url}/api/session/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ kubeconfig: inlineKubeconfig(`wp-dan-${p.id}`, [...MAINTAIN,
      { apiGroups: ['drainboard.dev'], resources: ['maintenanceplans'], verbs: ['create', 'get', 'list', 'watch', 'patch', 'update'] },
      { apiGroups: ['drainboard.dev'], resources: ['maintenanceplans/status'], verbs: ['get', 'patch', 'update'] }]) }) });
  assert.equal(res.status, 200, await res.text());
  const dan = { url: team.url, headers: { cookie: res.headers.get('set-cookie').split(';')[0] } };
  const options = { max_parallel: 1 };
  const refused = await call('plans/start', { nodes: [node], options, override_window: 'because' }, dan);
  assert.equal(refused.status, 403, JSON.stringify(refused.body));
  assert.match(refused.body.Refused.message, /may not override a maintenance window: lacks update maintenancewindows\/override/);
  assert.deepEqual(Object.keys(refused.body.Refused.refusal), ['MayNotOverride'], 'the reason crosses as data');
  const plain = await call('plans/start', { nodes: [node], options }, dan);
  assert.equal(plain.status, 403, JSON.stringify(plain.body));
  assert.equal(plain.body.Refused.refusal.Held.window, name);
  assert.equal(plain.body.Refused.refusal.Held.hold.Frozen.reason, 'plan freeze');
  const both = await call('plans/start', { nodes: [node], options, override_window: 'x', wait_for_window: true });
  assert.equal(both.status, 400, JSON.stringify(both.body));
  assert.equal((await call('plans/start', { nodes: [node], options, override_window: 'x'.repeat(600) })).status, 400);
  const foreign = await call('plans/start', { nodes: [node], options, override_window: 'ok' },
    { headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } });
  assert.equal(foreign.status, 403);
  // A plan that waits, with an override written into it afterwards: its runner may not override, so it still waits.
  const waits = await call('plans/start', { nodes: [node], options, wait_for_window: true }, dan);
  assert.equal(waits.status, 200, JSON.stringify(waits.body));
  kubectl('patch', 'maintenanceplan', waits.body, '--type=merge', '-p', JSON.stringify({ spec: { windowOverride: 'sneaked in' } }));
  await waitFor('the plan Blocked by the window', 20_000, () => plan(waits.body).status?.phase === 'Blocked');
  await new Promise((r) => setTimeout(r, 3_000));
  assert.equal(plan(waits.body).status.phase, 'Blocked', 'still held');
  assert.ok(!unschedulable(node), 'nothing started past the window');
  assert.ok(!entries().some((e) => e.node === node && e.action === 'WindowOverridden'));
  kubectl('patch', 'maintenanceplan', waits.body, '--type=merge', '-p', '{"spec":{"cancelled":true}}');
  await waitFor('the plan cancelled', 30_000, () => plan(waits.body).status?.phase === 'Cancelled');
  await team.stop();
});

test('a plan\'s estimate is set against the first of its windows to close: the API gives the close, the dialog says whether the plan fits', { timeout: 120_000 }, async () => {
  const p = await pool('wx', 2);
  // Open now, closing at the first whole minute at least three minutes away (UTC).
  const closes = Math.ceil((Date.now() + 180_000) / 60_000) * 60_000;
  const hhmm = (t) => { const d = new Date(t); return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`; };
  const day = (t) => ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][new Date(t).getUTCDay()];
  const name = `fit-${p.id}`;
  const started = Date.now() - 120_000;
  await windowOf(name, { nodeSelector: p.selector, schedules: [{ days: [day(started)], start: hhmm(started), end: hhmm(closes) }] });
  // One pod takes up to ten minutes to stop: the high estimate cannot fit.
  kubectl('patch', 'deployment', 'app-1', '-n', p.id, '--type=merge', '-p', JSON.stringify({ spec: { template: { spec: { terminationGracePeriodSeconds: 600 } } } }));
  kubectl('rollout', 'status', 'deployment/app-1', '-n', p.id, '--timeout=60s');
  const options = { max_parallel: 1 };
  const asked = await call('plans/estimate', { nodes: p.nodes, options });
  assert.equal(asked.status, 200, JSON.stringify(asked.body));
  const { total, window } = asked.body.Ok;
  assert.equal(window.window, name);
  assert.equal(Date.parse(window.closes), closes, `${window.closes}`);
  assert.equal(window.local, `${day(closes)} ${hhmm(closes)}`);
  assert.equal(window.zone, 'UTC');
  assert.ok(total.high_seconds >= 600, JSON.stringify(total));
  const left = (closes - Date.parse(window.at)) / 1000;
  const verdict = total.high_seconds <= left ? 'fits' : total.likely_seconds <= left ? 'high-over' : 'likely-over';
  assert.notEqual(verdict, 'fits');

  const browser = await launchBrowser();
  try {
    const { page, errors } = await openBoard(browser, (await ensureServer()).url);
    await page.locator('[data-testid="node-filter"]').fill(p.id);
    for (const n of p.nodes) await page.locator(`[data-testid="node-row"][data-node="${n}"] [data-testid="card-select"]`).check();
    await page.locator('[data-testid="open-rollout"]').click();
    const line = page.locator('[data-testid="rollout-dialog"] [data-testid="plan-window-fit"]');
    await line.waitFor({ timeout: 15_000 });
    assert.equal(await line.getAttribute('data-window'), name);
    const shown = await page.locator('[data-testid="rollout-dialog"] [data-testid="plan-estimate"]');
    const [likely, high] = [Number(await shown.getAttribute('data-likely')), Number(await shown.getAttribute('data-high'))];
    const leftNow = (closes - Date.now()) / 1000;
    const expected = high <= leftNow ? 'fits' : likely <= leftNow ? 'high-over' : 'likely-over';
    assert.equal(await line.getAttribute('data-fit'), expected);
    assert.match(await line.textContent(), new RegExp(`^Window ${name} closes ${day(closes)} ${hhmm(closes)} UTC, in .*: .*Nodes not started by then wait for its next opening\\.$`));
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('a plan made outside its window waits Blocked with when it opens, in the window\'s own zone and day, and starts once it opens', { timeout: 240_000 }, async () => {
  const p = await pool('wo', 2);
  // Opens at the first whole minute at least 25 s away, in Kiritimati (UTC+14, on another day than UTC for ten
  // hours of each day), and lasts half an hour.
  const opens = Math.ceil((Date.now() + 25_000) / 60_000) * 60_000;
  const local = new Date(opens + 14 * 3_600_000);
  const hhmm = (d) => `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][local.getUTCDay()];
  const name = `opens-${p.id}`;
  await windowOf(name, { nodeSelector: p.selector, timeZone: 'Pacific/Kiritimati',
    schedules: [{ days: [day], start: hhmm(local), end: hhmm(new Date(local.getTime() + 1_800_000)) }] });

  const options = { max_parallel: 2 };
  const refused = await call('plans/start', { nodes: p.nodes, options });
  assert.equal(refused.status, 403, JSON.stringify(refused.body));
  assert.match(JSON.stringify(refused.body), new RegExp(`outside window; opens ${day} ${hhmm(local)} Pacific/Kiritimati, in`));
  const started = await call('plans/start', { nodes: p.nodes, options, wait_for_window: true });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const id = started.body;
  const held = await waitFor('the plan Blocked by the window', 20_000, () => (plan(id).status?.phase === 'Blocked' ? plan(id) : null));
  const blocked = held.status.conditions.find((c) => c.type === 'Blocked');
  assert.equal(blocked.reason, 'MaintenanceWindow');
  assert.match(blocked.message, new RegExp(`outside window; opens ${day} ${hhmm(local)} Pacific/Kiritimati, in (\\d+ s|1 min)`));
  assert.ok(p.nodes.every((n) => !unschedulable(n)), 'nothing starts before the window opens');

  const done = await waitFor('the plan to complete once open', 150_000, () => (plan(id).status?.phase === 'Complete' ? plan(id) : null));
  assert.equal(done.status.conditions.find((c) => c.type === 'Blocked').status, 'False');
  for (const node of p.nodes) {
    const r = record(node);
    assert.equal(r.state, 'Drained');
    assert.ok(Date.parse(r.startedAt) >= opens - 1000, `${node} started at ${r.startedAt}, before the window opened at ${new Date(opens).toISOString()}`);
  }
});

test('a pod gate pauses a running plan\'s next node within seconds, and lets it go on once the pod is gone', { timeout: 180_000 }, async () => {
  const p = await pool('wg', 3);
  const name = `gate-${p.id}`;
  await windowOf(name, { nodeSelector: p.selector, gates: { pods: [{ selector: 'app=backup', namespace: p.id, anywhere: true }] } });
  const started = await call('plans/start', { nodes: p.nodes, options: { max_parallel: 1, settle_seconds: 8 } });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const id = started.body;
  await waitFor('the first node drained', 60_000, () => record(p.nodes[0])?.state === 'Drained');
  // A backup starts while the plan settles: the next node waits for it.
  apply({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'backup', labels: { app: 'backup' } }, spec: {
    nodeName: p.nodes[2], tolerations: [{ key: TAINT, operator: 'Exists', effect: 'NoSchedule' }], containers: [{ name: 'c', image: 'busybox' }] } }, p.id);
  const shown = Date.now();
  const held = await waitFor('the plan Blocked by the backup', 30_000, () => (plan(id).status?.phase === 'Blocked' ? plan(id) : null));
  assert.match(held.status.conditions.find((c) => c.type === 'Blocked').message, new RegExp(`pod ${p.id}/backup runs on ${p.nodes[2]} \\(window ${name}\\)`));
  assert.equal(record(p.nodes[1]), null, 'the next node did not start');
  await new Promise((r) => setTimeout(r, 5000));
  assert.equal(record(p.nodes[1]), null, 'nor a moment later');
  kubectl('delete', 'pod', 'backup', '-n', p.id, '--wait=true');
  const done = await waitFor('the plan to complete', 120_000, () => (plan(id).status?.phase === 'Complete' ? plan(id) : null));
  assert.ok(Date.parse(record(p.nodes[1]).startedAt) > shown, 'the second node started after the gate opened');
  assert.equal(done.status.done, 3);
});

test('a budget of one: two plans and a person together never have more than one of the window\'s nodes in maintenance', { timeout: 240_000 }, async () => {
  const p = await pool('wb', 4);
  const name = `budget-${p.id}`;
  await windowOf(name, { nodeSelector: p.selector, maxInMaintenance: '1' });
  let most = 0;
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      const out = kubectl('get', 'nodes', '-l', p.selector, '-o', 'jsonpath={range .items[*]}{.spec.unschedulable}{"\\n"}{end}');
      most = Math.max(most, out.split('\n').filter((v) => v === 'true').length);
      await new Promise((r) => setTimeout(r, 150));
    }
  })();
  try {
    const a = await call('plans/start', { nodes: p.nodes.slice(0, 2), options: { max_parallel: 2 }, wait_for_window: true });
    const b = await call('plans/start', { nodes: [p.nodes[2]], options: { max_parallel: 1 }, wait_for_window: true });
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal(b.status, 200, JSON.stringify(b.body));
    const uncordoned = new Set();
    for (let round = 0; round < 3; round++) {
      const node = await waitFor(`one more node drained (round ${round + 1})`, 60_000, () =>
        p.nodes.slice(0, 3).find((n) => !uncordoned.has(n) && record(n)?.state === 'Drained' && unschedulable(n)));
      if (round === 0) {
        // A person's cordon of the fourth node meets the same budget.
        const refused = await call('nodes/cordon', { node: p.nodes[3] });
        assert.equal(refused.status, 403, JSON.stringify(refused.body));
        assert.match(JSON.stringify(refused.body), new RegExp(`1 of its nodes are in maintenance, and it allows 1 at once \\(window ${name}\\)`));
        const phases = [plan(a.body).status?.phase, plan(b.body).status?.phase];
        assert.ok(phases.includes('Blocked'), `one plan waits for the budget: ${phases}`);
      }
      // Done with it: uncordoned, it leaves maintenance, and the next node may start.
      uncordoned.add(node);
      assert.equal((await call('nodes/uncordon', { node })).status, 200);
    }
    await waitFor('both plans complete', 60_000, () => plan(a.body).status?.phase === 'Complete' && plan(b.body).status?.phase === 'Complete');
  } finally {
    watching = false;
    await watcher;
  }
  assert.equal(most, 1, 'never more than one of its nodes in maintenance at once');
});

test('replicas share a budget: two servers asked to cordon two of a window\'s nodes in the same instant let exactly one go, round after round', { timeout: 180_000 }, async () => {
  const p = await pool('wr', 2);
  const name = `replicas-${p.id}`;
  await windowOf(name, { nodeSelector: p.selector, maxInMaintenance: '1' });
  const a = await ensureServer();
  // A second replica, with the same flags: it may take any plan over.
  const b = await startDrainboard(['--audit-log', log, '--alertmanager-url', requireEnv('ALERTMANAGER_URL')]);
  try {
    // Each server learns of the window, and of the pool's labels, through its own watches, a moment after the API
    // server has them: a server that does not know yet that a window covers a node has nothing to hold it with.
    for (const server of [a, b]) {
      await waitFor(`${server.url} knows ${name} covers the pool`, 30_000, async () => {
        const now = await call('windows', {}, { url: server.url });
        return p.nodes.every((n) => now.body.nodes?.find((d) => d.node === n)?.windows?.includes(name));
      });
    }
    for (let round = 0; round < 3; round++) {
      const [x, y] = await Promise.all([
        call('nodes/cordon', { node: p.nodes[0] }, { url: a.url }),
        call('nodes/cordon', { node: p.nodes[1] }, { url: b.url }),
      ]);
      const statuses = [x.status, y.status].sort();
      assert.deepEqual(statuses, [200, 403], `round ${round + 1}: ${JSON.stringify([x.body, y.body])}`);
      const refused = x.status === 403 ? x : y;
      assert.equal(refused.body.Refused.refusal.Held.hold.Budget.max, 1, JSON.stringify(refused.body));
      const cordoned = p.nodes.filter(unschedulable);
      assert.equal(cordoned.length, 1, `round ${round + 1}: ${cordoned}`);
      // The admission is on the Lease the replicas share, for the other's next decision.
      const admitted = JSON.parse(kubectl('get', 'lease', 'drainboard-admissions', '-n', 'default', '-o', 'jsonpath={.metadata.annotations.drainboard\\.dev/admitted}'));
      assert.ok(admitted[cordoned[0]] * 1000 > Date.now(), JSON.stringify(admitted));
      kubectl('uncordon', cordoned[0]);
      // The shared entry lapses within seconds; until then it still counts, so wait it out.
      await waitFor('the admission lapsed', 30_000, () => {
        const now = JSON.parse(kubectl('get', 'lease', 'drainboard-admissions', '-n', 'default', '-o', 'jsonpath={.metadata.annotations.drainboard\\.dev/admitted}') || '{}');
        return !(now[cordoned[0]] * 1000 > Date.now());
      });
      await new Promise((r) => setTimeout(r, 1_000));
    }
  } finally {
    await b.stop();
  }
});

test('team mode: an override needs update on maintenancewindows/override; without it the person is refused and nothing changes', { timeout: 120_000 }, async () => {
  const p = await pool('wt', 1);
  const [node] = p.nodes;
  // Stopped at the end: a server without the test's Alertmanager must not take a later test's plans over.
  const team = await startDrainboard(['--team', '--insecure-http', '--alertmanager-url', requireEnv('ALERTMANAGER_URL')]);
  cleanups.push(() => team.stop());
  const name = `closed-${p.id}`;
  await windowOf(name, { nodeSelector: p.selector, freezes: [{ start: '2000-01-01', end: '2999-12-31', reason: 'closed for the test' }] });
  const signIn = async (person, rules) => {
    const res = await fetch(`${team.url}/api/session/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kubeconfig: inlineKubeconfig(person, rules) }) });
    assert.equal(res.status, 200, await res.text());
    return res.headers.get('set-cookie').split(';')[0];
  };
  const bob = await signIn(`wt-bob-${p.id}`, MAINTAIN);
  const carol = await signIn(`wt-carol-${p.id}`, [...MAINTAIN, { apiGroups: ['drainboard.dev'], resources: ['maintenancewindows'], verbs: ['list'] },
    { apiGroups: ['drainboard.dev'], resources: ['maintenancewindows/override'], verbs: ['update'] }]);
  const as = (cookie) => ({ url: team.url, headers: { cookie } });

  // What holds maintenance is shown to those who may read the windows, not read for others with the server's rights.
  const unread = await call('windows', {}, as(bob));
  assert.equal(unread.status, 403, JSON.stringify(unread.body));
  assert.match(JSON.stringify(unread.body), /may not list maintenancewindows/);
  const read = await call('windows', {}, as(carol));
  assert.equal(read.status, 200, JSON.stringify(read.body));
  assert.equal(read.body.nodes.find((d) => d.node === node).decided_by, name);

  const plain = await call('nodes/cordon', { node }, as(bob));
  assert.equal(plain.status, 403);
  assert.match(JSON.stringify(plain.body), /frozen \(closed for the test\)/);
  const denied = await call('nodes/cordon', { node, override_window: 'I say so' }, as(bob));
  assert.equal(denied.status, 403, JSON.stringify(denied.body));
  assert.match(JSON.stringify(denied.body), /may not override a maintenance window: lacks update maintenancewindows\/override/);
  assert.ok(!unschedulable(node), 'refused: nothing changed');
  const allowed = await call('nodes/cordon', { node, override_window: 'hardware swap, ticket 4411' }, as(carol));
  assert.equal(allowed.status, 200, JSON.stringify(allowed.body));
  assert.ok(unschedulable(node));
  const history = await call('nodes/history', { node }, as(carol));
  const overridden = history.body.find((e) => e.action === 'WindowOverridden');
  assert.ok(overridden, JSON.stringify(history.body));
  assert.equal(overridden.user, `wt-carol-${p.id}`);
  kubectl('uncordon', node);
  await team.stop();
});

test('an alert gate with the real Alertmanager: a firing alert holds the next node within seconds, a silenced one does not, and an Alertmanager that is down holds it with that reason', { timeout: 240_000 }, async () => {
  const am = requireEnv('ALERTMANAGER_URL');
  const gated = await ensureServer();
  const p = await pool('wa', 4);
  const name = `alerts-${p.id}`;
  await windowOf(name, { nodeSelector: p.selector, gates: { alerts: [{ matchers: [`pool="${p.id}"`, 'severity=~"critical|page"'] }] } });
  const post = async (path, body) => {
    const res = await fetch(`${am}/api/v2/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await res.text();
    assert.ok(res.ok, `${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
  const labels = { alertname: 'EtcdLatencyHigh', severity: 'critical', pool: p.id };
  // Resolving sends an end of now: the start is put a second before it, since a start read a millisecond later
  // than the end is refused ("start time must be before end time").
  const fire = (endsAt) => post('alerts', [{ labels, startsAt: new Date(Math.min(Date.now(), Date.parse(endsAt) - 1000)).toISOString(), endsAt }]);
  const holdOf = async (node) => (await call('windows', {}, { url: gated.url })).body.nodes.find((d) => d.node === node)?.holds ?? [];

  // An alert of another pool holds nothing here.
  await post('alerts', [{ labels: { ...labels, pool: 'elsewhere' }, endsAt: new Date(Date.now() + 600_000).toISOString() }]);
  const started = await call('plans/start', { nodes: p.nodes, options: { max_parallel: 1, settle_seconds: 6 } }, { url: gated.url });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const id = started.body;
  await waitFor('the first node drained', 60_000, () => record(p.nodes[0])?.state === 'Drained')
    .catch((e) => { throw new Error(`${e.message}: ${JSON.stringify(plan(id).status)}\n${gated.logs().slice(-3000)}`); });

  // It fires: the gate closes within 5 s, while the plan settles, and the next node waits.
  await fire(new Date(Date.now() + 600_000).toISOString());
  const fired = Date.now();
  await waitFor('the alert to hold the pool', 5_000, async () => (await holdOf(p.nodes[1])).some((h) => h.hold.Alert?.name === 'EtcdLatencyHigh'));
  assert.ok(Date.now() - fired <= 5_000);
  const held = await waitFor('the plan Blocked by the alert', 30_000, () => (plan(id).status?.phase === 'Blocked' ? plan(id) : null));
  assert.match(held.status.conditions.find((c) => c.type === 'Blocked').message, /alert EtcdLatencyHigh fires \(pool=.*severity=critical\)/);
  await new Promise((r) => setTimeout(r, 4000));
  assert.equal(record(p.nodes[1]), null, 'the next node waits while the alert fires');

  // Resolved, it holds no more: the plan goes on.
  await fire(new Date().toISOString());
  await waitFor('the second node to start once the alert is resolved', 30_000, () => record(p.nodes[1]) !== null);
  // It fires again while the plan settles: the third node waits.
  await fire(new Date(Date.now() + 600_000).toISOString());
  await waitFor('the alert to hold the pool again', 10_000, async () => (await holdOf(p.nodes[2])).some((h) => h.hold.Alert));
  await waitFor('the second node drained', 60_000, () => record(p.nodes[1])?.state === 'Drained');
  await new Promise((r) => setTimeout(r, 8000));
  assert.equal(record(p.nodes[2]), null, 'the third node waits while the alert fires again');

  // Silenced, it no longer counts: the plan goes on.
  const silence = await post('silences', { matchers: [{ name: 'pool', value: p.id, isRegex: false, isEqual: true }],
    startsAt: new Date().toISOString(), endsAt: new Date(Date.now() + 3_600_000).toISOString(), createdBy: 'windows.test', comment: 'known, being fixed' });
  assert.ok(silence.silenceID);
  await waitFor('the third node to start once the alert is silenced', 30_000, () => record(p.nodes[2]) !== null);
  // /metrics: Alertmanager answers, and the window with the gate is counted.
  assert.equal(await metric(gated, 'drainboard_alertmanager_up'), 1);
  assert.ok(await metric(gated, 'drainboard_alert_gated_windows') >= 1);

  // Alertmanager goes away: the gate fails closed, and says so.
  alertmanager('stop');
  try {
    await waitFor('the gate closed for want of Alertmanager', 10_000, async () =>
      (await holdOf(p.nodes[3])).some((h) => h.hold.AlertsUnknown?.why.startsWith('Alertmanager cannot be reached')));
    const unknown = await waitFor('the plan Blocked by the unknown alerts', 40_000, () =>
      (plan(id).status?.phase === 'Blocked' && plan(id).status.conditions.find((c) => c.type === 'Blocked').message.includes('Alertmanager cannot be asked') ? plan(id) : null));
    assert.equal(record(p.nodes[3]), null, `${JSON.stringify(unknown.status.conditions)}`);
    assert.equal(await metric(gated, 'drainboard_alertmanager_up'), 0, 'Alertmanager down, as /metrics says');
    assert.ok(await metric(gated, 'drainboard_alertmanager_asks_total', { outcome: 'failed' }) >= 1);
  } finally {
    alertmanager('start');
  }
  // Back, with the alert gone (alerts live in its memory) and the silence kept: the plan completes.
  await waitFor('the plan to complete', 90_000, () => plan(id).status?.phase === 'Complete');
  const kept = await (await fetch(`${am}/api/v2/silences`)).json();
  for (const s of kept.filter((s) => s.status.state === 'active')) await fetch(`${am}/api/v2/silence/${s.id}`, { method: 'DELETE' });
});

test('notices: each event reaches the webhooks once, as a CloudEvent and a Slack body; a receiver that fails is retried, then given up on, and the plan goes on', { timeout: 180_000 }, async () => {
  const srv = await ensureServer();
  const p = await pool('wn', 3);
  const [first, second, third] = p.nodes;
  await windowOf(`gate-${p.id}`, { nodeSelector: p.selector, gates: { pods: [{ selector: 'app=backup', namespace: p.id }] } });
  await windowOf(`frozen-${p.id}`, { nodeSelector: `kubernetes.io/hostname=${third}`,
    freezes: [{ start: '2000-01-01', end: '2999-12-31', reason: 'notice test' }] });
  // A backup runs on the second node: it waits, longer than the 2 s after which the team is told.
  apply({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'backup', labels: { app: 'backup' } }, spec: {
    nodeName: second, tolerations: [{ key: TAINT, operator: 'Exists', effect: 'NoSchedule' }], containers: [{ name: 'c', image: 'busybox' }] } }, p.id);
  await waitFor('the backup running', 30_000, () => kubectl('get', 'pod', 'backup', '-n', p.id, '-o', 'jsonpath={.status.phase}') === 'Running');
  const started = await call('plans/start', { nodes: [first, second], options: { max_parallel: 2 }, reason: 'notice test', wait_for_window: true });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const id = started.body;
  const ce = (type, subject) => received.filter((r) => r.path === '/ok-ce' && r.body.type === type && r.body.subject === subject);
  await waitFor('the blocked notice', 30_000, () => ce('dev.drainboard.node.blocked', second).length > 0);
  kubectl('delete', 'pod', 'backup', '-n', p.id, '--wait=true');
  await waitFor('the plan to complete', 90_000, () => plan(id).status?.phase === 'Complete');
  // An override is told too.
  assert.equal((await call('nodes/cordon', { node: third, override_window: 'notice test override' })).status, 200);
  await waitFor('the plan\'s end and the override told', 20_000, () =>
    ce('dev.drainboard.plan.ended', id).length && ce('dev.drainboard.window.overridden', third).length);
  await new Promise((r) => setTimeout(r, 2000));

  // Each once, with its fields, as a CloudEvent.
  const once = (type, subject) => {
    const got = ce(type, subject);
    assert.equal(got.length, 1, `${type} about ${subject}: ${JSON.stringify(got.map((g) => g.body))}`);
    const e = got[0];
    assert.equal(e.type, 'application/cloudevents+json');
    assert.equal(e.body.specversion, '1.0');
    assert.equal(e.body.source, '/drainboard');
    assert.ok(e.body.id && Date.parse(e.body.time));
    return e.body.data;
  };
  assert.deepEqual(once('dev.drainboard.plan.started', id), { event: 'plan_started', plan: id, by: 'admin', nodes: 2, reason: 'notice test' });
  const blocked = once('dev.drainboard.node.blocked', second);
  assert.match(blocked.why, new RegExp(`pod ${p.id}/backup runs on ${second} \\(window gate-${p.id}\\)`));
  assert.ok(blocked.seconds >= 2, JSON.stringify(blocked));
  assert.deepEqual(once('dev.drainboard.node.done', first), { event: 'node_done', plan: id, node: first, verified: false });
  assert.deepEqual(once('dev.drainboard.node.done', second), { event: 'node_done', plan: id, node: second, verified: false });
  assert.deepEqual(once('dev.drainboard.plan.ended', id), { event: 'plan_ended', plan: id, phase: 'Complete', failed: [] });
  const overridden = once('dev.drainboard.window.overridden', third);
  assert.equal(overridden.reason, 'notice test override');
  assert.match(overridden.why, /frozen \(notice test\)/);
  // The same events as Slack bodies.
  const slack = received.filter((r) => r.path === '/ok-slack').map((r) => r.body.text);
  for (const line of [`Maintenance plan ${id} started by admin, 2 node(s): notice test`, `Plan ${id}: ${first} is done`,
    `Maintenance plan ${id}: Complete`]) {
    assert.equal(slack.filter((t) => t === line).length, 1, `${line} in ${JSON.stringify(slack)}`);
  }
  // The failing receiver got each try of the plan's start, the same event each time, then was given up on.
  const startedId = received.find((r) => r.path === '/ok-ce' && r.body.type === 'dev.drainboard.plan.started' && r.body.subject === id).body.id;
  const tries = await waitFor('four tries at the failing receiver', 20_000, () => {
    const t = received.filter((r) => r.path === '/fail' && r.body.id === startedId);
    return t.length >= 4 ? t : null;
  });
  assert.equal(tries.length, 4, 'tried four times, no more');
  assert.ok(tries[3].at - tries[0].at >= 6000, 'with growing waits between tries (1, 2, 4 s)');
  const metrics = await (await fetch(`${srv.url}/metrics`)).text();
  const count = (kind, outcome) => Number(metrics.match(new RegExp(`^drainboard_notice_attempts_total\\{kind="${kind}",outcome="${outcome}"\\} (\\d+)$`, 'm'))?.[1] ?? 0);
  assert.ok(count('cloudevents', 'given_up') >= 1, metrics);
  assert.ok(count('cloudevents', 'failed') >= 4, metrics);
  assert.ok(count('slack', 'delivered') >= 6, metrics);
  kubectl('uncordon', third);
});

test('silences: kept in Alertmanager for the node in maintenance only, expired once it is back and done, none left after the plan', { timeout: 180_000 }, async () => {
  const am = requireEnv('ALERTMANAGER_URL');
  await ensureServer();
  const p = await pool('ws', 2);
  const [first, second] = p.nodes;
  const bootId = (node, id) => kubectl('patch', 'node', node, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { nodeInfo: { bootID: id } } }));
  for (const n of p.nodes) bootId(n, `${n}-boot-1`);
  await windowOf(`silent-${p.id}`, { nodeSelector: p.selector, silence: { label: 'node', marginSeconds: 60 } });
  const live = async () => (await (await fetch(`${am}/api/v2/silences`)).json())
    .filter((s) => s.createdBy === 'drainboard' && s.status.state !== 'expired' && s.comment.endsWith(` of plan ${id}`));
  // The plan compares each node's boot id with the one its cache saw as its drain ended: a boot id written a moment
  // before the start, not yet seen, would read as a reboot once seen (these nodes have no pods, so their drains end
  // at once).
  await waitFor('the server to see the boot ids', 10_000, async () => {
    const cards = (await call('board', {})).body?.upsert ?? [];
    return p.nodes.every((n) => cards.find((c) => c.name === n)?.boot_id === `${n}-boot-1`);
  });
  const started = await call('plans/start', { nodes: p.nodes, options: { max_parallel: 1, uncordon_when_back: true } });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const id = started.body;

  // The first node, drained and awaited back: silenced, and only it.
  const one = await waitFor('a silence for the first node', 30_000, async () => { const s = await live(); return s.length ? s : null; });
  assert.equal(one.length, 1, JSON.stringify(one));
  assert.deepEqual(one[0].matchers.map(({ name, value, isRegex, isEqual }) => ({ name, value, isRegex, isEqual })),
    [{ name: 'node', value: first, isRegex: false, isEqual: true }]);
  assert.equal(one[0].comment, `drainboard maintenance: node ${first} of plan ${id}`);
  // Its alerts are silenced; the other node's are not.
  const labels = (node) => ({ alertname: 'KubeletDown', node, pool: `silence-${p.id}` });
  await fetch(`${am}/api/v2/alerts`, { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify([first, second].map((n) => ({ labels: labels(n), endsAt: new Date(Date.now() + 300_000).toISOString() }))) });
  const firing = await waitFor('both alerts seen', 10_000, async () => {
    const all = await (await fetch(`${am}/api/v2/alerts?filter=pool%3D%22silence-${p.id}%22`)).json();
    return all.length === 2 ? all : null;
  });
  const state = (node) => firing.find((a) => a.labels.node === node).status.state;
  assert.deepEqual([state(first), state(second)], ['suppressed', 'active']);

  // Back and done: its silence goes, and the second node's comes.
  await waitForPlan(`${first} awaited back`, 60_000, id, () => plan(id).status?.nodes?.[0]?.back === 'Waiting');
  bootId(first, `${first}-boot-2`);
  const two = await waitFor('the silence to move to the second node', 60_000, async () => {
    const s = await live();
    return s.length === 1 && s[0].matchers[0].value === second ? s : null;
  });
  assert.equal(two[0].comment, `drainboard maintenance: node ${second} of plan ${id}`);
  await waitForPlan(`${second} awaited back`, 60_000, id, () => plan(id).status?.nodes?.[1]?.back === 'Waiting');
  bootId(second, `${second}-boot-2`);
  await waitFor('the plan to complete', 60_000, () => plan(id).status?.phase === 'Complete');
  await waitFor('no silence left', 15_000, async () => (await live()).length === 0);
});

test('silences: an Alertmanager that is down is asked again with a growing wait, not on every look of the plan, and a silence it lost while down is made again once it is back', { timeout: 180_000 }, async () => {
  const am = requireEnv('ALERTMANAGER_URL');
  const gated = await ensureServer();
  const p = await pool('wd', 1);
  const [node] = p.nodes;
  kubectl('patch', 'node', node, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { nodeInfo: { bootID: `${node}-boot-1` } } }));
  await windowOf(`silent-down-${p.id}`, { nodeSelector: p.selector, silence: { label: 'node', marginSeconds: 60 } });
  const started = await call('plans/start', { nodes: [node], options: { max_parallel: 1, uncordon_when_back: true } });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const id = started.body;
  const live = async () => (await (await fetch(`${am}/api/v2/silences`)).json())
    .filter((s) => s.createdBy === 'drainboard' && s.status.state !== 'expired' && s.comment.endsWith(` of plan ${id}`));
  const first = await waitFor('a silence for the node', 30_000, async () => { const s = await live(); return s.length === 1 ? s : null; });
  await waitForPlan(`${node} awaited back`, 60_000, id, () => plan(id).status?.nodes?.[0]?.back === 'Waiting');

  // Down for 30 s while the node is in maintenance: the plan looks every second, but asks at most once per wait
  // (at least 5 s, then at least 10 s, after the 20 s it keeps quiet with nothing changed).
  const failures = () => gated.logs().split('\n').filter((l) => l.includes('could not read Alertmanager\'s silences')).length;
  const before = failures();
  alertmanager('stop');
  let during;
  try {
    await new Promise((r) => setTimeout(r, 30_000));
    during = failures() - before;
  } finally {
    alertmanager('start');
  }
  assert.ok(during >= 1, 'it did try while Alertmanager was down');
  assert.ok(during <= 4, `${during} tries in 30 s: ${gated.logs().split('\n').filter((l) => l.includes('silences')).slice(-8).join('\n')}`);
  // Killed, Alertmanager lost what it had not written to disk: the node's silence is made again.
  const back = await waitFor('the node silenced again', 45_000, async () => { const s = await live(); return s.length === 1 ? s : null; });
  assert.equal(back[0].matchers[0].value, node);
  assert.notEqual(back[0].id, first[0].id, 'a new silence: the one before was lost with Alertmanager');
  kubectl('patch', 'node', node, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { nodeInfo: { bootID: `${node}-boot-2` } } }));
  await waitForPlan('the plan to complete', 60_000, id, () => plan(id).status?.phase === 'Complete');
  await waitFor('no silence left', 15_000, async () => (await live()).length === 0);
});

test('every hold on a node is listed, each on its window\'s clock in the reader\'s language; the board says until when maintenance may start; a dry run never counts against a budget', { timeout: 180_000 }, async () => {
  const p = await pool('wh', 3);
  const [a, b, c] = p.nodes;
  // a and b: a freeze in Tokyo until the last day of 2999, and a budget of one node that a's cordon fills.
  const frozen = `frz-${p.id}`;
  const budget = `bud-${p.id}`;
  await windowOf(frozen, { nodeSelector: `kubernetes.io/hostname in (${a},${b})`, timeZone: 'Asia/Tokyo',
    freezes: [{ start: '2000-01-01', end: '2999-12-31', reason: 'quarter close' }] });
  await windowOf(budget, { nodeSelector: `kubernetes.io/hostname in (${b},${c})`, maxInMaintenance: '1' });
  // c: open now, in UTC, for two more hours at least.
  const open = `opn-${p.id}`;
  const pad2 = (n) => String(n).padStart(2, '0');
  const ends = new Date(Math.ceil((Date.now() + 2 * 3_600_000) / 60_000) * 60_000);
  const starts = new Date(Date.now() - 3_600_000);
  const hhmm = (d) => `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}`;
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  await windowOf(open, { nodeSelector: `kubernetes.io/hostname=${c}`,
    schedules: [{ days: [...new Set([days[starts.getUTCDay()], days[ends.getUTCDay()]])], start: hhmm(starts), end: hhmm(ends) }] });

  // A server dry run of c, which a budget allowing nothing keeps running for a while, takes no place in the
  // window's budget of one: c may still start.
  apply({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'app-2' },
    spec: { minAvailable: 1, selector: { matchLabels: { app: 'app-2' } } } }, p.id);
  const dry = await call('drains/start', { node: c, options: { dry_run: 'Server', ignore_daemonsets: true } });
  assert.equal(dry.status, 200, JSON.stringify(dry.body));
  await new Promise((r) => setTimeout(r, 2_000));
  const running = await call('drains/status', { id: dry.body.id });
  assert.ok(['Planning', 'Evicting'].includes(running.body.state), JSON.stringify(running.body.state));
  const now = (await call('windows', {})).body;
  const of = (n) => now.nodes.find((d) => d.node === n);
  assert.deepEqual(of(c).holds, [], `a running dry run does not fill ${budget}: ${JSON.stringify(of(c))}`);
  // The first window to close over every node that may start now: ours, or one of an earlier test still there.
  assert.ok(Date.parse(now.closes.closes) <= ends.getTime(), JSON.stringify(now.closes));
  if (now.closes.window === open) assert.equal(Date.parse(now.closes.closes), ends.getTime(), JSON.stringify(now.closes));

  // A cordon of c fills the budget of one: b is held twice, by the freeze and by the budget.
  const cordoned = await call('nodes/cordon', { node: c });
  assert.equal(cordoned.status, 200, JSON.stringify(cordoned.body));
  const { url } = await ensureServer();
  const browser = await launchBrowser();
  try {
    const { page, errors } = await openBoard(browser, url);
    await page.locator('[data-testid="node-filter"]').fill(p.id);
    const badge = page.locator(`[data-testid="node-row"][data-node="${b}"] [data-testid="card-window-hold"][data-holds="2"]`);
    await badge.waitFor({ timeout: 20_000 });
    const text = await badge.textContent();
    // A freeze's end date is the last day it holds: it ends as the next day begins, on Tokyo's clock.
    assert.match(text, new RegExp(`Held by ${frozen}: frozen \\(quarter close\\) until Wed 3000-01-01 00:00 JST \\(Asia/Tokyo\\), in `));
    assert.match(text, new RegExp(`Held by ${budget}: 1 of its nodes`));
    // The deciding window's first: a full budget has no known end, so it decides, but no longer hides the freeze.
    assert.ok(text.indexOf(budget) < text.indexOf(frozen), text);
    // The line and the badge come from one answer but render apart: the line may come a moment after the badge.
    const banner = page.locator('[data-testid="windows-now"]');
    await banner.locator(`[data-testid="window-hold"][data-window="${frozen}"]`).first().waitFor({ timeout: 10_000 });
    await banner.locator(`[data-testid="window-hold"][data-window="${budget}"]`).first().waitFor({ timeout: 10_000 });
    const until = await banner.locator('[data-testid="windows-open-until"]').textContent();
    const local = now.closes.window === open ? `${days[ends.getUTCDay()]} ${hhmm(ends)} UTC` : '.+';
    assert.match(until, new RegExp(`^It may start until ${local}, in \\S+, when window ${now.closes.window} stops allowing it\\.$`));

    // In Japanese: the weekday and the date in Japanese, still on Tokyo's clock.
    const ja = await browser.newContext({ locale: 'ja-JP' });
    const jaPage = await ja.newPage();
    await jaPage.goto(url + '/');
    await jaPage.locator('[data-testid="node-filter"]').fill(p.id);
    const jaBadge = jaPage.locator(`[data-testid="node-row"][data-node="${b}"] [data-testid="card-window-hold"][data-holds="2"]`);
    await jaBadge.waitFor({ timeout: 30_000 });
    const jaText = await jaBadge.textContent();
    assert.match(jaText, /3000年01月01日\(水\) 00:00 JST\(Asia\/Tokyo\)まで/);
    assert.doesNotMatch(jaText, /\b(Sun|Mon|Tue|Wed|Thu|Fri|Sat)\b/);
    await ja.close();
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await call('drains/cancel', { id: dry.body.id });
    kubectl('uncordon', c);
  }
});
