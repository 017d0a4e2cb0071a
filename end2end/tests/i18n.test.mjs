// The message catalogue, end to end. Debug builds carry the pseudo-locale en-XA, in which every catalogue message is
// wrapped in ⟦…⟧. Under it, the board, a drain dialog, a cordon dialog and a node page must show no letters outside
// the brackets except data from the cluster (names, labels, conditions, versions, taints, pods, owners, budgets) and
// durations; every aria-label, title and placeholder likewise. The data allowed is read from the HTTP API, not
// written down here. Under plain English, no bracket shows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { artifactsDir, kubectl, podOnNode, useServerAndBrowser, waitFor } from './support.mjs';

const ctx = useServerAndBrowser();

async function call(endpoint, body) {
  const res = await fetch(`${ctx.server.url}/api/${endpoint}`, {
    method: 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    // No body at all rather than an empty string, which fetch would send as text/plain.
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  assert.equal(res.status, 200, `${endpoint}: ${res.status}`);
  return res.json();
}

/** Fields whose object values are maps of data (label keys, resource names, DaemonSet keys), not structure. */
const DATA_MAPS = new Set(['labels', 'allocatable', 'daemonsets']);

/** Every string the API holds in `value`, and the keys of its data maps: what the page may show unwrapped. */
function dataStrings(value, into = new Set(), parentKey = '') {
  if (typeof value === 'string') {
    if (value.trim()) into.add(value.trim());
  } else if (Array.isArray(value)) {
    value.forEach((v) => dataStrings(v, into));
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (DATA_MAPS.has(parentKey)) into.add(k);
      dataStrings(v, into, k);
    }
  }
  return into;
}

/** The cluster's data as the page would show it: the board and the preview inputs of the nodes the test opens. */
async function clusterData(nodes) {
  const strings = dataStrings(await call('board'));
  for (const node of nodes) dataStrings(await call('drains/preview-inputs', { node }), strings);
  // Longest first, so that a name is removed whole before any shorter name inside it.
  return [...strings].sort((a, b) => b.length - a.length);
}

/** Removes every ⟦…⟧ span, nested ones included. */
function stripCatalogued(text) {
  let out = '';
  let depth = 0;
  for (const ch of text) {
    if (ch === '⟦') depth++;
    else if (ch === '⟧') depth = Math.max(0, depth - 1);
    else if (depth === 0) out += ch;
  }
  return out;
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// A data string counts only as a whole token: not inside a longer name.
const token = (s) => new RegExp(`(?<![\\p{L}\\p{N}._-])${escape(s)}(?![\\p{L}\\p{N}._-])`, 'gu');
// Ages, countdowns and elapsed times: 45s, 12m, 5h, 3d, 1.5s, 2m05s, 1h02m.
const DURATION = /(?<![\p{L}\p{N}])\d+(?:\.\d+)?(?:s|m|h|d)(?:\d\d(?:s|m))?(?![\p{L}\p{N}])/gu;

/** What is left of `text` once catalogue messages, cluster data and durations are taken out; letters left are a
 * string that bypassed the catalogue. */
function uncatalogued(text, data) {
  let rest = stripCatalogued(text);
  if (!/\p{L}/u.test(rest)) return '';
  for (const s of data) if (rest.includes(s)) rest = rest.replace(token(s), ' ');
  rest = rest.replace(DURATION, ' ');
  return /\p{L}/u.test(rest) ? rest.trim() : '';
}

/** Every visible text node, every option, and every aria-label, title and placeholder on the page. */
async function pageTexts(page) {
  return page.evaluate(() => {
    const texts = [];
    // A name with places to wrap (<wbr>) is one text split in several nodes: read it whole, once.
    const whole = new Set();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!n.textContent.trim() || !el || el.closest('script, style, template')) continue;
      const split = el.querySelector(':scope > wbr') !== null;
      if (split && whole.has(el)) continue;
      if (split) whole.add(el);
      if (el.closest('option') || el.checkVisibility({ visibilityProperty: true })) {
        texts.push({ where: el.closest('[data-testid]')?.dataset.testid ?? el.tagName, text: split ? el.textContent : n.textContent });
      }
    }
    for (const attr of ['aria-label', 'title', 'placeholder']) {
      for (const el of document.body.querySelectorAll(`[${attr}]`)) {
        texts.push({ where: `${attr} of ${el.dataset.testid ?? el.tagName}`, text: el.getAttribute(attr) });
      }
    }
    texts.push({ where: 'document title', text: document.title });
    return texts;
  });
}

/** Fails naming every text on the page that has letters outside the catalogue and the cluster's data. */
async function assertCatalogued(page, data, view) {
  const texts = await pageTexts(page);
  assert.ok(texts.some((t) => t.text.includes('⟦')), `${view}: the pseudo-locale is in use`);
  const stray = texts
    .map((t) => ({ ...t, left: uncatalogued(t.text, data) }))
    .filter((t) => t.left)
    .map((t) => `${t.where}: ${JSON.stringify(t.text)} leaves ${JSON.stringify(t.left)}`);
  assert.deepEqual(stray, [], `${view}: text outside the catalogue`);
}

async function open(locale, path) {
  const context = await ctx.browser.newContext({ locale, viewport: { width: 1280, height: 720 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`${m.text()} (${m.location().url})`); });
  await page.goto(ctx.server.url + path);
  return { context, page, errors };
}

/** The first card whose action is enabled once the permissions are in. */
async function cardWith(page, action) {
  const button = page.locator(`[data-testid="node-row"] [data-testid="${action}"]:not([disabled])`).first();
  await button.waitFor({ timeout: 15_000 });
  return button.locator('xpath=ancestor::*[@data-testid="node-row"]');
}

test('under the pseudo-locale, every string the UI shows comes from the catalogue', { timeout: 120_000 }, async () => {
  const { context, page, errors } = await open('en-XA', '/');
  await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
  await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 30_000 });
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'en-XA', 'the server chose en-XA');

  const drainCard = await cardWith(page, 'action-drain');
  const drainNode = await drainCard.getAttribute('data-node');
  const cordonCard = await cardWith(page, 'action-cordon');
  const cordonNode = await cordonCard.getAttribute('data-node');
  // A bare pod of our own on the node: force and disable-eviction change something there whatever earlier tests
  // left on it, so the dialog asks for the name to be typed.
  const probeNs = `i18n-probe-${Date.now()}`;
  podOnNode(probeNs, 'probe', drainNode);
  const data = await clusterData([...new Set([drainNode, cordonNode])]);
  await assertCatalogued(page, data, 'board');

  await drainCard.locator('[data-testid="action-drain"]').click();
  const dialog = page.locator('[data-testid="drain-dialog"]');
  await dialog.locator('[data-testid="group-evict"]').waitFor({ timeout: 15_000 });
  await assertCatalogued(page, data, 'drain dialog');
  // The options that add text: the name to type for a destructive option, and the option error.
  await dialog.locator('[data-testid="opt-force"]').check();
  await dialog.locator('[data-testid="type-name-prompt"]').waitFor();
  await assertCatalogued(page, data, 'drain dialog with force');
  await dialog.locator('[data-testid="opt-timeout"]').fill('soon');
  await dialog.locator('[data-testid="options-error"]').waitFor();
  await assertCatalogued(page, data, 'drain dialog with a bad number');
  await page.screenshot({ path: join(artifactsDir, 'i18n-drain-dialog.png') });
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached', timeout: 5_000 });

  await cordonCard.locator('[data-testid="action-cordon"]').click();
  await page.locator('[data-testid="cordon-dialog"]').waitFor();
  await assertCatalogued(page, data, 'cordon dialog');
  await page.keyboard.press('Escape');

  await page.goto(`${ctx.server.url}/nodes/${drainNode}`);
  await page.locator('[data-testid="node-detail"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
  await page.locator('[data-testid="node-pod"]').first().waitFor({ timeout: 15_000 });
  await page.locator('[data-testid="node-row"] [data-testid="action-drain"]').waitFor({ timeout: 15_000 });
  await assertCatalogued(page, data, 'node page');
  assert.deepEqual(errors, [], 'no script error, no hydration mismatch');

  // The page of a node that does not exist is answered with 404, which the console reports; nothing else may be.
  await page.goto(`${ctx.server.url}/nodes/no-such-node`);
  await page.locator('[data-testid="node-missing"]').waitFor({ timeout: 15_000 });
  await page.locator('[data-testid="node-detail"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
  await assertCatalogued(page, data, 'missing node page');
  assert.deepEqual(errors.filter((e) => !/status of 404/.test(e)), [], 'no script error on the missing node page');
  kubectl('delete', 'namespace', probeNs, '--wait=false');
  await context.close();
});

test('in English no message is wrapped', { timeout: 60_000 }, async () => {
  const { context, page, errors } = await open('en-US', '/');
  await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
  const card = await cardWith(page, 'action-drain');
  await card.locator('[data-testid="action-drain"]').click();
  await page.locator('[data-testid="drain-dialog"] [data-testid="group-evict"]').waitFor({ timeout: 15_000 });
  const brackets = async () => (await pageTexts(page)).filter((t) => /[⟦⟧]/.test(t.text));
  assert.deepEqual(await brackets(), []);
  const node = await card.getAttribute('data-node');
  await page.goto(`${ctx.server.url}/nodes/${node}`);
  await page.locator('[data-testid="node-pod"]').first().waitFor({ timeout: 30_000 });
  await waitFor('the node page to hydrate', 30_000, () => page.locator('[data-testid="node-detail"][data-hydrated="true"]').count());
  assert.deepEqual(await brackets(), []);
  assert.deepEqual(errors, []);
  await context.close();
});
