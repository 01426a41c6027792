# trading-exporter container image: TypeScript built in one stage, run from production dependencies in the last.
#
#   docker build -t trading-exporter:0.1.0 --build-arg REVISION="$(git rev-parse HEAD)" .
#   docker run --rm -p 9842:9842 -e TRADING_BASE_URL=https://venue.example \
#     -e TRADING_COLLATERAL_IDS=USDC -e TRADING_API_KEY_FILE=/run/secrets/venue-key \
#     -v "$PWD/venue.key:/run/secrets/venue-key:ro" trading-exporter:0.1.0
#
# `bash .ci/image-recipe` runs the same npm steps outside a container; test/packaging.test.ts checks
# this file's rules (pinned bases, production-only runtime, non-root user, healthcheck, labels).
#
# The base is pinned to an exact Node 24 LTS release on Debian 12 slim (glibc, so no musl surprises;
# the non-root `node` user is uid/gid 1000). It is pinned by tag, not by digest: a digest cannot be
# checked from where this file is written, and a wrong one breaks every build. Pin it with
# `docker buildx imagetools inspect node:24.21.0-bookworm-slim` (or let Renovate/Dependabot add
# and refresh it) where a registry is reachable. Bump both FROM lines together: .ci/run
# installs the same Node release from the npm registry and runs the tests on it.

FROM node:24.21.0-bookworm-slim AS build
WORKDIR /app
# Manifests first, so the dependency layer is reused until package*.json change.
COPY package.json package-lock.json ./
# --ignore-scripts: no dependency runs install code in the build; tsc needs none.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# The simulated venue and the webhook receiver of deploy/compose: programs of their own (tools/), never in
# the exporter's image. `docker build --target tools` builds them; they need Node alone, no dependency.
FROM build AS tools-build
COPY tools ./tools
RUN npm run build:tools

FROM node:24.21.0-bookworm-slim AS tools
WORKDIR /app
# package.json: its "type" makes the built files ES modules.
COPY package.json ./
COPY --from=tools-build /app/dist-tools ./dist-tools
USER 1000:1000

FROM node:24.21.0-bookworm-slim AS runtime
# REVISION: the git commit, shown in trading_exporter_build_info{revision}; it, BRANCH, BUILD_USER
# and BUILD_DATE are printed by --version in Prometheus's form. VERSION must equal
# package.json's version (a test checks the default). SOURCE: the repository URL; set it in CI
# until package.json names a repository.
ARG REVISION=unknown
ARG BRANCH=unknown
ARG BUILD_USER=unknown
ARG BUILD_DATE=unknown
ARG VERSION=0.1.0
ARG SOURCE=https://example.invalid/trading-exporter
LABEL org.opencontainers.image.title="trading-exporter" \
      org.opencontainers.image.description="Prometheus exporter for a leveraged (margin) trading venue: balances, margins, positions, orders and market settings." \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
ENV NODE_ENV=production \
    TRADING_EXPORTER_REVISION=${REVISION} \
    TRADING_EXPORTER_BRANCH=${BRANCH} \
    TRADING_EXPORTER_BUILD_USER=${BUILD_USER} \
    TRADING_EXPORTER_BUILD_DATE=${BUILD_DATE}
WORKDIR /app
# package.json is also read at run time: it is where --version and build_info get the version.
COPY package.json package-lock.json ./
# Production dependencies only, no install scripts, and no npm cache left in the layer.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
# Files stay owned by root: the process can read its code but not change it.
COPY --from=build /app/dist ./dist
# Numeric, so Kubernetes' runAsNonRoot can verify it (it cannot resolve a user name): 1000 is `node`.
USER 1000:1000
EXPOSE 9842
# No curl or wget in the image: Node's own fetch asks the liveness path. It assumes the default
# listen address and plain HTTP; with --web.listen-address or a web config (TLS, basic auth),
# override the healthcheck (compose `healthcheck:`) or rely on the orchestrator's probes.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9842/-/healthy',{signal:AbortSignal.timeout(4000)}).then((r)=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# node is PID 1: the exporter handles SIGTERM and SIGINT itself (finishes in-flight scrapes, exits 0).
# Two malloc arenas instead of one per thread keep freed native buffers from piling up in RSS.
ENV MALLOC_ARENA_MAX=2
# The same V8 flags as the bin's shebang and `npm start` (see src/main.ts). On the command line, not in
# NODE_OPTIONS, which refuses --heap-growing-percent.
ENTRYPOINT ["node", "--max-semi-space-size=16", "--heap-growing-percent=50", "--expose-gc", "dist/main.js"]
