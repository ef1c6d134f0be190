# syntax=docker/dockerfile:1.7
# One image for the six services; the command chooses the service (default: the gateway):
#   docker build -t baas .
#   docker run --rm baas                                      # gateway
#   docker run --rm baas node services/auth/dist/main.js     # auth (data, storage, mail, janitor alike)
#   docker run --rm -e DATABASE_URL=... -e NATS_URL=... baas node services/auth/dist/setup.js
#                                                             # one-shot setup: migrations and streams (the k8s Job)
ARG NODE_IMAGE=node:24-slim

# ---- build: install everything, compile TypeScript, drop dev dependencies -------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
# manifests first so the dependency layer is cached until a package.json or the lock changes
COPY package.json package-lock.json ./
COPY packages/common/package.json packages/common/
COPY packages/sdk/package.json packages/sdk/
COPY packages/console/package.json packages/console/
COPY services/gateway/package.json services/gateway/
COPY services/auth/package.json services/auth/
COPY services/data/package.json services/data/
COPY services/storage/package.json services/storage/
COPY services/mail/package.json services/mail/
COPY services/janitor/package.json services/janitor/
RUN --mount=type=cache,target=/root/.npm npm ci
COPY tsconfig.base.json tsconfig.json ./
COPY packages/ packages/
COPY services/ services/
# npm run build compiles the services and builds the web console (packages/console/dist, Vite),
# which the gateway serves under /console (CONSOLE_DIR defaults to that directory)
RUN npm run build \
 && npm prune --omit=dev \
 && rm -rf packages/*/src services/*/src packages/*/test services/*/test \
 && find packages services -name '*.tsbuildinfo' -delete

# ---- runtime: node + production dependencies + compiled code, non-root ------------------------
FROM ${NODE_IMAGE} AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 baas \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin baas
ENV NODE_ENV=production
WORKDIR /app
# root-owned and read-only for the service user; nothing is written under /app at run time
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
# packages/ and services/ carry the SQL migrations (packages/common/migrations and
# services/<svc>/migrations): applied at boot (DB_MIGRATE_ON_BOOT) or by the migrate CLI
COPY --from=build /app/packages ./packages
COPY --from=build /app/services ./services
COPY scripts/s3-ensure-bucket.mjs ./scripts/
RUN ls packages/common/migrations/*.sql services/*/migrations/*.sql >/dev/null \
 && test -f packages/common/dist/postgres/migrate-cli.js \
 && test -f services/auth/data/common-passwords.txt \
 && test -f packages/console/dist/index.html
USER 10001:10001
EXPOSE 8080 8081 8082 8083 8084 8085
# tini as PID 1: forwards SIGTERM to node and reaps zombies
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--v8-pool-size=1", "services/gateway/dist/main.js"]
