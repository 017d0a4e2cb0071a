// The request guard in a real browser: a hostile page on another local port, a DNS-rebinding name and the app's
// own page. The same rules called without a browser are in bad-input.test.mjs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { chromium } from 'playwright-core';
import { kubectl, launchBrowser, metric, scenario, startDrainboard, waitFor } from './support.mjs';

let server;
let browser;
let s;
const cleanups = [];

before(async () => {
  s = await scenario('xorigin');
  cleanups.push(() => s.cleanup());
  s.deployment('web', 1);
  await s.running(1);
  server = await startDrainboard();
  cleanups.push(() => server.stop());
  browser = await launchBrowser();
  cleanups.push(() => browser.close());
});
after(async () => { for (const c of cleanups.reverse()) await c(); });

/** What a successful attack would leave behind; the test asserts it stays as it was. */
function nodeState() {
  return {
    unschedulable: kubectl('get', 'node', s.node, '-o', 'jsonpath={.spec.unschedulable}').trim(),
    drain: kubectl('get', 'node', s.node, '-o', 'jsonpath={.metadata.annotations.drainboard\\.dev/drain}').trim(),
    pods: s.podsOnNode(),
  };
}

function assertUntouched(before) {
  const now = nodeState();
  assert.equal(now.unschedulable, '', `${s.node} stays schedulable`);
  assert.equal(now.drain, '', `${s.node} has no drain record`);
  assert.equal(now.pods.length, 1, `the web pod still runs on ${s.node}`);
  assert.deepEqual(now.pods, before.pods, 'the same pods, none evicted');
}

/** The guard's refusals in the server's log, as `METHOD path why`. */
function refusals() {
  // Without the colour codes the log may carry.
  return server.logs().replace(/\x1b\[[0-9;]*m/g, '').split('\n').filter((l) => l.includes('request refused'))
    .map((l) => `${l.match(/method=(\S+)/)?.[1]} ${l.match(/path=(\S+)/)?.[1]} ${l.match(/why=(.*)$/)?.[1] ?? ''}`);
}

/** Serves `html` at / on 127.0.0.1, a free port; resolves with the server's port. */
async function serve(html) {
  const http = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(html);
  });
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => { http.closeAllConnections(); http.close(resolve); }));
  return http.address().port;
}

/**
 * A page that tries every way a foreign page has to make a browser POST to Drainboard: forms that need no
 * preflight (text/plain carrying JSON, and urlencoded), into iframes and a new window; no-cors fetches; and a
 * preflighted CORS fetch with a JSON body.
 */
function hostilePage(target, node) {
  // A text/plain form sends `name=value`: a name that opens a JSON object and a value that closes it make the
  // body `{"node":"…",…,"pad":"="}`, valid JSON for the server functions.
  const jsonForm = (body) => {
    const text = JSON.stringify({ ...body, pad: '' });
    return { name: text.slice(0, -2), value: '"}' };
  };
  const drain = { node, options: { ignore_daemonsets: true, delete_emptydir_data: true, force: true }, confirm: node };
  const forms = [
    { id: 'plain-drain', action: 'drains/start', enctype: 'text/plain', target: 'plain-drain', fields: [jsonForm(drain)] },
    { id: 'plain-cordon', action: 'nodes/cordon', enctype: 'text/plain', target: '_blank', fields: [jsonForm({ node })] },
    { id: 'url-cordon', action: 'nodes/cordon', enctype: 'application/x-www-form-urlencoded', target: 'url-cordon',
      fields: [{ name: 'node', value: node }] },
    { id: 'url-drain', action: 'drains/start', enctype: 'application/x-www-form-urlencoded', target: 'url-drain',
      fields: [{ name: 'node', value: node }, { name: 'confirm', value: node }] },
  ];
  return `<!doctype html>
<meta charset="utf-8"><title>Cute cats</title>
<iframe name="plain-drain"></iframe><iframe name="url-cordon"></iframe><iframe name="url-drain"></iframe>
<script>
const target = ${JSON.stringify(target)};
const forms = ${JSON.stringify(forms)};
const cordon = ${JSON.stringify(JSON.stringify({ node }))};
const drain = ${JSON.stringify(JSON.stringify(drain))};
window.results = {};
for (const f of forms) {
  const form = document.createElement('form');
  form.method = 'POST';
  form.action = target + '/api/' + f.action;
  form.enctype = f.enctype;
  form.target = f.target;
  for (const { name, value } of f.fields) {
    const input = document.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = value;
    form.append(input);
  }
  document.body.append(form);
  form.submit();
}
const attempt = (name, promise) => promise.then(
  (res) => { window.results[name] = { type: res.type, status: res.status }; },
  (err) => { window.results[name] = { error: String(err) }; });
Promise.all([
  attempt('no-cors cordon', fetch(target + '/api/nodes/cordon',
    { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: cordon })),
  attempt('no-cors drain', fetch(target + '/api/drains/start',
    { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: drain })),
  attempt('cors cordon', fetch(target + '/api/nodes/cordon',
    { method: 'POST', mode: 'cors', headers: { 'content-type': 'application/json' }, body: cordon })),
]).then(() => { window.done = true; });
</script>`;
}

test('a page on another local port cannot cordon or drain through the browser', { timeout: 120_000 }, async () => {
  const start = nodeState();
  const drainboard = new URL(server.url);
  const port = await serve(hostilePage(server.url, s.node));
  assert.notEqual(port, Number(drainboard.port));
  const context = await browser.newContext();
  // Everything the browser sent to Drainboard, from every page of the context (the new window too), with what
  // came back where the browser lets us see it.
  const seen = [];
  const entries = new Map();
  context.on('request', (request) => {
    if (!request.url().startsWith(server.url)) return;
    const entry = { method: request.method(), path: new URL(request.url()).pathname, type: request.resourceType(),
      headers: null, status: null, body: null, failure: null };
    seen.push(entry);
    entries.set(request, entry);
    // The Sec-Fetch-* headers are added by the network stack: only allHeaders() has them.
    request.allHeaders().then((headers) => { entry.headers = headers; }, () => { entry.headers = {}; });
    request.response().then(async (response) => {
      if (!response) return;
      entry.status = response.status();
      // An opaque (no-cors) answer's body is not kept; a navigation's is.
      entry.body = await response.text().catch(() => '');
    }, () => {});
  });
  context.on('requestfailed', (request) => {
    const entry = entries.get(request);
    if (entry) entry.failure = request.failure()?.errorText ?? 'failed';
  });
  try {
    const refusedBefore = await metric(server, 'drainboard_requests_refused_total', { reason: 'other-site' });
    const page = await context.newPage();
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForFunction(() => window.done === true, null, { timeout: 60_000 });
    const results = await page.evaluate(() => window.results);
    // Four form navigations and two no-cors fetches reach the server; the CORS fetch stops at its preflight.
    await waitFor('the server\'s answers to the forms', 30_000, () =>
      seen.filter((e) => e.type === 'document' && e.body !== null).length >= 4);
    // Counted by the guard's metric, not by lines of the log (whose content is checked below).
    await waitFor('the guard to refuse every attempt', 30_000, async () =>
      (await metric(server, 'drainboard_requests_refused_total', { reason: 'other-site' })) - refusedBefore >= 7);
    await waitFor('every request to be answered or failed', 30_000, () =>
      seen.every((e) => e.headers && (e.failure || e.body !== null)));
    // A drain that got through would cordon at once and evict soon after; give it that time.
    await new Promise((r) => setTimeout(r, 3_000));
    const report = seen.map(({ method, path, type, status, failure, headers, body }) =>
      `${method} ${path} [${type}] sec-fetch-site=${headers['sec-fetch-site']} → ${status ?? failure} ${body ?? ''}`);
    console.log(`browser saw:\n  ${report.join('\n  ')}\npage saw: ${JSON.stringify(results)}\n` +
      `server refused:\n  ${refusals().join('\n  ')}`);

    assertUntouched(start);

    // The forms: a cross-port page is same-site, not same-origin, and each post got the guard's 403.
    const forms = seen.filter((e) => e.type === 'document');
    assert.deepEqual(forms.map((e) => `${e.method} ${e.path}`).sort(),
      ['POST /api/drains/start', 'POST /api/drains/start', 'POST /api/nodes/cordon', 'POST /api/nodes/cordon']);
    for (const form of forms) {
      assert.equal(form.headers['sec-fetch-site'], 'same-site', `${form.path} was sent as same-site`);
      assert.equal(form.status, 403, `${form.path}: ${form.body}`);
      assert.match(JSON.parse(form.body).Forbidden, /a same-site page may not act on Drainboard/);
    }
    // The no-cors fetches are sent; the server refuses them (its log below), and the browser does not even hand
    // the page the opaque answer: Cross-Origin-Resource-Policy: same-origin blocks it.
    assert.match(results['no-cors cordon'].error, /TypeError/);
    assert.match(results['no-cors drain'].error, /TypeError/);
    const noCors = seen.filter((e) => e.type === 'fetch' && e.headers['content-type'] === 'text/plain');
    assert.deepEqual(noCors.map((e) => e.path).sort(), ['/api/drains/start', '/api/nodes/cordon'], 'both no-cors fetches were sent');
    // (DevTools shows a fetch's headers without the Sec-Fetch-* the network stack adds: the server log below has them.)
    for (const f of noCors) assert.match(f.failure ?? '', /ERR_BLOCKED_BY_RESPONSE/, f.path);
    // The CORS fetch fails in the page: its preflight is refused, so its POST never leaves the browser.
    assert.match(results['cors cordon'].error, /TypeError/);
    const cors = seen.filter((e) => e.type === 'fetch' && e.headers['content-type'] === 'application/json');
    assert.equal(cors.length, 1);
    assert.equal(cors[0].status, null, 'the CORS POST got no answer');
    assert.ok(cors[0].failure, 'the CORS POST failed in the browser');
    // The server saw and refused every attempt: the four forms, the two no-cors fetches and the preflight, and
    // nothing else (a CORS POST that got past its preflight would be a seventh POST).
    const log = refusals();
    assert.deepEqual(log.map((l) => l.split(' ').slice(0, 2).join(' ')).sort(), [
      'OPTIONS /api/nodes/cordon',
      'POST /api/drains/start', 'POST /api/drains/start', 'POST /api/drains/start',
      'POST /api/nodes/cordon', 'POST /api/nodes/cordon', 'POST /api/nodes/cordon',
    ], log.join('\n'));
    assert.ok(log.every((l) => /Sec-Fetch-Site: same-site/.test(l)), log.join('\n'));
    assert.equal(await metric(server, 'drainboard_requests_refused_total', { reason: 'other-site' }) - refusedBefore, 7,
      'the metric counts the seven refusals, each once');
  } finally {
    await context.close();
  }
});

test('a DNS-rebinding name gets 403 for the page and for a same-origin POST from it', { timeout: 120_000 }, async () => {
  const start = nodeState();
  const port = new URL(server.url).port;
  // As launchBrowser() does, plus a resolver rule: rebind.test is 127.0.0.1, as a rebinding domain would become.
  const rebinding = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--host-resolver-rules=MAP rebind.test 127.0.0.1',
    ],
  });
  cleanups.push(() => rebinding.close());
  try {
    const page = await rebinding.newPage();
    const origin = `http://rebind.test:${port}`;
    const response = await page.goto(`${origin}/`);
    assert.equal(response.status(), 403);
    assert.match(response.headers()['content-type'], /application\/json/);
    const refusal = await response.json();
    assert.equal(refusal.Forbidden,
      `Host "rebind.test:${port}" is not allowed: open Drainboard by a loopback address, or start it with --allowed-host rebind.test`);
    assert.equal(new URL(page.url()).origin, origin);

    // The document is the refusal, but its origin is Drainboard's under the rebinding name: a same-origin POST.
    const [request, answer] = await Promise.all([
      page.waitForRequest((r) => r.url() === `${origin}/api/nodes/cordon`),
      page.evaluate(async (node) => {
        const res = await fetch('/api/nodes/cordon', {
          method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ node }),
        });
        return { status: res.status, body: await res.text() };
      }, s.node),
    ]);
    const headers = await request.allHeaders();
    console.log(`rebinding: page ${response.status()} ${JSON.stringify(refusal)}; POST sec-fetch-site=` +
      `${headers['sec-fetch-site']} origin=${headers.origin} → ${answer.status} ${answer.body}`);
    // To the browser the POST is same-origin. Chromium sends Fetch Metadata to trustworthy origins only (https,
    // loopback), so a plain-http rebinding name gets no Sec-Fetch-Site; its Origin is the page's own.
    assert.ok([undefined, 'same-origin'].includes(headers['sec-fetch-site']), `Sec-Fetch-Site: ${headers['sec-fetch-site']}`);
    assert.equal(headers.origin, origin);
    assert.equal(headers.host, `rebind.test:${port}`);
    assert.equal(answer.status, 403);
    assert.match(JSON.parse(answer.body).Forbidden, /^Host "rebind\.test:\d+" is not allowed/);
    assertUntouched(start);
  } finally {
    await rebinding.close();
  }
});

test('the app\'s own page still posts to its server', { timeout: 120_000 }, async () => {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const response = await page.goto(server.url);
    assert.equal(response.status(), 200);
    const answer = await page.evaluate(async (node) => {
      const res = await fetch('/api/drains/preview-inputs', {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ node }),
      });
      return { status: res.status, body: await res.text() };
    }, s.node);
    assert.equal(answer.status, 200, answer.body);
    assert.ok(JSON.parse(answer.body), 'a JSON answer');
    assert.ok(answer.body.includes(s.node) || answer.body.includes('web-'), answer.body.slice(0, 500));
  } finally {
    await context.close();
  }
});
