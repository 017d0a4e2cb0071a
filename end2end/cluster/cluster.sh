#!/usr/bin/env bash
# The local control plane: etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok, on loopback,
# in a fresh temp dir with its own PKI. See README.md beside this script.
#
#   cluster.sh up [--nodes N] [--zones Z] [--toleration-seconds S] [--grace-seconds G] [--without-alertmanager]
#       Starts a cluster and waits until every kwok node is Ready. Prints the cluster dir on stdout
#       (its cluster.env holds KUBECONFIG and the PIDs). With Alertmanager (ALERTMANAGER_URL in cluster.env)
#       unless told not to: the tests of the windows' alert gates need it; ./run's demo does not.
#   cluster.sh down DIR            Stops the processes `up` started in DIR (by PID) and removes DIR.
#   cluster.sh seed DIR            Applies the seed workloads and waits until they run.
#   cluster.sh not-ready DIR NODE  The node keeps its heartbeat but reports Ready=False.
#   cluster.sh unreachable DIR NODE  The node's heartbeat stops, so Ready goes Unknown.
#   cluster.sh restore DIR NODE    Undoes not-ready/unreachable.
#   cluster.sh stop-apiserver DIR  SIGKILLs the kube-apiserver, as a crash.
#   cluster.sh start-apiserver DIR Starts it again with the same arguments on the same port; waits for /readyz.
#   cluster.sh wait-controllers DIR  Waits until the controller manager works again (after an outage).
#   cluster.sh restart-controllers DIR  Restarts the controller manager, scheduler and kwok (same command lines), so
#                                  that they need not back off from an outage; then as wait-controllers.
#   cluster.sh pause-etcd DIR      SIGSTOPs etcd: it holds its connections but answers nothing.
#   cluster.sh resume-etcd DIR     SIGCONTs it.
#   cluster.sh stop-alertmanager DIR   SIGKILLs Alertmanager (ALERTMANAGER_URL in cluster.env), as a crash.
#   cluster.sh start-alertmanager DIR  Starts it again on the same port; waits until it is ready.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log() { echo "cluster: $*" >&2; }
die() { echo "cluster: error: $*" >&2; exit 1; }

# The label kwok selects nodes by. Removing it makes kwok let go of the node (its Lease stops being renewed).
KWOK_LABEL_KEY=kwok.x-k8s.io/node
KWOK_LABEL_VALUE=fake

free_ports() { # prints N free loopback ports
  python3 - "$1" <<'PY'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
}

wait_for() { # wait_for SECONDS DESCRIPTION COMMAND...
  local deadline=$((SECONDS + $1)) what=$2; shift 2
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || die "timed out waiting for $what"
    sleep 0.2
  done
}

make_pki() { # make_pki DIR
  local p=$1/pki; mkdir -p "$p"
  (
    cd "$p"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 -subj "/CN=drainboard-local-ca" \
      -keyout ca.key -out ca.crt 2>/dev/null
    issue() { # issue NAME SUBJECT EXTFILE_CONTENT
      openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "$2" -keyout "$1.key" -out "$1.csr" 2>/dev/null
      printf '%s\n' "$3" > "$1.ext"
      openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 30 -extfile "$1.ext" -out "$1.crt" 2>/dev/null
    }
    issue apiserver "/CN=kube-apiserver" "subjectAltName=IP:127.0.0.1,DNS:localhost
extendedKeyUsage=serverAuth
keyUsage=digitalSignature,keyEncipherment"
    issue admin "/O=system:masters/CN=admin" "extendedKeyUsage=clientAuth
keyUsage=digitalSignature,keyEncipherment"
    openssl ecparam -name prime256v1 -genkey -noout -out sa.key 2>/dev/null
  )
}

write_kubeconfig() { # write_kubeconfig DIR PORT
  local d=$1
  cat > "$d/admin.kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: drainboard-local
  cluster:
    server: https://127.0.0.1:$2
    certificate-authority: $d/pki/ca.crt
users:
- name: admin
  user:
    client-certificate: $d/pki/admin.crt
    client-key: $d/pki/admin.key
contexts:
- name: drainboard-local
  context: {cluster: drainboard-local, user: admin}
current-context: drainboard-local
KC
}

start() { # start DIR NAME BINARY ARGS...: runs a component in the background, remembers its PID and command line
  local d=$1 name=$2; shift 2
  mkdir -p "$d/args"
  # Shell-quoted, so that a restart (start-apiserver, restart-controllers) runs the identical command.
  printf '%q ' "$@" > "$d/args/$name"
  "$@" >"$d/logs/$name.log" 2>&1 &
  echo "$!" > "$d/pids/$name"
}

restart_from_args() { # restart_from_args NAME: starts D's component NAME again from its saved command line
  local name=$1 file=$D/args/$1
  [ -f "$file" ] || die "no saved command line for $name in $D"
  local -a args
  eval "args=($(cat "$file"))"
  # Appends to the log, so that the first run's lines stay; a new session, so that it outlives the caller's.
  setsid "${args[@]}" >>"$D/logs/$name.log" 2>&1 </dev/null &
  echo "$!" > "$D/pids/$name"
}

# The kubectl built from the pinned Kubernetes release, so client and server versions match.
kc() { "$BIN/kubectl" --kubeconfig "$D/admin.kubeconfig" "$@"; }

node_manifest() { # node_manifest NAME ZONE
  cat <<YAML
apiVersion: v1
kind: Node
metadata:
  name: $1
  labels:
    $KWOK_LABEL_KEY: $KWOK_LABEL_VALUE
    kubernetes.io/hostname: $1
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
    node-role.kubernetes.io/worker: ""
    node.kubernetes.io/instance-type: m6i.2xlarge
    topology.kubernetes.io/region: local-1
    topology.kubernetes.io/zone: $2
  annotations:
    node.alpha.kubernetes.io/ttl: "0"
status:
  capacity: {cpu: "8", memory: 32Gi, pods: "110", ephemeral-storage: 100Gi}
  allocatable: {cpu: 7910m, memory: 31Gi, pods: "110", ephemeral-storage: 95Gi}
---
YAML
}

cmd_up() {
  local nodes=4 zones=2 toleration=300 grace=10 alertmanager=yes
  while [ $# -gt 0 ]; do
    case $1 in
      --nodes) nodes=$2; shift 2 ;;
      --zones) zones=$2; shift 2 ;;
      --toleration-seconds) toleration=$2; shift 2 ;;
      --grace-seconds) grace=$2; shift 2 ;;
      --without-alertmanager) alertmanager=no; shift ;;
      *) die "unknown option for up: $1" ;;
    esac
  done
  [ "$zones" -ge 2 ] || die "--zones must be at least 2"
  local bin
  if [ "$alertmanager" = yes ]; then bin=$("$here/build.sh"); else bin=$("$here/build.sh" --without-alertmanager); fi
  BIN=$bin
  D=$(mktemp -d "${TMPDIR:-/tmp}/drainboard-cluster.XXXXXX")
  mkdir -p "$D/logs" "$D/pids"
  # If anything below fails, leave nothing running.
  trap 'cmd_down "$D" >/dev/null 2>&1 || true' ERR
  trap 'cmd_down "$D" >/dev/null 2>&1 || true; exit 130' INT TERM
  local started=$SECONDS
  read -r EP PP AP CMP SP AMP < <(free_ports 6)
  make_pki "$D"
  write_kubeconfig "$D" "$AP"

  start "$D" etcd "$bin/etcd" --name=e0 --data-dir="$D/etcd" \
    --listen-client-urls="http://127.0.0.1:$EP" --advertise-client-urls="http://127.0.0.1:$EP" \
    --listen-peer-urls="http://127.0.0.1:$PP" --initial-advertise-peer-urls="http://127.0.0.1:$PP" \
    --initial-cluster="e0=http://127.0.0.1:$PP" --initial-cluster-state=new \
    --unsafe-no-fsync=true --log-level=warn
  wait_for 30 "etcd" curl -fsS "http://127.0.0.1:$EP/health"

  # --advertise-address: any non-loopback address; it only has to exist so the apiserver needs no default route.
  local apiserver=("$bin/kube-apiserver" \
    --etcd-servers="http://127.0.0.1:$EP" --bind-address=127.0.0.1 --secure-port="$AP" \
    --advertise-address=192.0.2.10 --endpoint-reconciler-type=none \
    --tls-cert-file="$D/pki/apiserver.crt" --tls-private-key-file="$D/pki/apiserver.key" \
    --client-ca-file="$D/pki/ca.crt" --authorization-mode=Node,RBAC \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --service-account-signing-key-file="$D/pki/sa.key" --service-account-key-file="$D/pki/sa.key" \
    --service-cluster-ip-range=10.96.0.0/16 --allow-privileged=true \
    --default-not-ready-toleration-seconds="$toleration" --default-unreachable-toleration-seconds="$toleration")
  start "$D" kube-apiserver "${apiserver[@]}"
  wait_for 60 "kube-apiserver /readyz" apiserver_ready "$D" "$AP"

  start "$D" kube-controller-manager "$bin/kube-controller-manager" \
    --kubeconfig="$D/admin.kubeconfig" \
    --authentication-kubeconfig="$D/admin.kubeconfig" --authorization-kubeconfig="$D/admin.kubeconfig" \
    --bind-address=127.0.0.1 --secure-port="$CMP" --leader-elect=false --controllers='*' \
    --service-account-private-key-file="$D/pki/sa.key" --root-ca-file="$D/pki/ca.crt" \
    --node-monitor-period=1s --node-monitor-grace-period="${grace}s" --node-startup-grace-period="${grace}s" \
    --node-eviction-rate=100 --large-cluster-size-threshold=0 --secondary-node-eviction-rate=100 \
    --kube-api-qps=100 --kube-api-burst=200
  start "$D" kube-scheduler "$bin/kube-scheduler" \
    --kubeconfig="$D/admin.kubeconfig" \
    --authentication-kubeconfig="$D/admin.kubeconfig" --authorization-kubeconfig="$D/admin.kubeconfig" \
    --bind-address=127.0.0.1 --secure-port="$SP" --leader-elect=false
  wait_for 60 "kube-controller-manager /healthz" curl -fsSk "https://127.0.0.1:$CMP/healthz"
  wait_for 60 "kube-scheduler /healthz" curl -fsSk "https://127.0.0.1:$SP/healthz"
  wait_for 60 "the default ServiceAccount (controllers running)" kc get serviceaccount default -n default

  # The Lease is renewed every quarter of its duration; keep that well inside the node-monitor grace period.
  local lease=$(( grace * 4 / 5 )); [ "$lease" -ge 4 ] || lease=4
  # kwok's fast stages delete a pod at once. A pod annotated pod-delete.stage.kwok.x-k8s.io/delay (such as "10s")
  # is deleted after that delay instead, as a real pod that takes its time to shut down: the benchmarks use it.
  python3 - "$bin/kwok-stages.yaml" "$D/kwok-stages.yaml" <<'PY'
import sys
delay = '.metadata.annotations["pod-delete.stage.kwok.x-k8s.io/delay"]'
docs = [d for d in open(sys.argv[1]).read().split('---\n') if d.strip()]
for i, doc in enumerate(docs):
    if 'name: pod-delete\n' in doc:
        docs[i] = doc.replace("      operator: 'Exists'\n",
                              f"      operator: 'Exists'\n    - key: '{delay}'\n      operator: 'DoesNotExist'\n", 1)
docs.append(f"""apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-delete-delayed
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'Exists'
    - key: '{delay}'
      operator: 'Exists'
  delay:
    durationMilliseconds: 1000
    durationFrom:
      expressionFrom: '{delay}'
  next:
    delete: true
""")
open(sys.argv[2], 'w').write('---\n'.join(docs))
PY
  start "$D" kwok "$bin/kwok" --kubeconfig="$D/admin.kubeconfig" --config="$D/kwok-stages.yaml" \
    --manage-all-nodes=false --manage-nodes-with-label-selector="$KWOK_LABEL_KEY=$KWOK_LABEL_VALUE" \
    --node-lease-duration-seconds="$lease" --cidr=10.244.0.0/16 --node-ip=192.0.2.20

  local i manifest="" letters=(a b c d e f g h)
  [ "$zones" -le ${#letters[@]} ] || die "--zones must be at most ${#letters[@]}"
  for i in $(seq 1 "$nodes"); do
    manifest+=$(node_manifest "node-$i" "zone-${letters[(i - 1) % zones]}"); manifest+=$'\n'
  done
  printf '%s' "$manifest" | kc apply -f - >/dev/null
  wait_for 60 "all $nodes nodes Ready" kc wait --for=condition=Ready node --all --timeout=1s
  # Drainboard's own resource, as deploy/ installs it.
  kc apply -f "$here/../../deploy/crds/maintenanceplan.yaml" -f "$here/../../deploy/crds/maintenancewindow.yaml" >/dev/null
  wait_for 30 "the MaintenancePlan resource" kc wait --for=condition=Established crd/maintenanceplans.drainboard.dev --timeout=1s
  wait_for 30 "the MaintenanceWindow resource" kc wait --for=condition=Established crd/maintenancewindows.drainboard.dev --timeout=1s

  # Alertmanager, which the maintenance windows' alert gates ask: one receiver that sends nothing, no clustering.
  local am_url=""
  if [ "$alertmanager" = yes ]; then
    printf 'route: {receiver: "null", group_wait: 1s}\nreceivers: [{name: "null"}]\n' > "$D/alertmanager.yml"
    start "$D" alertmanager "$bin/alertmanager" --config.file="$D/alertmanager.yml" --storage.path="$D/alertmanager" \
      --web.listen-address="127.0.0.1:$AMP" --cluster.listen-address=
    wait_for 30 "Alertmanager ready" curl -fsS "http://127.0.0.1:$AMP/-/ready"
    am_url=http://127.0.0.1:$AMP
  fi

  cat > "$D/cluster.env" <<ENV
KUBECONFIG=$D/admin.kubeconfig
DRAINBOARD_CLUSTER_DIR=$D
DRAINBOARD_CLUSTER_BIN=$bin
APISERVER_URL=https://127.0.0.1:$AP
NODES=$nodes
ZONES=$zones
TOLERATION_SECONDS=$toleration
NODE_MONITOR_GRACE_SECONDS=$grace
ALERTMANAGER_URL=$am_url
ENV
  trap - ERR INT TERM
  log "up in $((SECONDS - started)) s: $nodes nodes Ready in $zones zones; KUBECONFIG=$D/admin.kubeconfig"
  echo "$D"
}

apiserver_ready() { # apiserver_ready DIR PORT
  curl -fsS --cacert "$1/pki/ca.crt" --cert "$1/pki/admin.crt" --key "$1/pki/admin.key" "https://127.0.0.1:$2/readyz"
}

cmd_down() {
  local d=${1:?usage: down DIR}
  [ -d "$d/pids" ] || die "$d is not a cluster dir made by up"
  # Reverse start order; each process by its own PID only.
  local name pid
  for name in alertmanager kwok kube-scheduler kube-controller-manager kube-apiserver etcd; do
    [ -f "$d/pids/$name" ] || continue
    pid=$(cat "$d/pids/$name")
    kill -TERM "$pid" 2>/dev/null || continue
    # A paused etcd (pause-etcd) would only act on the TERM once continued.
    [ "$name" != etcd ] || kill -CONT "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  rm -rf "$d"
  log "down: stopped and removed $d"
}

load() {
  D=${1:?cluster dir required}
  [ -f "$D/cluster.env" ] || die "$D has no cluster.env"
  BIN=$(sed -n 's/^DRAINBOARD_CLUSTER_BIN=//p' "$D/cluster.env")
}

cmd_seed() {
  load "$1"
  kc apply -f "$here/seed.yaml" >/dev/null
  # A mirror pod cannot come from a controller: it stands for a static pod the kubelet runs on one node.
  kc apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: etcd-backup-node-1
  namespace: kube-system
  annotations:
    kubernetes.io/config.mirror: "seed-static-pod"
    kubernetes.io/config.source: file
spec:
  nodeName: node-1
  containers:
  - name: backup
    image: registry.k8s.io/etcd:3.6.16-0
YAML
  wait_for 120 "seed workloads to run" seed_settled
  log "seed workloads running"
}

seed_settled() { # every seed pod Running, or Succeeded for the Job
  local pending
  pending=$(kc get pods -A -l 'drainboard.dev/seed' -o jsonpath='{range .items[*]}{.status.phase}{"\n"}{end}' |
    grep -cvE '^(Running|Succeeded)$' || true)
  [ "$pending" = 0 ] || return 1
  kc get job -n batch nightly-report -o jsonpath='{.status.succeeded}' | grep -q 1 || return 1
  kc rollout status -n shop deployment/web --timeout=1s && kc rollout status -n data statefulset/db --timeout=1s &&
    kc rollout status -n monitoring daemonset/node-exporter --timeout=1s
}

cmd_not_ready() {
  load "$1"; local node=${2:?node name required}
  kc label node "$node" node-not-ready.stage.kwok.x-k8s.io=true --overwrite >/dev/null
}

cmd_unreachable() {
  load "$1"; local node=${2:?node name required}
  kc label node "$node" "$KWOK_LABEL_KEY-" >/dev/null
}

cmd_restore() {
  load "$1"; local node=${2:?node name required}
  kc label node "$node" node-not-ready.stage.kwok.x-k8s.io- "$KWOK_LABEL_KEY=$KWOK_LABEL_VALUE" --overwrite >/dev/null
}

cmd_stop_apiserver() {
  load "$1"
  local pid; pid=$(cat "$D/pids/kube-apiserver")
  kill -KILL "$pid" 2>/dev/null || die "kube-apiserver (PID $pid) is not running"
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  log "kube-apiserver (PID $pid) killed"
}

cmd_stop_alertmanager() {
  load "$1"
  local pid; pid=$(cat "$D/pids/alertmanager")
  kill -KILL "$pid" 2>/dev/null || die "alertmanager (PID $pid) is not running"
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  log "alertmanager (PID $pid) killed"
}
cmd_start_alertmanager() {
  load "$1"
  local pid; pid=$(cat "$D/pids/alertmanager")
  ! kill -0 "$pid" 2>/dev/null || die "alertmanager (PID $pid) is still running"
  local url; url=$(sed -n 's|^ALERTMANAGER_URL=||p' "$D/cluster.env")
  restart_from_args alertmanager
  wait_for 30 "Alertmanager ready" curl -fsS "$url/-/ready"
  log "alertmanager started again (PID $(cat "$D/pids/alertmanager")) at $url"
}
cmd_start_apiserver() {
  load "$1"
  local pid; pid=$(cat "$D/pids/kube-apiserver")
  ! kill -0 "$pid" 2>/dev/null || die "kube-apiserver (PID $pid) is still running"
  local port; port=$(sed -n 's|^APISERVER_URL=https://127.0.0.1:||p' "$D/cluster.env")
  restart_from_args kube-apiserver
  wait_for 60 "kube-apiserver /readyz" apiserver_ready "$D" "$port"
  log "kube-apiserver started again (PID $(cat "$D/pids/kube-apiserver")) on port $port"
}

cmd_wait_controllers() {
  load "$1"
  local started=$SECONDS probe="cluster-probe-$RANDOM"
  # After an outage the controllers reconnect with client-go's backoff (up to 30 s per try): the cluster is usable
  # again once a new namespace gets its default ServiceAccount from the controller manager.
  kc create namespace "$probe" >/dev/null
  wait_for 120 "the controller manager to reconnect" kc get serviceaccount default -n "$probe"
  kc delete namespace "$probe" --wait=false >/dev/null
  log "controllers working again after $((SECONDS - started)) s"
}

cmd_restart_controllers() {
  load "$1"
  local name pid port
  for name in kube-controller-manager kube-scheduler; do
    pid=$(cat "$D/pids/$name")
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    restart_from_args "$name"
    port=$(grep -o -- '--secure-port=[0-9]*' "$D/args/$name" | cut -d= -f2)
    wait_for 60 "$name /healthz" curl -fsSk "https://127.0.0.1:$port/healthz"
  done
  # kwok too: after an API server outage it reconnects with a backoff of its own (30 s and more) before it marks new
  # pods running; a restart lists everything at once. It is back once it renews a node's Lease again.
  pid=$(cat "$D/pids/kwok")
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  local renewed; renewed=$(node1_renewed)
  restart_from_args kwok
  wait_for 60 "kwok to renew node-1's Lease" renewed_since "$renewed"
  log "controller manager, scheduler and kwok restarted"
  cmd_wait_controllers "$1"
}

node1_renewed() { kc get lease node-1 -n kube-node-lease -o jsonpath='{.spec.renewTime}' 2>/dev/null || true; }
renewed_since() { [ "$(node1_renewed)" != "$1" ]; }

etcd_signal() { # etcd_signal DIR SIGNAL
  load "$1"
  local pid; pid=$(cat "$D/pids/etcd")
  kill "-$2" "$pid" || die "could not send $2 to etcd (PID $pid)"
}

case ${1:-} in
  up) shift; cmd_up "$@" ;;
  down) shift; cmd_down "$@" ;;
  seed) shift; cmd_seed "$@" ;;
  not-ready) shift; cmd_not_ready "$@" ;;
  unreachable) shift; cmd_unreachable "$@" ;;
  restore) shift; cmd_restore "$@" ;;
  stop-apiserver) shift; cmd_stop_apiserver "$@" ;;
  start-apiserver) shift; cmd_start_apiserver "$@" ;;
  wait-controllers) shift; cmd_wait_controllers "$@" ;;
  restart-controllers) shift; cmd_restart_controllers "$@" ;;
  pause-etcd) shift; etcd_signal "$1" STOP; log "etcd paused" ;;
  resume-etcd) shift; etcd_signal "$1" CONT; log "etcd resumed" ;;
  stop-alertmanager) shift; cmd_stop_alertmanager "$@" ;;
  start-alertmanager) shift; cmd_start_alertmanager "$@" ;;
  *) sed -n '2,19p' "$0" >&2; exit 2 ;;
esac
