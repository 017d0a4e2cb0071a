// Local mode's lock: another user or process of the machine reaches the loopback port, but not the operator's
// kubeconfig. Each start makes a secret; the printed URL carries it once, the browser exchanges it for an HttpOnly,
// SameSite=Strict cookie, a script sends it as a bearer token, and anything else is 401 saying where the URL is.
// Every other test file gets the secret from support.mjs; this one uses node's own fetch and bare browser contexts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync, statSync, existsSync } from 'node:fs';
import { launchBrowser, localToken, rawFetch, startDrainboard, waitFor } from './support.mjs';

let server;
let browser;
const cleanups = [];

before(async () => {
  // No fixed secret: the server makes its own, as it does for an operator.
  server = await startDrainboard([], { token: null });
  cleanups.push(() => server.stop());
  browser = await launchBrowser();
  cleanups.push(() => browser.close());
});
after(async () => { for (const c of cleanups.reverse()) await c(); });

/** Serves `html` at / on `host` (a loopback name), a free port; resolves with the page's origin. */
async function serve(html, host) {
  const http = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(html);
  });
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => { http.closeAllConnections(); http.close(resolve); }));
  return `http://${host}:${http.address().port}`;
}

/** The server's log without colour codes. */
const logs = () => server.logs().replace(/\x1b\[[0-9;]*m/g, '');

test('each start prints the URL with a new secret of 32 random bytes, also in a file only the operator reads', async () => {
  assert.match(server.printedUrl, /^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{64}$/);
  assert.equal(server.printedUrl, `${server.url}/?token=${server.token}`);
  assert.notEqual(server.token, localToken, 'a secret of its own, not the one the other tests pass');
  // Logged as the URL is printed, on stderr: it may come a moment after the stdout line.
  const path = await waitFor('the log to name the URL file', 10_000, () => logs().match(/also in this file.*path=(\S+)/)?.[1]);
  assert.equal(readFileSync(path, 'utf8'), `${server.printedUrl}\n`);
  assert.equal(statSync(path).mode & 0o777, 0o600);
});

test('without the secret every address is 401, saying where the URL is and how a script passes it', async () => {
  const page = await rawFetch(`${server.url}/`, { headers: { accept: 'text/html' } });
  assert.equal(page.status, 401);
  assert.match(page.headers.get('content-type'), /^text\/html/);
  assert.equal(page.headers.get('www-authenticate'), 'Bearer realm="drainboard"');
  const html = await page.text();
  assert.match(html, /Drainboard is serving on http:\/\/…\/\?token=…/);
  assert.match(html, /Authorization: Bearer TOKEN/);
  assert.ok(!html.includes(server.token), 'the page does not give the secret away');

  const post = (path) => rawFetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"node":"node-1"}' });
  for (const res of [await post('/api/board'), await post('/api/nodes/cordon'), await post('/api/session/me'),
    await rawFetch(`${server.url}/api/board/events`), await rawFetch(`${server.url}/metrics`),
    await rawFetch(`${server.url}/nodes/node-1`, { headers: { accept: 'text/html' } })]) {
    assert.equal(res.status, 401, res.url);
    if (res.headers.get('content-type') === 'application/json') {
      const body = await res.json();
      assert.match(body.NotSignedIn, /open the URL it printed when it started .*Authorization: Bearer TOKEN/, res.url);
    }
  }
  // Another context's address connects nothing (its exec plugin would run as the operator).
  assert.equal((await rawFetch(`${server.url}/ctx/drainboard-local/`, { headers: { accept: 'text/html' } })).status, 401);
  // A wrong secret, in any of the three places.
  const wrong = 'f'.repeat(64);
  const viaUrl = await rawFetch(`${server.url}/?token=${wrong}`, { redirect: 'manual' });
  assert.equal(viaUrl.status, 401);
  assert.equal(viaUrl.headers.get('set-cookie'), null);
  assert.match(JSON.stringify(await viaUrl.json()), /not this server's/);
  const port = new URL(server.url).port;
  assert.equal((await rawFetch(`${server.url}/api/board`, { method: 'POST', headers: { cookie: `drainboard-local-${port}=${wrong}` } })).status, 401);
  assert.equal((await rawFetch(`${server.url}/api/board`, { method: 'POST', headers: { authorization: `Bearer ${wrong}` } })).status, 401);
  // The site's files stay open: they are the same for every install.
  assert.equal((await rawFetch(`${server.url}/favicon.svg`)).status, 200);
  // Nothing was cordoned.
  assert.ok(logs().includes('request without the local secret refused'));
});

test('a script passes the secret as a bearer token', async () => {
  const headers = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' };
  const board = await rawFetch(`${server.url}/api/board`, { method: 'POST', headers, body: '{}' });
  assert.equal(board.status, 200);
  assert.ok((await board.json()).upsert.length > 0, 'the board, read with the operator\'s kubeconfig');
  assert.equal((await rawFetch(`${server.url}/metrics`, { headers })).status, 200);
  const page = await rawFetch(`${server.url}/`, { headers: { ...headers, accept: 'text/html' } });
  assert.equal(page.status, 200);
  // The printed URL, as a script that follows no redirect sees it: a cookie, and the address without the secret.
  const opened = await rawFetch(server.printedUrl, { redirect: 'manual' });
  assert.equal(opened.status, 303);
  assert.equal(opened.headers.get('location'), '/');
  const cookie = opened.headers.get('set-cookie');
  for (const attribute of ['HttpOnly', 'SameSite=Strict', 'Path=/']) {
    assert.ok(cookie.split('; ').includes(attribute), `${attribute} in ${cookie}`);
  }
  assert.equal((await rawFetch(`${server.url}/api/board`, { method: 'POST', headers: { cookie: cookie.split(';')[0] } })).status, 200);
});

test('the printed URL opens the live board; the secret leaves the address bar and the history, into an HttpOnly cookie', { timeout: 90_000 }, async () => {
  const context = await browser.newBareContext({ viewport: { width: 1280, height: 720 } });
  cleanups.push(() => context.close());
  const page = await context.newPage();
  await page.goto(server.printedUrl);
  assert.equal(page.url(), `${server.url}/`, 'no secret in the address bar');
  await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
  await page.locator('[data-testid="node-row"]').first().waitFor({ timeout: 30_000 });
  // The redirect replaced the address with the secret: one step back is the new tab's blank page, not that address.
  assert.equal(await page.evaluate(() => history.length), 2, 'the blank tab and the board');
  await page.goBack();
  assert.equal(page.url(), 'about:blank', 'the address with the secret is not in the history');
  await page.goForward();
  assert.equal(page.url(), `${server.url}/`);
  await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
  assert.ok(!(await page.evaluate(() => document.cookie)).includes(server.token), 'scripts cannot read the cookie');
  const [cookie] = (await context.cookies()).filter((c) => c.name.startsWith('drainboard-local-'));
  assert.equal(cookie.name, `drainboard-local-${new URL(server.url).port}`);
  assert.equal(cookie.value, server.token);
  assert.equal(cookie.httpOnly, true);
  assert.equal(cookie.sameSite, 'Strict');
  assert.equal(cookie.path, '/');
  // A reload, and a server function from the hydrated page, go with the cookie alone.
  await page.reload();
  await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
  const me = await page.evaluate(async () => (await fetch('/api/session/me', { method: 'POST' })).status);
  assert.equal(me, 200);
  // A bare browser without the URL gets the page that says where to find it.
  const stranger = await browser.newBareContext();
  cleanups.push(() => stranger.close());
  const elsewhere = await stranger.newPage();
  const res = await elsewhere.goto(`${server.url}/`);
  assert.equal(res.status(), 401);
  assert.match(await elsewhere.locator('body').innerText(), /open the URL it printed when it started/);
});

test('a page of another site cannot use the cookie, and one on another port can act with nothing', { timeout: 60_000 }, async () => {
  const target = server.url;
  // Reads a GET and a POST, as far as a page of another origin can, and says what it saw.
  const html = `<!doctype html><script>
window.results = {};
const tries = {
  'cors get': fetch(${JSON.stringify(target)} + '/api/board/events', { mode: 'cors', credentials: 'include' }),
  'no-cors get': fetch(${JSON.stringify(target)} + '/metrics', { mode: 'no-cors', credentials: 'include' }),
  'no-cors post': fetch(${JSON.stringify(target)} + '/api/nodes/cordon', { method: 'POST', mode: 'no-cors', credentials: 'include',
    headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'node=node-1' }),
};
Promise.all(Object.entries(tries).map(([name, p]) => p.then(
  (res) => { window.results[name] = { type: res.type, status: res.status }; },
  (err) => { window.results[name] = { error: String(err) }; }))).then(() => { window.done = true; });
</script>`;
  // A context that holds the cookie, as the operator's browser does after opening the URL.
  const context = await browser.newBareContext();
  cleanups.push(() => context.close());
  const opener = await context.newPage();
  await opener.goto(server.printedUrl);
  // What reached the browser from Drainboard: no answer at all, since every answer carries
  // Cross-Origin-Resource-Policy: same-origin, so the browser blocks it before the page could even hold it opaque.
  const blocked = [];
  context.on('requestfailed', (request) => {
    if (request.url().startsWith(target)) {
      blocked.push(`${request.method()} ${new URL(request.url()).pathname} ${request.failure()?.errorText}`);
    }
  });
  // `localhost` is another site than `127.0.0.1`: the SameSite=Strict cookie stays home (the GETs are 401);
  // `127.0.0.1` on another port is the same site (the cookie goes along): the POST is the guard's 403. Either
  // way the page reads nothing, and nothing acts.
  for (const host of ['localhost', '127.0.0.1']) {
    blocked.length = 0;
    const page = await context.newPage();
    await page.goto(`${await serve(html, host)}/`);
    await page.waitForFunction(() => window.done === true, null, { timeout: 30_000 });
    const results = await page.evaluate(() => window.results);
    for (const name of ['cors get', 'no-cors get', 'no-cors post']) {
      assert.match(results[name].error ?? '', /TypeError/, `${host} ${name}: nothing to read: ${JSON.stringify(results)}`);
    }
    await waitFor(`${host}: the no-cors answers blocked`, 10_000, () => blocked.length >= 2);
    for (const path of ['GET /metrics', 'POST /api/nodes/cordon']) {
      assert.ok(blocked.some((b) => b.startsWith(path) && /ERR_BLOCKED_BY_RESPONSE/.test(b)), `${host}: ${blocked.join(', ')}`);
    }
    await page.close();
  }
  const cordoned = await rawFetch(`${server.url}/api/board`, { method: 'POST', headers: { authorization: `Bearer ${server.token}` } });
  const node1 = (await cordoned.json()).upsert?.find((c) => c.name === 'node-1');
  assert.equal(node1?.unschedulable, false, 'node-1 was not cordoned');
});

test('the file with the URL goes when the server stops', async () => {
  const path = logs().match(/also in this file.*path=(\S+)/)?.[1];
  await server.stop();
  assert.equal(existsSync(path), false);
});
