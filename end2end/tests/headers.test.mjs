// Security headers: the page's content security policy is a real header with a per-render nonce that the
// hydration script carries, the page still hydrates under it with no violation, and no other site can frame it.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { launchBrowser, startDrainboard } from './support.mjs';

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c(); });

test('the page carries a nonce policy, hydrates under it, and cannot be framed', { timeout: 90_000 }, async () => {
  const server = await startDrainboard();
  cleanups.push(() => server.stop());

  const first = await fetch(server.url);
  const second = await fetch(server.url);
  const policy = first.headers.get('content-security-policy');
  assert.ok(policy, 'a Content-Security-Policy header, not only a meta tag');
  const nonce = policy.match(/'nonce-([A-Za-z0-9_-]+)'/)?.[1];
  assert.ok(nonce, policy);
  assert.notEqual(second.headers.get('content-security-policy'), policy, 'a new nonce for every render');
  for (const rule of ["frame-ancestors 'none'", "connect-src 'self'", "'wasm-unsafe-eval'", "object-src 'none'"]) {
    assert.ok(policy.includes(rule), `${rule} in ${policy}`);
  }
  assert.ok(!policy.includes('unsafe-inline'), policy);
  const html = await first.text();
  assert.ok(html.includes(`nonce="${nonce}"`), 'the hydration script carries the nonce');
  assert.equal(first.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(first.headers.get('referrer-policy'), 'same-origin');
  assert.equal(first.headers.get('x-frame-options'), 'DENY');
  assert.equal(first.headers.get('cross-origin-resource-policy'), 'same-origin');
  assert.equal(first.headers.get('cross-origin-opener-policy'), 'same-origin');
  assert.equal(first.headers.get('cache-control'), 'no-store', 'a page is stored by no cache');
  assert.equal(first.headers.get('strict-transport-security'), null, 'local mode is plain HTTP on loopback: no HSTS');
  const api = await fetch(`${server.url}/api/session/me`, { method: 'POST' });
  assert.equal(api.headers.get('cache-control'), 'no-store', 'nor is an API answer');
  const bundle = html.match(/\/pkg\/[^"']+\.js/)?.[0];
  assert.ok(bundle, 'the page names its script under /pkg/');
  const file = await fetch(`${server.url}${bundle}`);
  assert.equal(file.status, 200, bundle);
  assert.notEqual(file.headers.get('cache-control'), 'no-store', 'the site\'s files keep their own caching');
  const icon = await fetch(`${server.url}/favicon.ico`, { redirect: 'manual' });
  assert.equal(icon.status, 308, 'the classic icon path leads to the SVG icon');
  assert.equal((await fetch(`${server.url}/favicon.ico`)).headers.get('content-type'), 'image/svg+xml');

  const browser = await launchBrowser();
  cleanups.push(() => browser.close());
  const page = await browser.newPage();
  const console = [];
  page.on('console', (m) => { if (m.type() === 'error' || /Content Security Policy/.test(m.text())) console.push(m.text()); });
  page.on('pageerror', (e) => console.push(e.message));
  await page.goto(server.url);
  await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
  await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 30_000 });
  assert.deepEqual(console, [], 'no policy violation and no error while the page loads, hydrates and goes live');

  // Another site frames it: the browser refuses to show it.
  const hostile = createServer((_, res) => {
    res.setHeader('content-type', 'text/html');
    res.end(`<iframe id="f" src="${server.url}/"></iframe>`);
  });
  await new Promise((resolve) => hostile.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => hostile.close(resolve)));
  const framing = await browser.newPage();
  const blocked = [];
  framing.on('console', (m) => blocked.push(m.text()));
  await framing.goto(`http://127.0.0.1:${hostile.address().port}/`);
  await framing.waitForTimeout(2_000);
  const framed = framing.frames().find((f) => f !== framing.mainFrame());
  const shown = await framed?.locator('[data-testid="nodes-page"]').count().catch(() => 0);
  assert.equal(shown ?? 0, 0, 'the board does not render inside another site\'s frame');
  assert.ok(blocked.some((t) => /frame-ancestors|X-Frame-Options|refused to connect/i.test(t)) || framed?.url().startsWith('chrome-error'),
    `the browser says why: ${blocked.join(' | ')} ${framed?.url()}`);
});
