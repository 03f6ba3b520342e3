# syntax=docker/dockerfile:1
# Multi-stage image: a build stage with the toolchain (better-sqlite3 compiles from source here), a stage
# with the production dependencies only, and a small runtime stage running as the unprivileged `node` user.
# test/e2e/ops-image.e2e.test.ts repeats the runtime stage's steps without an engine.

ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS toolchain
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
COPY frontends/shell/package.json frontends/shell/
COPY frontends/admin/package.json frontends/admin/
COPY frontends/user/package.json frontends/user/
COPY frontends/playground/package.json frontends/playground/
COPY frontends/shared/package.json frontends/shared/

# Everything (dev tools, console workspaces), then the server and console builds.
FROM toolchain AS build
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# Only what the server needs at run time: no dev tools, no console workspaces (the console is static files).
FROM toolchain AS prod-deps
RUN npm ci --omit=dev --workspaces=false --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    DATA_DIR=/data \
    SQLITE_PATH=/data/one-api.db \
    MALLOC_ARENA_MAX=2 \
    MALLOC_TRIM_THRESHOLD_=131072 \
    MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
COPY --from=prod-deps --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/package.json ./
COPY --from=build --chown=root:root /app/dist ./dist
COPY --from=build --chown=root:root /app/frontends/shell/dist ./frontends/shell/dist
COPY --from=build --chown=root:root /app/frontends/admin/dist ./frontends/admin/dist
COPY --from=build --chown=root:root /app/frontends/user/dist ./frontends/user/dist
COPY --from=build --chown=root:root /app/frontends/playground/dist ./frontends/playground/dist
# /data holds the SQLite database and the generated session secret (when SESSION_SECRET is not set).
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# Node is PID 1 and handles SIGTERM itself (graceful drain); `docker stop -t` should exceed SHUTDOWN_TIMEOUT (30 s).
STOPSIGNAL SIGTERM
# An entrypoint, as new-api's image has: a compose file's `command:` (new-api's passes `--log-dir /app/logs`)
# becomes the gateway's arguments instead of replacing the program.
ENTRYPOINT ["node", "--max-semi-space-size=4", "--heap-growing-percent=20", "dist/apps/gateway/src/main.js"]
