#!/usr/bin/env bash
# Installs what this repo's build needs and a fresh machine lacks; does nothing for what is already there.
#   ensure-tools.sh            the build tools: the wasm32 target and end2end's npm packages (the site build's
#                              tool, end2end/tools/site, is built by build-site.sh from its own lockfile)
#   ensure-tools.sh --browser  also Chromium from Debian, for the browser tests
# The local control plane's binaries are not among them: `cluster.sh up` builds them when a cluster is started (the
# demo and the tests), and `./run --kubeconfig FILE` never waits for them.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
log() { echo "ensure-tools: $*" >&2; }
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

rustup target list --installed | grep -qx wasm32-unknown-unknown || {
  log "adding the wasm32-unknown-unknown target"; rustup target add wasm32-unknown-unknown >&2; }

command -v openssl >/dev/null || { log "installing openssl"; apt-get install -y openssl >&2; }

# playwright-core for the browser tests; binaryen's wasm-opt, esbuild and lightningcss for the site's build. Never a
# browser download.
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
