# syntax=docker/dockerfile:1
# longshore's image: `docker build -t longshore .` at the repository root (the build context is
# the repository, filtered by .dockerignore). One image for every process; the Deployments of
# infra/deploy choose the command (`worker`, `scheduler`, `serve`). docs/operations.md, "Image".
#
# test/integration/deploy-image/dockerfile.test.ts runs these steps in a clean copy of the
# repository (no Docker there), on a release of this image's Node major fetched from npm, and
# starts the CLI from the runtime layout: change them together.
#
# Node 26, the Active LTS line, its major pinned and nothing finer: every stage the same line (the
# bundle and node_modules are built for the Node that runs them), and a rebuild takes the line's
# security releases. Node 20 reached end of life on 2026-04-30. Per the Node.js release schedule
# (https://github.com/nodejs/Release, README.md and schedule.json, read 2026-12-07), 24 is LTS
# until 2028-04-30 (Active LTS from 2025-10-28, Maintenance since 2026-10-20); 22 is Maintenance
# LTS until 2027-04-30; 26 has been the Active LTS line since 2026-10-28 (until 2029-04-30).
# Production images should be on the Active LTS line, hence 26. To move to another line, change the
# tag in the three FROM lines; the image test follows it.

# --- build: every dependency (esbuild, TypeScript), then the CLI's bundle in dist/cli/.
FROM node:26-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` builds the CLI, which needs the sources copied below (built then);
# no dependency needs an install script (package.json "allowScripts").
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
# The bundle is what runs (bin/longshore.js without src/ takes dist/cli/current.json's build).
# tsc's dist/src (the rest of `npm run build`) is only the fallback of a package without a
# bundle, and type checking is CI's (`npm run lint`): not built here.
RUN node bin/build-cli.js

# --- production dependencies only, installed apart so npm's cache stays out of the image.
FROM node:26-bookworm-slim AS deps
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# --- runtime: production dependencies and the compiled output; no sources, no tsx.
FROM node:26-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
COPY --from=deps /app/node_modules/ ./node_modules/
COPY --from=build /app/bin/longshore.js /app/bin/cli-build-state.js ./bin/
COPY --from=build /app/dist/cli/ ./dist/cli/
# The node image's unprivileged user `node` (uid and gid 1000: nodejs/docker-node,
# 24/bookworm-slim/Dockerfile), by number so a Pod's runAsNonRoot can check it.
USER 1000:1000
EXPOSE 8080 9464
ENTRYPOINT ["node", "/app/bin/longshore.js"]
CMD ["worker"]
