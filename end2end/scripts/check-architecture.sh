#!/usr/bin/env bash
# The rules of ARCHITECTURE.md that a machine can check: which crate may depend on what, and files that fit on a
# screen. Fails naming the rule that broke.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
fail=0
broke() { echo "check-architecture: $*" >&2; fail=1; }

deps() { cargo tree -p "$1" -e normal --prefix none "${@:2}" 2>/dev/null | awk '{print $1}' | sort -u; }

deps engine | grep -qi '^leptos' && broke "engine depends on Leptos (cargo tree -p engine -e normal)"
deps domain | grep -qE '^(kube|tokio|leptos)' && broke "domain depends on I/O or UI crates"
# kube_quantity only parses quantities (no client, no I/O); anything else named kube* is the client's.
deps domain --features k8s | grep -vx kube_quantity | grep -qE '^(kube|tokio|leptos)' &&
  broke "domain (k8s) depends on I/O or UI crates"
deps app --features hydrate --target wasm32-unknown-unknown | grep -qE '^(kube|k8s-openapi|engine|tokio)$' &&
  broke "the browser build pulls in Kubernetes or the engine"

while read -r lines file; do
  [ "$file" = total ] && continue
  [ "$lines" -le 400 ] || broke "$file has $lines lines (at most 400)"
done < <(find app/src -name '*.rs' -print0 | xargs -0 wc -l)

[ "$fail" = 0 ] && echo "check-architecture: ok" >&2
exit "$fail"
