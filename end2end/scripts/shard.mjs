#!/usr/bin/env node
// Prints the browser and API test files of shard INDEX (1-based) out of COUNT, one per line.
//
// Each shard runs against a control plane of its own, so the shards cannot disturb each other; within a shard the
// files run one at a time, in name order, as they always have. The split balances the files' measured durations
// (longest first, each to the shard with the least so far), because most of a test's time is waiting on timers
// (Leases, grace periods, retries), not CPU, and two shards then finish together.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Seconds each file took in a full warm run (2026-12-03). A file not listed counts as DEFAULT_SECONDS; the split
 * only needs to be roughly right, and a wrong figure costs time, never a test.
 */
const SECONDS = {
  'plans.test.mjs': 170, 'plan-trust.test.mjs': 160, 'plan-partition.test.mjs': 150, 'faults-more.test.mjs': 130, 'real-faults.test.mjs': 128, 'drain-ui.test.mjs': 94,
  'plans-team.test.mjs': 94, 'replicas.test.mjs': 85, 'fleet.test.mjs': 78, 'taint-timing.test.mjs': 77,
  'expiry.test.mjs': 65, 'a11y.test.mjs': 59, 'cards.test.mjs': 46, 'team.test.mjs': 43, 'rollout.test.mjs': 42,
  'i18n-ja.test.mjs': 40, 'wall.test.mjs': 22, 'deploy.test.mjs': 20, 'faults.test.mjs': 18, 'eta.test.mjs': 17,
  'i18n.test.mjs': 15, 'limits.test.mjs': 13, 'split.test.mjs': 12, 'permissions.test.mjs': 12,
  'api-lost.test.mjs': 12, 'probes.test.mjs': 11, 'faults-pace.test.mjs': 11, 'local-lock.test.mjs': 11,
  'timeline.test.mjs': 10, 'capacity.test.mjs': 9, 'contexts.test.mjs': 9, 'faults-retry.test.mjs': 9,
  'reconnect.test.mjs': 8, 'cross-origin.test.mjs': 8, 'rbac-reads.test.mjs': 7, 'headers.test.mjs': 7,
  'cordon-record.test.mjs': 6, 'screen.test.mjs': 20, 'history.test.mjs': 14, 'past.test.mjs': 35, 'nodes.test.mjs': 5, 'extreme-values.test.mjs': 3,
  'shutdown.test.mjs': 3, 'blockers.test.mjs': 75, 'move-first.test.mjs': 60, 'estimate.test.mjs': 30, 'windows.test.mjs': 240, 'hold-others.test.mjs': 25, 'teams.test.mjs': 30, 'lifecycle.test.mjs': 60, 'api.test.mjs': 1, 'bad-input.test.mjs': 1, 'audit.test.mjs': 1,
};
const DEFAULT_SECONDS = 15;

/** The files of each of `count` shards, each list in name order. */
export function shards(files, count) {
  const out = Array.from({ length: count }, () => ({ seconds: 0, files: [] }));
  const weighed = files.map((f) => [SECONDS[f] ?? DEFAULT_SECONDS, f]);
  // Longest first; ties by name, so that the split is the same on every machine.
  weighed.sort((a, b) => b[0] - a[0] || a[1].localeCompare(b[1]));
  for (const [seconds, file] of weighed) {
    const least = out.reduce((min, s) => (s.seconds < min.seconds ? s : min), out[0]);
    least.seconds += seconds;
    least.files.push(file);
  }
  return out.map((s) => s.files.sort());
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [index, count] = process.argv.slice(2).map(Number);
  if (!Number.isInteger(index) || !Number.isInteger(count) || count < 1 || index < 1 || index > count) {
    console.error('usage: shard.mjs INDEX COUNT (1 <= INDEX <= COUNT)');
    process.exit(2);
  }
  const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'tests');
  const files = readdirSync(dir).filter((f) => f.endsWith('.test.mjs'));
  for (const f of shards(files, count)[index - 1]) console.log(join('tests', f));
}
