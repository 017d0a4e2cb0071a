#!/usr/bin/env bash
# Builds the local control plane's binaries from the Go module proxy into an ignored folder:
#   kube-apiserver, kube-controller-manager, kube-scheduler, kubectl (same version, the parity reference),
#   etcd, kwok, and kwok's stage definitions; and Alertmanager, which the maintenance windows' gates ask.
# Skips the work when the binaries were built from the same pins (a stamp of the inputs).
# Prints the binary folder on stdout; everything else goes to stderr.
#   build.sh [--without-alertmanager]   the demo cluster of ./run has no use for Alertmanager: not built for it
#   build.sh --promtool                 promtool alone, which ./test-all checks the alert rules with
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${DRAINBOARD_CLUSTER_BIN:-$root/.cache/cluster/bin}
source "$here/tools/versions.env"
export CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS="-trimpath -mod=mod"

stamp_inputs() {
  cat "$here/tools/versions.env" "$here/build.sh" "$here"/tools/{k8s,etcd,kwok}/go.{mod,sum} | sha256sum | cut -d' ' -f1
}
mkdir -p "$bin"

# promtool, from the Prometheus module pinned in tools/promtool: only when asked, with a stamp of its own.
if [ "${1:-}" = --promtool ]; then
  pt_want=$(cat "$here"/tools/promtool/go.mod "$here"/tools/promtool/go.sum | sha256sum | cut -d' ' -f1)
  if [ ! -x "$bin/promtool" ] || [ "$(cat "$bin/.stamp-promtool" 2>/dev/null)" != "$pt_want" ]; then
    echo "building promtool (slow the first time)" >&2
    go build -C "$here/tools/promtool" -ldflags "-s -w" -o "$bin/" tool
    echo "$pt_want" > "$bin/.stamp-promtool"
  fi
  echo "$bin"; exit 0
fi

# Alertmanager, the maintenance windows' real companion, has a stamp of its own: a change to it does not rebuild
# Kubernetes, nor the other way round.
alertmanager=yes
[ "${1:-}" != --without-alertmanager ] || alertmanager=no
am_want=$(cat "$here/tools/versions.env" "$here"/tools/alertmanager/go.mod "$here"/tools/alertmanager/go.sum | sha256sum | cut -d' ' -f1)
if [ "$alertmanager" = yes ] && { [ ! -f "$bin/.stamp-alertmanager" ] || [ "$(cat "$bin/.stamp-alertmanager")" != "$am_want" ]; }; then
  echo "building Alertmanager $ALERTMANAGER_VERSION" >&2
  go build -C "$here/tools/alertmanager" -ldflags "-s -w" -o "$bin/" tool
  echo "$am_want" > "$bin/.stamp-alertmanager"
fi

want=$(stamp_inputs)
if [ -f "$bin/.stamp" ] && [ "$(cat "$bin/.stamp")" = "$want" ]; then
  echo "control-plane binaries up to date in $bin" >&2
  echo "$bin"; exit 0
fi
rm -f "$bin/.stamp"

# Version stamping as upstream's hack/lib/version.sh does, so `--version` and /version report the pinned release.
minor=$(echo "$KUBERNETES_VERSION" | cut -d. -f2)
build_date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
ldflags="-s -w"
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags="$ldflags -X $p.gitVersion=$KUBERNETES_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor"
  ldflags="$ldflags -X $p.gitTreeState=clean -X $p.buildDate=$build_date"
done

echo "building Kubernetes $KUBERNETES_VERSION servers and kubectl (slow the first time)" >&2
go build -C "$here/tools/k8s" -p 2 -ldflags "$ldflags" -o "$bin/" tool
echo "building etcd $ETCD_VERSION" >&2
go build -C "$here/tools/etcd" -ldflags "-s -w" -o "$bin/etcd" go.etcd.io/etcd/server/v3
echo "building kwok $KWOK_VERSION" >&2
go build -C "$here/tools/kwok" -ldflags "-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=$KWOK_VERSION" -o "$bin/" tool

# kwok has no built-in stages since v0.8.0: take them from the pinned module and concatenate the ones we use.
kwok_dir=$(go list -C "$here/tools/kwok" -m -f '{{.Dir}}' sigs.k8s.io/kwok)
{
  for f in node/fast/node-initialize node/heartbeat-with-lease/node-heartbeat-with-lease node/chaos/node-not-ready \
           pod/fast/pod-ready pod/fast/pod-complete pod/fast/pod-delete; do
    cat "$kwok_dir/kustomize/stage/$f.yaml"; echo '---'
  done
} > "$bin/kwok-stages.yaml"

echo "$want" > "$bin/.stamp"
echo "control-plane binaries built in $bin" >&2
echo "$bin"
