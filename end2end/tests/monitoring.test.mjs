// The monitoring files in deploy/monitoring against the real server: the PrometheusRule holds the rules file's
// groups word for word, each rule has its runbook, and every metric the rules and the Grafana dashboard query is one
// a live /metrics exports. (promtool checks and tests the rules themselves: ./test-all's "alert rules" step.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { apply, kubectl, repoRoot, startDrainboard, waitFor } from './support.mjs';

const dir = join(repoRoot, 'deploy', 'monitoring');
const read = (file) => readFileSync(join(dir, file), 'utf8');
let server;
// A maintenance window that covers no node: the series by window exist only for the windows there are.
const window = `monitoring-${Math.random().toString(36).slice(2, 6)}`;
before(async () => {
  apply({ apiVersion: 'drainboard.dev/v1alpha1', kind: 'MaintenanceWindow', metadata: { name: window },
    spec: { nodeSelector: `drainboard.dev/pool=${window}` } });
  server = await startDrainboard();
});
after(async () => {
  await server?.stop();
  try { kubectl('delete', 'maintenancewindow', window, '--ignore-not-found'); } catch {}
});

const rules = () => parse(read('rules.yaml')).groups.flatMap((g) => g.rules);

test('the PrometheusRule holds the rules file\'s groups, and each rule says what, why and where its runbook is', () => {
  const plain = parse(read('rules.yaml'));
  const crd = parse(read('prometheusrule.yaml'));
  assert.equal(crd.apiVersion, 'monitoring.coreos.com/v1');
  assert.equal(crd.kind, 'PrometheusRule');
  assert.deepEqual(crd.spec.groups, plain.groups);
  const runbooks = read('RUNBOOKS.md');
  assert.ok(rules().length >= 3);
  for (const rule of rules()) {
    const { summary, description, runbook_url: runbook } = rule.annotations;
    assert.ok(summary && description && rule.labels.severity, rule.alert);
    assert.equal(runbook, `deploy/monitoring/RUNBOOKS.md#${rule.alert.toLowerCase()}`);
    assert.ok(runbooks.includes(`\n## ${rule.alert}\n`), `${rule.alert} has a section in RUNBOOKS.md`);
  }
});

test('every metric the rules and the dashboard query is one the server exports', async () => {
  const text = await waitFor('the maintenance gauges in a scrape', 30_000, async () => {
    const scraped = await (await fetch(`${server.url}/metrics`)).text();
    // The server's own requests are timed once answered: the scrape after the first has them.
    return scraped.includes('drainboard_nodes{') && scraped.includes('drainboard_http_request_duration_seconds_bucket')
      && scraped.includes(`drainboard_window_held_nodes{window="${window}"} 0`) ? scraped : null;
  });
  // OpenMetrics names a counter's family without `_total` and a histogram's without its series' suffixes.
  const exported = new Set();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const suffixes = { counter: ['_total'], histogram: ['_bucket', '_count', '_sum'] }[type] ?? [''];
    for (const suffix of suffixes) exported.add(name + suffix);
  }
  const dashboard = JSON.parse(read('dashboard.json'));
  const queries = [
    ...rules().flatMap((r) => [r.expr, r.annotations.description]),
    ...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)),
  ];
  const named = new Set(queries.flatMap((q) => q.match(/\bdrainboard_[a-z_]+/g) ?? []));
  assert.ok(named.size >= 10, [...named].join(' '));
  const missing = [...named].filter((n) => !exported.has(n));
  assert.deepEqual(missing, [], `queried but not exported; exported: ${[...exported].sort().join(' ')}`);
  // Every panel reads a Prometheus data source chosen at import.
  for (const panel of dashboard.panels) assert.equal(panel.datasource.uid, '${datasource}', panel.title);
});
