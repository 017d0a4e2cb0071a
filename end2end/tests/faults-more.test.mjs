// More faults at the API boundary, through the fault proxy (fault-proxy.mjs): Retry-After honoured from the header,
// throttling told apart from budgets, a shutting-down API server's 503s, a 404 that lies, errors that fail the pod,
// the wait's watch refused, dropped or slow, and the board's watches failing. Each test asserts the drain's final
// state and the pods really left on the node.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { faultProxy, status } from './fault-proxy.mjs';
import { apply, kubectl, launchBrowser, scenario, startDrainboard, waitFor } from './support.mjs';

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c(); });

const HOLD = 'drainboard.dev/test-hold';
let proxy;
let server;

/**
 * A scenario with `replicas` pods of Deployment `web` running on its node and the spare open. With `hold`, the pods
 * carry a finalizer, so that an evicted pod stays Terminating until `release()`.
 */
async function setUp(name, replicas = 1, { hold = false } = {}) {
  if (!proxy) {
    proxy = await faultProxy();
    cleanups.push(() => proxy.close());
    server = await startDrainboard([], { kubeconfig: proxy.kubeconfig });
    cleanups.push(() => server.stop());
  }
  const s = await scenario(name);
  s.release = () => {
    const pods = kubectl('get', 'pods', '-n', s.ns, '-o', 'name').split('\n').filter(Boolean);
    for (const pod of pods) {
      try { kubectl('patch', '-n', s.ns, pod, '--type=merge', '-p', '{"metadata":{"finalizers":null}}'); } catch {}
    }
  };
  cleanups.push(() => { s.release(); s.cleanup(); });
  apply({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
    spec: { replicas, selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' }, ...(hold ? { finalizers: [HOLD] } : {}) }, spec: {
        nodeSelector: { 'drainboard.dev/pool': s.node },
        tolerations: [{ key: 'drainboard.dev/test', operator: 'Exists', effect: 'NoSchedule' }],
        containers: [{ name: 'c', image: 'nginx:1.27' }],
      } } },
  }, s.ns);
  await s.running(replicas);
  s.openSpare();
  return s;
}

const post = (path, body) => fetch(`${server.url}${path}`, {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
}).then((r) => r.json());
const podState = (pod) => (typeof pod.state === 'string' ? pod.state : Object.keys(pod.state)[0]);

/** Starts a drain; `during(progress)` is called at every poll. Resolves with the final progress and a timeline. */
async function drain(node, { timeout = 60, during } = {}) {
  const startedAt = Date.now();
  const started = await post('/api/drains/start', { node, options: { timeout_seconds: timeout } });
  const { id } = started;
  assert.ok(id, `the drain started: ${JSON.stringify(started)}`);
  const timeline = [];
  const final = await waitFor('the drain to end', (timeout + 30) * 1000, async () => {
    const p = await post('/api/drains/status', { id });
    timeline.push({ at: Date.now(), state: p.state, pods: p.pods.map((pod) => [pod.name, podState(pod), pod.state]) });
    await during?.(p);
    return ['Cordoning', 'Planning', 'Evicting'].includes(p.state) ? null : p;
  });
  const seen = new Set(timeline.flatMap((t) => t.pods.map(([, state]) => state)));
  return { final, timeline, seen, took: Date.now() - startedAt };
}

const eviction = (ns) => new RegExp(`^/api/v1/namespaces/${ns}/pods/[^/]+/eviction`);
/** The wait's watch of the node's pods, and the list that starts it (the planner's list has the same URL). */
const nodePods = (node) => new RegExp(`^/api/v1/pods\\?.*fieldSelector=spec\\.nodeName%3D${node}(&|$)`);
const budgetBody = status(429, 'TooManyRequests', "Cannot evict pod as it would violate the pod's disruption budget.",
  { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget web-pdb needs 1 healthy pods and has 1 currently' }] });

// Fault: a budget 429 whose Retry-After is only in the header (3 s). Expect: Blocked, retried after ~3 s, not 5 s.
test('a budget 429 with Retry-After: 3 in the header: shown Blocked, retried after 3 s, and the drain completes', { timeout: 120_000 }, async () => {
  const s = await setUp('fm-retry-after');
  const refused = proxy.rule({ method: 'POST', path: eviction(s.ns), status: 429, headers: { 'retry-after': '3' }, body: budgetBody });
  const retry = proxy.rule({ method: 'POST', path: eviction(s.ns) });
  const { final, seen, timeline } = await drain(s.node);
  assert.equal(refused.hits.length, 1);
  assert.equal(retry.hits.length, 1, 'the eviction was retried');
  const gap = retry.hits[0] - refused.hits[0];
  assert.ok(gap >= 2_700 && gap < 4_500, `the retry came after the header's 3 s, not kubectl's 5 s (${gap} ms)`);
  assert.ok(seen.has('Blocked'), `shown blocked: ${[...seen]}`);
  const blocked = timeline.flatMap((t) => t.pods).find(([, state]) => state === 'Blocked')[2].Blocked;
  const shownWait = Date.parse(blocked.retry_at) - refused.hits[0];
  assert.ok(shownWait >= 2_500 && shownWait < 4_000, `the retry time shown is the header's (${shownWait} ms)`);
  assert.equal(final.state, 'Drained', JSON.stringify(final.state));
  assert.deepEqual(s.podsOnNode(), []);
});

// Fault: throttling, a plain-text 429 with no Retry-After. Expect: retried after 5 s, never Blocked, Drained.
test('a plain-text 429 without Retry-After: retried after 5 s, never shown Blocked, and the drain completes', { timeout: 120_000 }, async () => {
  const s = await setUp('fm-throttle');
  const throttled = proxy.rule({ method: 'POST', path: eviction(s.ns), status: 429, body: 'Too many requests, please try again later.\n' });
  const retry = proxy.rule({ method: 'POST', path: eviction(s.ns) });
  const { final, seen } = await drain(s.node);
  assert.equal(retry.hits.length, 1, 'the eviction was retried');
  const gap = retry.hits[0] - throttled.hits[0];
  assert.ok(gap >= 4_700 && gap < 7_000, `retried after kubectl's 5 s (${gap} ms)`);
  assert.ok(!seen.has('Blocked'), `throttling is not a budget block: ${[...seen]}`);
  assert.equal(final.state, 'Drained', JSON.stringify(final.state));
  assert.deepEqual(s.podsOnNode(), []);
});

// Fault: two 503s with Retry-After: 1, as an API server shutting down answers. Expect: retried ~1 s apart, Drained.
test('an API server answering 503 with Retry-After: 1 twice: retried a second apart, and the drain completes', { timeout: 120_000 }, async () => {
  const s = await setUp('fm-503');
  const unavailable = proxy.rule({ method: 'POST', path: eviction(s.ns), times: 2, status: 503, headers: { 'retry-after': '1' },
    body: status(503, 'ServiceUnavailable', 'The apiserver is shutting down, please try again later.') });
  const retry = proxy.rule({ method: 'POST', path: eviction(s.ns) });
  const { final, seen } = await drain(s.node);
  assert.equal(unavailable.hits.length, 2, 'both 503s were given');
  assert.equal(retry.hits.length, 1, 'then the eviction went through');
  const gaps = [unavailable.hits[1] - unavailable.hits[0], retry.hits[0] - unavailable.hits[1]];
  assert.ok(gaps.every((g) => g >= 800 && g < 2_500), `retried after Retry-After's 1 s each time (${gaps} ms)`);
  assert.ok(!seen.has('Failed'), `never failed: ${[...seen]}`);
  assert.equal(final.state, 'Drained', JSON.stringify(final.state));
  assert.deepEqual(s.podsOnNode(), []);
});

// Fault: a 503 with Retry-After: 1 that never stops. Expect: retried at most 12 times in a row, then the pod fails
// with the API's message; the drain ends Failed and the pod is still on the node.
test('a 503 with Retry-After that never stops: 12 retries, then the pod fails and stays on the node', { timeout: 120_000 }, async () => {
  const s = await setUp('fm-503-forever');
  const body = status(503, 'ServiceUnavailable', 'The apiserver is shutting down, please try again later.');
  const unavailable = proxy.rule({ method: 'POST', path: eviction(s.ns), times: 1_000, status: 503, headers: { 'retry-after': '1' }, body });
  const { final } = await drain(s.node);
  unavailable.left = 0;
  assert.equal(unavailable.hits.length, 13, 'the first answer and 12 retries');
  assert.ok(final.state.Failed, JSON.stringify(final.state));
  assert.deepEqual(final.pods[0].state.Failed?.Unavailable, { tries: 12, answer: { code: 503, message: body.message } },
    JSON.stringify(final.pods[0].state));
  assert.equal(s.podsOnNode().length, 1, 'the pod is still on the node, as reported');
});

// Fault: the eviction's connection dropped with no answer, twice. Expect: retried (after 1 s, then 2 s), Drained.
test('an eviction whose connection drops twice with no answer: retried, and the drain completes', { timeout: 120_000 }, async () => {
  const s = await setUp('fm-drop');
  const dropped = proxy.rule({ method: 'POST', path: eviction(s.ns), times: 2, drop: true });
  const retry = proxy.rule({ method: 'POST', path: eviction(s.ns) });
  const { final, seen } = await drain(s.node);
  assert.equal(dropped.hits.length, 2);
  assert.equal(retry.hits.length, 1, 'then the eviction went through');
  const gaps = [dropped.hits[1] - dropped.hits[0], retry.hits[0] - dropped.hits[1]];
  assert.ok(gaps[0] >= 800 && gaps[0] < 2_000 && gaps[1] >= 1_800 && gaps[1] < 3_500, `backed off 1 s, then 2 s (${gaps} ms)`);
  assert.ok(!seen.has('Failed'), `never failed: ${[...seen]}`);
  assert.equal(final.state, 'Drained', JSON.stringify(final.state));
  assert.deepEqual(s.podsOnNode(), []);
});

// Fault: a 404 on the eviction while the pod still exists. Expect: not reported Gone; the pod is re-read (same UID)
// and the eviction retried; Drained with the node really empty.
test('a 404 on eviction while the pod still exists: re-read, retried, never reported Gone early, and the drain completes', { timeout: 120_000 }, async () => {
  const s = await setUp('fm-404-lie');
  const [pod] = s.podsOnNode().map((p) => p.split('/')[1]);
  const lie = proxy.rule({ method: 'POST', path: eviction(s.ns), status: 404,
    body: status(404, 'NotFound', `pods "${pod}" not found`, { name: pod, kind: 'pods' }) });
  const retry = proxy.rule({ method: 'POST', path: eviction(s.ns) });
  const { final, timeline } = await drain(s.node);
  assert.equal(lie.hits.length, 1);
  assert.equal(retry.hits.length, 1, 'the eviction was retried after the 404');
  const reread = proxy.requests.filter((r) => r.method === 'GET' && r.url.startsWith(`/api/v1/namespaces/${s.ns}/pods/${pod}`)
    && r.at > lie.hits[0] && r.at <= retry.hits[0]);
  assert.ok(reread.length >= 1, 'the pod was read again between the 404 and the retry');
  const goneAt = timeline.find((t) => t.pods.some(([, state]) => state === 'Gone'))?.at;
  assert.ok(goneAt > retry.hits[0], 'not reported Gone before the retried eviction');
  assert.equal(final.state, 'Drained', JSON.stringify(final.state));
  assert.deepEqual(s.podsOnNode(), []);
});

// Fault: a 404 on every eviction while the pod still exists. Expect: re-read and retried 12 times in a row (backing
// off 1, 2, 4, then 5 s), then the pod fails saying so; the drain ends Failed; the pod is still on the node.
test('a 404 on every eviction while the pod exists: 12 retries, then Failed, never Gone, the pod still there', { timeout: 120_000 }, async () => {
  const s = await setUp('fm-404-always');
  const [pod] = s.podsOnNode().map((p) => p.split('/')[1]);
  const lie = proxy.rule({ method: 'POST', path: eviction(s.ns), times: 1_000, status: 404,
    body: status(404, 'NotFound', `pods "${pod}" not found`, { name: pod, kind: 'pods' }) });
  const { final, seen } = await drain(s.node, { timeout: 90 });
  lie.left = 0;
  assert.equal(lie.hits.length, 13, 'the first answer and 12 retries');
  assert.ok(!seen.has('Gone'), `never reported Gone: ${[...seen]}`);
  assert.ok(final.state.Failed, JSON.stringify(final.state));
  assert.equal(final.pods[0].state.Failed?.NotFoundYetPresent?.answer.code, 404, JSON.stringify(final.pods[0].state));
  assert.equal(s.podsOnNode().length, 1, 'the pod is still on the node, as reported');
});

// Fault: the pod really is deleted (force, grace 0) while its eviction is on its way, so the API server itself
// answers 404. Expect: Gone, Drained.
test('a 404 on eviction for a pod really gone: Gone, and the drain completes', { timeout: 120_000 }, async () => {
  const s = await setUp('fm-404-gone');
  const [pod] = s.podsOnNode().map((p) => p.split('/')[1]);
  const slow = proxy.rule({ method: 'POST', path: eviction(s.ns), delayMs: 2_000 });
  let deleted = false;
  const { final } = await drain(s.node, { during: () => {
    if (!deleted && slow.hits.length === 1) {
      deleted = true;
      kubectl('delete', 'pod', '-n', s.ns, pod, '--force', '--grace-period=0');
    }
  } });
  assert.ok(deleted);
  const answered = proxy.requests.find((r) => r.method === 'POST' && eviction(s.ns).test(r.url));
  assert.equal(answered.status, 404, 'the API server itself answered 404');
  assert.equal(final.state, 'Drained', JSON.stringify(final.state));
  assert.equal(podState(final.pods[0]), 'Gone');
  assert.deepEqual(s.podsOnNode(), []);
});

// Fault: a 504 gateway timeout, and a 403 worded like a budget refusal but with no NamespaceTerminating cause.
// Expect: each fails the pod with the API's message, the drain ends Failed, and the pod is still on the node.
for (const [label, code, body] of [
  ['504', 504, status(504, 'Timeout', 'Timeout: request did not complete within the allotted timeout')],
  ['403 worded like a budget', 403, status(403, 'Forbidden', "Cannot evict pod as it would violate the pod's disruption budget.")],
]) {
  test(`an eviction answered ${label}: the pod fails with the API's message, the drain ends Failed, the pod stays`, { timeout: 120_000 }, async () => {
    const s = await setUp(`fm-${code}`);
    const rule = proxy.rule({ method: 'POST', path: eviction(s.ns), status: code, body });
    const { final } = await drain(s.node);
    assert.equal(rule.hits.length, 1, 'no retry');
    assert.ok(final.state.Failed, JSON.stringify(final.state));
    assert.deepEqual(final.pods[0].state.Failed?.Api, { code, message: body.message }, `the API's answer: ${JSON.stringify(final.pods[0].state)}`);
    assert.equal(s.podsOnNode().length, 1, 'the pod the drain could not evict is still on the node, as reported');
  });
}

// Fault: the wait's watch of the node's pods (and the list that starts it) answered 403. Expect: the waiting pods
// end Failed with a message about watching within ~30 s, not at the 60 s timeout; they are still Terminating.
test('the wait\'s watch answered 403: the waiting pods fail with a message about watching within 30 s', { timeout: 120_000 }, async () => {
  const s = await setUp('fm-watch-403', 2, { hold: true });
  // The planner's list of the node's pods passes; every later list or watch of them is forbidden.
  const forbidden = proxy.rule({ method: 'GET', path: nodePods(s.node), pass: 1, times: 10_000, status: 403,
    body: status(403, 'Forbidden', 'pods is forbidden: User "admin" cannot watch resource "pods" in API group "" at the cluster scope',
      { kind: 'pods' }) });
  const { final, took } = await drain(s.node);
  forbidden.left = 0;
  assert.ok(forbidden.hits.length >= 1, 'the wait\'s list or watch was refused');
  assert.ok(final.state.Failed, JSON.stringify(final.state));
  for (const pod of final.pods) assert.equal(pod.state.Failed?.WatchRefused?.code, 403, JSON.stringify(pod.state));
  assert.ok(took < 30_000, `ended in bounded time, not at the timeout (${took} ms)`);
  // The truth: both were evicted and stay Terminating behind the finalizer.
  assert.equal(s.podsOnNode().length, 2);
  assert.match(kubectl('get', 'pods', '-n', s.ns, '--field-selector', `spec.nodeName=${s.node}`, '-o',
    'jsonpath={.items[*].metadata.deletionTimestamp}'), /\S+ \S+/);
  s.release();
  await waitFor('the node to empty once the finalizers go', 30_000, () => s.podsOnNode().length === 0);
});

// Fault: the wait's watch connection dropped mid-wait, and evictions answered slowly (3 s). Expect: Drained, node empty.
test('a dropped watch during the wait and a slow eviction answer: the drain still ends Drained', { timeout: 120_000 }, async () => {
  const s = await setUp('fm-watch-drop', 2, { hold: true });
  const slow = proxy.rule({ method: 'POST', path: eviction(s.ns), times: 2, delayMs: 3_000 });
  let cut = 0;
  const { final, seen } = await drain(s.node, { during: (p) => {
    if (cut === 0 && p.pods.length === 2 && p.pods.every((pod) => podState(pod) === 'Terminating')) {
      cut = proxy.cut('GET', nodePods(s.node));
      // The finalizers go a second after the cut: the deletions happen while the watch reconnects.
      setTimeout(() => s.release(), 1_000);
    }
  } });
  assert.equal(slow.hits.length, 2, 'both evictions were slow');
  assert.ok(cut >= 1, 'the wait\'s watch was cut');
  assert.ok(!seen.has('Failed'), `nothing failed: ${[...seen]}`);
  assert.equal(final.state, 'Drained', JSON.stringify(final.state));
  assert.deepEqual(s.podsOnNode(), []);
});

// Fault: the board's nodes watch (and its re-lists) answered 500 for ~15 s. Expect: the page shows the lost-API-server
// notice meanwhile; once the answers are good again it goes, and the cards are current (nodes made meanwhile show).
test('the board\'s watches answered 500 for 15 s: the page says the API server is lost, then recovers', {
  timeout: 150_000,
  // Until the engine kept a failing state per watched kind, a 500 counted as "answered" and any other kind's next
  // event cleared the lost time, so this notice never showed.
}, async () => {
  if (!proxy) await setUp('fm-board-first');
  const browser = await launchBrowser();
  cleanups.push(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  await page.goto(server.url);
  await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 30_000 });
  assert.equal(await page.locator('[data-testid="api-lost"]').count(), 0);

  const failing = proxy.rule({ method: 'GET', path: /^\/api\/v1\/nodes\?/, times: 100_000, status: 500,
    body: status(500, 'InternalError', 'Internal error occurred: etcdserver: request timed out') });
  // Every appearance and disappearance of the notice, so that a notice that only flickers is told apart from none.
  await page.evaluate(() => {
    window.lostLog = [];
    let shown = false;
    new MutationObserver(() => {
      const now = !!document.querySelector('[data-testid="api-lost"]');
      if (now !== shown) { shown = now; window.lostLog.push([now ? 'shown' : 'gone', Date.now()]); }
    }).observe(document.body, { childList: true, subtree: true });
  });
  const cutAt = Date.now();
  assert.ok(proxy.cut('GET', /^\/api\/v1\/nodes\?/) >= 1, 'the board\'s nodes watch was open, and is cut');
  try {
    await page.locator('[data-testid="api-lost"]').waitFor({ timeout: 10_000 });
  } catch {
    const log = (await page.evaluate(() => window.lostLog)).map(([what, at]) => `${what} at +${at - cutAt} ms`);
    assert.fail(`no lost-API-server notice 10 s into the 500s (${failing.hits.length} answered 500; notice: ${log.join(', ') || 'never shown'})`);
  }
  // Nodes made during the outage: the cards must show them once the watches recover.
  const s = await scenario('fm-board');
  cleanups.push(() => s.cleanup());
  await new Promise((r) => setTimeout(r, Math.max(0, 15_000 - (Date.now() - cutAt))));
  assert.equal(await page.locator('[data-testid="api-lost"]').count(), 1, 'still lost after 15 s of 500s');
  assert.equal(await page.locator(`[data-testid="node-row"][data-node="${s.node}"]`).count(), 0, 'no card from a watch that fails');
  failing.left = 0;
  const healedAt = Date.now();
  await page.locator('[data-testid="api-lost"]').waitFor({ state: 'detached', timeout: 60_000 });
  await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 5_000 });
  await page.locator(`[data-testid="node-row"][data-node="${s.node}"]`).waitFor({ timeout: 10_000 });
  console.log(`board: ${failing.hits.length} answers of 500; recovered ${Date.now() - healedAt} ms after they stopped`);
  assert.deepEqual(s.podsOnNode(), [], 'the new node holds no pods');
});
