#!/usr/bin/env bash
# Runs browser and API test files alone, each run against a fresh local control plane of its own, as ./test-all's
# shards do: the one command to run or debug a file.
#   end2end/scripts/test-file.sh end2end/tests/plans.test.mjs [more files] [-- node --test options]
#   end2end/scripts/test-file.sh end2end/tests/plans.test.mjs -- --test-name-pattern='undo'
# Tests the debug build already made (`end2end/scripts/build-site.sh`); builds nothing itself.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$root/end2end/node_modules/.bin:$PATH"

files=() options=()
while [ $# -gt 0 ]; do
  case $1 in
    --) shift; options=("$@"); break ;;
    -h|--help) sed -n '2,6p' "$0"; exit 0 ;;
    *) [ -f "$1" ] || { echo "test-file: no such file: $1" >&2; exit 2; }; files+=("$(realpath "$1")"); shift ;;
  esac
done
[ ${#files[@]} -gt 0 ] || { sed -n '2,6p' "$0" >&2; exit 2; }
[ -x target/debug/drainboard ] && [ -d target/site/pkg ] ||
  { echo "test-file: no debug build: run 'end2end/scripts/build-site.sh' first" >&2; exit 2; }

# The same control plane as ./test-all's: 4 nodes in 2 zones, short failure timings, the seed workloads.
cluster=$(end2end/cluster/cluster.sh up --nodes 4 --zones 2 --grace-seconds 10 --toleration-seconds 10)
# By its full path: the tests run from end2end/, and a relative path there would leave the cluster running.
trap '"$root/end2end/cluster/cluster.sh" down "$cluster" >/dev/null 2>&1 || true' EXIT
end2end/cluster/cluster.sh seed "$cluster" >/dev/null
set -a; source "$cluster/cluster.env"; set +a
cd end2end
DRAINBOARD_BIN="$root/target/debug/drainboard" LEPTOS_SITE_ROOT="$root/target/site" \
  node --test --test-concurrency=1 "${options[@]}" "${files[@]}"
