// The page's live connection: when drainboard goes away the badge says so, and when it comes back on the same
// port the page reconnects by itself (no reload) and resyncs, so a change made while it was down shows up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { artifactsDir, kubectl, startDrainboard, useServerAndBrowser, waitFor } from './support.mjs';

const ctx = useServerAndBrowser();

// The other tests cordon node-1 and fail node-3 and node-4; node-2 is only drained as a dry run, and the API test
// checks that it is left schedulable, so it is uncordoned again below.
const node = 'node-2';

/** Board event streams open on the server at `url`. */
async function viewers(url) {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(text.match(/^drainboard_board_viewers (\d+)$/m)[1]);
}

function unschedulable() {
  return kubectl('get', 'node', node, '-o', 'jsonpath={.spec.unschedulable}').trim() === 'true';
}

test('the board reconnects by itself after a server restart and resyncs', { timeout: 180_000 }, async (t) => {
  assert.ok(!unschedulable(), `${node} is schedulable before the test`);
  const page = await ctx.browser.newPage({ viewport: { width: 1280, height: 720 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const badge = page.locator('[data-testid="connection-state"]');
  const card = page.locator(`[data-testid="node-row"][data-node="${node}"]`);
  const cordoned = card.locator('[data-testid="node-cordoned"]');
  await page.goto(ctx.server.url);
  await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
  await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 15_000 });
  assert.equal(await badge.textContent(), 'Live');
  assert.equal(await cordoned.count(), 0, `${node}'s card shows no cordon yet`);

  // Every state the badge takes from here on, with the browser's time (the same clock as this process's), and a
  // mark that a reload would wipe.
  await page.evaluate(() => {
    window.reconnectTest = { states: [] };
    const el = document.querySelector('[data-testid="connection-state"]');
    new MutationObserver(() => {
      const last = window.reconnectTest.states.at(-1);
      const state = el.dataset.state;
      if (last?.state !== state) window.reconnectTest.states.push({ at: Date.now(), state });
    }).observe(el, { attributes: true, attributeFilter: ['data-state'] });
  });
  const states = () => page.evaluate(() => window.reconnectTest?.states ?? null);

  // SIGTERM, as an operator or a rolling update stops it: the server ends its event streams, so it exits promptly
  // even though this page is connected.
  const addr = new URL(ctx.server.url).host;
  const downAt = Date.now();
  await ctx.server.stop('SIGTERM');
  // Not a speed check: before the streams ended on shutdown, the server waited for the page for ever.
  assert.ok(Date.now() - downAt < 30_000, `SIGTERM stops the server with a page open (took ${Date.now() - downAt} ms)`);
  let cordonedByTest = false;
  try {
    await t.test('the badge says Reconnecting while the server is down', async () => {
      await page.locator('[data-testid="connection-state"][data-state="reconnecting"]').waitFor({ timeout: 10_000 })
        .catch(async (e) => {
          const state = await badge.getAttribute('data-state');
          throw new Error(`the badge still says ${state} ${Date.now() - downAt} ms after the server went down; ` +
            `states seen: ${JSON.stringify(await states())}`, { cause: e });
        });
      assert.match(await badge.textContent(), /^Reconnecting/);
      assert.ok(await badge.isVisible(), 'the badge is visible');
      await page.screenshot({ path: join(artifactsDir, 'reconnect-down.png') });
    });

    // A change the old server never saw and the page cannot have had from it.
    kubectl('cordon', node);
    cordonedByTest = true;
    assert.ok(unschedulable(), `${node} is cordoned in the API`);
    assert.equal(await cordoned.count(), 0, 'the page shows no cordon while the server is down');

    const restartAt = Date.now();
    ctx.server = await startDrainboard([], { addr });
    const upAt = Date.now();
    assert.equal(ctx.server.url, `http://${addr}`, 'the new server listens where the page connects');

    await t.test('the badge is Live again, without a reload, on a stream from the new server', async () => {
      await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 20_000 });
      assert.equal(await badge.textContent(), 'Live');
      const seen = await states();
      assert.ok(seen, 'the page was not reloaded (its mark is still there)');
      const streamAt = await waitFor('the page to open a board stream on the new server', 20_000, async () =>
        (await viewers(ctx.server.url)) >= 1 && Date.now());
      const reconnectingAt = seen.find((s) => s.state === 'reconnecting')?.at;
      const liveAt = seen.findLast((s) => s.state === 'live')?.at;
      const ms = (t) => (t ? `${t} ms` : 'n/a');
      console.log(`server down → reconnecting: ${reconnectingAt ? ms(reconnectingAt - downAt) : 'never shown'}; ` +
        `server up → live: ${liveAt ? ms(liveAt - upAt) : 'never left live'}; ` +
        `reconnecting → live: ${reconnectingAt && liveAt ? ms(liveAt - reconnectingAt) : 'n/a'}; ` +
        `server up → stream open on it: ≤ ${streamAt - upAt} ms; server down for ${upAt - downAt} ms; ` +
        `badge states: ${JSON.stringify(seen.map((s) => s.state))}`);
      // Live only once the new server was there: never while nothing was serving. What the badge did before the
      // stop (the old server's word on its API health may come and go on a busy machine) is not this test's.
      const sinceDown = seen.filter((s) => s.at >= downAt);
      assert.ok(sinceDown.every((s) => s.state !== 'live' || s.at >= restartAt),
        `live only after the restart (down at ${downAt}, restarted at ${restartAt}): ${JSON.stringify(seen)}`);
    });

    await t.test(`the reconnect resynced: ${node}'s card shows the cordon`, async () => {
      await cordoned.waitFor({ timeout: 20_000 });
      assert.equal(await cordoned.textContent(), 'Cordoned');
      assert.ok(await page.evaluate(() => window.reconnectTest !== undefined), 'still the same page, not a reload');
      await page.screenshot({ path: join(artifactsDir, 'reconnect-resynced.png') });
    });
  } finally {
    if (cordonedByTest) kubectl('uncordon', node);
  }
  // The live stream carries the uncordon too.
  await cordoned.waitFor({ state: 'detached', timeout: 10_000 });
  assert.ok(!unschedulable(), `${node} is schedulable again`);
  assert.deepEqual(errors, [], 'no script errors');
  await page.close();
});
