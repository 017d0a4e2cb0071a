// The probes on --probe-addr: /healthz and /readyz answer kubelets, which send the pod's IP as Host and carry no
// session; they show nothing of the cluster; /readyz turns 200 once the cache has listed, and stays 200 while the
// API server is away, so that replicas do not all leave their Service at once.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { faultProxy, status } from './fault-proxy.mjs';
import { startDrainboard, waitFor } from './support.mjs';

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
  for (const path of ['/', '/api/board', '/api/board/events', '/metrics']) {
    assert.equal((await get(port, path, podIp)).status, 404, `${path} is not on the probe address`);
  }
  // The API server goes away: the page says so, and the pod stays ready.
  proxy.rule({ method: 'GET', path: /./, times: 1_000_000, status: 503, body: status(503, 'ServiceUnavailable', 'down') });
  proxy.cut('GET', /./);
  await new Promise((r) => setTimeout(r, 3_000));
  assert.equal((await get(port, '/readyz', podIp)).status, 200, 'still ready with the API server away');
  assert.equal((await get(port, '/healthz', podIp)).status, 200);
});
