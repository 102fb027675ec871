# syntax=docker/dockerfile:1
# argus-supervisor image (docs/deployment.md). Build with the exact commit it is built from:
#   docker build --build-arg SOURCE_SHA="$(git rev-parse HEAD)" -t argus-supervisor .
# Everything is installed here, at build time; the container installs nothing when it runs.
# test/deploy/dockerfile.test.ts checks this file.
ARG NODE_IMAGE=node:20-bookworm-slim

# The interpreter the runtime venvs point at: the venvs are built on this stage and run on it,
# so /usr/bin/python3 is the same file in both.
FROM ${NODE_IMAGE} AS base
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*

# The Argus and Foreman venvs, from the pins in runtime/source-lock.json (runtime/README.md).
FROM base AS runtimes
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3-venv \
 && rm -rf /var/lib/apt/lists/*
COPY runtime/ /build/runtime/
RUN ARGUS_SUPERVISOR_IMAGE_BUILD=1 /build/runtime/install-argus.sh \
 && ARGUS_SUPERVISOR_IMAGE_BUILD=1 /build/runtime/install-foreman.sh

# Compile, drop the dev dependencies, and lay out exactly what the npm package ships
# (package.json `files`) plus its production node_modules in /out/package.
FROM ${NODE_IMAGE} AS build
WORKDIR /build
COPY package.json package-lock.json ./
# No dependency has an install script; `prepare` (tsc) would run before the sources are here.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json index.ts README.md ./
COPY adapters/ adapters/
COPY bench/ bench/
COPY bin/ bin/
COPY docs/ docs/
COPY machines/ machines/
COPY persistence/ persistence/
COPY runtime/ runtime/
COPY server/ server/
COPY services/ services/
COPY simulator/ simulator/
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && npm pack --ignore-scripts --pack-destination /tmp \
 && mkdir /out \
 && tar -xzf /tmp/argus-supervisor-*.tgz -C /out \
 && mv node_modules /out/package/node_modules

FROM base AS image
COPY --from=runtimes /opt/venv-argus /opt/venv-argus
COPY --from=runtimes /opt/venv-foreman /opt/venv-foreman
COPY --from=build /out/package /app
WORKDIR /app
# The state root belongs to the user the server runs as, and to no one else.
RUN mkdir -p /a0/usr/argus-supervisor \
 && chown 1000:1000 /a0/usr/argus-supervisor \
 && chmod 0700 /a0/usr/argus-supervisor
# HOST 0.0.0.0 is not loopback: serve refuses to start without ARGUS_SUPERVISOR_API_KEY
# (api_key_required), so the key is given at run time and never baked into the image.
ENV NODE_ENV=production \
    PORT=7860 \
    HOST=0.0.0.0 \
    ARGUS_SUPERVISOR_STATE_ROOT=/a0/usr/argus-supervisor \
    ARGUS_SUPERVISOR_ARGUS_PYTHON=/opt/venv-argus/bin/python \
    ARGUS_SUPERVISOR_FOREMAN_PYTHON=/opt/venv-foreman/bin/python
# Last, so a new commit rebuilds only this layer. /health reads build-info.json at the package
# root (services/runtime/build-info.ts); an image that cannot name its commit is refused here.
ARG SOURCE_SHA
LABEL org.opencontainers.image.revision=$SOURCE_SHA
RUN ["node", "-e", "const s = process.env.SOURCE_SHA || ''; if (!/^[0-9a-f]{40}$/.test(s)) { console.error('SOURCE_SHA must be the full 40-hex commit: docker build --build-arg SOURCE_SHA=<git rev-parse HEAD>'); process.exit(1); } require('node:fs').writeFileSync('build-info.json', JSON.stringify({ source_sha: s }));"]
USER 1000:1000
EXPOSE 7860
# node, not curl (the slim image has none); the socket too when ARGUS_SUPERVISOR_SOCKET is set.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "const s = process.env.ARGUS_SUPERVISOR_SOCKET; const o = s ? { socketPath: s, path: '/health' } : { host: '127.0.0.1', port: process.env.PORT, path: '/health' }; require('node:http').get(o, (r) => process.exit(r.statusCode === 200 ? 0 : 1)).on('error', () => process.exit(1)).setTimeout(4000, () => process.exit(1));"]
# tini reaps the Python children's orphans and forwards SIGTERM, which serve handles itself.
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/dist/bin/argus-supervisor.js"]
CMD ["serve"]
