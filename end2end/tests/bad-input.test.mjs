// Bad input, hostile pages and missing consent, against the running server: each gets a clear 4xx that says what
// to do, and the cluster is unchanged. The browser tests of the same rules are in cross-origin.test.mjs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl, startDrainboard } from './support.mjs';

let server;
before(async () => { server = await startDrainboard(); });
after(async () => { await server?.stop(); });

const NODE = 'node-1';

async function post(endpoint, body, headers = {}) {
  const res = await fetch(`${server.url}/api/${endpoint}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json;
  try { json = JSON.parse(text); } catch { json = text; }
  return { status: res.status, json };
}

function untouched() {
  assert.equal(kubectl('get', 'node', NODE, '-o', 'jsonpath={.spec.unschedulable}').trim(), '', `${NODE} stays schedulable`);
  assert.equal(kubectl('get', 'node', NODE, '-o', 'jsonpath={.metadata.annotations.drainboard\\.dev/drain}').trim(), '',
    `${NODE} has no drain record`);
}

test('node names that are not names are refused before anything happens', async () => {
  for (const node of ['../x', `${NODE}/status`, 'Node-1', 'a b', 'x'.repeat(300)]) {
    for (const endpoint of ['nodes/cordon', 'nodes/uncordon', 'drains/start', 'drains/preview-inputs']) {
      const res = await post(endpoint, { node });
      assert.equal(res.status, 400, `${endpoint} ${node}: ${JSON.stringify(res.json)}`);
      assert.match(res.json.Invalid, /is not a node name/);
    }
  }
  untouched();
});

test('an empty body is no arguments: sign-out runs, and an endpoint that needs arguments names the missing one', async () => {
  // As `curl -X POST` sends it (no type, no body), and typed as JSON with nothing in it.
  for (const headers of [{}, { 'content-type': 'application/json' }]) {
    const cordon = await fetch(`${server.url}/api/nodes/cordon`, { method: 'POST', headers });
    const why = await cordon.json();
    assert.equal(cordon.status, 400, JSON.stringify(why));
    assert.match(why.Invalid, /cannot be read: missing field `node`/);
    const plan = await fetch(`${server.url}/api/plans/start`, { method: 'POST', headers });
    assert.match((await plan.json()).Invalid, /missing field `nodes`/);
  }
  // The board's empty body is read as it always was: form-encoded, and with no type at all.
  for (const headers of [{ 'content-type': 'application/x-www-form-urlencoded' }, {}]) {
    const board = await fetch(`${server.url}/api/board`, { method: 'POST', headers });
    assert.equal(board.status, 200, JSON.stringify(headers));
    assert.equal((await board.json()).full, true, JSON.stringify(headers));
  }
  untouched();
  // Sign-out's one argument has a default: with no body it signs out (on a server of its own, this one's session
  // is the rest of the file's).
  const own = await startDrainboard();
  try {
    const out = await fetch(`${own.url}/api/session/sign-out`, { method: 'POST' });
    const said = await out.json();
    assert.equal(out.status, 200, JSON.stringify(said));
    assert.equal(said.signed_out, true, JSON.stringify(said));
  } finally {
    await own.stop();
  }
});

test('numbers out of range, bad selectors and long reasons are 400s that say what to do', async () => {
  const cases = [
    [{ timeout_seconds: 604801 }, /timeout of 604801 s/],
    [{ timeout_seconds: 18446744073709551615 }, /timeout|cannot be read/],
    [{ skip_wait_for_delete_timeout_seconds: 9007199254740991 }, /skip-wait/],
    [{ grace_period_seconds: -9007199254740991 }, /grace period/],
    [{ grace_period_seconds: 9007199254740991 }, /grace period/],
    [{ timeout_seconds: -1 }, /cannot be read/],
    [{ timeout_seconds: 'soon' }, /cannot be read/],
    [{ pod_selector: 'app in (web' }, /pod selector/],
  ];
  for (const [options, why] of cases) {
    const res = await post('drains/start', { node: NODE, options });
    assert.equal(res.status, 400, `${JSON.stringify(options)}: ${JSON.stringify(res.json)}`);
    assert.match(res.json.Invalid, why, JSON.stringify(options));
  }
  const reason = await post('drains/start', { node: NODE, reason: 'x'.repeat(501) });
  assert.equal(reason.status, 400);
  assert.match(reason.json.Invalid, /at most 500/);
  const garbage = await post('drains/start', '{"node": ');
  assert.equal(garbage.status, 400, JSON.stringify(garbage.json));
  untouched();
});

test('destructive options need the node named in the request, resume too', async () => {
  for (const options of [{ force: true }, { delete_emptydir_data: true }, { disable_eviction: true }]) {
    for (const confirm of [undefined, 'node-2', '']) {
      const res = await post('drains/start', { node: NODE, options, confirm });
      assert.equal(res.status, 400, JSON.stringify({ options, confirm }));
      assert.match(res.json.Invalid, /cannot be undone: send "confirm": "node-1"/);
    }
  }
  const resume = await post('drains/resume', { node: NODE });
  assert.equal(resume.status, 400);
  assert.match(resume.json.Invalid, /"confirm": "node-1"/);
  untouched();
  // A dry run changes nothing and needs no consent.
  const dry = await post('drains/start', { node: NODE, options: { force: true, dry_run: 'Client' } });
  assert.equal(dry.status, 200, JSON.stringify(dry.json));
});

test('another origin, a rebinding Host or a plain-text body cannot act', async () => {
  const attempts = [
    [{ 'content-type': 'text/plain' }, /text\/plain/],
    [{ origin: 'http://evil.example' }, /origin http:\/\/evil.example/],
    [{ 'sec-fetch-site': 'same-site' }, /same-site/],
    [{ 'sec-fetch-site': 'cross-site' }, /cross-site/],
  ];
  for (const [headers, why] of attempts) {
    const res = await post('nodes/cordon', { node: NODE }, headers);
    assert.equal(res.status, 403, JSON.stringify(headers));
    assert.match(res.json.Forbidden, why);
  }
  // fetch() may not set Host; a raw request can, as a rebinding page's browser would.
  const { request } = await import('node:http');
  const url = new URL(server.url);
  const answer = await new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: '/api/nodes/cordon', method: 'POST',
      headers: { host: `evil.example:${url.port}`, 'content-type': 'application/json' } }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode, json: JSON.parse(body) }));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ node: NODE }));
  });
  assert.equal(answer.status, 403);
  assert.match(answer.json.Forbidden, /Host "evil.example:\d+" is not allowed/);
  untouched();
});
