#!/usr/bin/env bash
# Installs what this repo's build needs and a fresh machine lacks; does nothing for what is already there.
#   ensure-tools.sh            the build tools: wasm32 target, cargo-leptos, wasm-bindgen CLI, and end2end's npm
#                              packages
#   ensure-tools.sh --browser  also Chromium from Debian, for the browser tests
# The local control plane's binaries are not among them: `cluster.sh up` builds them when a cluster is started (the
# demo and the tests), and `./run --kubeconfig FILE` never waits for them.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
log() { echo "ensure-tools: $*" >&2; }
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

CARGO_LEPTOS_VERSION=0.3.10
# The CLI must be exactly the wasm-bindgen version in Cargo.lock.
WASM_BINDGEN_VERSION=$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/"/, "", $3); print $3; exit}' "$root/Cargo.lock")

rustup target list --installed | grep -qx wasm32-unknown-unknown || {
  log "adding the wasm32-unknown-unknown target"; rustup target add wasm32-unknown-unknown >&2; }

if ! cargo leptos --version 2>/dev/null | grep -q " $CARGO_LEPTOS_VERSION"; then
  # A debug build of cargo-leptos takes a third of the time of a release build and runs just as well: it only
  # orchestrates cargo and wasm-bindgen. no_downloads: it must never fetch tools from outside the registries.
  log "installing cargo-leptos $CARGO_LEPTOS_VERSION (several minutes, once)"
  cargo install cargo-leptos --version "$CARGO_LEPTOS_VERSION" --locked --features no_downloads --debug >&2
fi

# From end2end/tools/wasm-bindgen, with its own lockfile (--locked, as every other tool here): the crate's published
# one names a release the registry no longer serves.
bindgen_tool="$root/end2end/tools/wasm-bindgen"
bindgen_pinned=$(grep -o 'wasm-bindgen-cli = { version = "=[0-9.]*"' "$bindgen_tool/Cargo.toml" | grep -o '[0-9][0-9.]*')
if [ "$bindgen_pinned" != "$WASM_BINDGEN_VERSION" ]; then
  log "end2end/tools/wasm-bindgen pins wasm-bindgen-cli $bindgen_pinned, but Cargo.lock has wasm-bindgen" \
    "$WASM_BINDGEN_VERSION: set the pin and the package version there to $WASM_BINDGEN_VERSION, then run" \
    "'cargo update --manifest-path end2end/tools/wasm-bindgen/Cargo.toml'"
  exit 1
fi
if ! wasm-bindgen --version 2>/dev/null | grep -q " $WASM_BINDGEN_VERSION\$"; then
  log "installing the wasm-bindgen CLI $WASM_BINDGEN_VERSION (a few minutes, once)"
  cargo install --path "$bindgen_tool" --locked --force --target-dir "$root/.cache/tools-target" >&2
fi

command -v openssl >/dev/null || { log "installing openssl"; apt-get install -y openssl >&2; }

# playwright-core for the browser tests, binaryen's wasm-opt for release builds. Never a browser download.
if ! cmp -s "$root/end2end/package-lock.json" "$root/end2end/node_modules/.installed-lock.json"; then
  log "installing the npm packages in end2end/"
  (cd "$root/end2end" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund >&2 &&
    cp package-lock.json node_modules/.installed-lock.json)
fi

if [ "${1:-}" = --browser ]; then
  if [ ! -x /usr/bin/chromium ]; then
    log "installing Chromium from Debian"
    apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium >&2
  fi
  # Japanese glyphs, so that the Japanese UI's screenshots show text rather than boxes (no test reads them).
  if [ ! -d /usr/share/fonts/opentype/noto ] && ! fc-list 2>/dev/null | grep -q "Noto Sans CJK"; then
    log "installing Noto CJK fonts from Debian"
    (apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y fonts-noto-cjk >&2) ||
      log "no Noto CJK fonts: Japanese screenshots will show boxes"
  fi
fi
