// Each node's maintenance history is durable: kept in the cluster (a ConfigMap of the server's namespace), listed on
// the node page newest first, and still there after every server restarts and the node's Events are gone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { artifactsDir, kubectl, launchBrowser, scenario, startDrainboard, waitFor } from './support.mjs';

let s;
let browser;
before(async () => {
  s = await scenario('history');
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

async function post(server, path, body) {
  const res = await fetch(`${server.url}/api/${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

test('cordon, drain and uncordon are listed on the node page, and survive a restart and the Events expiring', { timeout: 150_000 }, async () => {
  let server = await startDrainboard();
  try {
    assert.equal((await post(server, 'nodes/cordon', { node: s.node, reason: 'PSU swap' })).status, 200);
    const started = await post(server, 'drains/start', { node: s.node, reason: 'PSU swap' });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    await waitFor('the drain to end', 90_000, async () => {
      const p = (await post(server, 'drains/status', { id: started.body.id })).body;
      return ['Cordoning', 'Planning', 'Evicting'].includes(p.state) ? null : p;
    });
    assert.equal((await post(server, 'nodes/uncordon', { node: s.node })).status, 200);
    const bad = await post(server, 'nodes/history', { node: '../x' });
    assert.equal(bad.status, 400, 'a node name that is not one is refused');
  } finally {
    await server.stop();
  }
  // Every server gone, and the node's Events too: only the durable history remains.
  kubectl('delete', 'events.events.k8s.io', '-n', 'default', '--field-selector', `regarding.name=${s.node}`);
  server = await startDrainboard();
  try {
    const history = await post(server, 'nodes/history', { node: s.node });
    assert.equal(history.status, 200);
    assert.deepEqual(history.body.map((e) => e.action), ['Uncordon', 'DrainEnded', 'DrainStarted', 'Cordon'], 'newest first');
    assert.equal(history.body[1].outcome, 'Drained');
    assert.ok(history.body.every((e) => e.user === 'admin'));
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    await page.goto(`${server.url}/nodes/${s.node}`);
    const rows = page.locator('[data-testid="history-entry"]');
    await rows.first().waitFor({ timeout: 30_000 });
    assert.equal(await rows.count(), 4);
    // The drain's end says how long it took, beside what was expected as it started.
    assert.match(await rows.nth(1).textContent(),
      /admin's drain ended: Drained · It took .+?; expected (about .+? \(.+? to .+?\)|under a second(, at most .+?)?) · Reason: PSU swap$/);
    assert.match(await rows.nth(3).textContent(), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC · admin cordoned it · Reason: PSU swap$/);
    // A cordon made now appears without reloading the page.
    assert.equal((await post(server, 'nodes/cordon', { node: s.node })).status, 200);
    // Counted by action: under load the node's own health changes may add entries of their own meanwhile.
    const cordons = page.locator('[data-testid="history-entry"][data-action="Cordon"]');
    try {
      await waitFor('the new cordon on the page', 30_000, async () => (await cordons.count()) === 2);
    } catch (err) {
      const shown = await rows.evaluateAll((els) => els.map((el) => el.getAttribute('data-action')));
      const kept = (await post(server, 'nodes/history', { node: s.node })).body.map((e) => e.action);
      throw new Error(`${err.message}: the page shows ${shown.join(', ')}; the history holds ${kept.join(', ')}`);
    }
    assert.doesNotMatch(await cordons.first().textContent(), /PSU swap/, 'the newest cordon is the one just made');
    await page.locator('[data-testid="node-history"]').screenshot({ path: join(artifactsDir, 'node-history.png') });
    await page.close();
    kubectl('uncordon', s.node);
  } finally {
    await server.stop();
  }
});

test('the board stream tells of every history change, also one made while the stream is idle', { timeout: 90_000 }, async () => {
  const server = await startDrainboard();
  const controller = new AbortController();
  try {
    const stream = await fetch(`${server.url}/api/board/events`, { signal: controller.signal });
    assert.equal(stream.status, 200);
    const reader = stream.body.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const versions = () => [...text.matchAll(/event: history\ndata: (\d+)/g)].map((m) => Number(m[1]));
    // Reads the stream in the background for as long as the test runs.
    const reading = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        text += decoder.decode(value, { stream: true });
      }
    })().catch(() => {});
    await waitFor('the first board', 20_000, () => text.includes('event: board'));
    // Idle for a while: nothing is waiting to be sent when the change comes.
    await new Promise((r) => setTimeout(r, 2_000));
    for (const [i, path] of ['nodes/cordon', 'nodes/uncordon'].entries()) {
      const before = versions().length;
      assert.equal((await post(server, path, { node: s.node, reason: `stream ${i}` })).status, 200);
      await waitFor(`a history event after ${path}`, 15_000, () => versions().length > before);
      await new Promise((r) => setTimeout(r, 2_000));
    }
    const seen = versions();
    assert.ok(seen.every((v, i) => i === 0 || v > seen[i - 1]), `versions only move on: ${seen}`);
    controller.abort();
    await reading;
  } finally {
    controller.abort();
    await server.stop();
  }
});
