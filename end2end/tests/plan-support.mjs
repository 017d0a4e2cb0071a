// Helpers of the plan tests: pools of fresh kwok nodes with a pod each, budgets that hold a node's drain, and the
// plan, node records and Events as the cluster itself has them (never the server's report alone).
import { apply, kwokNodes, kubectl, waitFor } from './support.mjs';

/** The taint of the test pools' nodes, which only the tests' own pods tolerate. */
export const TAINT = 'drainboard.dev/test';

/** POST `path` of `server`'s API with `body`; the answer's status, headers and JSON body. */
export const call = (server, path, body) => fetch(`${server.url}/api/${path}`, {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}),
}).then(async (r) => ({ status: r.status, headers: r.headers, body: await r.json() }));

/** `count` fresh kwok nodes, each running one pod of its own Deployment (`app-<i>`); their removal goes to `cleanups`. */
export async function pool(cleanups, name, count) {
  const id = `${name}-${Math.random().toString(36).slice(2, 6)}`;
  const nodes = [...Array(count).keys()].map((i) => `${id}-${i}`);
  cleanups.push(kwokNodes(id, nodes));
  kubectl('wait', '--for=condition=Ready', ...nodes.map((n) => `node/${n}`), '--timeout=60s');
  kubectl('create', 'namespace', id);
  await waitFor(`the default service account of ${id}`, 30_000, () => {
    try { kubectl('get', 'serviceaccount', 'default', '-n', id); return true; } catch { return false; }
  });
  for (const [i, node] of nodes.entries()) {
    apply({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: `app-${i}` },
      spec: { replicas: 1, selector: { matchLabels: { app: `app-${i}` } },
        template: { metadata: { labels: { app: `app-${i}` } }, spec: {
          nodeSelector: { 'kubernetes.io/hostname': node },
          tolerations: [{ key: TAINT, operator: 'Exists', effect: 'NoSchedule' }],
          containers: [{ name: 'c', image: 'nginx:1.27' }],
        } } } }, id);
  }
  await waitFor('a running pod on every node', 60_000, () => {
    const out = kubectl('get', 'pods', '-n', id, '--field-selector', 'status.phase=Running', '-o', 'jsonpath={range .items[*]}{.spec.nodeName}{"\\n"}{end}');
    return nodes.every((n) => out.split('\n').includes(n));
  });
  return { id, nodes };
}

/** A budget that allows no disruption of node `i`'s pod: its drain holds until the budget goes. */
export function hold(p, i) {
  apply({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: `hold-${i}` },
    spec: { minAvailable: 1, selector: { matchLabels: { app: `app-${i}` } } } }, p.id);
  return () => kubectl('delete', 'pdb', `hold-${i}`, '-n', p.id);
}

export const plan = (name) => JSON.parse(kubectl('get', 'maintenanceplan', name, '-o', 'json'));
export const step = (name, i) => plan(name).status?.nodes?.[i] ?? {};

/** The drain recorded on the node by whoever drained it: its id and state, or null. */
export function record(node) {
  const text = kubectl('get', 'node', node, '-o', 'jsonpath={.metadata.annotations.drainboard\\.dev/drain}').trim();
  return text ? JSON.parse(text) : null;
}

/** The drain records of `nodes`, from one list of the nodes: one moment's view of them all, which reading them one
 * by one is not (a drain could end between two reads, and the next begin, and both would count as running). */
export function records(nodes) {
  const items = JSON.parse(kubectl('get', 'nodes', '-o', 'json')).items;
  return nodes.map((node) => {
    const text = items.find((n) => n.metadata.name === node)?.metadata?.annotations?.['drainboard.dev/drain'];
    return text ? JSON.parse(text) : null;
  });
}

/** The reasons of the Events on the plan `name`, oldest first. */
export const reasons = (name) => kubectl('get', 'events', '-n', 'default', '--field-selector', `involvedObject.name=${name}`,
  '-o', 'jsonpath={range .items[*]}{.reason}{"\\n"}{end}').split('\n').filter(Boolean);
