#!/usr/bin/env python3
"""The budget watch of rollout-vs-kubectl.sh.

  rollout-watch.py watch KUBECTL KUBECONFIG NAMESPACE LOG
      Watches every PodDisruptionBudget of the cluster and every pod of NAMESPACE (`kubectl get --watch
      --output-watch-events -o json`, restarted if the API server ends a watch) and appends each event, with the
      time it was read, as one JSON line to LOG. Runs until killed.
  rollout-watch.py window LOG T0 T1 NAMESPACE
      What the log says of the moments T0..T1 (seconds since the epoch), as one JSON object: how many pods of
      NAMESPACE started deleting (were evicted) in the window;
      - from the budgets' own status: events in the window where status.currentHealthy < status.desiredHealthy
        (any budget of the cluster), how many separate spells that made, the least disruptionsAllowed and the least
        currentHealthy - desiredHealthy of NAMESPACE's budgets;
      - from the pods (a check that does not trust the disruption controller): for each app label of NAMESPACE,
        the pods Ready and not deleting at every event, against the budget's desiredHealthy at that moment.
  rollout-watch.py timeline LOG T0 T1 PREFIX
      For each node whose name starts with PREFIX: when (seconds after T0) its first pod started deleting, when its
      last pod was gone, and how many of its pods were deleted in the window.
"""
import json
import os
import signal
import subprocess
import sys
import threading
import time


def watch(kubectl, kubeconfig, namespace, log_path):
    out = open(log_path, "a", buffering=1)
    lock = threading.Lock()
    procs = []

    def stop(*_):
        for p in procs:
            p.kill()
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    def follow(kind, scope):
        while True:
            proc = subprocess.Popen(
                [kubectl, "--kubeconfig", kubeconfig, "get", kind, *scope, "--watch", "--output-watch-events",
                 "-o", "json"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            procs.append(proc)
            decoder, buf = json.JSONDecoder(), ""
            for chunk in iter(lambda: proc.stdout.readline(), ""):
                now = time.time()
                buf += chunk
                if not chunk.rstrip().endswith("}"):
                    continue  # an event (one line each with --output-watch-events) ends with a closing brace
                while True:
                    stripped = buf.lstrip()
                    if not stripped:
                        buf = ""
                        break
                    try:
                        event, end = decoder.raw_decode(stripped)
                    except json.JSONDecodeError:
                        break  # not complete yet
                    buf = stripped[end:]
                    line = summarize(kind, event, now)
                    with lock:
                        out.write(json.dumps(line) + "\n")
            proc.wait()
            time.sleep(0.2)

    threads = [threading.Thread(target=follow, args=("poddisruptionbudgets", ["-A"]), daemon=True),
               threading.Thread(target=follow, args=("pods", ["-n", namespace]), daemon=True)]
    for t in threads:
        t.start()
    while True:
        signal.pause()


def summarize(kind, event, now):
    obj = event.get("object", {})
    meta = obj.get("metadata", {})
    line = {"t": now, "type": event.get("type"), "kind": kind, "ns": meta.get("namespace"), "name": meta.get("name")}
    status = obj.get("status", {})
    if kind == "poddisruptionbudgets":
        for f in ("currentHealthy", "desiredHealthy", "disruptionsAllowed", "expectedPods"):
            line[f] = status.get(f)
        line["selector"] = obj.get("spec", {}).get("selector", {}).get("matchLabels", {}).get("app")
    else:
        line["app"] = meta.get("labels", {}).get("app")
        line["node"] = obj.get("spec", {}).get("nodeName")
        line["deleting"] = meta.get("deletionTimestamp") is not None
        line["ready"] = any(c.get("type") == "Ready" and c.get("status") == "True"
                            for c in status.get("conditions", []) or [])
    return line


def window(log_path, t0, t1, namespace):
    lines = [json.loads(l) for l in open(log_path) if l.strip()]
    lines.sort(key=lambda l: l["t"])
    pdb, pods = {}, {}  # the latest known state, key -> line
    violation_events = 0
    spells = 0
    violating = set()  # budgets below their desired count now
    min_allowed = None
    min_margin = None
    pod_min_margin = None
    pod_violation_events = 0
    pod_spells = 0
    pod_violating = set()

    def pod_check(now_in_window):
        nonlocal pod_min_margin, pod_violation_events, pod_spells
        healthy = {}
        for p in pods.values():
            if p["ready"] and not p["deleting"]:
                healthy[p["app"]] = healthy.get(p["app"], 0) + 1
        for b in pdb.values():
            if b["ns"] != namespace or b.get("desiredHealthy") is None or b.get("selector") is None:
                continue
            margin = healthy.get(b["selector"], 0) - b["desiredHealthy"]
            if not now_in_window:
                continue
            pod_min_margin = margin if pod_min_margin is None else min(pod_min_margin, margin)
            if margin < 0:
                pod_violation_events += 1
                if b["name"] not in pod_violating:
                    pod_spells += 1
                pod_violating.add(b["name"])
            else:
                pod_violating.discard(b["name"])

    def pdb_check(key, b):
        nonlocal violation_events, spells, min_allowed, min_margin
        cur, desired, allowed = b.get("currentHealthy"), b.get("desiredHealthy"), b.get("disruptionsAllowed")
        if cur is None or desired is None:
            return
        if cur < desired:
            violation_events += 1
            if key not in violating:
                spells += 1
            violating.add(key)
        else:
            violating.discard(key)
        if b["ns"] == namespace:
            min_margin = cur - desired if min_margin is None else min(min_margin, cur - desired)
            if allowed is not None:
                min_allowed = allowed if min_allowed is None else min(min_allowed, allowed)

    started = False
    evicted = set()  # the pods of NAMESPACE that started deleting in the window
    for l in lines:
        if l["t"] > t1:
            break
        in_window = l["t"] >= t0
        if in_window and not started:
            # The state at T0 counts as the window's first moment.
            started = True
            for key, b in pdb.items():
                pdb_check(key, b)
            pod_check(True)
        key = (l["ns"], l["name"])
        if l["kind"] == "poddisruptionbudgets":
            if l["type"] == "DELETED":
                pdb.pop(key, None)
            else:
                pdb[key] = l
                if in_window:
                    pdb_check(key, l)
        else:
            if in_window and l["ns"] == namespace and l["deleting"] and not pods.get(key, {}).get("deleting"):
                evicted.add(key)
            if l["type"] == "DELETED":
                pods.pop(key, None)
            else:
                pods[key] = l
        if in_window:
            pod_check(True)
    print(json.dumps({
        "evictions": len(evicted),
        "pdb_violation_events": violation_events, "pdb_violation_spells": spells,
        "min_disruptions_allowed": min_allowed, "min_healthy_margin": min_margin,
        "pod_violation_events": pod_violation_events, "pod_violation_spells": pod_spells,
        "pod_min_healthy_margin": pod_min_margin,
        "events_in_window": sum(1 for l in lines if t0 <= l["t"] <= t1),
    }))


def timeline(log_path, t0, t1, prefix):
    lines = [json.loads(l) for l in open(log_path) if l.strip()]
    lines.sort(key=lambda l: l["t"])
    nodes = {}
    deleting = set()
    for l in lines:
        if l["kind"] != "pods" or not (l.get("node") or "").startswith(prefix) or not t0 <= l["t"] <= t1:
            continue
        n = nodes.setdefault(l["node"], {"first": None, "last": None, "pods": 0})
        key = (l["ns"], l["name"])
        if l["deleting"] and key not in deleting:
            deleting.add(key)
            n["pods"] += 1
            n["first"] = l["t"] - t0 if n["first"] is None else n["first"]
        if l["type"] == "DELETED":
            n["last"] = l["t"] - t0
    for name in sorted(nodes, key=lambda k: nodes[k]["first"] if nodes[k]["first"] is not None else 1e9):
        n = nodes[name]
        first = "-" if n["first"] is None else f"{n['first']:.1f}"
        last = "-" if n["last"] is None else f"{n['last']:.1f}"
        print(f"  {name:10} first eviction +{first:>6} s, last pod gone +{last:>6} s, {n['pods']} pods")


if __name__ == "__main__":
    if sys.argv[1] == "watch":
        watch(*sys.argv[2:6])
    elif sys.argv[1] == "window":
        window(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5])
    elif sys.argv[1] == "timeline":
        timeline(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5])
    else:
        sys.exit(__doc__)
