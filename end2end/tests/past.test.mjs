// A drain's record outlives the drain: once its node is uncordoned, the card, the node page and the progress panel
// read it as past, offer neither Uncordon nor Resume, and the API refuses a resume that would cordon and drain a
// node back in service. A drain's own cordon is in the history, so that the timeline's span of it has a start.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { artifactsDir, kubectl, launchBrowser, scenario, startDrainboard, waitFor } from './support.mjs';

let browser;
const cleanups = [];
before(async () => { browser = await launchBrowser(); });
after(async () => {
  await browser?.close();
  for (const c of cleanups.reverse()) { try { await c(); } catch {} }
});

async function post(server, path, body) {
  const res = await fetch(`${server.url}/api/${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}),
  });
  const text = await res.text();
  let json;
  try { json = JSON.parse(text); } catch { json = text; }
  return { status: res.status, body: json };
}

const unschedulable = (node) => kubectl('get', 'node', node, '-o', 'jsonpath={.spec.unschedulable}').trim() === 'true';

async function ended(server, id) {
  return waitFor('the drain to end', 90_000, async () => {
    const p = (await post(server, 'drains/status', { id })).body;
    return ['Cordoning', 'Planning', 'Evicting'].includes(p.state) ? null : p;
  });
}

test('a drain of a schedulable node writes its cordon to the history; once uncordoned, the card and the panel read it as past and offer no Uncordon', { timeout: 180_000 }, async () => {
  const s = await scenario('past');
  cleanups.push(() => s.cleanup());
  cleanups.push(() => kubectl('delete', 'configmap', '-n', 'default', `drainboard-history.${s.node}`, '--ignore-not-found'));
  s.deployment('web', 1);
  await s.running(1);
  s.openSpare();
  const server = await startDrainboard();
  cleanups.push(() => server.stop());
  assert.ok(!unschedulable(s.node), 'the node starts schedulable: the drain makes the cordon');
  const started = await post(server, 'drains/start', { node: s.node, reason: 'BIOS update' });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  assert.equal((await ended(server, started.body.id)).state, 'Drained');
  assert.ok(unschedulable(s.node));

  // The drain's cordon is a history entry with who, why and the drain's id, in the ConfigMap the server keeps.
  const kept = await waitFor('the drain\'s cordon in the history', 15_000, () => {
    const text = kubectl('get', 'configmap', '-n', 'default', `drainboard-history.${s.node}`, '-o', 'jsonpath={.data.entries}');
    const entries = text ? JSON.parse(text) : [];
    return entries.some((e) => e.action === 'DrainEnded') ? entries : null;
  });
  // The start's entry and the cordon's are written by two tasks at about the same moment, in either order.
  assert.deepEqual(kept.map((e) => e.action).sort(), ['Cordon', 'DrainEnded', 'DrainStarted']);
  const cordoned = kept.find((e) => e.action === 'Cordon');
  assert.deepEqual([cordoned.user, cordoned.reason, cordoned.drain_id], ['admin', 'BIOS update', started.body.id]);

  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  cleanups.push(() => page.close());
  await page.goto(`${server.url}/?drain=${started.body.id}`);
  const panel = page.locator('[data-testid="progress-panel"]');
  await panel.locator('[data-testid="progress-state"][data-state="Drained"]').waitFor({ timeout: 30_000 });
  await panel.locator('[data-testid="progress-uncordon"]').waitFor({ timeout: 15_000 });
  const card = page.locator(`[data-testid="node-row"][data-node="${s.node}"]`);
  const strip = card.locator('[data-testid="card-drain"]');
  assert.equal(await strip.getAttribute('data-tense'), 'present', 'cordoned as the drain left it');
  assert.match(await strip.textContent(), /Last drain by admin: Drained: safe to reboot or return/);

  // Someone puts the node back in service outside the page.
  kubectl('uncordon', s.node);
  assert.ok(!unschedulable(s.node));
  await waitFor('the panel to stop offering Uncordon', 15_000, async () =>
    (await panel.locator('[data-testid="progress-uncordon"]').count()) === 0);
  assert.match(await panel.locator('[data-testid="progress-uncordoned-since"]').textContent(), /uncordoned since this drain ended/);
  assert.equal(await panel.locator('[data-testid="progress-state"]').textContent(), 'Drained', 'no longer "safe to reboot or return"');
  await page.screenshot({ path: join(artifactsDir, 'past-drain-panel.png') });
  await panel.locator('[data-testid="progress-close"]').click();
  await waitFor('the card to read the drain as past', 15_000, async () => (await strip.getAttribute('data-tense')) === 'past');
  const text = await strip.locator('[data-testid="card-drain-text"]').textContent();
  assert.match(text, /^Last drain by admin: Drained, \d+ ?s ago; uncordoned since$/);
  assert.doesNotMatch(text, /safe to reboot/, 'nothing that is no longer true');
  await card.screenshot({ path: join(artifactsDir, 'past-drain-card.png') });

  // The node page shows the same card; its timeline span of the cordon has its start and its author.
  await page.goto(`${server.url}/nodes/${s.node}`);
  const nodeStrip = page.locator(`[data-testid="node-row"][data-node="${s.node}"] [data-testid="card-drain"]`);
  await nodeStrip.waitFor({ timeout: 30_000 });
  await waitFor('the node page to read it as past', 15_000, async () => (await nodeStrip.getAttribute('data-tense')) === 'past');
  const history = page.locator('[data-testid="history-entry"][data-action="Cordon"]');
  await history.first().waitFor({ timeout: 20_000 });
  assert.match(await history.first().textContent(), /admin's drain cordoned it · Reason: BIOS update/);
  await page.goto(`${server.url}/?view=timeline`);
  const row = page.locator(`[data-testid="timeline-row"][data-node="${s.node}"]`);
  await row.waitFor({ timeout: 20_000 });
  // The uncordon was made outside Drainboard: the server records it when it has seen it stand (10 s), and the
  // span closes there, saying so, instead of lasting for ever on a node back in service.
  const cordon = row.locator('[data-testid="timeline-span"][data-kind="cordoned"]');
  let seen = [];
  const title = await waitFor('the cordon span to close', 45_000, async () => {
    seen = await cordon.locator('title').allTextContents();
    return seen.length === 1 && /^Cordoned by admin for \d/.test(seen[0]) ? seen[0] : null;
  }).catch((err) => {
    const held = kubectl('get', 'configmap', '-n', 'default', `drainboard-history.${s.node}`, '-o', 'jsonpath={.data.entries}');
    throw new Error(`${err.message}: the spans say ${JSON.stringify(seen)}; the history holds ${held}`);
  });
  assert.match(title, /· BIOS update · uncordoned outside Drainboard/);
  assert.equal(await cordon.getAttribute('data-start-unknown'), 'false');
  const entries = JSON.parse(kubectl('get', 'configmap', '-n', 'default', `drainboard-history.${s.node}`, '-o', 'jsonpath={.data.entries}'));
  const last = entries.at(-1);
  assert.deepEqual([last.action, last.user, last.reason], ['Uncordon', '', 'UncordonObserved'], 'what the history holds');
});

test('an interrupted drain offers Resume only while its node is cordoned; after an uncordon the card says so and the API refuses to resume', { timeout: 180_000 }, async () => {
  const s = await scenario('resume-past');
  cleanups.push(() => s.cleanup());
  s.deployment('web', 2);
  await s.running(2);
  // A budget that allows no disruption keeps the drain waiting, so that the server is stopped in the middle of it.
  s.pdb('web-pdb', 'web', 2);
  const first = await startDrainboard();
  const started = await post(first, 'drains/start', { node: s.node, reason: 'kernel update' });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  await waitFor('an eviction blocked by the budget', 30_000, async () =>
    (await post(first, 'drains/status', { id: started.body.id })).body.pods?.some((p) => typeof p.state === 'object' && 'Blocked' in p.state));
  await first.stop('SIGTERM');
  const record = JSON.parse(kubectl('get', 'node', s.node, '-o', 'jsonpath={.metadata.annotations.drainboard\\.dev/drain}'));
  assert.equal(record.state, 'Interrupted');

  const server = await startDrainboard();
  cleanups.push(() => server.stop());
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  cleanups.push(() => page.close());
  await page.goto(`${server.url}/`);
  const card = page.locator(`[data-testid="node-row"][data-node="${s.node}"]`);
  const resume = card.locator('[data-testid="action-resume"]');
  await resume.waitFor({ timeout: 30_000 });
  assert.equal(await card.locator('[data-testid="card-drain"]').getAttribute('data-tense'), 'present');

  // Put back in service on purpose: Resume would now cordon and drain it.
  kubectl('uncordon', s.node);
  await waitFor('Resume to go', 15_000, async () => (await resume.count()) === 0);
  const strip = card.locator('[data-testid="card-drain"]');
  assert.equal(await strip.getAttribute('data-tense'), 'past');
  assert.match(await strip.textContent(), /^Last drain by admin: Interrupted, .+ ago; uncordoned since$/);
  assert.doesNotMatch(await strip.textContent(), /can be resumed/);
  const refused = await post(server, 'drains/resume', { node: s.node, confirm: s.node });
  assert.equal(refused.status, 409, JSON.stringify(refused.body));
  assert.match(refused.body.Conflict.message, /was uncordoned after it, so resuming would cordon and drain a node back in service/);
  assert.ok(!unschedulable(s.node), 'nothing was cordoned');
  assert.equal(s.podsOnNode().length, 2, 'nothing was evicted');

  // Cordoned again by someone after the drain ended (through Drainboard, which records who and when): that
  // person's cordon, not the old drain's to resume.
  assert.equal((await post(server, 'nodes/cordon', { node: s.node, reason: 'hold' })).body, 'Changed');
  const again = await post(server, 'drains/resume', { node: s.node, confirm: s.node });
  assert.equal(again.status, 409, 'a later cordon does not make the old drain current');
  await waitFor('the card to show the new cordon', 15_000, async () => (await card.locator('[data-testid="card-cordon"]').count()) === 1);
  assert.equal(await strip.getAttribute('data-tense'), 'past');
  assert.equal(await resume.count(), 0);
  assert.equal(s.podsOnNode().length, 2, 'still nothing evicted');
  kubectl('uncordon', s.node);
});
