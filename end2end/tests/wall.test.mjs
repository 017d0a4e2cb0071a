// The wall screen against the real control plane, in team mode with a wall token: the fleet map, a drain running
// with its bar, a node counting down as a ring that fills with time, the timeline, dark whatever the browser
// prefers, nothing to click; and it comes back by itself after the server restarts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  MAINTAIN, artifactsDir, harness, inlineKubeconfig, kubectl, launchBrowser, scenario, startDrainboard, waitFor,
} from './support.mjs';

const WALL_TOKEN = [...crypto.getRandomValues(new Uint8Array(24))].map((b) => b.toString(16).padStart(2, '0')).join('');
// A node of the seeded cluster that stops reporting while the wall looks.
const FAILING = 'node-4';

let s;
let server;
let browser;
let cookie;
let drainId;
let walla;
const args = ['--team', '--insecure-http', '--wall-token', WALL_TOKEN];

before(async () => {
  s = await scenario('wall');
  s.deployment('web', 2);
  s.pdb('web', 'web', 2);
  await s.running(2);
  s.openSpare();
  server = await startDrainboard(args);
  browser = await launchBrowser();
  walla = inlineKubeconfig('team-walla', MAINTAIN);
  const res = await post('session/sign-in', { kubeconfig: walla });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  cookie = res.setCookie.split(';')[0];
});
after(async () => {
  if (drainId) await post('drains/cancel', { id: drainId }, cookie).catch(() => {});
  try { harness('restore', FAILING); } catch {}
  await browser?.close();
  await server?.stop();
  try { kubectl('delete', 'configmap', '-n', 'default', `drainboard-history.${s.node}`, '--ignore-not-found'); } catch {}
  s?.cleanup();
});

async function post(path, body, withCookie) {
  const res = await fetch(`${server.url}/api/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(withCookie ? { cookie: withCookie } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let json;
  try { json = JSON.parse(text); } catch { json = text; }
  return { status: res.status, body: json, setCookie: res.headers.get('set-cookie') };
}

test('the wall shows the fleet, a running drain, a countdown that fills with time and the timeline, dark and without controls', { timeout: 180_000 }, async () => {
  // A drain held by its budget keeps running; a node that stops reporting counts down.
  const started = await post('drains/start', { node: s.node, reason: 'rack move' }, cookie);
  assert.equal(started.status, 200, JSON.stringify(started.body));
  drainId = started.body.id;
  harness('unreachable', FAILING);

  const tab = await browser.newPage({ viewport: { width: 1920, height: 1080 }, colorScheme: 'light' });
  try {
    await tab.goto(`${server.url}/wall?wall-token=${WALL_TOKEN}`);
    assert.equal(new URL(tab.url()).search, '', 'no token in the address');
    await tab.locator('[data-testid="wall"][data-hydrated="true"]').waitFor();
    await tab.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 30_000 });

    const nodes = kubectl('get', 'nodes', '-o', 'name').split('\n').filter(Boolean).length;
    await waitFor('a cell for every node', 20_000, async () => (await tab.locator('[data-testid="map-cell"]').count()) === nodes);
    await tab.locator(`[data-testid="map-cell"][data-node="${s.node}"][data-state="draining"]`).waitFor({ timeout: 20_000 });
    await tab.locator(`[data-testid="map-cell"][data-node="${FAILING}"][data-state="unknown"]`).waitFor({ timeout: 30_000 });

    const drain = tab.locator(`[data-testid="wall-drain"][data-node="${s.node}"]`);
    await drain.waitFor({ timeout: 20_000 });
    assert.match(await drain.textContent(), /team-walla · 0\/2 pods/);
    assert.equal(await drain.locator('progress').getAttribute('max'), '2');

    const countdown = tab.locator(`[data-testid="wall-countdown"][data-node="${FAILING}"]`);
    await countdown.waitFor({ timeout: 30_000 });
    const ring = countdown.locator('svg.ring');
    assert.match(await ring.getAttribute('aria-label'), new RegExp(`^${FAILING}: pods go in \\d+:\\d\\d$`));
    const filled = async () => Number((await ring.locator('.ring-fill').getAttribute('stroke-dasharray')).split(' ')[0]);
    // The ring shows the share of the guide's 300 s gone since Ready changed, as the API reports the change.
    const transition = Date.parse(kubectl('get', 'node', FAILING, '-o',
      'jsonpath={.status.conditions[?(@.type=="Ready")].lastTransitionTime}').trim());
    const before = await filled();
    const expected = Math.min(1000, (Date.now() - transition) / 300);
    assert.ok(Math.abs(before - expected) <= 20, `the ring at ${before} of 1000, expected about ${expected.toFixed(0)}`);
    await tab.waitForTimeout(2_500);
    const afterWait = await filled();
    assert.ok(afterWait > before, `the ring fills with time: ${before} then ${afterWait} of 1000`);

    // Large type, dark by default, nothing to click, and it fits the screen.
    const look = await tab.evaluate(() => ({
      background: getComputedStyle(document.body).backgroundColor,
      heading: parseFloat(getComputedStyle(document.querySelector('.wall h2')).fontSize),
      // The whole page, the title bar too: no language menu, no sign-out, nothing a passer-by could press.
      links: document.querySelectorAll('a[href], button, input, select').length,
      cell: document.querySelector('.wall .fleet-map .cell').getBoundingClientRect().width,
      legend: parseFloat(getComputedStyle(document.querySelector('.wall .map-legend')).fontSize),
      height: document.documentElement.scrollHeight,
      width: document.documentElement.scrollWidth,
    }));
    assert.equal(look.background, 'rgb(13, 17, 23)', 'dark although the browser prefers light');
    assert.ok(look.heading >= 24, `headings of ${look.heading} px`);
    assert.equal(look.links, 0, 'nothing to click on the wall');
    assert.ok(look.cell >= 40 && look.legend >= 20, `cells of ${look.cell} px and a legend of ${look.legend} px, for a room`);
    // A clock from the server's time, so that anyone can see the wall is live.
    const clock = tab.locator('[data-testid="wall-clock"]');
    const shown = await clock.textContent();
    assert.match(shown, /^Server time \d\d:\d\d:\d\d UTC$/);
    await waitFor('the clock to move', 5_000, async () => (await clock.textContent()) !== shown);
    assert.ok(look.height <= 1080 && look.width <= 1920, `${look.width}×${look.height}`);
    await tab.locator('[data-testid="timeline"]').waitFor();
    await tab.screenshot({ path: join(artifactsDir, 'wall.png') });
  } finally {
    await tab.close();
  }
});

test('the wall comes back by itself after the server restarts', { timeout: 120_000 }, async () => {
  const tab = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
  try {
    await tab.goto(`${server.url}/wall?wall-token=${WALL_TOKEN}`);
    await tab.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 30_000 });
    const addr = new URL(server.url).host;
    const loads = [];
    tab.on('load', () => loads.push(Date.now()));

    await server.stop();
    await tab.locator('[data-testid="connection-state"]:not([data-state="live"])').waitFor({ timeout: 15_000 });
    server = await startDrainboard(args, { addr });
    // The same tab, not reloaded: its stream reconnects, with the session a wall keeps across restarts.
    await tab.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 60_000 });
    assert.deepEqual(loads, [], 'nobody reloaded the page');
    const spare = s.spare;
    kubectl('cordon', spare);
    try {
      await tab.locator(`[data-testid="map-cell"][data-node="${spare}"][data-state="cordoned"]`).waitFor({ timeout: 20_000 });
    } finally {
      kubectl('uncordon', spare);
    }
  } finally {
    await tab.close();
  }
  // The restart ended the people's sessions, not the wall's: sign in again for the cleanup.
  const res = await post('session/sign-in', { kubeconfig: walla });
  cookie = res.setCookie?.split(';')[0];
});
