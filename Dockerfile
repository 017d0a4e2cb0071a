# Drainboard's container image: one static (musl) server binary and the site, on an empty base, run as a user
# that is not root, with nothing to write. deploy/ runs it in team mode.
#
#   docker build -t drainboard .        (or: podman build -t drainboard .   buildah build -t drainboard .)
#
# The context is the repository root: the server is built from the whole workspace. .dockerignore keeps build
# output, caches and node_modules out of it. A cold build compiles cargo-leptos, the wasm-bindgen CLI and the
# workspace (tens of minutes on two cores); the tool layers are cached for later builds.

# Base images are pinned by digest (the multi-platform index's), so that a tag moved on the registry cannot change
# what is built; the tag stays beside it for the reader. Bump both together, with the digest the registry gives now:
#   docker buildx imagetools inspect docker.io/library/rust:1.95-bookworm --format '{{.Manifest.Digest}}'
#   (or: skopeo inspect --format '{{.Digest}}' docker://docker.io/library/rust:1.95-bookworm)
# The empty base (scratch) is not an image and has nothing to pin. check-architecture.sh refuses a tag alone.

# wasm-opt for the release wasm: npm's binaryen, pinned by end2end/package-lock.json (as ./run uses it). Node 20,
# which that lockfile's packages ask for.
FROM docker.io/library/node:20-bookworm-slim@sha256:2cf067cfed83d5ea958367df9f966191a942351a2df77d6f0193e162b5febfc0 AS npm
WORKDIR /src/end2end
COPY end2end/package.json end2end/package-lock.json ./
RUN PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund

FROM docker.io/library/rust:1.95-bookworm@sha256:6258907abe69656e41cd992e0b705cdcfabcbbe3db374f92ed2d47121282d4a1 AS build
# musl-gcc for the C parts of the TLS stack (ring) in a static binary.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends musl-tools \
 && rm -rf /var/lib/apt/lists/*
RUN rustup target add wasm32-unknown-unknown x86_64-unknown-linux-musl
# The versions end2end/scripts/ensure-tools.sh installs, as it installs them: no_downloads (cargo-leptos never
# fetches a tool itself), and a debug build of cargo-leptos, which only orchestrates and builds in a third of the time.
ARG CARGO_LEPTOS_VERSION=0.3.10
RUN cargo install cargo-leptos --version "${CARGO_LEPTOS_VERSION}" --locked --features no_downloads --debug
WORKDIR /src
# The wasm-bindgen CLI must be exactly the version in Cargo.lock.
COPY Cargo.lock ./
RUN version=$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/"/, "", $3); print $3; exit}' Cargo.lock) \
 && cargo install wasm-bindgen-cli --version "$version"
COPY --from=npm /usr/local/bin/node /usr/local/bin/node
COPY --from=npm /src/end2end/node_modules end2end/node_modules
COPY . .
# The server for musl (statically linked: nothing to load at run time); the wasm as ./run --release builds it.
ENV PATH=/src/end2end/node_modules/.bin:$PATH \
    LEPTOS_BIN_TARGET_TRIPLE=x86_64-unknown-linux-musl \
    RUSTFLAGS="--cfg erase_components"
RUN cargo leptos build --release --precompress --split \
 && mkdir -p /out/etc \
 && cp target/x86_64-unknown-linux-musl/release/drainboard /out/drainboard \
 && strip /out/drainboard \
 && cp -r target/site /out/site \
 && echo 'drainboard:x:65532:65532:drainboard:/nonexistent:/sbin/nologin' > /out/etc/passwd \
 && echo 'drainboard:x:65532:' > /out/etc/group \
 && ldd /out/drainboard 2>&1 | grep -qE 'statically linked|not a dynamic executable'

# An empty base: the binary, the site, and a passwd entry for the user. No shell, no package manager, no CA bundle
# (the server trusts only the cluster's CA, from the ServiceAccount the kubelet mounts). Nothing is written to the
# filesystem: it runs with a read-only root (the audit log, if asked for, goes to a volume).
FROM scratch
COPY --from=build /out/ /
ENV LEPTOS_SITE_ROOT=/site \
    NO_COLOR=1
USER 65532:65532
EXPOSE 8443 8081
ENTRYPOINT ["/drainboard"]
