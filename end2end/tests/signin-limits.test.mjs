// Sign-in cannot be locked by others: attempts are paced per source (the peer's address, or the client a proxy
// trusted by --trusted-proxy names), in front of the pace of all sources together, which only attempts that reach the
// API server are charged. Sources are loopback addresses of their own (127.0.0.2, 127.0.0.3): Linux routes all of
// 127/8 to this machine.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { MAINTAIN, inlineKubeconfig, startDrainboard } from './support.mjs';

let server;
let alice;
before(async () => {
  alice = inlineKubeconfig('limits-alice', MAINTAIN);
  server = await startDrainboard(['--team', '--insecure-http', '--trusted-proxy', '127.0.0.3']);
});
after(async () => { await server?.stop(); });

/** A sign-in attempt with `body`, from `from` (a local address), with extra `headers`: the status and body. */
function signIn(body, { from = '127.0.0.1', headers = {} } = {}) {
  const url = new URL(`${server.url}/api/session/sign-in`);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request({
      host: url.hostname, port: url.port, path: url.pathname, method: 'POST', localAddress: from,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers },
    }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => {
        let json;
        try { json = JSON.parse(text); } catch { json = text; }
        resolve({ status: res.status ?? res.statusCode, body: json });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

// Refused before the API server is asked: not a kubeconfig.
const JUNK = { kubeconfig: 'this is not a kubeconfig: [' };

/** `n` attempts with `body` from `from`, all at once; the statuses. */
async function flood(n, body, options) {
  const answers = await Promise.all(Array.from({ length: n }, () => signIn(body, options)));
  return answers;
}

test('a flood from one address is held back there, and another address signs in', { timeout: 60_000 }, async () => {
  const answers = await flood(80, JUNK, { from: '127.0.0.2' });
  const statuses = answers.map((a) => a.status);
  assert.ok(statuses.filter((s) => s === 400).length >= 30, `the first attempts are judged: ${statuses}`);
  const held = answers.filter((a) => a.status === 429);
  assert.ok(held.length >= 40, `the rest held back: ${statuses}`);
  assert.match(held[0].body.TooMany, /from 127\.0\.0\.2; wait/, JSON.stringify(held[0].body));
  // Still flooding, a person elsewhere signs in at once.
  const [mine, ...more] = await Promise.all([
    signIn({ kubeconfig: alice }, { from: '127.0.0.1' }),
    ...Array.from({ length: 40 }, () => signIn(JUNK, { from: '127.0.0.2' })),
  ]);
  assert.equal(mine.status, 200, JSON.stringify(mine.body));
  assert.equal(mine.body.user, 'limits-alice');
  assert.ok(more.every((a) => a.status === 429), 'the flood is still held back');
});

test('junk from many addresses costs the pace of all sources nothing: only attempts that reach the API server do', { timeout: 60_000 }, async () => {
  // 400 refusals from 40 clients behind the trusted proxy, 10 each, all at once: far past the shared bucket's
  // burst (20), yet none is held back, since none reached the API server.
  const answers = [];
  for (let i = 0; i < 40; i++) {
    answers.push(...await flood(10, JUNK, { from: '127.0.0.3', headers: { 'x-forwarded-for': `198.51.100.${i + 1}` } }));
  }
  assert.ok(answers.every((a) => a.status === 400), `all judged: ${answers.map((a) => a.status)}`);
  // Attempts that do reach the API server are held to the shared pace: 60 with unknown tokens, from 60 clients.
  const tokens = await Promise.all(Array.from({ length: 60 }, (_, i) =>
    signIn({ token: `unknown-token-${i}` }, { from: '127.0.0.3', headers: { 'x-forwarded-for': `203.0.113.${i + 1}` } })));
  const statuses = tokens.map((a) => a.status);
  assert.ok(statuses.includes(401), `the API server refused some: ${statuses}`);
  const shared = tokens.find((a) => a.status === 429);
  assert.ok(shared, `and the shared pace held back others: ${statuses}`);
  assert.match(shared.body.TooMany, /at once on this server/, JSON.stringify(shared.body));
});

test('behind a trusted proxy each client has its own pace; an untrusted peer cannot pick one', { timeout: 60_000 }, async () => {
  const viaProxy = (client) => ({ from: '127.0.0.3', headers: { 'x-forwarded-for': `192.0.2.99, ${client}` } });
  const first = await flood(50, JUNK, viaProxy('198.51.100.200'));
  const held = first.find((a) => a.status === 429);
  assert.ok(held, `one client past its pace: ${first.map((a) => a.status)}`);
  // The client the proxy appended, not what the client wrote before it.
  assert.match(held.body.TooMany, /from 198\.51\.100\.200;/, JSON.stringify(held.body));
  const other = await signIn(JUNK, viaProxy('198.51.100.201'));
  assert.equal(other.status, 400, `another client behind the same proxy: ${JSON.stringify(other.body)}`);
  // From a peer that is not trusted, the header is ignored: rotating it does not escape the peer's own pace.
  const untrusted = await Promise.all(Array.from({ length: 50 }, (_, i) =>
    signIn(JUNK, { from: '127.0.0.4', headers: { 'x-forwarded-for': `198.18.0.${i + 1}` } })));
  const mine = untrusted.find((a) => a.status === 429);
  assert.ok(mine, `held back despite the header: ${untrusted.map((a) => a.status)}`);
  assert.match(mine.body.TooMany, /from 127\.0\.0\.4;/, JSON.stringify(mine.body));
});

test('--trusted-proxy takes addresses and networks only, and says how to write one', { timeout: 30_000 }, async () => {
  await assert.rejects(startDrainboard(['--team', '--insecure-http', '--trusted-proxy', 'proxy.example']),
    /'proxy\.example' is not an address or a network: give one as 10\.0\.0\.7, 10\.0\.0\.0\/8/);
  await assert.rejects(startDrainboard(['--trusted-proxy', '10.0.0.0/8']), /--team/);
});
