#!/usr/bin/env bash
# Rolling maintenance of 10 nodes: Drainboard's rollout against `kubectl drain n1 … n10` (the kubectl of the pinned
# release), alternating, on one local control plane. Deployments are spread over the 10 nodes, each with a
# PodDisruptionBudget of maxUnavailable 1, and 4 spare nodes give the evicted pods somewhere to go. Every round runs:
#   kubectl      `kubectl drain <10 nodes> --ignore-daemonsets --delete-emptydir-data` (cordons all, then drains
#                one node after the other);
#   drainboard-N a rollout at max_parallel N, from a server held to kubectl's pace (--api-qps 5 --api-burst 10),
#                for each N of --parallel (such as 5,10);
#   drainboard-1 the same at max_parallel 1 (unless --no-single);
#   default-N    (unless --no-default-pace) a rollout at max_parallel N (the first of --parallel) from a server at
#                its default pace.
# Before every run the pods are put back: scaled to 0, the spares cordoned, scaled up (one pod of every Deployment
# on every node to drain), the spares uncordoned, and every budget back to its full count. One watch of every budget
# of the cluster (and of the pods, rollout-watch.py) runs throughout; each run's window, from its start until the
# budgets are full again, is checked for a moment with status.currentHealthy < status.desiredHealthy.
#   end2end/bench/rollout-vs-kubectl.sh [--rounds 3] [--parallel 5[,10…]] [--deployments 10] [--replicas 10]
#                                       [--shutdown 10s] [--no-default-pace] [--no-single]
#                                       [--server target/release/drainboard] [--previous OTHER_BINARY]
#                                       [--keep DIR] [--no-kubectl]
# --shutdown DURATION (default 10s) puts pod-delete.stage.kwok.x-k8s.io/delay: "DURATION" on the pod templates, so
# that an evicted pod is gone only after DURATION, as a real pod that takes its time to shut down (the local
# cluster's kwok stages, end2end/cluster/cluster.sh, since e0d60c9); 0 leaves it out: pods go at once.
# --previous OTHER_BINARY adds previous-N (N the first of --parallel): the same rollout from a server of another
# build (the previous version), also held to kubectl's pace, in the same rounds, for a side-by-side ratio.
# --no-kubectl leaves kubectl's runs out (no ratios then): for benchmark P8 alone, whose reference is each drain's
# own real time. Every rollout's nodes are written to estimates.tsv, each with the estimate its plan made as it
# started and its drain's real time, and summarised at the end (estimate-errors.py).
# --keep DIR keeps the watch's log (watch.jsonl), each run's window (runs.tsv) and each node's timeline per run
# (timelines.txt) there.
# Uses the cluster in $DRAINBOARD_CLUSTER_DIR when set; otherwise starts one and stops it at the end. Its own 14
# kwok nodes (tainted, so that only the benchmark's pods land there) are removed at the end.
set -euo pipefail
shopt -s inherit_errexit
root=$(cd "$(dirname "$0")/../.." && pwd)
rounds=3 parallel=5 deployments=10 replicas=10 default_pace=1 single=1 server=$root/target/release/drainboard
drained=10 spares=4 keep="" shutdown=10s previous="" with_kubectl=1
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --parallel) parallel=$2; shift 2 ;;
    --deployments) deployments=$2; shift 2 ;;
    --replicas) replicas=$2; shift 2 ;;
    --no-default-pace) default_pace=0; shift ;;
    --no-single) single=0; shift ;;
    --server) server=$2; shift 2 ;;
    --previous) previous=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --shutdown) shutdown=$2; shift 2 ;;
    --no-kubectl) with_kubectl=0; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $shutdown =~ ^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$|^0$ ]] ||
  { echo "--shutdown takes a duration such as 10s, or 0" >&2; exit 2; }
[[ $parallel =~ ^[0-9]+(,[0-9]+)*$ ]] || { echo "--parallel takes numbers such as 5 or 5,10" >&2; exit 2; }
IFS=, read -r -a parallels <<< "$parallel"
[ -x "$server" ] || { echo "build the server first: cargo build --release -p drainboard" >&2; exit 1; }

cleanup() { :; }
trap 'cleanup' EXIT
if [ -z "${DRAINBOARD_CLUSTER_DIR:-}" ]; then
  DRAINBOARD_CLUSTER_DIR=$("$root/end2end/cluster/cluster.sh" up --nodes 2 --zones 2)
  cleanup() { "$root/end2end/cluster/cluster.sh" down "$DRAINBOARD_CLUSTER_DIR"; }
fi
kubeconfig=$DRAINBOARD_CLUSTER_DIR/admin.kubeconfig
kubectl_bin=$root/.cache/cluster/bin/kubectl
kc() { "$kubectl_bin" --kubeconfig "$kubeconfig" "$@"; }
ns=rollout-bench pool=rollout-bench
work=$DRAINBOARD_CLUSTER_DIR/rollout-bench
mkdir -p "$work"
: > "$work/pids"; : > "$work/runs.tsv"; : > "$work/timelines.txt"; : > "$work/watch.jsonl"; : > "$work/estimates.tsv"
prev_cleanup=$(declare -f cleanup | tail -n +2)
cleanup() {
  xargs -r kill < "$work/pids" 2>/dev/null || true
  if [ -n "$keep" ]; then mkdir -p "$keep" && cp "$work"/watch.jsonl "$work"/runs.tsv "$work"/timelines.txt "$work"/estimates.tsv "$keep"/ 2>/dev/null || true; fi
  kc delete namespace "$ns" --ignore-not-found --wait=false >/dev/null 2>&1 || true
  kc delete node -l "drainboard.dev/pool=$pool" --ignore-not-found --wait=false >/dev/null 2>&1 || true
  eval "$prev_cleanup"
}

drain_nodes=() spare_nodes=()
for i in $(seq 1 "$drained"); do drain_nodes+=("roll-$i"); done
for i in $(seq 1 "$spares"); do spare_nodes+=("spare-$i"); done

# What an earlier run may have left.
kc delete namespace "$ns" --ignore-not-found --wait=true --timeout=180s >/dev/null
kc delete node -l "drainboard.dev/pool=$pool" --ignore-not-found --wait=true >/dev/null

# The nodes, in two zones, tainted so that only the benchmark's pods land there; room for every pod on the spares.
manifest=""
i=0
for n in "${drain_nodes[@]}" "${spare_nodes[@]}"; do
  role=drain; [[ $n == spare-* ]] && role=spare
  zone=zone-a; [ $((i % 2)) -eq 1 ] && zone=zone-b
  i=$((i + 1))
  manifest+="apiVersion: v1
kind: Node
metadata:
  name: $n
  labels: {kwok.x-k8s.io/node: fake, kubernetes.io/hostname: $n, kubernetes.io/os: linux, drainboard.dev/pool: $pool, drainboard.dev/role: $role, topology.kubernetes.io/zone: $zone}
spec:
  taints: [{key: drainboard.dev/bench, value: \"true\", effect: NoSchedule}]
status:
  allocatable: {cpu: \"64\", memory: 256Gi, pods: \"250\"}
  capacity: {cpu: \"64\", memory: 256Gi, pods: \"250\"}
---
"
done
manifest+="apiVersion: v1
kind: Namespace
metadata: {name: $ns}
"
printf '%s' "$manifest" | kc apply -f - >/dev/null
kc wait --for=condition=Ready node -l "drainboard.dev/pool=$pool" --timeout=60s >/dev/null
for _ in $(seq 1 150); do kc get serviceaccount default -n "$ns" >/dev/null 2>&1 && break; sleep 0.2; done

# Deployments d1…dN of R pods, spread over the hostnames (a preference, so that the evicted pods always have a
# place), each with its budget of maxUnavailable 1; created at 0 replicas, scaled up by reset. With --shutdown, an
# evicted pod is deleted by kwok only after that delay.
annotations=""
[ "$shutdown" = 0 ] || annotations=", annotations: {pod-delete.stage.kwok.x-k8s.io/delay: \"$shutdown\"}"
manifest=""
for d in $(seq 1 "$deployments"); do
  manifest+="apiVersion: apps/v1
kind: Deployment
metadata: {name: d$d, namespace: $ns}
spec:
  replicas: 0
  selector: {matchLabels: {app: d$d}}
  template:
    metadata: {labels: {app: d$d}$annotations}
    spec:
      nodeSelector: {drainboard.dev/pool: $pool}
      tolerations: [{key: drainboard.dev/bench, operator: Exists, effect: NoSchedule}]
      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: d$d}}}
      containers: [{name: c, image: nginx:1.27}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: d$d, namespace: $ns}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: d$d}}
---
"
done
printf '%s' "$manifest" | kc apply -f - >/dev/null

# The watch, from now until the end.
python3 "$root/end2end/bench/rollout-watch.py" watch "$kubectl_bin" "$kubeconfig" "$ns" "$work/watch.jsonl" &
echo $! >> "$work/pids"

# Local mode's lock: the servers started here share one secret for this run (DRAINBOARD_LOCAL_TOKEN), and curl
# sends it as a bearer token from a file readable by the owner only (not on its command line, which ps shows).
DRAINBOARD_LOCAL_TOKEN=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n'); export DRAINBOARD_LOCAL_TOKEN
(umask 077 && printf 'Authorization: Bearer %s\n' "$DRAINBOARD_LOCAL_TOKEN" > "$work/auth")
start_server() { # start_server NAME ARGS...: prints the URL of a Drainboard server started with ARGS ($bin, or --server)
  local name=$1; shift
  "${bin:-$server}" --kubeconfig "${config:-$kubeconfig}" --addr 127.0.0.1:0 "$@" > "$work/server-$name.out" 2>/dev/null &
  echo $! >> "$work/pids"
  for _ in $(seq 1 100); do grep -q "serving on" "$work/server-$name.out" && break; sleep 0.1; done
  sed -n 's|.*serving on \(http://[^/ ]*\).*|\1|p' "$work/server-$name.out"
}
polite_url=$(start_server polite --api-qps 5 --api-burst 10)
[ "$default_pace" = 1 ] && fast_url=$(start_server default)
# Both builds follow every plan of the cluster. A build from before issue 46 goes on in local mode with any plan that
# names its operator, so the other build's server would take on this one's plans (and run their drains, whose
# progress this one then does not know): it runs as an operator of another name, from a copy of the kubeconfig whose
# user entry is renamed (the same credentials).
if [ -n "$previous" ]; then
  sed -e 's/^- name: admin$/- name: bench-previous/' -e 's/user: admin}/user: bench-previous}/' "$kubeconfig" > "$work/previous.kubeconfig"
  grep -q 'bench-previous}' "$work/previous.kubeconfig" || { echo "could not rename the kubeconfig's user for --previous" >&2; exit 1; }
  previous_url=$(bin=$previous config=$work/previous.kubeconfig start_server previous --api-qps 5 --api-burst 10)
fi

pods_json() { kc get pods -n "$ns" -o json; }

wait_until() { # wait_until SECONDS WHAT COMMAND...
  local deadline=$((SECONDS + $1)) what=$2; shift 2
  until "$@"; do
    [ $SECONDS -lt $deadline ] || { echo "timed out waiting for $what" >&2; exit 1; }
    sleep 0.5
  done
}
no_pods() { [ -z "$(kc get pods -n "$ns" -o name)" ]; }
all_ready() { # every pod Running, Ready and not deleting, replicas × deployments of them
  pods_json | python3 -c '
import json, sys
items = json.load(sys.stdin)["items"]
ok = [p for p in items if "deletionTimestamp" not in p["metadata"] and p["status"].get("phase") == "Running"
      and any(c["type"] == "Ready" and c["status"] == "True" for c in p["status"].get("conditions", []))]
sys.exit(0 if len(ok) == len(items) == int(sys.argv[1]) else 1)' $((deployments * replicas))
}
budgets_full() { # every budget counts all its pods healthy and allows one disruption
  kc get pdb -n "$ns" -o json | python3 -c '
import json, sys
items = json.load(sys.stdin)["items"]
ok = [b for b in items if b.get("status", {}).get("currentHealthy") == int(sys.argv[1])
      and b["status"].get("disruptionsAllowed") == 1 and b["status"].get("observedGeneration") == b["metadata"]["generation"]]
sys.exit(0 if len(ok) == len(items) == int(sys.argv[2]) else 1)' "$replicas" "$deployments"
}
spread_fault() { # prints one pod to delete while some node to drain holds two of one Deployment (or a spare holds any)
  pods_json | python3 -c '
import json, sys
seen = {}
for p in json.load(sys.stdin)["items"]:
    if "deletionTimestamp" in p["metadata"]:
        continue
    key = (p["spec"].get("nodeName"), p["metadata"]["labels"]["app"])
    if key in seen or not (key[0] or "").startswith("roll-"):
        print(p["metadata"]["name"]); break
    seen[key] = 1'
}

reset() { # the starting state: one pod of every Deployment on every node to drain, spares empty and schedulable
  kc scale deployment -n "$ns" --all --replicas=0 >/dev/null
  wait_until 180 "the pods to go" no_pods
  kc uncordon "${drain_nodes[@]}" >/dev/null
  kc cordon "${spare_nodes[@]}" >/dev/null
  kc scale deployment -n "$ns" --all --replicas="$replicas" >/dev/null
  wait_until 180 "all pods ready" all_ready
  # The spread is a preference: a pod placed twice on one node is deleted and placed again.
  local fault tries=0
  while fault=$(spread_fault) && [ -n "$fault" ]; do
    tries=$((tries + 1)); [ $tries -le 20 ] || { echo "could not spread the pods one per node" >&2; exit 1; }
    kc delete pod -n "$ns" "$fault" --wait=true >/dev/null
    wait_until 120 "all pods ready" all_ready
  done
  kc uncordon "${spare_nodes[@]}" >/dev/null
  wait_until 120 "every budget full" budgets_full
  sleep 1
}

now() { date +%s.%N; }
since() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.3f}')" "$1" "$2"; }

run_kubectl() {
  local t0; t0=$(now)
  kc drain "${drain_nodes[@]}" --ignore-daemonsets --delete-emptydir-data --timeout=900s > "$work/kubectl.out" 2>&1 ||
    { echo "kubectl drain failed:" >&2; tail -5 "$work/kubectl.out" >&2; exit 1; }
  echo "$t0 $(now)"
}

plans_api() { # plans_api URL: where URL's server serves plans (plans; a build from before their one name: rollouts)
  local code
  code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H @"$work/auth" -H 'content-type: application/json' "$1/api/plans" -d '{}')
  if [ "$code" = 404 ]; then echo rollouts; else echo plans; fi
}

run_rollout() { # run_rollout URL MAX_PARALLEL
  local url=$1 n=$2 t0 id status api
  api=$(plans_api "$url")
  local nodes; nodes=$(printf '"%s",' "${drain_nodes[@]}"); nodes=[${nodes%,}]
  t0=$(now)
  id=$(curl -sf -X POST -H @"$work/auth" -H 'content-type: application/json' "$url/api/$api/start" \
    -d "{\"nodes\":$nodes,\"options\":{\"max_parallel\":$n,\"one_per_zone\":false,\"stop_on_failure\":true,\"drain\":{\"ignore_daemonsets\":true,\"timeout_seconds\":900}},\"reason\":\"benchmark\"}" |
    python3 -c 'import json,sys; print(json.load(sys.stdin))')
  while :; do
    status=$(curl -sf -X POST -H @"$work/auth" -H 'content-type: application/json' "$url/api/$api/status" -d "{\"id\":\"$id\"}")
    case $status in *'"state":"Finished"'* | *'"state":"Cancelled"'*) break ;; esac
    sleep 0.2
  done
  local t1; t1=$(now)
  echo "$status" > "$work/rollout-last.json"
  echo "$status" | python3 "$root/end2end/bench/estimate-errors.py" record "$url" "$work/auth" "$tool" "$round" \
    "$shutdown" >> "$work/estimates.tsv"
  echo "$status" | python3 -c '
import json, sys
r = json.load(sys.stdin)
bad = [(n["name"], n["step"]) for n in r["nodes"] if n["step"] != {"Ended": "Drained"}]
if r["state"] != "Finished" or bad:
    sys.exit("rollout ended {}, nodes not Drained: {}".format(r["state"], bad))' >&2 || exit 1
  echo "$t0 $t1"
}

median() { sort -n | awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'; }

tools=()
[ "$with_kubectl" = 1 ] && tools+=(kubectl)
for n in "${parallels[@]}"; do [ "$n" = 1 ] || tools+=("drainboard-$n"); done
[ "$single" = 1 ] && tools+=(drainboard-1)
[ "$default_pace" = 1 ] && tools+=("default-${parallels[0]}")
[ -n "$previous" ] && tools+=("previous-${parallels[0]}")
declare -A times
echo "nodes ${drain_nodes[*]} (spares ${spare_nodes[*]}); $deployments Deployments of $replicas, budgets maxUnavailable 1, shutdown $shutdown"
for round in $(seq 1 "$rounds"); do
  # Rotate which goes first, so that none always runs on a warmer cluster.
  order=()
  for k in $(seq 0 $((${#tools[@]} - 1))); do order+=("${tools[$(((k + round - 1) % ${#tools[@]}))]}"); done
  for tool in "${order[@]}"; do
    reset
    case $tool in
      kubectl) span=$(run_kubectl) ;;
      drainboard-*) span=$(run_rollout "$polite_url" "${tool#drainboard-}") ;;
      default-*) span=$(run_rollout "$fast_url" "${tool#default-}") ;;
      previous-*) span=$(run_rollout "$previous_url" "${tool#previous-}") ;;
    esac
    read -r t0 t1 <<< "$span"
    t=$(since "$t0" "$t1")
    # The window for the budgets runs on until every replacement is ready and every budget full again.
    wait_until 300 "every budget full after $tool" budgets_full
    t2=$(now)
    left=$(kc get pods -n "$ns" -o json | python3 -c '
import json, sys
print(sum(1 for p in json.load(sys.stdin)["items"] if (p["spec"].get("nodeName") or "").startswith("roll-")))')
    [ "$left" -eq 0 ] || { echo "$tool left $left pods on the drained nodes" >&2; exit 1; }
    cordoned=$(kc get node "${drain_nodes[@]}" -o jsonpath='{range .items[*]}{.spec.unschedulable}{"\n"}{end}' | grep -c true || true)
    [ "$cordoned" -eq "$drained" ] || { echo "$tool left $((drained - cordoned)) nodes uncordoned" >&2; exit 1; }
    sleep 1 # the watch's last lines
    w=$(python3 "$root/end2end/bench/rollout-watch.py" window "$work/watch.jsonl" "$t0" "$t2" "$ns")
    evicted=$(echo "$w" | python3 -c 'import json,sys; print(json.load(sys.stdin)["evictions"])')
    times[$tool]+="$t "
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$tool" "$t0" "$t1" "$t2" "$evicted" >> "$work/runs.tsv"
    { echo "round $round $tool $t s"; python3 "$root/end2end/bench/rollout-watch.py" timeline "$work/watch.jsonl" "$t0" "$t2" roll-; } >> "$work/timelines.txt"
    printf 'round %d %-13s %7.2f s  evictions %3d  %s\n' "$round" "$tool" "$t" "$evicted" "$w"
  done
done
declare -A med
for tool in "${tools[@]}"; do
  med[$tool]=$(printf '%s\n' ${times[$tool]} | median)
  printf 'median %-13s %7.2f s  (%s)\n' "$tool" "${med[$tool]}" "${times[$tool]% }"
done
echo "P8: each drain's estimate, made as its plan started, against its real time"
python3 "$root/end2end/bench/estimate-errors.py" summary "$work/estimates.tsv"
[ "$with_kubectl" = 1 ] || exit 0
k=${med[kubectl]} one=${med[drainboard-1]:-0}
[ "$single" = 1 ] &&
  python3 -c "import sys; print(f'ratio drainboard-1/kubectl {float(sys.argv[1]) / float(sys.argv[2]):.3f}')" "$one" "$k"
for n in "${parallels[@]}"; do
  [ "$n" = 1 ] && continue
  python3 -c "
import sys
k, n, one = map(float, sys.argv[1:4])
print(f'ratio drainboard-{sys.argv[4]}/kubectl {n / k:.3f}' + (f', drainboard-{sys.argv[4]}/drainboard-1 {n / one:.3f}' if one else ''))" \
    "$k" "${med[drainboard-$n]}" "$one" "$n"
done
if [ "$default_pace" = 1 ]; then
  python3 -c "import sys; print(f'ratio default-{sys.argv[3]}/kubectl {float(sys.argv[1]) / float(sys.argv[2]):.3f}')" \
    "${med[default-${parallels[0]}]}" "$k" "${parallels[0]}"
fi
if [ -n "$previous" ]; then
  python3 -c "import sys; print(f'ratio drainboard-{sys.argv[3]}/previous-{sys.argv[3]} {float(sys.argv[1]) / float(sys.argv[2]):.3f}')" \
    "${med[drainboard-${parallels[0]}]}" "${med[previous-${parallels[0]}]}" "${parallels[0]}"
fi
