#!/usr/bin/env bash
# Server memory of the cluster caches: a small cluster, then 1,000 nodes, then 1,000 nodes and 30,000 pods.
#
#   end2end/bench/cache-memory.sh [--nodes 1000] [--pods 30000] [--rounds 2]
#
# Starts a local control plane of its own (end2end/cluster/cluster.sh, stopped at exit), and measures three sizes
# one after the other in that cluster:
#   small  4 nodes, 40 pods
#   nodes  N nodes, 40 pods          (the difference to small: N nodes and their Leases)
#   full   N nodes, P pods           (the difference to nodes: P pods)
# At each size it starts a fresh drainboard server (DRAINBOARD_BIN, LEPTOS_SITE_ROOT) `rounds` times, waits until
# `POST /api/board` answers 200 with every card and `GET /metrics` shows the watches started, lets it settle
# 5 s, and reads VmRSS and VmHWM from /proc/PID/status. The reference, at the same size in the same run, is the
# pinned kubectl holding the same objects whole: `kubectl get nodes,pods,leases -A -o json`, its max RSS
# (/usr/bin/time) and the size of its output.
#
# Nodes and pods are written by populate.py (beside this script): pods are bound to their node at creation and
# marked Running and Ready through the status subresource, as kwok would. Everything runs under `nice -n 10`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
nodes=1000 pods=30000 rounds=2
while [ $# -gt 0 ]; do
  case $1 in
    --nodes) nodes=$2; shift 2 ;;
    --pods) pods=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) echo "usage: $0 [--nodes N] [--pods P] [--rounds R]" >&2; exit 2 ;;
  esac
done
DRAINBOARD_BIN=${DRAINBOARD_BIN:-$root/target/debug/drainboard}
export LEPTOS_SITE_ROOT=${LEPTOS_SITE_ROOT:-$root/target/site}
[ -x "$DRAINBOARD_BIN" ] || { echo "no drainboard binary at $DRAINBOARD_BIN (set DRAINBOARD_BIN)" >&2; exit 1; }
log() { echo "cache-memory: $*" >&2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cache-memory.XXXXXX")
dir=""
cleanup() {
  # measure_server runs in a command substitution (a subshell), so its server's PID is kept in a file.
  [ ! -s "$work/server.pid" ] || kill "$(cat "$work/server.pid")" 2>/dev/null || true
  [ -z "$dir" ] || nice -n 10 "$root/end2end/cluster/cluster.sh" down "$dir" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# Local mode's lock: the servers started here share one secret for this run (DRAINBOARD_LOCAL_TOKEN), and curl
# sends it as a bearer token from a file readable by the owner only (not on its command line, which ps shows).
DRAINBOARD_LOCAL_TOKEN=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n'); export DRAINBOARD_LOCAL_TOKEN
(umask 077 && printf 'Authorization: Bearer %s\n' "$DRAINBOARD_LOCAL_TOKEN" > "$work/auth")

# Grace 300 s: kwok renews each Lease every 60 s (1,000 nodes: about 17 renewals a second), not every 2 s.
dir=$(nice -n 10 "$root/end2end/cluster/cluster.sh" up --nodes 4 --zones 4 --grace-seconds 300 --toleration-seconds 300)
# shellcheck disable=SC1091
source "$dir/cluster.env"
export KUBECONFIG
kubectl() { "$DRAINBOARD_CLUSTER_BIN/kubectl" --kubeconfig "$KUBECONFIG" "$@"; }
populate() { nice -n 10 python3 "$here/populate.py" "$dir" "$@"; }

kb() { grep "^$1:" "/proc/$2/status" | awk '{print $2}'; }
mb() { awk -v k="$1" 'BEGIN { printf "%.1f MiB", k / 1024 }'; }

# measure_server LABEL: one fresh server; prints "LABEL load_s rss_kb hwm_kb board_bytes cards"
measure_server() {
  local out=$work/server.out err=$work/server.err url=""
  nice -n 10 "$DRAINBOARD_BIN" --addr 127.0.0.1:0 --kubeconfig "$KUBECONFIG" --node-monitor-grace-period 300s \
    >"$out" 2>"$err" &
  server_pid=$!; echo "$server_pid" >"$work/server.pid"
  for _ in $(seq 1 300); do
    url=$(sed -n 's|.*serving on \(http://[^/ ]*\).*|\1|p' "$out"); [ -z "$url" ] || break; sleep 0.1
  done
  [ -n "$url" ] || { log "server did not start"; cat "$err" >&2; exit 1; }
  local t0; t0=$(date +%s.%N)
  # Ready = the event stream's first board, which comes once the cache has listed everything and computed the
  # cards. Not by polling `POST /api/board` meanwhile: a request that waits for the first list while the cache's
  # own card task waits too takes that task's wake-up, and the live board then never starts (see BENCHMARKS.md).
  # The time is taken when the event line arrives; curl itself ends only at its next write (a keep-alive comment
  # comes every 15 s), of SIGPIPE, hence the `|| true`.
  rm -f "$work/ready_at"
  (timeout 600 curl -sN -H @"$work/auth" "$url/api/board/events" || true) | while IFS= read -r line; do
    if [[ $line == "event: board"* ]]; then date +%s.%N >"$work/ready_at"; break; fi
  done
  [ -s "$work/ready_at" ] || { log "no board event within 600 s"; exit 1; }
  local load; load=$(awk -v a="$t0" -v b="$(cat "$work/ready_at")" 'BEGIN { printf "%.1f", b - a }')
  [ "$(curl -sS -H @"$work/auth" -o "$work/board.json" -w '%{http_code}' -X POST --max-time 120 "$url/api/board")" = 200 ] ||
    { log "POST /api/board: $(head -c 300 "$work/board.json")"; exit 1; }
  # 3 watches (nodes, pods, Leases), 4 in builds that also watch PodDisruptionBudgets.
  curl -fsS -H @"$work/auth" "$url/metrics" | grep -Eq '^drainboard_watches_started_total [34]$' ||
    { log "unexpected /metrics:"; curl -sS -H @"$work/auth" "$url/metrics" >&2; exit 1; }
  sleep 5
  local rss hwm cards bytes
  rss=$(kb VmRSS "$server_pid"); hwm=$(kb VmHWM "$server_pid")
  bytes=$(stat -c %s "$work/board.json"); cards=$(jq '.upsert | length' "$work/board.json")
  if grep -qE 'WARN|ERROR' "$err"; then log "  server log has warnings:"; grep -E 'WARN|ERROR' "$err" | tail -3 >&2; fi
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""; rm -f "$work/server.pid"
  echo "$1 $load $rss $hwm $bytes $cards"
}

# measure_kubectl: prints "max_rss_kb seconds json_bytes nodes pods leases"
measure_kubectl() {
  ( cd "$work" && nice -n 10 /usr/bin/time -f '%M %e' -o "$work/time" \
      "$DRAINBOARD_CLUSTER_BIN/kubectl" --kubeconfig "$KUBECONFIG" get nodes,pods,leases -A -o json >"$work/all.json" )
  local counts
  counts=$(jq -r '[.items[].kind] | [map(select(. == "Node")), map(select(. == "Pod")), map(select(. == "Lease"))]
    | map(length) | @tsv' "$work/all.json")
  echo "$(cat "$work/time") $(stat -c %s "$work/all.json") $counts"
  rm -f "$work/all.json"
}

results=()
measure_size() { # LABEL
  local r line
  for r in $(seq 1 "$rounds"); do
    line=$(measure_server "$1"); log "  server round $r: $line"; results+=("server $line")
  done
  line=$(measure_kubectl); log "  kubectl: $line"; results+=("kubectl $1 $line")
}

log "size small: 4 nodes, 40 pods"
populate pods --count 40
measure_size small
log "size nodes: $nodes nodes, 40 pods"
populate nodes --to "$nodes"
# One list per second until all are Ready (`kubectl wait --all` makes one client-throttled request per node).
for _ in $(seq 1 300); do
  kubectl get nodes -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' |
    grep -qv '^True$' || break
  sleep 1
done
measure_size nodes
log "size full: $nodes nodes, $pods pods"
pod_start=$SECONDS
populate pods --count "$pods"
log "  $pods pods created and Running in $((SECONDS - pod_start)) s"
sleep 30  # let kwok and the controllers finish reacting to the new pods
measure_size full

# The table: server figures are the median over rounds (lower middle for an even count).
echo
echo "size | objects (nodes/pods/leases) | drainboard VmRSS | VmHWM | cache load | board JSON | kubectl max RSS | kubectl JSON | kubectl time"
echo "---|---|---|---|---|---|---|---|---"
declare -A rss_of
for size in small nodes full; do
  read -r _ _ kc_rss kc_s kc_bytes n p l < <(printf '%s\n' "${results[@]}" | grep "^kubectl $size ")
  mapfile -t rows < <(printf '%s\n' "${results[@]}" | grep "^server $size " | sort -k4 -n)
  read -r _ _ load rss hwm bytes cards <<<"${rows[$(( (${#rows[@]} - 1) / 2 ))]}"
  rss_of[$size]=$rss
  echo "$size | $n/$p/$l | $(mb "$rss") | $(mb "$hwm") | ${load} s | $(mb $((bytes / 1024))) ($cards cards) | $(mb "$kc_rss") | $(mb $((kc_bytes / 1024))) | ${kc_s} s"
done
echo
echo "all server rounds (size load_s rss_kb hwm_kb board_bytes cards):"
printf '%s\n' "${results[@]}" | grep '^server' | sed 's/^server /  /'
echo
echo "nodes+leases: $(mb $(( rss_of[nodes] - rss_of[small] ))) for $nodes nodes (VmRSS difference nodes - small)"
echo "pods: $(awk -v d=$(( rss_of[full] - rss_of[nodes] )) -v p="$pods" 'BEGIN { printf "%.1f MiB for %d pods, %.2f MiB per 1,000 pods", d / 1024, p - 40, d / 1024 / (p - 40) * 1000 }') (VmRSS difference full - nodes)"
