// A freeze that holds other tools (a window's holdOthers), against the real control plane: while the freeze is in
// force, the team server sets Karpenter's and the cluster autoscaler's own switches on the nodes the window covers and
// takes kured's lock on its DaemonSet in kured's format; it never takes over a switch someone else set; once the
// freeze is over it removes exactly what it set. A server killed mid-freeze leaves the switches to the next one, which
// finishes the job.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { READ, apply, inlineKubeconfig, kubectl, kwokNodes, launchBrowser, postAs, signInWith, startDrainboard, waitFor } from './support.mjs';

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c(); });

const KARPENTER = 'karpenter.sh/do-not-disrupt';
const AUTOSCALER = 'cluster-autoscaler.kubernetes.io/scale-down-disabled';
const MARK = 'drainboard.dev/holding-others';
const KURED_LOCK = 'weave.works/kured-node-lock';

const annotations = (node) => JSON.parse(kubectl('get', 'node', node, '-o', 'json')).metadata.annotations ?? {};
/** The switches and mark on `node`, as the API server holds them. */
const switches = (node) => {
  const a = annotations(node);
  return { karpenter: a[KARPENTER], autoscaler: a[AUTOSCALER], mark: a[MARK] };
};
const historyOf = (n) => JSON.parse(kubectl('get', 'configmap', '-n', 'default', `drainboard-history.${n}`, '--ignore-not-found', '-o', 'jsonpath={.data.entries}') || '[]');
const events = (name, reason, namespace = 'default') => JSON.parse(kubectl('get', 'events', '-n', namespace,
  '--field-selector', `involvedObject.name=${name},reason=${reason}`, '-o', 'json')).items;

test('a freeze with holdOthers sets exactly its switches, never over another\'s, and removes exactly those once it is over, also across a SIGKILL', { timeout: 180_000 }, async () => {
  const id = `ho-${Math.random().toString(36).slice(2, 6)}`;
  const [covered, theirs, outside] = [`${id}-0`, `${id}-1`, `${id}-2`];
  cleanups.push(kwokNodes(id, [covered, theirs, outside]));
  kubectl('label', 'node', covered, theirs, `hold=${id}`);
  // Someone else already keeps Karpenter off this node: theirs, before any freeze.
  kubectl('annotate', 'node', theirs, `${KARPENTER}=true`);
  kubectl('create', 'namespace', id);
  // kured's DaemonSet, as its manifest has it (no node runs it here: its lock is all that matters).
  apply({ apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'kured' }, spec: {
    selector: { matchLabels: { name: 'kured' } },
    template: { metadata: { labels: { name: 'kured' } }, spec: {
      nodeSelector: { 'drainboard.dev/nowhere': 'true' },
      containers: [{ name: 'kured', image: 'ghcr.io/kubereboot/kured:1.17.1', command: ['/usr/bin/kured'], args: ['--period=1h'] }],
    } } } }, id);
  const lock = () => {
    const value = JSON.parse(kubectl('get', 'daemonset', 'kured', '-n', id, '-o', 'json')).metadata.annotations?.[KURED_LOCK];
    return value === undefined ? undefined : JSON.parse(value);
  };

  const window = `freeze-${id}`;
  cleanups.push(() => { try { kubectl('delete', 'maintenancewindow', window, '--ignore-not-found'); } catch {} });
  const freeze = (end) => apply({ apiVersion: 'drainboard.dev/v1alpha1', kind: 'MaintenanceWindow', metadata: { name: window },
    spec: { nodeSelector: `hold=${id}`, freezes: [{ start: '2000-01-01', end, reason: 'year end' }],
      holdOthers: ['karpenter', 'clusterAutoscaler', 'kured'] } });
  freeze('2999-12-31');

  let server = await startDrainboard(['--team', '--insecure-http', '--kured-daemonset', `${id}/kured`]);
  cleanups.push(() => server.stop());
  await waitFor('the switches set on the covered nodes', 30_000, () =>
    switches(covered).mark === 'karpenter,clusterAutoscaler' && switches(theirs).mark === 'clusterAutoscaler');
  assert.deepEqual(switches(covered), { karpenter: 'true', autoscaler: 'true', mark: 'karpenter,clusterAutoscaler' });
  assert.deepEqual(switches(theirs), { karpenter: 'true', autoscaler: 'true', mark: 'clusterAutoscaler' },
    'their Karpenter switch is left theirs, not claimed');
  assert.deepEqual(switches(outside), { karpenter: undefined, autoscaler: undefined, mark: undefined }, 'a node the window does not cover');
  const taken = await waitFor('kured\'s lock taken', 30_000, lock);
  assert.equal(taken.nodeID, `drainboard:${window}`);
  assert.deepEqual([taken.metadata, taken.TTL], [{ unschedulable: false }, 600_000_000_000], 'in kured\'s own format, lapsing if not renewed');
  assert.ok(Math.abs(Date.parse(taken.created) - Date.now()) < 60_000, taken.created);
  await waitFor('the switches in the history and as Events', 30_000, () =>
    historyOf(covered).some((e) => e.action === 'OthersHeld') && events(covered, 'DrainboardOthersHeld').length);
  const held = historyOf(covered).filter((e) => e.action === 'OthersHeld');
  assert.deepEqual(held.map((e) => [e.user, e.reason, e.outcome]), [['drainboard', window, 'karpenter, clusterAutoscaler']]);
  assert.deepEqual(historyOf(theirs).filter((e) => e.action === 'OthersHeld').map((e) => e.outcome), ['clusterAutoscaler']);
  assert.equal(events('kured', 'DrainboardOthersHeld', id).length, 1, 'kured\'s lock: an Event on its DaemonSet');
  // People see it beside what holds Drainboard (`/api/windows`, the board's line).
  const kubeconfig = inlineKubeconfig(`${id}-viewer`, [...READ,
    { apiGroups: ['drainboard.dev'], resources: ['maintenancewindows'], verbs: ['get', 'list', 'watch'] }]);
  const viewer = await signInWith(server, kubeconfig);
  const answer = await postAs(server.url, 'windows', viewer, {});
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  assert.deepEqual(answer.body.others_held.filter(([w]) => w === window), [[window, ['karpenter', 'clusterAutoscaler', 'kured']]]);
  const browser = await launchBrowser();
  try {
    const context = await browser.newContext();
    // Signed in as the same viewer, in the browser's own cookie jar.
    const signedIn = await context.request.post(`${server.url}/api/session/sign-in`, { data: { kubeconfig } });
    assert.equal(signedIn.status(), 200, await signedIn.text());
    const page = await context.newPage();
    await page.goto(`${server.url}/`);
    const line = page.locator(`[data-testid="windows-others-held"][data-window="${window}"]`);
    await line.waitFor({ timeout: 30_000 });
    assert.equal(await line.textContent(), `${window}'s freeze also holds karpenter, clusterAutoscaler, kured by their own switches`);
  } finally {
    await browser.close();
  }

  // The server is killed mid-freeze; the freeze ends while no server runs. The switches stay until one does.
  await server.stop('SIGKILL');
  freeze('2001-01-01');
  await new Promise((r) => setTimeout(r, 2_000));
  assert.equal(switches(covered).mark, 'karpenter,clusterAutoscaler', 'nothing removes them while no server runs');
  server = await startDrainboard(['--team', '--insecure-http', '--kured-daemonset', `${id}/kured`]);
  await waitFor('the switches removed', 30_000, () => !switches(covered).mark && !switches(theirs).mark);
  assert.deepEqual(switches(covered), { karpenter: undefined, autoscaler: undefined, mark: undefined });
  assert.deepEqual(switches(theirs), { karpenter: 'true', autoscaler: undefined, mark: undefined }, 'theirs stays');
  await waitFor('kured\'s lock given back', 30_000, () => lock() === undefined);
  await waitFor('the removals in the history', 30_000, () => historyOf(covered).some((e) => e.action === 'OthersReleased'));
  assert.deepEqual(historyOf(covered).filter((e) => e.action === 'OthersReleased').map((e) => e.outcome), ['karpenter, clusterAutoscaler']);
  assert.ok(events(covered, 'DrainboardOthersReleased').length >= 1);
  assert.equal(events('kured', 'DrainboardOthersReleased', id).length, 1);

  // Someone takes kured's lock for a node of theirs: a freeze never takes it over, and never removes it.
  kubectl('annotate', 'daemonset', 'kured', '-n', id, `${KURED_LOCK}={"nodeID":"node-7","metadata":{"unschedulable":false},"created":"${new Date().toISOString()}","TTL":0}`);
  freeze('2999-12-31');
  await waitFor('the node switches set again', 30_000, () => switches(covered).mark === 'karpenter,clusterAutoscaler');
  await new Promise((r) => setTimeout(r, 6_000));
  assert.equal(lock().nodeID, 'node-7', 'a kured node\'s lock is never taken over while it lasts');
  freeze('2001-01-01');
  await waitFor('the node switches removed again', 30_000, () => !switches(covered).mark);
  assert.equal(lock().nodeID, 'node-7', 'nor removed');
});

test('a window whose holdOthers names no tool does not read, and says what to write', { timeout: 60_000 }, async () => {
  const name = `ho-bad-${Math.random().toString(36).slice(2, 6)}`;
  cleanups.push(() => { try { kubectl('delete', 'maintenancewindow', name, '--ignore-not-found'); } catch {} });
  const server = await startDrainboard(['--team', '--insecure-http']);
  cleanups.push(() => server.stop());
  apply({ apiVersion: 'drainboard.dev/v1alpha1', kind: 'MaintenanceWindow', metadata: { name },
    spec: { nodeSelector: 'hold=nowhere', holdOthers: ['autoscaler'] } });
  const message = await waitFor('the window read as not valid', 30_000, () => {
    const w = JSON.parse(kubectl('get', 'maintenancewindow', name, '-o', 'json'));
    const valid = (w.status?.conditions ?? []).find((c) => c.type === 'Valid');
    return valid?.status === 'False' ? valid.message : null;
  });
  assert.match(message, /holdOthers\[0\] "autoscaler" is not a tool; write karpenter, clusterAutoscaler or kured/);
});
