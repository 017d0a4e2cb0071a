// A lost API server: every open page says so within seconds, "lost the API server since ...", instead of showing
// frozen cards as Live; the notice clears by itself once the API server is back. A TCP proxy between Drainboard and
// the real API server plays the outage: closing it refuses and cuts every connection, as a dead API server does.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchBrowser, requireEnv, startDrainboard } from './support.mjs';

/** A TCP proxy to `target` on a port of its own; `down()` cuts it, `up()` listens again on the same port. */
async function proxy(target) {
  const sockets = new Set();
  let server;
  let port = 0;
  const up = () => new Promise((resolve) => {
    server = createServer((client) => {
      const api = connect(Number(target.port), target.hostname);
      for (const s of [client, api]) { sockets.add(s); s.on('close', () => sockets.delete(s)); s.on('error', () => {}); }
      client.pipe(api).pipe(client);
    });
    server.listen(port, '127.0.0.1', () => { port = server.address().port; resolve(); });
  });
  const down = () => new Promise((resolve) => {
    server.close(() => resolve());
    for (const s of sockets) s.destroy();
  });
  await up();
  return { port: () => port, up, down };
}

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c(); });

test('the pages say the API server is lost within 5 s, and clear once it is back', { timeout: 120_000 }, async () => {
  const kubeconfig = readFileSync(requireEnv('KUBECONFIG'), 'utf8');
  const server = new URL(kubeconfig.match(/server:\s*(\S+)/)[1]);
  const p = await proxy(server);
  cleanups.push(() => p.down());
  const viaProxy = join(requireEnv('DRAINBOARD_CLUSTER_DIR'), 'via-proxy.kubeconfig');
  writeFileSync(viaProxy, kubeconfig.replace(server.host, `127.0.0.1:${p.port()}`));
  const drainboard = await startDrainboard([], { kubeconfig: viaProxy });
  cleanups.push(() => drainboard.stop());
  const browser = await launchBrowser();
  cleanups.push(() => browser.close());

  const pages = [];
  for (const path of ['/', '/wall']) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await page.goto(drainboard.url + path);
    await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 30_000 });
    pages.push(page);
  }
  assert.equal(await pages[0].locator('[data-testid="api-lost"]').count(), 0, 'no notice while the API server answers');

  const cutAt = Date.now();
  await p.down();
  for (const page of pages) {
    await page.locator('[data-testid="api-lost"]').waitFor({ timeout: 5_000 });
    assert.equal(await page.locator('[data-testid="connection-state"]').getAttribute('data-state'), 'api-lost');
  }
  const notice = pages[0].locator('[data-testid="api-lost"]');
  assert.match(await notice.textContent(), /^Lost the API server since \d\d:\d\d:\d\d UTC: the cards show what it reported before then\.$/);
  const since = Date.parse(await notice.getAttribute('data-since'));
  assert.ok(since >= cutAt - 1_000 && since <= Date.now(), `the time it names is when the outage began (${since - cutAt} ms)`);
  console.log(`api-lost: notice shown ${Date.now() - cutAt} ms after the cut (both pages)`);

  await p.up();
  for (const page of pages) {
    await page.locator('[data-testid="api-lost"]').waitFor({ state: 'detached', timeout: 60_000 });
    await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 5_000 });
  }
});
