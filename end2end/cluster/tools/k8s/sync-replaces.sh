#!/usr/bin/env bash
# Regenerates this module's staging `replace` lines from the pinned k8s.io/kubernetes go.mod itself, so the list is
# never copied by hand. k8s.io/kubernetes requires every staging module at v0.0.0 and points it at ./staging/...;
# Go ignores that in a dependency, so each staging module is pinned to its published v0.<minor>.<patch> tag here.
# Run after changing KUBERNETES_VERSION in ../versions.env.
set -euo pipefail
cd "$(dirname "$0")"
source ../versions.env
export GOTOOLCHAIN=local GOFLAGS=-mod=mod
staging_version="v0.${KUBERNETES_VERSION#v1.}"
gomod=$(go mod download -json "k8s.io/kubernetes@${KUBERNETES_VERSION}" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
go mod edit -require="k8s.io/kubernetes@${KUBERNETES_VERSION}"
# Drop any old staging replaces, then add one per `k8s.io/x => ./staging/src/k8s.io/x` line upstream.
for old in $(go mod edit -json | sed -n 's/.*"Path": "\(k8s.io\/[^"]*\)".*/\1/p' | sort -u); do
  go mod edit -dropreplace="$old" 2>/dev/null || true
done
grep -oE 'k8s\.io/[a-z0-9-]+ => \./staging/src/k8s\.io/[a-z0-9-]+' "$gomod" | awk '{print $1}' | sort -u |
  while read -r mod; do go mod edit -replace="${mod}=${mod}@${staging_version}"; done
go mod tidy
