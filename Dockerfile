# Drainboard's container image: one static (musl) server binary and the site, on an empty base, run as a user
# that is not root, with nothing to write. deploy/ runs it in team mode.
#
#   docker build -t drainboard .        (or: podman build -t drainboard .   buildah build -t drainboard .)
#
# The context is the repository root: the server is built from the whole workspace. .dockerignore keeps build
# output, caches and node_modules out of it. A cold build compiles the site's build tool (end2end/tools/site) and
# the workspace (tens of minutes on two cores); the tool's layer is cached for later builds.

# Base images are pinned by digest (the multi-platform index's), so that a tag moved on the registry cannot change
# what is built; the tag stays beside it for the reader. Bump both together, with the digest the registry gives now:
#   docker buildx imagetools inspect docker.io/library/rust:1.95-bookworm --format '{{.Manifest.Digest}}'
#   (or: skopeo inspect --format '{{.Digest}}' docker://docker.io/library/rust:1.95-bookworm)
# The empty base (scratch) is not an image and has nothing to pin. check-architecture.sh refuses a tag alone.

# wasm-opt, esbuild and lightningcss for the release site: npm's, pinned by end2end/package-lock.json (as ./run uses
# them). Node 20, which that lockfile's packages ask for.
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
WORKDIR /src
# The site's build tool (wasm-bindgen, the wasm splitter, precompression), from its own lockfile, in a layer of its
# own: it changes only when its wasm-bindgen does. build-site.sh finds it built in the same place.
COPY end2end/tools/site end2end/tools/site
RUN cargo build --release --locked --manifest-path end2end/tools/site/Cargo.toml --target-dir /src/.cache/tools-target
COPY --from=npm /usr/local/bin/node /usr/local/bin/node
COPY --from=npm /src/end2end/node_modules end2end/node_modules
COPY . .
# The server for musl (statically linked: nothing to load at run time); the wasm as ./run builds it.
ENV PATH=/src/end2end/node_modules/.bin:$PATH
RUN end2end/scripts/build-site.sh --release --server-target x86_64-unknown-linux-musl \
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
