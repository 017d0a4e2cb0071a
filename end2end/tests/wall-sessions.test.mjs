// Wall screens' sessions: a signed ticket good for 30 days on every replica and across restarts, ended on every
// replica when the wall signs out, and all of them ended by a new generation in the cluster, without changing the
// wall token. Two team-mode servers with one token, as two replicas.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl, startDrainboard, waitFor } from './support.mjs';

const WALL_TOKEN = [...crypto.getRandomValues(new Uint8Array(24))].map((b) => b.toString(16).padStart(2, '0')).join('');
const ARGS = ['--team', '--insecure-http', '--wall-token', WALL_TOKEN];
const OBJECT = 'drainboard-wall';
let a;
let b;

const forget = () => { try { kubectl('delete', 'configmap', OBJECT, '-n', 'default', '--ignore-not-found'); } catch {} };

before(async () => {
  forget();
  [a, b] = await Promise.all([startDrainboard(ARGS), startDrainboard(ARGS)]);
});
after(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  forget();
});

async function call(server, path, cookie, body = {}) {
  const res = await fetch(`${server.url}/api/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let json;
  try { json = JSON.parse(text); } catch { json = text; }
  return { status: res.status, body: json };
}

/** Opens the wall on `server` with the token: the `Set-Cookie` value. */
async function openWall(server) {
  let res;
  // A server answers 503 until it has read the revocations once (fails closed); that takes a moment after start.
  await waitFor('the wall to open', 15_000, async () => {
    res = await fetch(`${server.url}/wall?wall-token=${WALL_TOKEN}`, { redirect: 'manual' });
    return res.status === 303;
  });
  return res.headers.get('set-cookie');
}

const isWall = async (server, cookie) => (await call(server, 'session/me', cookie)).body?.user === 'wall screen';

test('a wall ticket is signed, dated and good for 30 days on every replica, and after a restart', { timeout: 90_000 }, async () => {
  const setCookie = await openWall(a);
  const cookie = setCookie.split(';')[0];
  assert.match(cookie, /^__Host-drainboard_session=w1-\d+-[0-9a-f]{32}-[0-9a-f]{64}$/, setCookie);
  assert.ok(setCookie.split('; ').includes('Max-Age=2592000'), `30 days: ${setCookie}`);
  const issued = Number(cookie.split('-')[2]);
  assert.ok(Math.abs(issued - Date.now() / 1000) < 60, `issued now: ${issued}`);
  assert.ok(await isWall(a, cookie));
  assert.ok(await isWall(b, cookie), 'the other replica accepts it');
  assert.equal((await call(b, 'board', cookie)).status, 200);

  // Altered: an issue time moved forward to extend its life, under the same signature.
  const later = cookie.replace(`-${issued}-`, `-${issued + 1000}-`);
  assert.equal((await call(a, 'board', later)).status, 401, 'a ticket whose date was changed is no ticket');

  await a.stop();
  a = await startDrainboard(ARGS);
  await waitFor('the restarted server to accept the ticket', 15_000, () => isWall(a, cookie));
});

test('a wall that signs out is ended on every replica; the others stay', { timeout: 90_000 }, async () => {
  const one = (await openWall(a)).split(';')[0];
  const two = (await openWall(b)).split(';')[0];
  assert.notEqual(one, two, 'each screen has a ticket of its own');
  const out = await call(b, 'session/sign-out', one);
  assert.equal(out.status, 200, JSON.stringify(out.body));
  assert.equal(out.body.signed_out, true);
  assert.equal((await call(b, 'board', one)).status, 401, 'ended at once where it signed out');
  await waitFor('the other replica to end it too', 10_000, async () => (await call(a, 'board', one)).status === 401);
  assert.ok(await isWall(a, two), 'the other screen goes on');
  const kept = JSON.parse(kubectl('get', 'configmap', OBJECT, '-n', 'default', '-o', 'jsonpath={.data.revoked}'));
  assert.deepEqual(Object.keys(kept), [one.split('-')[3]], 'the nonce of the ticket signed out, and no token');
  assert.ok(!kubectl('get', 'configmap', OBJECT, '-n', 'default', '-o', 'yaml').includes(WALL_TOKEN));
});

test('a new generation in the cluster ends every wall without a new token; opening again works', { timeout: 90_000 }, async () => {
  const cookies = [(await openWall(a)).split(';')[0], (await openWall(b)).split(';')[0]];
  for (const cookie of cookies) assert.ok(await isWall(a, cookie));
  kubectl('patch', 'configmap', OBJECT, '-n', 'default', '--type', 'merge', '-p', '{"data":{"generation":"2"}}');
  for (const server of [a, b]) {
    for (const cookie of cookies) {
      await waitFor('the generation to end the wall', 10_000, async () => (await call(server, 'board', cookie)).status === 401);
    }
  }
  const fresh = (await openWall(a)).split(';')[0];
  assert.ok(await isWall(b, fresh), 'a wall opened with the same token after the change');
});
