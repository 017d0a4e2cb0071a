// The first load's size budget (P5): the brotli bytes of the site files a first load of the board fetches, from a
// release build (`end2end/scripts/build-site.sh --release`), against the committed budget in
// end2end/first-load-budget.json. ./test-all runs it; it fails when the files together grow more than the budget's
// tolerance (2 %) over it.
//   node end2end/scripts/first-load-budget.mjs SITE_DIR            check
//   node end2end/scripts/first-load-budget.mjs SITE_DIR --write    set the budget to what SITE_DIR has now
// A change that must grow the first load writes the budget anew, and says why in BENCHMARKS.md (section P5).
//
// The files: the page's module script and its wasm, its stylesheet and icon (what the HTML shell names), and every
// module the script imports statically (the split loader), found in the script itself so that a new import counts
// at once. The HTML is rendered per request and is not a site file; first-load.mjs measures it with the rest.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, dirname, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const BUDGET_FILE = join(here, '..', 'first-load-budget.json');
/// What the HTML shell loads: `<name>.js` (which fetches `<name>.wasm`), the stylesheet and the icon.
export const ROOTS = ['pkg/drainboard.js', 'pkg/drainboard.wasm', 'pkg/drainboard.css', 'favicon.svg'];

/// The modules a script imports statically (`import … from "./x.js"`, minified or not), relative to the site.
export function staticImports(script, at) {
  const found = new Set();
  for (const m of script.matchAll(/(?:\bfrom|\bimport)\s*["'](\.{1,2}\/[^"']+)["']/g)) {
    found.add(posix.normalize(posix.join(posix.dirname(at), m[1])));
  }
  return [...found].sort();
}

/// Each first-load file and its brotli size in bytes, read from the site's precompressed `.br` files. A file
/// without one is an error: the budget is about what is served, and a release build compresses every file.
export function measure(site) {
  const files = new Set(ROOTS);
  for (const root of ROOTS.filter((f) => f.endsWith('.js'))) {
    const path = join(site, root);
    if (!existsSync(path)) throw new Error(`${path} is missing: build the release site first`);
    for (const f of staticImports(readFileSync(path, 'utf8'), root)) files.add(f);
  }
  const sizes = {};
  for (const f of [...files].sort()) {
    const br = join(site, `${f}.br`);
    if (!existsSync(br)) throw new Error(`${br} is missing: is ${site} a release build (build-site.sh --release)?`);
    sizes[f] = readFileSync(br).length;
  }
  return sizes;
}

/// The verdict: the total against the budget with its tolerance, and a line per file that grew or shrank.
export function judge(budget, sizes) {
  const total = Object.values(sizes).reduce((a, b) => a + b, 0);
  const limit = Math.floor((budget.total * (100 + budget.tolerance_percent)) / 100);
  const lines = Object.keys({ ...budget.files, ...sizes }).sort().map((f) => {
    const was = budget.files[f] ?? 0;
    const now = sizes[f] ?? 0;
    return `  ${f}: ${now} B (budget ${was} B, ${now - was >= 0 ? '+' : ''}${now - was})`;
  });
  return { ok: total <= limit, total, limit, lines };
}

function main() {
  const [site, flag] = process.argv.slice(2);
  if (!site) {
    console.error('usage: first-load-budget.mjs SITE_DIR [--write]');
    process.exit(2);
  }
  const sizes = measure(site);
  const total = Object.values(sizes).reduce((a, b) => a + b, 0);
  if (flag === '--write') {
    const old = existsSync(BUDGET_FILE) ? JSON.parse(readFileSync(BUDGET_FILE, 'utf8')) : {};
    const budget = { ...old, tolerance_percent: old.tolerance_percent ?? 2, total, files: sizes };
    writeFileSync(BUDGET_FILE, `${JSON.stringify(budget, null, 2)}\n`);
    console.log(`first-load budget: written, ${total} B`);
    return;
  }
  const budget = JSON.parse(readFileSync(BUDGET_FILE, 'utf8'));
  const { ok, lines, limit } = judge(budget, sizes);
  const kb = (b) => `${(b / 1000).toFixed(1)} KB`;
  console.log(`first-load budget: ${kb(total)} against ${kb(budget.total)} (at most ${kb(limit)})`);
  for (const l of lines) console.log(l);
  if (!ok) {
    console.error(
      `first-load budget: the first load grew to ${total} B, more than ${budget.tolerance_percent} % over its budget ` +
        `of ${budget.total} B. Make the new code a lazily loaded part (#[lazy]), or, if the first page must carry ` +
        `it, run 'node end2end/scripts/first-load-budget.mjs ${site} --write' and say why in BENCHMARKS.md (P5).`,
    );
    process.exit(1);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
