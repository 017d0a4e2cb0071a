// Accessibility, checked by axe-core in the browser: no serious or critical violation (contrast, names, roles) on
// the board's cards, its fleet map and timeline, the drain dialog, the node page and the wall, in light and in dark.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { artifactsDir, kubectl, launchBrowser, repoRoot, scenario, startDrainboard, waitFor } from './support.mjs';

const axeSource = readFileSync(join(repoRoot, 'end2end', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const NODE = 'node-2';

let server;
let browser;
let s;
before(async () => {
  server = await startDrainboard();
  browser = await launchBrowser();
  // A finished drain, so that the timeline has a span that links to its record (what a timeline with nothing on
  // it would not show axe).
  s = await scenario('a11y');
  s.deployment('web', 1);
  await s.running(1);
  s.openSpare();
  assert.equal((await post('nodes/cordon', { node: s.node, reason: 'a11y' })).status, 200);
  const started = await post('drains/start', { node: s.node, reason: 'a11y' });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  await waitFor('the drain to end', 90_000, async () =>
    !['Cordoning', 'Planning', 'Evicting'].includes((await post('drains/status', { id: started.body.id })).body.state));
});
after(async () => {
  await browser?.close();
  await server?.stop();
  if (s) {
    try { kubectl('delete', 'configmap', '-n', 'default', `drainboard-history.${s.node}`, '--ignore-not-found'); } catch {}
    s.cleanup();
  }
});

async function post(path, body) {
  const res = await fetch(`${server.url}/api/${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

/** axe's serious and critical violations on the page as it is now, each with the elements it names. */
async function violations(page) {
  // Evaluated through the DevTools protocol, which the page's content security policy does not govern.
  await page.evaluate(axeSource);
  const found = await page.evaluate(async () => {
    const result = await window.axe.run(document);
    return {
      passed: result.passes.map((p) => p.id),
      inapplicable: result.inapplicable.map((p) => p.id),
      violations: result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')}: ${n.failureSummary}`) })),
    };
  });
  // The check ran: contrast was among the rules that passed, and the ARIA attributes were checked, or there were
  // none to check (the wall has some only while a plan, a drain or a countdown shows, which depends on what the
  // tests before it left running).
  assert.ok(found.passed.includes('color-contrast'), `axe ran color-contrast: ${found.passed.join(', ')}`);
  assert.ok(found.passed.includes('aria-allowed-attr') || found.inapplicable.includes('aria-allowed-attr'),
    `axe ran aria-allowed-attr: ${found.passed.join(', ')}`);
  return found.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

async function open(path, colorScheme, ready) {
  const page = await browser.newPage({ viewport: { width: 1920, height: 1080 }, colorScheme });
  await page.goto(`${server.url}${path}`);
  await page.locator('[data-hydrated="true"]').waitFor();
  await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 30_000 });
  if (ready) await ready(page);
  return page;
}

const cases = [
  ['the board\'s cards', '/', (p) => p.locator(`[data-testid="node-row"][data-node="${NODE}"]`).waitFor()],
  ['the fleet map', '/?view=map', (p) => p.locator(`[data-testid="map-cell"][data-node="${NODE}"]`).waitFor()],
  ['the timeline', '/?view=timeline', (p) => p.locator(`[data-testid="timeline-row"][data-node="${s.node}"] [data-testid="timeline-span"][data-kind="drain"] a`).waitFor({ timeout: 20_000 })],
  ['the drain dialog', '/', async (p) => {
    const card = p.locator(`[data-testid="node-row"][data-node="${NODE}"]`);
    await card.locator('[data-testid="action-drain"]:not([disabled])').click();
    await p.locator('[data-testid="drain-dialog"] [data-testid="drain-preview"]').waitFor({ timeout: 15_000 });
  }],
  ['the node page', `/nodes/${NODE}`, (p) => p.locator('[data-testid="node-pods"]').waitFor({ timeout: 15_000 })],
  ['the wall', '/wall', (p) => p.locator(`[data-testid="map-cell"][data-node="${NODE}"]`).waitFor()],
];

for (const colorScheme of ['light', 'dark']) {
  for (const [what, path, ready] of cases) {
    test(`axe finds no serious or critical violation on ${what} (${colorScheme})`, { timeout: 60_000 }, async () => {
      const page = await open(path, colorScheme, ready);
      try {
        const found = await violations(page);
        await page.screenshot({ path: join(artifactsDir, `look-${what.replace(/\W+/g, '-')}-${colorScheme}.png`) });
        assert.deepEqual(found, [], JSON.stringify(found, null, 2));
      } finally {
        await page.close();
      }
    });
  }
}
