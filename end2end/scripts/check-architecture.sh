#!/usr/bin/env bash
# The rules of ARCHITECTURE.md that a machine can check: which crate may depend on what, files that fit in a
# reader's head, and imports that run one way. Fails naming the rule that broke and how to mend it.
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

# Small rooms: at most 300 lines of code a file, comments, blank lines and `#[cfg(test)]` items aside (why 300:
# ARCHITECTURE.md, Rules).
over=$(python3 end2end/scripts/code-lines.py 300 app/src engine/src domain/src) ||
  broke "files over the cap; split each by concern into a module of its own (a directory with a file per concern, the
  parent re-exporting what callers use); moving tests or comments out does not help, they are not counted:
$over"

# No import circle between the files of one crate (a file that names another's item depends on it). The reader of
# modules first proves itself on a made-up crate with known circles.
python3 end2end/scripts/import-cycles.py --self-test >/dev/null || broke "import-cycles.py --self-test fails"
circles=$(python3 end2end/scripts/import-cycles.py app/src engine/src domain/src server/src) ||
  broke "import circles; move what both files need into a room of its own that imports neither (or into the file
  lower down), so that the imports run one way:
$circles"

# Base images by digest (Dockerfile, header comment): a FROM of a registry image without @sha256: would build
# whatever the tag names that day. A stage's own name and scratch are not pulled.
unpinned=$(awk 'toupper($1) == "FROM" { for (i = 2; i <= NF; i++) if ($i !~ /^--/) { print $i; break } }' Dockerfile |
  grep -vE '@sha256:[0-9a-f]{64}$' | grep -vx scratch |
  grep -vxF -f <(awk 'toupper($1) == "FROM" && toupper($(NF-1)) == "AS" { print $NF }' Dockerfile) || true)
[ -z "$unpinned" ] || broke "the Dockerfile pulls base images by tag only; add the digest (its header says how):
$unpinned"

[ "$fail" = 0 ] && echo "check-architecture: ok" >&2
exit "$fail"
