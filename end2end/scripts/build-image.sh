#!/usr/bin/env bash
# Builds Drainboard's container image on a machine that can build containers but cannot pull base images, and
# checks it as a kubelet would run it.
#
#   end2end/scripts/build-image.sh [--check DRAINBOARD_CLUSTER_DIR] [--tag NAME]
#
# 1. The server for musl (statically linked) and the release site, precompressed, on this machine.
# 2. The image from deploy/Containerfile.prebuilt (the Dockerfile's last stage: an empty base, user 65532) with
#    podman or buildah, whichever is installed.
# 3. With --check: the image's own files, unpacked from `podman save`, run as they would in a pod, with no
#    container runtime (a kubelet-like sandbox is not available on every machine): the root is the image's and
#    nothing else (chroot), the user is 65532, the root is read-only, and the ServiceAccount token of deploy/'s
#    ServiceAccount is where the kubelet mounts it. The server must take the in-cluster config, get ready, and
#    serve the sign-in page from the image's site. Needs root (chroot, a mount namespace) and a local cluster.
#
# Prints what it built and checked; exits non-zero at the first failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$root/end2end/node_modules/.bin:$PATH"

tag=localhost/drainboard:dev check=""
while [ $# -gt 0 ]; do
  case $1 in
    --check) check=$2; shift 2 ;;
    --tag) tag=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "build-image: unknown argument $1" >&2; exit 2 ;;
  esac
done
builder=$(command -v podman || command -v buildah || true)
[ -n "$builder" ] || { echo "build-image: neither podman nor buildah is installed (apt-get install podman)" >&2; exit 1; }
say() { echo "build-image: $*" >&2; }

# 1. The static server and the release site, in a site root of their own so that ./run's and the tests' stay.
target=x86_64-unknown-linux-musl
# As ./run's release build, views' types erased.
end2end/scripts/build-site.sh --release --site target/site-image --server-target "$target" >&2
context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
mkdir -p "$context/etc"
cp "target/$target/release/drainboard" "$context/drainboard"
strip "$context/drainboard"
cp -r target/site-image "$context/site"
echo 'drainboard:x:65532:65532:drainboard:/nonexistent:/sbin/nologin' > "$context/etc/passwd"
echo 'drainboard:x:65532:' > "$context/etc/group"
if ! file "$context/drainboard" | grep -qE 'static(-pie)? linked'; then
  echo "build-image: the server is not statically linked: $(file "$context/drainboard")" >&2
  exit 1
fi

# 2. The image.
"$builder" build --quiet -f deploy/Containerfile.prebuilt -t "$tag" "$context" >/dev/null
say "built $tag with $builder"
podman image inspect "$tag" --format 'user={{.Config.User}} entrypoint={{.Config.Entrypoint}} size={{.Size}} bytes' >&2

[ -n "$check" ] || exit 0

# 3. Run the image's own files as a pod would.
export KUBECONFIG=$check/admin.kubeconfig
kubectl=$root/.cache/cluster/bin/kubectl
rootfs=$context/rootfs
mkdir -p "$rootfs"
podman save --format docker-archive -o "$context/image.tar" "$tag"
mkdir -p "$context/archive"
tar -xf "$context/image.tar" -C "$context/archive"
for layer in $(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))[0]["Layers"]))' "$context/archive/manifest.json"); do
  tar -xf "$context/archive/$layer" -C "$rootfs"
done
files=$(cd "$rootfs" && find . -mindepth 1 -maxdepth 1 | sort | tr '\n' ' ')
say "the image holds: $files"
[ "$files" = "./drainboard ./etc ./site " ] || { echo "build-image: unexpected files in the image: $files" >&2; exit 1; }

"$kubectl" apply -f deploy/namespace.yaml -f deploy/serviceaccount.yaml >/dev/null
secrets=$context/serviceaccount
mkdir -p "$secrets"
"$kubectl" create token drainboard -n drainboard --duration=10m > "$secrets/token"
cp "$check/pki/ca.crt" "$secrets/ca.crt"
echo drainboard > "$secrets/namespace"
chmod -R a+rX "$secrets"
server=$("$kubectl" config view --minify -o 'jsonpath={.clusters[0].cluster.server}')
host=${server#https://}; port=${host##*:}; host=${host%:*}
probe=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
log=$context/server.log
# The pod's environment: the image's own, and the API server as the kubelet names it.
export KUBERNETES_SERVICE_HOST=$host KUBERNETES_SERVICE_PORT=$port LEPTOS_SITE_ROOT=/site NO_COLOR=1 HOME=/nonexistent
unset KUBECONFIG
# A private mount namespace: the image's root made read-only, the token mounted where the kubelet puts it.
# shellcheck disable=SC2016
unshare --mount --propagation private sh -c '
  set -e
  mkdir -p "$1/var/run/secrets/kubernetes.io/serviceaccount"
  mount --bind "$1" "$1" && mount -o remount,bind,ro "$1"
  mount --bind "$2" "$1/var/run/secrets/kubernetes.io/serviceaccount"
  exec chroot --userspec=65532:65532 "$1" /drainboard --team --insecure-http --addr 127.0.0.1:0 \
    --probe-addr "127.0.0.1:$3" --namespace drainboard
' sh "$rootfs" "$secrets" "$probe" \
  > "$log" 2>&1 &
pid=$!
stop() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
trap 'stop; rm -rf "$context"' EXIT
ready=""
for _ in $(seq 1 60); do
  if curl -fsS "http://127.0.0.1:$probe/readyz" >/dev/null 2>&1; then ready=yes; break; fi
  kill -0 "$pid" 2>/dev/null || break
  sleep 1
done
[ -n "$ready" ] || { echo "build-image: the server in the image never got ready:" >&2; cat "$log" >&2; exit 1; }
url=$(grep -o 'serving on http://[^ ]*' "$log" | head -1 | cut -d' ' -f3)
grep -q "the pod's service account (in-cluster)" "$log" || { echo "build-image: not the in-cluster config:" >&2; cat "$log" >&2; exit 1; }
page=$(curl -fsS "$url/sign-in")
echo "$page" | grep -q 'data-testid="sign-in"' || { echo "build-image: no sign-in page from the image's site" >&2; exit 1; }
wasm=$(echo "$page" | grep -o '/pkg/drainboard[^"]*\.wasm' | head -1)
encoding=$(curl -fsS -o /dev/null -D - -H 'Accept-Encoding: br' "$url${wasm:-/pkg/drainboard.wasm}" | tr -d '\r' | awk -F': ' 'tolower($1)=="content-encoding" {print $2}')
[ "$encoding" = br ] || { echo "build-image: the image's wasm is not served precompressed (got '$encoding')" >&2; exit 1; }
# unshare, sh and chroot each exec the next: the process started is the server.
uid=$(awk '/^Uid:/ {print $2}' "/proc/$pid/status")
[ "$uid" = 65532 ] || { echo "build-image: the server runs as uid $uid, not 65532" >&2; exit 1; }
say "checked: static binary, files $files, user $uid, read-only root, in-cluster ServiceAccount, ready, sign-in page and br wasm from /site"
