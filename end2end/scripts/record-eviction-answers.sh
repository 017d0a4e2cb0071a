#!/usr/bin/env bash
# Records the API server's own answers to the evictions a drain tells apart, byte for byte as it writes them, for
# the unit test of the eviction classifier (engine/src/drain/evict.rs reads engine/src/drain/answers/*.json). Needs
# curl and jq.
#
#   record-eviction-answers.sh CLUSTER_DIR [OUT_DIR]
#
# CLUSTER_DIR is a local control plane (end2end/cluster/cluster.sh up). Each answer is made for real: a budget at
# zero, two budgets over one pod, a pod that is not there, a namespace being deleted, a person RBAC refuses, and
# credentials the API server does not know. Answers that cannot be made on demand (priority and fairness' 429, a
# shutting-down API server's 503, a budget still being processed) stay written by hand in the test, and say so.
set -euo pipefail
D=${1:?usage: record-eviction-answers.sh CLUSTER_DIR [OUT_DIR]}
out=${2:-$(dirname "$0")/../../engine/src/drain/answers}
set -a; source "$D/cluster.env"; set +a
mkdir -p "$out"
ns=record-answers
k() { "$DRAINBOARD_CLUSTER_BIN/kubectl" --kubeconfig "$KUBECONFIG" "$@"; }

tmp=$(mktemp -d)
# Sends an eviction of POD in NAMESPACE, with the extra curl arguments given (credentials), and prints the answer
# as the drain reads it: the HTTP status, the Retry-After header's value (null when none) and the body.
evict() {
  local namespace=$1 pod=$2; shift 2
  local code
  code=$(curl -sS --cacert "$D/pki/ca.crt" "$@" -H 'Content-Type: application/json' -H 'Accept: application/json' \
    -X POST -D "$tmp/headers" -o "$tmp/body" -w '%{http_code}' \
    --data "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":{\"name\":\"$pod\",\"namespace\":\"$namespace\"}}" \
    "$APISERVER_URL/api/v1/namespaces/$namespace/pods/$pod/eviction")
  local retry
  retry=$(tr -d '\r' <"$tmp/headers" | sed -n 's/^[Rr]etry-[Aa]fter: *//p')
  jq -n --argjson code "$code" --arg retry "$retry" --slurpfile body "$tmp/body" \
    '{code: $code, retryAfter: (if $retry == "" then null else ($retry | tonumber) end), body: $body[0]}'
}
admin=(--cert "$D/pki/admin.crt" --key "$D/pki/admin.key")
# Saves the answer as NAME.json, after checking its code: a recording of the wrong answer must not pass.
record() {
  local name=$1 code=$2 body=$3
  [[ $(jq -r .code <<<"$body") == "$code" && $(jq -r .body.code <<<"$body") == "$code" ]] ||
    { echo "$name: expected $code, got: $body" >&2; exit 1; }
  jq . <<<"$body" >"$out/$name.json"
  echo "recorded $name ($code)"
}
budget() {
  k apply -n "$ns" -f - >/dev/null <<YAML
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: $1}
spec: {minAvailable: 1, selector: {matchLabels: {app: web}}}
YAML
  k wait -n "$ns" --for=jsonpath='{.status.currentHealthy}'=1 "pdb/$1" --timeout=60s >/dev/null
}

cleanup() {
  k patch -n "$ns-gone" pod held --type=merge -p '{"metadata":{"finalizers":null}}' >/dev/null 2>&1 || true
  k delete namespace "$ns" "$ns-gone" --wait=false >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT

k create namespace "$ns" >/dev/null
k create deployment web -n "$ns" --image=nginx --replicas=1 >/dev/null
k wait -n "$ns" --for=condition=Available deployment/web --timeout=60s >/dev/null
pod=$(k get pods -n "$ns" -l app=web -o jsonpath='{.items[0].metadata.name}')

budget web-pdb
record budget-at-zero 429 "$(evict "$ns" "$pod" "${admin[@]}")"
budget web-pdb-again
k wait -n "$ns" --for=jsonpath='{.status.disruptionsAllowed}'=0 pdb/web-pdb-again --timeout=60s >/dev/null
record two-budgets 500 "$(evict "$ns" "$pod" "${admin[@]}")"
record gone 404 "$(evict "$ns" no-such-pod "${admin[@]}")"
record rbac 403 "$(evict "$ns" "$pod" "${admin[@]}" -H 'Impersonate-User: ann')"
record unauthorized 401 "$(evict "$ns" "$pod" -H 'Authorization: Bearer not-a-token-this-server-knows')"

# A namespace being deleted, held by a pod's finalizer: the eviction is refused with the NamespaceTerminating cause.
k create namespace "$ns-gone" >/dev/null
k apply -n "$ns-gone" -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: held, finalizers: [drainboard.dev/record-answers]}
spec: {containers: [{name: c, image: nginx}]}
YAML
k delete namespace "$ns-gone" --wait=false >/dev/null
k wait --for=jsonpath='{.status.phase}'=Terminating "namespace/$ns-gone" --timeout=30s >/dev/null
record namespace-terminating 403 "$(evict "$ns-gone" held "${admin[@]}")"
