// The probes on --probe-addr: /healthz and /readyz answer kubelets, which send the pod's IP as Host and carry no
// session; they show nothing of the cluster; /readyz turns 200 once the cache has listed, and stays 200 while the
// API server is away, so that replicas do not all leave their Service at once.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { faultProxy, status } from './fault-proxy.mjs';
import { scenario, startDrainboard, waitFor } from './support.mjs';

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c(); });

const freePort = () => new Promise((resolve) => {
  const s = createServer();
  s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
});

/** GET `path` on 127.0.0.1:`port` with the given Host header; resolves with status and body. */
const get = (port, path, host) => new Promise((resolve, reject) => {
  const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
    let body = '';
    res.on('data', (d) => { body += d; });
    res.on('end', () => resolve({ status: res.statusCode, body }));
  });
  req.on('error', reject);
  req.end();
});

test('the probes answer a kubelet\'s request by pod IP, show nothing else, and stay ready while the API server is away', { timeout: 90_000 }, async () => {
  const proxy = await faultProxy();
  cleanups.push(() => proxy.close());
  const port = await freePort();
  // The first list of nodes answers 6 s late: until then the cache has not listed, and the pod is not ready.
  proxy.rule({ method: 'GET', path: /^\/api\/v1\/nodes\?/, times: 1, delayMs: 6_000 });
  const server = await startDrainboard(['--probe-addr', `127.0.0.1:${port}`], { kubeconfig: proxy.kubeconfig });
  cleanups.push(() => server.stop());
  const podIp = `10.244.3.17:${port}`;
  assert.deepEqual(await get(port, '/healthz', podIp), { status: 200, body: 'ok\n' });
  const early = await get(port, '/readyz', podIp);
  assert.equal(early.status, 503, `not ready before the first list: ${early.body}`);
  await waitFor('/readyz to say ready', 30_000, async () => (await get(port, '/readyz', podIp)).status === 200);
  // The same Host on the dashboard's address is refused: only the probes are open to it.
  const main = new URL(server.url);
  assert.equal((await get(Number(main.port), '/', podIp)).status, 403);
  for (const path of ['/', '/api/board', '/api/board/events', '/nodes/node-1']) {
    assert.equal((await get(port, path, podIp)).status, 404, `${path} is not on the probe address`);
  }
  // Prometheus scrapes by pod IP too.
  const scraped = await get(port, '/metrics', podIp);
  assert.equal(scraped.status, 200);
  assert.match(scraped.body, /^drainboard_watches_started_total 4$/m);
  assert.match(scraped.body, /^# EOF$/m);
  // A board stream open is a viewer, counted while it stays open.
  const viewers = async () => Number((await get(port, '/metrics', podIp)).body.match(/^drainboard_board_viewers (\d+)$/m)?.[1]);
  assert.equal(await viewers(), 0);
  const stream = new AbortController();
  const opened = await fetch(`${server.url}/api/board/events`, { signal: stream.signal });
  assert.equal(opened.status, 200);
  await waitFor('the viewer counted', 10_000, async () => (await viewers()) === 1);
  stream.abort();
  await waitFor('the viewer gone', 10_000, async () => (await viewers()) === 0);
  // The API server goes away: the page says so, and the pod stays ready.
  proxy.rule({ method: 'GET', path: /./, times: 1_000_000, status: 503, body: status(503, 'ServiceUnavailable', 'down') });
  proxy.cut('GET', /./);
  await new Promise((r) => setTimeout(r, 3_000));
  assert.equal((await get(port, '/readyz', podIp)).status, 200, 'still ready with the API server away');
  assert.equal((await get(port, '/healthz', podIp)).status, 200);
  // Each failed watch is counted by kind; every kind's series is there from the start, at zero until it fails.
  const errors = await waitFor('failed watches counted', 20_000, async () => {
    const found = [...(await get(port, '/metrics', podIp)).body.matchAll(/^drainboard_watch_errors_total\{kind="(\w+)"\} (\d+)$/gm)];
    return found.some(([, , n]) => Number(n) >= 1) ? found : null;
  });
  assert.deepEqual(errors.map(([, kind]) => kind).sort(), ['Lease', 'Node', 'Pod', 'PodDisruptionBudget'], JSON.stringify(errors));
});

/** One series' value in a scrape, 0 when it is not there yet. */
const series = (text, line) => {
  const escaped = line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = text.match(new RegExp(`^${escaped} (\\S+)$`, 'm'));
  return m ? Number(m[1]) : 0;
};

test('the metrics move after a drain: its outcome, its evictions by answer, and the requests it took', { timeout: 120_000 }, async () => {
  const s = await scenario('metrics');
  cleanups.push(() => s.cleanup());
  s.deployment('web', 3);
  await s.running(3);
  s.openSpare();
  const port = await freePort();
  const server = await startDrainboard(['--probe-addr', `127.0.0.1:${port}`, '--log-format', 'json']);
  cleanups.push(() => server.stop());
  const scrape = async () => (await get(port, '/metrics', `127.0.0.1:${port}`)).body;
  await waitFor('the cache to list', 30_000, async () => (await get(port, '/readyz', 'localhost')).status === 200);
  const before = await scrape();
  const call = (path, body) => fetch(`${server.url}/api/${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, body: await r.json() }));
  const started = await call('drains/start', { node: s.node, reason: 'metrics test' });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const done = await waitFor('the drain to end', 60_000, async () => {
    const p = (await call('drains/status', { id: started.body.id })).body;
    return ['Cordoning', 'Planning', 'Evicting'].includes(p.state) ? null : p;
  });
  assert.equal(done.state, 'Drained');
  // The drain's end is counted and logged as it ends, which may come a moment after its state says so.
  const after = await waitFor('the drain counted', 10_000, async () => {
    const text = await scrape();
    return series(text, 'drainboard_drains_total{outcome="Drained"}') > series(before, 'drainboard_drains_total{outcome="Drained"}') ? text : null;
  });
  assert.equal(series(after, 'drainboard_drains_total{outcome="Drained"}') - series(before, 'drainboard_drains_total{outcome="Drained"}'), 1);
  const accepted = 'drainboard_eviction_requests_total{answer="201",attempt="first"}';
  assert.equal(series(after, accepted) - series(before, accepted), 3, 'one accepted eviction per pod, each at its first try');
  const starts = 'drainboard_http_request_duration_seconds_count{method="POST",route="/api/drains/start",status="200"}';
  assert.equal(series(after, starts) - series(before, starts), 1);
  assert.ok(series(after, 'drainboard_http_request_duration_seconds_count{method="POST",route="/api/drains/status",status="200"}') >= 1);
  // --log-format json: one object per line, and the drain's lines carry its id and node in their span.
  await waitFor('the drain ended line', 10_000, () => server.logs().includes('drain ended'));
  const lines = server.logs().split('\n').filter((l) => l.trim());
  // Every line is JSON, whatever wrote it; one that is not fails with the line itself, to show what wrote it.
  const objects = lines.map((l) => { try { return JSON.parse(l); } catch { assert.fail(`not a JSON line: ${l}\nin:\n${lines.join('\n')}`); } });
  assert.deepEqual(objects.filter((o) => o.fields?.message === 'panicked').map((o) => o.fields), [], 'no panic');
  const ended = objects.find((o) => o.fields?.message === 'drain ended');
  assert.ok(ended, `a "drain ended" line in:\n${lines.slice(-10).join('\n')}`);
  assert.deepEqual({ name: ended.span.name, id: ended.span.id, node: ended.span.node }, { name: 'drain', id: started.body.id, node: s.node });
  assert.equal(ended.fields.outcome, 'Drained');
});
