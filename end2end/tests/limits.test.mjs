// Limits: live views, drains and dry runs over their caps get 429 and a message that says to wait, a body over 16 KiB gets
// 413, and a connection that sends its headers slowly is closed.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { kubectl, launchBrowser, openBoard, scenario, startDrainboard, waitFor } from './support.mjs';

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c(); });

async function server(args) {
  const s = await startDrainboard(args);
  cleanups.push(() => s.stop());
  return s;
}

const json = (body) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

test('live views over the per-person cap get 429 until one closes', async () => {
  const s = await server(['--max-streams-per-person', '2']);
  const open = async () => {
    const controller = new AbortController();
    const res = await fetch(`${s.url}/api/board/events`, { signal: controller.signal });
    return { res, close: () => controller.abort() };
  };
  const first = await open();
  const second = await open();
  assert.deepEqual([first.res.status, second.res.status], [200, 200]);
  const third = await open();
  assert.equal(third.res.status, 429);
  assert.match((await third.res.json()).TooMany, /2 live views open, the most one person may; close some tabs/);
  first.close();
  // The server notices the closed stream at its next write; keep-alives come every 15 s at the latest.
  await waitFor('a place to free up', 30_000, async () => {
    const next = await open();
    next.close();
    return next.res.status === 200;
  });
  second.close();
});

test('drains over the per-person cap get 429, and nothing is cordoned', { timeout: 120_000 }, async () => {
  const a = await scenario('cap-a');
  cleanups.push(() => a.cleanup());
  const b = await scenario('cap-b');
  cleanups.push(() => b.cleanup());
  a.deployment('web', 1);
  await a.running(1);
  a.pdb('web-pdb', 'web', 1); // keeps the first drain running
  const s = await server(['--max-drains-per-person', '1']);
  const first = await fetch(`${s.url}/api/drains/start`, json({ node: a.node }));
  assert.equal(first.status, 200);
  const { id } = await first.json();
  const second = await fetch(`${s.url}/api/drains/start`, json({ node: b.node }));
  assert.equal(second.status, 429);
  assert.match((await second.json()).Refused.message, /1 drains running, the most one person may; wait for one to end/);
  assert.equal(kubectl('get', 'node', b.node, '-o', 'jsonpath={.spec.unschedulable}'), '', `${b.node} untouched`);
  await fetch(`${s.url}/api/drains/cancel`, json({ id }));
});

test('dry runs have a cap of their own: over it 429, and a real drain still starts', { timeout: 120_000 }, async () => {
  const a = await scenario('dry-a');
  cleanups.push(() => a.cleanup());
  const b = await scenario('dry-b');
  cleanups.push(() => b.cleanup());
  a.deployment('web', 1);
  await a.running(1);
  a.pdb('web-pdb', 'web', 1); // keeps the server dry run retrying
  const s = await server(['--max-dry-runs-per-person', '1', '--max-drains-per-person', '1']);
  const preview = { node: a.node, options: { dry_run: 'Server', timeout_seconds: 60 } };
  const first = await fetch(`${s.url}/api/drains/start`, json(preview));
  assert.equal(first.status, 200);
  const { id } = await first.json();
  const second = await fetch(`${s.url}/api/drains/start`, json({ ...preview, options: { ...preview.options, timeout_seconds: 59 } }));
  assert.equal(second.status, 429);
  assert.match((await second.json()).Refused.message, /1 dry runs running, the most one person may; wait for one to end/);
  // The preview takes no drain's place: a real drain of another node starts while it runs.
  const real = await fetch(`${s.url}/api/drains/start`, json({ node: b.node }));
  assert.equal(real.status, 200, JSON.stringify(await real.clone().json()));
  const { id: realId } = await real.json();
  await waitFor(`${b.node} drained`, 30_000, async () => {
    const st = await (await fetch(`${s.url}/api/drains/status`, json({ id: realId }))).json();
    return st.state === 'Drained';
  });
  kubectl('uncordon', b.node);
  await fetch(`${s.url}/api/drains/cancel`, json({ id }));
  assert.equal(kubectl('get', 'node', a.node, '-o', 'jsonpath={.spec.unschedulable}'), '', 'the dry run cordoned nothing');
});

test('a body over 16 KiB gets 413, with the body every other refusal has (the page decodes it as it decodes them)', async () => {
  const s = await server([]);
  const res = await fetch(`${s.url}/api/drains/start`, json({ node: 'node-1', reason: 'x'.repeat(1024 * 1024) }));
  assert.equal(res.status, 413);
  assert.equal(res.headers.get('content-type'), 'application/json');
  const body = await res.json();
  assert.deepEqual(Object.keys(body), ['TooLarge']);
  assert.match(body.TooLarge, /over 16 KiB/);
});

test('in the page, a body over the limit reads as the server\'s own refusal, decoded as every answer is', { timeout: 60_000 }, async () => {
  const s = await server([]);
  const browser = await launchBrowser();
  try {
    const { page, errors } = await openBoard(browser, s.url);
    const card = page.locator('[data-testid="node-row"]').filter({ has: page.locator('[data-testid="action-cordon"]:not([disabled])') }).first();
    const node = await card.getAttribute('data-node');
    await card.locator('[data-testid="action-cordon"]').click();
    const dialog = page.locator('[data-testid="cordon-dialog"]');
    // The field's own limit (500) holds a person's typing, not a script's: the server's limit is what is left.
    await dialog.locator('[data-testid="cordon-reason"]').evaluate((el, text) => { el.value = text; el.dispatchEvent(new Event('input', { bubbles: true })); }, 'x'.repeat(20_000));
    await dialog.locator('[data-testid="dialog-confirm"]').click();
    const error = dialog.locator('[data-testid="dialog-error"]');
    await error.waitFor({ timeout: 15_000 });
    assert.match(await error.textContent(), /^Failed: too large: .*over 16 KiB/);
    assert.equal(kubectl('get', 'node', node, '-o', 'jsonpath={.spec.unschedulable}'), '', `${node} untouched`);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('a client that sends its headers slowly is cut off', { timeout: 60_000 }, async () => {
  const s = await server([]);
  const { hostname, port } = new URL(s.url);
  const started = Date.now();
  const closedAfter = await new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n'); // and never the blank line
    });
    socket.on('close', () => resolve(Date.now() - started));
    socket.on('error', reject);
    setTimeout(() => { socket.destroy(); reject(new Error('still open after 30 s')); }, 30_000);
  });
  assert.ok(closedAfter >= 9_000 && closedAfter < 20_000, `closed after ${closedAfter} ms`);
});
