// A stand-in Kubernetes API server for the scale benchmarks: synthetic list and watch answers for N nodes and P pods
// (issue 13), served to the real Drainboard server, since etcd on a 2-core machine cannot hold 150,000 pods.
//   node end2end/bench/standin-api.mjs [--nodes 5000] [--pods 150000] [--zones 4] [--windows 0] [--port 0] [--kubeconfig FILE]
//                                      [--renew-every SECONDS] [--delete-after SECONDS]
// Prints `standin serving on http://127.0.0.1:PORT kubeconfig FILE` on stdout once it listens, and logs every request
// it has no answer for on stderr. Or import it: `const api = await startStandin({ nodes, pods })`.
//
// Plain HTTP on 127.0.0.1 (a random port by default), any bearer token. What it serves:
//   /version, /api, /apis, /api/v1, /apis/G/V   minimal discovery (legacy form; kubectl falls back to it)
//   nodes                                       N nodes `node-1` … `node-N`: zone labels, five conditions, node info
//                                               with a bootID, capacity and allocatable, a few images
//   pods                                        P pods: 3 DaemonSet pods a node (kube-proxy, node-exporter,
//                                               fluent-bit) when P ≥ 10 N, the rest owned by ReplicaSets of 27 pods
//                                               each in 50 namespaces, Running and Ready, about 3.4 KB of JSON each (no managedFields)
//   leases in kube-node-lease                   one per node; any other namespace's Leases: none
//   poddisruptionbudgets                        N, one per ReplicaSet (maxUnavailable 1 or minAvailable 50 %)
//   namespaces                                  those the pods use
//   maintenancewindows (drainboard.dev)         W windows (--windows, default none): zone, instance-type and hostname
//                                               selectors, calendars in four zones, freezes, budgets, pod and alert gates
//   configmaps, events, other Leases            empty lists; single GETs 404 as the API server does
//   selfsubjectaccessreviews                    allowed; selfsubjectreviews: user `bench-admin`, system:masters
// Lists page with `limit`/`continue` (a continue token holds the list's resourceVersion and the next index), and
// the objects are made per page from their index, so memory stays small at any size. `labelSelector` (=, ==, !=,
// exists, !exists, in, notin) and `fieldSelector` (metadata.name, metadata.namespace, spec.nodeName, each = or !=)
// filter. Lists larger than 128 KiB are gzipped (level 1) when the client accepts it, as the API server does.
// Tables (`Accept: …;as=Table`) for kubectl: nodes and pods with kubectl's columns, anything else NAME and AGE.
// Watches (`watch=1`) stream newline-delimited watch events from `resourceVersion` on (replayed from a log of each
// kind's recent changes, or ERROR 410 Expired when it is older than the log), every object as ADDED first when no
// resourceVersion (or "0") is given, BOOKMARKs every 20 s when `allowWatchBookmarks` asks, and end after
// `timeoutSeconds`.
//
// Control, on the same server under /__bench/ (or the returned object's methods when imported):
//   POST /__bench/flip?node=node-1&ready=False|True|Unknown[&seq=N]  sets node-1's Ready condition (its message
//     ending "(flip N)" when numbered), sends MODIFIED on the
//        nodes watches and answers {sentAt, rv}: sentAt is Date.now() right after the event was written to every
//        open nodes watch (this machine's clock).
//   POST /__bench/stream?rate=100&seconds=10&kind=lease|node&nodes=all|first:60|names:a,b  starts R updates a
//        second: Lease renewals (renewTime now; the card's "lease renewed") or node heartbeats (Ready's
//        lastHeartbeatTime), round robin over the chosen nodes (all, the first K by name, or those named).
//        GET /__bench/stream: {running, sent};
//        POST /__bench/stream/stop stops it.
// Drains: PATCH of a node (spec.unschedulable, annotations), pod evictions (`policy/v1` Eviction: the pod is
// marked deleting at once and goes a random 0 to `--delete-after` seconds later, 0 by default), GET of a pod or of
// the DaemonSets above, and ConfigMaps, Leases outside kube-node-lease and Events created, replaced, read and
// deleted in memory (not listed or watched).
//   GET /__bench/requests  every request seen, counted by method, path (names replaced by {name}) and query keys;
//        GET /__bench/stats  sizes, open watches, events sent.
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// ---------------------------------------------------------------------------------------------------------------
// Deterministic "random" strings: every object is a function of its index.

function mix(a, b) {
  let h = (Math.imul(a | 0, 0x9e3779b1) ^ Math.imul(b | 0, 0x85ebca77)) >>> 0;
  h ^= h >>> 16; h = Math.imul(h, 0x7feb352d) >>> 0;
  h ^= h >>> 15; h = Math.imul(h, 0x846ca68b) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}
function hex(seed, n) {
  let s = '';
  for (let k = 0; s.length < n; k++) s += mix(seed, k + 1).toString(16).padStart(8, '0');
  return s.slice(0, n);
}
const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789'; // k8s.io/apimachinery's rand.String
function suffix(seed, n) {
  let s = '';
  for (let k = 0; k < n; k++) s += ALPHABET[mix(seed, 1000 + k) % ALPHABET.length];
  return s;
}
function uid(kind, i) {
  const h = hex(mix(kind, i), 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
const KIND_NODE = 1, KIND_POD = 2, KIND_LEASE = 3, KIND_PDB = 4, KIND_RS = 5, KIND_DS = 6, KIND_NS = 7, KIND_WINDOW = 8;

const iso = (ms) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const micro = (ms) => new Date(ms).toISOString().replace(/Z$/, '000Z');
const LETTERS = 'abcdefgh';
const WORDS = ['checkout', 'cart', 'search', 'catalog', 'payments', 'auth', 'profile', 'orders', 'shipping', 'ledger',
  'notify', 'media', 'reports', 'billing', 'inventory', 'gateway', 'pricing', 'reviews', 'session', 'feed'];
const DAEMONSETS = [
  { name: 'kube-proxy', namespace: 'kube-system', image: 'registry.k8s.io/kube-proxy:v1.36.0', cpu: '100m', memory: '64Mi', priority: 2000001000, priorityClassName: 'system-node-critical' },
  { name: 'node-exporter', namespace: 'monitoring', image: 'quay.io/prometheus/node-exporter:v1.9.1', cpu: '50m', memory: '50Mi', priority: 0 },
  { name: 'fluent-bit', namespace: 'logging', image: 'cr.fluentbit.io/fluent/fluent-bit:4.0.3', cpu: '50m', memory: '100Mi', priority: 0 },
];
const TEAMS = 50;
const PER_REPLICASET = 27;

/** The synthetic cluster: sizes, generators by index, and what has changed since the start. */
function makeCluster({ nodes: N, pods: P, zones = 4, pdbs, windows: W = 0, start = Date.now() }) {
  const perNode = P >= N * 10 ? DAEMONSETS.length : P >= N ? 1 : 0;
  const dsPods = N * perNode;
  const rsPods = P - dsPods;
  const replicaSets = Math.max(1, Math.ceil(rsPods / PER_REPLICASET));
  const pdbCount = pdbs ?? N;
  const created = start - 30 * 86400_000;
  const baseRv = 1000;
  // Changes since the start, by node index: Ready status and heartbeat; Lease renewals.
  const nodeState = new Map(); // i → { ready, reason, message, transition, heartbeat, rv }
  const leaseState = new Map(); // i → { renew, rv }
  const team = (j) => `team-${String(j % TEAMS).padStart(2, '0')}`;
  const app = (j) => `${WORDS[j % WORDS.length]}-${j}`;
  const rsHash = (j) => suffix(mix(KIND_RS, j), 10);
  const nodeName = (i) => `node-${i + 1}`;
  const nodeIndex = (name) => {
    const m = /^node-(\d+)$/.exec(name);
    const i = m ? Number(m[1]) - 1 : -1;
    return i >= 0 && i < N ? i : -1;
  };
  const nodeIP = (i) => `10.${((i + 1) >> 16) & 255}.${((i + 1) >> 8) & 255}.${(i + 1) & 255}`;
  const podIP = (p) => `172.${16 + (((p + 1) >> 16) & 15)}.${((p + 1) >> 8) & 255}.${(p + 1) & 255}`;

  function baseNode(i) {
    const name = nodeName(i);
    const s = nodeState.get(i);
    const started = created + (i % 3600) * 1000;
    const heartbeat = iso(s?.heartbeat ?? start - (i % 10) * 1000);
    const ready = s?.ready ?? 'True';
    const conditions = [
      ['MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'],
      ['DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'],
      ['PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'],
      ['Ready', ready, s?.reason ?? 'KubeletReady', s?.message ?? 'kubelet is posting ready status'],
    ].map(([type, status, reason, message]) => ({
      type, status, lastHeartbeatTime: heartbeat,
      lastTransitionTime: iso(type === 'Ready' && s?.transition ? s.transition : started), reason, message,
    }));
    return {
      kind: 'Node', apiVersion: 'v1',
      metadata: {
        name, uid: uid(KIND_NODE, i), resourceVersion: String(s?.rv ?? baseRv), creationTimestamp: iso(started),
        labels: {
          'beta.kubernetes.io/arch': 'amd64', 'beta.kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64',
          'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'node-role.kubernetes.io/worker': '',
          'node.kubernetes.io/instance-type': 'm6i.2xlarge', 'topology.kubernetes.io/region': 'local-1',
          'topology.kubernetes.io/zone': `zone-${LETTERS[i % zones]}`,
        },
        annotations: {
          'node.alpha.kubernetes.io/ttl': '0',
          'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
        },
      },
      spec: { podCIDR: `172.${16 + ((i >> 8) & 15)}.${i & 255}.0/24`, podCIDRs: [`172.${16 + ((i >> 8) & 15)}.${i & 255}.0/24`], providerID: `standin://local-1/${name}` },
      status: {
        capacity: { cpu: '8', 'ephemeral-storage': '104845292Ki', 'hugepages-1Gi': '0', 'hugepages-2Mi': '0', memory: '32386544Ki', pods: '110' },
        allocatable: { cpu: '7910m', 'ephemeral-storage': '96625420108', 'hugepages-1Gi': '0', 'hugepages-2Mi': '0', memory: '31235568Ki', pods: '110' },
        conditions,
        addresses: [{ type: 'InternalIP', address: nodeIP(i) }, { type: 'Hostname', address: name }],
        daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
        nodeInfo: {
          machineID: hex(mix(KIND_NODE, i + 7), 32), systemUUID: uid(KIND_NODE + 100, i), bootID: uid(KIND_NODE + 200, i),
          kernelVersion: '6.1.0-37-cloud-amd64', osImage: 'Debian GNU/Linux 12 (bookworm)',
          containerRuntimeVersion: 'containerd://1.7.27', kubeletVersion: 'v1.36.0', kubeProxyVersion: 'v1.36.0',
          operatingSystem: 'linux', architecture: 'amd64',
        },
        images: DAEMONSETS.map((d, k) => ({
          names: [`${d.image.split(':')[0]}@sha256:${hex(mix(KIND_DS, k), 64)}`, d.image], sizeBytes: 30_000_000 + k * 7_000_000,
        })).concat([{ names: [`registry.k8s.io/pause@sha256:${hex(99, 64)}`, 'registry.k8s.io/pause:3.10'], sizeBytes: 320368 }]),
      },
    };
  }

  // Pod p: the first N × perNode are DaemonSet pods (node p / perNode), the rest ReplicaSet pods spread round robin.
  function podPlace(p) {
    if (p < dsPods) return { node: Math.floor(p / perNode), ds: p % perNode };
    const r = p - dsPods;
    return { node: r % N, rs: Math.floor(r / PER_REPLICASET), replica: r % PER_REPLICASET };
  }
  function podNamespace(p) {
    const at = podPlace(p);
    return at.ds !== undefined ? DAEMONSETS[at.ds].namespace : team(at.rs);
  }
  // A node as it is now: cordoned (spec.unschedulable) and annotated by PATCHes.
  function node(i) {
    const o = baseNode(i);
    const s = nodeState.get(i);
    if (s?.unschedulable) o.spec.unschedulable = true;
    if (s?.annotations) Object.assign(o.metadata.annotations, s.annotations);
    return o;
  }
  // A pod as it is now: null once deleted; with a deletionTimestamp while it is going.
  const podState = new Map(); // p → { deleting, gone, rv }
  function pod(p) {
    const s = podState.get(p);
    if (s?.gone) return null;
    const o = basePod(p);
    if (s) {
      o.metadata.resourceVersion = String(s.rv);
      o.metadata.deletionTimestamp = iso(s.deleting);
      o.metadata.deletionGracePeriodSeconds = 30;
    }
    return o;
  }
  function basePod(p) {
    const at = podPlace(p);
    const nodeI = at.node;
    const isDs = at.ds !== undefined;
    const d = isDs ? DAEMONSETS[at.ds] : null;
    const j = at.rs;
    const namespace = isDs ? d.namespace : team(j);
    const appName = isDs ? d.name : app(j);
    const hash = isDs ? null : rsHash(j);
    const name = isDs ? `${d.name}-${suffix(mix(KIND_POD, p), 5)}` : `${appName}-${hash}-${suffix(mix(KIND_POD, p), 5)}`;
    const startedAt = created + 3600_000 + (p % 86400) * 1000;
    const t = iso(startedAt);
    const image = isDs ? d.image : `registry.example.com/${namespace}/${appName}:1.${j % 20}.${j % 7}`;
    const volume = `kube-api-access-${suffix(mix(KIND_POD + 50, p), 5)}`;
    const tolerations = isDs
      ? [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
        { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
        { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
        { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
        { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
      ]
      : [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ];
    const labels = isDs
      ? { 'app.kubernetes.io/name': d.name, 'controller-revision-hash': suffix(mix(KIND_DS, at.ds), 10), 'pod-template-generation': '1' }
      : { 'app.kubernetes.io/name': appName, 'app.kubernetes.io/part-of': namespace, 'pod-template-hash': hash, tier: j % 3 ? 'backend' : 'frontend' };
    return {
      kind: 'Pod', apiVersion: 'v1',
      metadata: {
        name, generateName: name.slice(0, -5), namespace, uid: uid(KIND_POD, p), resourceVersion: String(baseRv),
        creationTimestamp: t, labels,
        annotations: isDs ? undefined : { 'prometheus.io/scrape': 'true' },
        ownerReferences: [{
          apiVersion: 'apps/v1', kind: isDs ? 'DaemonSet' : 'ReplicaSet', name: isDs ? d.name : `${appName}-${hash}`,
          uid: isDs ? uid(KIND_DS, at.ds) : uid(KIND_RS, j), controller: true, blockOwnerDeletion: true,
        }],
      },
      spec: {
        volumes: [{ name: volume, projected: { sources: [
          { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
          { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
          { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
        ], defaultMode: 420 } }],
        containers: [{
          name: isDs ? d.name : 'app', image,
          ports: [{ name: 'http', containerPort: isDs ? 9100 : 8080, protocol: 'TCP' }],
          env: [{ name: 'LOG_LEVEL', value: 'info' }],
          resources: isDs
            ? { limits: { memory: d.memory }, requests: { cpu: d.cpu, memory: d.memory } }
            : { limits: { memory: '256Mi' }, requests: { cpu: `${50 * (1 + (j % 4))}m`, memory: '128Mi' } },
          volumeMounts: [{ name: volume, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }],
          readinessProbe: { httpGet: { path: '/healthz', port: isDs ? 9100 : 8080, scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
          terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent',
        }],
        restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst',
        serviceAccountName: 'default', serviceAccount: 'default', nodeName: nodeName(nodeI),
        securityContext: {},
        affinity: isDs ? { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [
          { matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName(nodeI)] }] }] } } } : undefined,
        schedulerName: 'default-scheduler', tolerations,
        priorityClassName: d?.priorityClassName, priority: isDs ? d.priority : 0,
        enableServiceLinks: true, preemptionPolicy: 'PreemptLowerPriority',
      },
      status: {
        phase: 'Running',
        conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled']
          .map((type) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: t })),
        hostIP: nodeIP(nodeI), hostIPs: [{ ip: nodeIP(nodeI) }], podIP: podIP(p), podIPs: [{ ip: podIP(p) }],
        startTime: t,
        containerStatuses: [{
          name: isDs ? d.name : 'app', state: { running: { startedAt: t } }, lastState: {}, ready: true,
          restartCount: 0, image, imageID: `${image.split(':')[0]}@sha256:${hex(mix(KIND_RS, j ?? 1000 + at.ds), 64)}`,
          containerID: `containerd://${hex(mix(KIND_POD + 70, p), 64)}`, started: true,
        }],
        qosClass: 'Burstable',
      },
    };
  }

  function lease(i) {
    const name = nodeName(i);
    const s = leaseState.get(i);
    return {
      kind: 'Lease', apiVersion: 'coordination.k8s.io/v1',
      metadata: {
        name, namespace: 'kube-node-lease', uid: uid(KIND_LEASE, i), resourceVersion: String(s?.rv ?? baseRv),
        creationTimestamp: iso(created + (i % 3600) * 1000),
        ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name, uid: uid(KIND_NODE, i) }],
      },
      spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: micro(s?.renew ?? start - (i % 10) * 1000) },
    };
  }

  function pdb(k) {
    const j = k % replicaSets;
    const name = k < replicaSets ? `${app(j)}-pdb` : `${app(j)}-pdb-${k}`;
    const replicas = Math.min(PER_REPLICASET, rsPods - j * PER_REPLICASET);
    const byCount = k % 2 === 0;
    return {
      kind: 'PodDisruptionBudget', apiVersion: 'policy/v1',
      metadata: { name, namespace: team(j), uid: uid(KIND_PDB, k), resourceVersion: String(baseRv), generation: 1, creationTimestamp: iso(created) },
      spec: { ...(byCount ? { maxUnavailable: 1 } : { minAvailable: '50%' }), selector: { matchLabels: { 'app.kubernetes.io/name': app(j) } } },
      status: {
        observedGeneration: 1, disruptionsAllowed: byCount ? 1 : replicas - Math.ceil(replicas / 2),
        currentHealthy: replicas, desiredHealthy: byCount ? replicas - 1 : Math.ceil(replicas / 2), expectedPods: replicas,
        conditions: [{ type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '', observedGeneration: 1, lastTransitionTime: iso(created) }],
      },
    };
  }

  const namespaceNames = [...new Set([
    'default', 'kube-system', 'kube-public', 'kube-node-lease',
    ...DAEMONSETS.slice(0, perNode).map((d) => d.namespace),
    ...Array.from({ length: Math.min(TEAMS, replicaSets) }, (_, j) => team(j)),
  ])];
  function namespace(k) {
    const name = namespaceNames[k];
    return {
      kind: 'Namespace', apiVersion: 'v1',
      metadata: { name, uid: uid(KIND_NS, k), resourceVersion: String(baseRv), creationTimestamp: iso(created), labels: { 'kubernetes.io/metadata.name': name } },
      spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' },
    };
  }

  // Maintenance windows (drainboard.dev), a mix of what operators write: selectors by zone, instance type and
  // hostname sets; calendars in four time zones; freezes; budgets as counts and shares; pod and alert gates.
  function window(k) {
    const zone = `zone-${LETTERS[k % zones]}`;
    const some = [0, 1, 2].map((d) => nodeName((k * 37 + d * 101) % N)).join(',');
    const selector = [`topology.kubernetes.io/zone=${zone}`, 'node.kubernetes.io/instance-type=m6i.2xlarge',
      `kubernetes.io/hostname in (${some})`, `topology.kubernetes.io/zone!=${zone},node-role.kubernetes.io/worker`][k % 4];
    const tz = ['UTC', 'Asia/Tokyo', 'Europe/Berlin', 'America/New_York'][k % 4];
    const spec = {
      nodeSelector: selector, timeZone: tz,
      schedules: [{ start: ['22:00', '01:00', '09:00', '13:30'][k % 4], end: ['04:00', '05:00', '17:00', '13:00'][k % 4] }],
      maxInMaintenance: k % 2 === 0 ? '10%' : String(3 + (k % 5)),
      gates: {
        pods: k % 3 === 0 ? [{ selector: 'app=backup', namespace: 'ops' }] : k % 3 === 1 ? [{ selector: 'app=migrate', anywhere: true }] : [],
        alerts: k % 4 === 1 ? [{ matchers: ['severity="critical"'] }] : [],
        ...(k % 6 === 0 ? { maxNotReady: 50 } : {}),
      },
      ...(k % 5 === 0 ? { freezes: [{ start: '2026-12-24', end: '2026-12-26', reason: 'holidays' }] } : {}),
    };
    const name = `window-${String(k).padStart(2, '0')}`;
    return {
      kind: 'MaintenanceWindow', apiVersion: 'drainboard.dev/v1alpha1',
      metadata: { name, uid: uid(KIND_WINDOW, k), resourceVersion: String(baseRv), generation: 1, creationTimestamp: iso(created) },
      spec,
    };
  }

  return {
    N, P, W, zones, perNode, replicaSets, pdbCount, start, baseRv, nodeState, leaseState, podState, nodeName, nodeIndex,
    node, pod, basePod, podNamespace, lease, pdb, namespace, namespaceNames, window,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Resources: what each path lists, and the kind's change log for watches.

function resources(c) {
  const r = (o) => ({ log: [], floor: c.baseRv, ...o });
  return {
    nodes: r({ group: '', version: 'v1', kind: 'Node', namespaced: false, count: () => c.N, make: c.node }),
    pods: r({ group: '', version: 'v1', kind: 'Pod', namespaced: true, count: () => c.P, make: c.pod, namespaceOf: c.podNamespace }),
    leases: r({ group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', namespaced: true, count: () => c.N, make: c.lease, namespaceOf: () => 'kube-node-lease' }),
    poddisruptionbudgets: r({ group: 'policy', version: 'v1', kind: 'PodDisruptionBudget', namespaced: true, count: () => c.pdbCount, make: c.pdb }),
    namespaces: r({ group: '', version: 'v1', kind: 'Namespace', namespaced: false, count: () => c.namespaceNames.length, make: c.namespace }),
    configmaps: r({ group: '', version: 'v1', kind: 'ConfigMap', namespaced: true, count: () => 0 }),
    events: r({ group: '', version: 'v1', kind: 'Event', namespaced: true, count: () => 0 }),
    secrets: r({ group: '', version: 'v1', kind: 'Secret', namespaced: true, count: () => 0 }),
    services: r({ group: '', version: 'v1', kind: 'Service', namespaced: true, count: () => 0 }),
    daemonsets: r({ group: 'apps', version: 'v1', kind: 'DaemonSet', namespaced: true, count: () => 0 }),
    replicasets: r({ group: 'apps', version: 'v1', kind: 'ReplicaSet', namespaced: true, count: () => 0 }),
    deployments: r({ group: 'apps', version: 'v1', kind: 'Deployment', namespaced: true, count: () => 0 }),
    statefulsets: r({ group: 'apps', version: 'v1', kind: 'StatefulSet', namespaced: true, count: () => 0 }),
    maintenancewindows: r({ group: 'drainboard.dev', version: 'v1alpha1', kind: 'MaintenanceWindow', namespaced: false, count: () => c.W, make: c.window }),
  };
}

// Label and field selectors, as far as kubectl and kube-rs write them.
function parseLabelSelector(text) {
  if (!text) return null;
  const reqs = [];
  for (const part of text.match(/([^,(]+(\([^)]*\))?)/g) ?? []) {
    const s = part.trim();
    let m;
    if ((m = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(s))) reqs.push({ key: m[1], op: m[2], values: m[3].split(',').map((v) => v.trim()) });
    else if ((m = /^(\S+?)\s*(==|!=|=)\s*(\S*)$/.exec(s))) reqs.push({ key: m[1], op: m[2] === '!=' ? '!=' : '=', values: [m[3]] });
    else if ((m = /^!(\S+)$/.exec(s))) reqs.push({ key: m[1], op: '!exists' });
    else if (s) reqs.push({ key: s, op: 'exists' });
  }
  return (labels = {}) => reqs.every(({ key, op, values }) => {
    const has = Object.hasOwn(labels, key);
    switch (op) {
      case '=': return has && labels[key] === values[0];
      case '!=': return !has || labels[key] !== values[0];
      case 'in': return has && values.includes(labels[key]);
      case 'notin': return !has || !values.includes(labels[key]);
      case 'exists': return has;
      default: return !has;
    }
  });
}
const FIELDS = {
  'metadata.name': (o) => o.metadata.name,
  'metadata.namespace': (o) => o.metadata.namespace ?? '',
  'spec.nodeName': (o) => o.spec?.nodeName ?? '',
  'status.phase': (o) => o.status?.phase ?? '',
};
function parseFieldSelector(text) {
  if (!text) return null;
  const reqs = text.split(',').filter(Boolean).map((s) => {
    const m = /^([^=!]+?)\s*(==|!=|=)\s*(.*)$/.exec(s.trim());
    if (!m || !FIELDS[m[1]]) throw Object.assign(new Error(`field label not supported: ${s}`), { code: 400 });
    return { get: FIELDS[m[1]], neg: m[2] === '!=', value: m[3] };
  });
  return (o) => reqs.every(({ get, neg, value }) => (get(o) === value) !== neg);
}

// ---------------------------------------------------------------------------------------------------------------

function status(code, reason, message, details) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, details, code };
}

const SHORT_NAMES = { nodes: ['no'], pods: ['po'], poddisruptionbudgets: ['pdb'], namespaces: ['ns'], configmaps: ['cm'],
  events: ['ev'], services: ['svc'], daemonsets: ['ds'], replicasets: ['rs'], deployments: ['deploy'], statefulsets: ['sts'] };
function discovery(res) {
  const byGV = new Map();
  for (const [plural, r] of Object.entries(res)) {
    const gv = r.group ? `${r.group}/${r.version}` : r.version;
    if (!byGV.has(gv)) byGV.set(gv, []);
    byGV.get(gv).push({
      name: plural, singularName: r.kind.toLowerCase(), namespaced: r.namespaced, kind: r.kind,
      verbs: ['get', 'list', 'watch'], shortNames: SHORT_NAMES[plural],
    });
  }
  byGV.get('v1').push({ name: 'pods/eviction', singularName: '', namespaced: true, group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] });
  byGV.set('authorization.k8s.io/v1', [{ name: 'selfsubjectaccessreviews', singularName: 'selfsubjectaccessreview', namespaced: false, kind: 'SelfSubjectAccessReview', verbs: ['create'] }]);
  byGV.set('authentication.k8s.io/v1', [{ name: 'selfsubjectreviews', singularName: 'selfsubjectreview', namespaced: false, kind: 'SelfSubjectReview', verbs: ['create'] }]);
  const groups = [...byGV.keys()].filter((gv) => gv.includes('/')).map((gv) => {
    const [name, version] = gv.split('/');
    return { name, versions: [{ groupVersion: gv, version }], preferredVersion: { groupVersion: gv, version } };
  });
  return {
    api: { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }] },
    apis: { kind: 'APIGroupList', apiVersion: 'v1', groups },
    resources: (gv) => byGV.has(gv) ? { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gv, resources: byGV.get(gv) } : null,
  };
}

function age(ms, now) {
  const s = Math.max(0, Math.floor((now - ms) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}
function tableOf(kind, objs, meta, now) {
  const col = (name, type = 'string', priority = 0, format = '') => ({ name, type, format, description: name, priority });
  let columns, cells;
  if (kind === 'Node') {
    columns = [col('Name', 'string', 0, 'name'), col('Status'), col('Roles'), col('Age'), col('Version'), col('Internal-IP', 'string', 1), col('External-IP', 'string', 1), col('OS-Image', 'string', 1), col('Kernel-Version', 'string', 1), col('Container-Runtime', 'string', 1)];
    cells = (o) => {
      const ready = o.status.conditions.find((c) => c.type === 'Ready')?.status;
      const roles = Object.keys(o.metadata.labels).filter((k) => k.startsWith('node-role.kubernetes.io/')).map((k) => k.split('/')[1]).join(',') || '<none>';
      const i = o.status.nodeInfo;
      return [o.metadata.name, ready === 'True' ? 'Ready' : ready === 'False' ? 'NotReady' : 'Unknown', roles,
        age(Date.parse(o.metadata.creationTimestamp), now), i.kubeletVersion, o.status.addresses[0].address, '<none>', i.osImage, i.kernelVersion, i.containerRuntimeVersion];
    };
  } else if (kind === 'Pod') {
    columns = [col('Name', 'string', 0, 'name'), col('Ready'), col('Status'), col('Restarts', 'string'), col('Age'), col('IP', 'string', 1), col('Node', 'string', 1), col('Nominated Node', 'string', 1), col('Readiness Gates', 'string', 1)];
    cells = (o) => {
      const cs = o.status.containerStatuses ?? [];
      return [o.metadata.name, `${cs.filter((s) => s.ready).length}/${o.spec.containers.length}`, o.status.phase,
        String(cs.reduce((a, s) => a + s.restartCount, 0)), age(Date.parse(o.metadata.creationTimestamp), now), o.status.podIP, o.spec.nodeName, '<none>', '<none>'];
    };
  } else {
    columns = [col('Name', 'string', 0, 'name'), col('Age')];
    cells = (o) => [o.metadata.name, age(Date.parse(o.metadata.creationTimestamp), now)];
  }
  return {
    kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: meta, columnDefinitions: columns,
    rows: objs.map((o) => ({ cells: cells(o), object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata } })),
  };
}

/**
 * Starts the stand-in. Options: nodes, pods, zones (4), pdbs (= nodes), port (0), host (127.0.0.1), kubeconfig (a
 * path to write; default a new temp file), renewEvery (seconds between one node Lease's renewals, all nodes
 * spread evenly; 0 = none), deleteAfter (an evicted pod goes a random 0 to this many seconds later; 0), quiet.
 */
export async function startStandin(opts = {}) {
  const c = makeCluster({ nodes: opts.nodes ?? 5000, pods: opts.pods ?? 150000, zones: opts.zones ?? 4, pdbs: opts.pdbs, windows: opts.windows ?? 0 });
  const res = resources(c);
  const disc = discovery(res);
  const log = opts.quiet ? () => {} : (...a) => console.error('standin:', ...a);
  let rv = c.baseRv + 1;
  const watchers = new Set();
  const counts = new Map();
  const stats = { eventsSent: 0, listBytes: 0, watchBytes: 0, unknown: 0, evictions: 0 };
  const LOG_MAX = 20000;
  const BOOKMARK_EVERY = 20_000;

  function emit(plural, type, obj) {
    const r = res[plural];
    rv += 1;
    obj.metadata.resourceVersion = String(rv);
    const line = JSON.stringify({ type, object: obj }) + '\n';
    r.log.push({ rv, obj, line });
    if (r.log.length > LOG_MAX) r.floor = r.log.splice(0, r.log.length - LOG_MAX).at(-1).rv;
    for (const w of watchers) {
      if (w.plural === plural && w.live && w.match(obj)) {
        w.res.write(line); stats.watchBytes += line.length; stats.eventsSent++;
      }
    }
    return { rv, sentAt: Date.now() };
  }

  function flip(name, ready = 'False', seq = null) {
    const i = c.nodeIndex(name);
    if (i < 0) throw Object.assign(new Error(`no node ${name}`), { code: 404 });
    const now = Date.now();
    const was = c.nodeState.get(i) ?? {};
    const reasons = { True: ['KubeletReady', 'kubelet is posting ready status'], False: ['KubeletNotReady', 'container runtime network not ready: NetworkReady=false'], Unknown: ['NodeStatusUnknown', 'Kubelet stopped posting node status.'] };
    // A flip numbered by the caller says so in its message, which the card carries: a reader can then tell each
    // flip's arrival apart from a later one's.
    const message = seq === null ? reasons[ready][1] : `${reasons[ready][1]} (flip ${seq})`;
    const s = { ...was, ready, reason: reasons[ready][0], message, transition: now, heartbeat: now };
    c.nodeState.set(i, s);
    const obj = c.node(i);
    const sent = emit('nodes', 'MODIFIED', obj);
    s.rv = sent.rv;
    return sent;
  }
  function renewLease(i, now = Date.now()) {
    const s = { renew: now };
    c.leaseState.set(i, s);
    s.rv = emit('leases', 'MODIFIED', c.lease(i)).rv;
  }
  function heartbeat(i, now = Date.now()) {
    const s = { ...(c.nodeState.get(i) ?? {}), heartbeat: now };
    c.nodeState.set(i, s);
    s.rv = emit('nodes', 'MODIFIED', c.node(i)).rv;
  }

  // Drains: a cordon (a PATCH of the node), evictions (each pod goes a random 0 to `deleteAfter` seconds later, as
  // pods that take their time to stop), and what a drain writes besides (its Lease, the node's history ConfigMap,
  // Events), kept in memory as written.
  const deleteAfter = opts.deleteAfter ?? 0;
  let podByName = null;
  const podIndex = (namespace, name) => {
    podByName ??= new Map(Array.from({ length: c.P }, (_, p) => {
      const o = c.basePod(p);
      return [`${o.metadata.namespace}/${o.metadata.name}`, p];
    }));
    return podByName.get(`${namespace}/${name}`) ?? -1;
  };
  function patchNode(name, patch) {
    const i = c.nodeIndex(name);
    if (i < 0) throw Object.assign(new Error(`nodes "${name}" not found`), { code: 404 });
    const s = { ...(c.nodeState.get(i) ?? {}) };
    if (patch.spec && 'unschedulable' in patch.spec) s.unschedulable = !!patch.spec.unschedulable;
    for (const [k, v] of Object.entries(patch.metadata?.annotations ?? {})) {
      s.annotations = { ...s.annotations };
      if (v === null) delete s.annotations[k]; else s.annotations[k] = v;
    }
    c.nodeState.set(i, s);
    const obj = c.node(i);
    s.rv = emit('nodes', 'MODIFIED', obj).rv;
    return obj;
  }
  function evict(namespace, name, dryRun) {
    const p = podIndex(namespace, name);
    const was = c.podState.get(p);
    if (p < 0 || was?.gone) throw Object.assign(new Error(`pods "${name}" not found`), { code: 404 });
    if (dryRun || was) return;
    const state = { deleting: Date.now() };
    c.podState.set(p, state);
    state.rv = emit('pods', 'MODIFIED', c.pod(p)).rv;
    stats.evictions++;
    setTimeout(() => {
      const obj = c.pod(p);
      state.gone = true;
      emit('pods', 'DELETED', obj);
    }, Math.random() * deleteAfter * 1000).unref();
  }
  const stored = new Map(); // `plural/namespace/name` → the object as last written

  let sortedByName = null;
  const byName = () => (sortedByName ??= Array.from({ length: c.N }, (_, i) => i)
    .sort((a, b) => (c.nodeName(a) < c.nodeName(b) ? -1 : 1)));

  // A stream of updates: `rate` a second, round robin over the chosen nodes.
  let stream = null;
  function startStream({ rate = 100, seconds = 10, kind = 'lease', nodes = 'all' } = {}) {
    stopStream();
    // all: every node; first:K: the first K by name (the board's first page when every node is alike);
    // names:a,b,…: these.
    let targets;
    const first = /^first:(\d+)$/.exec(nodes);
    if (first) targets = byName().slice(0, Number(first[1]));
    else if (nodes.startsWith('names:')) targets = nodes.slice(6).split(',').map(c.nodeIndex).filter((i) => i >= 0);
    else targets = null;
    const count = targets ? targets.length : c.N;
    if (!count) throw Object.assign(new Error(`no nodes in ${nodes}`), { code: 400 });
    const t0 = performance.now();
    const s = { rate, seconds, kind, nodes, sent: 0, next: 0, running: true, startedAt: Date.now() };
    s.timer = setInterval(() => {
      const elapsed = (performance.now() - t0) / 1000;
      const due = Math.floor(Math.min(elapsed, seconds) * rate);
      const now = Date.now();
      while (s.sent < due) {
        const i = targets ? targets[s.next] : s.next; s.next = (s.next + 1) % count;
        if (kind === 'node') heartbeat(i, now); else renewLease(i, now);
        s.sent++;
      }
      if (elapsed >= seconds) stopStream();
    }, 5);
    stream = s;
    return { started: true };
  }
  function stopStream() {
    if (stream?.running) { clearInterval(stream.timer); stream.running = false; stream.endedAt = Date.now(); }
  }
  const streamState = () => stream ? { running: stream.running, sent: stream.sent, rate: stream.rate, kind: stream.kind, nodes: stream.nodes } : { running: false, sent: 0 };

  // Background renewals: every node's Lease once per `renewEvery` seconds, as kubelets do (10 s in a real cluster).
  let background = null;
  if (opts.renewEvery > 0) {
    const perTick = c.N / (opts.renewEvery * 20);
    let owed = 0, next = 0;
    background = setInterval(() => {
      owed += perTick;
      const now = Date.now();
      for (; owed >= 1; owed--) { renewLease(next, now); next = (next + 1) % c.N; }
    }, 50);
  }

  // ------------------------------------------------------------------------------------------------------------

  function count(req, url, pattern) {
    const keys = [...url.searchParams.keys()].sort().join(',');
    const key = `${req.method} ${pattern}${keys ? '?' + keys : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  function send(req, response, code, body, { gzip = false } = {}) {
    let data = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
    const headers = { 'Content-Type': 'application/json', 'Audit-Id': uid(9, rv) };
    if (gzip && data.length > 128 * 1024 && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
      data = gzipSync(data, { level: 1 });
      headers['Content-Encoding'] = 'gzip';
    }
    headers['Content-Length'] = Buffer.byteLength(data);
    response.writeHead(code, headers);
    response.end(data);
    return headers['Content-Length'];
  }
  const write = (response, chunk) => new Promise((resolve) => (response.write(chunk) ? resolve() : response.once('drain', resolve)));

  function selectors(url, namespace, r) {
    const labels = parseLabelSelector(url.searchParams.get('labelSelector'));
    const fields = parseFieldSelector(url.searchParams.get('fieldSelector'));
    return (o) => !!o && (!namespace || o.metadata.namespace === namespace) && (!labels || labels(o.metadata.labels)) && (!fields || fields(o));
  }

  // The indices of a resource that may match a namespace, cheaply, before making the objects.
  function candidates(r, namespace) {
    const n = r.count();
    if (!namespace || !r.namespaceOf) return { n, maybe: () => true };
    return { n, maybe: (i) => r.namespaceOf(i) === namespace };
  }

  async function list(req, response, url, plural, namespace) {
    const r = res[plural];
    const match = selectors(url, namespace, r);
    const limit = Number(url.searchParams.get('limit') ?? 0);
    const cont = url.searchParams.get('continue');
    let from = 0, listRv = rv;
    if (cont) {
      try { ({ rv: listRv, i: from } = JSON.parse(Buffer.from(cont, 'base64url').toString())); } catch {
        return send(req, response, 400, status(400, 'BadRequest', `invalid continue token: ${cont}`));
      }
    }
    const { n, maybe } = candidates(r, namespace);
    const asTable = /as=Table/.test(req.headers.accept ?? '');
    const filtered = !!(namespace || url.searchParams.get('labelSelector') || url.searchParams.get('fieldSelector'));
    const now = Date.now();
    if (limit > 0 || asTable) {
      const items = [];
      let i = from;
      const max = limit > 0 ? limit : Infinity;
      for (; i < n && items.length < max; i++) {
        if (!maybe(i)) continue;
        const o = r.make(i);
        if (match(o)) items.push(o);
      }
      // As the API server: a continue token only while more may follow.
      let more = false;
      for (let k = i; k < n; k++) if (maybe(k)) { more = true; break; }
      const meta = { resourceVersion: String(listRv) };
      if (more) {
        meta.continue = Buffer.from(JSON.stringify({ rv: listRv, i })).toString('base64url');
        if (!filtered) meta.remainingItemCount = n - i;
      }
      const body = asTable ? tableOf(r.kind, items, meta, now)
        : { kind: `${r.kind}List`, apiVersion: r.group ? `${r.group}/${r.version}` : r.version, metadata: meta, items };
      stats.listBytes += send(req, response, 200, body, { gzip: true });
      return;
    }
    // No limit: the whole list, written as it is made.
    response.writeHead(200, { 'Content-Type': 'application/json' });
    await write(response, `{"kind":"${r.kind}List","apiVersion":"${r.group ? `${r.group}/${r.version}` : r.version}","metadata":{"resourceVersion":"${listRv}"},"items":[`);
    let first = true, chunk = '';
    for (let i = 0; i < n; i++) {
      if (!maybe(i)) continue;
      const o = r.make(i);
      if (!match(o)) continue;
      chunk += (first ? '' : ',') + JSON.stringify(o);
      first = false;
      if (chunk.length > 256 * 1024) { stats.listBytes += chunk.length; await write(response, chunk); chunk = ''; }
    }
    stats.listBytes += chunk.length;
    response.end(chunk + ']}');
  }

  async function watch(req, response, url, plural, namespace) {
    const r = res[plural];
    const match = selectors(url, namespace, r);
    const from = url.searchParams.get('resourceVersion');
    const bookmarks = /^(true|1)$/.test(url.searchParams.get('allowWatchBookmarks') ?? '');
    const timeout = Number(url.searchParams.get('timeoutSeconds') ?? 1800);
    response.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    response.flushHeaders();
    const w = { plural, match, res: response, live: false };
    watchers.add(w);
    const timers = [];
    const end = () => {
      if (!watchers.delete(w)) return;
      for (const t of timers) clearInterval(t);
      response.end();
    };
    w.end = end;
    response.on('close', end);
    const gvk = { kind: r.kind, apiVersion: r.group ? `${r.group}/${r.version}` : r.version };
    const bookmark = () => {
      const line = JSON.stringify({ type: 'BOOKMARK', object: { ...gvk, metadata: { resourceVersion: String(rv) } } }) + '\n';
      response.write(line);
    };
    if (!from || from === '0') {
      // Every object as ADDED, then the changes.
      const { n, maybe } = candidates(r, namespace);
      let chunk = '';
      for (let i = 0; i < n && watchers.has(w); i++) {
        if (!maybe(i)) continue;
        const o = r.make(i);
        if (!match(o)) continue;
        chunk += JSON.stringify({ type: 'ADDED', object: o }) + '\n';
        if (chunk.length > 256 * 1024) { await write(response, chunk); chunk = ''; }
      }
      response.write(chunk);
    } else {
      const since = Number(from);
      if (!Number.isFinite(since) || since < r.floor) {
        response.write(JSON.stringify({ type: 'ERROR', object: status(410, 'Expired', `too old resource version: ${from} (${r.floor})`) }) + '\n');
        return end();
      }
      for (const e of r.log) if (e.rv > since && match(e.obj)) response.write(e.line);
    }
    w.live = true;
    if (bookmarks) timers.push(setInterval(bookmark, BOOKMARK_EVERY));
    timers.push(setTimeout(() => { if (bookmarks) bookmark(); end(); }, timeout * 1000));
  }

  // ------------------------------------------------------------------------------------------------------------

  async function handle(req, response) {
    const url = new URL(req.url, 'http://standin');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const parts = path.split('/').filter(Boolean);
    let body = '';
    for await (const d of req) body += d;

    // Control.
    if (parts[0] === '__bench') {
      const q = Object.fromEntries(url.searchParams);
      const sub = parts.slice(1).join('/');
      try {
        if (sub === 'flip' && req.method === 'POST') return send(req, response, 200, flip(q.node, q.ready ?? 'False', q.seq ?? null));
        if (sub === 'stream' && req.method === 'POST') {
          return send(req, response, 200, startStream({ rate: Number(q.rate ?? 100), seconds: Number(q.seconds ?? 10), kind: q.kind ?? 'lease', nodes: q.nodes ?? 'all' }));
        }
        if (sub === 'stream/stop') { stopStream(); return send(req, response, 200, streamState()); }
        if (sub === 'stream') return send(req, response, 200, streamState());
        if (sub === 'requests') return send(req, response, 200, Object.fromEntries([...counts].sort()));
        if (sub === 'stats') {
          return send(req, response, 200, { nodes: c.N, pods: c.P, pdbs: c.pdbCount, replicaSets: c.replicaSets, rv, watches: [...watchers].map((w) => w.plural), ...stats, rss: process.memoryUsage().rss });
        }
      } catch (e) {
        return send(req, response, e.code ?? 500, status(e.code ?? 500, 'BadRequest', e.message));
      }
      return send(req, response, 404, status(404, 'NotFound', `no control ${sub}`));
    }

    // Discovery.
    if (req.method === 'GET') {
      if (path === '/version') {
        count(req, url, path);
        return send(req, response, 200, { major: '1', minor: '36', emulationMajor: '1', emulationMinor: '36', minCompatibilityMajor: '1', minCompatibilityMinor: '35', gitVersion: 'v1.36.0-standin', gitCommit: '0000000000000000000000000000000000000000', gitTreeState: 'clean', buildDate: '2026-11-01T00:00:00Z', goVersion: 'go1.25.0', compiler: 'gc', platform: 'linux/amd64' });
      }
      if (path === '/api') { count(req, url, path); return send(req, response, 200, disc.api); }
      if (path === '/apis') { count(req, url, path); return send(req, response, 200, disc.apis); }
      if (path === '/api/v1' || (parts[0] === 'apis' && parts.length === 3)) {
        count(req, url, path);
        const found = disc.resources(parts[0] === 'api' ? 'v1' : `${parts[1]}/${parts[2]}`);
        if (found) return send(req, response, 200, found);
      }
      if (path === '/healthz' || path === '/readyz' || path === '/livez') { count(req, url, path); response.writeHead(200); return response.end('ok'); }
    }

    // Reviews.
    if (req.method === 'POST' && path === '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews') {
      count(req, url, path);
      const review = JSON.parse(body || '{}');
      return send(req, response, 201, { ...review, kind: 'SelfSubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', metadata: { creationTimestamp: null }, status: { allowed: true, reason: 'stand-in: everything is allowed' } });
    }
    if (req.method === 'POST' && path === '/apis/authentication.k8s.io/v1/selfsubjectreviews') {
      count(req, url, path);
      return send(req, response, 201, { kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1', metadata: { creationTimestamp: iso(Date.now()) }, status: { userInfo: { username: 'bench-admin', groups: ['system:masters', 'system:authenticated'] } } });
    }

    // Resources: /api/v1/[namespaces/NS/]PLURAL[/NAME], /apis/G/V/[namespaces/NS/]PLURAL[/NAME].
    const rest = parts[0] === 'api' ? parts.slice(2) : parts[0] === 'apis' ? parts.slice(3) : null;
    // The audit's Events (events.k8s.io): accepted and dropped.
    if (req.method === 'POST' && parts[1] === 'events.k8s.io' && rest?.length === 3 && rest[2] === 'events') {
      count(req, url, '/apis/events.k8s.io/v1/namespaces/{ns}/events');
      return send(req, response, 201, JSON.parse(body || '{}'));
    }
    if (req.method === 'POST' && parts[0] === 'api' && rest?.length === 5 && rest[0] === 'namespaces' && rest[2] === 'pods' && rest[4] === 'eviction') {
      count(req, url, '/api/v1/namespaces/{ns}/pods/{name}/eviction');
      try {
        const dryRun = /All/.test(url.searchParams.get('dryRun') ?? '') || JSON.parse(body || '{}').deleteOptions?.dryRun?.length > 0;
        evict(rest[1], rest[3], dryRun);
      } catch (e) {
        return send(req, response, e.code ?? 500, status(e.code ?? 500, e.code === 404 ? 'NotFound' : 'BadRequest', e.message));
      }
      return send(req, response, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    }
    const gv = parts[0] === 'api' ? (parts[1] === 'v1' ? '' : null) : parts[0] === 'apis' ? `${parts[1]}/${parts[2]}` : null;
    if (rest && gv !== null && rest.length) {
      let namespace = null, plural, name;
      if (rest[0] === 'namespaces' && rest.length >= 3) [, namespace, plural, name] = rest;
      else [plural, name] = rest;
      const r = res[plural];
      if (r && (r.group ? `${r.group}/${r.version}` : '') === gv && rest.length <= (namespace ? 4 : 2) && (!namespace || r.namespaced)) {
        const pattern = `/${parts[0]}${gv ? '/' + gv : '/v1'}${namespace ? `/namespaces/${namespace.startsWith('team-') ? '{team}' : namespace}` : ''}/${plural}${name ? '/{name}' : ''}`;
        count(req, url, url.searchParams.get('watch') && /^(1|true)$/.test(url.searchParams.get('watch')) ? pattern + ' (watch)' : pattern);
        if (req.method === 'GET' && !name) {
          try {
            if (/^(1|true)$/.test(url.searchParams.get('watch') ?? '')) return await watch(req, response, url, plural, namespace);
            return await list(req, response, url, plural, namespace);
          } catch (e) {
            return send(req, response, e.code ?? 500, status(e.code ?? 500, 'BadRequest', e.message));
          }
        }
        const key = `${plural}/${namespace ?? ''}/${name ?? ''}`;
        if (req.method === 'GET' && name) {
          if (stored.has(key)) return send(req, response, 200, stored.get(key));
          if (plural === 'pods') {
            const p = podIndex(namespace, name);
            const o = p >= 0 ? c.pod(p) : null;
            if (o) return send(req, response, 200, o);
          }
          const d = plural === 'daemonsets' && DAEMONSETS.findIndex((x) => x.name === name && x.namespace === namespace);
          if (d >= 0 && d !== false) {
            return send(req, response, 200, { kind: 'DaemonSet', apiVersion: 'apps/v1', metadata: { name, namespace, uid: uid(KIND_DS, d), resourceVersion: String(c.baseRv) }, spec: {}, status: {} });
          }
          let i = -1;
          if (plural === 'nodes' || (plural === 'leases' && namespace === 'kube-node-lease')) i = c.nodeIndex(name);
          if (plural === 'namespaces') i = c.namespaceNames.indexOf(name);
          if (i >= 0) return send(req, response, 200, r.make(i));
          return send(req, response, 404, status(404, 'NotFound', `${plural} "${name}" not found`, { name, kind: plural }));
        }
        try {
          if (req.method === 'PATCH' && plural === 'nodes' && name) return send(req, response, 200, patchNode(name, JSON.parse(body || '{}')));
        } catch (e) {
          return send(req, response, e.code ?? 400, status(e.code ?? 400, e.code === 404 ? 'NotFound' : 'BadRequest', e.message));
        }
        if (req.method === 'POST' && !name && plural !== 'nodes' && plural !== 'pods') {
          const o = JSON.parse(body || '{}');
          o.metadata ??= {};
          o.metadata.name ??= `${o.metadata.generateName ?? 'object-'}${suffix(rv, 5)}`;
          const k = `${plural}/${namespace ?? ''}/${o.metadata.name}`;
          if (stored.has(k)) return send(req, response, 409, status(409, 'AlreadyExists', `${plural} "${o.metadata.name}" already exists`));
          rv += 1;
          Object.assign(o.metadata, { namespace: namespace ?? undefined, uid: uid(11, rv), resourceVersion: String(rv), creationTimestamp: iso(Date.now()) });
          stored.set(k, o);
          return send(req, response, 201, o);
        }
        if (req.method === 'PUT' && name && stored.has(key)) {
          const o = JSON.parse(body || '{}');
          rv += 1;
          o.metadata = { ...stored.get(key).metadata, ...o.metadata, resourceVersion: String(rv) };
          stored.set(key, o);
          return send(req, response, 200, o);
        }
        if (req.method === 'DELETE' && name && stored.has(key)) {
          stored.delete(key);
          return send(req, response, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' });
        }
        log(`no answer for ${req.method} ${req.url}`);
        stats.unknown++;
        return send(req, response, 405, status(405, 'MethodNotAllowed', `the stand-in does not ${req.method} ${plural}`));
      }
    }
    count(req, url, `(unknown) ${path}`);
    stats.unknown++;
    log(`no answer for ${req.method} ${req.url} (accept ${req.headers.accept ?? '-'})`);
    return send(req, response, 404, status(404, 'NotFound', 'the server could not find the requested resource', { causes: [{ reason: 'UnexpectedServerResponse', message: '404 page not found' }] }));
  }

  const server = http.createServer({ keepAlive: true }, (req, response) => {
    handle(req, response).catch((e) => {
      log(`error answering ${req.method} ${req.url}: ${e.stack}`);
      if (!response.headersSent) send(req, response, 500, status(500, 'InternalError', String(e)));
      else response.destroy();
    });
  });
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 60_000;
  server.timeout = 0;
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', resolve);
  });
  const port = server.address().port;
  const url = `http://127.0.0.1:${port}`;
  const kubeconfig = opts.kubeconfig ?? join(mkdtempSync(join(tmpdir(), 'standin-')), 'kubeconfig');
  writeFileSync(kubeconfig, [
    'apiVersion: v1', 'kind: Config', 'preferences: {}',
    'clusters:', '- name: standin', '  cluster:', `    server: ${url}`,
    'users:', '- name: bench-admin', '  user:', '    token: standin-bench-token',
    'contexts:', '- name: standin', '  context:', '    cluster: standin', '    user: bench-admin', '    namespace: default',
    'current-context: standin', '',
  ].join('\n'), { mode: 0o600 });

  return {
    url, port, kubeconfig, cluster: c,
    flip, startStream, stopStream, streamState,
    requests: () => Object.fromEntries([...counts].sort()),
    stats: () => ({ ...stats, rv, watches: watchers.size }),
    // Ends every watch and connection; resolves once the server has closed, or after a second at most.
    stop: () => new Promise((resolve) => {
      stopStream();
      if (background) clearInterval(background);
      for (const w of [...watchers]) { w.end(); w.res.destroy(); }
      server.close(() => resolve());
      server.closeAllConnections();
      setTimeout(resolve, 1000).unref();
    }),
  };
}

// Run on its own: `node standin-api.mjs --nodes 5000 --pods 150000`.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = {};
  for (let k = 2; k < process.argv.length; k += 2) args[process.argv[k].replace(/^--/, '')] = process.argv[k + 1];
  const api = await startStandin({
    nodes: Number(args.nodes ?? 5000), pods: Number(args.pods ?? 150000), zones: Number(args.zones ?? 4),
    pdbs: args.pdbs === undefined ? undefined : Number(args.pdbs), port: Number(args.port ?? 0), windows: Number(args.windows ?? 0),
    kubeconfig: args.kubeconfig, renewEvery: Number(args['renew-every'] ?? 0), deleteAfter: Number(args['delete-after'] ?? 0),
  });
  console.log(`standin serving on ${api.url} kubeconfig ${api.kubeconfig}`);
  // Nothing to save: the sockets go with the process.
  process.on('SIGTERM', () => process.exit(0));
  process.on('SIGINT', () => process.exit(0));
}
