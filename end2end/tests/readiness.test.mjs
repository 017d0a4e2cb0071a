// Know before the window what will hold the drain. Each class of hold is set up on a node of its own, with real
// objects (budgets, a local PersistentVolume bound to the node, an emptyDir, a bare pod, an owner's annotation, a
// replacement with nowhere to go), the same way the blocker trap tests set up theirs, and `POST /api/readiness`
// must name exactly that class, its objects and their namespace, and nothing on a node with none. The versions
// view's check and the board's line per maintenance window say it in English and Japanese.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { apply, artifactsDir, kubectl, launchBrowser, scenario, startDrainboard, waitFor } from './support.mjs';

let server;
let browser;
const cleanups = [];
const s = {};

async function call(body, headers = {}) {
  const res = await fetch(`${server.url}/api/readiness`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body),
  });
  const text = await res.text();
  let json;
  try { json = JSON.parse(text); } catch { json = text; }
  return { status: res.status, body: json };
}

/** The holds of `node` as `class namespace/object` lines, from an answer. */
const holdsOf = (answer, node) => (answer.nodes.find((n) => n.node === node)?.holds ?? []).map((h) => {
  const [cls, v] = Object.entries(h)[0];
  return `${cls} ${v.namespace}/${v.pod ?? v.budget}`;
});

before(async () => {
  server = await startDrainboard();
  browser = await launchBrowser();
  const make = async (name) => {
    const sc = await scenario(name);
    cleanups.push(() => sc.cleanup());
    return sc;
  };
  s.never = await make('rnever');
  s.never.deployment('web', 2);
  s.never.pdb('web-pdb', 'web', 2);
  s.single = await make('rsingle');
  s.single.deployment('db', 1);
  s.single.pdb('db-pdb', 'db', 1);
  s.two = await make('rtwo');
  s.two.deployment('api', 2);
  s.two.pdb('api-a', 'api', 1);
  s.two.pdb('api-b', 'api', 1);
  s.refused = await make('rrefused');
  s.refused.deployment('cache', 1, { volumes: [{ name: 'scratch', emptyDir: {} }] });
  apply({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bare' }, spec: {
    nodeName: s.refused.node, tolerations: [{ key: 'drainboard.dev/test', operator: 'Exists', effect: 'NoSchedule' }],
    containers: [{ name: 'c', image: 'nginx:1.27' }] } }, s.refused.ns);
  s.owner = await make('rowner');
  apply({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'batch' }, spec: { replicas: 1,
    selector: { matchLabels: { app: 'batch' } },
    template: { metadata: { labels: { app: 'batch' }, annotations: { 'karpenter.sh/do-not-disrupt': 'true' } }, spec: {
      nodeSelector: { 'drainboard.dev/pool': s.owner.node },
      tolerations: [{ key: 'drainboard.dev/test', operator: 'Exists', effect: 'NoSchedule' }],
      containers: [{ name: 'c', image: 'nginx:1.27' }] } } } }, s.owner.ns);
  // A local disk of the node, bound to a claim the pod mounts: the scheduler puts the pod there, and nowhere else.
  s.local = await make('rlocal');
  const pv = `${s.local.ns}-disk`;
  apply({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: pv }, spec: {
    capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', storageClassName: '',
    local: { path: '/mnt/disks/1' }, claimRef: { namespace: s.local.ns, name: 'data' },
    nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [s.local.node] }] }] } } } });
  cleanups.push(() => { try { kubectl('delete', 'pv', pv, '--wait=false'); } catch {} });
  apply({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data' }, spec: {
    accessModes: ['ReadWriteOnce'], storageClassName: '', volumeName: pv, resources: { requests: { storage: '1Gi' } } } }, s.local.ns);
  s.local.deployment('disk', 1, { volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }] });
  // Its replacement has nowhere to go: the one other node its selector allows stays cordoned.
  s.room = await make('rroom');
  s.room.deployment('big', 1);
  // Nothing holds this one; and a budget over nothing, in its namespace.
  s.clear = await make('rclear');
  s.clear.deployment('fine', 2);
  s.clear.pdb('fine-pdb', 'fine', 1);
  s.clear.pdb('old-pdb', 'renamed-long-ago', 1);

  const running = [[s.never, 2], [s.single, 1], [s.two, 2], [s.refused, 2], [s.owner, 1], [s.local, 1], [s.room, 1], [s.clear, 2]];
  await Promise.all(running.map(([sc, n]) => sc.running(n, 90_000)));
  // Room for the replacements everywhere but where the test wants none.
  for (const sc of [s.never, s.single, s.two, s.refused, s.owner, s.local, s.clear]) sc.openSpare();
  // The disruption controller writes each budget's status; the rules read it.
  await waitFor('every budget counted', 30_000, () => [[s.never, 'web-pdb', 2], [s.single, 'db-pdb', 1], [s.two, 'api-a', 2], [s.clear, 'fine-pdb', 2]]
    .every(([sc, name, n]) => kubectl('get', 'pdb', name, '-n', sc.ns, '-o', 'jsonpath={.status.expectedPods}').trim() === String(n)));
});
after(async () => {
  await browser?.close();
  await server?.stop();
  for (const c of cleanups.reverse()) c();
});

test('each class of hold is named on its own node, with its objects and namespace; a clear node has none', { timeout: 60_000 }, async () => {
  const nodes = Object.values(s).map((sc) => sc.node);
  const answer = await waitFor('an answer with the replacement that has nowhere to go', 30_000, async () => {
    const res = await call({ nodes });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return holdsOf(res.body, s.room.node).length ? res.body : null;
  });
  assert.deepEqual(answer.nodes.map((n) => n.node), nodes, 'every node, in the order asked');
  const web = kubectl('get', 'pods', '-n', s.never.ns, '-l', 'app=web', '-o', 'jsonpath={.items[*].metadata.name}').split(' ').sort();
  const one = (sc, app) => kubectl('get', 'pods', '-n', sc.ns, '-l', `app=${app}`, '-o', 'jsonpath={.items[0].metadata.name}');
  assert.deepEqual(holdsOf(answer, s.never.node), [`BudgetNever ${s.never.ns}/web-pdb`]);
  const never = answer.nodes.find((n) => n.node === s.never.node).holds[0].BudgetNever;
  assert.deepEqual([never.expected, never.desired, never.pods], [2, 2, web]);
  assert.deepEqual(holdsOf(answer, s.single.node), [`SingleReplica ${s.single.ns}/${one(s.single, 'db')}`]);
  assert.deepEqual(holdsOf(answer, s.two.node).sort(), kubectl('get', 'pods', '-n', s.two.ns, '-o', 'jsonpath={.items[*].metadata.name}')
    .split(' ').map((p) => `TwoBudgets ${s.two.ns}/${p}`).sort());
  assert.deepEqual(answer.nodes.find((n) => n.node === s.two.node).holds[0].TwoBudgets.budgets, ['api-a', 'api-b']);
  const refused = answer.nodes.find((n) => n.node === s.refused.node).holds.map((h) => h.Refused);
  assert.deepEqual(refused.map((r) => [r.pod, r.reason, r.needs]).sort(), [
    ['bare', 'NoController', 'Force'],
    [one(s.refused, 'cache'), 'LocalStorage', 'DeleteEmptydirData'],
  ].sort());
  assert.deepEqual(holdsOf(answer, s.owner.node), [`OwnerAsked ${s.owner.ns}/${one(s.owner, 'batch')}`]);
  assert.equal(answer.nodes.find((n) => n.node === s.owner.node).holds[0].OwnerAsked.annotation, 'karpenter.sh/do-not-disrupt: true');
  assert.deepEqual(holdsOf(answer, s.local.node), [`LocalVolume ${s.local.ns}/${one(s.local, 'disk')}`]);
  assert.equal(answer.nodes.find((n) => n.node === s.local.node).holds[0].LocalVolume.volume, `${s.local.ns}-disk`);
  assert.deepEqual(holdsOf(answer, s.room.node), [`NoRoom ${s.room.ns}/${one(s.room, 'big')}`]);
  assert.match(answer.nodes.find((n) => n.node === s.room.node).holds[0].NoRoom.why, /^0\/\d+ nodes are available: .*didn't match Pod's node affinity\/selector/);
  assert.deepEqual(holdsOf(answer, s.clear.node), [], 'a budget that allows one of two holds nothing');
  assert.ok(answer.idle_budgets.some((b) => b.namespace === s.clear.ns && b.budget === 'old-pdb'), JSON.stringify(answer.idle_budgets));
  assert.ok(!answer.idle_budgets.some((b) => b.budget === 'fine-pdb'));
  assert.deepEqual(answer.unchecked, []);
  // The budget fixed, the hold goes: the rules read the cluster as it is.
  kubectl('patch', 'pdb', 'web-pdb', '-n', s.never.ns, '--type=merge', '-p', '{"spec":{"minAvailable":1}}');
  await waitFor('the relaxed budget to hold nothing', 30_000, async () => holdsOf((await call({ nodes: [s.never.node] })).body, s.never.node).length === 0);
});

test('bad input is refused with what to do, and another origin cannot ask', async () => {
  for (const [body, status, says] of [
    [{ nodes: [] }, 400, /name 1 to 500 nodes/],
    [{ nodes: ['Not_A_Node'] }, 400, /Not_A_Node/],
    [{ nodes: ['a', 'a'] }, 400, /named twice/],
    [{ nodes: Array.from({ length: 501 }, (_, i) => `n-${i}`) }, 400, /name 1 to 500 nodes/],
    [{ nodes: ['no-such-node-here'] }, 404, /no-such-node-here/],
    [{}, 400, /nodes/],
  ]) {
    const res = await call(body);
    assert.equal(res.status, status, JSON.stringify([body, res.body]).slice(0, 300));
    assert.match(JSON.stringify(res.body), says);
  }
  const foreign = await call({ nodes: [s.clear.node] }, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
  assert.equal(foreign.status, 403, JSON.stringify(foreign.body));
});

test('the versions view checks the nodes shown, and the board says which window will stall, in English and Japanese', { timeout: 120_000 }, async () => {
  kubectl('patch', 'pdb', 'web-pdb', '-n', s.never.ns, '--type=merge', '-p', '{"spec":{"minAvailable":2}}');
  // A window that opens in two hours, over the node whose budget never allows an eviction.
  const pad = (n) => String(n).padStart(2, '0');
  const at = new Date(Date.now() + 2 * 3600_000);
  const hhmm = (d) => `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
  const window = `tonight-${s.never.ns.slice(-4)}`;
  apply({ apiVersion: 'drainboard.dev/v1alpha1', kind: 'MaintenanceWindow', metadata: { name: window }, spec: {
    nodeSelector: `drainboard.dev/pool=${s.never.node}`, timeZone: 'UTC',
    schedules: [{ days: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'], start: hhmm(at), end: hhmm(new Date(at.getTime() + 3600_000)) }] } });
  cleanups.push(() => { try { kubectl('delete', 'maintenancewindow', window, '--ignore-not-found'); } catch {} });

  for (const [locale, words] of [
    ['en-GB', { line: new RegExp(`^${window} \\(\\w+ ${hhmm(at)} UTC\\) will stall on ${s.never.node}: ${s.never.ns}/web-pdb never allows an eviction: it needs 2 of 2 pods healthy`),
      badge: /^1 node in a maintenance window would stall a drain$/, summary: /^1 of 2 nodes checked would stall a drain:$/,
      hold: new RegExp(`^${s.single.ns}/\\S+ is the only replica under db-pdb, which never lets it go\\. Ask the owners of ${s.single.ns}`) }],
    ['ja-JP', { line: new RegExp(`^${window}（\\S+ ${hhmm(at)} UTC）は${s.never.node}で止まります: ${s.never.ns}/web-pdbはevictionを一切許可しません`),
      badge: /^メンテナンスウィンドウ内の1ノードでドレーンが止まります$/, summary: /^確認した2ノードのうち1ノードでドレーンが止まります:$/,
      hold: new RegExp(`^${s.single.ns}/\\S+はdb-pdbの下の唯一のレプリカで、evictionできません。`) }],
  ]) {
    const context = await browser.newContext({ locale, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.url}/`);
    const line = page.locator(`[data-testid="window-readiness-line"][data-window="${window}"]`);
    await line.waitFor({ timeout: 60_000 });
    assert.match(await line.textContent(), words.line);
    assert.equal(await line.getAttribute('data-class'), 'budget-never');
    const badge = page.locator('[data-testid="readiness-badge"]');
    assert.equal(await badge.getAttribute('data-count'), '1');
    assert.match(await badge.textContent(), words.badge);
    if (locale === 'en-GB') await page.screenshot({ path: join(artifactsDir, 'readiness-window.png') });

    // The versions view: the nodes the filters show, checked on a click.
    const pools = `kubernetes.io/hostname in (${s.single.node}, ${s.clear.node})`;
    await page.goto(`${server.url}/?view=versions&labels=${encodeURIComponent(pools)}`);
    await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
    const check = page.locator('[data-testid="readiness-check"]');
    await waitFor('two nodes to check', 20_000, async () => (await check.textContent()).includes('2')).catch(async (e) => {
      await page.screenshot({ path: join(artifactsDir, 'readiness-versions-failed.png') });
      throw new Error(`${e.message}: the button reads ${JSON.stringify(await check.textContent())}`);
    });
    await check.click();
    const answer = page.locator('[data-testid="readiness-answer"]');
    await answer.waitFor({ timeout: 30_000 });
    assert.equal(await answer.getAttribute('data-stalling'), '1');
    assert.match(await page.locator('[data-testid="readiness-summary"]').textContent(), words.summary);
    const nodes = await page.locator('[data-testid="readiness-node"]').evaluateAll((els) => els.map((e) => [e.dataset.node, e.dataset.stalls]));
    assert.deepEqual(nodes, [[s.single.node, 'true']]);
    const hold = page.locator('[data-testid="readiness-hold"]');
    assert.equal(await hold.getAttribute('data-class'), 'single-replica');
    assert.equal(await hold.getAttribute('data-namespace'), s.single.ns);
    assert.match(await hold.textContent(), words.hold);
    assert.match(await page.locator('[data-testid="readiness-idle"]').textContent(), new RegExp(`${s.clear.ns}/old-pdb`));
    if (locale === 'en-GB') await page.screenshot({ path: join(artifactsDir, 'readiness-versions.png') });
    assert.deepEqual(errors, []);
    await context.close();
  }
});
