// Japanese, end to end. A browser whose language is Japanese (Accept-Language ja-JP) gets the whole UI in Japanese:
// `<html lang="ja">`, the catalogue's words, ages such as "3秒前" and dates such as "2026年03月05日". The header's
// switcher changes the language and keeps the choice across a reload (a cookie the server reads before
// Accept-Language). A node is drained through the Japanese dialog, and the panel and the node page say how it
// ended in Japanese. Screenshots go to end2end/artifacts/.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { artifactsDir, kubectl, scenario, useServerAndBrowser, waitFor } from './support.mjs';

const ctx = useServerAndBrowser();
const cleanups = [];
after(() => cleanups.forEach((c) => c()));

/** A new browser context whose language is Japanese, with every script error collected. */
async function japaneseBrowser() {
  const context = await ctx.browser.newContext({ locale: 'ja-JP', viewport: { width: 1280, height: 720 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`${m.text()} (${m.location().url})`); });
  return { context, page, errors };
}

async function boardReady(page) {
  await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
  await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 30_000 });
}

const lang = (page) => page.evaluate(() => document.documentElement.lang);
const text = async (locator) => (await locator.textContent()).trim();

/** Chooses `locale` in the header's switcher and waits for the page it loads. */
async function choose(page, locale) {
  await Promise.all([page.waitForEvent('load'), page.selectOption('[data-testid="language"]', locale)]);
  await boardReady(page);
}

test('Japanese from Accept-Language; the switcher changes to English and back, and a reload keeps the choice', { timeout: 120_000 }, async () => {
  const { context, page, errors } = await japaneseBrowser();
  await page.goto(ctx.server.url + '/');
  await boardReady(page);
  assert.equal(await lang(page), 'ja', 'the server chose Japanese from Accept-Language');
  assert.equal(await context.cookies().then((c) => c.find((x) => x.name === 'drainboard_locale')), undefined,
    'nothing is kept until a person chooses');
  assert.equal(await page.title(), 'Drainboard');
  assert.match(await text(page.locator('[data-testid="summary"]')), /^\d+ノード（NotReady \d+、cordon済み \d+）$/);
  assert.equal(await page.locator('[data-testid="language"]').inputValue(), 'ja');
  assert.equal(await page.locator('[data-testid="language"]').getAttribute('aria-label'), '言語');
  // Each language is named in its own language.
  const names = await page.locator('[data-testid="language"] option').evaluateAll((os) => os.map((o) => [o.value, o.textContent]));
  assert.deepEqual(names.filter(([v]) => v !== 'en-XA'), [['en', 'English'], ['ja', '日本語']]);
  const card = page.locator('[data-testid="node-row"]').first();
  assert.match(await text(card.locator('[data-testid="heartbeat-age"]')), /^ステータスのハートビート: \d+(秒|分|時間|日)前$/);
  assert.match(await text(card.locator('[data-testid="node-name"] ~ [data-testid="node-ready"]')), /^(Ready|NotReady|Unknown)$/);
  assert.equal(await text(card.locator('[data-testid="action-drain"]')), 'ドレーン');
  await page.screenshot({ path: join(artifactsDir, 'i18n-ja-board.png') });
  // The rolling maintenance dialog speaks as the guide does too.
  await page.locator('[data-testid="select-shown"]').click();
  await page.locator('[data-testid="open-rollout"]').click();
  const rollout = page.locator('[data-testid="rollout-dialog"]');
  await rollout.locator('[data-testid="rollout-plan-node"]').first().waitFor({ timeout: 15_000 });
  assert.match(await text(rollout.locator('h2').first()), /^\d+ノードのメンテナンスプラン$/);
  assert.match(await text(rollout.locator('[data-testid="rollout-draining-note"]')), /そのノード自身のドレーンが始まるときにcordonされます/);
  assert.match(await text(rollout.locator('[data-testid="rollout-plan-node"]').first()), /eviction \d+、拒否 \d+、PodDisruptionBudget待ち \d+/);
  await page.screenshot({ path: join(artifactsDir, 'i18n-ja-rollout-dialog.png') });
  await rollout.locator('[data-testid="dialog-cancel"]').click();
  await page.locator('[data-testid="clear-selection"]').click();

  await choose(page, 'en');
  assert.equal(await lang(page), 'en');
  assert.match(await text(page.locator('[data-testid="summary"]')), /^\d+ nodes?, \d+ not ready, \d+ cordoned$/);
  assert.match(await text(page.locator('[data-testid="heartbeat-age"]').first()), /^Status heartbeat: \d+[smhd] ago$/);
  const kept = (await context.cookies()).find((c) => c.name === 'drainboard_locale');
  assert.equal(kept?.value, 'en');
  assert.equal(kept.path, '/', 'one choice for every page and context');
  assert.ok(kept.expires > Date.now() / 1000 + 300 * 24 * 3600, 'kept for a year, not for the session');
  await page.reload();
  await boardReady(page);
  assert.equal(await lang(page), 'en', 'the choice outlasts a reload, over Accept-Language');
  assert.equal(await page.locator('[data-testid="language"]').inputValue(), 'en');
  await page.screenshot({ path: join(artifactsDir, 'i18n-ja-switched-to-english.png') });

  await choose(page, 'ja');
  assert.equal(await lang(page), 'ja');
  await page.reload();
  await boardReady(page);
  assert.equal(await lang(page), 'ja');
  assert.equal(await text(page.locator('[data-testid="action-drain"]').first()), 'ドレーン');
  assert.deepEqual(errors, [], 'no script error, no hydration mismatch');
  await context.close();
});

test('a node is drained through the Japanese dialog, and its page tells the story in Japanese', { timeout: 240_000 }, async () => {
  const s = await scenario('ja');
  cleanups.push(() => s.cleanup());
  s.deployment('web', 2);
  s.daemonset('agent');
  await s.running(3);
  const pods = s.podsOnNode();
  const agent = pods.filter((p) => p.includes('/agent-'));

  const { context, page, errors } = await japaneseBrowser();
  await page.goto(ctx.server.url + '/');
  await boardReady(page);
  await page.fill('[data-testid="node-filter"]', s.node);
  const card = page.locator(`[data-testid="node-row"][data-node="${s.node}"]`);
  await card.locator('[data-testid="action-drain"]:not([disabled])').click();
  const dialog = page.locator('[data-testid="drain-dialog"]');
  await dialog.locator('[data-testid="group-evict"]').waitFor({ timeout: 15_000 });

  assert.equal(await text(page.locator('#drain-dialog-title')), `${s.node}をドレーン`);
  // Ignore DaemonSet pods is ticked by default: the DaemonSet pod is skipped.
  assert.match(await text(dialog.locator('[data-testid="drain-preview"]')), /evictionされるPod（2）.*スキップ（1）.*拒否（0）/s);
  await dialog.locator('[data-testid="opt-ignore-daemonsets"]').uncheck();
  assert.match(await text(dialog.locator('[data-testid="drain-preview"]')), /evictionされるPod（2）.*スキップ（0）.*拒否（1）/s);
  assert.match(await text(dialog.locator('[data-testid="refused-needs"]')), /必要なオプション: デーモンセットのPodを除外 --ignore-daemonsets/);
  assert.match(await text(dialog.locator('[data-testid="group-refused"]')), /デーモンセットが管理しています/);
  // As rendered (innerText follows the layout): the separator keeps its spaces on both sides.
  assert.match(await dialog.locator('[data-testid="group-refused"] li').first().innerText(), /管理しています · 必要なオプション/);
  // The guide's --delete-local-data is today's --delete-emptydir-data: the option says so, and so does the name to
  // type when it is on.
  const emptyDir = dialog.locator('label:has([data-testid="opt-delete-emptydir-data"])');
  assert.match(await text(emptyDir), /^emptyDirのデータを削除 --delete-emptydir-data\s*ガイドの--delete-local-dataです。/);
  // No pod here has emptyDir data: the option changes nothing on this node, so it asks for no typed name.
  await dialog.locator('[data-testid="opt-delete-emptydir-data"]').check();
  assert.equal(await dialog.locator('[data-testid="type-name-prompt"]').count(), 0);
  await dialog.locator('[data-testid="opt-disable-eviction"]').check();
  assert.equal(await text(dialog.locator('[data-testid="type-name-prompt"]')),
    `確認のため「${s.node}」と入力してください: disable-evictionは元に戻せません`);
  await dialog.locator('[data-testid="opt-disable-eviction"]').uncheck();
  await dialog.locator('[data-testid="opt-delete-emptydir-data"]').uncheck();

  const confirm = dialog.locator('[data-testid="confirm-drain"]');
  assert.ok(await confirm.isDisabled(), 'the refused DaemonSet pod keeps confirm disabled');
  await dialog.locator('[data-testid="opt-ignore-daemonsets"]').check();
  assert.match(await text(dialog.locator('[data-testid="group-skipped"]')), /デーモンセットのPod: ノードに残ります/);
  assert.equal(await text(confirm), `${s.node}をドレーン: 2個のPodをeviction`);
  await page.screenshot({ path: join(artifactsDir, 'i18n-ja-drain-dialog.png') });
  // The Japanese dialog fits a 1280×720 screen whole, as the English one does: nothing to scroll to.
  const box = await dialog.boundingBox();
  assert.ok(box.x >= 0 && box.x + box.width <= 1280 && box.y >= 0 && box.y + box.height <= 720, `dialog within the viewport: ${JSON.stringify(box)}`);
  const scrolls = await dialog.evaluate((root) => [root, ...root.querySelectorAll('*')]
    .filter((el) => el.scrollHeight > el.clientHeight + 1 && ['auto', 'scroll'].includes(getComputedStyle(el).overflowY))
    .map((el) => el.dataset.testid ?? el.className));
  assert.deepEqual(scrolls, [], 'no part of the dialog scrolls');
  await dialog.locator('[data-testid="drain-reason"]').fill('カーネルのアップデート');

  await confirm.click();
  const panel = page.locator('[data-testid="progress-panel"]');
  await panel.locator('[data-testid="progress-state"][data-state="Drained"]').waitFor({ timeout: 60_000 });
  assert.equal(await text(panel.locator('[data-testid="progress-state"]')), 'ドレーン完了: 再起動や返却を行っても安全です');
  assert.equal(await text(panel.locator('[data-testid="progress-count"]')), '2個中2個のPodが削除済み');
  assert.match(await text(panel.locator('[data-testid="progress-elapsed"]')), /^(\d\.\d秒|\d+秒|\d+分\d\d秒)$/);
  assert.match(await text(panel), /.+が\d+(秒|分)前に開始/);
  assert.equal(await text(page.locator('#progress-panel-title')), `${s.node}のドレーン`);
  assert.match(await text(panel), /返却するノードにuncordonは必要ありません/);
  await page.screenshot({ path: join(artifactsDir, 'i18n-ja-progress-drained.png') });
  // What the panel says is what the cluster shows.
  assert.deepEqual(s.podsOnNode(), agent, 'only the DaemonSet pod is left on the node');
  assert.equal(kubectl('get', 'node', s.node, '-o', 'jsonpath={.spec.unschedulable}').trim(), 'true');
  const record = JSON.parse(kubectl('get', 'node', s.node, '-o', 'jsonpath={.metadata.annotations.drainboard\\.dev/drain}'));
  assert.equal(record.state, 'Drained');
  assert.equal(record.reason, 'カーネルのアップデート');

  await page.keyboard.press('Escape');
  await panel.waitFor({ state: 'detached', timeout: 5_000 });
  assert.match(await text(card.locator('[data-testid="card-drain-text"]')), /^前回のドレーン（.+）: ドレーン完了: 再起動や返却を行っても安全です$/);
  assert.match(await text(card.locator('[data-testid="card-cordon-text"]')), /^.+がcordon（\d+(秒|分)前）$/);

  // The node's page: its history with Japanese dates.
  await page.goto(`${ctx.server.url}/nodes/${s.node}`);
  await page.locator('[data-testid="node-detail"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
  const rows = page.locator('[data-testid="history-entry"]');
  await waitFor('the drain in the history', 30_000, async () => (await rows.count()) >= 2);
  const history = await rows.evaluateAll((els) => els.map((e) => e.textContent.trim()));
  assert.ok(history.every((row) => /^\d{4}年\d\d月\d\d日 \d\d:\d\d:\d\d UTC · /.test(row)), JSON.stringify(history));
  assert.ok(history.some((row) => /がドレーンを開始しました · 理由: カーネルのアップデート$/.test(row)), JSON.stringify(history));
  assert.equal(await text(page.locator('[data-testid="node-history"] h2')), 'メンテナンス履歴');
  await page.setViewportSize({ width: 1280, height: 1000 });
  await page.screenshot({ path: join(artifactsDir, 'i18n-ja-node-page.png'), fullPage: true });
  assert.deepEqual(errors, [], 'no script error, no hydration mismatch');
  await context.close();
});

// A failure is worded by the catalogue too: a drain held by a budget until its timeout shows, in Japanese, no English
// word. Only names (the node's, the pods', the person's) and the Kubernetes terms the Japanese catalogue keeps in
// Latin letters (Pod, PDB, cordon, eviction) may be in Latin letters; before failures were typed, the pod's reason
// read 「失敗: timed out after 3 s」.
test('a drain that times out says why in Japanese, with no English word', { timeout: 180_000 }, async () => {
  const s = await scenario('ja-timeout');
  cleanups.push(() => s.cleanup());
  s.deployment('web', 1);
  s.pdb('web-pdb', 'web', 1);
  await s.running(1);
  await waitFor('web-pdb to count 1 healthy', 30_000, () =>
    kubectl('get', 'pdb', 'web-pdb', '-n', s.ns, '-o', 'jsonpath={.status.currentHealthy}').trim() === '1');

  const { context, page, errors } = await japaneseBrowser();
  await page.goto(ctx.server.url + '/');
  await boardReady(page);
  await page.fill('[data-testid="node-filter"]', s.node);
  const card = page.locator(`[data-testid="node-row"][data-node="${s.node}"]`);
  await card.locator('[data-testid="action-drain"]:not([disabled])').click();
  const dialog = page.locator('[data-testid="drain-dialog"]');
  // One replica and minAvailable 1: a budget that never allows an eviction, said in Japanese.
  await dialog.locator('[data-testid="pdb-never"]').waitFor({ timeout: 15_000 });
  assert.match(await text(dialog.locator('[data-testid="pdb-never"]')), /^web-pdbの対象となるevictionは、いつまで待っても進みません/);
  await dialog.locator('[data-testid="opt-timeout"]').fill('3');
  await dialog.locator('[data-testid="confirm-drain"]').click();

  const panel = page.locator('[data-testid="progress-panel"]');
  await panel.locator('[data-testid="progress-state"][data-state="TimedOut"]').waitFor({ timeout: 60_000 });
  const failed = panel.locator('[data-testid="progress-pod"][data-state="failed"] td.pod-state');
  assert.equal(await failed.count(), 1);
  assert.equal(await text(failed), '失敗: 3秒でタイムアウトしました');
  await page.screenshot({ path: join(artifactsDir, 'i18n-ja-progress-timed-out.png') });

  // Everything the panel and the card say, less the names and the kept terms, has no Latin letter left.
  const names = [s.node, s.ns, ...s.podsOnNode().map((p) => p.split('/').pop()), 'web-pdb'];
  const english = (shown) => {
    let rest = shown;
    for (const name of names) rest = rest.split(name).join('');
    return rest.replace(/\b(Pod|PDB|cordon|uncordon|eviction)/g, '').replace(/[^A-Za-z]+/g, ' ').trim();
  };
  const state = await text(panel.locator('[data-testid="progress-state"]'));
  assert.match(state, /^タイムアウト: 1個のPodがノードに残っています/);
  assert.equal(english(state), '', `the drain's state: ${state}`);
  const rows = await panel.locator('[data-testid="progress-pod"]').evaluateAll((els) => els.map((e) => e.textContent));
  assert.deepEqual(rows.map(english), [''], JSON.stringify(rows));
  await page.keyboard.press('Escape');
  await panel.waitFor({ state: 'detached', timeout: 5_000 });
  const cardText = await text(card.locator('[data-testid="card-drain-text"]'));
  assert.match(cardText, /^前回のドレーン（.+）: タイムアウト/);
  const who = cardText.match(/^前回のドレーン（(.+?)）/)?.[1] ?? '';
  assert.equal(english(cardText.replace(who, '')), '', `the card: ${cardText}`);
  assert.deepEqual(errors, [], 'no script error, no hydration mismatch');
  await context.close();
});

// A drain that fails, in Japanese: a pod under two budgets is one the API server never evicts (it answers 500).
// The panel words the failure from the catalogue, and the only English left is the API server's own message.
test('a failed drain says why in Japanese, and only the API server\'s message stays as it came', { timeout: 180_000 }, async () => {
  const s = await scenario('ja-failed');
  cleanups.push(() => s.cleanup());
  s.deployment('web', 1);
  s.pdb('web-pdb-a', 'web', 0);
  s.pdb('web-pdb-b', 'web', 0);
  await s.running(1);

  const { context, page, errors } = await japaneseBrowser();
  await page.goto(ctx.server.url + '/');
  await boardReady(page);
  await page.fill('[data-testid="node-filter"]', s.node);
  const card = page.locator(`[data-testid="node-row"][data-node="${s.node}"]`);
  await card.locator('[data-testid="action-drain"]:not([disabled])').click();
  const dialog = page.locator('[data-testid="drain-dialog"]');
  await dialog.locator('[data-testid="group-evict"] [data-testid="preview-pod"]').first().waitFor({ timeout: 15_000 });
  await dialog.locator('[data-testid="confirm-drain"]').click();

  const panel = page.locator('[data-testid="progress-panel"]');
  await panel.locator('[data-testid="progress-state"][data-state^="Failed"]').waitFor({ timeout: 60_000 });
  const apiMessage = 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.';
  const row = await text(panel.locator('[data-testid="progress-pod"][data-state="failed"] td.pod-state'));
  assert.ok(row.startsWith('失敗: ') && row.includes(apiMessage), row);
  // The blocker names both budgets, in Japanese.
  const blocker = panel.locator('[data-testid="progress-pod"][data-state="failed"] [data-testid="blocker"]');
  assert.equal(await blocker.getAttribute('data-class'), 'two-budgets');
  assert.match(await text(blocker), /^このPodには複数のPDBがかかっています（web-pdb-a, web-pdb-b）/);
  const names = [s.node, s.ns, ...s.podsOnNode().map((p) => p.split('/').pop()), 'web-pdb-a', 'web-pdb-b'];
  // The technical words the Japanese catalogue keeps as they are (Pod, PDB, the API server, eviction, cordon).
  const english = (shown) => {
    let rest = shown.split(apiMessage).join('');
    for (const name of names) rest = rest.split(name).join('');
    return rest.replace(/\b(Pod|PDB|API|cordon|uncordon|eviction)/g, '').replace(/[^A-Za-z]+/g, ' ').trim();
  };
  const state = await text(panel.locator('[data-testid="progress-state"]'));
  assert.equal(english(state), '', `the drain's state: ${state}`);
  const rows = await panel.locator('[data-testid="progress-pod"]').evaluateAll((els) => els.map((e) => e.textContent));
  assert.deepEqual(rows.map(english), [''], JSON.stringify(rows));
  await page.screenshot({ path: join(artifactsDir, 'i18n-ja-progress-failed.png') });
  assert.deepEqual(errors, [], 'no script error, no hydration mismatch');
  await context.close();
});

test('a plan\'s node that Drainboard itself refuses to drain says why in Japanese: the node was deleted before its turn', { timeout: 180_000 }, async () => {
  const s = await scenario('ja-refused');
  cleanups.push(() => s.cleanup());
  // The first node's drain is held by a budget until the second node is gone; then the plan reaches a node that
  // no longer exists.
  s.deployment('web', 1);
  s.pdb('web-pdb', 'web', 1);
  await s.running(1);
  const started = await fetch(`${ctx.server.url}/api/plans/start`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ nodes: [s.node, s.spare], options: { max_parallel: 1 } }),
  });
  assert.equal(started.status, 200, await started.clone().text());
  const id = await started.json();
  await waitFor(`the drain of ${s.node} to be held`, 60_000, () =>
    kubectl('get', 'node', s.node, '-o', 'jsonpath={.spec.unschedulable}').trim() === 'true');
  kubectl('delete', 'node', s.spare, '--wait=true');
  kubectl('delete', 'pdb', 'web-pdb', '-n', s.ns);

  const { context, page, errors } = await japaneseBrowser();
  await page.goto(ctx.server.url + '/');
  await boardReady(page);
  const row = page.locator(`[data-testid="rollout"][data-id="${id}"] [data-testid="rollout-node"][data-node="${s.spare}"][data-step="failed"]`);
  // The plan has ended, so it is listed under the ended plans, folded away: read it there.
  await row.waitFor({ state: 'attached', timeout: 90_000 });
  const shown = await text(row.locator('td').nth(2));
  assert.ok(shown.includes(`ノード${s.spare}は存在しません`), shown);
  assert.equal(shown.split(s.spare).join('').replace(/[^A-Za-z]+/g, ' ').trim(), '', `no English word: ${shown}`);
  await page.screenshot({ path: join(artifactsDir, 'i18n-ja-plan-refused.png') });
  assert.deepEqual(errors, [], 'no script error, no hydration mismatch');
  await context.close();
});
