#!/usr/bin/env bash
# Builds the site: the server binary, the wasm (its #[lazy] parts split out), the JS, the style and the public files.
#   build-site.sh [--release] [--site DIR] [--server-target TRIPLE] [--no-server]
# Debug (the default) is what ./test-all tests and ./run --dev serves. --release is what ./run serves and the image
# ships: views' types erased (`--cfg erase_components`), the wasm through wasm-opt, the JS and CSS minified, and every
# site file precompressed (.gz and .br). --site: where the site goes (default target/site). --server-target: a
# target triple for the server (the image's static musl build). --no-server: the site only, as ./test-all's
# first-load budget check builds it.
#
# The server and the wasm are built at the same time, each in its own target folder, since neither needs the other:
# the wasm's last steps (LTO, wasm-opt) keep one core busy and the server's build takes the other. What the tools do
# is what cargo-leptos did, with the libraries it uses (end2end/tools/site) and the npm tools in end2end/.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$root/end2end/node_modules/.bin:$PATH"
say() { echo "build-site: $*" >&2; }

release="" site=target/site server_target="" build_server=yes
while [ $# -gt 0 ]; do
  case $1 in
    --release) release=yes; shift ;;
    --site) site=$2; shift 2 ;;
    --server-target) server_target=$2; shift 2 ;;
    --no-server) build_server=""; shift ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) say "unknown argument $1 (see --help)"; exit 2 ;;
  esac
done
name=drainboard
# The site folder is emptied before each build: only a folder under target/ may be named.
case $site in
  target/?*) [[ $site != *..* ]] || { say "--site must not contain '..'"; exit 2; } ;;
  *) say "--site must be a folder under target/, not '$site'"; exit 2 ;;
esac

# The tool, from its own lockfile: a no-op when it is up to date. Its wasm-bindgen must be the workspace's exactly.
bindgen_version=$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/"/, "", $3); print $3; exit}' Cargo.lock)
pinned=$(grep -o 'wasm-bindgen-cli = { version = "=[0-9.]*"' end2end/tools/site/Cargo.toml | grep -o '[0-9][0-9.]*')
if [ "$pinned" != "$bindgen_version" ]; then
  say "end2end/tools/site pins wasm-bindgen-cli $pinned, but Cargo.lock has wasm-bindgen $bindgen_version: set the" \
    "pin and the package version there to $bindgen_version, then run" \
    "'cargo update --manifest-path end2end/tools/site/Cargo.toml'"
  exit 1
fi
tools_target="$root/.cache/tools-target"
tool="$tools_target/release/drainboard-site"

flags="" wasm_profile=debug wasm_args=() server_args=()
if [ -n "$release" ]; then
  flags="--cfg erase_components" wasm_profile=wasm-release
  wasm_args=(--profile wasm-release) server_args=(--release)
fi
[ -z "$server_target" ] || server_args+=(--target "$server_target")
# The wasm in target/front (as cargo-leptos kept it): its flags differ from the server's and the checks', and a
# folder of its own lets both cargo builds run at once without waiting on each other's lock.
# --emit-relocs: the splitter reads the linker's relocations to cut the wasm apart.
wasm_flags="${RUSTFLAGS:+$RUSTFLAGS }${flags:+$flags }-Clink-args=--emit-relocs"
server_flags="${RUSTFLAGS:+$RUSTFLAGS }$flags"

say "building ${build_server:+the server and }the wasm${release:+ (release)}, and the site tool if it changed"
server_log=$(mktemp) tool_log=$(mktemp)
trap 'rm -f "$server_log" "$tool_log"' EXIT
# The tool (minutes on a fresh machine, a no-op after) beside the two builds: it is needed only once the wasm is.
cargo build --release --locked --manifest-path end2end/tools/site/Cargo.toml --target-dir "$tools_target" \
  2>"$tool_log" &
tool_build=$!
server=""
if [ -n "$build_server" ]; then
  (
    if [ -n "$server_flags" ]; then export RUSTFLAGS="$server_flags"; else unset RUSTFLAGS; fi
    cargo build -p drainboard --bin drainboard "${server_args[@]}"
  ) 2>"$server_log" &
  server=$!
fi
RUSTFLAGS="$wasm_flags" cargo build -p frontend --lib --target wasm32-unknown-unknown --target-dir target/front \
  "${wasm_args[@]}" || { kill $server "$tool_build" 2>/dev/null; wait; say "the wasm did not build"; exit 1; }
wait "$tool_build" || { cat "$tool_log" >&2; kill $server 2>/dev/null; wait; say "the site tool did not build"; exit 1; }

# The site from scratch: nothing of an earlier build is served by mistake.
rm -rf "$site" && mkdir -p "$site/pkg"
wasm="target/front/wasm32-unknown-unknown/$wasm_profile/frontend.wasm"
"$tool" split "$wasm" "$site/pkg" "$name"
"$tool" bindgen --target=web --keep-lld-exports --no-demangle --out-name="$name" --out-dir="$site/pkg" \
  "${wasm%.wasm}_split.wasm"
# Leptos's hydration scripts load <name>.wasm.
mv "$site/pkg/${name}_bg.wasm" "$site/pkg/$name.wasm"
cp -r public/. "$site/"
css=(lightningcss --targets defaults style/main.css -o "$site/pkg/$name.css")
if [ -n "$release" ]; then
  # wasm-opt on the main module and each lazily loaded part, two at a time (it is single-threaded).
  find "$site/pkg" -name '*.wasm' -print0 |
    xargs -0 -P 2 -I{} wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int {} -o {}
  # wasm-bindgen imports the split loader once per lazily loaded part, as keys of one object: the same module each
  # time, so esbuild's duplicate-key warning says nothing here.
  esbuild --minify --log-level=warning --log-override:duplicate-object-key=silent "$site/pkg/$name.js" \
    --outfile="$site/pkg/$name.min.js"
  mv "$site/pkg/$name.min.js" "$site/pkg/$name.js"
  "${css[@]}" --minify
else
  "${css[@]}"
fi

if [ -n "$server" ]; then
  kill -0 "$server" 2>/dev/null && say "the site is built; waiting for the server's build"
  wait "$server" || { cat "$server_log" >&2; say "the server did not build"; exit 1; }
  grep -v '^ *Compiling ' "$server_log" >&2 || true
fi
if [ -n "$release" ]; then
  "$tool" compress "$site"
fi
say "built the site in $site${build_server:+ and the server} ($(du -sh "$site/pkg" | cut -f1) in $site/pkg)"
