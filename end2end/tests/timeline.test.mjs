// The maintenance timeline against the real control plane: a cordon, a drain and an uncordon, and the node's own
// failure, as spans of the last 24 hours, read from the durable history (so still there after a restart); a drain's
// span opens its record; and `POST /api/history/recent` refuses bad input and other origins.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { artifactsDir, harness, kubectl, launchBrowser, scenario, startDrainboard, waitFor } from './support.mjs';

let s;
let browser;
before(async () => {
  s = await scenario('timeline');
  s.deployment('web', 1);
  await s.running(1);
  s.openSpare();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  try { kubectl('delete', 'configmap', '-n', 'default', `drainboard-history.${s.node}`, '--ignore-not-found'); } catch {}
  s?.cleanup();
});

async function post(server, path, body, headers = {}) {
  const res = await fetch(`${server.url}/api/${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

/** The history's entries for the scenario's node, as the API server holds them. */
function historyActions() {
  const text = kubectl('get', 'configmap', '-n', 'default', `drainboard-history.${s.node}`, '-o', 'jsonpath={.data.entries}');
  return JSON.parse(text || '[]').map((e) => e.action);
}

test('a drain and an uncordon, and the node\'s failure, are spans on the timeline, after a restart too', { timeout: 240_000 }, async () => {
  let server = await startDrainboard();
  let drainId;
  try {
    assert.equal((await post(server, 'nodes/cordon', { node: s.node, reason: 'firmware' })).status, 200);
    const started = await post(server, 'drains/start', { node: s.node, reason: 'firmware' });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    drainId = started.body.id;
    await waitFor('the drain to end', 90_000, async () => {
      const p = (await post(server, 'drains/status', { id: drainId })).body;
      return ['Cordoning', 'Planning', 'Evicting'].includes(p.state) ? null : p;
    });
    assert.equal((await post(server, 'nodes/uncordon', { node: s.node })).status, 200);
    // The node stops being Ready, then comes back: the server records both in the history by itself.
    harness('not-ready', s.node);
    await waitFor('the failure in the history', 30_000, () => historyActions().includes('NodeNotReady'));
    harness('restore', s.node);
    await waitFor('the recovery in the history', 60_000, () => historyActions().includes('NodeReady'));
    assert.equal(historyActions().filter((a) => a === 'NodeNotReady').length, 1, 'recorded once');
  } finally {
    await server.stop();
  }

  // A new server: the timeline comes from the history in the cluster, not from anything the last one held.
  server = await startDrainboard();
  const page = await browser.newPage({ viewport: { width: 1600, height: 900 } });
  try {
    await page.goto(`${server.url}/?view=timeline`);
    await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor();
    const row = page.locator(`[data-testid="timeline-row"][data-node="${s.node}"]`);
    await row.waitFor({ timeout: 20_000 });
    const spans = await row.locator('[data-testid="timeline-span"]').evaluateAll((els) =>
      els.map((e) => ({ kind: e.dataset.kind, result: e.dataset.result, id: e.dataset.drainId ?? null,
        title: e.querySelector('title')?.textContent ?? '' })));
    const kinds = spans.map((x) => x.kind).sort();
    assert.deepEqual(kinds, ['cordoned', 'drain', 'not-ready'], JSON.stringify(spans));
    const drain = spans.find((x) => x.kind === 'drain');
    assert.equal(drain.result, 'ok');
    assert.equal(drain.id, drainId);
    assert.match(drain.title, /^Drain by \S+, \d+(\.\d)?s: Drained · firmware$/);
    assert.match(spans.find((x) => x.kind === 'cordoned').title, /^Cordoned by \S+ for \d/);
    assert.match(spans.find((x) => x.kind === 'not-ready').title, /^Not Ready for \d/);
    // The same spans in words, for screen readers.
    assert.match(await row.locator('ul.visually-hidden').textContent(), /Drain by .*Drained/);
    await page.screenshot({ path: join(artifactsDir, 'timeline.png'), fullPage: true });

    // The drain's span opens its record: the node page, with that drain's entries marked.
    await row.locator('[data-testid="timeline-span"][data-kind="drain"] a').click();
    await page.waitForURL(new RegExp(`/nodes/${s.node}\\?record=${drainId}$`));
    const chosen = page.locator('[data-testid="history-entry"][aria-current="true"]');
    await chosen.first().waitFor({ timeout: 20_000 });
    const actions = await chosen.evaluateAll((els) => els.map((e) => e.dataset.action).sort());
    assert.deepEqual(actions, ['DrainEnded', 'DrainStarted']);
    assert.equal(await page.locator('[data-testid="progress-panel"]').count(), 0, 'a record, not the live panel');
  } finally {
    await page.close();
    await server.stop();
  }
});

test('`POST /api/history/recent` answers with the window\'s entries, and refuses bad input and other origins', { timeout: 60_000 }, async () => {
  const server = await startDrainboard();
  try {
    const ok = await post(server, 'history/recent', { nodes: 5 });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.kept, true);
    const nodes = new Set(ok.body.entries.map((e) => e.node));
    assert.ok(nodes.size <= 5, `${nodes.size} nodes`);
    const day = Date.parse(ok.body.server_time) - 24 * 3600 * 1000;
    assert.ok(ok.body.entries.every((e) => Date.parse(e.at) >= day), 'nothing older than a day');
    for (const nodes of [0, 501, -1, 'many', 1e30]) {
      const bad = await post(server, 'history/recent', { nodes });
      assert.equal(bad.status, 400, `nodes: ${nodes} → ${bad.status} ${JSON.stringify(bad.body)}`);
    }
    assert.match((await post(server, 'history/recent', { nodes: 0 })).body.Invalid, /1 to 500/);
    for (const headers of [{ origin: 'http://evil.example' }, { 'sec-fetch-site': 'cross-site' }, { 'content-type': 'text/plain' }]) {
      const refused = await post(server, 'history/recent', {}, headers);
      assert.equal(refused.status, 403, JSON.stringify(headers));
      assert.ok(refused.body.Forbidden, JSON.stringify(refused.body));
    }
  } finally {
    await server.stop();
  }
});
