// The first-load budget check's own tests: which files count, and where the line is. Run by ./test-all before it
// checks the release build (node --test end2end/scripts/first-load-budget.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { staticImports, measure, judge, ROOTS } from './first-load-budget.mjs';

test('static imports are found minified or not, relative to the script, dynamic ones left out', () => {
  const script = 'import{a as b}from"./__wasm_split.js";import * as c from \'./x/y.js\';' +
    'const d = import("./lazy.js"); export { e } from "../up.js";';
  assert.deepEqual(staticImports(script, 'pkg/drainboard.js'), ['pkg/__wasm_split.js', 'pkg/x/y.js', 'up.js']);
});

function site(files) {
  const dir = mkdtempSync(join(tmpdir(), 'first-load-'));
  for (const [name, body] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), body);
  }
  return dir;
}

test('each first-load file counts by its brotli file, with the imports the script names', () => {
  const files = {};
  for (const root of ROOTS) files[`${root}.br`] = 'x'.repeat(10);
  files['pkg/drainboard.js'] = 'import{l}from"./loader.js";';
  files['pkg/loader.js.br'] = 'x'.repeat(7);
  files['pkg/part.wasm.br'] = 'x'.repeat(1000); // a lazily loaded part: not in the first load
  const sizes = measure(site(files));
  assert.deepEqual(Object.keys(sizes), [...ROOTS, 'pkg/loader.js'].sort());
  assert.equal(sizes['pkg/loader.js'], 7);
  assert.equal(sizes['pkg/drainboard.wasm'], 10);
});

test('a site without precompressed files is refused, not measured as empty', () => {
  const files = { 'pkg/drainboard.js': 'console.log(1)' };
  assert.throws(() => measure(site(files)), /release build/);
});

test('the budget holds up to its tolerance and fails past it', () => {
  const budget = { total: 1000, tolerance_percent: 2, files: { a: 600, b: 400 } };
  assert.equal(judge(budget, { a: 600, b: 420 }).ok, true);
  assert.equal(judge(budget, { a: 600, b: 421 }).ok, false);
  // A new file counts: 1,100 B is more than 2 % over 1,000 B, though each old file shrank or held.
  const grown = judge(budget, { a: 500, b: 400, c: 200 });
  assert.equal(grown.ok, false);
  assert.ok(grown.lines.some((l) => l.includes('c: 200 B (budget 0 B, +200)')), grown.lines.join('\n'));
});
