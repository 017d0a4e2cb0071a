// Why a drain is stuck, one blocker class at a time, each on a node of its own so that no class masks another: the
// API and the progress panel name the class, the object that blocks, and what would unblock it. Real objects all
// the way: an admission webhook served over HTTPS by this test, a finalizer, a replacement the scheduler cannot
// place, an owner's do-not-disrupt annotation, and a VolumeAttachment that outlives the pods.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apply, artifactsDir, kubectl, openBoard as openBoardOf, said, scenario, typeWhileStreaming, useServerAndBrowser, waitFor } from './support.mjs';

const ctx = useServerAndBrowser();
const cleanups = [];
after(() => cleanups.reverse().forEach((c) => c()));

async function setUp(name) {
  const s = await scenario(name);
  cleanups.push(() => s.cleanup());
  return s;
}

async function call(endpoint, body) {
  const res = await fetch(`${ctx.server.url}/api/${endpoint}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

const openBoard = () => openBoardOf(ctx.browser, ctx.server.url);

/** Opens the drain dialog of `node`, waits for its preview, confirms, and returns the progress panel and the drain's id. */
async function drainInBrowser(page, node, { beforeConfirm } = {}) {
  await page.fill('[data-testid="node-filter"]', node);
  const card = page.locator(`[data-testid="node-row"][data-node="${node}"]`);
  await card.locator('[data-testid="action-drain"]:not([disabled])').click();
  const dialog = page.locator('[data-testid="drain-dialog"]');
  await dialog.locator('[data-testid="group-evict"] [data-testid="preview-pod"]').first().waitFor({ timeout: 15_000 });
  if (beforeConfirm) await beforeConfirm(dialog);
  await dialog.locator('[data-testid="confirm-drain"]:not([disabled])').click();
  const panel = page.locator('[data-testid="progress-panel"]');
  await panel.waitFor({ timeout: 15_000 });
  const id = await card.locator('[data-testid="card-drain"][data-drain-id]').getAttribute('data-drain-id', { timeout: 15_000 });
  return { card, panel, id };
}

/** The drain's progress, as a script reads it. */
async function status(id) {
  const res = await call('drains/status', { id });
  assert.equal(res.status, 200, JSON.stringify(res.json));
  return res.json;
}

/** A key and a self-signed certificate for 127.0.0.1, made with openssl. */
function certificate() {
  const dir = mkdtempSync(join(tmpdir(), 'drainboard-hook-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
  { stdio: 'ignore' });
  try {
    return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
  } finally {
    // The key is read into memory: none is left behind in the temporary folder.
    rmSync(dir, { recursive: true, force: true });
  }
}

test('an admission webhook that denies the eviction is named with its configuration and its own message', { timeout: 180_000 }, async () => {
  const s = await setUp('hook');
  s.deployment('web', 1);
  await s.running(1);
  const [pod] = s.podsOnNode();

  // The webhook: denies every eviction it is asked about, in words of its own.
  const { key, cert } = certificate();
  const reviews = [];
  const server = createServer({ key, cert }, (req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      const review = JSON.parse(body);
      reviews.push(review.request.name);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: {
        uid: review.request.uid, allowed: false, status: { code: 403, message: 'maintenance freeze until 03:00 UTC' },
      } }));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => server.close());
  const configuration = `freeze-${s.ns}`;
  apply({
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration',
    metadata: { name: configuration },
    webhooks: [{
      name: 'freeze.drainboard.test',
      clientConfig: { url: `https://127.0.0.1:${server.address().port}/`, caBundle: cert.toString('base64') },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/eviction'], scope: 'Namespaced' }],
      // Only this test's namespace, and never in anyone's way should this test die.
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': s.ns } },
      failurePolicy: 'Ignore', sideEffects: 'None', admissionReviewVersions: ['v1'], timeoutSeconds: 5,
    }],
  });
  cleanups.push(() => { try { kubectl('delete', 'validatingwebhookconfiguration', configuration, '--wait=false'); } catch {} });
  // The API server picks the configuration up within a moment: a server dry-run eviction says when. Asked without
  // blocking this process, which serves the webhook.
  const [ns, name] = pod.split('/');
  const evictDryRun = () => new Promise((resolve) => {
    const child = execFile(join(process.env.DRAINBOARD_CLUSTER_BIN, 'kubectl'), ['--kubeconfig', process.env.KUBECONFIG,
      'create', '--raw', `/api/v1/namespaces/${ns}/pods/${name}/eviction?dryRun=All`, '-f', '-'],
    (err, stdout, stderr) => resolve(String(stderr)));
    child.stdin.end(JSON.stringify({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: ns } }));
  });
  await waitFor('the webhook to be called', 30_000, async () => (await evictDryRun()).includes('denied the request'));

  const { context, page, errors } = await openBoard();
  const { panel, id } = await drainInBrowser(page, s.node);
  await panel.locator('[data-testid="progress-state"][data-state^="Failed"]').waitFor({ timeout: 60_000 });
  const blocker = panel.locator('[data-testid="progress-pod"][data-state="failed"] [data-testid="blocker"]');
  assert.equal(await blocker.getAttribute('data-class'), 'webhook-denied');
  assert.match(await blocker.textContent(),
    new RegExp(`^The admission webhook freeze\\.drainboard\\.test \\(in ${configuration}\\) denied the eviction: maintenance freeze until 03:00 UTC`));
  assert.match(await blocker.locator('[data-testid="blocker-fixes"]').textContent(), /^To go on: ask the webhook's owner, or change the webhook$/);
  assert.ok(reviews.includes(name), `the webhook was asked about ${name}: ${reviews}`);

  const progress = await status(id);
  assert.deepEqual(progress.pods[0].state, { Failed: { WebhookDenied: {
    webhook: 'freeze.drainboard.test', configuration, message: 'maintenance freeze until 03:00 UTC',
  } } });
  assert.deepEqual(s.podsOnNode(), [pod], 'the pod stays: nothing was forced past the webhook');
  await page.screenshot({ path: join(artifactsDir, 'blocker-webhook.png') });
  assert.deepEqual(errors, []);
  await context.close();
});

test('a pod past its grace period held by a finalizer is named, and goes once the finalizer is removed', { timeout: 180_000 }, async () => {
  const s = await setUp('final');
  s.deployment('web', 1, { terminationGracePeriodSeconds: 1 });
  await s.running(1);
  const [pod] = s.podsOnNode();
  const [ns, name] = pod.split('/');
  kubectl('patch', 'pod', name, '-n', ns, '--type', 'merge', '-p', '{"metadata":{"finalizers":["drainboard.test/hold"]}}');
  cleanups.push(() => { try { kubectl('patch', 'pod', name, '-n', ns, '--type', 'merge', '-p', '{"metadata":{"finalizers":null}}'); } catch {} });
  s.openSpare();

  const { context, page, errors } = await openBoard();
  const { panel, id } = await drainInBrowser(page, s.node);
  const blocker = panel.locator('[data-testid="progress-pod"][data-state="terminating"] [data-testid="blocker"]');
  await blocker.waitFor({ timeout: 30_000 });
  assert.equal(await blocker.getAttribute('data-class'), 'finalizers');
  assert.match(await blocker.textContent(), /^Past its grace period, held by finalizers: drainboard\.test\/hold/);
  assert.match(await blocker.locator('[data-testid="blocker-fixes"]').textContent(), /remove the finalizers once what they wait for is done/);
  const held = (await status(id)).pods[0].state.Terminating;
  assert.deepEqual(held.blockers, [{ Finalizers: { finalizers: ['drainboard.test/hold'] } }]);
  assert.ok(Date.parse(held.deletion_deadline) <= Date.now(), 'named only once its grace period is over');
  // The API server agrees: the pod is deleting, and only its finalizer keeps it.
  const live = JSON.parse(kubectl('get', 'pod', name, '-n', ns, '-o', 'json'));
  assert.ok(live.metadata.deletionTimestamp);
  assert.deepEqual(live.metadata.finalizers, ['drainboard.test/hold']);

  kubectl('patch', 'pod', name, '-n', ns, '--type', 'merge', '-p', '{"metadata":{"finalizers":null}}');
  await panel.locator('[data-testid="progress-state"][data-state="Drained"]').waitFor({ timeout: 60_000 });
  assert.deepEqual(errors, []);
  await context.close();
});

test('a budget waiting for a replacement the scheduler cannot place names that pod and the scheduler\'s reason', { timeout: 240_000 }, async () => {
  const s = await setUp('pending');
  s.deployment('web', 2);
  s.pdb('web-pdb', 'web', 1);
  await s.running(2);
  await waitFor('web-pdb to count 2 healthy', 30_000, () =>
    kubectl('get', 'pdb', 'web-pdb', '-n', s.ns, '-o', 'jsonpath={.status.currentHealthy}').trim() === '2');

  // The spare stays cordoned: the first evicted pod's replacement has nowhere to go.
  const { context, page, errors } = await openBoard();
  const { panel, id } = await drainInBrowser(page, s.node);
  const pending = panel.locator('[data-testid="blocker"][data-class="replacement-pending"]');
  await pending.waitFor({ timeout: 60_000 });
  const waiting = kubectl('get', 'pods', '-n', s.ns, '--field-selector', 'status.phase=Pending', '-o', 'jsonpath={.items[*].metadata.name}').trim();
  assert.ok(waiting, 'a replacement is Pending');
  const text = await pending.textContent();
  assert.match(text, new RegExp(`^Its replacement (${waiting.split(' ').join('|')}) cannot be placed \\(Unschedulable\\): 0/\\d+ nodes are available`), text);
  assert.match(await pending.locator('[data-testid="blocker-fixes"]').textContent(), /make room where the scheduler can place it/);
  const atZero = panel.locator('[data-testid="blocker"][data-class="budget-at-zero"]');
  assert.match(await atZero.textContent(), /^PDB web-pdb allows no disruption: 1 pods healthy, 1 needed\. 1 more must be Ready elsewhere/);
  const blockers = (await status(id)).pods.flatMap((p) => p.state.Blocked?.blockers ?? []);
  assert.ok(blockers.some((b) => b.ReplacementPending?.reason === 'Unschedulable'), JSON.stringify(blockers));

  s.openSpare();
  await panel.locator('[data-testid="progress-state"][data-state="Drained"]').waitFor({ timeout: 90_000 });
  assert.deepEqual(errors, []);
  await context.close();
});

test('an owner\'s do-not-disrupt request: the preview warns, and the drain refuses only when asked to respect it', { timeout: 180_000 }, async () => {
  const s = await setUp('owner');
  apply({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'batch' },
    spec: { replicas: 1, selector: { matchLabels: { app: 'batch' } }, template: {
      metadata: { labels: { app: 'batch' }, annotations: { 'karpenter.sh/do-not-disrupt': 'true' } },
      spec: {
        nodeSelector: { 'drainboard.dev/pool': s.node },
        tolerations: [{ key: 'drainboard.dev/test', operator: 'Exists', effect: 'NoSchedule' }],
        containers: [{ name: 'c', image: 'nginx:1.27' }],
      } } },
  }, s.ns);
  await s.running(1);
  const [pod] = s.podsOnNode();

  const plain = await call('drains/preview', { node: s.node, options: { ignore_daemonsets: true } });
  assert.equal(plain.status, 200, JSON.stringify(plain.json));
  const key = (p) => `${p.pod.namespace}/${p.pod.name}`;
  const planned = plain.json.evict.find((p) => key(p) === pod);
  assert.deepEqual(planned?.notes, [{ OwnerAsked: 'Karpenter' }], JSON.stringify(plain.json));
  const respected = await call('drains/preview', { node: s.node, options: { ignore_daemonsets: true, respect_do_not_disrupt: true } });
  const refused = respected.json.refused.find((p) => key(p) === pod);
  assert.deepEqual([refused?.reason, refused?.needs], [{ OwnerAsked: 'Karpenter' }, []], JSON.stringify(respected.json));

  s.openSpare();
  const { context, page, errors } = await openBoard();
  const { panel } = await drainInBrowser(page, s.node, { beforeConfirm: async (dialog) => {
    const note = dialog.locator(`[data-testid="group-evict"] [data-testid="preview-pod"][data-pod="${pod}"] [data-testid="preview-note"]`);
    assert.match(await note.textContent(), /its owner asked that it not be disrupted \(karpenter\.sh\/do-not-disrupt: "true"\); kubectl evicts it anyway/);
    // Respecting it refuses the drain, naming the pod and what to do; nothing can be confirmed.
    await dialog.locator('[data-testid="opt-respect-do-not-disrupt"]').check();
    const row = dialog.locator(`[data-testid="group-refused"] [data-testid="preview-pod"][data-pod="${pod}"]`);
    await row.waitFor({ timeout: 15_000 });
    assert.match(await row.textContent(), /its owner asked that it not be disrupted .*turn off "Respect owners' do-not-disrupt requests"/);
    assert.equal(await dialog.locator('[data-testid="confirm-drain"]').isDisabled(), true);
    await page.screenshot({ path: join(artifactsDir, 'blocker-owner-asked.png') });
    await dialog.locator('[data-testid="opt-respect-do-not-disrupt"]').uncheck();
    await dialog.locator('[data-testid="group-evict"] [data-testid="preview-pod"]').first().waitFor({ timeout: 15_000 });
  } });
  await panel.locator('[data-testid="progress-state"][data-state="Drained"]').waitFor({ timeout: 60_000 });
  assert.ok(!s.podsOnNode().includes(pod), 'evicted, as kubectl would');
  assert.deepEqual(errors, []);
  await context.close();
});

test('volumes still attached after the pods are gone: the drain waits for them, naming each, and says when it gave up', { timeout: 180_000 }, async () => {
  const s = await setUp('volume');
  s.deployment('web', 1);
  await s.running(1);
  s.openSpare();
  const attachment = `csi-${s.node}`;
  const attach = () => apply({
    apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', metadata: { name: attachment },
    spec: { attacher: 'csi.drainboard.test', nodeName: s.node, source: { persistentVolumeName: `pv-${s.ns}` } },
  });
  attach();
  cleanups.push(() => { try { kubectl('delete', 'volumeattachment', attachment, '--wait=false'); } catch {} });

  const { context, page, errors } = await openBoard();
  const { panel, id } = await drainInBrowser(page, s.node);
  await panel.locator('[data-testid="progress-state"][data-state^="Detaching"]').waitFor({ timeout: 60_000 });
  assert.deepEqual(s.podsOnNode(), [], 'every pod is gone');
  assert.equal(await panel.locator('[data-testid="progress-state"]').textContent(),
    'Drained; waiting for 1 volume to detach before the node is safe to reboot');
  const volume = panel.locator(`[data-testid="volume"][data-attachment="${attachment}"]`);
  assert.match(await volume.textContent(), new RegExp(`^${attachment}: volume pv-${s.ns}, attacher csi\\.drainboard\\.test, attached for `));
  const detaching = (await status(id)).state.Detaching;
  assert.equal(detaching.count, 1);
  assert.equal(detaching.named[0].attachment, attachment);
  await page.screenshot({ path: join(artifactsDir, 'drain-detaching.png') });

  kubectl('delete', 'volumeattachment', attachment);
  await panel.locator('[data-testid="progress-state"][data-state="Drained"]').waitFor({ timeout: 30_000 });
  assert.equal((await status(id)).state, 'Drained');

  // A volume that never detaches: the drain's own timeout ends the wait, and the state says the node is not safe.
  attach();
  const again = await call('drains/start', { node: s.node, options: { ignore_daemonsets: true, timeout_seconds: 6 } });
  assert.equal(again.status, 200, JSON.stringify(again.json));
  const ended = await waitFor('the second drain to end', 30_000, async () => {
    const p = await status(again.json.id);
    return p.finished_at ? p : null;
  });
  assert.equal(ended.state.DrainedVolumesAttached?.count, 1, JSON.stringify(ended.state));
  assert.deepEqual(errors, []);
  await context.close();
});

/**
 * Three replicas under a budget of maxUnavailable 1 (two must be healthy), two of them never Ready: the budget is
 * short of healthy pods, so under IfHealthyBudget (the default) neither not-Ready pod may be evicted, and the
 * Ready one waits for the budget. Returns the scenario and the pods, the not-Ready ones first.
 */
async function unhealthyBudget(name) {
  const s = await setUp(name);
  s.deployment('web', 3);
  apply({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web-pdb' },
    spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'web' } } } }, s.ns);
  await s.running(3);
  const pods = s.podsOnNode().map((p) => p.split('/')[1]);
  // kwok marks a pod Ready only while it is Pending: a running pod made not Ready stays so.
  for (const pod of pods.slice(0, 2)) {
    kubectl('patch', 'pod', pod, '-n', s.ns, '--subresource=status', '--type=strategic',
      '-p', '{"status":{"conditions":[{"type":"Ready","status":"False"}]}}');
  }
  await waitFor('web-pdb to count 1 healthy of 2 desired', 30_000, () =>
    kubectl('get', 'pdb', 'web-pdb', '-n', s.ns, '-o', 'jsonpath={.status.currentHealthy}/{.status.desiredHealthy}').trim() === '1/2');
  return { s, unready: pods.slice(0, 2), ready: pods[2] };
}

test('a budget held by not-Ready pods is explained, and deleting one, with consent, lets the drain finish', { timeout: 240_000 }, async () => {
  const { s, unready, ready } = await unhealthyBudget('unready');
  const { context, page, errors } = await openBoard();
  const { panel, id } = await drainInBrowser(page, s.node);
  const row = panel.locator(`[data-testid="progress-pod"][data-pod="${s.ns}/${unready[0]}"]`);
  const blocker = row.locator('[data-testid="blocker"][data-class="held-while-unhealthy"]');
  await blocker.waitFor({ timeout: 30_000 });
  assert.match(await blocker.textContent(),
    /^This pod is not Ready, and PDB web-pdb has 1 of the 2 healthy pods it needs: under its unhealthyPodEvictionPolicy IfHealthyBudget \(the default\) the pod cannot be evicted; AlwaysAllow would let it go/);
  assert.match(await blocker.locator('[data-testid="blocker-fixes"]').textContent(),
    /delete this pod, which is not serving; set PDB web-pdb's unhealthyPodEvictionPolicy to AlwaysAllow/);
  const held = (await status(id)).pods.find((p) => p.name === unready[0]).state.Blocked.blockers;
  assert.deepEqual(held, [{ HeldWhileUnhealthy: { budget: 'web-pdb', healthy: 1, desired: 2 } }]);

  // The endpoint refuses what it should, and changes nothing meanwhile.
  const unblock = (body, headers = {}) => fetch(`${ctx.server.url}/api/drains/unblock`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, json: await r.json() }));
  const good = { id, namespace: s.ns, pod: unready[0], action: 'DeleteUnreadyPod', confirm: unready[0] };
  const bad = [
    [{ ...good, pod: `${unready[0]}/eviction` }, 400, /not a pod name/],
    [{ ...good, namespace: 'a.b' }, 400, /not a namespace name/],
    [{ ...good, action: 'Explode' }, 400, /cannot be read/],
    [{ ...good, confirm: undefined }, 400, new RegExp(`type ${unready[0]} to confirm`)],
    [{ ...good, confirm: 'web-pdb' }, 400, new RegExp(`type ${unready[0]} to confirm`)],
    [{ ...good, action: 'AlwaysAllow', confirm: unready[0] }, 400, /type web-pdb to confirm/],
    [{ ...good, pod: ready, confirm: ready }, 409, /not held by a budget short of healthy pods/],
    [{ ...good, id: 'no-such-drain' }, 404, /no drain with id no-such-drain/],
  ];
  for (const [body, code, why] of bad) {
    const res = await unblock(body);
    assert.equal(res.status, code, JSON.stringify([body, res.json]));
    assert.match(said(res.json), why, JSON.stringify(res.json));
  }
  for (const headers of [{ 'sec-fetch-site': 'cross-site' }, { origin: 'http://evil.example' }]) {
    const res = await unblock(good, headers);
    assert.equal(res.status, 403, JSON.stringify(headers));
  }
  assert.ok(s.podsOnNode().includes(`${s.ns}/${unready[0]}`), 'no refused request deleted the pod');

  // The way out, taken in the panel: the name typed, then the drain finishes by evictions alone.
  s.openSpare();
  await row.locator('[data-testid="unblock-delete-pod"]').click();
  const form = row.locator('[data-testid="unblock-form"][data-action="DeleteUnreadyPod"]');
  assert.match(await form.textContent(), new RegExp(`Type ${unready[0]} to confirm`));
  assert.equal(await form.locator('[data-testid="unblock-confirm"]').isDisabled(), true, 'not before the name is typed');
  // Typed at a person's pace while the drain's retries stream in: the confirmation keeps its text and focus.
  await typeWhileStreaming(page, form.locator('[data-testid="unblock-confirm-input"]'), unready[0],
    async () => (await status(id)).pods.find((p) => p.name === unready[0]));
  await page.screenshot({ path: join(artifactsDir, 'blocker-unhealthy.png') });
  await form.locator('[data-testid="unblock-confirm"]').click();
  await panel.locator('[data-testid="progress-state"][data-state="Drained"]').waitFor({ timeout: 90_000 });
  const options = (await status(id)).options;
  assert.deepEqual([options.force, options.disable_eviction], [false, false]);
  const history = await call('nodes/history', { node: s.node });
  assert.ok(history.json.some((e) => e.action === 'Unblocked' && e.outcome.includes(`deleted the not-Ready pod ${s.ns}/${unready[0]}`)),
    JSON.stringify(history.json));
  assert.deepEqual(errors, []);
  await context.close();
});

test('a budget held by not-Ready pods: setting AlwaysAllow, with consent, lets the drain evict them', { timeout: 240_000 }, async () => {
  const { s, unready } = await unhealthyBudget('always');
  s.openSpare();
  const { context, page, errors } = await openBoard();
  const { panel } = await drainInBrowser(page, s.node);
  const row = panel.locator(`[data-testid="progress-pod"][data-pod="${s.ns}/${unready[1]}"]`);
  await row.locator('[data-testid="blocker"][data-class="held-while-unhealthy"]').waitFor({ timeout: 30_000 });
  await row.locator('[data-testid="unblock-always-allow"]').click();
  const form = row.locator('[data-testid="unblock-form"][data-action="AlwaysAllow"]');
  assert.match(await form.textContent(), /for good and for every pod it covers/);
  await form.locator('[data-testid="unblock-confirm-input"]').fill('web-pdb');
  await form.locator('[data-testid="unblock-confirm"]').click();
  await row.locator('[data-testid="unblock-result"]').waitFor({ timeout: 15_000 });
  assert.equal(kubectl('get', 'pdb', 'web-pdb', '-n', s.ns, '-o', 'jsonpath={.spec.unhealthyPodEvictionPolicy}').trim(), 'AlwaysAllow');
  await panel.locator('[data-testid="progress-state"][data-state="Drained"]').waitFor({ timeout: 90_000 });
  assert.deepEqual(s.podsOnNode(), []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a pod within its grace period shows the time it has left, counting down in the panel and on the card', { timeout: 120_000 }, async () => {
  const s = await setUp('grace');
  // kwok deletes this pod only after the delay its annotation names: a pod taking its grace period to stop.
  apply({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'slow' },
    spec: { replicas: 1, selector: { matchLabels: { app: 'slow' } },
      template: { metadata: { labels: { app: 'slow' }, annotations: { 'pod-delete.stage.kwok.x-k8s.io/delay': '50s' } },
        spec: { nodeSelector: { 'drainboard.dev/pool': s.node },
          tolerations: [{ key: 'drainboard.dev/test', operator: 'Exists', effect: 'NoSchedule' }],
          terminationGracePeriodSeconds: 50, containers: [{ name: 'c', image: 'nginx:1.27' }] } } } }, s.ns);
  await s.running(1);
  s.openSpare();

  const { context, page, errors } = await openBoard();
  const { card, panel, id } = await drainInBrowser(page, s.node);
  const row = panel.locator('[data-testid="progress-pod"][data-state="terminating"] [data-testid="blocker"][data-class="shutting-down"]');
  const onCard = card.locator('[data-testid="card-drain-blocker"][data-class="shutting-down"]');
  await row.waitFor({ timeout: 30_000 });
  await onCard.waitFor({ timeout: 15_000 });
  const left = async (locator) => {
    const shown = await locator.textContent();
    const seconds = Number(shown.match(/^Shutting down within its grace period: (\d+)/)?.[1]);
    assert.ok(Number.isInteger(seconds), shown);
    return seconds;
  };
  const [panelFirst, cardFirst] = [await left(row), await left(onCard)];
  assert.ok(panelFirst > 30 && panelFirst <= 50, `most of the 50 s left: ${panelFirst}`);
  assert.ok(Math.abs(cardFirst - panelFirst) <= 2, `the card says as much: ${cardFirst} and ${panelFirst}`);
  const deadline = Date.parse((await status(id)).pods[0].state.Terminating.deletion_deadline);
  assert.ok(Math.abs((deadline - Date.now()) / 1000 - panelFirst) <= 3, 'the time left is the pod\'s own deadline');
  // Counting down with the clock, with no new word from the drain.
  await page.waitForTimeout(4_000);
  const [panelLater, cardLater] = [await left(row), await left(onCard)];
  assert.ok(panelLater <= panelFirst - 3, `the panel counts down: ${panelFirst} then ${panelLater}`);
  assert.ok(cardLater <= cardFirst - 3, `the card counts down: ${cardFirst} then ${cardLater}`);
  await page.screenshot({ path: join(artifactsDir, 'blocker-grace.png') });
  assert.equal((await call('drains/cancel', { id })).status, 200);
  assert.deepEqual(errors, []);
  await context.close();
});
