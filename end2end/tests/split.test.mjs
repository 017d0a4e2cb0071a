// What the board's first load carries: the wasm the page needs and no more. The parts split off with `#[lazy]`
// (dialogs, map, timeline, wall, the node page's history, pods and planner, the rollouts panel) load only when first
// shown.
// Counts, not sizes: the sizes are the benchmark's (BENCHMARKS.md, P5).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { deletePlans, useServerAndBrowser, waitFor } from './support.mjs';

// Plans are cluster objects that other files' tests leave behind: none, so that the panel has nothing to show.
before(() => deletePlans());
const ctx = useServerAndBrowser();
const NODE = 'node-2';

/** Opens `path` in a fresh context (no cache) and lists every wasm file it asks for, by name, as it asks. */
async function open(path) {
  const context = await ctx.browser.newContext();
  const page = await context.newPage();
  const wasm = [];
  page.on('request', (r) => {
    const name = new URL(r.url()).pathname.split('/').pop();
    if (name.endsWith('.wasm')) wasm.push(name);
  });
  await page.goto(`${ctx.server.url}${path}`);
  return { context, page, wasm };
}

test("the board loads one wasm, and the map's part only when the map is first shown", { timeout: 90_000 }, async () => {
  const { context, page, wasm } = await open('/');
  try {
    await page.locator('[data-testid="nodes-page"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
    await page.locator(`[data-testid="node-row"][data-node="${NODE}"]`).waitFor();
    // Long enough for anything the page would fetch after hydrating on its own.
    await page.waitForTimeout(1_500);
    assert.equal(wasm.length, 1, `the first load asked for ${JSON.stringify(wasm)}`);
    assert.doesNotMatch(wasm[0], /^split_|^chunk_/, 'the main part');

    await page.locator('[data-testid="view-map"]').click();
    await page.locator('[data-testid="fleet-map"]').waitFor({ timeout: 15_000 });
    assert.ok(wasm.some((w) => w.startsWith('split_map_view')), `the map's part: ${JSON.stringify(wasm)}`);
    assert.ok(!wasm.some((w) => w.startsWith('split_dialog_view')), 'no dialog opened yet');
  } finally {
    await context.close();
  }
});

test("a node page loads its history's and its pods' parts, and the rollouts panel's stays away while none runs", { timeout: 90_000 }, async () => {
  const { context, page, wasm } = await open(`/nodes/${NODE}`);
  try {
    await page.locator('[data-testid="node-detail"][data-hydrated="true"]').waitFor({ timeout: 30_000 });
    await page.locator('[data-testid="node-pods"]').waitFor({ timeout: 15_000 });
    await page.locator('[data-testid="node-history"]').waitFor({ timeout: 15_000 });
    await waitFor("the pods' part", 5_000, async () => wasm.some((w) => w.startsWith('split_node_pods_view')));
    assert.ok(wasm.some((w) => w.startsWith('split_node_history_view')), `the history's part: ${JSON.stringify(wasm)}`);
    assert.ok(!wasm.some((w) => w.startsWith('split_rollouts_view')), `no rollout runs: ${JSON.stringify(wasm)}`);
  } finally {
    await context.close();
  }
});
