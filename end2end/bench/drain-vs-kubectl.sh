#!/usr/bin/env bash
# Drains a node of N pods with Drainboard and with `kubectl drain` (the kubectl of the pinned release), alternating,
# on one local control plane, and prints each time and the medians. Drainboard runs twice in every round: at its
# default pace, and at kubectl's own (--api-qps 5 --api-burst 10, a second server), so that both ratios come from
# one run.
#   end2end/bench/drain-vs-kubectl.sh [--pods 110] [--rounds 6] [--server target/release/drainboard]
# Uses the cluster in $DRAINBOARD_CLUSTER_DIR when set; otherwise starts one and stops it at the end.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
pods=110 rounds=6 server=$root/target/release/drainboard
while [ $# -gt 0 ]; do
  case $1 in
    --pods) pods=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --server) server=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[ -x "$server" ] || { echo "build the server first: cargo build --release -p drainboard" >&2; exit 1; }

cleanup() { :; }
trap 'cleanup' EXIT
if [ -z "${DRAINBOARD_CLUSTER_DIR:-}" ]; then
  DRAINBOARD_CLUSTER_DIR=$("$root/end2end/cluster/cluster.sh" up --nodes 2 --zones 2)
  cleanup() { "$root/end2end/cluster/cluster.sh" down "$DRAINBOARD_CLUSTER_DIR"; }
fi
kubeconfig=$DRAINBOARD_CLUSTER_DIR/admin.kubeconfig
kc() { "$root/.cache/cluster/bin/kubectl" --kubeconfig "$kubeconfig" "$@"; }
node=bench-1 ns=bench

# A node of its own, tainted so that only the benchmark's pods land there.
kc apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Node
metadata:
  name: $node
  labels: {kwok.x-k8s.io/node: fake, kubernetes.io/hostname: $node, drainboard.dev/pool: bench}
spec:
  taints: [{key: drainboard.dev/bench, value: "true", effect: NoSchedule}]
status:
  allocatable: {cpu: "64", memory: 256Gi, pods: "250"}
  capacity: {cpu: "64", memory: 256Gi, pods: "250"}
---
apiVersion: v1
kind: Namespace
metadata: {name: $ns}
YAML
kc wait --for=condition=Ready "node/$node" --timeout=60s >/dev/null

# Local mode's lock: the servers started here share one secret for this run (DRAINBOARD_LOCAL_TOKEN), and curl
# sends it as a bearer token from a file readable by the owner only (not on its command line, which ps shows).
DRAINBOARD_LOCAL_TOKEN=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n'); export DRAINBOARD_LOCAL_TOKEN
(umask 077 && printf 'Authorization: Bearer %s\n' "$DRAINBOARD_LOCAL_TOKEN" > "$DRAINBOARD_CLUSTER_DIR/bench-auth")
start_server() { # start_server NAME ARGS...: prints the URL of a Drainboard server started with ARGS
  local name=$1; shift
  "$server" --kubeconfig "$kubeconfig" --addr 127.0.0.1:0 "$@" > "$DRAINBOARD_CLUSTER_DIR/bench-$name.out" 2>/dev/null &
  echo $! >> "$DRAINBOARD_CLUSTER_DIR/bench-pids"
  for _ in $(seq 1 100); do grep -q "serving on" "$DRAINBOARD_CLUSTER_DIR/bench-$name.out" && break; sleep 0.1; done
  sed -n 's|.*serving on \(http://[^/ ]*\).*|\1|p' "$DRAINBOARD_CLUSTER_DIR/bench-$name.out"
}
: > "$DRAINBOARD_CLUSTER_DIR/bench-pids"
prev_cleanup=$(declare -f cleanup | tail -n +2)
cleanup() { xargs -r kill < "$DRAINBOARD_CLUSTER_DIR/bench-pids" 2>/dev/null || true; eval "$prev_cleanup"; }
fast_url=$(start_server default)
polite_url=$(start_server polite --api-qps 5 --api-burst 10)

load() { # a fresh Deployment of $pods pods on the node, all Ready
  kc delete deployment -n "$ns" load --ignore-not-found --wait=true >/dev/null
  kc wait --for=delete pod -n "$ns" -l app=load --timeout=120s >/dev/null 2>&1 || true
  kc uncordon "$node" >/dev/null
  kc apply -n "$ns" -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: load}
spec:
  replicas: $pods
  selector: {matchLabels: {app: load}}
  template:
    metadata: {labels: {app: load}}
    spec:
      nodeSelector: {drainboard.dev/pool: bench}
      tolerations: [{key: drainboard.dev/bench, operator: Exists, effect: NoSchedule}]
      containers: [{name: c, image: nginx:1.27}]
YAML
  kc rollout status -n "$ns" deployment/load --timeout=180s >/dev/null
  local on_node; on_node=$(kc get pods -n "$ns" --field-selector "spec.nodeName=$node,status.phase=Running" -o name | wc -l)
  [ "$on_node" -eq "$pods" ] || { echo "expected $pods pods on $node, found $on_node" >&2; exit 1; }
}

now() { date +%s.%N; }
since() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.3f}')" "$1" "$2"; }

run_kubectl() {
  local t0; t0=$(now)
  kc drain "$node" --ignore-daemonsets --delete-emptydir-data >/dev/null 2>&1
  since "$t0" "$(now)"
}

run_drainboard() { # run_drainboard URL
  local url=$1 t0 id last; t0=$(now)
  id=$(curl -sf -X POST -H @"$DRAINBOARD_CLUSTER_DIR/bench-auth" -H 'content-type: application/json' "$url/api/drains/start" \
    -d "{\"node\":\"$node\",\"options\":{\"ignore_daemonsets\":true,\"delete_emptydir_data\":true},\"reason\":\"benchmark\",\"confirm\":\"$node\"}" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
  # The event stream ends when the drain does; its last event is the final state.
  last=$(curl -sfN -H @"$DRAINBOARD_CLUSTER_DIR/bench-auth" "$url/api/drains/$id/events" | grep '^data:' | tail -1)
  local t1; t1=$(now)
  echo "$last" | grep -q '"state":"Drained"' || { echo "drainboard did not report Drained: ${last:0:300}" >&2; exit 1; }
  since "$t0" "$t1"
}

median() { sort -n | awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'; }

k_times=() d_times=() p_times=()
for round in $(seq 1 "$rounds"); do
  # Rotate which goes first, so that none always runs on a warmer cluster.
  case $((round % 3)) in
    1) order="drainboard kubectl polite" ;;
    2) order="kubectl polite drainboard" ;;
    0) order="polite drainboard kubectl" ;;
  esac
  for tool in $order; do
    load
    left_before=$(kc get pods -n "$ns" --field-selector "spec.nodeName=$node" -o name | wc -l)
    case $tool in
      kubectl) t=$(run_kubectl); k_times+=("$t") ;;
      drainboard) t=$(run_drainboard "$fast_url"); d_times+=("$t") ;;
      polite) t=$(run_drainboard "$polite_url"); p_times+=("$t") ;;
    esac
    left=$(kc get pods -n "$ns" --field-selector "spec.nodeName=$node" -o name | wc -l)
    [ "$left" -eq 0 ] || { echo "$tool left $left pods on $node" >&2; exit 1; }
    printf 'round %d %-10s %6.2f s (%d pods drained)\n' "$round" "$tool" "$t" "$left_before"
  done
done
km=$(printf '%s\n' "${k_times[@]}" | median)
dm=$(printf '%s\n' "${d_times[@]}" | median)
pm=$(printf '%s\n' "${p_times[@]}" | median)
printf 'median: kubectl %.2f s, drainboard %.2f s (ratio %.3f), drainboard at kubectl pace %.2f s (ratio %.3f)\n' \
  "$km" "$dm" "$(python3 -c "print($dm / $km)")" "$pm" "$(python3 -c "print($pm / $km)")"
