#!/usr/bin/env python3
"""Fills a local control plane (end2end/cluster/cluster.sh up) with many kwok nodes and running pods, fast.

    populate.py DIR nodes --to N [--zones Z]          creates node-(NODES+1) … node-N, already Ready
    populate.py DIR pods --count P [--namespaces K]   creates P pods spread over every kwok node, then marks
                                                      them Running and Ready

Why not kubectl or kwok alone: kubectl sends one request at a time and throttles itself to 5 per second, and
kwok marks only about 20 pods per second Running on a 2-core machine. Here the API server gets N requests in
parallel over keep-alive connections (standard library only), and the objects are written as kwok would have:

- Nodes are created with the labels `cluster.sh up` gives its nodes (kwok's label included, so kwok takes them
  over and keeps their Lease) and with the Ready status kwok's node-initialize stage writes, so kwok skips that
  stage. Node status is not reset on create.
- Pods are created with `spec.nodeName` set, so the scheduler is not involved, and then their status subresource is
  patched to what kwok's pod-ready stage writes (Running, the five conditions, pod and host IPs, a running
  container status). kwok's own pod-ready stage ignores pods that are already Ready. The pods are bare (no
  ownerReferences: the garbage collector would delete pods whose owner does not exist); the API server adds the
  default not-ready/unreachable tolerations and the service-account token volume, as for any pod.

Prints a rate line per phase on stderr.
"""
import argparse
import http.client
import json
import queue
import ssl
import sys
import threading
import time
from datetime import datetime, timezone
from urllib.parse import urlparse


def env_of(d):
    env = {}
    with open(f"{d}/cluster.env") as f:
        for line in f:
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                env[k] = v
    return env


class Api:
    def __init__(self, d):
        self.url = urlparse(env_of(d)["APISERVER_URL"])
        self.ctx = ssl.create_default_context(cafile=f"{d}/pki/ca.crt")
        self.ctx.load_cert_chain(f"{d}/pki/admin.crt", f"{d}/pki/admin.key")
        self.local = threading.local()

    def conn(self):
        c = getattr(self.local, "conn", None)
        if c is None:
            c = http.client.HTTPSConnection(self.url.hostname, self.url.port, context=self.ctx, timeout=120)
            self.local.conn = c
        return c

    def request(self, method, path, body=None, content_type="application/json"):
        data = None if body is None else json.dumps(body, separators=(",", ":")).encode()
        for attempt in range(8):
            try:
                c = self.conn()
                c.request(method, path, body=data, headers={"Content-Type": content_type} if data else {})
                r = c.getresponse()
                payload = r.read()
            except (OSError, http.client.HTTPException):
                self.local.conn = None
                time.sleep(0.5 * (attempt + 1))
                continue
            if r.status == 429 or r.status >= 500:  # priority and fairness pushing back, or a timeout
                time.sleep(float(r.getheader("Retry-After") or 1))
                continue
            return r.status, payload
        raise RuntimeError(f"{method} {path}: gave up after retries")


def run_parallel(api, jobs, workers, what):
    """Runs every (method, path, body[, content_type]) in jobs on `workers` threads; fails on unexpected answers."""
    q = queue.Queue()
    for j in jobs:
        q.put(j)
    total = q.qsize()
    errors = []
    started = time.monotonic()

    def work():
        while True:
            try:
                job = q.get_nowait()
            except queue.Empty:
                return
            status, payload = api.request(*job)
            if status == 409 and job[0] == "POST":  # already there from an earlier run
                continue
            if status >= 300:
                errors.append(f"{job[0]} {job[1]}: {status} {payload[:300]!r}")

    threads = [threading.Thread(target=work, daemon=True) for _ in range(workers)]
    for t in threads:
        t.start()
    last = 0
    while any(t.is_alive() for t in threads):
        time.sleep(1)
        done = total - q.qsize()
        if done - last >= 2000 or not any(t.is_alive() for t in threads):
            print(f"populate: {what}: {done}/{total} queued ({time.monotonic() - started:.0f} s)", file=sys.stderr)
            last = done
    took = time.monotonic() - started
    if errors:
        raise SystemExit(f"populate: {len(errors)} failures, first: {errors[0]}")
    print(f"populate: {what}: {total} requests in {took:.1f} s ({total / max(took, 1e-9):.0f}/s)", file=sys.stderr)
    return took


def now():
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


LETTERS = "abcdefgh"


def node_object(i, zones):
    name = f"node-{i}"
    t = now()
    conditions = [
        ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
        ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
        ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        ("NetworkUnavailable", "False", "RouteCreated", "RouteController created a route"),
    ]
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {
                "kwok.x-k8s.io/node": "fake",
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                "beta.kubernetes.io/os": "linux",
                "beta.kubernetes.io/arch": "amd64",
                "node-role.kubernetes.io/worker": "",
                "node.kubernetes.io/instance-type": "m6i.2xlarge",
                "topology.kubernetes.io/region": "local-1",
                "topology.kubernetes.io/zone": f"zone-{LETTERS[(i - 1) % zones]}",
            },
            "annotations": {"node.alpha.kubernetes.io/ttl": "0"},
        },
        "status": {
            "capacity": {"cpu": "8", "memory": "32Gi", "pods": "110", "ephemeral-storage": "100Gi"},
            "allocatable": {"cpu": "7910m", "memory": "31Gi", "pods": "110", "ephemeral-storage": "95Gi"},
            "addresses": [{"type": "InternalIP", "address": "192.0.2.20"}],
            "conditions": [
                {"type": c, "status": s, "reason": r, "message": m, "lastHeartbeatTime": t, "lastTransitionTime": t}
                for c, s, r, m in conditions
            ],
            "nodeInfo": {
                "architecture": "amd64", "operatingSystem": "linux", "kubeletVersion": "kwok-v0.8.0",
                "kubeProxyVersion": "kwok-v0.8.0", "kernelVersion": "kwok-v0.8.0",
                "containerRuntimeVersion": "kwok-v0.8.0", "bootID": "", "machineID": "", "osImage": "",
                "systemUUID": "",
            },
            "phase": "Running",
        },
    }


def cmd_nodes(api, args):
    status, payload = api.request("GET", "/api/v1/nodes?labelSelector=kwok.x-k8s.io%2Fnode%3Dfake")
    have = {n["metadata"]["name"] for n in json.loads(payload)["items"]}
    jobs = [("POST", "/api/v1/nodes", node_object(i, args.zones))
            for i in range(1, args.to + 1) if f"node-{i}" not in have]
    run_parallel(api, jobs, args.workers, f"create {len(jobs)} nodes")


APPS = ["web", "api", "worker", "cache", "queue", "search", "auth", "billing", "report", "ingest"]


def pod_object(ns, name, node, app, k):
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": ns,
            "labels": {"app": app, "pod-template-hash": f"{k % 997:06x}", "drainboard.dev/bench": "scale"},
            "annotations": {"prometheus.io/scrape": "true", "prometheus.io/port": "9090"},
        },
        "spec": {
            "nodeName": node,
            "containers": [{
                "name": app,
                "image": f"registry.example.com/{app}:1.{k % 7}.0",
                "ports": [{"containerPort": 8080, "name": "http"}, {"containerPort": 9090, "name": "metrics"}],
                "env": [{"name": "APP", "value": app}, {"name": "LOG_LEVEL", "value": "info"},
                        {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
                "resources": {"requests": {"cpu": "50m", "memory": "64Mi"},
                              "limits": {"cpu": "500m", "memory": "256Mi"}},
                "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 10},
                "volumeMounts": [{"name": "scratch", "mountPath": "/tmp"}],
            }],
            "volumes": [{"name": "scratch", "emptyDir": {}}],
        },
    }


def pod_status(node_index, k, app):
    t = now()
    ip = f"10.{64 + (k >> 16) % 64}.{(k >> 8) & 255}.{k & 255}"
    host = "192.0.2.20"
    return {"status": {
        "phase": "Running",
        "conditions": [{"type": c, "status": "True", "lastTransitionTime": t} for c in
                       ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled")],
        "hostIP": host, "hostIPs": [{"ip": host}], "podIP": ip, "podIPs": [{"ip": ip}], "startTime": t,
        "containerStatuses": [{
            "name": app, "image": f"registry.example.com/{app}:1.{k % 7}.0", "imageID": "", "ready": True,
            "started": True, "restartCount": 0, "state": {"running": {"startedAt": t}},
        }],
    }}


def cmd_pods(api, args):
    status, payload = api.request("GET", "/api/v1/nodes?labelSelector=kwok.x-k8s.io%2Fnode%3Dfake")
    nodes = sorted((n["metadata"]["name"] for n in json.loads(payload)["items"]),
                   key=lambda n: int(n.rsplit("-", 1)[1]) if n.rsplit("-", 1)[1].isdigit() else 0)
    namespaces = [f"bench-{i:02d}" for i in range(args.namespaces)]
    run_parallel(api, [("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                        "metadata": {"name": ns}}) for ns in namespaces],
                 args.workers, f"create {len(namespaces)} namespaces")
    # Wait for each namespace's default ServiceAccount: the ServiceAccount admission refuses pods before it exists.
    for ns in namespaces:
        for _ in range(300):
            if api.request("GET", f"/api/v1/namespaces/{ns}/serviceaccounts/default")[0] == 200:
                break
            time.sleep(0.2)
    pods = []
    for k in range(args.count):
        node = nodes[k % len(nodes)]
        app = APPS[k % len(APPS)]
        ns = namespaces[k % len(namespaces)]
        pods.append((ns, f"{app}-{k:06d}", node, app, k))
    run_parallel(api, [("POST", f"/api/v1/namespaces/{ns}/pods", pod_object(ns, name, node, app, k))
                       for ns, name, node, app, k in pods], args.workers, f"create {len(pods)} pods")
    run_parallel(api, [("PATCH", f"/api/v1/namespaces/{ns}/pods/{name}/status", pod_status(0, k, app),
                        "application/merge-patch+json") for ns, name, node, app, k in pods],
                 args.workers, f"mark {len(pods)} pods Running")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir")
    sub = p.add_subparsers(dest="cmd", required=True)
    n = sub.add_parser("nodes")
    n.add_argument("--to", type=int, required=True)
    n.add_argument("--zones", type=int, default=4)
    n.add_argument("--workers", type=int, default=8)
    q = sub.add_parser("pods")
    q.add_argument("--count", type=int, required=True)
    q.add_argument("--namespaces", type=int, default=20)
    q.add_argument("--workers", type=int, default=8)
    args = p.parse_args()
    api = Api(args.dir)
    {"nodes": cmd_nodes, "pods": cmd_pods}[args.cmd](api, args)


if __name__ == "__main__":
    main()
